// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools and selftests: the one reader of /proc/embm
 *
 * The files are line-oriented (Documentation/admin-guide/mm/embm.rst):
 * "version N", then status has "key value" lines and the others a header
 * line naming the columns and one record a line.  Without a session since
 * boot every file holds "state idle" after the version instead.  Columns
 * are found by their names in the header, so that a column added later is
 * skipped rather than misread.
 */
#include <errno.h>
#include <limits.h>
#include <linux/embm.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_FIELDS	64	/* columns of nodes and hotpages, fields of a line */
#define MAX_COLUMNS	1025	/* columns of matrix: cpu_node and a node each */

static FILE *open_file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "r");
}

/* Read the "version N" line: 0, or -1 with errno EPROTO if not ours. */
static int read_version(FILE *f, int *version)
{
	char line[64];
	int v = 0;

	if (!fgets(line, sizeof(line), f) || sscanf(line, "version %d", &v) != 1 ||
	    v != EMBM_PROC_VERSION) {
		errno = EPROTO;
		return -1;
	}
	if (version)
		*version = v;
	return 0;
}

/* Split @line in place at blanks into at most @max fields; the number. */
static int split(char *line, char **field, int max)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		field[n++] = tok;
	return n;
}

/* The status value of @key, or NULL. */
const char *embm_proc_status_str(const struct embm_proc_status *st, const char *key)
{
	int i;

	for (i = 0; i < st->nr_keys; i++)
		if (!strcmp(st->keys[i].key, key))
			return st->keys[i].value;
	return NULL;
}

/* The status value of @key as a number; -1 if missing or not a number. */
long long embm_proc_status_ll(const struct embm_proc_status *st, const char *key)
{
	const char *s = embm_proc_status_str(st, key);
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	v = strtoll(s, &end, 10);
	return *end ? -1 : v;
}

/* The "event @name" line of status, parsed; NULL if there is none. */
const struct embm_event *embm_proc_status_event(const struct embm_proc_status *st,
						const char *name)
{
	int i;

	for (i = 0; i < st->nr_events; i++)
		if (!strcmp(st->events[i].name, name))
			return &st->events[i];
	return NULL;
}

/* "NAME [(leader)] count N enabled_ms N running_ms N running_pct N.N samples N" */
static void parse_event(struct embm_event *ev, char *rest)
{
	char *field[MAX_FIELDS];
	unsigned int whole, tenth;
	int n, i;

	n = split(rest, field, MAX_FIELDS);
	if (!n)
		return;
	snprintf(ev->name, sizeof(ev->name), "%s", field[0]);
	for (i = 1; i < n; i++) {
		if (!strcmp(field[i], "(leader)")) {
			ev->leader = true;
			continue;
		}
		if (i + 1 >= n)
			break;
		if (!strcmp(field[i], "count"))
			ev->count = strtoull(field[i + 1], NULL, 10);
		else if (!strcmp(field[i], "enabled_ms"))
			ev->enabled_ms = strtoull(field[i + 1], NULL, 10);
		else if (!strcmp(field[i], "running_ms"))
			ev->running_ms = strtoull(field[i + 1], NULL, 10);
		else if (!strcmp(field[i], "samples"))
			ev->samples = strtoull(field[i + 1], NULL, 10);
		else if (!strcmp(field[i], "throttled_ms"))
			ev->throttled_ms = strtoull(field[i + 1], NULL, 10);
		else if (!strcmp(field[i], "running_pct") &&
			 sscanf(field[i + 1], "%u.%1u", &whole, &tenth) == 2)
			ev->running_permille = whole * 10 + tenth;
		i++;
	}
}

/**
 * embm_proc_read_status() - read DIR/status
 * @dir: normally EMBM_PROC_DIR
 * @st:  filled in
 *
 * Return: 0, or -1 with errno set (ENOENT: no embm; EPROTO: another
 * version).
 */
int embm_proc_read_status(const char *dir, struct embm_proc_status *st)
{
	char *line = NULL, *key, *value;
	FILE *f = open_file(dir, "status");
	size_t size = 0, len;

	memset(st, 0, sizeof(*st));
	if (!f)
		return -1;
	if (read_version(f, &st->version)) {
		fclose(f);
		return -1;
	}
	while (getline(&line, &size, f) > 0 && st->nr_keys < EMBM_PROC_MAX_KEYS) {
		line[strcspn(line, "\n")] = 0;
		key = line;
		len = strcspn(key, " ");
		/* An event line is keyed by "event NAME". */
		if (len == 5 && !strncmp(key, "event ", 6)) {
			if (st->nr_events < EMBM_PROC_MAX_EVENTS) {
				char copy[512];

				snprintf(copy, sizeof(copy), "%s", key + 6);
				parse_event(&st->events[st->nr_events++], copy);
			}
			len += 1 + strcspn(key + 6, " ");
		}
		value = key[len] ? key + len + 1 : key + len;
		snprintf(st->keys[st->nr_keys].key, sizeof(st->keys[0].key), "%.*s",
			 (int)len, key);
		snprintf(st->keys[st->nr_keys].value, sizeof(st->keys[0].value), "%s", value);
		st->nr_keys++;
	}
	free(line);
	fclose(f);
	return 0;
}

enum col_type { COL_INT, COL_UINT, COL_ULL, COL_HEX, COL_DOUBLE, COL_STR, COL_LIST, COL_STUDY };

/*
 * A column of a table file: its name in the header, its type, where it
 * goes in a row; COL_STR goes into char[EMBM_PROC_WORD], COL_LIST into
 * char[EMBM_PROC_LIST].
 */
struct col {
	const char *name;
	enum col_type type;
	size_t off;
};

#define COL(_name, _type, _struct, _field)	\
	{ .name = _name, .type = _type, .off = offsetof(_struct, _field) }

static const struct col node_cols[] = {	/* the key column first */
	COL("node", COL_INT, struct embm_node, node),
	COL("tier", COL_STR, struct embm_node, tier),
	COL("samples", COL_ULL, struct embm_node, samples),
	COL("share_pct", COL_DOUBLE, struct embm_node, share),
	COL("share_lo_pct", COL_DOUBLE, struct embm_node, share_lo),
	COL("share_hi_pct", COL_DOUBLE, struct embm_node, share_hi),
	COL("accesses_lo", COL_ULL, struct embm_node, accesses_lo),
	COL("accesses_hi", COL_ULL, struct embm_node, accesses_hi),
	COL("user_samples", COL_ULL, struct embm_node, user_samples),
	COL("kernel_samples", COL_ULL, struct embm_node, kernel_samples),
	COL("user_accesses", COL_ULL, struct embm_node, user_accesses),
	COL("kernel_accesses", COL_ULL, struct embm_node, kernel_accesses),
	COL("loads", COL_ULL, struct embm_node, loads),
	COL("stores", COL_ULL, struct embm_node, stores),
	COL("accesses", COL_ULL, struct embm_node, accesses),
	COL("lat_samples", COL_ULL, struct embm_node, lat_samples),
	COL("lat_mean_cycles", COL_ULL, struct embm_node, lat_mean),
	COL("pages", COL_ULL, struct embm_node, pages),
	COL("study", COL_STUDY, struct embm_node, study),
	COL("cache", COL_ULL, struct embm_node, cache),
	COL("memory", COL_ULL, struct embm_node, mem),
	COL("cxl_samples", COL_ULL, struct embm_node, cxl),
	COL("windows", COL_LIST, struct embm_node, windows),
};

/* The columns of /proc/embm/latency that embm_proc_read_lat_dropped() merges. */
static const struct col lat_cols[] = {
	COL("node", COL_INT, struct embm_node, node),
	COL("dropped_cache", COL_ULL, struct embm_node, lat_dropped_cache),
	COL("dropped_uncached", COL_ULL, struct embm_node, lat_dropped_uncached),
	COL("dropped_io", COL_ULL, struct embm_node, lat_dropped_io),
	COL("dropped_unknown", COL_ULL, struct embm_node, lat_dropped_unknown),
};

static const struct col window_cols[] = {
	COL("window", COL_STR, struct embm_cxl_window, name),
	COL("start", COL_HEX, struct embm_cxl_window, start),
	COL("end", COL_HEX, struct embm_cxl_window, end),
	COL("node", COL_INT, struct embm_cxl_window, node),
	COL("samples", COL_ULL, struct embm_cxl_window, samples),
	COL("device_samples", COL_ULL, struct embm_cxl_window, device),
};

static const struct col hot_cols[] = {
	COL("rank", COL_UINT, struct embm_hot, rank),
	COL("pfn", COL_HEX, struct embm_hot, pfn),
	COL("node", COL_INT, struct embm_hot, node),
	COL("tier", COL_STR, struct embm_hot, tier),
	COL("count", COL_ULL, struct embm_hot, count),
	COL("error", COL_ULL, struct embm_hot, error),
	COL("samples", COL_ULL, struct embm_hot, samples),
	COL("study", COL_STUDY, struct embm_hot, study),
};

static const struct col hint_cols[] = {
	COL("node", COL_INT, struct embm_hint_row, node),
	COL("tier", COL_STR, struct embm_hint_row, tier),
	COL("pages", COL_ULL, struct embm_hint_row, pages),
	COL("bytes", COL_ULL, struct embm_hint_row, bytes),
	COL("share_pct", COL_DOUBLE, struct embm_hint_row, share),
	COL("share_lo_pct", COL_DOUBLE, struct embm_hint_row, share_lo),
	COL("share_hi_pct", COL_DOUBLE, struct embm_hint_row, share_hi),
	COL("min_samples", COL_ULL, struct embm_hint_row, min_samples),
};

/* Store field @s as column @c of the row at @row; -1 if it does not parse. */
static int parse_field(const struct col *c, const char *s, char *row)
{
	void *p = row + c->off;
	char *end = NULL;

	errno = 0;
	switch (c->type) {
	case COL_INT:
		*(int *)p = strtol(s, &end, 10);
		break;
	case COL_UINT:
		*(unsigned int *)p = strtoul(s, &end, 10);
		break;
	case COL_ULL:
		*(unsigned long long *)p = strtoull(s, &end, 10);
		break;
	case COL_HEX:
		*(unsigned long long *)p = strtoull(s, &end, 0);
		break;
	case COL_DOUBLE:
		*(double *)p = strtod(s, &end);
		break;
	case COL_STR:
		snprintf(p, EMBM_PROC_WORD, "%s", s);
		return 0;
	case COL_LIST:
		snprintf(p, EMBM_PROC_LIST, "%s", s);
		return 0;
	case COL_STUDY:
		*(bool *)p = !strcmp(s, "*");
		return 0;
	}
	return end == s || *end || errno ? -1 : 0;
}

/*
 * Read table file DIR/@name into @rows (@max of @rowsize bytes): the
 * columns of @cols found in its header; the first is the key and must be
 * there.  Return: the number of rows (0 when idle), or -1 with errno set.
 */
static int read_table(const char *dir, const char *name, const struct col *cols,
		      int nr_cols, void *rows, size_t rowsize, int max)
{
	char *line = NULL, *field[MAX_FIELDS];
	int idx[MAX_FIELDS], n, i, c, nr = 0;
	FILE *f = open_file(dir, name);
	size_t size = 0;

	if (!f)
		return -1;
	if (read_version(f, NULL))
		goto out_proto;
	if (getline(&line, &size, f) <= 0)
		goto out_proto;
	if (!strncmp(line, "state ", 6))	/* no session since boot */
		goto out;
	n = split(line, field, MAX_FIELDS);
	for (c = 0; c < nr_cols; c++) {
		idx[c] = -1;
		for (i = 0; i < n; i++)
			if (!strcmp(field[i], cols[c].name))
				idx[c] = i;
	}
	if (idx[0] != 0)
		goto out_proto;
	while (nr < max && getline(&line, &size, f) > 0) {
		char *row = (char *)rows + nr * rowsize;

		if (split(line, field, MAX_FIELDS) != n)
			goto out_proto;
		memset(row, 0, rowsize);
		for (c = 0; c < nr_cols; c++)
			if (idx[c] >= 0 && parse_field(&cols[c], field[idx[c]], row))
				goto out_proto;
		nr++;
	}
out:
	free(line);
	fclose(f);
	return nr;
out_proto:
	free(line);
	fclose(f);
	errno = EPROTO;
	return -1;
}

/**
 * embm_proc_read_nodes() - read DIR/nodes
 * @dir:   normally EMBM_PROC_DIR
 * @nodes: at most @max rows, in the file's order (the node under study first)
 * @max:   size of @nodes
 *
 * Return: the number of nodes, 0 when no session ran since boot, or -1
 * with errno set.
 */
int embm_proc_read_nodes(const char *dir, struct embm_node *nodes, int max)
{
	return read_table(dir, "nodes", node_cols,
			  ARRAY_SIZE(node_cols),
			  nodes, sizeof(*nodes), max);
}

/**
 * embm_proc_read_lat_dropped() - add DIR/latency's dropped columns to nodes
 * @dir:   normally EMBM_PROC_DIR
 * @nodes: the @n rows embm_proc_read_nodes() read; each gets its node's
 *	   lat_dropped_* (0 for a node the file lacks)
 * @n:	   how many
 * @max:   the most rows to read: a node may have come since @nodes were
 *	   read, a file later
 *
 * Return: 0, or -1 with errno set.
 */
int embm_proc_read_lat_dropped(const char *dir, struct embm_node *nodes, int n, int max)
{
	struct embm_node *lat;
	int nr, i, j;

	if (n <= 0)
		return 0;
	lat = calloc(max, sizeof(*lat));
	if (!lat)
		return -1;
	nr = read_table(dir, "latency", lat_cols, ARRAY_SIZE(lat_cols), lat, sizeof(*lat), max);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < n; j++) {
			if (nodes[j].node != lat[i].node)
				continue;
			nodes[j].lat_dropped_cache = lat[i].lat_dropped_cache;
			nodes[j].lat_dropped_uncached = lat[i].lat_dropped_uncached;
			nodes[j].lat_dropped_io = lat[i].lat_dropped_io;
			nodes[j].lat_dropped_unknown = lat[i].lat_dropped_unknown;
		}
	}
	free(lat);
	return nr < 0 ? -1 : 0;
}

/**
 * embm_proc_read_hot() - read DIR/hotpages
 * @dir: normally EMBM_PROC_DIR
 * @hot: at most @max rows, hottest first
 * @max: size of @hot
 *
 * Return: the number of pages, 0 when no session ran since boot, or -1
 * with errno set.
 */
int embm_proc_read_hot(const char *dir, struct embm_hot *hot, int max)
{
	return read_table(dir, "hotpages", hot_cols,
			  ARRAY_SIZE(hot_cols),
			  hot, sizeof(*hot), max);
}

/**
 * embm_proc_read_windows() - read DIR/windows (root only)
 * @dir: normally EMBM_PROC_DIR
 * @w:	 at most @max rows, w0 first
 * @max: size of @w
 *
 * Return: the number of CXL windows, 0 when no session ran since boot, or
 * -1 with errno set (EPERM or EACCES for a reader who is not root).
 */
int embm_proc_read_windows(const char *dir, struct embm_cxl_window *w, int max)
{
	return read_table(dir, "windows", window_cols,
			  ARRAY_SIZE(window_cols),
			  w, sizeof(*w), max);
}

/**
 * embm_proc_read_matrix() - read DIR/matrix: header "cpu_node memN ..."
 * @dir: normally EMBM_PROC_DIR
 * @m:   filled in; free with embm_proc_free_matrix()
 * @max: most rows and columns to read
 *
 * Return: 0, or -1 with errno set.
 */
int embm_proc_read_matrix(const char *dir, struct embm_matrix *m, int max)
{
	char *line = NULL, *field[MAX_COLUMNS], *end;
	int colidx[MAX_COLUMNS];
	FILE *f = open_file(dir, "matrix");
	size_t size = 0;
	int n, i, c;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -1;
	if (read_version(f, NULL) || getline(&line, &size, f) <= 0)
		goto out_proto;
	if (!strncmp(line, "state ", 6))
		goto out;
	n = split(line, field, MAX_COLUMNS);
	if (!n || strcmp(field[0], "cpu_node"))
		goto out_proto;
	m->cols = calloc(n, sizeof(*m->cols));
	m->rows = calloc(max, sizeof(*m->rows));
	m->samples = calloc((size_t)max * n, sizeof(*m->samples));
	if (!m->cols || !m->rows || !m->samples)
		goto out_nomem;
	for (i = 1; i < n && m->nr_cols < max; i++) {
		if (strncmp(field[i], "mem", 3))
			continue;
		colidx[m->nr_cols] = i;
		m->cols[m->nr_cols++] = strtol(field[i] + 3, NULL, 10);
	}
	while (m->nr_rows < max && getline(&line, &size, f) > 0) {
		if (split(line, field, MAX_COLUMNS) != n)
			goto out_proto;
		m->rows[m->nr_rows] = strtol(field[0], &end, 10);
		if (end == field[0])
			goto out_proto;
		for (c = 0; c < m->nr_cols; c++)
			m->samples[m->nr_rows * m->nr_cols + c] =
				strtoull(field[colidx[c]], NULL, 10);
		m->nr_rows++;
	}
out:
	free(line);
	fclose(f);
	return 0;
out_nomem:
	free(line);
	fclose(f);
	embm_proc_free_matrix(m);
	errno = ENOMEM;
	return -1;
out_proto:
	free(line);
	fclose(f);
	embm_proc_free_matrix(m);
	errno = EPROTO;
	return -1;
}

void embm_proc_free_matrix(struct embm_matrix *m)
{
	free(m->cols);
	free(m->rows);
	free(m->samples);
	memset(m, 0, sizeof(*m));
}

/* The index of @name among @n fields, or -1. */
static int field_index(char **field, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(field[i], name))
			return i;
	return -1;
}

/* Parse a whole field as a number in [@min, @max] into *@v: 0, or -1. */
static int parse_ll(const char *s, long long min, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return end == s || *end || errno || *v < min || *v > max ? -1 : 0;
}

static int parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return end == s || *end || errno || *s == '-' ? -1 : 0;
}

/* Room for @nr rows of @t (and their counts), grown by doubling: 0 or -1. */
static int tasks_grow(struct embm_tasks_table *t, int nr, int *room)
{
	struct embm_task_row *rows;
	unsigned long long *counts;
	int n = *room ? *room * 2 : 64;

	if (nr < *room)
		return 0;
	rows = realloc(t->rows, n * sizeof(*rows));
	if (rows)
		t->rows = rows;
	counts = realloc(t->counts, (size_t)n * (t->nr_cols ?: 1) * 2 * sizeof(*counts));
	if (counts)
		t->counts = counts;
	if (!rows || !counts)
		return -1;
	*room = n;
	return 0;
}

/**
 * embm_proc_read_tasks() - read DIR/tasks
 * @dir: normally EMBM_PROC_DIR
 * @t:	 filled in; free with embm_proc_free_tasks()
 * @max: most rows to read; the "other tasks" row, last, is kept past it
 *
 * Return: 0 (no rows when idle, for a session without a per-task table,
 * or on a kernel without the file), or -1 with errno set (EPROTO: a line
 * that does not parse).
 */
int embm_proc_read_tasks(const char *dir, struct embm_tasks_table *t, int max)
{
	static const char *const names[] = {
		"pid", "tid", "comm", "samples", "accesses", "share_pct", "user_accesses",
		"kernel_accesses", "cxl_accesses",
	};
	char *line = NULL, *field[MAX_COLUMNS], *end, name[64];
	int idx[ARRAY_SIZE(names)], colidx[MAX_COLUMNS];
	FILE *f = open_file(dir, "tasks");
	int n, i, c, room = 0;
	size_t size = 0;
	long long v;

	memset(t, 0, sizeof(*t));
	if (!f)
		return errno == ENOENT ? 0 : -1;
	if (read_version(f, NULL) || getline(&line, &size, f) <= 0)
		goto out_proto;
	if (!strncmp(line, "state ", 6))
		goto out;
	n = split(line, field, MAX_COLUMNS);
	if (n == MAX_COLUMNS)
		goto out_proto;
	for (i = 0; i < (int)ARRAY_SIZE(names); i++) {
		idx[i] = field_index(field, n, names[i]);
		/* A session without a per-task table gives the first five. */
		if (idx[i] < 0 && i < 5)
			goto out_proto;
	}
	t->cols = calloc(n, sizeof(*t->cols));
	if (!t->cols)
		goto out_nomem;
	/* Node columns: nN_samples, then nN_accesses of the same N. */
	for (i = 0; i < n; i++) {
		int node, len = 0;

		if (!strcmp(field[i], "nother_samples"))
			node = -1;
		else if (sscanf(field[i], "n%d_samples%n", &node, &len) != 1 || !len ||
			 field[i][len] || node < 0)
			continue;
		if (node < 0)
			snprintf(name, sizeof(name), "nother_accesses");
		else
			snprintf(name, sizeof(name), "n%d_accesses", node);
		if (i + 1 >= n || strcmp(field[i + 1], name))
			goto out_proto;
		colidx[t->nr_cols] = i;
		t->cols[t->nr_cols++] = node;
	}
	while (getline(&line, &size, f) > 0) {
		struct embm_task_row *r;
		unsigned long long *v64[ARRAY_SIZE(names)];
		unsigned long long *cnt;

		if (split(line, field, MAX_COLUMNS) != n)
			goto out_proto;
		if (parse_ll(field[idx[0]], -1, INT_MAX, &v))
			goto out_proto;
		/* Past @max, only the other tasks' row, which comes last. */
		if (t->nr_rows >= max && v != -1)
			continue;
		if (tasks_grow(t, t->nr_rows, &room))
			goto out_nomem;
		r = &t->rows[t->nr_rows];
		memset(r, 0, sizeof(*r));
		r->pid = v;
		if (parse_ll(field[idx[1]], -1, INT_MAX, &v))
			goto out_proto;
		r->tid = v;
		snprintf(r->comm, sizeof(r->comm), "%s", field[idx[2]]);
		v64[3] = &r->samples;
		v64[4] = &r->accesses;
		v64[6] = &r->user;
		v64[7] = &r->kernel;
		v64[8] = &r->cxl;
		for (i = 3; i < (int)ARRAY_SIZE(names); i++) {
			if (idx[i] < 0)
				continue;
			if (i == 5) {
				r->share = strtod(field[idx[i]], &end);
				if (end == field[idx[i]] || *end)
					goto out_proto;
			} else if (parse_ull(field[idx[i]], v64[i])) {
				goto out_proto;
			}
		}
		cnt = t->counts + (size_t)t->nr_rows * t->nr_cols * 2;
		for (c = 0; c < t->nr_cols; c++) {
			if (parse_ull(field[colidx[c]], &cnt[c]) ||
			    parse_ull(field[colidx[c] + 1], &cnt[t->nr_cols + c]))
				goto out_proto;
		}
		t->nr_rows++;
	}
	/* The counts moved as they grew: point the rows at them now. */
	for (i = 0; i < t->nr_rows; i++) {
		t->rows[i].node_samples = t->counts + (size_t)i * t->nr_cols * 2;
		t->rows[i].node_accesses = t->rows[i].node_samples + t->nr_cols;
	}
out:
	free(line);
	fclose(f);
	return 0;
out_nomem:
	free(line);
	fclose(f);
	embm_proc_free_tasks(t);
	errno = ENOMEM;
	return -1;
out_proto:
	free(line);
	fclose(f);
	embm_proc_free_tasks(t);
	errno = EPROTO;
	return -1;
}

void embm_proc_free_tasks(struct embm_tasks_table *t)
{
	free(t->cols);
	free(t->rows);
	free(t->counts);
	memset(t, 0, sizeof(*t));
}

/**
 * embm_proc_read_hint() - read DIR/hint
 * @dir:  normally EMBM_PROC_DIR
 * @rows: at most @max points, node by node, fewest pages first
 * @max:  size of @rows
 *
 * Return: the number of points (0 when idle, without far or CXL nodes, or
 * on a kernel without the file), or -1 with errno set.
 */
int embm_proc_read_hint(const char *dir, struct embm_hint_row *rows, int max)
{
	int n = read_table(dir, "hint", hint_cols, ARRAY_SIZE(hint_cols), rows, sizeof(*rows),
			   max);

	return n < 0 && errno == ENOENT ? 0 : n;
}
