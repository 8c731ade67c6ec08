/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm reports (report.c): a session as readers see it (struct
 * embm_view, made by core.c), the per-node table and the kernel-log
 * summary
 */
#ifndef __MM_EMBM_REPORT_H
#define __MM_EMBM_REPORT_H

#include <linux/types.h>

#include "sampler.h"
#include "session.h"

struct cgroup_subsys_state;
struct embm_stats;
struct pid;
struct seq_buf;

/**
 * struct embm_view - a session as readers see it, taken at one moment
 * @gen:	the session's generation.
 * @state:	see enum embm_state.
 * @ended_by:	"-" while running, then "embm_end", "target_exit" or
 *		"starter_exit".
 * @target:	thread-group pid of the target, referenced; NULL for a
 *		system-wide or cgroup session.
 * @target_nr:	the target's pid as the starter saw it; -1 system-wide.
 * @cgroup:	the cgroup of a cgroup session, referenced; else NULL.
 * @node:	the node under study, or NUMA_NO_NODE.
 * @elapsed_ns:	how long it ran, or has run until now.
 * @config:	the knobs it started with.
 * @phase_ns:	the time of the parts of its start and end (enum
 *		embm_phase), in ns; the end's are 0 while it runs.
 * @status:	the sampler's status, as it was then or at the end.
 * @stats:	the results, referenced (the live ones while it runs: take
 *		their lock to read them); NULL before the first session.
 *
 * Made by embm_session_view() (or by the core for the summary at the end)
 * and freed by embm_view_free(); nothing in it needs the session's lock.
 */
struct embm_view {
	unsigned long gen;
	enum embm_state state;
	const char *ended_by;
	struct pid *target;
	pid_t target_nr;
	struct cgroup_subsys_state *cgroup;
	int node;
	u64 elapsed_ns;
	struct embm_config config;
	u64 phase_ns[EMBM_NR_PHASES];
	struct embm_sampler_status status;
	struct embm_stats *stats;
};

int embm_session_may_read(unsigned long *gen);
struct embm_view *embm_session_view(unsigned long gen);
void embm_view_free(struct embm_view *v);

const char *embm_state_name(enum embm_state state);

/*
 * Room for a line of the per-node table: 22 numbers of up to 20 digits
 * and up to EMBM_MAX_WINDOWS window names.
 */
#define EMBM_REPORT_LINE	640

/**
 * struct embm_report_basis - what a view's shares and intervals are of
 * @share:	  the sum of the nodes' share parts (embm_stats_share_basis()).
 * @share_var:	  the sum of their variances (embm_stats_share_var()).
 * @accesses:	  the sum of the nodes' estimated accesses.
 * @accesses_var: the sum of their variances (embm_stats_accesses_var()).
 */
struct embm_report_basis {
	u64 share;
	u64 share_var;
	u64 accesses;
	u64 accesses_var;
};

struct embm_task;

/**
 * struct embm_report_tasks - how the per-task table's weights are scaled
 * @nr_slots: the table's per-node slots (embm_tasks_slots()).
 * @nid:      the node of each slot but the last (every other node).
 * @scaled:   each slot's nodes' estimated accesses, scaled for
 *	      multiplexing as the per-node table's.
 * @raw:      their weights, not scaled: a task's weights on a slot's
 *	      nodes are scaled by @scaled / @raw of the slot.
 * @bytes:    the size of this, @nid, @scaled and @raw included.
 */
struct embm_report_tasks {
	int nr_slots;
	int *nid;
	u64 *scaled;
	u64 *raw;
	size_t bytes;
};

/* Room for a line of the per-task table: 8 numbers and 2 a slot. */
#define EMBM_REPORT_TASK_LINE(nr_slots)	(200 + 42 * (nr_slots))

/**
 * struct embm_report_hint - one point of a node's promotion hint
 * @pages:	 the hottest pages counted (a power of two, or all kept).
 * @share:	 the part of the node's sampled accesses they carry, in parts
 *		 per 10^9 (EMBM_PPB).
 * @lo:		 its 95% interval's lower bound, the table's error taken out.
 * @hi:		 the upper bound.
 * @min_samples: the fewest samples of those pages: below a few, the
 *		 hottest pages by samples are partly the luckiest, and the
 *		 share runs high.
 */
struct embm_report_hint {
	u64 pages;
	u64 share;
	u64 lo;
	u64 hi;
	u64 min_samples;
};

#define EMBM_REPORT_HINT_POINTS	14	/* 1, 2, 4 ... EMBM_HINT_PAGES, all kept */

unsigned int embm_report_fields(const struct embm_view *v);
int embm_report_hint(const struct embm_view *v, int nid, struct embm_report_hint *pt);
struct embm_report_tasks *embm_report_tasks_scale(const struct embm_view *v);
void embm_report_tasks_header(struct seq_buf *sb, const struct embm_report_tasks *rt);
void embm_report_task(struct seq_buf *sb, const struct embm_report_tasks *rt,
		      const struct embm_task *t, u64 all);
void embm_report_basis(const struct embm_view *v, struct embm_report_basis *b);
void embm_report_nodes_header(struct seq_buf *sb, unsigned int fields);
void embm_report_node(struct seq_buf *sb, const struct embm_view *v, int nid,
		      const struct embm_report_basis *b);
u64 embm_report_lost_weight(const struct embm_sampler_status *ss);
void embm_report_summary(const struct embm_view *v);

#endif /* __MM_EMBM_REPORT_H */
