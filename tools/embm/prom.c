// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: /proc/embm in Prometheus' text format
 *
 * Fleets already run Prometheus, and node_exporter's textfile collector
 * publishes whatever *.prom files a directory holds.  embm-stat
 * --prometheus FILE writes the session there: the same figures as the
 * report, one metric family each, with HELP and TYPE lines, and the
 * labels node, tier and source on the per-node ones.  Counters are
 * embm's own: they start at zero with each session, which Prometheus'
 * rate() and increase() take as a counter reset.
 *
 * The file is written as node_exporter asks: into a temporary file in
 * the same directory (FILE.tmp.XXXXXX, which its *.prom glob skips),
 * flushed to disk, then renamed over FILE, so that a scrape reads the
 * old file or the new one, never half of one.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prom.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* A per-node figure of struct embm_node, printed as it is. */
struct prom_node_metric {
	const char *name;
	const char *type;
	const char *help;
	unsigned int needs;	/* EMBM_HAS_* the source must fill, or 0 */
	size_t off;		/* of an unsigned long long in struct embm_node */
};

#define NODE_ULL(m)	offsetof(struct embm_node, m)

static const struct prom_node_metric node_metrics[] = {
	{ "embm_samples_total", "counter",
	  "Samples of the session whose physical address is on the node.", 0, NODE_ULL(samples) },
	{ "embm_load_samples_total", "counter", "Samples of loads on the node.",
	  EMBM_HAS_OP, NODE_ULL(loads) },
	{ "embm_store_samples_total", "counter", "Samples of stores on the node.",
	  EMBM_HAS_OP, NODE_ULL(stores) },
	{ "embm_latency_samples_total", "counter",
	  "Samples on the node served by memory whose latency counts in the mean.",
	  EMBM_HAS_LATENCY, NODE_ULL(lat_samples) },
	{ "embm_cache_samples_total", "counter", "Samples on the node served by a cache.",
	  EMBM_HAS_DATA_SRC, NODE_ULL(cache) },
	{ "embm_memory_samples_total", "counter", "Samples on the node served by memory.",
	  EMBM_HAS_DATA_SRC, NODE_ULL(mem) },
	{ "embm_cxl_samples_total", "counter", "Samples on the node in a CXL window.",
	  0, NODE_ULL(cxl) },
	{ "embm_user_samples_total", "counter", "Samples on the node taken in user mode.",
	  0, NODE_ULL(user_samples) },
	{ "embm_kernel_samples_total", "counter",
	  "Samples on the node taken in the kernel (any mode but user).", 0,
	  NODE_ULL(kernel_samples) },
	{ "embm_distinct_pages", "gauge",
	  "Distinct 4 KiB pages of the node among the samples (an estimate).", 0, NODE_ULL(pages) },
};

/* A figure of the session, labelled with its source alone. */
struct prom_session_metric {
	const char *name;
	const char *type;
	const char *help;
	size_t off;		/* of an unsigned long long in struct embm_report */
	unsigned int div;	/* printed as value / div: 1000 for ms as seconds */
};

#define REP_ULL(m)	offsetof(struct embm_report, m)

static const struct prom_session_metric session_metrics[] = {
	{ "embm_session_samples_total", "counter", "Samples of the session, all kinds.",
	  REP_ULL(samples), 1 },
	{ "embm_session_attributed_samples_total", "counter",
	  "Samples placed on a node.", REP_ULL(attributed), 1 },
	{ "embm_latency_only_samples_total", "counter",
	  "Samples with a latency but no address.", REP_ULL(latency_only), 1 },
	{ "embm_hotplug_busy_samples_total", "counter",
	  "Samples not placed: taken during memory or CPU hotplug.", REP_ULL(hotplug_busy), 1 },
	{ "embm_cxl_device_samples_total", "counter",
	  "Samples on a CXL device's own pages.", REP_ULL(cxl_device), 1 },
	{ "embm_lost_samples_total", "counter",
	  "Samples lost before ksamplingd read them (nodes unknown).", REP_ULL(lost), 1 },
	{ "embm_lost_events_total", "counter",
	  "Events the lost samples stood for (an estimate).", REP_ULL(lost_events), 1 },
	{ "embm_throttled_total", "counter", "Times perf throttled the session's events.",
	  REP_ULL(throttled), 1 },
	{ "embm_throttled_seconds_total", "counter",
	  "Time perf kept the session's events throttled.", REP_ULL(throttled_ms), 1000 },
	{ "embm_ksamplingd_cpu_seconds_total", "counter",
	  "CPU time ksamplingd spent on the session.", REP_ULL(cpu_ms), 1000 },
	{ "embm_session_elapsed_seconds", "gauge", "How long the session has run.",
	  REP_ULL(elapsed_ms), 1000 },
	{ "embm_sample_period", "gauge", "The sample period of loads (or faults) now.",
	  REP_ULL(period), 1 },
	{ "embm_store_sample_period", "gauge", "The sample period of stores now.",
	  REP_ULL(store_period), 1 },
};

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, with backslash, quote and newline escaped as the format asks. */
static void label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void node_labels(FILE *f, const char *name, const struct embm_node *n,
			const struct embm_report *r)
{
	fprintf(f, "%s{node=\"%d\",tier=", name, n->node);
	label_value(f, n->tier);
	fputs(",source=", f);
	label_value(f, r->source);
	fputs("} ", f);
}

/* A value in units of 1/@div, as a decimal without a trailing zero run. */
static void value(FILE *f, unsigned long long v, unsigned int div)
{
	if (div == 1 || !(v % div))
		fprintf(f, "%llu\n", v / div);
	else
		fprintf(f, "%llu.%03llu\n", v / div, v % div);
}

static void print_session(FILE *f, const struct embm_report *r)
{
	unsigned int i;

	family(f, "embm_session_info", "gauge",
	       "Always 1: the session's state (idle, running, done), source and estimate unit.");
	fputs("embm_session_info{state=", f);
	label_value(f, r->state);
	fputs(",source=", f);
	label_value(f, r->source);
	fputs(",unit=", f);
	label_value(f, r->unit);
	fputs("} 1\n", f);
	family(f, "embm_session_running", "gauge", "1 while a session runs, else 0.");
	fprintf(f, "embm_session_running %d\n", !strcmp(r->state, "running"));
	if (!strcmp(r->state, "idle"))
		return;
	family(f, "embm_session_target", "gauge",
	       "The session's target: a process id, -1 for the whole system.");
	fprintf(f, "embm_session_target %d\n", r->target);
	family(f, "embm_session_study_node", "gauge", "The node under study, or -1.");
	fprintf(f, "embm_session_study_node %d\n", r->node);
	for (i = 0; i < ARRAY_SIZE(session_metrics); i++) {
		const struct prom_session_metric *m = &session_metrics[i];

		family(f, m->name, m->type, m->help);
		fprintf(f, "%s{source=", m->name);
		label_value(f, r->source);
		fputs("} ", f);
		value(f, *(const unsigned long long *)((const char *)r + m->off), m->div);
	}
	/* The samples without an address are two counters of status: one here. */
	family(f, "embm_no_address_samples_total", "counter",
	       "Samples without a usable physical address.");
	fputs("embm_no_address_samples_total{source=", f);
	label_value(f, r->source);
	fprintf(f, "} %llu\n", r->no_phys + r->bad_pfn);
}

/* Is the estimate of pages first touched (swfault), not of accesses? */
static bool unit_pages(const struct embm_report *r)
{
	return !strcmp(r->unit, "pages");
}

static void print_nodes(FILE *f, const struct embm_report *r)
{
	const char *est = unit_pages(r) ? "embm_pages_total" : "embm_accesses_total";
	unsigned int i;
	int n;

	for (i = 0; i < ARRAY_SIZE(node_metrics); i++) {
		const struct prom_node_metric *m = &node_metrics[i];

		if (m->needs && !(r->fields & m->needs))
			continue;
		family(f, m->name, m->type, m->help);
		for (n = 0; n < r->nr_nodes; n++) {
			node_labels(f, m->name, &r->nodes[n], r);
			fprintf(f, "%llu\n",
				*(const unsigned long long *)((const char *)&r->nodes[n] + m->off));
		}
	}
	family(f, est, "counter", unit_pages(r) ?
	       "Estimated 4 KiB pages first touched on the node: faults x period x pages mapped." :
	       "Estimated loads and stores to the node: samples x period.");
	for (n = 0; n < r->nr_nodes; n++) {
		node_labels(f, est, &r->nodes[n], r);
		fprintf(f, "%llu\n", r->nodes[n].accesses);
	}
	family(f, "embm_share_ratio", "gauge",
	       "The node's part of the estimate, 0 to 1 (each sample weighs its period).");
	for (n = 0; n < r->nr_nodes; n++) {
		node_labels(f, "embm_share_ratio", &r->nodes[n], r);
		fprintf(f, "%.4f\n", r->nodes[n].share / 100);
	}
	/* The share's 95% interval, from the sampling alone. */
	family(f, "embm_share_lo_ratio", "gauge",
	       "Lower bound of the 95% interval of the node's share, 0 to 1 (sampling error).");
	for (n = 0; n < r->nr_nodes; n++) {
		node_labels(f, "embm_share_lo_ratio", &r->nodes[n], r);
		fprintf(f, "%.4f\n", r->nodes[n].share_lo / 100);
	}
	family(f, "embm_share_hi_ratio", "gauge",
	       "Upper bound of the 95% interval of the node's share, 0 to 1 (sampling error).");
	for (n = 0; n < r->nr_nodes; n++) {
		node_labels(f, "embm_share_hi_ratio", &r->nodes[n], r);
		fprintf(f, "%.4f\n", r->nodes[n].share_hi / 100);
	}
	if (!(r->fields & EMBM_HAS_LATENCY))
		return;
	/* A mean of no sample is no figure: such nodes have no line. */
	family(f, "embm_latency_mean_cycles", "gauge",
	       "Mean load latency in core cycles of the node's samples served by memory.");
	for (n = 0; n < r->nr_nodes; n++) {
		if (!r->nodes[n].lat_samples)
			continue;
		node_labels(f, "embm_latency_mean_cycles", &r->nodes[n], r);
		fprintf(f, "%llu\n", r->nodes[n].lat_mean);
	}
}

static const char *tier_of(const struct embm_report *r, int node)
{
	for (int n = 0; n < r->nr_nodes; n++)
		if (r->nodes[n].node == node)
			return r->nodes[n].tier;
	return "";
}

static void print_matrix(FILE *f, const struct embm_report *r)
{
	const char *name = unit_pages(r) ? "embm_cpu_node_pages_total" :
					   "embm_cpu_node_accesses_total";
	const struct embm_matrix *m = &r->matrix;
	int i, c;

	if (!m->nr_rows)
		return;
	family(f, name, "counter", unit_pages(r) ?
	       "Estimated pages first touched, by the CPU's node and the memory's node." :
	       "Estimated accesses by the CPU's node (cpu_node) and the memory's node (node).");
	for (i = 0; i < m->nr_rows; i++) {
		for (c = 0; c < m->nr_cols; c++) {
			fprintf(f, "%s{cpu_node=\"%d\",node=\"%d\",tier=", name, m->rows[i],
				m->cols[c]);
			label_value(f, tier_of(r, m->cols[c]));
			fputs(",source=", f);
			label_value(f, r->source);
			fprintf(f, "} %llu\n", m->samples[i * m->nr_cols + c]);
		}
	}
}

/**
 * embm_prom_print() - the report in Prometheus' text exposition format
 * @f: where to
 * @r: the report
 *
 * Without a session since boot, only embm_session_info (state "idle") and
 * embm_session_running.
 */
void embm_prom_print(FILE *f, const struct embm_report *r)
{
	print_session(f, r);
	if (strcmp(r->state, "idle")) {
		print_nodes(f, r);
		print_matrix(f, r);
	}
}

/* The temporary file beside @path: "@path.tmp.XXXXXX", created; its fd. */
static int make_tmp(const char *path, char *tmp, size_t tsize, char *why, size_t size)
{
	int fd;

	if (snprintf(tmp, tsize, "%s.tmp.XXXXXX", path) >= (int)tsize) {
		snprintf(why, size, "%s: path too long", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0)
		snprintf(why, size, "cannot write %s: no temporary file beside it: %s", path,
			 strerror(errno));
	return fd;
}

/**
 * embm_prom_check() - can embm_prom_write() write @path?
 * @path: the metrics file
 * @why:  set to what is wrong, naming the path
 * @size: @why's size
 *
 * Creates and removes a temporary file beside @path, as every write does,
 * so that a path that cannot be written fails before anything is read.
 *
 * Return: 0, or -1 with @why set.
 */
int embm_prom_check(const char *path, char *why, size_t size)
{
	char tmp[4096];
	struct stat st;
	int fd;

	if (!*path) {
		snprintf(why, size, "the metrics path is empty");
		return -1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(why, size, "%s is a directory, not a file to write", path);
		return -1;
	}
	fd = make_tmp(path, tmp, sizeof(tmp), why, size);
	if (fd < 0)
		return -1;
	close(fd);
	unlink(tmp);
	return 0;
}

/**
 * embm_prom_write() - write the report to @path, atomically
 * @path: the metrics file, replaced
 * @r:    the report
 * @why:  set to what went wrong, naming the path
 * @size: @why's size
 *
 * Into a temporary file beside @path, flushed to disk, then renamed over
 * it; on any failure the temporary file is removed and @path is left as
 * it was.  The file gets mode 0666 less the umask, as a file created with
 * open() would (mkstemp() makes it 0600, which node_exporter, another
 * user, could not read).
 *
 * Return: 0, or -1 with @why set.
 */
int embm_prom_write(const char *path, const struct embm_report *r, char *why, size_t size)
{
	char tmp[4096];
	mode_t mask;
	FILE *f;
	int fd;

	fd = make_tmp(path, tmp, sizeof(tmp), why, size);
	if (fd < 0)
		return -1;
	mask = umask(0);
	umask(mask);
	f = fdopen(fd, "w");
	if (!f) {
		snprintf(why, size, "%s: %s", tmp, strerror(errno));
		close(fd);
		goto out_unlink;
	}
	embm_prom_print(f, r);
	if (fflush(f) || ferror(f) || fchmod(fd, 0666 & ~mask) || fsync(fd)) {
		snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
		fclose(f);
		goto out_unlink;
	}
	if (fclose(f)) {
		snprintf(why, size, "cannot write %s: %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (rename(tmp, path)) {
		snprintf(why, size, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out_unlink;
	}
	return 0;

out_unlink:
	unlink(tmp);
	return -1;
}
