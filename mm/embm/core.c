// SPDX-License-Identifier: GPL-2.0
/*
 * embm: session lifecycle and the embm_start(2)/embm_end(2) system calls
 *
 * One session runs at a time.  Its state is private to this file, in
 * embm_session, and every transition happens under embm_lock, in process
 * context: the system calls, and the work item that ends a session whose
 * target exited (the sampler's exit callback queues it; ksamplingd never
 * takes embm_lock, since a stop holds it while stopping ksamplingd).
 * Readers (/proc/embm) get a struct embm_view, made under embm_lock, and
 * format it after dropping the lock; so does the kernel-log summary.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/ktime.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/pid_namespace.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/workqueue.h>
#include <uapi/linux/embm.h>

#include "knobs.h"
#include "perm.h"
#include "report.h"
#include "sampler.h"
#include "session.h"
#include "stats.h"
#include "tier.h"

/**
 * struct embm_session - the one sampling session
 * @state:	see enum embm_state.
 * @gen:	bumped at each start; work queued for an older session
 *		checks it and does nothing.
 * @target:	thread-group pid of the target process; NULL for
 *		system-wide and cgroup sessions.  Referenced while set.
 * @cgroup:	the perf_event cgroup of a cgroup session (EMBM_FLAG_CGROUP),
 *		referenced; NULL otherwise.
 * @named:	the pid embm_start() was given (a thread of @target, or
 *		@target itself), so that embm_end() takes it too; referenced.
 * @owner:	the process that started the session, as it was then.
 * @target_nr:	the target's pid as the starter saw it; -1 system-wide.
 * @ended_by:	"-" while running, then "embm_end", "target_exit" or
 *		"starter_exit".
 * @node:	the node under study, or NUMA_NO_NODE.
 * @start_ns:	ktime_get_ns() at start.
 * @stop_ns:	ktime_get_ns() at end, 0 while running.
 * @config:	the knobs as the session started with them.
 * @sampler:	ksamplingd and its events while running, else NULL.
 * @status:	room for the sampler's status, filled in when it stops;
 *		kept with @stats.
 * @stats:	the results, referenced; kept after the end until the next
 *		start.
 * @read_event:	the event the LSMs are asked about for each reader
 *		(embm_perm_read_event()), made by the starter; kept with
 *		@stats.
 * @phase_ns:	the time of the parts of the start and of the end (enum
 *		embm_phase), in ns; the end's are 0 while running.
 *
 * All fields are protected by embm_lock.
 */
struct embm_session {
	enum embm_state state;
	unsigned long gen;
	struct pid *target;
	struct cgroup_subsys_state *cgroup;
	struct pid *named;
	struct embm_owner owner;
	pid_t target_nr;
	const char *ended_by;
	int node;
	u64 start_ns;
	u64 stop_ns;
	struct embm_config config;
	struct embm_sampler *sampler;
	struct embm_sampler_status *status;
	struct embm_stats *stats;
	struct perf_event *read_event;
	u64 phase_ns[EMBM_NR_PHASES];
};

/* Serialises session start and end; protects embm_session. Process context. */
static DEFINE_MUTEX(embm_lock);

static struct embm_session embm_session = {
	.state		= EMBM_IDLE,
	.target_nr	= EMBM_PID_SYSTEM,
	.ended_by	= "-",
	.node		= NUMA_NO_NODE,
};

/*
 * Validate the node argument of embm_start(): 0 if @node is NUMA_NO_NODE
 * or an online node with memory, -EINVAL otherwise.  Any context.
 */
static int embm_check_node(int node)
{
	if (node == NUMA_NO_NODE)
		return 0;
	if (node < 0 || node >= MAX_NUMNODES || !node_state(node, N_MEMORY))
		return -EINVAL;
	return 0;
}

/*
 * Resolve the pid argument of embm_start(): *@task, referenced, is a live
 * thread of the process it names (NULL for a system-wide session): the
 * thread itself unless it is exiting.  A process whose main thread exited
 * while others run is live; one whose threads have all exited (a zombie)
 * is gone.
 */
static int embm_find_target(pid_t pid, struct task_struct **task)
{
	struct task_struct *t, *live;

	*task = NULL;
	if (pid == EMBM_PID_SYSTEM)
		return 0;

	if (pid == EMBM_PID_SELF)
		t = get_task_struct(current);
	else
		t = find_get_task_by_vpid(pid);
	if (!t)
		return -ESRCH;
	if (t->flags & PF_KTHREAD) {
		put_task_struct(t);
		return -EINVAL;
	}
	if (t->flags & PF_EXITING) {
		live = embm_live_thread(task_tgid(t));
		put_task_struct(t);
		if (!live)
			return -ESRCH;
		t = live;
	}
	*task = t;
	return 0;
}

/* Drop the results and references of the previous session.  embm_lock held. */
static void __embm_session_clear(void)
{
	lockdep_assert_held(&embm_lock);

	embm_stats_put(embm_session.stats);
	embm_session.stats = NULL;
	kfree(embm_session.status);
	embm_session.status = NULL;
	if (embm_session.cgroup)
		css_put(embm_session.cgroup);
	embm_session.cgroup = NULL;
	put_pid(embm_session.target);
	put_pid(embm_session.named);
	embm_owner_release(&embm_session.owner);
	embm_session.target = NULL;
	embm_session.named = NULL;
	if (embm_session.read_event)
		perf_event_release_kernel(embm_session.read_event);
	embm_session.read_event = NULL;
}

static void embm_session_exited(void *data, enum embm_exit who);

/*
 * The knobs a session of current starts with: without CAP_PERFMON, no
 * more events than perf would give it as files.
 */
static void embm_session_config(struct embm_config *cfg)
{
	embm_knobs_get(cfg);
	if (!perfmon_capable())
		cfg->max_events = min_t(u64, cfg->max_events, rlimit(RLIMIT_NOFILE));
}

/*
 * Make @next, running, the session: the previous one's results and
 * references go, its generation is the next.  embm_lock held.
 */
static void __embm_session_install(const struct embm_session *next)
{
	unsigned long gen = embm_session.gen + 1;

	lockdep_assert_held(&embm_lock);

	__embm_session_clear();
	embm_session = *next;
	embm_session.gen = gen;
	embm_session.start_ns = ktime_get_ns();
	embm_session.stop_ns = 0;
	embm_session.state = EMBM_RUNNING;
	embm_session.ended_by = "-";
}

/*
 * Start the session on @task, or on the tasks of @cgroup (whose reference
 * it takes over on success), or system-wide (both NULL).  embm_lock held.
 */
static int __embm_session_start(struct task_struct *task,
				struct cgroup_subsys_state *cgroup, int node)
{
	struct embm_session next = { .cgroup = cgroup, .node = node };
	struct embm_sampler_args args = {
		.cgroup	= cgroup,
		.cfg	= &next.config,
		.exited	= embm_session_exited,
		.data	= (void *)(embm_session.gen + 1),
		.phase_ns = next.phase_ns,
	};
	u64 t0 = ktime_get_ns(), t = t0;
	int err = -ENOMEM;

	lockdep_assert_held(&embm_lock);

	if (embm_session.state == EMBM_RUNNING)
		return -EBUSY;

	embm_session_config(&next.config);
	next.stats = embm_stats_alloc(next.config.hot_pages);
	next.status = kzalloc(sizeof(*next.status), GFP_KERNEL_ACCOUNT);
	if (!next.stats || !next.status)
		goto out_free;
	embm_stats_classify_nodes(next.stats);
	/* A per-task table only where every id is of one namespace. */
	err = embm_stats_prepare(next.stats, next.config.max_tasks,
				 task_active_pid_ns(current) == &init_pid_ns);
	if (err)
		goto out_free;
	next.read_event = embm_perm_read_event();
	if (IS_ERR(next.read_event)) {
		err = PTR_ERR(next.read_event);
		goto out_free;
	}
	next.phase_ns[EMBM_START_STATS] = embm_phase_end(&t);
	if (task)
		next.target = get_task_pid(task, PIDTYPE_TGID);
	embm_owner_init(&next.owner);
	args.target = next.target;
	args.owner = next.owner.pid;
	args.st = next.stats;
	next.sampler = embm_sampler_start(&args, next.status);
	if (IS_ERR(next.sampler)) {
		err = PTR_ERR(next.sampler);
		pr_info_ratelimited("session not started: %d (%s)\n", err, next.status->why);
		goto out_release;
	}

	next.named = task ? get_task_pid(task, PIDTYPE_PID) : NULL;
	next.target_nr = next.target ? pid_vnr(next.target) : EMBM_PID_SYSTEM;
	t = ktime_get_ns();
	__embm_session_install(&next);
	embm_session.phase_ns[EMBM_START_CLEAR] = ktime_get_ns() - t;
	embm_session.phase_ns[EMBM_START] = ktime_get_ns() - t0;
	embm_sampler_read_status(next.sampler, next.status);
	pr_info_ratelimited("session started: target %d, node %d, source %s (%s)\n",
			    embm_session.target_nr, node, next.status->source->name,
			    next.status->why);
	return 0;

out_release:
	embm_owner_release(&next.owner);
	put_pid(next.target);
	perf_event_release_kernel(next.read_event);
out_free:
	kfree(next.status);
	embm_stats_put(next.stats);
	return err;
}

/*
 * The perf_event cgroup of the directory open as @fd, referenced:
 * -EBADF for no such file or not a cgroup directory, -ENOENT for a cgroup
 * being removed, -EOPNOTSUPP without CONFIG_CGROUP_PERF.
 */
static struct cgroup_subsys_state *embm_cgroup_of_fd(int fd)
{
	CLASS(fd, f)(fd);

	if (fd < 0 || fd_empty(f))
		return ERR_PTR(-EBADF);
	return perf_cgroup_css_from_file(fd_file(f));
}

/**
 * embm_session_start() - start a sampling session
 * @pid:   EMBM_PID_SYSTEM, EMBM_PID_SELF, or a process or thread id (a
 *	   thread names its process); with EMBM_FLAG_CGROUP, a file
 *	   descriptor of a cgroup v2 directory
 * @node:  NUMA_NO_NODE or the node under study
 * @flags: 0 or EMBM_FLAG_CGROUP
 *
 * Checks come in perf_event_open()'s order: arguments (-EINVAL, also for
 * unknown @flags); perf's checks of the attributes (-EACCES:
 * perf_event_paranoid, CAP_PERFMON or CAP_SYS_ADMIN; an LSM's errno); the
 * target (-ESRCH, -EINVAL for a kernel thread; for a cgroup -EBADF,
 * -ENOENT, -EOPNOTSUPP); perf's checks of the target (-EACCES: ptrace
 * access to the process, or perf_allow_cpu() system-wide and for a cgroup,
 * whose events are CPU-wide as PERF_FLAG_PID_CGROUP's are); then whether
 * a session runs (-EBUSY), and the sampler (-EOPNOTSUPP: no source, or not
 * the forced one, works here; -EINVAL: a knob the forced source refuses;
 * -E2BIG: more events than max_events; -EPERM: ring memory over the
 * starter's mlock limit; -EAGAIN: the target makes threads faster than
 * they can be listed; -ENOMEM).  While the events of a process are made,
 * its exec_update_lock is held (-EINTR if a signal comes while waiting for
 * it), as perf_event_open() holds it, so that an exec() that changes
 * credentials cannot slip between the check and the events.  The results
 * of the previous session are dropped when this one starts, not before.
 *
 * Context: process; takes exec_update_lock, then embm_lock.
 * Return: 0 or a negative errno.
 */
static int embm_session_start(pid_t pid, int node, unsigned int flags)
{
	struct cgroup_subsys_state *cgroup = NULL;
	struct perf_event_attr attr;
	struct task_struct *task = NULL;
	int err;

	if (flags & ~EMBM_FLAGS_ALL)
		return -EINVAL;
	if (!(flags & EMBM_FLAG_CGROUP) && pid < EMBM_PID_SYSTEM)
		return -EINVAL;
	err = embm_check_node(node);
	if (err)
		return err;
	embm_perm_attr(&attr);
	err = perf_event_open_permitted(&attr);
	if (err)
		return err;
	if (flags & EMBM_FLAG_CGROUP) {
		cgroup = embm_cgroup_of_fd(pid);
		if (IS_ERR(cgroup))
			return PTR_ERR(cgroup);
	} else {
		err = embm_find_target(pid, &task);
		if (err)
			return err;
	}
	if (task) {
		err = down_read_interruptible(&task->signal->exec_update_lock);
		if (err) {
			err = -ERESTARTSYS;
			goto out_put_task;
		}
	}
	err = perf_event_target_permitted(&attr, task);
	if (err)
		goto out_unlock_exec;

	err = embm_lock_interruptible(&embm_lock);
	if (err)
		goto out_unlock_exec;
	err = __embm_session_start(task, cgroup, node);
	if (!err)
		cgroup = NULL;		/* the session's now */
	mutex_unlock(&embm_lock);

out_unlock_exec:
	if (task)
		up_read(&task->signal->exec_update_lock);
out_put_task:
	if (task)
		put_task_struct(task);
	if (cgroup)
		css_put(cgroup);
	return err;
}

/*
 * The session as readers see it now, or NULL when memory is short.
 * embm_lock held.
 */
static struct embm_view *__embm_view(void)
{
	struct embm_session *se = &embm_session;
	struct embm_view *v;

	lockdep_assert_held(&embm_lock);

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	v->gen = se->gen;
	v->state = se->state;
	v->ended_by = se->ended_by;
	v->target = get_pid(se->target);
	v->target_nr = se->target_nr;
	v->cgroup = se->cgroup;
	if (v->cgroup)
		css_get(v->cgroup);
	v->node = se->node;
	if (se->start_ns)
		v->elapsed_ns = (se->stop_ns ?: ktime_get_ns()) - se->start_ns;
	v->config = se->config;
	memcpy(v->phase_ns, se->phase_ns, sizeof(v->phase_ns));
	if (se->sampler)
		embm_sampler_read_status(se->sampler, &v->status);
	else if (se->status)
		v->status = *se->status;
	if (se->stats) {
		embm_stats_get(se->stats);
		v->stats = se->stats;
	}
	return v;
}

/**
 * embm_view_free() - drop a view and its references
 * @v: from embm_session_view(), or NULL
 *
 * Context: process.
 */
void embm_view_free(struct embm_view *v)
{
	if (!v)
		return;
	embm_stats_put(v->stats);
	if (v->cgroup)
		css_put(v->cgroup);
	put_pid(v->target);
	kfree(v);
}

/**
 * embm_session_may_read() - may current read the session of now?
 * @gen: set to the session's generation, for embm_session_view()
 *
 * Those who may end it may read it (embm_perm_may_access()); the LSMs
 * may also say whether samples are read, as on a perf fd, asked about
 * the session's read event (embm_perm_read_event()), while the session
 * runs and after it ended.  With no session there is nothing to hide.
 *
 * Context: process; takes embm_lock interruptibly.
 * Return: 0, -ERESTARTSYS on a signal, -EACCES or an LSM's errno.
 */
int embm_session_may_read(unsigned long *gen)
{
	int err;

	err = embm_lock_interruptible(&embm_lock);
	if (err)
		return err;
	*gen = embm_session.gen;
	if (embm_session.stats)
		err = embm_perm_may_access(&embm_session.owner, embm_session.target);
	if (!err && embm_session.read_event)
		err = embm_perm_may_read(embm_session.read_event);
	mutex_unlock(&embm_lock);
	return err;
}

/**
 * embm_session_view() - the session as it is now, for a reader
 * @gen: the generation embm_session_may_read() gave
 *
 * Context: process; takes embm_lock interruptibly, then the sampler's
 * pub_lock for a copy of its status.
 * Return: a view to free with embm_view_free(); ERR_PTR(-ESTALE) when
 * another session started since, ERR_PTR(-ERESTARTSYS) on a signal,
 * ERR_PTR(-ENOMEM).
 */
struct embm_view *embm_session_view(unsigned long gen)
{
	struct embm_view *v;
	int err;

	err = embm_lock_interruptible(&embm_lock);
	if (err)
		return ERR_PTR(err);
	if (embm_session.gen != gen)
		v = ERR_PTR(-ESTALE);
	else
		v = __embm_view() ?: ERR_PTR(-ENOMEM);
	mutex_unlock(&embm_lock);
	return v;
}

/*
 * Stop the running session; it becomes @state.  Caller holds embm_lock.
 * Return: the view of the ended session for the kernel-log summary, to
 * print with embm_session_report() once embm_lock is dropped; NULL when
 * memory is short.
 */
static struct embm_view *__embm_session_stop(enum embm_state state, const char *why)
{
	u64 *ph = embm_session.phase_ns, t0 = ktime_get_ns(), t;
	struct embm_view *v;

	lockdep_assert_held(&embm_lock);

	embm_sampler_stop(embm_session.sampler, embm_session.status, ph);
	embm_session.sampler = NULL;
	embm_session.stop_ns = ktime_get_ns();
	embm_session.state = state;
	embm_session.ended_by = why;
	t = ktime_get_ns();
	v = __embm_view();
	ph[EMBM_END_VIEW] = ktime_get_ns() - t;
	ph[EMBM_END] = ktime_get_ns() - t0;
	return v;
}

/*
 * The summary of a session that ended, in the kernel log; then the time
 * it took goes to the session's EMBM_END_REPORT and EMBM_END, unless
 * another session started meanwhile or holds embm_lock now (a start can
 * take long: the caller does not wait for it only to store a time).
 * Tries embm_lock.
 */
static void embm_session_report(struct embm_view *v)
{
	u64 t = ktime_get_ns(), d;

	if (!v)
		return;
	embm_report_summary(v);
	d = ktime_get_ns() - t;
	if (mutex_trylock(&embm_lock)) {
		if (embm_session.gen == v->gen) {
			embm_session.phase_ns[EMBM_END_REPORT] = d;
			embm_session.phase_ns[EMBM_END] += d;
		}
		mutex_unlock(&embm_lock);
	}
	embm_view_free(v);
}

/*
 * The generation of the session whose target or starter exited, shifted
 * left by two, with the enum embm_exit in the low bits: one word, so that
 * a work function that reads it sees a pair that was written together.
 */
static atomic_long_t embm_exited;

#define EMBM_EXIT_BITS	2
#define EMBM_EXIT_MASK	(BIT(EMBM_EXIT_BITS) - 1)

/*
 * End the session whose ksamplingd saw its target or starter exit.  It
 * waits for embm_lock as long as a start takes: on the unbound workqueue.
 */
static void embm_exit_workfn(struct work_struct *work)
{
	unsigned long exited = atomic_long_read(&embm_exited);
	struct embm_view *v = NULL;

	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING &&
	    exited >> EMBM_EXIT_BITS == (embm_session.gen << EMBM_EXIT_BITS) >> EMBM_EXIT_BITS) {
		switch (exited & EMBM_EXIT_MASK) {
		case EMBM_EXIT_TARGET:
			v = __embm_session_stop(EMBM_EXITED, "target_exit");
			break;
		case EMBM_EXIT_BOTH:
			/* Nobody is left to call embm_end() once the starter is gone. */
			v = __embm_session_stop(EMBM_DONE, "target_exit");
			break;
		default:
			v = __embm_session_stop(EMBM_DONE, "starter_exit");
			break;
		}
	}
	mutex_unlock(&embm_lock);
	embm_session_report(v);
}

static DECLARE_WORK(embm_exit_work, embm_exit_workfn);

/*
 * The sampler's exit callback (embm_exit_fn): end the session of
 * generation @data, whose target or starter exited.  A session lives as
 * long as the process that started it, as perf events live as long as
 * their file: a launcher killed with SIGKILL leaves no session behind.
 *
 * Context: ksamplingd; does not sleep or take embm_lock.  queue_work()
 * orders the store with the reads of the work function it queues; one
 * that already runs reads a whole word, of this call or of an older one
 * (whose generation no longer matches).
 */
static void embm_session_exited(void *data, enum embm_exit who)
{
	atomic_long_set(&embm_exited,
			((unsigned long)data << EMBM_EXIT_BITS) | (who & EMBM_EXIT_MASK));
	queue_work(system_unbound_wq, &embm_exit_work);
}

/*
 * Is @pid, as embm_end() got it, the target of the session: the process,
 * the thread embm_start() was given, or any live thread of the process?
 * Or, with @by_cgroup (EMBM_FLAG_CGROUP), is @cgroup the session's cgroup
 * (@cgroup NULL: the descriptor named a cgroup being removed)?  Once the
 * session's cgroup is removed, no descriptor can name it (a cgroup made
 * again at its path is another): any cgroup descriptor ends the session
 * then, the removed one's or another's.
 */
static bool __embm_session_matches(pid_t pid, bool by_cgroup,
				   struct cgroup_subsys_state *cgroup)
{
	struct task_struct *task;
	bool match = false;

	lockdep_assert_held(&embm_lock);

	if (by_cgroup || embm_session.cgroup) {
		if (!by_cgroup || !embm_session.cgroup)
			return false;
		return cgroup == embm_session.cgroup || css_is_dying(embm_session.cgroup);
	}
	if (pid == EMBM_PID_SYSTEM)
		return !embm_session.target;
	if (!embm_session.target)
		return false;
	if (pid == EMBM_PID_SELF)
		return embm_session.target == task_tgid(current);
	/* Still answers after the target was reaped: the pids keep their numbers. */
	if (pid_vnr(embm_session.target) == pid ||
	    (embm_session.named && pid_vnr(embm_session.named) == pid))
		return true;
	rcu_read_lock();
	task = find_task_by_vpid(pid);
	if (task)
		match = task_tgid(task) == embm_session.target;
	rcu_read_unlock();
	return match;
}

/*
 * The checks and the end of embm_session_end(), in its order; *@v is set
 * to the view of the session it stopped, for the kernel-log summary.
 * @cgroup_err is -ENOENT when @pid named a cgroup being removed.
 * embm_lock held.
 */
static int __embm_session_end(pid_t pid, bool by_cgroup,
			      struct cgroup_subsys_state *cgroup, int cgroup_err,
			      struct embm_view **v)
{
	struct perf_event_attr attr;
	int err;

	lockdep_assert_held(&embm_lock);

	/* Those perf would refuse learn nothing of the session. */
	if (!embm_owner_is_current(&embm_session.owner)) {
		embm_perm_attr(&attr);
		err = perf_event_open_permitted(&attr);
		if (err)
			return err;
	}
	if (embm_session.state != EMBM_RUNNING &&
	    embm_session.state != EMBM_EXITED)
		return -ENOENT;
	/* Before @pid is matched: the target is not told to who may not end it. */
	err = embm_perm_may_access(&embm_session.owner, embm_session.target);
	if (err)
		return err;
	if (!__embm_session_matches(pid, by_cgroup, cgroup))
		return cgroup_err ?: -ESRCH;

	if (embm_session.state == EMBM_RUNNING)
		*v = __embm_session_stop(EMBM_DONE, "embm_end");
	else
		embm_session.state = EMBM_DONE;
	return 0;
}

/**
 * embm_session_end() - end the session sampling @pid
 * @pid:   the pid given to embm_start(), as the caller sees it (or a thread
 *	   of that process); with EMBM_FLAG_CGROUP, a file descriptor of the
 *	   session's cgroup directory
 * @flags: 0 or EMBM_FLAG_CGROUP, as given to embm_start()
 *
 * Ends a running session (ksamplingd stops, what is left in the buffers
 * is counted, the events are released and a summary goes to the kernel
 * log), or acknowledges one that ended when its target exited.  The
 * results stay readable until the next embm_start().
 *
 * The process that started the session may end it; anyone else needs
 * what starting it would take now (embm_perm_may_access()), which is
 * checked before @pid is: a caller who may not end the session learns
 * nothing of its target (-EACCES whatever @pid).  A cgroup session whose
 * cgroup was removed is ended with any cgroup directory's descriptor.
 *
 * Context: process; takes embm_lock.
 * Return: 0; -EINVAL for a bad @pid or unknown @flags; -EBADF or
 * -EOPNOTSUPP for a cgroup file descriptor as embm_start() gives them;
 * -EINTR if a signal came while waiting for a start or end in progress;
 * -ENOENT when no session is running or awaiting embm_end(), or when
 * @pid's cgroup is being removed and the session's is not; -EACCES (or
 * an LSM's errno) when the caller may not end the session; -ESRCH when
 * the session is not for @pid.
 */
static int embm_session_end(pid_t pid, unsigned int flags)
{
	struct cgroup_subsys_state *cgroup = NULL;
	bool by_cgroup = flags & EMBM_FLAG_CGROUP;
	struct embm_view *v = NULL;
	int err, cgroup_err = 0;

	if (flags & ~EMBM_FLAGS_ALL)
		return -EINVAL;
	if (by_cgroup) {
		cgroup = embm_cgroup_of_fd(pid);
		if (IS_ERR(cgroup)) {
			/* Being removed: it may be the session's (matched below). */
			cgroup_err = PTR_ERR(cgroup);
			cgroup = NULL;
			if (cgroup_err != -ENOENT)
				return cgroup_err;
		}
	} else if (pid < EMBM_PID_SYSTEM) {
		return -EINVAL;
	}

	err = embm_lock_interruptible(&embm_lock);
	if (err)
		goto out_put;
	err = __embm_session_end(pid, by_cgroup, cgroup, cgroup_err, &v);
	mutex_unlock(&embm_lock);
	embm_session_report(v);
out_put:
	if (cgroup)
		css_put(cgroup);
	return err;
}

/**
 * sys_embm_start - start sampling where a process's memory accesses go
 * @pid:   process to sample: -1 every process, 0 the caller, >0 that
 *	   process (or one of its threads); with EMBM_FLAG_CGROUP, the file
 *	   descriptor of a cgroup v2 directory whose tasks are sampled
 * @node:  node under study (usually the CXL node), or -1 for none
 * @flags: 0 or EMBM_FLAG_CGROUP
 *
 * Return: 0 or a negative errno; see embm_session_start().
 */
SYSCALL_DEFINE3(embm_start, pid_t, pid, int, node, unsigned int, flags)
{
	return embm_session_start(pid, node, flags);
}

/**
 * sys_embm_end - stop the session started for @pid and keep its results
 * @pid:   the pid (or cgroup file descriptor) given to embm_start()
 * @flags: the flags given to embm_start()
 *
 * Return: 0 or a negative errno; see embm_session_end().
 */
SYSCALL_DEFINE2(embm_end, pid_t, pid, unsigned int, flags)
{
	return embm_session_end(pid, flags);
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/core-kunit.h"
#endif
