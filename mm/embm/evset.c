// SPDX-License-Identifier: GPL-2.0
/*
 * embm: per-CPU event sets
 *
 * At session start embm opens a source's events on every online CPU with
 * perf_event_create_kernel_counter(): one per CPU and event kind for a
 * system-wide session, one per CPU, event kind and thread (with inherit,
 * so later threads and children are followed) for a process.  All events
 * of a CPU write into that CPU's ring buffer (perf_kernel_rb_attach()),
 * or, direct ones (direct.c), their samples into its queue.  Events are
 * created disabled and enabled together with everything they handed down
 * (perf_kernel_counter_enable()): a thread forked in between would
 * otherwise inherit "off" for good.
 *
 * The starter opens the events, then ksamplingd, for CPUs that come
 * online: the CPU hotplug callbacks here only mark CPUs and wake it.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/slab.h>

#include "direct.h"
#include "perm.h"
#include "sampler-internal.h"

#define EMBM_QUEUE_RING_PAGES	64	/* a direct queue at most as for a ring of so many */
#define EMBM_QUEUE_BURST	1024	/* a full queue takes at least 4 drains of embm_emu */

/*
 * The sampler, for the CPU hotplug callbacks: they only mark CPUs and wake
 * ksamplingd.  embm_active_lock protects embm_active and its ->running; it
 * is held only for that.  (Not cpus_read_lock(): creating and releasing
 * perf events takes it too, through static keys, and nesting it would
 * deadlock against a waiting hotplug writer.)
 */
static DEFINE_SPINLOCK(embm_active_lock);
static struct embm_sampler *embm_active;

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
 * A wake of one of the events writing into a CPU's ring buffer: perf's
 * wakeup of a buffer (its watermark, half the buffer, passed) wakes the
 * waiters of every event attached to it (ring_buffer_wakeup()), but so
 * does the exit of each of a target's threads and inherited children
 * (perf_event_exit_event()), at a rate the sampled process sets: wake
 * ksamplingd only when the buffer is half full, or when the target has
 * exited (its last thread's exit wakes its own events: ksamplingd ends
 * the session now, not at its next round, up to EMBM_WAKE_MAX_US away),
 * and once the session runs (before, it has not started, and the start
 * wakes it).
 *
 * Context: the wakeup's, an irq_work (hard IRQ), or a process; with the
 * wait queue's lock held, IRQs off: does not sleep.
 */
static int embm_ring_woken(struct wait_queue_entry *wq, unsigned int mode, int sync, void *key)
{
	struct embm_cpu *c = container_of(wq, struct embm_cpu, wake);
	struct embm_sampler *s = wq->private;

	if (READ_ONCE(s->running) && (embm_ring_half_full(s, c) || embm_pid_gone(s->target)))
		wake_up_process(s->thread);
	return 0;
}

/*
 * Have @event, one writing into @c's buffer, wake ksamplingd when perf
 * wakes the buffer's readers (each half of the buffer written, counted
 * from the last wake, whatever the reader took since) and the buffer is
 * half full: one event a CPU suffices (above).  Undone by
 * embm_ring_unwatch() before @event is released.
 */
static void embm_ring_watch(struct embm_sampler *s, struct embm_cpu *c, struct perf_event *event)
{
	init_waitqueue_func_entry(&c->wake, embm_ring_woken);
	c->wake.private = s;
	add_wait_queue(&event->waitq, &c->wake);
	c->woken_by = event;
}

/*
 * Stop @c's buffer waking ksamplingd: a wake running now is over when
 * this returns (the wait queue's lock).  The thread it wakes stays
 * referenced until after the events are released (embm_sampler_stop()).
 */
static void embm_ring_unwatch(struct embm_cpu *c)
{
	remove_wait_queue(&c->woken_by->waitq, &c->wake);
	c->woken_by = NULL;
}

/*
 * Create descriptor @d's event on @cpu for @task (NULL: every task), in
 * @leader's group if not NULL, disabled, with the period in force.  A
 * counting leader has no period.  A direct event has embm's overflow
 * handler, which its children inherit.
 */
static struct perf_event *embm_create_event(struct embm_sampler *s, struct embm_cpu *c,
					    int d, int cpu, struct task_struct *task,
					    struct perf_event *leader)
{
	const struct embm_event_desc *desc = &s->descs[d];
	perf_overflow_handler_t handler = desc->direct ? embm_direct_overflow : NULL;
	void *context = desc->direct ? embm_direct_context(c->dq, d) : NULL;
	struct perf_event_attr attr = desc->attr;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.inherit = !!task;
	if (!desc->lead)
		attr.sample_period = desc->store ? s->status.store_period : s->status.period;
	if (s->cgroup)
		return perf_event_create_kernel_cgroup(&attr, cpu, s->cgroup, leader,
						       handler, context);
	return perf_event_create_kernel_group(&attr, cpu, task, leader, handler, context);
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
	struct rw_semaphore *exec_lock = NULL;
	struct perf_event *event;
	int err = 0;

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
			goto out_unlock;
		}
	}
	event = embm_create_event(s, c, d, cpu, task, leader);
	if (IS_ERR(event)) {
		err = PTR_ERR(event);
		if (task && err == -ESRCH)
			err = 0;
		goto out_unlock;
	}
	if (!s->descs[d].lead) {
		err = perf_kernel_rb_attach(event, c->rb);
		if (err)
			goto out_release;
	}
	if (!s->running && !s->nr_events) {
		err = security_perf_event_read(event);
		if (err)
			goto out_release;
	}
	err = xa_err(xa_store(&s->ids, event->id, xa_mk_value(d), GFP_KERNEL_ACCOUNT));
	if (err)
		goto out_release;
	/* Last: nothing fails after it, so no path releases it watched. */
	if (!s->descs[d].lead && !c->woken_by)
		embm_ring_watch(s, c, event);

	c->evs[c->nr_events++] = (struct embm_ev){
		.event = event, .id = event->id, .late = s->running,
	};
	s->nr_events++;
	*made = event;
	goto out_unlock;

out_release:
	perf_event_release_kernel(event);
out_unlock:
	if (exec_lock)
		up_read(exec_lock);
	return err;
}

/* Release the event embm_open_one() made last on @c. */
static void embm_drop_last(struct embm_sampler *s, struct embm_cpu *c)
{
	struct embm_ev *ev = &c->evs[--c->nr_events];

	if (ev->event == c->woken_by)
		embm_ring_unwatch(c);
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
	return embm_ring_pages(s) + 1;
}

/*
 * Make @cpu's direct queue, if the source has direct events, and its ring
 * buffer, charged to the starter's mlock limit (-EPERM past it), unless
 * they exist.  They stay until __embm_close_cpu(), on failure too.
 */
static int embm_cpu_buffers(struct embm_sampler *s, struct embm_cpu *c, int cpu)
{
	int err;

	if (s->direct && !c->dq) {
		/*
		 * Half the ring's memory for page faults: four times the
		 * samples it holds records of them (64 bytes), a second
		 * thread faulting on the CPU while ksamplingd waits for it
		 * filled a queue of as many.  For a PMU's (full entries of
		 * 20 bytes), one sample for each 64 bytes of the ring (its
		 * records take 80), three eighths of its memory, and at
		 * least EMBM_QUEUE_BURST: its driver's drains bring samples
		 * in bursts, with IRQs off, which ksamplingd cannot drain
		 * in between.  Not past a ring of EMBM_QUEUE_RING_PAGES
		 * (128 and 80 KiB a CPU): the queue is kernel memory, not
		 * charged to the mlock limit as the ring is.
		 */
		u64 ring = min_t(u64, s->cfg.ring_pages, EMBM_QUEUE_RING_PAGES) * PAGE_SIZE;

		c->dq = s->direct_full ?
			embm_direct_alloc(max_t(u64, ring / 64, EMBM_QUEUE_BURST), cpu, true) :
			embm_direct_alloc(ring / (2 * sizeof(u64)), cpu, false);
		if (!c->dq)
			return -ENOMEM;
		s->queue_bytes += embm_direct_bytes(c->dq);
		/* Once it runs, ksamplingd may be woken (embm_sampler_start()). */
		if (s->running)
			embm_direct_set_reader(c->dq, s->thread);
	}
	if (c->rb)
		return 0;
	err = embm_mlock_charge(&s->mlock, embm_ring_charge(s));
	if (err)
		return err;
	c->rb = perf_kernel_rb_alloc(embm_ring_pages(s), cpu);
	if (IS_ERR(c->rb)) {
		err = PTR_ERR(c->rb);
		c->rb = NULL;
		goto out_uncharge;
	}
	return 0;

out_uncharge:
	embm_mlock_uncharge(&s->mlock, embm_ring_charge(s));
	return err;
}

/*
 * Open the events of @cpu for the target's threads from index @from on
 * (system-wide: one per kind, @from is 0), making its buffer first.
 * -ENODEV: the CPU went offline meanwhile; -E2BIG: past max_events;
 * -EPERM: past the starter's mlock limit.
 */
int embm_open_cpu(struct embm_sampler *s, int cpu, unsigned int from)
{
	struct embm_cpu *c = &s->cpu[cpu];
	unsigned int t;
	int err;

	err = embm_cpu_reserve(s, c, s->nr_descs * (s->target ? s->nr_tasks - from : 1));
	if (err)
		return err;
	err = embm_cpu_buffers(s, c, cpu);
	if (err)
		return err;
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
void embm_enable_cpu(struct embm_sampler *s, int cpu, unsigned int from)
{
	unsigned int i;

	for (i = from; i < s->cpu[cpu].nr_events; i++)
		perf_kernel_counter_enable(s->cpu[cpu].evs[i].event, true);
}

/*
 * Disable (children too) and release the events of @cpu, keeping their
 * counts unless @counted (__embm_read_kinds() just read them for good), then
 * read what they wrote last, releasing included (a large-PEBS flush, say),
 * and free the buffer.  Members go before their leaders.  Caller holds
 * s->lock.
 */
void __embm_close_cpu(struct embm_sampler *s, int cpu, bool counted)
{
	struct embm_cpu *c = &s->cpu[cpu];
	unsigned int i;

	lockdep_assert_held(&s->lock);

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
	if (c->woken_by)
		embm_ring_unwatch(c);
	for (i = c->nr_events; i-- > 0; ) {
		perf_event_release_kernel(c->evs[i].event);
		cond_resched();
	}
	if (c->rb) {
		__embm_drain_cpu(s, cpu);
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

/*
 * Stop every event, drain, read the final counts and close every CPU.
 * Takes s->lock; ksamplingd is not running (the start before it runs, or
 * the stop after it stopped).
 */
void embm_close_all(struct embm_sampler *s)
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
			__embm_drain_cpu(s, cpu);
	}
	__embm_read_kinds(s);
	for_each_possible_cpu(cpu)
		__embm_close_cpu(s, cpu, true);
	__embm_count_events(s);
	mutex_unlock(&s->lock);
}

/* Caller holds s->lock. */
void __embm_count_events(struct embm_sampler *s)
{
	lockdep_assert_held(&s->lock);

	s->status.nr_events = s->nr_events;
	s->status.ring_pages_locked = s->mlock.user_pages + s->mlock.pinned_pages;
	s->status.ring_pages_max = max(s->status.ring_pages_max,
				       s->status.ring_pages_locked);
	s->status.queue_bytes_max = max(s->status.queue_bytes_max, s->queue_bytes);
}

/*
 * Let the hotplug callbacks mark CPUs for @s, without waking ksamplingd
 * yet: from here on a CPU that comes or goes is not missed.  Takes
 * embm_active_lock.
 */
void embm_hotplug_attach(struct embm_sampler *s)
{
	spin_lock(&embm_active_lock);
	WARN_ON_ONCE(embm_active);	/* the caller serialises sessions */
	embm_active = s;
	spin_unlock(&embm_active_lock);
}

/*
 * @s runs: the hotplug callbacks wake ksamplingd, and events made from
 * here on are ksamplingd's.  Takes embm_active_lock.
 */
void embm_hotplug_run(struct embm_sampler *s)
{
	spin_lock(&embm_active_lock);
	WRITE_ONCE(s->running, true);
	spin_unlock(&embm_active_lock);
}

/* No sampler follows CPU hotplug any more.  Takes embm_active_lock. */
void embm_hotplug_detach(void)
{
	spin_lock(&embm_active_lock);
	embm_active = NULL;
	spin_unlock(&embm_active_lock);
}

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

/* Follow CPU hotplug.  Process context, at boot. */
static int __init embm_hotplug_init(void)
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
late_initcall(embm_hotplug_init);
