// SPDX-License-Identifier: GPL-2.0
/*
 * embm: which tasks' samples went to which node, in bounded memory
 *
 * Each task gets an entry at its first sample, keyed by its id: its
 * thread-group id, its name, and per node its samples and their weights.
 * Past the bound (the max_tasks knob), when an id comes back with another
 * thread-group id (a thread id reused during the session), for a task
 * perf could not name ((u32)-1: gone), or when an entry cannot be had
 * without waiting for memory, the samples count in one "other tasks"
 * entry instead, which the reports show as such.  An entry takes struct
 * embm_task and one struct embm_task_node per node that had memory at
 * start, plus one for the others, as kmalloc() rounds it (128 bytes on
 * up to 3 nodes), and its part of the xarray (from about 9 bytes for
 * neighbouring ids to an xa_node of 576 for scattered ones), which
 * embm_tasks_bytes() leaves out.
 *
 * The ids are those of the samples: for perf's records, in the pid
 * namespace of the task that opened the sample's event, for direct
 * samples likewise (embm_direct_overflow()).  A session keeps the table
 * only when its starter is in the initial pid namespace, as ksamplingd's
 * own events are: then every id is in that one namespace, names are
 * looked up there, and the table is shown only to readers in it
 * (proc.c).  A name is looked up when a task's entry is made and again
 * whenever its samples resume after another task's, so that a task that
 * exec'd shows its new name; only a task of the same thread group counts.
 *
 * Written by ksamplingd and read by the reports, both with the results'
 * lock held (struct embm_stats.lock, a mutex): process context.  Entries
 * are allocated without waiting (GFP_NOWAIT), charged to the memory
 * cgroup of the session's starter: readers wait on that lock.
 */

#include <linux/memcontrol.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "tasks.h"

/**
 * struct embm_tasks - the per-task table of a session
 * @xa:	      the entries by task id.
 * @max:      the most entries: the max_tasks knob at start.
 * @nr:	      entries made.
 * @memcg:    the memory cgroup of the session's starter, referenced: the
 *	      entries are charged to it.
 * @nr_slots: per-node slots of an entry: the nodes with memory at start,
 *	      then one for every other node.
 * @slot:     the slot of each node id, nr_node_ids of them.
 * @slot_nid: the node id of each slot but the last.
 * @last:     the entry of the last sample: tasks take samples in runs.
 * @other:    the samples of the tasks without an entry.
 * @bytes:    the memory of the table.
 */
struct embm_tasks {
	struct xarray xa;
	unsigned int max, nr;
	struct mem_cgroup *memcg;
	int nr_slots;
	int *slot;
	int *slot_nid;
	struct embm_task *last;
	struct embm_task *other;
	size_t bytes;
};

static size_t embm_task_size(const struct embm_tasks *tt)
{
	return struct_size_t(struct embm_task, node, tt->nr_slots);
}

/* The GFP flags of the entries: no waiting, charged (see the top). */
#define EMBM_TASK_GFP	(GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT)

/**
 * embm_tasks_alloc() - an empty per-task table
 * @max: the most tasks with an entry of their own (0: none)
 *
 * The entries made later are charged to the memory cgroup of current,
 * the session's starter.
 *
 * Context: process; may sleep.
 * Return: the table or NULL.
 */
struct embm_tasks *embm_tasks_alloc(unsigned int max)
{
	struct embm_tasks *tt = kzalloc(sizeof(*tt), GFP_KERNEL_ACCOUNT);
	int nid, n = 0;

	if (!tt)
		return NULL;
	xa_init(&tt->xa);
	tt->max = max;
	tt->memcg = get_mem_cgroup_from_mm(current->mm);
	for_each_node_state(nid, N_MEMORY)
		n++;
	tt->nr_slots = n + 1;
	tt->slot = kcalloc(nr_node_ids, sizeof(*tt->slot), GFP_KERNEL_ACCOUNT);
	tt->slot_nid = kcalloc(tt->nr_slots, sizeof(*tt->slot_nid), GFP_KERNEL_ACCOUNT);
	tt->other = kzalloc(embm_task_size(tt), GFP_KERNEL_ACCOUNT);
	if (!tt->slot || !tt->slot_nid || !tt->other) {
		embm_tasks_free(tt);
		return NULL;
	}
	/* Memory may come online meanwhile: such nodes go to the last slot. */
	for (nid = 0; nid < nr_node_ids; nid++)
		tt->slot[nid] = n;
	n = 0;
	for_each_node_state(nid, N_MEMORY) {
		if (n == tt->nr_slots - 1)
			break;
		tt->slot[nid] = n;
		tt->slot_nid[n++] = nid;
	}
	tt->bytes = sizeof(*tt) + nr_node_ids * sizeof(*tt->slot) +
		    tt->nr_slots * sizeof(*tt->slot_nid) + embm_task_size(tt);
	tt->nr_slots = n + 1;
	tt->other->pid = U32_MAX;
	tt->other->tid = U32_MAX;
	strscpy(tt->other->comm, "(other)");
	return tt;
}

/**
 * embm_tasks_bytes() - the memory a per-task table takes now
 * @tt: the table; caller holds the results' lock
 *
 * Return: its size in bytes, the xarray's nodes left out.
 */
size_t embm_tasks_bytes(const struct embm_tasks *tt)
{
	return tt->bytes;
}

/**
 * embm_tasks_free() - free a per-task table
 * @tt: the table, or NULL
 *
 * Context: process.
 */
void embm_tasks_free(struct embm_tasks *tt)
{
	struct embm_task *t;
	unsigned long tid;

	if (!tt)
		return;
	xa_for_each(&tt->xa, tid, t)
		kfree(t);
	xa_destroy(&tt->xa);
	mem_cgroup_put(tt->memcg);
	kfree(tt->other);
	kfree(tt->slot_nid);
	kfree(tt->slot);
	kfree(tt);
}

/*
 * @t's name, from its task in the initial pid namespace, if that task is
 * still of @t's thread group (not a stranger that took the id); else it
 * stays as it was ("?" for a new entry).  Context: any but NMI; takes RCU
 * and the task's lock.
 */
static void embm_task_name(struct embm_task *t)
{
	char comm[TASK_COMM_LEN], *c;
	struct task_struct *task;
	bool found = false;

	rcu_read_lock();
	task = find_task_by_pid_ns(t->tid, &init_pid_ns);
	if (task && task_tgid_nr(task) == t->pid) {
		get_task_comm(comm, task);
		found = true;
	}
	rcu_read_unlock();
	if (!found)
		return;
	/* One word in the tables: no blanks, no control characters. */
	for (c = comm; *c; c++)
		if (*c <= ' ' || *c == 0x7f)
			*c = '_';
	strscpy(t->comm, comm);
}

/*
 * The entry of task @tid of thread group @pid, made if it has none: or
 * the "other tasks" entry, past the bound, without memory at once, for
 * an id that another thread group had, or one perf could not give.
 * Caller holds the results' lock.
 */
static struct embm_task *embm_tasks_find(struct embm_tasks *tt, u32 pid, u32 tid)
{
	struct mem_cgroup *old;
	struct embm_task *t;
	void *err;

	if (pid == U32_MAX || tid == U32_MAX)
		return tt->other;
	t = xa_load(&tt->xa, tid);
	if (t) {
		if (t->pid != pid)
			return tt->other;
		/* Its samples resume: it may have exec'd since. */
		embm_task_name(t);
		return t;
	}
	if (tt->nr >= tt->max)
		return tt->other;
	old = set_active_memcg(tt->memcg);
	t = kzalloc(embm_task_size(tt), EMBM_TASK_GFP);
	err = t ? xa_store(&tt->xa, tid, t, EMBM_TASK_GFP) : NULL;
	set_active_memcg(old);
	if (!t || xa_err(err)) {
		kfree(t);
		return tt->other;
	}
	t->pid = pid;
	t->tid = tid;
	strscpy(t->comm, "?");
	embm_task_name(t);
	tt->nr++;
	tt->bytes += kmalloc_size_roundup(embm_task_size(tt));
	return t;
}

/**
 * embm_tasks_add() - count a sample for its task
 * @tt:	    the table
 * @pid:    the sample's thread-group id
 * @tid:    its task id
 * @nid:    the node it landed on
 * @weight: the accesses it stands for; 0 for a sample a cache served,
 *	    which counts as a sample alone
 * @user:   taken in user mode
 * @cxl:    in a CXL window
 *
 * Context: ksamplingd (process), the results' lock held; does not sleep
 * (a task's first sample allocates its entry without waiting).
 */
void embm_tasks_add(struct embm_tasks *tt, u32 pid, u32 tid, int nid, u64 weight,
		    bool user, bool cxl)
{
	struct embm_task *t = tt->last;
	struct embm_task_node *tn;

	if (!t || t->tid != tid || t->pid != pid) {
		t = embm_tasks_find(tt, pid, tid);
		tt->last = t;
	}
	tn = &t->node[nid >= 0 && nid < nr_node_ids ? tt->slot[nid] : tt->nr_slots - 1];
	t->samples++;
	tn->samples++;
	t->accesses += weight;
	tn->accesses += weight;
	if (user)
		t->user += weight;
	if (cxl)
		t->cxl += weight;
}

/**
 * embm_tasks_slots() - the nodes of the per-node slots
 * @tt:	  the table
 * @nids: room for the slots but the last: the node id of each; or NULL
 *
 * Context: any.
 * Return: the number of slots, the last one (every other node) included.
 */
int embm_tasks_slots(const struct embm_tasks *tt, int *nids)
{
	if (nids)
		memcpy(nids, tt->slot_nid, (tt->nr_slots - 1) * sizeof(*nids));
	return tt->nr_slots;
}

/* Most accesses first, then most samples, then by id. */
static int embm_task_cmp(const void *a, const void *b)
{
	const struct embm_task *x = *(const struct embm_task **)a;
	const struct embm_task *y = *(const struct embm_task **)b;

	if (x->accesses != y->accesses)
		return x->accesses < y->accesses ? 1 : -1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/**
 * embm_tasks_sorted() - the entries, most accesses first
 * @tt:	 the table; caller holds the results' lock, which keeps the
 *	 entries until it is dropped
 * @out: room for @max entries
 * @max: how many at most
 *
 * The "other tasks" entry is not among them (embm_tasks_other()).
 *
 * Context: process.
 * Return: how many were put in @out.
 */
unsigned int embm_tasks_sorted(const struct embm_tasks *tt, const struct embm_task **out,
			       unsigned int max)
{
	struct embm_task *t;
	unsigned long tid;
	unsigned int n = 0;

	xa_for_each(&tt->xa, tid, t) {
		if (n == max)
			break;
		out[n++] = t;
	}
	sort(out, n, sizeof(*out), embm_task_cmp, NULL);
	return n;
}

/**
 * embm_tasks_top() - the entries with the most accesses, without allocating
 * @tt:	 the table; caller holds the results' lock
 * @out: room for @n entries, most accesses first
 * @n:	 how many, a few: each entry is compared with them
 *
 * Context: any but NMI.
 * Return: how many were put in @out.
 */
unsigned int embm_tasks_top(const struct embm_tasks *tt, const struct embm_task **out,
			    unsigned int n)
{
	struct embm_task *t;
	unsigned long tid;
	unsigned int nr = 0, i;

	xa_for_each(&tt->xa, tid, t) {
		for (i = nr; i > 0 && embm_task_cmp(&t, &out[i - 1]) < 0; i--)
			if (i < n)
				out[i] = out[i - 1];
		if (i < n)
			out[i] = t;
		nr = min(nr + 1, n);
	}
	return nr;
}

/**
 * embm_tasks_other() - the samples of the tasks without an entry
 * @tt: the table; caller holds the results' lock
 *
 * Return: the "other tasks" entry (pid and tid U32_MAX).
 */
const struct embm_task *embm_tasks_other(const struct embm_tasks *tt)
{
	return tt->other;
}

/**
 * embm_tasks_count() - entries made
 * @tt: the table; caller holds the results' lock
 *
 * Return: how many tasks have an entry of their own.
 */
unsigned int embm_tasks_count(const struct embm_tasks *tt)
{
	return tt->nr;
}

/**
 * embm_tasks_max() - the bound on entries
 * @tt: the table
 *
 * Return: the max_tasks knob as the session started.
 */
unsigned int embm_tasks_max(const struct embm_tasks *tt)
{
	return tt->max;
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/tasks-kunit.h"
#endif
