// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the sampler's life: start, stop, status
 *
 * embm_sampler_start() lists the target's threads (threads.c), chooses a
 * source and opens its events on every online CPU (choose.c, evset.c),
 * follows the threads made meanwhile, and starts ksamplingd
 * (ksamplingd.c); embm_sampler_stop() stops it, drains and releases
 * everything.  Both run in process context, serialised by the caller (the
 * session's lock); sampler-internal.h has the lock rules and how the
 * sampler is cut into files.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "perm.h"
#include "sampler.h"
#include "sampler-internal.h"

#define EMBM_SCAN_ROUNDS	8	/* rounds of looking for new threads */

/*
 * Threads made while the events were being opened, by threads that had
 * none yet, inherited nothing: open theirs, until no new thread shows up
 * or EMBM_SCAN_ROUNDS rounds have passed (then status says the scan gave
 * up: threads made meanwhile by such threads may go unsampled).  The
 * starter's context, with the target's exec_update_lock held.
 */
static int embm_follow_new_tasks(struct embm_sampler *s)
{
	unsigned int old, from;
	int round, cpu, err;

	for (round = 0; round < EMBM_SCAN_ROUNDS; round++) {
		old = s->nr_tasks;
		err = embm_add_new_tasks(s);
		if (err)
			return err;
		if (s->nr_tasks == old)
			return 0;
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

/*
 * A sampler for @args, with no event and no thread yet, its memory charged
 * to the starter's memory cgroup.  Return: it, or ERR_PTR(-ENOMEM).
 */
static struct embm_sampler *embm_sampler_alloc(const struct embm_sampler_args *args)
{
	struct embm_sampler *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->memcg = get_mem_cgroup_from_current();
	mutex_init(&s->lock);
	spin_lock_init(&s->pub_lock);
	xa_init(&s->ids);
	xa_init(&s->throttles);
	embm_mlock_init(&s->mlock);
	s->exited_fn = args->exited;
	s->exited_data = args->data;
	s->target = args->target;
	s->cgroup = args->cgroup;
	s->owner = args->owner;
	s->cfg = *args->cfg;
	s->st = args->st;
	s->cpu = kcalloc(nr_cpu_ids, sizeof(*s->cpu), GFP_KERNEL_ACCOUNT);
	s->scratch = kmalloc(EMBM_SCRATCH, GFP_KERNEL_ACCOUNT);
	s->published = kzalloc(sizeof(*s->published), GFP_KERNEL_ACCOUNT);
	if (!s->cpu || !s->scratch || !s->published ||
	    !zalloc_cpumask_var(&s->cpus_new, GFP_KERNEL_ACCOUNT) ||
	    !zalloc_cpumask_var(&s->cpus_gone, GFP_KERNEL_ACCOUNT)) {
		embm_sampler_free(s);
		return ERR_PTR(-ENOMEM);
	}
	return s;
}

/**
 * embm_sampler_start() - open the events and start ksamplingd
 * @args:   the target, the knobs, where the results go, and whom to tell
 *	    of an exit: see struct embm_sampler_args
 * @status: on failure, the sampler's status, with why no source works in
 *	    ->why
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
struct embm_sampler *embm_sampler_start(const struct embm_sampler_args *args,
					struct embm_sampler_status *status)
{
	u64 *ph = args->phase_ns, t = ktime_get_ns();
	struct embm_sampler *s;
	int cpu, err;

	s = embm_sampler_alloc(args);
	if (IS_ERR(s))
		return s;
	if (s->target) {
		err = embm_start_tasks(s);
		if (err)
			goto out_free;
	}
	ph[EMBM_START_THREADS] = embm_phase_end(&t);

	/* Not started yet: hotplug marks CPUs from here on, without waking it. */
	s->thread = kthread_create(ksamplingd, s, "ksamplingd");
	if (IS_ERR(s->thread)) {
		err = PTR_ERR(s->thread);
		goto out_put_tasks;
	}
	get_task_struct(s->thread);
	embm_hotplug_attach(s);
	ph[EMBM_START_KTHREAD] = embm_phase_end(&t);

	err = embm_choose_source(s);
	if (err)
		goto out_detach;
	s->status.source = s->src;
	ph[EMBM_START_EVENTS] = embm_phase_end(&t);
	for_each_possible_cpu(cpu)
		embm_enable_cpu(s, cpu, 0);
	if (s->target) {
		err = embm_follow_new_tasks(s);
		if (err)
			goto out_close;
	}
	mutex_lock(&s->lock);
	__embm_count_events(s);
	mutex_unlock(&s->lock);
	embm_publish_status(s);
	ph[EMBM_START_ENABLE] = embm_phase_end(&t);

	embm_hotplug_run(s);
	wake_up_process(s->thread);
	return s;

out_close:
	embm_close_all(s);
out_detach:
	embm_hotplug_detach();
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
 * ksamplingd publishes its status after each round (status's wake_us
 * apart, at most 100 ms); the copy may be that much older than the
 * results.
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
 * @s:	      from embm_sampler_start(); freed
 * @status:   filled in with the final status
 * @phase_ns: filled in with the time of the stop's parts (enum
 *	      embm_phase: EMBM_END_KTHREAD and EMBM_END_CLOSE), in ns
 *
 * Context: process; the caller serialises starts and stops.
 */
void embm_sampler_stop(struct embm_sampler *s, struct embm_sampler_status *status,
		       u64 *phase_ns)
{
	u64 t = ktime_get_ns();

	embm_hotplug_detach();

	kthread_stop(s->thread);
	mutex_lock(&s->lock);
	s->status.kthread_ns = s->thread->se.sum_exec_runtime;
	mutex_unlock(&s->lock);
	phase_ns[EMBM_END_KTHREAD] = embm_phase_end(&t);

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
	phase_ns[EMBM_END_CLOSE] = embm_phase_end(&t);
}
