// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the target's threads
 *
 * A process session gives each of the target's threads events of its own
 * on every CPU, with inherit, so that the threads and children they make
 * later are followed.  This file keeps the list of the threads that have
 * events of their own (struct embm_sampler.tasks, referenced, sorted by
 * address), checks them as perf_event_open() would at start, finds those
 * made meanwhile, and says whether ksamplingd may still give a thread
 * events after the start (embm_task_still_allowed()).  Process context:
 * the starter, with the target's exec_update_lock held, or ksamplingd;
 * but embm_pid_gone() (has the target exited?), which any context may ask.
 */

#include <linux/bsearch.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/pid.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "perm.h"
#include "sampler-internal.h"

#define EMBM_LIST_TRIES		4	/* tries to list a growing thread group */

/*
 * May ksamplingd still give @task events of its own?  After the start it
 * makes them (for a CPU that came online) with no credentials to check,
 * where perf_event_open() would check again: only for a task that has not
 * exec()ed since the start (perf removes its events on a set-user-ID exec)
 * and, when the start relied on ptrace access, that is still dumpable (a
 * setuid() or PR_SET_DUMPABLE withdraws that access).  Caller holds the
 * task's exec_update_lock, so no exec() comes in between.
 */
bool embm_task_still_allowed(struct embm_sampler *s, struct task_struct *task)
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

void embm_put_tasks(struct embm_sampler *s)
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

void embm_sort_tasks(struct embm_sampler *s)
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
int embm_rescan_tasks(struct embm_sampler *s)
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
 * Add the target's threads made since it was last listed to s->tasks and
 * check them as embm_check_tasks() does: they are at [old count,
 * s->nr_tasks), s->tasks is sorted up to the old count only, until
 * embm_sort_tasks().  None are added when the target is gone (ksamplingd
 * sees it).  The starter's context, with the target's exec_update_lock
 * held.
 */
int embm_add_new_tasks(struct embm_sampler *s)
{
	struct task_struct **fresh;
	unsigned int nr, old = s->nr_tasks;
	int err;

	err = embm_collect_tasks(s->target, &fresh, &nr);
	if (err)
		return err == -ESRCH ? 0 : err;	/* gone: ksamplingd sees it */
	err = embm_merge_tasks(s, fresh, nr);
	if (err)
		return err;
	return embm_check_tasks(s, old);
}

/*
 * The target's threads at start: refused past max_events before they are
 * listed (a thread needs at least one event on each online CPU), checked
 * one by one as perf_event_open() would, and the exec id they share kept
 * for embm_task_still_allowed().  The starter's context, with the
 * target's exec_update_lock held.
 */
int embm_start_tasks(struct embm_sampler *s)
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

/**
 * embm_pid_gone() - has a process exited, all its threads?
 * @tgid: its thread-group pid, or NULL for none (then false)
 *
 * Context: any (RCU).
 * Return: true once its last thread is past exit's signal->live count.
 */
bool embm_pid_gone(struct pid *tgid)
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
