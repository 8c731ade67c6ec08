/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm: what the files of the sampler share
 *
 * The sampler is cut at its narrow interfaces, one job a file:
 *   sampler.c     embm_sampler_start/stop/read_status: the sampler's life
 *   choose.c      the choice of a source and the checks of its descriptors
 *   evset.c       per-CPU event sets: events, rings, direct queues, their
 *		   opening and closing; the CPU hotplug callbacks
 *   threads.c     the target's threads: listing, rescans, the exec and
 *		   dumpable rule
 *   drain.c       reading the rings and queues into the results
 *   counts.c      perf's counts and times of each kind of event
 *   ksamplingd.c  the thread: its loop, the adaptive period, the knobs
 *		   mid-session, hotplug follow-up, exit detection
 * Calls go one way: sampler calls choose, evset, threads and ksamplingd;
 * ksamplingd calls evset, threads, counts and drain; choose calls evset;
 * evset calls threads, counts and drain; counts calls drain; threads and
 * drain call none of these.
 *
 * Contexts: embm_sampler_start/stop() run in process context, serialised
 * by the caller (the session's lock).  ksamplingd is a kernel thread; it
 * alone touches the events and buffers while it runs, and takes the
 * sampler's lock (its status and events) with the results' lock
 * (embm_stats.lock) inside around each drain.  The CPU hotplug callbacks
 * run in the hotplug thread and only mark CPUs and wake ksamplingd, under
 * embm_active_lock (evset.c).  Lock order: the session's lock, the
 * sampler's lock, embm_stats.lock, then perf's own (cpu_hotplug_lock
 * among them) and mem_hotplug_lock, read and never waited for
 * (try_get_online_mems(): embm_pfn_nid() and the CXL rescan, each on its
 * own, never nested); cpu_hotplug_lock before mem_hotplug_lock, as
 * mem_hotplug_begin() takes them.  Nothing of embm's is taken under
 * mem_hotplug_lock: the memory notifier only bumps a counter.  The
 * sampler tells its session that the target exited through a callback,
 * never by calling the session code.
 */
#ifndef __MM_EMBM_SAMPLER_INTERNAL_H
#define __MM_EMBM_SAMPLER_INTERNAL_H

#include <linux/cpumask.h>
#include <linux/embm.h>
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/perf_kernel_rb.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "direct.h"
#include "perm.h"
#include "sampler.h"
#include "session.h"
#include "stats.h"

#define EMBM_COST_ROUNDS	8	/* rounds the least cost is taken over */
#define EMBM_READ_MS		1000	/* how often it reads the counts, at most */
#define EMBM_PERIOD_MAX		BIT_ULL(40)
#define EMBM_SCRATCH		4096	/* largest record embm's events write */

/*
 * An open event, its id (kept to forget the id after the release), and
 * whether ksamplingd made it after the start, for a CPU that came online.
 */
struct embm_ev {
	struct perf_event *event;
	u64 id;
	bool late;
};

/* Counts of one kind of event, summed over its events. */
struct embm_kind_sum {
	u64 count;
	u64 enabled;
	u64 running;
};

/*
 * The events of one CPU, room for them, the buffer they share, and the
 * queue of the direct ones (direct.c).  @filled: the bytes drained from
 * the buffer since ksamplingd's last round (ksamplingd only).  @wake: on
 * the wait queue of @woken_by, one of the events writing into the
 * buffer, so that perf's wakeup of the buffer wakes ksamplingd (evset.c,
 * embm_ring_watch()); @woken_by NULL: none yet.
 */
struct embm_cpu {
	struct perf_buffer *rb;
	struct embm_direct *dq;
	struct embm_ev *evs;
	unsigned int nr_events;
	unsigned int room;
	u64 filled;
	struct wait_queue_entry wake;
	struct perf_event *woken_by;
};

/**
 * struct embm_sampler - ksamplingd and what it owns
 * @thread:	 ksamplingd.
 * @lock:	 held while the events of @cpu change or are read, and
 *		 while @status changes; taken before the results' lock.
 * @status:	 what the sampler says of itself, written by the one who
 *		 runs the events (the starter, ksamplingd, the stopper).
 * @pub_lock:	 protects @published; held only to copy it.
 * @published:	 a copy of @status, made by ksamplingd after each round,
 *		 for readers (embm_sampler_read_status()).
 * @exited_fn:	 told once when the target or the starter exits.
 * @exited_data: its argument.
 * @target:	 thread-group pid of the target, NULL system-wide.
 * @cgroup:	 the cgroup of a cgroup session, NULL otherwise: its events
 *		 are CPU-wide and count only its tasks.  The session holds
 *		 the reference.
 * @owner:	 thread-group pid of the starter: the session ends with it.
 * @src:	 the source in use.
 * @descs:	 its event kinds.
 * @nr_descs:	 how many.
 * @direct:	 one of them is direct: each CPU gets a queue.
 * @direct_full: one of them is a direct PMU event (embm_source.direct_irq):
 *		 the queues are full ones, which keep data source and weight.
 * @records:	 one of them samples into the ring (not direct, not a
 *		 counting leader): the ring gets ring_pages, else one page.
 * @queue_bytes: the memory of the queues now.
 * @ids:	 event id -> index in @descs, for the samples' IDENTIFIER.
 * @throttles:	 event (stream) id -> the perf time it was throttled at and
 *		 its kind (EMBM_THROTTLE_MARK()), for each event throttled
 *		 now (embm_drain_throttle()).
 * @throttled_ns: per kind, the time its events ran throttled, as the
 *		 records drained so far say; published with the counts read
 *		 after those drains (__embm_publish_kinds()), so that it is
 *		 of the same time as the time running it corrects.
 * @cpu:	 per possible CPU.
 * @tasks:	 the target's threads that have events of their own (not
 *		 inherited), referenced, sorted by address.
 * @nr_tasks:	 how many.
 * @nr_events:	 events open now, on every CPU.
 * @mlock:	 ring-buffer pages charged to the starter.
 * @cpus_new:	 CPUs that came online; set by the hotplug callback.
 * @cpus_gone:	 CPUs going offline; likewise.
 * @st:		 the results, where the samples go (embm_stats_add()).
 * @cfg:	 the knobs of the session; period and store_period follow the
 *		 knobs (ksamplingd_knobs()).
 * @scratch:	 for records that cross a page of a buffer.
 * @base_period: the load period at start, or as the knob last set it:
 *		 adaptation never goes below.
 * @base_store:	 likewise for stores.
 * @running:	 set once started: the hotplug callbacks may wake ksamplingd,
 *		 and events made from then on are made by ksamplingd.
 *		 Under embm_active_lock.
 * @exec_id:	 the target's self_exec_id at start.
 * @via_ptrace:	 the starter had no CAP_PERFMON: perf's rule was ptrace
 *		 access, which a thread that stops being dumpable withdraws.
 * @closed:	 per kind, the counts of events released so far.
 * @readings:	 room to read every event, for embm_read_kinds().
 * @nr_readings: how many it holds.
 * @win_samples: samples drained since the budget's last round.
 * @win_ns:	 ksamplingd's CPU time in the drains that found samples,
 *		 likewise.
 * @knob_gen:	 embm_knobs_period_gen() when the period knobs were last
 *		 taken (0: never, since the start).
 * @costs:	 the cost of a sample in the budget's last rounds, in ns.
 * @nr_costs:	 rounds that measured one.
 * @memcg:	 the starter's memory cgroup, referenced: what ksamplingd
 *		 allocates for the session (events and queues of CPUs that
 *		 come online, arrays that grow, page bitmaps of new nodes) is
 *		 charged there, as what the start allocated is.
 */
struct embm_sampler {
	struct task_struct *thread;
	struct mutex lock;	/* see above */
	struct embm_sampler_status status;
	spinlock_t pub_lock;	/* see above */
	struct embm_sampler_status *published;
	embm_exit_fn exited_fn;
	void *exited_data;
	struct pid *target;
	struct cgroup_subsys_state *cgroup;
	struct pid *owner;
	const struct embm_source *src;
	struct embm_event_desc descs[EMBM_MAX_EVENTS];
	int nr_descs;
	bool direct;
	bool direct_full;
	bool records;
	u64 queue_bytes;
	struct xarray ids;
	struct xarray throttles;
	u64 throttled_ns[EMBM_MAX_EVENTS];
	struct embm_cpu *cpu;
	struct task_struct **tasks;
	unsigned int nr_tasks;
	unsigned int nr_events;
	struct embm_mlock mlock;
	cpumask_var_t cpus_new;
	cpumask_var_t cpus_gone;
	struct embm_stats *st;
	struct embm_config cfg;
	void *scratch;
	u64 base_period;
	u64 base_store;
	bool running;
	u32 exec_id;
	bool via_ptrace;
	struct embm_kind_sum closed[EMBM_MAX_EVENTS];
	struct embm_reading *readings;
	unsigned int nr_readings;
	u64 win_samples;
	u64 win_ns;
	unsigned int knob_gen;
	u64 costs[EMBM_COST_ROUNDS];
	unsigned int nr_costs;
	struct mem_cgroup *memcg;
};

/* One event's reading, for the per-thread sums. */
struct embm_reading {
	const struct task_struct *task;
	int kind;
	bool late;
	u64 count;
	u64 enabled;
	u64 running;
};

/* A period within perf's range, and a multiple of the source's alignment. */
static inline u64 embm_align_period(const struct embm_sampler *s, u64 period)
{
	u32 a = s->src->period_align;

	period = clamp_t(u64, period, 1, EMBM_PERIOD_MAX);
	return a > 1 ? roundup(period, a) : period;
}

/*
 * Data pages of one CPU's ring buffer: the ring_pages knob's, or one when
 * no event samples into it (@records): a direct event writes only perf's
 * throttle and lost records there (24 to 40 bytes each, one pair a
 * throttled tick at most), and a page holds a hundred.
 */
static inline u64 embm_ring_pages(const struct embm_sampler *s)
{
	return s->records ? s->cfg.ring_pages : 1;
}

/* Is @c's ring buffer half full or more?  Any context. */
static inline bool embm_ring_half_full(const struct embm_sampler *s, const struct embm_cpu *c)
{
	return c->rb && perf_kernel_rb_pending(c->rb) >= embm_ring_pages(s) * PAGE_SIZE / 2;
}

/* The descriptor of @ev, or NULL. */
static inline const struct embm_event_desc *embm_ev_desc(struct embm_sampler *s,
							 const struct embm_ev *ev)
{
	void *e = xa_load(&s->ids, ev->id);

	return e ? &s->descs[xa_to_value(e)] : NULL;
}

/* choose.c */
int embm_choose_source(struct embm_sampler *s);

/* evset.c */
int embm_open_cpu(struct embm_sampler *s, int cpu, unsigned int from);
void embm_enable_cpu(struct embm_sampler *s, int cpu, unsigned int from);
void __embm_close_cpu(struct embm_sampler *s, int cpu, bool counted);
void embm_close_all(struct embm_sampler *s);
void __embm_count_events(struct embm_sampler *s);
void embm_hotplug_attach(struct embm_sampler *s);
void embm_hotplug_run(struct embm_sampler *s);
void embm_hotplug_detach(void);

/* threads.c */
bool embm_task_still_allowed(struct embm_sampler *s, struct task_struct *task);
int embm_start_tasks(struct embm_sampler *s);
bool embm_pid_gone(struct pid *tgid);
int embm_add_new_tasks(struct embm_sampler *s);
int embm_rescan_tasks(struct embm_sampler *s);
void embm_sort_tasks(struct embm_sampler *s);
void embm_put_tasks(struct embm_sampler *s);

/* drain.c */
u64 __embm_drain_cpu(struct embm_sampler *s, int cpu);
void __embm_throttle_sweep(struct embm_sampler *s);

/* counts.c */
bool embm_read_ev(struct embm_sampler *s, const struct embm_ev *ev,
		  struct embm_reading *r);
void __embm_read_kinds(struct embm_sampler *s);
void embm_read_kinds(struct embm_sampler *s);

/* ksamplingd.c */
int ksamplingd(void *data);
void embm_publish_status(struct embm_sampler *s);

#endif /* __MM_EMBM_SAMPLER_INTERNAL_H */
