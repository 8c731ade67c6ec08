/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm: the sampler's interface (sampler.c), for the session (core.c) and
 * the readers of its status.  How the sampler is cut into files, and the
 * rules of its lock, are in sampler-internal.h.
 */

#ifndef __MM_EMBM_SAMPLER_H
#define __MM_EMBM_SAMPLER_H

#include <linux/cpumask.h>
#include <linux/embm.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "session.h"
#include "stats.h"	/* struct embm_kind_stats */

struct cgroup_subsys_state;
struct embm_stats;
struct pid;

/**
 * struct embm_sampler_status - what ksamplingd knows of itself
 * @source:	the source in use; NULL before one was chosen.
 * @why:	why it was chosen, or why none was.
 * @period:	the current load period.
 * @store_period: the current store period.
 * @period_start: the load period the session started with.
 * @period_max:	the largest load period in force during the session.
 * @period_changes: times the period moved (the budget, or the knob).
 * @period_errors: period changes perf refused (the old period stayed).
 * @period_why:	why the period last moved; "" if it never did.
 * @sample_cost_ns: ksamplingd's CPU time per sample drained, the least
 *		measured over a round of the budget (0: not yet measured).
 * @budget_used: ksamplingd's CPU use as the budget last estimated it,
 *		permille of a CPU: samples drained x @sample_cost_ns.
 * @count_reads: times ksamplingd read the events' counts.
 * @count_read_ns: ksamplingd's CPU time in the last of them.
 * @count_read_every_ms: how long it waits between them now: at least
 *		EMBM_READ_MS, longer when a read costs more than
 *		EMBM_READ_PERMILLE of a CPU over the interval (thousands of
 *		inherited children, each read with its parent).
 * @kthread_ns:	CPU time ksamplingd used.
 * @wake_us:	the interval to ksamplingd's next round (ksamplingd's own).
 * @wakeups:	ksamplingd's rounds (likewise).
 * @nr_events:	events open now.
 * @ring_pages_locked: ring-buffer pages charged to the starter now.
 * @ring_pages_max: the most ring-buffer pages charged at once.
 * @queue_bytes_max: the most memory the direct queues took at once.
 * @direct_samples: samples read from the direct queues.
 * @cpus_skipped: CPUs that came online and could not get events.
 * @scan_gave_up: times the search for new threads at start gave up.
 * @threads_skipped: threads that got no events on a CPU that came online,
 *		because they exec()ed or stopped being dumpable since the
 *		start, or an exec() was under way.
 * @lost:	samples perf dropped (PERF_RECORD_LOST).
 * @throttled:	PERF_RECORD_THROTTLE records.
 * @unthrottled: PERF_RECORD_UNTHROTTLE records.
 * @bad_records: records that could not be parsed.
 * @other:	records of other types.
 * @kind:	per event kind (the source's descriptors); read from perf
 *		every second and when events close.
 * @nr_kinds:	how many kinds the source opened.
 * @cpus:	CPUs that had events during the session.
 *
 * Written by the sampler's files alone (sampler-internal.h): by whichever
 * of the starter, ksamplingd and the stopper runs the session's events at
 * the time.  ksamplingd publishes a copy after each round (every
 * EMBM_DRAIN_MS), which readers get with embm_sampler_read_status(); the
 * final one comes with the stop.
 */
struct embm_sampler_status {
	const struct embm_source *source;
	char why[256];
	u64 period;
	u64 store_period;
	u64 period_start;
	u64 period_max;
	u64 period_changes;
	u64 period_errors;
	char period_why[96];
	u64 sample_cost_ns;
	u64 budget_used;
	u64 count_reads;
	u64 count_read_ns;
	u64 count_read_every_ms;
	u64 kthread_ns;
	u64 wake_us;
	u64 wakeups;
	unsigned int nr_events;
	u64 ring_pages_locked;
	u64 ring_pages_max;
	u64 queue_bytes_max;
	u64 direct_samples;
	u64 cpus_skipped;
	u64 scan_gave_up;
	u64 threads_skipped;
	u64 lost;
	u64 throttled;
	u64 unthrottled;
	u64 bad_records;
	u64 other;
	struct embm_kind_stats kind[EMBM_MAX_EVENTS];
	int nr_kinds;
	struct cpumask cpus;
};

/**
 * enum embm_exit - who exited, as the sampler tells its session
 * @EMBM_EXIT_TARGET:  the target process; the starter is alive.
 * @EMBM_EXIT_STARTER: the process that started the session (the target
 *		       may still run).
 * @EMBM_EXIT_BOTH:    both.
 */
enum embm_exit {
	EMBM_EXIT_TARGET,
	EMBM_EXIT_STARTER,
	EMBM_EXIT_BOTH,
};

/**
 * typedef embm_exit_fn - told once when the target or the starter exits
 * @data: as given to embm_sampler_start()
 * @who:  who exited
 *
 * Called by ksamplingd, which then waits to be stopped: the callback may
 * not sleep or stop the sampler itself; it queues work that does.
 */
typedef void (*embm_exit_fn)(void *data, enum embm_exit who);

/**
 * enum embm_phase - the parts of embm_start() and embm_end() that are timed
 * @EMBM_START_STATS:	the results' tables (the session's).
 * @EMBM_START_THREADS:	listing the target's threads.
 * @EMBM_START_KTHREAD:	creating ksamplingd.
 * @EMBM_START_EVENTS:	choosing the source, opening every CPU's events
 *			and making their buffers.
 * @EMBM_START_ENABLE:	enabling them, and opening those of the threads
 *			the target made meanwhile.
 * @EMBM_START_CLEAR:	dropping the previous session's results.
 * @EMBM_START:		the whole start, from the session's lock on.
 * @EMBM_END_KTHREAD:	stopping ksamplingd.
 * @EMBM_END_CLOSE:	the last drain, releasing the events and buffers.
 * @EMBM_END_VIEW:	the copy of the ended session for the summary.
 * @EMBM_END_REPORT:	printing the summary.
 * @EMBM_END:		the whole end, from the session's lock on.
 * @EMBM_NR_PHASES:	how many.
 */
enum embm_phase {
	EMBM_START_STATS,
	EMBM_START_THREADS,
	EMBM_START_KTHREAD,
	EMBM_START_EVENTS,
	EMBM_START_ENABLE,
	EMBM_START_CLEAR,
	EMBM_START,
	EMBM_END_KTHREAD,
	EMBM_END_CLOSE,
	EMBM_END_VIEW,
	EMBM_END_REPORT,
	EMBM_END,
	EMBM_NR_PHASES,
};

/**
 * struct embm_sampler_args - what a session asks of the sampler
 * @target: thread-group pid of the target, NULL for every process; the
 *	    caller keeps its reference valid until embm_sampler_stop()
 * @cgroup: with @target NULL, sample only the tasks of this cgroup (CPU-wide
 *	    events, as PERF_FLAG_PID_CGROUP makes); the caller keeps its
 *	    reference likewise
 * @owner:  thread-group pid of the starter, likewise; the session ends
 *	    when it exits
 * @cfg:    the knobs
 * @st:     where the results go; the caller keeps it until after the stop
 * @exited: called once, by ksamplingd, when the target or the starter
 *	    exits; see embm_exit_fn
 * @data:   its argument
 * @phase_ns: where the start writes the time of its parts (enum
 *	    embm_phase, EMBM_START_THREADS to EMBM_START_ENABLE), in ns
 */
struct embm_sampler_args {
	struct pid *target;
	struct cgroup_subsys_state *cgroup;
	struct pid *owner;
	const struct embm_config *cfg;
	struct embm_stats *st;
	embm_exit_fn exited;
	void *data;
	u64 *phase_ns;
};

struct embm_sampler;

/* The ns since *@t, which becomes now: the time of a part just done. */
static inline u64 embm_phase_end(u64 *t)
{
	u64 now = ktime_get_ns(), d = now - *t;

	*t = now;
	return d;
}

struct embm_sampler *embm_sampler_start(const struct embm_sampler_args *args,
					struct embm_sampler_status *status);
void embm_sampler_read_status(struct embm_sampler *s,
			      struct embm_sampler_status *status);
void embm_sampler_stop(struct embm_sampler *s, struct embm_sampler_status *status,
		       u64 *phase_ns);

#endif /* __MM_EMBM_SAMPLER_H */
