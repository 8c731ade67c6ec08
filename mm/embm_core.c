// SPDX-License-Identifier: GPL-2.0
/*
 * embm: session lifecycle and the embm_start(2)/embm_end(2) system calls
 *
 * One session runs at a time.  Its state lives in embm_session and every
 * transition happens under embm_lock, in process context.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/capability.h>
#include <linux/ktime.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/syscalls.h>
#include <uapi/linux/embm.h>

#include "embm.h"

/* Serialises session start and end; protects embm_session. Process context. */
DEFINE_MUTEX(embm_lock);

struct embm_session embm_session = {
	.state		= EMBM_IDLE,
	.target_nr	= EMBM_PID_SYSTEM,
	.node		= NUMA_NO_NODE,
};

/**
 * embm_check_node() - validate the node argument of embm_start()
 * @node: NUMA_NO_NODE, or the node to study
 *
 * Context: any.
 * Return: 0 if @node is NUMA_NO_NODE or an online node with memory,
 * -EINVAL otherwise.
 */
int embm_check_node(int node)
{
	if (node == NUMA_NO_NODE)
		return 0;
	if (node < 0 || node >= MAX_NUMNODES || !node_state(node, N_MEMORY))
		return -EINVAL;
	return 0;
}

/*
 * Resolve the pid argument of embm_start() to a thread-group pid, with the
 * checks perf_event_open() makes before it samples another task.  *@target
 * is NULL for a system-wide session, else a reference the caller puts.
 */
static int embm_get_target(pid_t pid, struct pid **target)
{
	struct task_struct *task;
	int err = 0;

	*target = NULL;
	if (pid == EMBM_PID_SYSTEM)
		return 0;

	if (pid == EMBM_PID_SELF)
		task = get_task_struct(current);
	else
		task = find_get_task_by_vpid(pid);
	if (!task)
		return -ESRCH;

	if (task->flags & PF_EXITING) {
		err = -ESRCH;
		goto out_put_task;
	}
	if (task->flags & PF_KTHREAD) {
		err = -EINVAL;
		goto out_put_task;
	}
	if (!ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS)) {
		err = -EACCES;
		goto out_put_task;
	}
	*target = get_task_pid(task, PIDTYPE_TGID);

out_put_task:
	put_task_struct(task);
	return err;
}

/**
 * embm_session_start() - start a sampling session
 * @pid:  EMBM_PID_SYSTEM, EMBM_PID_SELF or a process id
 * @node: NUMA_NO_NODE or the node under study
 *
 * Checks come in this order: arguments (-EINVAL), capability (-EPERM),
 * target (-ESRCH, -EINVAL for a kernel thread, -EACCES), then whether a
 * session runs (-EBUSY).  The results of an ended session are dropped.
 *
 * Context: process; takes embm_lock.
 * Return: 0 or a negative errno.
 */
int embm_session_start(pid_t pid, int node)
{
	struct pid *target;
	int err;

	if (pid < EMBM_PID_SYSTEM)
		return -EINVAL;
	err = embm_check_node(node);
	if (err)
		return err;
	if (!perfmon_capable())
		return -EPERM;
	err = embm_get_target(pid, &target);
	if (err)
		return err;

	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING) {
		err = -EBUSY;
		goto out_unlock;
	}

	put_pid(embm_session.target);
	embm_session.target = target;
	embm_session.target_nr = target ? pid_vnr(target) : EMBM_PID_SYSTEM;
	target = NULL;
	embm_session.node = node;
	embm_session.start_ns = ktime_get_ns();
	embm_session.stop_ns = 0;
	embm_session.state = EMBM_RUNNING;
	pr_info("session started: target %d, node %d\n",
		embm_session.target_nr, node);

out_unlock:
	mutex_unlock(&embm_lock);
	put_pid(target);
	return err;
}

/* Is @pid, as embm_end() got it, the target of the session? */
static bool __embm_session_matches(pid_t pid)
{
	lockdep_assert_held(&embm_lock);

	if (pid == EMBM_PID_SYSTEM)
		return !embm_session.target;
	if (!embm_session.target)
		return false;
	if (pid == EMBM_PID_SELF)
		return embm_session.target == task_tgid(current);
	/* Still answers after the target was reaped: the pid keeps its numbers. */
	return pid_vnr(embm_session.target) == pid;
}

/**
 * embm_session_end() - end the session sampling @pid
 * @pid: the pid given to embm_start(), as the caller sees it
 *
 * Ends a running session, or acknowledges one that ended when its target
 * exited.  The results stay readable until the next embm_start().
 *
 * Context: process; takes embm_lock.
 * Return: 0; -EINVAL for a bad @pid; -EPERM without CAP_PERFMON; -ENOENT
 * when no session is running or awaiting embm_end(); -ESRCH when the
 * session is not for @pid.
 */
int embm_session_end(pid_t pid)
{
	int err = 0;

	if (pid < EMBM_PID_SYSTEM)
		return -EINVAL;
	if (!perfmon_capable())
		return -EPERM;

	mutex_lock(&embm_lock);
	if (embm_session.state != EMBM_RUNNING &&
	    embm_session.state != EMBM_EXITED) {
		err = -ENOENT;
		goto out_unlock;
	}
	if (!__embm_session_matches(pid)) {
		err = -ESRCH;
		goto out_unlock;
	}

	if (embm_session.state == EMBM_RUNNING)
		embm_session.stop_ns = ktime_get_ns();
	embm_session.state = EMBM_DONE;
	pr_info("session ended: target %d, %llu ms\n", embm_session.target_nr,
		div_u64(embm_session.stop_ns - embm_session.start_ns,
			NSEC_PER_MSEC));

out_unlock:
	mutex_unlock(&embm_lock);
	return err;
}

/**
 * sys_embm_start - start sampling where a process's memory accesses go
 * @pid:  process to sample: -1 every process, 0 the caller, >0 that process
 * @node: node under study (usually the CXL node), or -1 for none
 *
 * Return: 0 or a negative errno; see embm_session_start().
 */
SYSCALL_DEFINE2(embm_start, pid_t, pid, int, node)
{
	return embm_session_start(pid, node);
}

/**
 * sys_embm_end - stop the session started for @pid and keep its results
 * @pid: the pid given to embm_start()
 *
 * Return: 0 or a negative errno; see embm_session_end().
 */
SYSCALL_DEFINE1(embm_end, pid_t, pid)
{
	return embm_session_end(pid);
}
