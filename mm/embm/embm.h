/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm internal interface, shared by the files of mm/embm/; what a
 * source of samples sees is <linux/embm.h>.
 *
 * Files, the state each owns, and what runs where:
 *   core.c       the session (private, under embm_lock), the
 *		       system calls, views for readers          process
 *   perm.c       perf's permission rules, ring memory      process
 *   sampler.c    ksamplingd: events, buffers, drain loop;
 *		       struct embm_sampler_status                kthread
 *   record.c     PERF_RECORD_* parsing                    any
 *   tier.c       pfn -> node -> tier, the CXL windows,
 *		       memory hotplug                            kthread
 *   stats.c      struct embm_stats: attribution, counts     kthread
 *   direct.c     direct samples: the overflow handler's
 *		       per-CPU queues                 any (writer: task, IRQs off)
 *   hot.c        hot pages: space-saving top-N            kthread
 *   source.c        the table of sources                     any
 *   swfault.c  the page-fault source; PEBS and IBS are in
 *		       arch/x86/events/embm_{pebs,ibs}.c          process
 *   report.c     the per-node table and the kernel-log
 *		       summary, from a struct embm_view          process
 *   proc.c       /proc/embm                               process
 *   sysfs.c      the knobs under /sys/kernel/mm/embm      process
 *
 * Calls between files go one way (scripts/embm test checks it, from the
 * objects' symbols):
 *   embm_proc    -> embm_core, embm_report, embm_stats, embm_hot,
 *		     embm_tier
 *   embm_core    -> embm_sampler, embm_stats, embm_perm, embm_report,
 *		     embm_sysfs (the knobs)
 *   embm_sampler -> embm_src, embm_record, embm_stats, embm_perm,
 *		     embm_direct, embm_sysfs (the period knobs)
 *   embm_sysfs   -> embm_src -> the sources
 *   embm_report  -> embm_stats, embm_tier
 *   embm_stats   -> embm_record, embm_hot, embm_tier
 * The sampler tells the core that a target exited through a callback
 * (embm_exit_fn); readers get a struct embm_view and never hold embm_lock
 * while they format.
 */
#ifndef __MM_EMBM_H
#define __MM_EMBM_H

#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/irq_work_types.h>
#include <linux/embm.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/seq_buf.h>
#include <linux/types.h>

/*
 * The layers that have headers of their own, included here until every
 * file includes what it uses (report.h, which needs the session and the
 * sampler's status, at the end).
 */
#include "direct.h"
#include "hot.h"
#include "perm.h"
#include "record.h"
#include "stats.h"
#include "tier.h"

/* Take a mutex for a system call or a read: -ERESTARTSYS on a signal. */
static inline int embm_lock_interruptible(struct mutex *lock)
{
	return mutex_lock_interruptible(lock) ? -ERESTARTSYS : 0;
}

/* ---- session (core.c) ---------------------------------------------- */

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

/* Sources of samples, in the order the automatic choice tries them. */
enum embm_source_id {
	EMBM_SRC_PEBS,
	EMBM_SRC_IBS,
	EMBM_SRC_SWFAULT,
	EMBM_NR_SOURCES,
	EMBM_SRC_AUTO = EMBM_NR_SOURCES,
};

/**
 * struct embm_config - the knobs, as a session starts with them
 * @source:	  EMBM_SRC_AUTO or the source forced.
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
 */
struct embm_config {
	enum embm_source_id source;
	u64 period;
	u64 store_period;
	u64 ldlat;
	u64 ring_pages;
	u64 cpu_budget;
	u64 hot_pages;
	u64 max_events;
};

int embm_session_start(pid_t pid, int node, unsigned int flags);
int embm_session_end(pid_t pid, unsigned int flags);

/* ---- sources ------------------------------------------------------------ */

/* source.c: the sources, in the order the automatic choice tries them. */
extern const struct embm_source *const embm_sources[EMBM_NR_SOURCES];

/* ---- sampler (sampler.c) ------------------------------------------- */

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
 * Written by sampler.c alone: by whichever of the starter, ksamplingd
 * and the stopper runs the session's events at the time.  ksamplingd
 * publishes a copy after each round (every EMBM_DRAIN_MS), which readers
 * get with embm_sampler_read_status(); the final one comes with the stop.
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

struct embm_sampler;

struct embm_sampler *embm_sampler_start(struct pid *target,
					struct cgroup_subsys_state *cgroup,
					struct pid *owner,
					const struct embm_config *cfg,
					struct embm_stats *st,
					struct embm_sampler_status *status,
					embm_exit_fn exited, void *data);
void embm_sampler_read_status(struct embm_sampler *s,
			      struct embm_sampler_status *status);
void embm_sampler_stop(struct embm_sampler *s, struct embm_sampler_status *status);

/* ---- knobs (sysfs.c) ----------------------------------------------- */

void embm_knobs_get(struct embm_config *cfg);
unsigned int embm_knobs_period_gen(void);

#include "report.h"

#endif /* __MM_EMBM_H */
