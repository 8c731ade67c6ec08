// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: a picture of a session
 *
 * embm-run --plot FILE.png draws two panels with gnuplot: each node's
 * share of the estimated accesses at each tick (lines labelled with the
 * node and its tier), and the latency histogram of each tier (the log2
 * buckets of /proc/embm/latency, as each tier's percent of its estimated
 * loads served by memory).  The figures go into a data file beside the
 * PNG (FILE.dat), which stays: the numbers behind the picture, for
 * another tool or a check.
 *
 * Nothing is left half-written: embm_plot_check() makes the temporary
 * PNG beside FILE.png before the session starts (a path that cannot be
 * written fails then, not after the command ran); gnuplot draws into it
 * and it is renamed over FILE.png only when gnuplot succeeded; the data
 * file is written and renamed the same way.  On any failure, and by
 * embm_plot_abort() when embm-run exits early, the temporary files go.
 *
 * The PNG terminal is gnuplot's "png" (libgd): Debian's gnuplot-nox has
 * it, and it draws with its own fonts where no font is installed (the
 * test guests have none); "pngcairo" would need fontconfig's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

#define MAX_TIERS	8
#define SEP		"\n "	/* the separators of /proc/embm's columns */

/* Is @name an executable file in a directory of $PATH? */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH") ?: "/usr/bin:/bin";
	char buf[4096];

	while (*path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", name);
		if (!access(buf, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* The temporary file beside @path: "@path.tmp.XXXXXX", created and closed. */
static int make_tmp(const char *path, char *tmp, size_t tsize, char *why, size_t size)
{
	mode_t mask;
	int fd;

	if (snprintf(tmp, tsize, "%s.tmp.XXXXXX", path) >= (int)tsize) {
		snprintf(why, size, "%s: path too long", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(why, size, "cannot write %s: no temporary file beside it: %s", path,
			 strerror(errno));
		tmp[0] = 0;
		return -1;
	}
	/* As open() would make it: mkstemp()'s 0600 would keep others out. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		tmp[0] = 0;
		return -1;
	}
	close(fd);
	return 0;
}

/**
 * embm_plot_check() - can a picture be drawn into @png?  Before the session
 * @p:    set up; embm_plot_abort() or embm_plot_write() ends it
 * @png:  the PNG's path
 * @why:  set to what is wrong, naming the path or gnuplot
 * @size: @why's size
 *
 * gnuplot must be on $PATH, @png must not be a directory, and a
 * temporary file must be possible beside it: that file is made now and
 * kept for gnuplot to draw into.
 *
 * Return: 0, or -1 with @why set.
 */
int embm_plot_check(struct embm_plot *p, const char *png, char *why, size_t size)
{
	struct stat st;
	size_t len = strlen(png);

	memset(p, 0, sizeof(*p));
	if (!len) {
		snprintf(why, size, "--plot: the path is empty");
		return -1;
	}
	if (len >= sizeof(p->png)) {
		snprintf(why, size, "--plot: %s: path too long", png);
		return -1;
	}
	if (!stat(png, &st) && S_ISDIR(st.st_mode)) {
		snprintf(why, size, "--plot: %s is a directory, not a file to write", png);
		return -1;
	}
	if (!on_path("gnuplot")) {
		snprintf(why, size, "--plot: gnuplot not found on PATH (Debian: gnuplot-nox)");
		return -1;
	}
	snprintf(p->png, sizeof(p->png), "%s", png);
	if (len > 4 && !strcmp(png + len - 4, ".png"))
		snprintf(p->dat, sizeof(p->dat), "%.*s.dat", (int)(len - 4), png);
	else
		snprintf(p->dat, sizeof(p->dat), "%s.dat", png);
	if (make_tmp(png, p->tmp, sizeof(p->tmp), why, size)) {
		char msg[512];

		snprintf(msg, sizeof(msg), "--plot: %s", why);
		snprintf(why, size, "%s", msg);
		return -1;
	}
	return 0;
}

/**
 * embm_plot_abort() - remove the temporary PNG and free the ticks; again
 * harmlessly
 * @p: the picture
 */
void embm_plot_abort(struct embm_plot *p)
{
	if (p->tmp[0])
		unlink(p->tmp);
	p->tmp[0] = 0;
	free(p->t_ms);
	free(p->first);
	free(p->pts);
	p->t_ms = NULL;
	p->first = NULL;
	p->pts = NULL;
	p->nr = 0;
	p->size = 0;
	p->nr_pts = 0;
	p->pts_size = 0;
}

/**
 * embm_plot_add() - gather tick @k
 * @p: the picture
 * @k: the tick
 * @r: the report @k was taken from: each node's share since the start
 *
 * Return: 0, or -1 when out of memory.
 */
int embm_plot_add(struct embm_plot *p, const struct embm_tick *k, const struct embm_report *r)
{
	if (p->nr + 1 >= p->size) {
		int size = p->size ? 2 * p->size : 64;
		unsigned long long *t = realloc(p->t_ms, size * sizeof(*t));
		int *first;

		if (!t)
			return -1;
		p->t_ms = t;
		first = realloc(p->first, (size + 1) * sizeof(*first));
		if (!first)
			return -1;
		p->first = first;
		p->size = size;
	}
	if (p->nr_pts + k->nr_nodes > p->pts_size) {
		int size = p->pts_size ? 2 * p->pts_size : 256;
		struct embm_plot_point *pts;

		while (size < p->nr_pts + k->nr_nodes)
			size *= 2;
		pts = realloc(p->pts, size * sizeof(*pts));
		if (!pts)
			return -1;
		p->pts = pts;
		p->pts_size = size;
	}
	p->t_ms[p->nr] = k->elapsed_ms;
	p->first[p->nr] = p->nr_pts;
	for (int i = 0; i < k->nr_nodes; i++) {
		struct embm_plot_point *pt = &p->pts[p->nr_pts++];

		pt->node = k->nodes[i].node;
		snprintf(pt->tier, sizeof(pt->tier), "%s", k->nodes[i].tier);
		pt->share = k->nodes[i].share;
		pt->total = i < r->nr_nodes && r->accesses ? r->nodes[i].share : -1;
	}
	p->nr++;
	p->first[p->nr] = p->nr_pts;
	return 0;
}

/**
 * embm_lat_hist_read() - read the buckets of DIR/latency
 * @dir: normally EMBM_PROC_DIR
 * @h:   filled in; free with embm_lat_hist_free()
 *
 * The columns lt2, lt4, ... hold the estimated accesses whose latency was
 * below that many cycles and at least half of it (lt2 from 0); they are
 * found by name, as procfs.c finds the others.
 *
 * Return: 0 (no rows when idle), or -1 with errno set.
 */
int embm_lat_hist_read(const char *dir, struct embm_lat_hist *h)
{
	int col[EMBM_PLOT_LAT_BUCKETS], node_col = -1, n = 0;
	char path[512], *line = NULL, *save, *tok;
	size_t size = 0;
	FILE *f;
	int v;

	memset(h, 0, sizeof(*h));
	snprintf(path, sizeof(path), "%s/latency", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (getline(&line, &size, f) <= 0 || sscanf(line, "version %d", &v) != 1 ||
	    getline(&line, &size, f) <= 0)
		goto out_proto;
	if (!strncmp(line, "state ", 6))
		goto out;
	for (tok = strtok_r(line, SEP, &save); tok; tok = strtok_r(NULL, SEP, &save), n++) {
		unsigned long long up;
		int len = 0;

		if (!strcmp(tok, "node")) {
			node_col = n;
		} else if (h->nr_buckets < EMBM_PLOT_LAT_BUCKETS &&
			   sscanf(tok, "lt%llu%n", &up, &len) == 1 && !tok[len]) {
			col[h->nr_buckets] = n;
			h->upper[h->nr_buckets++] = up;
		}
	}
	if (node_col < 0)
		goto out_proto;
	h->w = calloc(EMBM_TOOLS_MAX_NODES, sizeof(*h->w));
	if (!h->w)
		goto out_nomem;
	while (h->nr_nodes < EMBM_TOOLS_MAX_NODES && getline(&line, &size, f) > 0) {
		int c = 0, b;

		for (tok = strtok_r(line, SEP, &save); tok; tok = strtok_r(NULL, SEP, &save), c++) {
			if (c == node_col)
				h->node[h->nr_nodes] = strtol(tok, NULL, 10);
			for (b = 0; b < h->nr_buckets; b++)
				if (col[b] == c)
					h->w[h->nr_nodes][b] = strtoull(tok, NULL, 10);
		}
		if (c != n)
			goto out_proto;
		h->nr_nodes++;
	}
out:
	free(line);
	fclose(f);
	return 0;
out_nomem:
	free(line);
	fclose(f);
	errno = ENOMEM;
	return -1;
out_proto:
	free(line);
	fclose(f);
	embm_lat_hist_free(h);
	errno = EPROTO;
	return -1;
}

void embm_lat_hist_free(struct embm_lat_hist *h)
{
	free(h->w);
	h->w = NULL;
}

/* The tier of @node in @r, or NULL. */
static const char *tier_of(const struct embm_report *r, int node)
{
	for (int i = 0; i < r->nr_nodes; i++)
		if (r->nodes[i].node == node)
			return r->nodes[i].tier;
	return NULL;
}

/* @d as a percentage for the data file: "NaN" for none (< 0), which gnuplot skips. */
static void put_pct(FILE *f, double d)
{
	if (d < 0)
		fprintf(f, " NaN");
	else
		fprintf(f, " %.2f", d);
}

/*
 * The data file: block 0 a line a tick, the session time in seconds then
 * each node's share at the tick and since the start; block 1 (after two
 * blank lines, gnuplot's "index 1") a line a latency bucket, its upper
 * bound in cycles then each tier's percent.  Returns the tiers' count in
 * block 1 (0: no latency was sampled) and their names in @tiers.
 */
static int write_data(FILE *f, const struct embm_plot *p, const struct embm_report *r,
		      const struct embm_lat_hist *h, char tiers[][EMBM_PROC_WORD])
{
	unsigned long long hist[MAX_TIERS][EMBM_PLOT_LAT_BUCKETS] = { 0 }, sum[MAX_TIERS] = { 0 };
	int i, j, b, nr_tiers = 0, lo = -1, hi = -1;

	fprintf(f, "# embm-run --plot: each node's share (%%) of the estimated %s\n",
		r->unit[0] ? r->unit : "accesses");
	fprintf(f, "# t_s");
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(f, " n%d_%s_tick", r->nodes[i].node, r->nodes[i].tier);
	for (i = 0; i < r->nr_nodes; i++)
		fprintf(f, " n%d_%s_total", r->nodes[i].node, r->nodes[i].tier);
	fprintf(f, "\n");
	/* The final report's nodes are the columns; a tick's others are left out. */
	for (i = 0; i < p->nr; i++) {
		fprintf(f, "%llu.%03llu", p->t_ms[i] / 1000, p->t_ms[i] % 1000);
		for (int pass = 0; pass < 2; pass++) {
			for (j = 0; j < r->nr_nodes; j++) {
				double d = -1;

				for (int q = p->first[i]; q < p->first[i + 1]; q++)
					if (p->pts[q].node == r->nodes[j].node)
						d = pass ? p->pts[q].total : p->pts[q].share;
				put_pct(f, d);
			}
		}
		fprintf(f, "\n");
	}

	for (i = 0; i < h->nr_nodes; i++) {
		const char *t = tier_of(r, h->node[i]);

		if (!t)
			continue;
		for (j = 0; j < nr_tiers; j++)
			if (!strcmp(tiers[j], t))
				break;
		if (j == MAX_TIERS)
			continue;
		if (j == nr_tiers)
			snprintf(tiers[nr_tiers++], EMBM_PROC_WORD, "%s", t);
		for (b = 0; b < h->nr_buckets; b++) {
			hist[j][b] += h->w[i][b];
			sum[j] += h->w[i][b];
			if (h->w[i][b] && lo < 0)
				lo = b;
			if (h->w[i][b] && b > hi)
				hi = b;
			if (h->w[i][b] && b < lo)
				lo = b;
		}
	}
	fprintf(f, "\n\n# latency: each tier's %% of its estimated loads with a latency, %s\n",
		"by bucket");
	fprintf(f, "# lt_cycles");
	for (j = 0; j < nr_tiers; j++)
		fprintf(f, " %s", tiers[j]);
	fprintf(f, "\n");
	if (lo < 0) {
		fprintf(f, "# none: no latency was sampled\n");
		return 0;
	}
	/* A bucket on either side, so that the steps start and end at zero. */
	lo = lo > 0 ? lo - 1 : 0;
	hi = hi + 1 < h->nr_buckets ? hi + 1 : hi;
	for (b = lo; b <= hi; b++) {
		fprintf(f, "%llu", h->upper[b]);
		for (j = 0; j < nr_tiers; j++)
			put_pct(f, sum[j] ? 100.0 * hist[j][b] / sum[j] : -1);
		fprintf(f, "\n");
	}
	return nr_tiers;
}

/* @s in a gnuplot string in single quotes: a quote is doubled. */
static void put_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void gnuplot_script(FILE *g, const struct embm_plot *p, const struct embm_report *r,
			   const char *what, char tiers[][EMBM_PROC_WORD], int nr_tiers)
{
	char title[640];
	int i;

	fprintf(g, "set terminal png size 1000,900\nset termoption noenhanced\nset output ");
	put_str(g, p->tmp);
	snprintf(title, sizeof(title), "embm-run: %s (source %s)", what ?: "", r->source);
	fprintf(g, "\nset multiplot layout 2,1 title ");
	put_str(g, title);
	fprintf(g, "\nset key outside right\nset grid\n");
	fprintf(g, "set title 'share of the estimated %s per node, each tick'\n",
		r->unit[0] ? r->unit : "accesses");
	fprintf(g, "set xlabel 'session time (s)'\nset ylabel 'share (%%)'\n");
	fprintf(g, "set xrange [0:*]\nset yrange [0:100]\n");
	if (!r->nr_nodes || !p->nr) {
		fprintf(g, "set label 1 'no node, no tick' at graph 0.5,0.5 center\n");
		fprintf(g, "plot -1 notitle\nunset label 1\n");
	} else {
		fprintf(g, "plot ");
		for (i = 0; i < r->nr_nodes; i++) {
			char name[64];

			snprintf(name, sizeof(name), "%sn%d %s", r->nodes[i].study ? "*" : "",
				 r->nodes[i].node, r->nodes[i].tier);
			fprintf(g, "%s", i ? ", '' " : "");
			if (!i)
				put_str(g, p->dat);
			fprintf(g, " index 0 using 1:%d with linespoints title ", i + 2);
			put_str(g, name);
		}
		fprintf(g, "\n");
	}
	fprintf(g, "set title 'latency of the loads served by memory, per tier'\n");
	fprintf(g, "set xlabel 'core cycles (log2 buckets)'\n");
	fprintf(g, "set ylabel '%% of the tier''s estimated loads'\nset yrange [0:*]\n");
	if (!nr_tiers) {
		fprintf(g, "set xrange [0:1]\nset yrange [0:1]\n");
		fprintf(g, "set label 1 'no latency sampled (source %s)' at graph 0.5,0.5 center\n",
			r->source);
		fprintf(g, "plot -1 notitle\n");
	} else {
		fprintf(g, "set logscale x 2\nset xrange [*:*]\nplot ");
		for (i = 0; i < nr_tiers; i++) {
			fprintf(g, "%s", i ? ", '' " : "");
			if (!i)
				put_str(g, p->dat);
			fprintf(g, " index 1 using 1:%d with fsteps linewidth 2 title ", i + 2);
			put_str(g, tiers[i]);
		}
		fprintf(g, "\n");
	}
	fprintf(g, "unset multiplot\nset output\n");
}

/* Write the data file, atomically: into a temporary file, renamed. */
static int write_dat(struct embm_plot *p, const struct embm_report *r,
		     const struct embm_lat_hist *h, char tiers[][EMBM_PROC_WORD], int *nr_tiers,
		     char *why, size_t size)
{
	char tmp[sizeof(p->dat) + 16];
	FILE *f;

	if (make_tmp(p->dat, tmp, sizeof(tmp), why, size))
		return -1;
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	*nr_tiers = write_data(f, p, r, h, tiers);
	if (fflush(f) || ferror(f)) {
		snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
		fclose(f);
		goto out_unlink;
	}
	if (fclose(f)) {
		snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (rename(tmp, p->dat)) {
		snprintf(why, size, "cannot rename %s to %s: %s", tmp, p->dat, strerror(errno));
		goto out_unlink;
	}
	return 0;

out_unlink:
	unlink(tmp);
	return -1;
}

/**
 * embm_plot_write() - write the data file and draw the PNG
 * @p:        the picture, with its ticks; ended (embm_plot_abort()) after
 * @r:        the final report: the nodes, their tiers, the unit, the source
 * @proc_dir: where /proc/embm is, for the latency histogram
 * @what:     the command or target, for the title
 * @why:      set to what went wrong
 * @size:     @why's size
 *
 * Return: 0, or -1 with @why set and no PNG written (the data file may be).
 */
int embm_plot_write(struct embm_plot *p, const struct embm_report *r, const char *proc_dir,
		    const char *what, char *why, size_t size)
{
	char tiers[MAX_TIERS][EMBM_PROC_WORD];
	struct embm_lat_hist h;
	int nr_tiers = 0, status, err = -1;
	FILE *g;

	if (embm_lat_hist_read(proc_dir, &h)) {
		snprintf(why, size, "cannot read %s/latency: %s", proc_dir, strerror(errno));
		goto out;
	}
	if (write_dat(p, r, &h, tiers, &nr_tiers, why, size))
		goto out_free;
	fflush(NULL);
	g = popen("gnuplot", "w");
	if (!g) {
		snprintf(why, size, "cannot run gnuplot: %s", strerror(errno));
		goto out_free;
	}
	gnuplot_script(g, p, r, what, tiers, nr_tiers);
	status = pclose(g);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, size, "gnuplot failed (%s %d) drawing %s",
			 status != -1 && WIFEXITED(status) ? "exit status" : "wait status",
			 status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : status, p->png);
		goto out_free;
	}
	if (rename(p->tmp, p->png)) {
		snprintf(why, size, "cannot rename %s to %s: %s", p->tmp, p->png, strerror(errno));
		goto out_free;
	}
	p->tmp[0] = 0;
	err = 0;
out_free:
	embm_lat_hist_free(&h);
out:
	embm_plot_abort(p);
	return err;
}
