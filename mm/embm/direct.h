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
