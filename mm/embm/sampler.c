// SPDX-License-Identifier: GPL-2.0
/*
 * embm: ksamplingd, the sampler
 *
 * At session start embm opens a source's events on every online CPU with
 * perf_event_create_kernel_counter(): one per CPU and event kind for a
 * system-wide session, one per CPU, event kind and thread (with inherit,
 * so later threads and children are followed) for a process.  All events
 * of a CPU write into that CPU's ring buffer (perf_kernel_rb_attach()),
 * or, direct ones (direct.c), their samples into its queue.
 * ksamplingd drains the buffers and queues every EMBM_DRAIN_MS (sooner
 * when a ring was a quarter full, or when a queue filled to half woke it
 * through an irq_work, in hard IRQ context), attributes each sample,
 * follows CPU hotplug and the period knobs, keeps its own CPU use within
 * a budget by moving the periods, and notices when the target process
 * exits.
 *
 * Contexts: embm_sampler_start/stop() run in process context, serialised
 * by the caller (the session's lock).  ksamplingd is a kernel thread; it
 * alone touches the events and buffers while it runs, and takes the
 * sampler's lock (its status and events) with the results' lock
 * (embm_stats.lock) inside around each drain.  The CPU hotplug callbacks
 * run in the hotplug thread and only mark CPUs and wake ksamplingd, under
 * embm_active_lock.  Lock order: the session's lock, the sampler's lock,
 * embm_stats.lock, then perf's own (cpu_hotplug_lock among them) and
 * mem_hotplug_lock, read and never waited for (try_get_online_mems():
 * embm_pfn_nid() and the CXL rescan, each on its own, never nested);
 * cpu_hotplug_lock before mem_hotplug_lock, as mem_hotplug_begin() takes
 * them.  Nothing of embm's is taken under mem_hotplug_lock: the memory
 * notifier only bumps a counter.  The sampler tells its session that the
 * target exited through a callback, never by calling the session code.
 *
 * Events are created disabled and enabled together with everything they
 * handed down (perf_kernel_counter_enable()): a thread forked in between
 * would otherwise inherit "off" for good.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/security.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/bsearch.h>
#include <linux/xarray.h>

#include "embm.h"

#define EMBM_DRAIN_MS		10	/* how often ksamplingd drains */
#define EMBM_DRAIN_FAST_MS	1	/* ... after a ring was a quarter full (a jiffy at least) */
#define EMBM_ADAPT_MS		200	/* how often it checks its CPU use */
#define EMBM_ADAPT_SAMPLES	64	/* samples a round needs to measure their cost */
#define EMBM_COST_ROUNDS	8	/* rounds the least cost is taken over */
#define EMBM_QUEUE_RING_PAGES	64	/* a direct queue at most as for a ring of so many */
#define EMBM_READ_MS		1000	/* how often it reads the counts, at most */
#define EMBM_READ_PERMILLE	10	/* of a CPU the count reads may take */
#define EMBM_PERIOD_MAX		BIT_ULL(40)
#define EMBM_SCRATCH		4096	/* largest record embm's events write */
#define EMBM_SCAN_ROUNDS	8	/* rounds of looking for new threads */
#define EMBM_LIST_TRIES		4	/* tries to list a growing thread group */

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
 * queue of the direct ones (direct.c).
 */
struct embm_cpu {
	struct perf_buffer *rb;
	struct embm_direct *dq;
	struct embm_ev *evs;
	unsigned int nr_events;
	unsigned int room;
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
 * @queue_bytes: the memory of the queues now.
 * @ids:	 event id -> index in @descs, for the samples' IDENTIFIER.
 * @throttles:	 event (stream) id -> the perf time it was throttled at and
 *		 its kind (EMBM_THROTTLE_MARK()), for each event throttled
 *		 now (ksamplingd_throttle()).
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

/*
 * The sampler, for the CPU hotplug callbacks: they only mark CPUs and wake
 * ksamplingd.  embm_active_lock protects embm_active and its ->running; it
 * is held only for that.  (Not cpus_read_lock(): creating and releasing
 * perf events takes it too, through static keys, and nesting it would
 * deadlock against a waiting hotplug writer.)
 */
static DEFINE_SPINLOCK(embm_active_lock);
static struct embm_sampler *embm_active;

static u64 embm_align_period(const struct embm_sampler *s, u64 period)
{
	u32 a = s->src->period_align;

	period = clamp_t(u64, period, 1, EMBM_PERIOD_MAX);
	return a > 1 ? roundup(period, a) : period;
}

/* ---- events ------------------------------------------------------------ */

/*
 * Make room for @more events on @c in one allocation, within the session's
 * max_events: -E2BIG past it.
 */
static int embm_cpu_reserve(struct embm_sampler *s, struct embm_cpu *c,
			    unsigned int more)
{
	struct embm_ev *evs;

	if ((u64)s->nr_events + more > s->cfg.max_events)
		return -E2BIG;
	if (c->nr_events + more <= c->room)
		return 0;
	evs = kvrealloc(c->evs, array_size(c->nr_events + more, sizeof(*evs)),
			GFP_KERNEL_ACCOUNT);
	if (!evs)
		return -ENOMEM;
	c->evs = evs;
	c->room = c->nr_events + more;
	return 0;
}

/*
 * May ksamplingd still give @task events of its own?  After the start it
 * makes them (for a CPU that came online) with no credentials to check,
 * where perf_event_open() would check again: only for a task that has not
 * exec()ed since the start (perf removes its events on a set-user-ID exec)
 * and, when the start relied on ptrace access, that is still dumpable (a
 * setuid() or PR_SET_DUMPABLE withdraws that access).  Caller holds the
 * task's exec_update_lock, so no exec() comes in between.
 */
static bool embm_task_still_allowed(struct embm_sampler *s, struct task_struct *task)
{
	bool ok;

	if (task->self_exec_id != s->exec_id)
		return false;
	if (!s->via_ptrace)
		return true;
	task_lock(task);
	ok = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	return ok;
}

/*
 * Open descriptor @d on @cpu for @task (NULL: every task), disabled, into
 * @c, in @leader's group if not NULL; *@made is set to the event or NULL.
 * A task that is exiting has nothing to sample: 0, no event.  Once the
 * session runs, a task no longer allowed (embm_task_still_allowed()) or in
 * an exec() is skipped and counted: 0, no event.  The first event of a
 * start asks the LSMs whether its samples may be read, as perf_mmap()
 * does.  A counting leader has no period and no buffer.  A direct event
 * has embm's overflow handler, which its children inherit.
 */
static int embm_open_one(struct embm_sampler *s, struct embm_cpu *c, int d,
			 int cpu, struct task_struct *task,
			 struct perf_event *leader, struct perf_event **made)
{
	const struct embm_event_desc *desc = &s->descs[d];
	perf_overflow_handler_t handler = desc->direct ? embm_direct_overflow : NULL;
	void *context = desc->direct ? embm_direct_context(c->dq, d) : NULL;
	struct perf_event_attr attr = desc->attr;
	struct rw_semaphore *exec_lock = NULL;
	struct perf_event *event;
	int err;

	*made = NULL;

	if (WARN_ON_ONCE(c->nr_events >= c->room))
		return -ENOSPC;
	if (task && s->running) {
		/* Never wait for an exec(): it may wait for a start, which waits for us. */
		if (!down_read_trylock(&task->signal->exec_update_lock)) {
			s->status.threads_skipped++;
			return 0;
		}
		exec_lock = &task->signal->exec_update_lock;
		if (!embm_task_still_allowed(s, task)) {
			s->status.threads_skipped++;
			err = 0;
			goto out_unlock;
		}
	}
	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.inherit = !!task;
	if (!desc->lead)
		attr.sample_period = desc->store ? s->status.store_period : s->status.period;
	if (s->cgroup)
		event = perf_event_create_kernel_cgroup(&attr, cpu, s->cgroup, leader,
							handler, context);
	else
		event = perf_event_create_kernel_group(&attr, cpu, task, leader, handler,
						       context);
	if (IS_ERR(event)) {
		err = PTR_ERR(event);
		if (task && err == -ESRCH)
			err = 0;
		goto out_unlock;
	}

	err = desc->lead ? 0 : perf_kernel_rb_attach(event, c->rb);
	if (!err && !s->running && !s->nr_events)
		err = security_perf_event_read(event);
	if (!err)
		err = xa_err(xa_store(&s->ids, event->id, xa_mk_value(d), GFP_KERNEL_ACCOUNT));
	if (err) {
		xa_erase(&s->ids, event->id);
		perf_event_release_kernel(event);
		goto out_unlock;
	}
	c->evs[c->nr_events++] = (struct embm_ev){
		.event = event, .id = event->id, .late = s->running,
	};
	s->nr_events++;
	*made = event;
out_unlock:
	if (exec_lock)
		up_read(exec_lock);
	return err;
}

/* Release the event embm_open_one() made last on @c. */
static void embm_drop_last(struct embm_sampler *s, struct embm_cpu *c)
{
	struct embm_ev *ev = &c->evs[--c->nr_events];

	perf_event_release_kernel(ev->event);
	xa_erase(&s->ids, ev->id);
	s->nr_events--;
}

#define EMBM_GROUP_TRIES	3

/*
 * Open every kind of event on @cpu for @task (NULL: system-wide), a
 * counting leader before the kind it leads.  When a leader could not be
 * made for @task (it is exiting, or skipped), neither is its member.  A
 * thread that forks between the two may take the leader's context with it
 * (perf swaps equivalent contexts at a context switch): the member is then
 * refused (-EINVAL, or -ENODEV for an exiting leader), and the pair is made
 * again, a few times before the error stands.
 */
static int embm_open_kinds(struct embm_sampler *s, struct embm_cpu *c, int cpu,
			   struct task_struct *task)
{
	struct perf_event *leader = NULL, *made;
	int d, err, tries = 0;

	for (d = 0; d < s->nr_descs; d++) {
		bool member = d && s->descs[d - 1].lead;

		if (member && !leader)
			continue;
		err = embm_open_one(s, c, d, cpu, task, member ? leader : NULL, &made);
		if (member && task && (err == -EINVAL || err == -ENODEV) &&
		    ++tries < EMBM_GROUP_TRIES) {
			embm_drop_last(s, c);	/* the leader */
			d -= 2;
			continue;
		}
		if (err)
			return err;
		leader = s->descs[d].lead ? made : NULL;
	}
	return 0;
}

/* Ring-buffer pages of one CPU, the control page included. */
static unsigned long embm_ring_charge(const struct embm_sampler *s)
{
	return s->cfg.ring_pages + 1;
}

/*
 * Open the events of @cpu for the target's threads from index @from on
 * (system-wide: one per kind, @from is 0), making its buffer first.
 * -ENODEV: the CPU went offline meanwhile; -E2BIG: past max_events;
 * -EPERM: past the starter's mlock limit.
 */
static int embm_open_cpu(struct embm_sampler *s, int cpu, unsigned int from)
{
	struct embm_cpu *c = &s->cpu[cpu];
	unsigned int t;
	int err;

	err = embm_cpu_reserve(s, c, s->nr_descs * (s->target ? s->nr_tasks - from : 1));
	if (err)
		return err;
	if (s->direct && !c->dq) {
		/*
		 * Four times the samples the ring holds records, half its
		 * memory: a second thread faulting on the CPU while ksamplingd
		 * waits for it filled a queue of as many.  Not past the default
		 * ring's size (128 KiB a CPU): the queue is kernel memory, not
		 * charged to the mlock limit as the ring is.
		 */
		c->dq = embm_direct_alloc(min_t(u64, s->cfg.ring_pages, EMBM_QUEUE_RING_PAGES) *
					  (PAGE_SIZE / (2 * sizeof(u64))), cpu);
		if (!c->dq)
			return -ENOMEM;
		s->queue_bytes += embm_direct_bytes(c->dq);
		/* Once it runs, ksamplingd may be woken (embm_sampler_start()). */
		if (s->running)
			embm_direct_set_reader(c->dq, s->thread);
	}
	if (!c->rb) {
		err = embm_mlock_charge(&s->mlock, embm_ring_charge(s));
		if (err)
			return err;
		c->rb = perf_kernel_rb_alloc(s->cfg.ring_pages, cpu);
		if (IS_ERR(c->rb)) {
			err = PTR_ERR(c->rb);
			c->rb = NULL;
			embm_mlock_uncharge(&s->mlock, embm_ring_charge(s));
			return err;
		}
	}
	if (!s->target) {
		err = embm_open_kinds(s, c, cpu, NULL);
		if (err)
			return err;
	}
	for (t = from; s->target && t < s->nr_tasks; t++) {
		/* A start of many threads can be killed, and yields. */
		if (!s->running && fatal_signal_pending(current))
			return -EINTR;
		err = embm_open_kinds(s, c, cpu, s->tasks[t]);
		if (err)
			return err;
		cond_resched();
	}
	cpumask_set_cpu(cpu, &s->status.cpus);
	return 0;
}

/* Enable the events of @cpu from index @from on, with their children. */
static void embm_enable_cpu(struct embm_sampler *s, int cpu, unsigned int from)
{
	unsigned int i;

	for (i = from; i < s->cpu[cpu].nr_events; i++)
		perf_kernel_counter_enable(s->cpu[cpu].evs[i].event, true);
}

static u64 embm_drain_cpu(struct embm_sampler *s, int cpu);

/* The descriptor of @ev, or NULL. */
static const struct embm_event_desc *embm_ev_desc(struct embm_sampler *s,
						  const struct embm_ev *ev)
{
	void *e = xa_load(&s->ids, ev->id);

	return e ? &s->descs[xa_to_value(e)] : NULL;
}

/* One event's reading, for the per-thread sums. */
struct embm_reading {
	const struct task_struct *task;
	int kind;
	bool late;
	u64 count;
	u64 enabled;
	u64 running;
};

static int embm_reading_cmp(const void *a, const void *b)
{
	const struct embm_reading *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->kind - y->kind;
}

/*
 * Read @ev (perf adds its children's count and times) into @r.  Context:
 * process; takes perf's context mutex (and may IPI the event's CPU).
 */
static bool embm_read_ev(struct embm_sampler *s, const struct embm_ev *ev,
			 struct embm_reading *r)
{
	const struct embm_event_desc *desc = embm_ev_desc(s, ev);

	if (!desc)
		return false;
	r->task = ev->event->hw.target;
	r->kind = desc - s->descs;
	r->late = ev->late;
	r->count = perf_event_read_value(ev->event, &r->enabled, &r->running);
	return true;
}

/*
 * Sum @n readings into @sums.  A CPU's event is enabled as long as its
 * context is: all the time system-wide, but for a thread's event whenever
 * the thread runs, on any CPU, while it runs (and is counted) only on its
 * own CPU.  So a thread's time enabled is the most any of its per-CPU
 * events saw, not their sum, or every thread would look multiplexed by
 * the number of CPUs.  Events made for a CPU that came online add no time
 * enabled: the thread's events on the CPUs it had from the start already
 * count it, or those of the thread it inherited them from do (their
 * children's times are summed in), and counting it again would make the
 * thread look multiplexed.  Sorts @r.
 */
static void embm_sum_readings(struct embm_reading *r, unsigned int n,
			      struct embm_kind_sum *sums)
{
	unsigned int i, j;

	sort(r, n, sizeof(*r), embm_reading_cmp, NULL);
	for (i = 0; i < n; i = j) {
		struct embm_kind_sum *k = &sums[r[i].kind];
		u64 enabled = 0;

		for (j = i; j < n && r[j].task == r[i].task && r[j].kind == r[i].kind; j++) {
			k->count += r[j].count;
			k->running += r[j].running;
			if (!r[j].task)
				enabled += r[j].enabled;
			else if (!r[j].late)
				enabled = max(enabled, r[j].enabled);
		}
		k->enabled += enabled;
	}
}

/*
 * Put @sums into the status, with the periods of each kind's samples as
 * drained by then (@weight).  Caller holds s->lock.
 */
static void __embm_publish_kinds(struct embm_sampler *s,
				 const struct embm_kind_sum *sums, const u64 *weight)
{
	int d;

	for (d = 0; d < s->nr_descs; d++) {
		s->status.kind[d].count = sums[d].count;
		s->status.kind[d].enabled = sums[d].enabled;
		s->status.kind[d].running = sums[d].running;
		s->status.kind[d].weight = weight[d];
		/* The losses of the same drains, for the calibration. */
		s->status.kind[d].lost_read = s->status.kind[d].lost_weight;
		s->status.kind[d].throttled_ns = s->throttled_ns[d];
	}
}

/*
 * Read every open event's count and times, as perf stat does at its end,
 * so that status shows how long each kind was really on the PMU.  Events
 * already closed add what embm_close_cpu() kept.  The readings' array is
 * kept and grows with the events; without memory for it, the last figures
 * stay.  The CPU time this takes is kept apart from the budget the
 * adaptive period watches, and bounded (ksamplingd_read_kinds()).
 * Context: ksamplingd, or the stop with
 * ksamplingd gone; caller holds s->lock if @locked.
 */
static void __ksamplingd_throttle_sweep(struct embm_sampler *s);

static void embm_read_kinds(struct embm_sampler *s, bool locked)
{
	u64 weight[EMBM_MAX_EVENTS];
	struct embm_kind_sum sums[EMBM_MAX_EVENTS];
	unsigned int i, n = 0;
	int cpu;

	if (s->nr_readings < s->nr_events) {
		struct embm_reading *r;

		r = kvrealloc(s->readings, array_size(s->nr_events, sizeof(*r)),
			      GFP_KERNEL_ACCOUNT);
		if (!r)
			return;
		s->readings = r;
		s->nr_readings = s->nr_events;
	}
	memcpy(sums, s->closed, sizeof(sums));
	for_each_possible_cpu(cpu) {
		for (i = 0; i < s->cpu[cpu].nr_events && n < s->nr_readings; i++) {
			n += embm_read_ev(s, &s->cpu[cpu].evs[i], &s->readings[n]);
			cond_resched();
		}
	}
	embm_sum_readings(s->readings, n, sums);
	/* Callers drained the buffers just before: the samples of these counts. */
	embm_stats_kind_weights(s->st, weight, s->nr_descs);
	if (!locked)
		mutex_lock(&s->lock);
	__ksamplingd_throttle_sweep(s);
	__embm_publish_kinds(s, sums, weight);
	if (!locked)
		mutex_unlock(&s->lock);
}

/*
 * ksamplingd's periodic embm_read_kinds(), bounded: perf reads each
 * inherited child of an event with it, under the parent's child_mutex, so
 * a read costs in proportion to the threads the target forked, which the
 * sampled user controls.  The next read waits until this one's CPU time
 * is at most EMBM_READ_PERMILLE of the time in between (at least
 * EMBM_READ_MS): the reads take at most that share of a CPU however many
 * children there are, and their figures (time enabled and running, for
 * the scaling) come less often: with no upper limit, a read of 1 s
 * leaves them 100 s old.  The samples are drained first (that drain is
 * the budget's, not timed here): the counts go with the samples drained
 * by then.  Context: ksamplingd.
 */
static bool embm_drain_all(struct embm_sampler *s);

static void ksamplingd_read_kinds(struct embm_sampler *s, u64 *next_ns)
{
	u64 cpu_ns, cost, every;

	embm_drain_all(s);
	cpu_ns = task_sched_runtime(current);
	embm_read_kinds(s, false);
	cost = task_sched_runtime(current) - cpu_ns;
	every = max_t(u64, EMBM_READ_MS * NSEC_PER_MSEC,
		      div_u64(cost, EMBM_READ_PERMILLE) * 1000);
	*next_ns = ktime_get_ns() + every;
	mutex_lock(&s->lock);
	s->status.count_reads++;
	s->status.count_read_ns = cost;
	s->status.count_read_every_ms = div_u64(every, NSEC_PER_MSEC);
	mutex_unlock(&s->lock);
}

/*
 * Disable (children too) and release the events of @cpu, keeping their
 * counts unless @counted (embm_read_kinds() just read them for good), then
 * read what they wrote last, releasing included (a large-PEBS flush, say),
 * and free the buffer.  Members go before their leaders.  Caller holds
 * s->lock.
 */
static void embm_close_cpu(struct embm_sampler *s, int cpu, bool counted)
{
	struct embm_cpu *c = &s->cpu[cpu];
	unsigned int i;

	for (i = 0; i < c->nr_events; i++)
		perf_kernel_counter_enable(c->evs[i].event, false);
	/*
	 * Keep what they counted.  A thread's time enabled is seen on its
	 * other CPUs' events too; only system-wide events keep theirs.
	 */
	for (i = 0; i < c->nr_events && !counted; i++) {
		struct embm_reading r;

		if (!embm_read_ev(s, &c->evs[i], &r))
			continue;
		s->closed[r.kind].count += r.count;
		s->closed[r.kind].running += r.running;
		if (!r.task)
			s->closed[r.kind].enabled += r.enabled;
	}
	for (i = c->nr_events; i-- > 0; ) {
		perf_event_release_kernel(c->evs[i].event);
		cond_resched();
	}
	if (c->rb) {
		embm_drain_cpu(s, cpu);
		/* Dropped after the last record: no PERF_RECORD_LOST says so. */
		s->status.lost += perf_kernel_rb_lost(c->rb);
	}
	if (c->dq) {
		/* Drained above, after the release: no handler writes any more. */
		s->queue_bytes -= embm_direct_bytes(c->dq);
		embm_direct_free(c->dq);
		c->dq = NULL;
	}
	for (i = 0; i < c->nr_events; i++)
		xa_erase(&s->ids, c->evs[i].id);
	kvfree(c->evs);
	s->nr_events -= c->nr_events;
	c->evs = NULL;
	c->nr_events = 0;
	c->room = 0;
	if (c->rb) {
		perf_kernel_rb_put(c->rb);
		embm_mlock_uncharge(&s->mlock, embm_ring_charge(s));
	}
	c->rb = NULL;
}

/* ---- draining ------------------------------------------------------------- */

/*
 * A THROTTLE or UNTHROTTLE record: perf stopped an event that sampled too
 * often in a tick (perf_event_max_sample_rate), or started it again.  A
 * throttled event stays active, so its time running grows while it takes
 * no samples; each interval is added to its kind's throttled_ns, which
 * embm_stats_scale() takes out of the time running.  perf unthrottles at
 * the next tick of its CPU, or, for a thread's event scheduled out in
 * between, when it is scheduled in again: an interval is capped at a tick,
 * the most the event can have run throttled (exact when the tick ended
 * it; at most a tick too much when the thread slept).  A record lost with
 * a full buffer leaves its interval out.  Caller holds s->lock; may sleep.
 */
/* An event throttled at @time (below 2^60 ns) of kind @kind, in @throttles. */
#define EMBM_THROTTLE_MARK(time, kind)	xa_mk_value(((time) << 3) | (kind))
#define EMBM_THROTTLE_TIME(entry)	(xa_to_value(entry) >> 3)
#define EMBM_THROTTLE_KIND(entry)	(xa_to_value(entry) & 7)
static_assert(EMBM_MAX_EVENTS <= 8);

static void ksamplingd_throttle(struct embm_sampler *s, const struct perf_event_header *hdr)
{
	u64 time, id, stream;
	void *entry, *old;
	int kind;

	if (embm_parse_throttle(hdr, &time, &id, &stream)) {
		s->status.bad_records++;
		return;
	}
	entry = xa_load(&s->ids, id);
	if (!entry) {
		s->status.bad_records++;
		return;
	}
	kind = xa_to_value(entry);
	if (hdr->type == PERF_RECORD_THROTTLE) {
		s->status.throttled++;
		/*
		 * Without memory the interval is not corrected for: no
		 * reclaim with the results' lock held, where readers wait.
		 */
		if (time < BIT_ULL(60))
			xa_store(&s->throttles, stream, EMBM_THROTTLE_MARK(time, kind),
				 GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
		return;
	}
	s->status.unthrottled++;
	old = xa_erase(&s->throttles, stream);
	if (old && time > EMBM_THROTTLE_TIME(old))
		s->throttled_ns[kind] += min_t(u64, time - EMBM_THROTTLE_TIME(old), TICK_NSEC);
}

/*
 * Events throttled more than a tick ago whose UNTHROTTLE has not come: an
 * inherited child that exited throttled, an event closed throttled, or a
 * thread that has not run since.  Each ran throttled at most a tick: that
 * is credited now and the entry dropped, so that @throttles holds only
 * the events throttled in the last tick.  The record times are perf's
 * clock, local_clock() (embm sets no clockid).  Caller holds s->lock.
 */
static void __ksamplingd_throttle_sweep(struct embm_sampler *s)
{
	u64 now = local_clock();
	unsigned long stream;
	void *entry;

	lockdep_assert_held(&s->lock);
	xa_for_each(&s->throttles, stream, entry) {
		/* Signed: another CPU's clock may be a little ahead. */
		if ((s64)(now - EMBM_THROTTLE_TIME(entry)) <= (s64)TICK_NSEC)
			continue;
		s->throttled_ns[EMBM_THROTTLE_KIND(entry)] += TICK_NSEC;
		xa_erase(&s->throttles, stream);
	}
}

static void embm_drain_record(const struct perf_event_header *hdr, void *arg)
{
	struct embm_sampler *s = arg;
	struct embm_sampler_status *ss = &s->status;
	const struct embm_event_desc *d;
	struct embm_sample sample;
	enum embm_op op;
	void *entry;
	u64 n;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		entry = xa_load(&s->ids, embm_record_id(hdr));
		if (!entry) {
			ss->bad_records++;
			return;
		}
		d = &s->descs[xa_to_value(entry)];
		if (d->lead || embm_parse_sample(hdr, d->attr.sample_type, &sample)) {
			ss->bad_records++;
			return;
		}
		/*
		 * Without PERF_SAMPLE_PERIOD (software events, which perf
		 * samples on every event when it is asked for), the period in
		 * force: ksamplingd drains every buffer before it changes one.
		 */
		if (!(d->attr.sample_type & PERF_SAMPLE_PERIOD))
			sample.period = d->store ? ss->store_period : ss->period;
		op = d->op;
		if (op == EMBM_OP_ANY && s->src->op_of)
			op = s->src->op_of(&sample);
		embm_stats_add(s->st, &sample, d - s->descs, op, d->latency_only);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (embm_parse_lost(hdr, &n))
			ss->bad_records++;
		else
			ss->lost += n;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		ksamplingd_throttle(s, hdr);
		break;
	default:
		ss->other++;
		break;
	}
}

struct embm_drain_direct {
	struct embm_sampler *s;
	int cpu;
};

/*
 * A direct sample: its page, the order of its mapping's size, its kind,
 * the period perf took it with (0: none said; then the period in force),
 * its CPU.
 */
static void embm_drain_direct(u64 phys, unsigned int order, int kind, u64 period, void *arg)
{
	struct embm_drain_direct *dd = arg;
	struct embm_sampler *s = dd->s;
	const struct embm_event_desc *d;
	struct embm_sample sample = { .phys = phys, .cpu = dd->cpu };
	enum embm_op op;

	if (kind >= s->nr_descs || !s->descs[kind].direct) {
		s->status.bad_records++;
		return;
	}
	d = &s->descs[kind];
	s->status.direct_samples++;
	sample.period = period ?: d->store ? s->status.store_period : s->status.period;
	/* At most 4 GiB (order 20): period (< 2^40) x pages stays in a u64. */
	sample.pages = d->maps_pages ? 1U << min(order, 20U) : 1;
	op = d->op;
	if (op == EMBM_OP_ANY && s->src->op_of)
		op = s->src->op_of(&sample);
	embm_stats_add(s->st, &sample, kind, op, d->latency_only);
}

/*
 * Count the samples a direct queue dropped, by kind, each standing for the
 * period in force (as a sample read now would).  Caller holds s->lock.
 */
static void embm_count_direct_lost(struct embm_sampler *s, struct embm_direct *dq)
{
	u64 lost[EMBM_MAX_EVENTS] = {};
	int k;

	s->status.lost += embm_direct_lost(dq, lost);
	for (k = 0; k < s->nr_descs; k++) {
		struct embm_kind_stats *ks = &s->status.kind[k];

		if (!lost[k])
			continue;
		ks->lost += lost[k];
		ks->lost_weight += lost[k] * (s->descs[k].store ? s->status.store_period :
					      s->status.period);
	}
}

/*
 * Read what @cpu's buffer and queue hold into the results, under their lock.
 * Caller holds s->lock (the status).  Return: the records and samples read.
 */
static u64 embm_drain_cpu(struct embm_sampler *s, int cpu)
{
	struct embm_cpu *c = &s->cpu[cpu];
	struct embm_drain_direct dd = { .s = s, .cpu = cpu };
	u64 n = 0;
	long ret;

	mutex_lock(&s->st->lock);
	ret = perf_kernel_rb_read(c->rb, embm_drain_record, s, s->scratch, EMBM_SCRATCH);
	if (c->dq) {
		n += embm_direct_read(c->dq, embm_drain_direct, &dd);
		embm_count_direct_lost(s, c->dq);
	}
	mutex_unlock(&s->st->lock);
	if (ret < 0)
		s->status.bad_records++;
	else
		n += ret;
	return n;
}

/*
 * Drain every CPU's buffer and queue.  The CPU time of a pass that found
 * samples goes to the budget's measure of the cost per sample (only work
 * done for samples: a wakeup that finds nothing costs no sample).
 * Context: ksamplingd.  Return: true if a ring buffer was at least a
 * quarter full: drain again soon.
 */
static bool embm_drain_all(struct embm_sampler *s)
{
	u64 t0 = task_sched_runtime(current), n = 0, quarter;
	bool busy = false;
	int cpu;

	quarter = s->cfg.ring_pages * PAGE_SIZE / 4;
	for_each_possible_cpu(cpu) {
		if (!s->cpu[cpu].rb)
			continue;
		busy |= perf_kernel_rb_pending(s->cpu[cpu].rb) >= quarter;
		mutex_lock(&s->lock);
		n += embm_drain_cpu(s, cpu);
		s->status.kthread_ns = s->thread->se.sum_exec_runtime;
		mutex_unlock(&s->lock);
		cond_resched();
	}
	if (n) {
		s->win_samples += n;
		s->win_ns += task_sched_runtime(current) - t0;
	}
	return busy;
}

/* ---- ksamplingd ---------------------------------------------------------- */

/* Caller holds s->lock. */
static void embm_count_events(struct embm_sampler *s)
{
	s->status.nr_events = s->nr_events;
	s->status.ring_pages_locked = s->mlock.user_pages + s->mlock.pinned_pages;
	s->status.ring_pages_max = max(s->status.ring_pages_max,
				       s->status.ring_pages_locked);
	s->status.queue_bytes_max = max(s->status.queue_bytes_max, s->queue_bytes);
}

static int embm_rescan_tasks(struct embm_sampler *s);

/*
 * Follow CPUs that went away (system-wide sessions close their events) or
 * came online without events (both kinds open them).  A CPU that cannot
 * get its events (max_events, the mlock limit, memory) is counted in
 * the status's cpus_skipped.
 */
static void ksamplingd_hotplug(struct embm_sampler *s)
{
	int cpu, err;

	for_each_cpu(cpu, s->cpus_gone) {
		cpumask_clear_cpu(cpu, s->cpus_gone);
		/* A process's events stay valid: they run where it runs. */
		if (s->target || !s->cpu[cpu].rb)
			continue;
		mutex_lock(&s->lock);
		embm_close_cpu(s, cpu, false);
		embm_count_events(s);
		mutex_unlock(&s->lock);
	}
	for_each_cpu(cpu, s->cpus_new) {
		cpumask_clear_cpu(cpu, s->cpus_new);
		if (!cpu_online(cpu) || s->cpu[cpu].rb)
			continue;
		/*
		 * Threads made since the last scan have inherited events on
		 * the other CPUs, none on this one: list them again first.
		 */
		err = s->target ? embm_rescan_tasks(s) : 0;
		mutex_lock(&s->lock);
		if (!err)
			err = embm_open_cpu(s, cpu, 0);
		if (err) {
			embm_close_cpu(s, cpu, false);
			/* Offline again, or over max_events, mlock or memory. */
			if (err != -ENODEV)
				s->status.cpus_skipped++;
		} else {
			embm_enable_cpu(s, cpu, 0);
		}
		embm_count_events(s);
		mutex_unlock(&s->lock);
	}
}

/* The period @ev takes, of a load and a store period; 0: it counts only. */
static u64 embm_desc_period(struct embm_sampler *s, const struct embm_ev *ev,
			    u64 period, u64 store)
{
	const struct embm_event_desc *desc = embm_ev_desc(s, ev);

	if (desc && desc->lead)
		return 0;
	return desc && desc->store ? store : period;
}

/**
 * embm_set_periods() - give every event a new load and store period
 * @s:	    the sampler
 * @period: load (or all-sample) period
 * @store:  store period
 * @why:    why, for the status (period_why)
 *
 * All or nothing: when perf refuses one event's period, the events changed
 * before it get the current periods back and the status's period stays as it is, so
 * that what status reports is what the events use (the few samples those
 * events took at the refused period meanwhile are weighted with the old
 * one, if they carry no period).  Each CPU's buffer is drained just
 * before its events change (see embm_drain_record()).
 *
 * Context: ksamplingd (or the starter before it runs); takes s->lock.
 * Return: 0 or perf_kernel_counter_period()'s error.
 */
static int embm_set_periods(struct embm_sampler *s, u64 period, u64 store,
			    const char *why)
{
	u64 old = s->status.period, old_store = s->status.store_period;
	int cpu, err = 0, bad_cpu = -1;
	unsigned int i, bad = 0;

	for_each_possible_cpu(cpu) {
		struct embm_cpu *c = &s->cpu[cpu];

		/*
		 * Samples without a period of their own get the one in force
		 * when drained: take this CPU's (its events' and their
		 * children's) before its periods change.
		 */
		if (c->rb) {
			mutex_lock(&s->lock);
			embm_drain_cpu(s, cpu);
			mutex_unlock(&s->lock);
		}
		for (i = 0; i < c->nr_events; i++) {
			u64 p = embm_desc_period(s, &c->evs[i], period, store);

			if (!p)
				continue;
			err = perf_kernel_counter_period(c->evs[i].event, p);
			if (err) {
				bad_cpu = cpu;
				bad = i;
				goto out_undo;
			}
		}
	}
	mutex_lock(&s->lock);
	s->status.period = period;
	s->status.store_period = store;
	s->status.period_max = max(s->status.period_max, period);
	s->status.period_changes++;
	strscpy(s->status.period_why, why, sizeof(s->status.period_why));
	mutex_unlock(&s->lock);
	return 0;

out_undo:
	for_each_possible_cpu(cpu) {
		struct embm_cpu *c = &s->cpu[cpu];

		for (i = 0; i < c->nr_events; i++) {
			u64 p = embm_desc_period(s, &c->evs[i], old, old_store);

			if (cpu == bad_cpu && i == bad)
				goto out_count;
			if (p)
				perf_kernel_counter_period(c->evs[i].event, p);
		}
	}
out_count:
	mutex_lock(&s->lock);
	s->status.period_errors++;
	mutex_unlock(&s->lock);
	return err;
}

/*
 * Keep ksamplingd's CPU use under cfg.cpu_budget permille: double the
 * periods when above, halve them (not below the base) when under a
 * quarter.  Inherited events change with their parents
 * (perf_kernel_counter_period()).  Samples carry their own period, or
 * get the one in force when they are drained: embm_set_periods() drains
 * each CPU's buffer just before it changes that CPU's events.
 *
 * The use is estimated as the samples drained in the round times the cost
 * of one, the least ksamplingd's CPU time per sample has been over the
 * last EMBM_COST_ROUNDS rounds of at least EMBM_ADAPT_SAMPLES samples (so
 * that it follows a workload whose samples cost more).  Not ksamplingd's
 * whole CPU
 * time: its wakeups cost the same with no sample to drain, and a host that
 * stalls a guest's vCPUs (QEMU under TCG, an overcommitted VM) inflates
 * the CPU time the guest sees, but only ever adds to the least cost per
 * sample.  Reading the events' counts is not counted: it does not
 * depend on the period, and ksamplingd_read_kinds() bounds it apart.
 * The cost a sample adds to the sampled task (perf's overflow, a PEBS or
 * IBS record, a direct sample's 8 bytes) is not counted either.
 */
static void ksamplingd_adapt(struct embm_sampler *s, u64 *last_ns)
{
	u64 now = ktime_get_ns(), elapsed = now - *last_ns, n = s->win_samples, used;
	u64 period = s->status.period, store = s->status.store_period, budget;
	char why[sizeof(s->status.period_why)];

	if (elapsed < EMBM_ADAPT_MS * NSEC_PER_MSEC)
		return;
	*last_ns = now;
	if (n >= EMBM_ADAPT_SAMPLES) {
		u64 cost = max(div64_u64(s->win_ns, n), 1ULL), least = cost;
		int i;

		s->costs[s->nr_costs++ % EMBM_COST_ROUNDS] = cost;
		for (i = 0; i < min(s->nr_costs, EMBM_COST_ROUNDS); i++)
			least = min(least, s->costs[i]);
		s->status.sample_cost_ns = least;
	}
	s->win_samples = 0;
	s->win_ns = 0;
	used = mul_u64_u64_div_u64(n, s->status.sample_cost_ns * 1000, elapsed);
	s->status.budget_used = used;
	budget = s->cfg.cpu_budget;
	if (!budget)
		return;

	if (used > budget && period < EMBM_PERIOD_MAX) {
		snprintf(why, sizeof(why),
			 "cpu_budget: %llu > %llu permille (%llu samples/s, %llu ns each)",
			 used, budget, div64_u64(n * NSEC_PER_SEC, elapsed),
			 s->status.sample_cost_ns);
		embm_set_periods(s, embm_align_period(s, period * 2),
				 embm_align_period(s, store * 2), why);
	} else if (used < budget / 4 && period > s->base_period) {
		snprintf(why, sizeof(why), "cpu_budget: %llu < %llu permille, a quarter of %llu",
			 used, budget / 4, budget);
		embm_set_periods(s, embm_align_period(s, max(period / 2, s->base_period)),
				 embm_align_period(s, max(store / 2, s->base_store)), why);
	}
}

/*
 * Take the period knobs again when they were written since the last look:
 * they become the periods in force (a write of the same value brings back
 * a period the budget raised) and the base the budget never goes below.
 * The source's setup() does not see them: they are only aligned as its
 * periods are.  Context: ksamplingd.
 */
static void ksamplingd_knobs(struct embm_sampler *s)
{
	unsigned int gen = embm_knobs_period_gen();
	struct embm_config cfg;
	u64 period, store;
	char why[sizeof(s->status.period_why)];

	if (gen == s->knob_gen)
		return;
	s->knob_gen = gen;
	embm_knobs_get(&cfg);
	period = embm_align_period(s, cfg.period ?: s->src->period);
	store = embm_align_period(s, cfg.store_period ?: s->src->store_period);
	/*
	 * Below the source's least (ibs: 144), refused as setup() refuses it
	 * at start: 6.12's ibs_op would program it (no check_period()).
	 */
	if (cfg.period && cfg.period < s->src->min_period) {
		mutex_lock(&s->lock);
		s->status.period_errors++;
		snprintf(s->status.period_why, sizeof(s->status.period_why),
			 "knob: period %llu below %s's least, %llu: refused", cfg.period,
			 s->src->name, s->src->min_period);
		mutex_unlock(&s->lock);
		return;
	}
	if (period != s->status.period || store != s->status.store_period) {
		snprintf(why, sizeof(why), "knob: period %llu, store_period %llu", period, store);
		/* Refused: the periods, and the base, stay (period_errors). */
		if (embm_set_periods(s, period, store, why))
			return;
	}
	s->cfg.period = cfg.period;
	s->cfg.store_period = cfg.store_period;
	s->base_period = period;
	s->base_store = store;
}

/*
 * Copy the status for readers: they never wait for ksamplingd's work (a
 * CPU that came online can take long to get its events), only for this
 * copy.  Context: the status's writer; takes pub_lock.
 */
static void embm_publish_status(struct embm_sampler *s)
{
	spin_lock(&s->pub_lock);
	*s->published = s->status;
	spin_unlock(&s->pub_lock);
}

/* Has the process of @tgid (NULL: none) exited, all its threads? */
static bool ksamplingd_gone(struct pid *tgid)
{
	struct task_struct *task;
	bool gone;

	if (!tgid)
		return false;
	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	gone = !task || !atomic_read(&task->signal->live);
	rcu_read_unlock();
	return gone;
}

/*
 * Let the queues wake ksamplingd, from its own thread: the one that frees
 * a queue when its CPU goes (a queue made later gets its reader when it is
 * made, embm_open_cpu()).  The sampler's reference keeps the task while a
 * wake may come (embm_sampler_stop()).
 */
static void ksamplingd_set_readers(struct embm_sampler *s)
{
	int cpu;

	mutex_lock(&s->lock);
	for_each_possible_cpu(cpu) {
		if (s->cpu[cpu].dq)
			embm_direct_set_reader(s->cpu[cpu].dq, current);
	}
	mutex_unlock(&s->lock);
}

/*
 * Sleep until the next round: @busy rings drain again after
 * EMBM_DRAIN_FAST_MS.  A queue's wake that came while ksamplingd was
 * awake found it running and will not come again: a queue half full is
 * drained now.  Set the state first, so that a wake from here on ends the
 * sleep.
 */
static void ksamplingd_sleep(struct embm_sampler *s, bool busy)
{
	int cpu;

	set_current_state(TASK_INTERRUPTIBLE);
	for_each_possible_cpu(cpu) {
		struct embm_direct *dq = s->cpu[cpu].dq;

		if (dq && embm_direct_half_full(dq)) {
			__set_current_state(TASK_RUNNING);
			return;
		}
	}
	schedule_timeout(msecs_to_jiffies(busy ? EMBM_DRAIN_FAST_MS : EMBM_DRAIN_MS));
}

static int ksamplingd(void *data)
{
	struct embm_sampler *s = data;
	u64 last_ns = ktime_get_ns(), next_read = last_ns + EMBM_READ_MS * NSEC_PER_MSEC;
	bool target_gone, owner_gone, busy;
	struct mem_cgroup *old_memcg = set_active_memcg(s->memcg);

	ksamplingd_set_readers(s);
	while (!kthread_should_stop()) {
		busy = embm_drain_all(s);
		ksamplingd_hotplug(s);
		ksamplingd_knobs(s);
		ksamplingd_adapt(s, &last_ns);
		if (ktime_get_ns() >= next_read)
			ksamplingd_read_kinds(s, &next_read);
		target_gone = ksamplingd_gone(s->target);
		owner_gone = ksamplingd_gone(s->owner);
		if (target_gone || owner_gone) {
			/* Drain what the last threads wrote, then let the core end it. */
			embm_drain_all(s);
			embm_publish_status(s);
			s->exited_fn(s->exited_data, !owner_gone ? EMBM_EXIT_TARGET :
				     target_gone ? EMBM_EXIT_BOTH : EMBM_EXIT_STARTER);
			break;
		}
		embm_publish_status(s);
		ksamplingd_sleep(s, busy);
	}
	/* Wait for kthread_stop(). */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	set_active_memcg(old_memcg);
	return 0;
}

/* ---- CPU hotplug ------------------------------------------------------------ */

/* Mark @cpu in the running sampler's @mask: gone or new. */
static void embm_cpu_mark(unsigned int cpu, bool online)
{
	struct embm_sampler *s;

	spin_lock(&embm_active_lock);
	s = embm_active;
	if (s) {
		cpumask_set_cpu(cpu, online ? s->cpus_new : s->cpus_gone);
		if (s->running)
			wake_up_process(s->thread);
	}
	spin_unlock(&embm_active_lock);
}

/* Hotplug callbacks: the hotplug thread, process context. */
static int embm_cpu_online(unsigned int cpu)
{
	embm_cpu_mark(cpu, true);
	return 0;
}

static int embm_cpu_offline(unsigned int cpu)
{
	embm_cpu_mark(cpu, false);
	return 0;
}

/* ---- start and stop ------------------------------------------------------ */

static int embm_task_cmp(const void *a, const void *b)
{
	const struct task_struct *x = *(const struct task_struct **)a;
	const struct task_struct *y = *(const struct task_struct **)b;

	return x < y ? -1 : x > y;
}

/*
 * References to the threads of @target now, in a new array of *@nr.
 * The group may grow while it is listed: try again with more room, a
 * bounded number of times (-EAGAIN after that).  -ESRCH: it is gone.
 */
static int embm_collect_tasks(struct pid *target, struct task_struct ***tasks,
			      unsigned int *nr)
{
	struct task_struct *leader, *t, **arr;
	unsigned int n, max, try;

	for (try = 0; try < EMBM_LIST_TRIES; try++) {
		rcu_read_lock();
		leader = pid_task(target, PIDTYPE_TGID);
		max = leader ? get_nr_threads(leader) : 0;
		rcu_read_unlock();
		if (!max)
			return -ESRCH;
		max += max / 4 + 4;

		arr = kvmalloc_array(max, sizeof(*arr), GFP_KERNEL_ACCOUNT);
		if (!arr)
			return -ENOMEM;
		n = 0;
		rcu_read_lock();
		leader = pid_task(target, PIDTYPE_TGID);
		if (leader) {
			for_each_thread(leader, t) {
				if (n == max)
					break;
				arr[n++] = get_task_struct(t);
			}
		}
		rcu_read_unlock();
		if (n < max && n) {
			*tasks = arr;
			*nr = n;
			return 0;
		}
		/* Gone, or more threads than room: put them, maybe try again. */
		while (n)
			put_task_struct(arr[--n]);
		kvfree(arr);
		if (!leader)
			return -ESRCH;
	}
	return -EAGAIN;
}

static void embm_put_tasks(struct embm_sampler *s)
{
	while (s->nr_tasks)
		put_task_struct(s->tasks[--s->nr_tasks]);
	kvfree(s->tasks);
	s->tasks = NULL;
}

/*
 * Append the threads of @fresh (@nr, referenced, freed here) not yet in
 * s->tasks, which stays sorted up to the old count: the new ones are at
 * [old count, s->nr_tasks) until embm_sort_tasks().  The references of
 * the others are put, and of all of them on -ENOMEM.
 */
static int embm_merge_tasks(struct embm_sampler *s, struct task_struct **fresh,
			    unsigned int nr)
{
	struct task_struct **all;
	unsigned int i, n = s->nr_tasks;

	all = kvrealloc(s->tasks, array_size(s->nr_tasks + nr, sizeof(*all)),
			GFP_KERNEL_ACCOUNT);
	if (!all) {
		while (nr)
			put_task_struct(fresh[--nr]);
		kvfree(fresh);
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		if (bsearch(&fresh[i], all, s->nr_tasks, sizeof(*all), embm_task_cmp))
			put_task_struct(fresh[i]);
		else
			all[n++] = fresh[i];
	}
	s->tasks = all;
	s->nr_tasks = n;
	kvfree(fresh);
	return 0;
}

static void embm_sort_tasks(struct embm_sampler *s)
{
	sort(s->tasks, s->nr_tasks, sizeof(*s->tasks), embm_task_cmp, NULL);
}

/* Forget the threads that exited; s->tasks stays sorted. */
static void embm_prune_tasks(struct embm_sampler *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->nr_tasks; i++) {
		if (s->tasks[i]->exit_state)
			put_task_struct(s->tasks[i]);
		else
			s->tasks[n++] = s->tasks[i];
	}
	s->nr_tasks = n;
}

/*
 * Add the target's threads that have no event of their own yet to
 * s->tasks, forget those that exited, and open nothing: for a CPU that
 * comes online.
 */
static int embm_rescan_tasks(struct embm_sampler *s)
{
	struct task_struct **fresh;
	unsigned int nr;
	int err;

	embm_prune_tasks(s);
	err = embm_collect_tasks(s->target, &fresh, &nr);
	if (err)
		return err == -ESRCH ? 0 : err;	/* gone: ksamplingd sees it */
	err = embm_merge_tasks(s, fresh, nr);
	embm_sort_tasks(s);
	return err;
}

/*
 * perf_event_open() checks each thread it opens events on; so does the
 * start, on the threads of s->tasks from @from on that are not exiting,
 * with the starter's credentials (current, with the target's
 * exec_update_lock held).
 */
static int embm_check_tasks(struct embm_sampler *s, unsigned int from)
{
	struct perf_event_attr attr;
	unsigned int i;
	int err;

	embm_perm_attr(&attr);
	for (i = from; i < s->nr_tasks; i++) {
		if (s->tasks[i]->flags & PF_EXITING)
			continue;
		err = perf_event_target_permitted(&attr, s->tasks[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Threads made while the events were being opened, by threads that had
 * none yet, inherited nothing: open theirs, until no new thread shows up
 * or EMBM_SCAN_ROUNDS rounds have passed (then status says the scan gave
 * up: threads made meanwhile by such threads may go unsampled).
 */
static int embm_follow_new_tasks(struct embm_sampler *s)
{
	struct task_struct **fresh;
	unsigned int nr, old, from;
	int round, cpu, err;

	for (round = 0; round < EMBM_SCAN_ROUNDS; round++) {
		err = embm_collect_tasks(s->target, &fresh, &nr);
		if (err)
			return err == -ESRCH ? 0 : err;	/* gone: ksamplingd sees it */
		old = s->nr_tasks;
		err = embm_merge_tasks(s, fresh, nr);
		if (err)
			return err;
		if (s->nr_tasks == old)
			return 0;
		err = embm_check_tasks(s, old);
		if (err)
			return err;
		for_each_possible_cpu(cpu) {
			if (!s->cpu[cpu].rb)
				continue;
			from = s->cpu[cpu].nr_events;
			err = embm_open_cpu(s, cpu, old);
			if (err && err != -ENODEV)
				return err;
			embm_enable_cpu(s, cpu, from);
		}
		embm_sort_tasks(s);
	}
	pr_warn("gave up following new threads of %d after %d rounds\n",
		pid_vnr(s->target), EMBM_SCAN_ROUNDS);
	mutex_lock(&s->lock);
	s->status.scan_gave_up++;
	mutex_unlock(&s->lock);
	return 0;
}

/*
 * The target's threads at start: refused past max_events before they are
 * listed (a thread needs at least one event on each online CPU), checked
 * one by one as perf_event_open() would, and the exec id they share kept
 * for embm_task_still_allowed().  The starter's context, with the
 * target's exec_update_lock held.
 */
static int embm_start_tasks(struct embm_sampler *s)
{
	struct task_struct *leader;
	unsigned int i, threads;
	int err;

	rcu_read_lock();
	leader = pid_task(s->target, PIDTYPE_TGID);
	threads = leader ? get_nr_threads(leader) : 0;
	rcu_read_unlock();
	if ((u64)threads * num_online_cpus() > s->cfg.max_events)
		return -E2BIG;

	err = embm_collect_tasks(s->target, &s->tasks, &s->nr_tasks);
	if (err)
		return err;
	embm_sort_tasks(s);
	err = embm_check_tasks(s, 0);
	if (err)
		goto out_put;
	err = -ESRCH;
	for (i = 0; i < s->nr_tasks; i++) {
		if (!(s->tasks[i]->flags & PF_EXITING)) {
			s->exec_id = s->tasks[i]->self_exec_id;
			err = 0;
			break;
		}
	}
	if (err)
		goto out_put;
	s->via_ptrace = !perfmon_capable();
	return 0;

out_put:
	embm_put_tasks(s);
	return err;
}

static void embm_close_all(struct embm_sampler *s)
{
	unsigned int i;
	int cpu;

	mutex_lock(&s->lock);
	/*
	 * Stop every event and take what they wrote, then read the final
	 * counts while every thread's events still exist: the samples and
	 * the counts are then of the same events.
	 */
	for_each_possible_cpu(cpu) {
		for (i = 0; i < s->cpu[cpu].nr_events; i++)
			perf_kernel_counter_enable(s->cpu[cpu].evs[i].event, false);
	}
	for_each_possible_cpu(cpu) {
		if (s->cpu[cpu].rb)
			embm_drain_cpu(s, cpu);
	}
	embm_read_kinds(s, true);
	for_each_possible_cpu(cpu)
		embm_close_cpu(s, cpu, true);
	embm_count_events(s);
	mutex_unlock(&s->lock);
}

/*
 * Try one source: its descriptors, then every event on every online CPU.
 * On failure everything opened is closed and @why says why.
 */
static int embm_try_source(struct embm_sampler *s, const struct embm_source *src,
			   const char **why)
{
	struct embm_source_args args = {
		.period		= s->cfg.period,
		.store_period	= s->cfg.store_period,
		.ldlat		= s->cfg.ldlat,
	};
	int cpu, d, err;
	bool direct;

	s->src = src;
	s->nr_descs = 0;
	s->direct = false;
	memset(s->closed, 0, sizeof(s->closed));
	memset(s->status.kind, 0, sizeof(s->status.kind));
	memset(s->throttled_ns, 0, sizeof(s->throttled_ns));
	s->status.nr_kinds = 0;
	err = src->setup(&args, s->descs, why);
	if (err < 0)
		return err;
	if (WARN_ON_ONCE(!err || err > EMBM_MAX_EVENTS || s->descs[err - 1].lead)) {
		*why = "its descriptors are malformed";
		return -EINVAL;
	}
	s->nr_descs = err;
	for (d = 0; d < s->nr_descs; d++) {
		/* A leader counts, and leads one sampling kind. */
		if (WARN_ON_ONCE(s->descs[d].lead && (s->descs[d].attr.sample_type ||
						      s->descs[d + 1].lead))) {
			*why = "its descriptors are malformed";
			return -EINVAL;
		}
		/* embm's permission checks would not be perf's for it. */
		if (WARN_ON_ONCE(!embm_source_attr_ok(&s->descs[d].attr))) {
			*why = "its attributes need checks embm does not make";
			return -EINVAL;
		}
		/*
		 * Large PEBS would not call embm's handler: software only.
		 * The permission checks go by the sample_type: it must say
		 * that the samples disclose physical addresses.
		 */
		direct = s->descs[d].direct;
		if (WARN_ON_ONCE(direct && (s->descs[d].lead ||
					    s->descs[d].attr.type != PERF_TYPE_SOFTWARE ||
					    !(s->descs[d].attr.sample_type &
					      PERF_SAMPLE_PHYS_ADDR)))) {
			*why = "its descriptors are malformed";
			return -EINVAL;
		}
		s->direct |= direct;
		s->status.kind[d].name = s->descs[d].name;
		s->status.kind[d].lead = s->descs[d].lead;
		s->status.kind[d].by_count = !s->descs[d].lead &&
			!(s->descs[d].attr.sample_type & PERF_SAMPLE_PERIOD);
	}
	s->status.nr_kinds = s->nr_descs;
	s->status.period = embm_align_period(s, s->cfg.period ?: src->period);
	s->status.store_period = embm_align_period(s, s->cfg.store_period ?: src->store_period);
	s->status.period_start = s->status.period;
	s->status.count_read_every_ms = EMBM_READ_MS;
	s->status.period_max = s->status.period;
	s->base_period = s->status.period;
	s->base_store = s->status.store_period;

	for_each_online_cpu(cpu) {
		err = embm_open_cpu(s, cpu, 0);
		if (err == -ENODEV) {
			/* It went offline meanwhile: ksamplingd follows it. */
			mutex_lock(&s->lock);
			embm_close_cpu(s, cpu, false);
			mutex_unlock(&s->lock);
			err = 0;
		}
		if (err)
			break;
	}
	if (!err) {
		mutex_lock(&s->lock);
		embm_count_events(s);
		mutex_unlock(&s->lock);
		return 0;
	}
	embm_close_all(s);
	cpumask_clear(&s->status.cpus);
	switch (err) {
	case -ENOENT:
	case -ENODEV:
		*why = "no PMU takes its events";
		return -EOPNOTSUPP;
	case -EOPNOTSUPP:
	case -EINVAL:
	case -ENODATA:
		*why = "the PMU refuses its attributes";
		return -EOPNOTSUPP;
	case -E2BIG:
		*why = "it needs more events than max_events";
		return err;
	case -EPERM:
		*why = "its ring buffers pass the starter's mlock limit";
		return err;
	default:
		*why = "its events could not be created";
		return err;
	}
}

static int embm_choose_source(struct embm_sampler *s)
{
	char *why = s->status.why;
	size_t room = sizeof(s->status.why);
	const char *reason;
	int i, err = -EOPNOTSUPP, len = 0;

	if (s->cfg.source != EMBM_SRC_AUTO) {
		err = embm_try_source(s, embm_sources[s->cfg.source], &reason);
		scnprintf(why, room, "forced: %s (%s)", s->src->name, reason);
		return err;
	}
	for (i = 0; i < EMBM_NR_SOURCES; i++) {
		err = embm_try_source(s, embm_sources[i], &reason);
		len += scnprintf(why + len, room - len, "%s%s: %s", i ? "; " : "auto: ",
				 embm_sources[i]->name, reason);
		if (!err)
			return 0;
		if (err != -EOPNOTSUPP && err != -EINVAL)
			return err;	/* -ENOMEM and the like: do not hide them */
	}
	return err;
}

static void embm_sampler_free(struct embm_sampler *s)
{
	embm_mlock_release(&s->mlock);
	free_cpumask_var(s->cpus_gone);
	free_cpumask_var(s->cpus_new);
	kfree(s->scratch);
	kfree(s->published);
	kvfree(s->readings);
	kfree(s->cpu);
	xa_destroy(&s->ids);
	xa_destroy(&s->throttles);
	mutex_destroy(&s->lock);
	mem_cgroup_put(s->memcg);
	kfree(s);
}

/**
 * embm_sampler_start() - open the events and start ksamplingd
 * @target: thread-group pid of the target, NULL for every process; the
 *	    caller keeps its reference valid until embm_sampler_stop()
 * @cgroup: with @target NULL, sample only the tasks of this cgroup (CPU-wide
 *	    events, as PERF_FLAG_PID_CGROUP makes); the caller keeps its
 *	    reference likewise
 * @owner:  thread-group pid of the starter, likewise; the session ends
 *	    when it exits
 * @cfg:    the knobs
 * @st:     where the results go; the caller keeps it until after the stop
 * @status: on failure, the sampler's status, with why no source works in
 *	    ->why
 * @exited: called once, by ksamplingd, when the target or the starter
 *	    exits; see embm_exit_fn
 * @data:   its argument
 *
 * The ring buffers are charged to current, the starter (embm_mlock_charge()).
 * The caller serialises starts and stops.
 *
 * Context: process.
 * Return: the sampler; ERR_PTR(-EOPNOTSUPP) when no source (or not the
 * forced one) works here; ERR_PTR(-EINVAL) for a knob the forced source
 * refuses; ERR_PTR(-E2BIG) past max_events; ERR_PTR(-EPERM) past the
 * starter's mlock limit; ERR_PTR(-EACCES) (or an LSM's errno) if perf
 * would refuse one of the target's threads, or the reading of samples;
 * ERR_PTR(-ESRCH) if the target went away; ERR_PTR(-EAGAIN) if its
 * threads could not be listed; ERR_PTR(-EINTR) if the starter was killed
 * meanwhile; ERR_PTR(-ENOMEM).
 */
struct embm_sampler *embm_sampler_start(struct pid *target,
					struct cgroup_subsys_state *cgroup,
					struct pid *owner,
					const struct embm_config *cfg,
					struct embm_stats *st,
					struct embm_sampler_status *status,
					embm_exit_fn exited, void *data)
{
	struct embm_sampler *s;
	int cpu, err;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->memcg = get_mem_cgroup_from_current();
	mutex_init(&s->lock);
	spin_lock_init(&s->pub_lock);
	xa_init(&s->ids);
	xa_init(&s->throttles);
	embm_mlock_init(&s->mlock);
	s->exited_fn = exited;
	s->exited_data = data;
	s->target = target;
	s->cgroup = cgroup;
	s->owner = owner;
	s->cfg = *cfg;
	s->st = st;
	err = -ENOMEM;
	s->cpu = kcalloc(nr_cpu_ids, sizeof(*s->cpu), GFP_KERNEL_ACCOUNT);
	s->scratch = kmalloc(EMBM_SCRATCH, GFP_KERNEL_ACCOUNT);
	s->published = kzalloc(sizeof(*s->published), GFP_KERNEL_ACCOUNT);
	if (!s->cpu || !s->scratch || !s->published ||
	    !zalloc_cpumask_var(&s->cpus_new, GFP_KERNEL_ACCOUNT) ||
	    !zalloc_cpumask_var(&s->cpus_gone, GFP_KERNEL_ACCOUNT))
		goto out_free;
	if (s->target) {
		err = embm_start_tasks(s);
		if (err)
			goto out_free;
	}

	/* Not started yet: hotplug marks CPUs from here on, without waking it. */
	s->thread = kthread_create(ksamplingd, s, "ksamplingd");
	if (IS_ERR(s->thread)) {
		err = PTR_ERR(s->thread);
		goto out_put_tasks;
	}
	get_task_struct(s->thread);
	spin_lock(&embm_active_lock);
	WARN_ON_ONCE(embm_active);	/* the caller serialises sessions */
	embm_active = s;
	spin_unlock(&embm_active_lock);

	err = embm_choose_source(s);
	if (err)
		goto out_unpublish;
	s->status.source = s->src;
	for_each_possible_cpu(cpu)
		embm_enable_cpu(s, cpu, 0);
	if (s->target) {
		err = embm_follow_new_tasks(s);
		if (err)
			goto out_close;
	}
	mutex_lock(&s->lock);
	embm_count_events(s);
	mutex_unlock(&s->lock);
	embm_publish_status(s);

	spin_lock(&embm_active_lock);
	s->running = true;
	spin_unlock(&embm_active_lock);
	wake_up_process(s->thread);
	return s;

out_close:
	embm_close_all(s);
out_unpublish:
	spin_lock(&embm_active_lock);
	embm_active = NULL;
	spin_unlock(&embm_active_lock);
	kthread_stop_put(s->thread);	/* never woken: it exits at once */
out_put_tasks:
	embm_put_tasks(s);
out_free:
	*status = s->status;
	embm_sampler_free(s);
	return ERR_PTR(err);
}

/**
 * embm_sampler_read_status() - the sampler's status, as last published
 * @s:	    a running sampler
 * @status: filled in
 *
 * ksamplingd publishes its status after each round, every EMBM_DRAIN_MS
 * or so; the copy may be that much older than the results.
 *
 * Context: process or atomic; takes the sampler's pub_lock (a spinlock,
 * held only for the copy).  The caller keeps @s from being stopped
 * meanwhile.
 */
void embm_sampler_read_status(struct embm_sampler *s,
			      struct embm_sampler_status *status)
{
	spin_lock(&s->pub_lock);
	*status = *s->published;
	spin_unlock(&s->pub_lock);
}

/**
 * embm_sampler_stop() - stop ksamplingd, drain and release everything
 * @s:	    from embm_sampler_start(); freed
 * @status: filled in with the final status
 *
 * Context: process; the caller serialises starts and stops.
 */
void embm_sampler_stop(struct embm_sampler *s, struct embm_sampler_status *status)
{
	spin_lock(&embm_active_lock);
	embm_active = NULL;
	spin_unlock(&embm_active_lock);

	kthread_stop(s->thread);
	mutex_lock(&s->lock);
	s->status.kthread_ns = s->thread->se.sum_exec_runtime;
	mutex_unlock(&s->lock);

	/*
	 * A queue's wake may still come, until its events are released and
	 * the queue freed (embm_direct_free() waits for it): the reference
	 * keeps the task it wakes.
	 */
	embm_close_all(s);
	put_task_struct(s->thread);
	embm_put_tasks(s);
	*status = s->status;
	embm_sampler_free(s);
}

/* Follow CPU hotplug.  Process context, at boot. */
static int __init embm_sampler_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "mm/embm:online",
					embm_cpu_online, embm_cpu_offline);
	if (ret < 0) {
		pr_err("cannot follow CPU hotplug: %d\n", ret);
		return ret;
	}
	return 0;
}
late_initcall(embm_sampler_init);

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/sampler-kunit.h"
#endif
