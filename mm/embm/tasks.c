// SPDX-License-Identifier: GPL-2.0
/*
 * embm: which tasks' samples went to which node, in bounded memory
 *
 * Each task gets an entry at its first sample, keyed by its id: its
 * thread-group id, its name, and per node its samples and their weights.
 * Past the bound (the max_tasks knob), or when an id comes back with
 * another thread-group id (a thread id reused during the session), the
 * samples count in one "other tasks" entry instead, which the reports
 * show as such.  An entry takes struct embm_task and one struct
 * embm_task_node per node that had memory at start, plus one for the
 * others: 56 + 16 x (nodes + 1) bytes, and an xarray slot.
 *
 * The ids are those of the samples: for perf's records, in the pid
 * namespace of the task that opened the sample's event (the session's
 * starter, or the initial one for events ksamplingd opens later); for
 * direct samples, in the initial one.  Names are looked up in the
 * initial namespace, so only for a session started there: elsewhere they
 * are "?".
 *
 * Written by ksamplingd and read by the reports, both with the results'
 * lock held (struct embm_stats.lock, a mutex): process context.
 */

#include <linux/pid.h>
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
 * @names:    look the tasks' names up (a session started in the initial
 *	      pid namespace).
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
	bool names;
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

/**
 * embm_tasks_alloc() - an empty per-task table
 * @max:   the most tasks with an entry of their own (0: none)
 * @names: look the tasks' names up: the session's starter is in the
 *	   initial pid namespace
 *
 * Context: process; may sleep.
 * Return: the table or NULL.
 */
struct embm_tasks *embm_tasks_alloc(unsigned int max, bool names)
{
	struct embm_tasks *tt = kzalloc(sizeof(*tt), GFP_KERNEL_ACCOUNT);
	int nid, n = 0;

	if (!tt)
		return NULL;
	xa_init(&tt->xa);
	tt->max = max;
	tt->names = names;
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
	tt->nr_slots = n + 1;
	tt->other->pid = U32_MAX;
	tt->other->tid = U32_MAX;
	strscpy(tt->other->comm, "(other)");
	tt->bytes = sizeof(*tt) + nr_node_ids * sizeof(*tt->slot) +
		    tt->nr_slots * sizeof(*tt->slot_nid) + embm_task_size(tt);
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
	kfree(tt->other);
	kfree(tt->slot_nid);
	kfree(tt->slot);
	kfree(tt);
}

/* @t's name from task @tid of the initial pid namespace: "?" if gone. */
static void embm_task_name(struct embm_task *t, u32 tid)
{
	struct task_struct *task;
	char *c;

	strscpy(t->comm, "?");
	rcu_read_lock();
	task = find_task_by_pid_ns(tid, &init_pid_ns);
	if (task)
		get_task_comm(t->comm, task);
	rcu_read_unlock();
	/* One word in the tables: no blanks, no control characters. */
	for (c = t->comm; *c; c++)
		if (*c <= ' ' || *c == 0x7f)
			*c = '_';
}

/*
 * The entry of task @tid of thread group @pid, made if it has none: or
 * the "other tasks" entry, past the bound, without memory, or for an id
 * that another thread group had.  Caller holds the results' lock; may
 * sleep.
 */
static struct embm_task *embm_tasks_find(struct embm_tasks *tt, u32 pid, u32 tid)
{
	struct embm_task *t = xa_load(&tt->xa, tid);

	if (t)
		return t->pid == pid ? t : tt->other;
	if (tt->nr >= tt->max)
		return tt->other;
	t = kzalloc(embm_task_size(tt), GFP_KERNEL_ACCOUNT);
	if (!t)
		return tt->other;
	t->pid = pid;
	t->tid = tid;
	if (tt->names)
		embm_task_name(t, tid);
	else
		strscpy(t->comm, "?");
	if (xa_err(xa_store(&tt->xa, tid, t, GFP_KERNEL_ACCOUNT))) {
		kfree(t);
		return tt->other;
	}
	tt->nr++;
	tt->bytes += embm_task_size(tt);
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
 * Context: ksamplingd (process), the results' lock held; may sleep (the
 * first sample of a task allocates its entry).
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
