/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm direct samples (direct.c): per-CPU queues that an overflow
 * handler fills and ksamplingd reads
 */
#ifndef __MM_EMBM_DIRECT_H
#define __MM_EMBM_DIRECT_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/embm.h>
#include <linux/irq_work_types.h>
#include <linux/perf_event.h>
#include <linux/types.h>

struct embm_direct;

/* An overflow handler's context: the queue and the event's kind. */
struct embm_direct_ctx {
	struct embm_direct *dq;
	int kind;
};

/**
 * struct embm_direct - the direct samples of one CPU, a single-writer queue
 * @head:	next entry to write; written by the writer only.
 * @lost:	samples dropped on a full queue, by kind; written by the
 *		writer only.
 * @period:	the period of each kind's samples as last queued (a mark);
 *		written by the writer only.
 * @tail:	next entry to read; written by the reader only.
 * @lost_read:	@lost as the reader last took it.
 * @rd_period:	the period of each kind's samples as last read.
 * @lost_elsewhere: samples dropped because they were not taken in a task.
 * @mask:	entries - 1, a power of two - 1.
 * @reader:	woken when the queue fills to half; NULL: nobody.
 * @wake:	wakes @reader from the writer's context.
 * @ctx:	the handler's context for each kind.
 * @rcu:	frees the queue after a grace period, as perf frees events.
 * @ent:	physical page address | mapping order | kind; 0 | kind for
 *		no address; or a period mark (direct.c).
 */
struct embm_direct {
	u64 head;
	u64 lost[EMBM_MAX_EVENTS];
	u64 period[EMBM_MAX_EVENTS];
	u64 tail ____cacheline_aligned;
	u64 lost_read[EMBM_MAX_EVENTS];
	u64 rd_period[EMBM_MAX_EVENTS];
	atomic64_t lost_elsewhere[EMBM_MAX_EVENTS];
	unsigned int mask;
	struct task_struct *reader;
	struct irq_work wake;
	struct embm_direct_ctx ctx[EMBM_MAX_EVENTS];
	struct rcu_head rcu;
	u64 ent[];
};

/* A sample read from a queue: address, mapping order, kind, period, argument. */
typedef void (*embm_direct_fn)(u64 phys, unsigned int order, int kind, u64 period,
			       void *arg);

struct embm_direct *embm_direct_alloc(unsigned int nr_entries, int cpu);
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
