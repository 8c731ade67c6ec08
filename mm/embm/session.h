/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm: the session (core.c) as the other files see it: where it is in
 * its life, and the knobs it started with.
 */
#ifndef __MM_EMBM_SESSION_H
#define __MM_EMBM_SESSION_H

#include <linux/mutex.h>
#include <linux/types.h>

struct embm_source;

/**
 * enum embm_state - where the one embm session is in its life
 * @EMBM_IDLE:		no session since boot.
 * @EMBM_RUNNING:	started and not yet ended.
 * @EMBM_EXITED:	the target exited; results kept until embm_end() or
 *			the next embm_start().
 * @EMBM_DONE:		ended by embm_end(), or because the process that
 *			started it exited; results kept until the next
 *			embm_start().
 */
enum embm_state {
	EMBM_IDLE,
	EMBM_RUNNING,
	EMBM_EXITED,
	EMBM_DONE,
};

/**
 * struct embm_config - the knobs, as a session starts with them
 * @source:	  the source forced, a registered one; NULL for the
 *		  automatic choice.
 * @period:	  sample period of loads (or of all samples); 0: the
 *		  source's default.
 * @store_period: sample period of stores; 0: the source's default.
 * @ldlat:	  load-latency threshold in cycles (pebs); 0: no load
 *		  latency event.
 * @ring_pages:	  ring-buffer data pages per CPU, a power of two.
 * @cpu_budget:	  ksamplingd's CPU budget in permille of one CPU; 0: fixed
 *		  periods.
 * @hot_pages:	  how many hot pages to keep.
 * @max_events:	  most perf events a session may open (threads x CPUs x
 *		  event kinds); inherited ones are not counted.
 * @max_tasks:	  most tasks with an entry of their own in the per-task
 *		  table; the others count as one "other tasks" entry.
 */
struct embm_config {
	const struct embm_source *source;
	u64 period;
	u64 store_period;
	u64 ldlat;
	u64 ring_pages;
	u64 cpu_budget;
	u64 hot_pages;
	u64 max_events;
	u64 max_tasks;
};

/*
 * Take a mutex for a system call or a read of /proc/embm: -ERESTARTSYS on
 * a signal.  Process context.
 */
static inline int embm_lock_interruptible(struct mutex *lock)
{
	return mutex_lock_interruptible(lock) ? -ERESTARTSYS : 0;
}

#endif /* __MM_EMBM_SESSION_H */
