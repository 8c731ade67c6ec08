/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm direct samples (direct.c): per-CPU queues that an overflow
 * handler fills and ksamplingd reads
 */
#ifndef __MM_EMBM_DIRECT_H
#define __MM_EMBM_DIRECT_H

#include <linux/types.h>

struct embm_direct;
struct perf_event;
struct perf_sample_data;
struct pt_regs;
struct task_struct;

/**
 * struct embm_direct_sample - a sample as read from a queue
 * @phys:   its physical address, 0 for none.
 * @order:  log2 of the base pages of its mapping.
 * @kind:   its event's kind.
 * @period: the events it stands for: the last period mark of its kind;
 *	    0 before the first.
 * @user:   taken in user mode.
 * @pid:    its task's thread-group id, in the pid namespace of the event
 *	    that took it (of its parent, for an inherited one), as perf's
 *	    records give it.
 * @tid:    its task's id, likewise.
 * @data_src: its perf_mem_data_src, from a full queue; else 0.
 * @weight: its latency, from a full queue; else 0.
 */
struct embm_direct_sample {
	u64 phys;
	unsigned int order;
	int kind;
	u64 period;
	bool user;
	u32 pid, tid;
	u64 data_src;
	u32 weight;
};

/* Called with each sample read from a queue, and the reader's argument. */
typedef void (*embm_direct_fn)(const struct embm_direct_sample *ds, void *arg);

struct embm_direct *embm_direct_alloc(unsigned int nr_entries, int cpu, bool full);
size_t embm_direct_bytes(const struct embm_direct *dq);
void embm_direct_set_reader(struct embm_direct *dq, struct task_struct *reader);
void embm_direct_free(struct embm_direct *dq);
void *embm_direct_context(struct embm_direct *dq, int kind);
void embm_direct_overflow(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs);
unsigned int embm_direct_read(struct embm_direct *dq, embm_direct_fn fn, void *arg);
bool embm_direct_half_full(struct embm_direct *dq);
u64 embm_direct_lost(struct embm_direct *dq, u64 *by_kind);

#endif /* __MM_EMBM_DIRECT_H */
