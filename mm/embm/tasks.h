/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm per-task table (tasks.c): which tasks' samples went to which node,
 * in bounded memory
 */
#ifndef __MM_EMBM_TASKS_H
#define __MM_EMBM_TASKS_H

#include <linux/sched.h>
#include <linux/types.h>

struct embm_tasks;

/**
 * struct embm_task_node - one task's samples on one node
 * @samples:  its samples there (a count).
 * @accesses: their weights (periods times pages) of the samples that no
 *	      cache served: not scaled for multiplexing (the report scales
 *	      them as the node's are).
 */
struct embm_task_node {
	u64 samples;
	u64 accesses;
};

/**
 * struct embm_task - a task of the per-task table
 * @pid:      its thread-group id, as the samples give it (see tasks.c).
 * @tid:      its id, likewise.
 * @comm:     its name when its samples last resumed after another task's;
 *	      "?" if it could not be found then.
 * @samples:  its samples, every node.
 * @accesses: their weights, every node (as struct embm_task_node's).
 * @user:     of @accesses, those of samples taken in user mode.
 * @cxl:      of @accesses, those of samples in a CXL window.
 * @node:     by node slot (embm_tasks_slots()): the last slot is every
 *	      node that had no memory when the session started.
 */
struct embm_task {
	u32 pid, tid;
	char comm[TASK_COMM_LEN];
	u64 samples;
	u64 accesses;
	u64 user;
	u64 cxl;
	struct embm_task_node node[];
};

struct embm_tasks *embm_tasks_alloc(unsigned int max);
size_t embm_tasks_bytes(const struct embm_tasks *tt);
void embm_tasks_free(struct embm_tasks *tt);
void embm_tasks_add(struct embm_tasks *tt, u32 pid, u32 tid, int nid, u64 weight,
		    bool user, bool cxl);
int embm_tasks_slots(const struct embm_tasks *tt, int *nids);
unsigned int embm_tasks_sorted(const struct embm_tasks *tt, const struct embm_task **out,
			       unsigned int max);
unsigned int embm_tasks_top(const struct embm_tasks *tt, const struct embm_task **out,
			    unsigned int n);
const struct embm_task *embm_tasks_other(const struct embm_tasks *tt);
unsigned int embm_tasks_count(const struct embm_tasks *tt);
unsigned int embm_tasks_max(const struct embm_tasks *tt);

#endif /* __MM_EMBM_TASKS_H */
