/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools and selftests: the one reader of /proc/embm
 *
 * Every file starts with "version N" (EMBM_PROC_VERSION).  status holds
 * "key value" lines and "event NAME [(leader)] key value ..." lines; the
 * table files (nodes, hotpages, windows, matrix) have a header line naming their
 * columns, read by name, so a column added later breaks no reader.
 */
#ifndef __EMBM_TOOLS_PROCFS_H
#define __EMBM_TOOLS_PROCFS_H

#include <stdbool.h>

#define EMBM_PROC_DIR		"/proc/embm"
#define EMBM_PROC_MAX_KEYS	96
#define EMBM_PROC_MAX_EVENTS	16
#define EMBM_PROC_WORD		16	/* a one-word column: tier */
#define EMBM_PROC_LIST		80	/* a list column: windows ("w0,w1") */

/* One "event" line of status: one kind of perf event of the session. */
struct embm_event {
	char name[32];
	bool leader;
	unsigned long long count, enabled_ms, running_ms, samples, throttled_ms;
	unsigned int running_permille;	/* running_pct 99.5 is 995 */
};

/* /proc/embm/status: every "key value" line, and the event lines parsed. */
struct embm_proc_status {
	int version;
	int nr_keys;
	struct {
		char key[48];		/* "event NAME" for the event lines */
		char value[464];
	} keys[EMBM_PROC_MAX_KEYS];
	int nr_events;
	struct embm_event events[EMBM_PROC_MAX_EVENTS];
};

/*
 * One row of /proc/embm/nodes; a column the file lacks reads 0 (status's
 * source_fields says which the source fills).  accesses is the estimate
 * in status's accesses_unit; pages the distinct pages seen.
 */
struct embm_node {
	int node;
	char tier[EMBM_PROC_WORD];
	unsigned long long samples, loads, stores, accesses, lat_samples,
			   lat_mean, pages, cache, mem, cxl;
	/* 95% interval of accesses; samples and accesses by privilege level. */
	unsigned long long accesses_lo, accesses_hi, user_samples, kernel_samples,
			   user_accesses, kernel_accesses;
	/* From /proc/embm/latency: samples whose latency was left out, by why. */
	unsigned long long lat_dropped_cache, lat_dropped_uncached, lat_dropped_io,
			   lat_dropped_unknown;
	double share, share_lo, share_hi;	/* percent; share's 95% interval */
	bool study;
	char windows[EMBM_PROC_LIST];
};

/*
 * One row of /proc/embm/hint: a point of a far or CXL node's promotion
 * hint, how much of its sampled accesses its hottest @pages carry.
 */
struct embm_hint_row {
	int node;
	char tier[EMBM_PROC_WORD];
	unsigned long long pages, bytes, min_samples;
	double share, share_lo, share_hi;	/* percent */
};

/* One row of /proc/embm/windows: a CXL window. */
struct embm_cxl_window {
	char name[EMBM_PROC_WORD];
	unsigned long long start, end, samples, device;
	int node;
};

/* One row of /proc/embm/hotpages: count estimated accesses, samples exact. */
struct embm_hot {
	unsigned int rank;
	unsigned long long pfn, count, error, samples;
	int node;
	char tier[EMBM_PROC_WORD];
	bool study;
};

/*
 * /proc/embm/matrix: estimated accesses (status's accesses_unit) by CPU
 * node (rows) and memory node (cols).
 */
struct embm_matrix {
	int nr_cols, nr_rows;
	int *cols, *rows;
	unsigned long long *samples;	/* nr_rows x nr_cols */
};

/*
 * /proc/embm/tasks: a row a task, most accesses first, the "other tasks"
 * row last (pid and tid -1); estimated accesses in status's
 * accesses_unit.  The node columns' samples and accesses are
 * @node_samples and @node_accesses, nr_cols to a row; a column's node is
 * -1 for every node that had no memory when the session started.
 */
struct embm_task_row {
	int pid, tid;
	char comm[EMBM_PROC_WORD];
	unsigned long long samples, accesses, user, kernel, cxl;
	double share;			/* percent of every task's accesses */
	unsigned long long *node_samples, *node_accesses;
};

struct embm_tasks_table {
	int nr_cols, nr_rows;
	int *cols;
	struct embm_task_row *rows;
	unsigned long long *counts;	/* nr_rows x nr_cols x 2, for the rows */
};

int embm_proc_read_status(const char *dir, struct embm_proc_status *st);
const char *embm_proc_status_str(const struct embm_proc_status *st, const char *key);
long long embm_proc_status_ll(const struct embm_proc_status *st, const char *key);
const struct embm_event *embm_proc_status_event(const struct embm_proc_status *st,
						const char *name);
int embm_proc_read_nodes(const char *dir, struct embm_node *nodes, int max);
int embm_proc_read_lat_dropped(const char *dir, struct embm_node *nodes, int n, int max);
int embm_proc_read_hot(const char *dir, struct embm_hot *hot, int max);
int embm_proc_read_windows(const char *dir, struct embm_cxl_window *w, int max);
int embm_proc_read_matrix(const char *dir, struct embm_matrix *m, int max);
void embm_proc_free_matrix(struct embm_matrix *m);
int embm_proc_read_tasks(const char *dir, struct embm_tasks_table *t, int max);
int embm_proc_read_hint(const char *dir, struct embm_hint_row *rows, int max);
void embm_proc_free_tasks(struct embm_tasks_table *t);

#endif /* __EMBM_TOOLS_PROCFS_H */
