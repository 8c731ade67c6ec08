// SPDX-License-Identifier: GPL-2.0
/*
 * embm: who may start, end and read a session, and what its buffers cost
 *
 * embm creates kernel counters, which perf does not check.  A session
 * gets what perf_event_open(2) would give its starter for the same events,
 * through perf's own checks (perf_event_open_permitted() and
 * perf_event_target_permitted()): perf_event_paranoid, CAP_PERFMON and
 * CAP_SYS_ADMIN, the LSM hooks, and ptrace access to the target process or
 * perf_allow_cpu() for the whole system.  Ending a session and reading its
 * results take the same checks against the session's target; the process
 * that started a session may always end and read it, as the holder of a
 * perf fd may close and read it.  Ring buffers are charged to the starter
 * as perf_mmap() charges them.
 *
 * Process context throughout (ksamplingd for charges after start); the
 * checks are on current's credentials.
 */

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/embm.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/resource.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/user.h>
#include <linux/security.h>
#include <kunit/static_stub.h>

#include "perm.h"

/**
 * embm_perm_attr() - the attributes embm's permission checks are made for
 * @attr: filled in
 *
 * Every embm event samples physical addresses (PERF_SAMPLE_PHYS_ADDR) and
 * may sample the kernel, so perf_event_open() checks them with
 * perf_allow_kernel().  Nothing else in the attributes changes what perf
 * checks unless embm_source_attr_ok() refuses it: the checks made for
 * this attr are the checks perf would make for each of embm's events.
 */
void embm_perm_attr(struct perf_event_attr *attr)
{
	*attr = (struct perf_event_attr){
		.size		= sizeof(*attr),
		.sample_type	= EMBM_SAMPLE_TYPE_MAX,
	};
}

/**
 * embm_live_thread() - a thread of a process that is not exiting
 * @tgid: the process
 *
 * Permission checks look at a thread's credentials and mm; a group leader
 * that exited (pthread_exit()) has neither any more.
 *
 * Context: any but NMI.
 * Return: the thread, referenced; NULL if every thread is exiting.
 */
struct task_struct *embm_live_thread(struct pid *tgid)
{
	struct task_struct *leader, *t, *live = NULL;

	rcu_read_lock();
	leader = pid_task(tgid, PIDTYPE_TGID);
	if (leader) {
		for_each_thread(leader, t) {
			if (!(t->flags & PF_EXITING)) {
				live = get_task_struct(t);
				break;
			}
		}
	}
	rcu_read_unlock();
	return live;
}

/**
 * embm_owner_init() - remember current as a session's starter
 * @o: filled in; embm_owner_release() drops its reference
 *
 * Context: process.
 */
void embm_owner_init(struct embm_owner *o)
{
	o->pid = get_task_pid(current, PIDTYPE_TGID);
	o->euid = current_euid();
	o->exec_id = current->self_exec_id;
}

/**
 * embm_owner_release() - drop what embm_owner_init() took
 * @o: the starter, or zeroed
 *
 * Context: any but NMI.
 */
void embm_owner_release(struct embm_owner *o)
{
	put_pid(o->pid);
	o->pid = NULL;
}

/**
 * embm_owner_is_current() - is current the session's starter, as it was?
 * @o: the starter, from embm_owner_init(); the caller keeps it stable
 *
 * The process that started the session, with the same effective uid and
 * no exec() since: a starter that dropped privileges or ran another
 * program is treated as anyone else.
 *
 * Context: process.
 * Return: true if so.
 */
bool embm_owner_is_current(const struct embm_owner *o)
{
	return o->pid && o->pid == task_tgid(current) &&
	       o->exec_id == current->self_exec_id &&
	       uid_eq(o->euid, current_euid());
}

/**
 * embm_perm_may_access() - may current end or read a session?
 * @o:	    the session's starter
 * @target: the session's target process; NULL for a system-wide or
 *	    cgroup session (whose events are CPU-wide)
 *
 * Yes for its starter (embm_owner_is_current()); otherwise what starting
 * it now would take: perf's checks of the attributes, then
 * perf_allow_cpu() for CPU-wide events, ptrace access to a live thread of
 * the target (or CAP_PERFMON) for a process, and CAP_PERFMON alone once
 * the target is gone.
 *
 * Context: process; the caller keeps @o and @target stable.
 * Return: 0, -EACCES, or the error of an LSM.
 */
int embm_perm_may_access(const struct embm_owner *o, struct pid *target)
{
	struct perf_event_attr attr;
	struct task_struct *task;
	int err;

	if (embm_owner_is_current(o))
		return 0;
	embm_perm_attr(&attr);
	err = perf_event_open_permitted(&attr);
	if (err)
		return err;
	if (!target)
		return perf_event_target_permitted(&attr, NULL);
	task = embm_live_thread(target);
	if (!task)
		return perfmon_capable() ? 0 : -EACCES;
	err = perf_event_target_permitted(&attr, task);
	put_task_struct(task);
	return err;
}

/**
 * embm_mlock_init() - take the starter's mlock accounting for a session
 * @ml: zeroed; embm_mlock_release() undoes this
 *
 * Context: process, the starter.
 */
void embm_mlock_init(struct embm_mlock *ml)
{
	ml->user = get_current_user();
	if (current->mm) {
		ml->mm = current->mm;
		mmgrab(ml->mm);
	}
	ml->lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	ml->unlimited = !perf_is_paranoid() || capable(CAP_IPC_LOCK);
}

/**
 * embm_mlock_charge() - charge a ring buffer of @pages pages
 * @ml:    the session's accounting
 * @pages: data pages plus the control page
 *
 * perf_mmap()'s rule: the user's perf_mlock takes pages up to
 * perf_event_mlock_kb per online CPU; the rest goes to the starter's
 * pinned_vm, which may not pass RLIMIT_MEMLOCK without CAP_IPC_LOCK.
 *
 * Context: process (starter or ksamplingd); one caller at a time.
 * Return: 0 or -EPERM, as perf_mmap() gives.
 */
int embm_mlock_charge(struct embm_mlock *ml, unsigned long pages)
{
	unsigned long limit, locked, extra = 0;

	limit = (sysctl_perf_event_mlock >> (PAGE_SHIFT - 10)) * num_online_cpus();
	locked = min_t(unsigned long, atomic_long_read(&ml->user->perf_mlock), limit);
	if (locked + pages > limit)
		extra = locked + pages - limit;

	if (extra) {
		if (!ml->mm)
			return -EPERM;
		if (atomic64_read(&ml->mm->pinned_vm) + extra > ml->lock_limit &&
		    !ml->unlimited)
			return -EPERM;
		atomic64_add(extra, &ml->mm->pinned_vm);
		ml->pinned_pages += extra;
	}
	atomic_long_add(pages - extra, &ml->user->perf_mlock);
	ml->user_pages += pages - extra;
	return 0;
}

/**
 * embm_mlock_uncharge() - give back what a freed buffer was charged
 * @ml:    the session's accounting
 * @pages: as charged
 *
 * pinned_vm first, as it was charged last.
 *
 * Context: process (starter or ksamplingd); one caller at a time.
 */
void embm_mlock_uncharge(struct embm_mlock *ml, unsigned long pages)
{
	unsigned long pinned = min(pages, ml->pinned_pages);

	if (pinned) {
		atomic64_sub(pinned, &ml->mm->pinned_vm);
		ml->pinned_pages -= pinned;
		pages -= pinned;
	}
	pages = min(pages, ml->user_pages);
	atomic_long_sub(pages, &ml->user->perf_mlock);
	ml->user_pages -= pages;
}

/**
 * embm_perm_read_event() - the event a session's readers are checked on
 *
 * perf asks the LSMs about every read of an event's samples
 * (security_perf_event_read() in perf_mmap() and read()), on that event,
 * which carries the security label of the task that opened it.  A
 * session's results get the same question on an event of their own,
 * opened here by the starter and kept with the results until the next
 * session replaces them: asked about the same event whatever CPUs came
 * and went and after the session ended, never about one that ksamplingd
 * (the kernel's label) made.  A disabled software dummy event on the
 * starter (on a task, not a CPU: a CPU's would need perf_allow_cpu(),
 * which a user sampling their own process may not have); not inherited.
 * It counts nothing.  Like any task event it keeps perf's context-switch
 * hooks on (perf_sched_events) while it exists, and like any software
 * event perf's software-event hash lists and its type's static key
 * (perf_swevent_init()): until the next session replaces the results.
 * When the starter exits, perf detaches the event and it stays, as the
 * label's holder, until released; its reference to the starter's
 * task_struct (the event's target) keeps that too, not the task's memory.
 *
 * Context: process, the starter's (its label goes into the event).
 * Return: the event, to release with perf_event_release_kernel(), or an
 * ERR_PTR() (-ENOMEM, an LSM's errno).
 */
struct perf_event *embm_perm_read_event(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.size		= sizeof(attr),
		.config		= PERF_COUNT_SW_DUMMY,
		.disabled	= 1,
		.exclude_kernel	= 1,
		.exclude_hv	= 1,
	};

	return perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
}

/**
 * embm_perm_may_read() - may current read the results checked on @event?
 * @event: from embm_perm_read_event()
 *
 * Context: process; current's credentials.
 * Return: 0 or an LSM's errno.
 */
int embm_perm_may_read(struct perf_event *event)
{
	KUNIT_STATIC_STUB_REDIRECT(embm_perm_may_read, event);
	return security_perf_event_read(event);
}

/**
 * embm_mlock_release() - give back every charge and the references
 * @ml: from embm_mlock_init()
 *
 * Context: process.
 */
void embm_mlock_release(struct embm_mlock *ml)
{
	embm_mlock_uncharge(ml, ml->pinned_pages + ml->user_pages);
	if (ml->mm)
		mmdrop(ml->mm);
	free_uid(ml->user);
	ml->mm = NULL;
	ml->user = NULL;
}
