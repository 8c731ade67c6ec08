/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: read /proc/embm and print it as a table or as JSON
 */
#ifndef __EMBM_TOOLS_REPORT_H
#define __EMBM_TOOLS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "procfs.h"

#define EMBM_TOOLS_MAX_NODES	1024
#define EMBM_TOOLS_MAX_HOT	65536
#define EMBM_TOOLS_MAX_WINDOWS	16
#define EMBM_TOOLS_MAX_HINT	(64 * 14)	/* 64 far or CXL nodes' curves */
#define EMBM_TOOLS_MAX_TASKS	65536	/* the max_tasks knob's most */

/* Columns of the nodes table a source may lack (status's source_fields). */
#define EMBM_HAS_OP		0x1	/* loads, stores */
#define EMBM_HAS_LATENCY	0x2	/* lat_samples, lat_mean_cycles */
#define EMBM_HAS_DATA_SRC	0x4	/* cache, memory */

/* What /proc/embm says, in one read of each file. */
struct embm_report {
	int version;
	char state[16];
	int target;
	int node;
	char source[16];
	char reason[256];
	char semantics[256];
	char blind[320];		/* what the source cannot see */
	char unit[16];			/* what accesses counts: "accesses", "pages" */
	unsigned int fields;		/* EMBM_HAS_* */
	char period_why[128];
	char multiplexed[8 * 160];	/* "event ..." lines of kinds that ran part-time */
	unsigned long long cache_served, kinds_multiplexed;
	unsigned long long period, store_period, period_start, period_max, period_changes,
			   elapsed_ms, samples, attributed, no_phys, bad_pfn, lost,
			   lost_events, throttled, bad_records, cpu_ms, cpu_permille, events,
			   cpu_budget, budget_used, sample_cost_ns, hotplug_busy, latency_only,
			   lat_dropped_cache, lat_dropped_uncached, lat_dropped_io,
			   lat_dropped_unknown, throttled_ms;
	/* Every node's estimated accesses with its 95% interval. */
	unsigned long long accesses, accesses_lo, accesses_hi;
	char throttled_kinds[8 * 96];	/* "  NAME N ms of M ms running" lines */
	char cpus[256];
	int nr_nodes;
	struct embm_node nodes[EMBM_TOOLS_MAX_NODES];
	struct embm_matrix matrix;
	int nr_hot;
	struct embm_hot *hot;
	bool hot_hidden;		/* hotpages is for root */
	unsigned long long cxl_windows, cxl_device;
	int nr_win;			/* -1: windows is for root */
	struct embm_cxl_window win[EMBM_TOOLS_MAX_WINDOWS];
	/* The promotion hint of the far and CXL nodes: curves, node by node. */
	int nr_hint;
	struct embm_hint_row hint[EMBM_TOOLS_MAX_HINT];
	/* The per-task table; its rows in the text report when @per_task. */
	struct embm_tasks_table tasks;
	unsigned long long tasks_count, tasks_max, tasks_other_samples;
	bool has_tasks;			/* status has the tasks keys */
	int tasks_errno, hint_errno;	/* why the file was left out, or 0 */
	bool per_task;
};

int embm_report_read(struct embm_report *r, const char *dir);
void embm_report_free(struct embm_report *r);
void embm_report_print(FILE *f, const struct embm_report *r, const char *what,
		       unsigned int top);
extern const char embm_report_legend[];
/* Writes more members, each with a leading comma, before the closing brace. */
typedef void (*embm_json_more_fn)(FILE *f, void *arg);
void embm_report_json(FILE *f, const struct embm_report *r, const char *tool,
		      const char *what, unsigned int top, embm_json_more_fn more, void *arg);
void embm_json_str(FILE *f, const char *s);

#endif /* __EMBM_TOOLS_REPORT_H */
