// SPDX-License-Identifier: GPL-2.0
/*
 * embm: session lifecycle and the embm_start(2)/embm_end(2) system calls
 *
 * One session runs at a time.  Its state lives in embm_session and every
 * transition happens under embm_lock, in process context: the system
 * calls, and the work item that ends a session whose target exited
 * (ksamplingd queues it; it never takes embm_lock itself, since
 * embm_session_end() holds it while stopping ksamplingd).
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/capability.h>
#include <linux/ktime.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/workqueue.h>
#include <uapi/linux/embm.h>

#include "embm.h"

/* Serialises session start and end; protects embm_session. Process context. */
DEFINE_MUTEX(embm_lock);

struct embm_session embm_session = {
	.state		= EMBM_IDLE,
	.target_nr	= EMBM_PID_SYSTEM,
	.node		= NUMA_NO_NODE,
};

static const char *const embm_state_names[] = {
	[EMBM_IDLE]	= "idle",
	[EMBM_RUNNING]	= "running",
	[EMBM_EXITED]	= "exited",
	[EMBM_DONE]	= "done",
};

const char *embm_state_name(enum embm_state state)
{
	return state < ARRAY_SIZE(embm_state_names) ? embm_state_names[state] : "?";
}

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
 * target (-ESRCH, -EINVAL for a kernel thread, -EACCES), whether a session
 * runs (-EBUSY), then the sampler (-EOPNOTSUPP: no source, or not the
 * forced one, works here; -EINVAL: a knob the forced source refuses).
 * The results of the previous session are dropped when this one starts,
 * not before.
 *
 * Context: process; takes embm_lock.
 * Return: 0 or a negative errno.
 */
int embm_session_start(pid_t pid, int node)
{
	struct embm_sampler *sampler;
	struct embm_config cfg;
	struct embm_stats *st;
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

	mutex_lock(&embm_knobs_lock);
	cfg = embm_knobs;
	mutex_unlock(&embm_knobs_lock);

	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING) {
		err = -EBUSY;
		goto out_unlock;
	}
	st = embm_stats_alloc(cfg.hot_pages);
	if (!st) {
		err = -ENOMEM;
		goto out_unlock;
	}
	embm_stats_classify_nodes(st);
	sampler = embm_sampler_start(target, embm_session.gen + 1, &cfg, st);
	if (IS_ERR(sampler)) {
		err = PTR_ERR(sampler);
		pr_info("session not started: %d (%s)\n", err, st->why);
		embm_stats_free(st);
		goto out_unlock;
	}

	embm_stats_free(embm_session.stats);
	put_pid(embm_session.target);
	embm_session.gen++;
	embm_session.stats = st;
	embm_session.sampler = sampler;
	embm_session.config = cfg;
	embm_session.target = target;
	embm_session.target_nr = target ? pid_vnr(target) : EMBM_PID_SYSTEM;
	target = NULL;
	embm_session.node = node;
	embm_session.start_ns = ktime_get_ns();
	embm_session.stop_ns = 0;
	embm_session.state = EMBM_RUNNING;
	pr_info("session started: target %d, node %d, source %s (%s)\n",
		embm_session.target_nr, node, st->source->name, st->why);

out_unlock:
	mutex_unlock(&embm_lock);
	put_pid(target);
	return err;
}

/* Stop the running session; it becomes @state.  Caller holds embm_lock. */
static void __embm_session_stop(enum embm_state state)
{
	lockdep_assert_held(&embm_lock);

	embm_sampler_stop(embm_session.sampler);
	embm_session.sampler = NULL;
	embm_session.stop_ns = ktime_get_ns();
	embm_session.state = state;
	embm_print_summary(&embm_session);
}

static atomic_long_t embm_exited_gen;

static void embm_exit_workfn(struct work_struct *work)
{
	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING &&
	    embm_session.gen == atomic_long_read(&embm_exited_gen))
		__embm_session_stop(EMBM_EXITED);
	mutex_unlock(&embm_lock);
}

static DECLARE_WORK(embm_exit_work, embm_exit_workfn);

/**
 * embm_session_target_exited() - end the session whose target exited
 * @gen: the session's generation, so that a late call ends nothing else
 *
 * Context: ksamplingd; does not sleep or take embm_lock.
 */
void embm_session_target_exited(unsigned long gen)
{
	atomic_long_set(&embm_exited_gen, gen);
	schedule_work(&embm_exit_work);
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
 * Ends a running session (ksamplingd stops, what is left in the buffers
 * is counted, the events are released and a summary goes to the kernel
 * log), or acknowledges one that ended when its target exited.  The
 * results stay readable until the next embm_start().
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
		__embm_session_stop(EMBM_DONE);
	else
		embm_session.state = EMBM_DONE;

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

static int __init embm_init(void)
{
	int err;

	err = embm_sampler_init();
	if (!err)
		err = embm_sysfs_init();
	if (!err)
		err = embm_proc_init();
	if (err)
		pr_err("cannot initialise: %d\n", err);
	return err;
}
late_initcall(embm_init);
