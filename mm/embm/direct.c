// SPDX-License-Identifier: GPL-2.0
/*
 * embm direct samples: the overflow handler takes the sample itself
 *
 * For a source whose samples need nothing but their page (swfault), perf's
 * record is most of a sample's cost to the sampled task: perf_prepare_sample()
 * fills every field, perf_output_begin() reserves room, the record is
 * copied.  A direct event instead has embm_direct_overflow() as its overflow
 * handler, which puts the page and the event's kind, eight bytes, into a
 * queue of its CPU; ksamplingd reads the queue as it reads the ring buffer.
 * The events still have their ring buffer: perf logs their throttling there.
 *
 * A full queue (embm_direct_alloc(.., true)) is for a PMU whose sample data
 * carries the physical address, data source and weight (the emulated
 * PMU): each entry keeps those too, 20 bytes instead of perf's record of
 * 80.
 *
 * One queue per CPU, written only by the events bound to that CPU, with
 * IRQs off (perf_swevent_event() calls the handler so, and only for an
 * active event; a PMU driver's drain from its interrupt or its callbacks
 * likewise): one writer at a time.  A plain queue takes only samples in
 * task context (page faults); a full one takes them in any context but
 * NMI, which could interrupt another writer.  Its readers (ksamplingd, a
 * failing start, the stop) hold the sampler's lock: one reader at a
 * time.  Not for large PEBS, which writes records without calling the
 * overflow handler, nor for a PMU that overflows in NMI.
 *
 * The writer that fills a queue to half wakes its reader (once set, see
 * embm_direct_set_reader()) through an irq_work, which may be queued
 * from any context: a task that faults faster than the reader's timer
 * drains loses nothing while the reader keeps up.
 */

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/cache.h>
#include <linux/embm.h>
#include <linux/irq_work.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/slab.h>

#include "direct.h"

/* An overflow handler's context: the queue and the event's kind. */
struct embm_direct_ctx {
	struct embm_direct *dq;
	int kind;
};

/**
 * struct embm_direct - the direct samples of one CPU, a single-writer queue
 * @head:	next entry to write; written by the writer only.
 * @lost:	samples dropped on a full queue, by kind; written by the
 *		writer only.
 * @period:	the period of each kind's samples as last queued (a mark);
 *		written by the writer only.
 * @task:	the task of the samples queued since the last task mark
 *		(below); written by the writer only.
 * @tail:	next entry to read; written by the reader only.
 * @lost_read:	@lost as the reader last took it.
 * @rd_period:	the period of each kind's samples as last read.
 * @rd_task:	the task of the samples as last read.
 * @lost_elsewhere: samples dropped because they were not taken in a task.
 * @mask:	entries - 1, a power of two - 1.
 * @reader:	woken when the queue fills to half; NULL: nobody.
 * @wake:	wakes @reader from the writer's context.
 * @ctx:	the handler's context for each kind.
 * @rcu:	frees the queue after a grace period, as perf frees events.
 * @ent:	the entries: physical page address | mapping order | user |
 *		kind; 0 | kind for no address; or a period or task mark
 *		(below).
 * @src:	a full queue's: each entry's data source (0 for a mark);
 *		NULL in a plain queue.
 * @weight:	a full queue's: each entry's weight (0 for a mark).
 *
 * Each array is an allocation of its own, a power of two bytes, which
 * kvmalloc() charges no more than its size.
 */
struct embm_direct {
	u64 head;
	u64 lost[EMBM_MAX_EVENTS];
	u64 period[EMBM_MAX_EVENTS];
	u64 task;
	u64 tail ____cacheline_aligned;
	u64 lost_read[EMBM_MAX_EVENTS];
	u64 rd_period[EMBM_MAX_EVENTS];
	u64 rd_task;
	atomic64_t lost_elsewhere[EMBM_MAX_EVENTS];
	unsigned int mask;
	struct task_struct *reader;
	struct irq_work wake;
	struct embm_direct_ctx ctx[EMBM_MAX_EVENTS];
	struct rcu_head rcu;
	u64 *ent;
	u64 *src;
	u32 *weight;
};

/*
 * An entry: the page's physical address; below it, whether it was taken
 * in user mode, the order of the mapping's size in base pages (0 for a
 * base page, 9 for 2 MiB on x86), then the kind.  Or a period mark: the
 * period of the kind's samples from here on (perf's,
 * perf_sample_data::period), in place of the page.  Or a task mark: the
 * thread-group id and id of the task of every sample from here on, in
 * place of the page; a task takes its faults in runs, so marks are few.
 */
#define EMBM_DIRECT_KIND	GENMASK(2, 0)
#define EMBM_DIRECT_ORDER	GENMASK(7, 3)
#define EMBM_DIRECT_MARK	BIT(8)
#define EMBM_DIRECT_USER	BIT(9)
#define EMBM_DIRECT_TASK	BIT(10)
#define EMBM_DIRECT_PID_BITS	22	/* a pid, below PID_MAX_LIMIT */
static_assert(EMBM_DIRECT_KIND + 1 >= EMBM_MAX_EVENTS);
static_assert(EMBM_DIRECT_TASK < PAGE_SIZE);
static_assert(PID_MAX_LIMIT <= 1 << EMBM_DIRECT_PID_BITS);
static_assert(2 * EMBM_DIRECT_PID_BITS + PAGE_SHIFT <= 64);

/* Hard IRQ context (irq_work): wake the reader, if it may be woken. */
static void embm_direct_wake(struct irq_work *work)
{
	struct embm_direct *dq = container_of(work, struct embm_direct, wake);
	struct task_struct *reader = READ_ONCE(dq->reader);

	if (reader)
		wake_up_process(reader);
}

/* Free @dq and its arrays.  Process or softirq (vfree() defers what it must). */
static void embm_direct_free_now(struct embm_direct *dq)
{
	kvfree(dq->ent);
	kvfree(dq->src);
	kvfree(dq->weight);
	kfree(dq);
}

/* After the grace period: softirq context. */
static void embm_direct_free_rcu(struct rcu_head *rcu)
{
	embm_direct_free_now(container_of(rcu, struct embm_direct, rcu));
}

/**
 * embm_direct_alloc() - a queue of at least @nr_entries samples
 * @nr_entries: rounded up to a power of two; at least 2
 * @cpu: the CPU whose events write it (its node backs the memory)
 * @full: entries keep the data source and weight too, and samples are
 *	taken in any context but NMI (see the top of this file)
 *
 * Charged to the caller's memory cgroup (at start: the starter's; a CPU
 * that comes online later gets its queue from ksamplingd, charged to none).
 *
 * Context: process; may sleep.
 * Return: the queue or NULL.
 */
struct embm_direct *embm_direct_alloc(unsigned int nr_entries, int cpu, bool full)
{
	unsigned int n = roundup_pow_of_two(max(nr_entries, 2U)), k;
	int node = cpu_to_node(cpu);
	struct embm_direct *dq;

	dq = kzalloc_node(sizeof(*dq), GFP_KERNEL_ACCOUNT, node);
	if (!dq)
		return NULL;
	/* Entries are written before they are read: not zeroed. */
	dq->ent = kvmalloc_node(array_size(n, sizeof(*dq->ent)), GFP_KERNEL_ACCOUNT, node);
	if (full) {
		dq->src = kvmalloc_node(array_size(n, sizeof(*dq->src)), GFP_KERNEL_ACCOUNT, node);
		dq->weight = kvmalloc_node(array_size(n, sizeof(*dq->weight)), GFP_KERNEL_ACCOUNT,
					   node);
	}
	if (!dq->ent || (full && (!dq->src || !dq->weight))) {
		embm_direct_free_now(dq);
		return NULL;
	}
	dq->mask = n - 1;
	/*
	 * A hard irq_work, as perf's own wakeups: on PREEMPT_RT a lazy one
	 * waits for its CPU's irq_work thread, parked when the CPU goes
	 * offline, and embm_direct_free() would wait for it.
	 */
	dq->wake = IRQ_WORK_INIT_HARD(embm_direct_wake);
	for (k = 0; k < EMBM_MAX_EVENTS; k++) {
		dq->ctx[k].dq = dq;
		dq->ctx[k].kind = k;
	}
	return dq;
}

/**
 * embm_direct_bytes() - the memory of a queue from embm_direct_alloc()
 * @dq: the queue
 *
 * Context: any.
 * Return: its size in bytes.
 */
size_t embm_direct_bytes(const struct embm_direct *dq)
{
	size_t entry = sizeof(*dq->ent) + (dq->src ? sizeof(*dq->src) + sizeof(*dq->weight) : 0);

	return sizeof(*dq) + (size_t)(dq->mask + 1) * entry;
}

/**
 * embm_direct_set_reader() - who the writer wakes when the queue is half full
 * @dq: the queue
 * @reader: a task that may be woken at any time (kept referenced until
 *	the queue is freed), or NULL: nobody
 *
 * Context: any; the caller serialises the calls for @dq.
 */
void embm_direct_set_reader(struct embm_direct *dq, struct task_struct *reader)
{
	WRITE_ONCE(dq->reader, reader);
}

/**
 * embm_direct_free() - free a queue once its events are released
 * @dq: the queue, or NULL
 *
 * perf_event_release_kernel() returns once no handler of the event or of
 * its children runs, nor can run again (perf_swevent_event() and a PMU
 * driver's drain call it with IRQs off, which holds off the removal from
 * the context).  A wake they queued is waited for.  The queue is still
 * freed after an RCU grace period, as perf frees the events.
 *
 * Context: process.
 */
void embm_direct_free(struct embm_direct *dq)
{
	if (!dq)
		return;
	irq_work_sync(&dq->wake);
	call_rcu(&dq->rcu, embm_direct_free_rcu);
}

/**
 * embm_direct_context() - the overflow handler's context for an event
 * @dq: the queue of the event's CPU
 * @kind: the event's kind, below EMBM_MAX_EVENTS
 *
 * Events inherited from the event keep the context: they are bound to the
 * same CPU.
 *
 * Context: any.
 * Return: what to give perf_event_create_kernel_counter() as context with
 * embm_direct_overflow().
 */
void *embm_direct_context(struct embm_direct *dq, int kind)
{
	return &dq->ctx[kind];
}

/*
 * Queue entry @e of a sample of @kind, with @data_src and @weight in a full
 * queue, or count the sample lost when the queue is full.  The push that
 * fills the queue to half wakes its reader.  Context: the writer of @dq.
 */
static bool embm_direct_put(struct embm_direct *dq, u64 e, int kind, u64 data_src, u32 weight)
{
	u64 head = dq->head, used;
	unsigned int i = head & dq->mask;

	/* Acquire: the reader is done with the entry before we reuse it. */
	used = head - smp_load_acquire(&dq->tail);
	if (used > dq->mask) {
		WRITE_ONCE(dq->lost[kind], dq->lost[kind] + 1);
		return false;
	}
	dq->ent[i] = e;
	if (dq->src) {
		dq->src[i] = data_src;
		dq->weight[i] = weight;
	}
	/* Release: the entry is written before the reader sees it. */
	smp_store_release(&dq->head, head + 1);
	/* Fill levels rise one at a time: each rise to half is seen. */
	if (used + 1 == (dq->mask + 1) / 2)
		irq_work_queue(&dq->wake);
	return true;
}

/**
 * embm_direct_push() - queue one sample
 * @dq: the queue, written by one writer at a time
 * @phys: its physical address, or 0 for none
 * @order: log2 of the base pages of its mapping, at most 31
 * @kind: its event's kind, below EMBM_MAX_EVENTS
 * @user: taken in user mode
 * @data_src: its perf_mem_data_src (kept by a full queue only)
 * @weight: its latency (kept by a full queue only)
 *
 * The push that fills the queue to half wakes its reader.
 *
 * Context: the writer of @dq (see the top of this file); never sleeps.
 * Return: false if the queue was full (the sample is counted lost).
 */
static bool embm_direct_push(struct embm_direct *dq, u64 phys, unsigned int order, int kind,
			     bool user, u64 data_src, u32 weight)
{
	return embm_direct_put(dq, (phys & PAGE_MASK) | (user ? EMBM_DIRECT_USER : 0) |
			       FIELD_PREP(EMBM_DIRECT_ORDER, min(order, 31U)) | kind, kind,
			       data_src, weight);
}

/*
 * A task mark for @pid and @tid (thread-group id and id), unless the last
 * one queued is theirs; counted as a lost sample of @kind when the queue
 * has no room.  Context: the writer of @dq.
 */
static bool embm_direct_push_task(struct embm_direct *dq, u32 pid, u32 tid, int kind)
{
	u64 task = ((u64)pid << EMBM_DIRECT_PID_BITS) | tid;

	if (likely(dq->task == task))
		return true;
	if (!embm_direct_put(dq, (task << PAGE_SHIFT) | EMBM_DIRECT_TASK | kind, kind, 0, 0))
		return false;
	dq->task = task;
	return true;
}

/**
 * embm_direct_push_period() - queue one sample with its period
 * @dq: the queue, written by one writer at a time
 * @phys: its physical address, or 0 for none
 * @order: log2 of the base pages of its mapping, at most 31
 * @kind: its event's kind, below EMBM_MAX_EVENTS
 * @period: the events it stands for, below 2^(64 - PAGE_SHIFT)
 * @user: taken in user mode
 * @data_src: its perf_mem_data_src (kept by a full queue only)
 * @weight: its latency (kept by a full queue only)
 *
 * A period other than the last one queued for @kind goes first, as a mark
 * that the reader keeps for the kind's samples after it (an entry of its
 * own: periods change seldom).  When the queue has no room for both, the
 * sample is counted lost once.
 *
 * Context: the writer of @dq; never sleeps.
 * Return: false if the queue was full.
 */
static bool embm_direct_push_period(struct embm_direct *dq, u64 phys, unsigned int order,
				    int kind, u64 period, bool user, u64 data_src, u32 weight)
{
	if (unlikely(dq->period[kind] != period)) {
		if (!embm_direct_put(dq, (period << PAGE_SHIFT) | EMBM_DIRECT_MARK | kind, kind,
				     0, 0))
			return false;
		dq->period[kind] = period;
	}
	return embm_direct_push(dq, phys, order, kind, user, data_src, weight);
}

/* Is @pfn in the huge zero page (THP)?  Context: any. */
static bool embm_huge_zero(unsigned long pfn)
{
#ifdef CONFIG_TRANSPARENT_HUGEPAGE
	return (pfn & ~(HPAGE_PMD_NR - 1UL)) == READ_ONCE(huge_zero_pfn);
#else
	return false;
#endif
}

/**
 * embm_direct_overflow() - the overflow handler of a direct event
 * @event: the event, or one inherited from it
 * @data: perf's sample data; only its sample_flags, addr, phys_addr,
 *	data_src and weight are read, each only where sample_flags says
 *	the PMU set it
 * @regs: the registers of the access: user mode or the kernel's
 *
 * The physical address is the one the PMU gave (PERF_SAMPLE_PHYS_ADDR in
 * sample_flags: the access's own, a base page), else that of the page
 * table's mapping of @data's address, with the mapping's size.  The task
 * is current, by its ids in the pid namespace of the event (of its
 * parent, for an inherited one), as perf_event_pid() gives them in a
 * record: queued as a mark before its first sample after another task's.
 *
 * Context: the event's overflow, on its CPU, IRQs off: in the task whose
 * fault it is (a plain queue: a sample taken anywhere else, none being
 * expected, is counted lost), or in any context but NMI (a full queue: a
 * PMU driver's drain; a sample in NMI is counted lost).
 */
void embm_direct_overflow(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	struct embm_direct_ctx *ctx = event->overflow_handler_context;
	struct embm_direct *dq = ctx->dq;
	struct perf_event *ev;
	/* perf_sample_data_init() sets addr only when it is not 0. */
	u64 virt = data->sample_flags & PERF_SAMPLE_ADDR ? data->addr : 0;
	u64 phys, size, data_src = 0;
	u32 weight = 0;

	lockdep_assert_irqs_disabled();
	if (unlikely(dq->src ? in_nmi() : !in_task())) {
		atomic64_inc(&dq->lost_elsewhere[ctx->kind]);
		return;
	}
	size = 0;
	if (data->sample_flags & PERF_SAMPLE_PHYS_ADDR) {
		/* The PMU's own: the access's address, one access. */
		phys = data->phys_addr;
	} else {
		/*
		 * A user page's mapping (a fault's): how many base pages it
		 * mapped.  Not a kernel address's, whose direct map may be a
		 * huge page.
		 */
		phys = perf_sample_phys_addr(virt, virt < TASK_SIZE ? &size : NULL);
	}
	if (data->sample_flags & PERF_SAMPLE_DATA_SRC)
		data_src = data->data_src.val;
	/* WEIGHT and WEIGHT_STRUCT: the latency is the low 32 bits. */
	if (data->sample_flags & PERF_SAMPLE_WEIGHT_TYPE)
		weight = data->weight.var1_dw;
	/*
	 * A read of never-written memory maps the zero page, whose address
	 * perf does not give; the huge zero page's it does: neither is the
	 * program's memory.
	 */
	if (size > PAGE_SIZE && embm_huge_zero(PHYS_PFN(phys))) {
		phys = 0;
		size = 0;
	}
	/* The ids as perf writes them in a record: in the event's namespace. */
	ev = event->parent ?: event;
	if (!embm_direct_push_task(dq, task_tgid_nr_ns(current, ev->ns),
				   task_pid_nr_ns(current, ev->ns), ctx->kind))
		return;
	/* The period perf counted the sample with: the events it stands for. */
	embm_direct_push_period(dq, phys, size > PAGE_SIZE ? ilog2(size) - PAGE_SHIFT : 0,
				ctx->kind, data->period, regs && user_mode(regs), data_src, weight);
}

/**
 * embm_direct_read() - consume every queued sample
 * @dq: the queue
 * @fn: called with each sample (struct embm_direct_sample): its period and
 *	task are those of the last marks read
 * @arg: passed to @fn
 *
 * Context: a reader of the queue, serialised with the others by the
 * sampler's lock; process or any, as @fn allows.
 * Return: the number of samples read (marks are not samples).
 */
unsigned int embm_direct_read(struct embm_direct *dq, embm_direct_fn fn, void *arg)
{
	/* Acquire pairs with the writer's release of head. */
	u64 head = smp_load_acquire(&dq->head), tail = dq->tail, e;
	struct embm_direct_sample ds;
	unsigned int n = 0, i;
	int k;

	for (; tail != head; tail++) {
		i = tail & dq->mask;
		e = READ_ONCE(dq->ent[i]);
		k = e & EMBM_DIRECT_KIND;
		if (e & EMBM_DIRECT_MARK) {
			dq->rd_period[k] = e >> PAGE_SHIFT;
			continue;
		}
		if (e & EMBM_DIRECT_TASK) {
			dq->rd_task = e >> PAGE_SHIFT;
			continue;
		}
		ds = (struct embm_direct_sample){
			.phys = e & PAGE_MASK,
			.order = FIELD_GET(EMBM_DIRECT_ORDER, e),
			.kind = k,
			.period = dq->rd_period[k],
			.user = e & EMBM_DIRECT_USER,
			.pid = dq->rd_task >> EMBM_DIRECT_PID_BITS,
			.tid = dq->rd_task & (BIT(EMBM_DIRECT_PID_BITS) - 1),
		};
		if (dq->src) {
			ds.data_src = READ_ONCE(dq->src[i]);
			ds.weight = READ_ONCE(dq->weight[i]);
		}
		fn(&ds, arg);
		n++;
	}
	/* Release: the entries are read before the writer may reuse them. */
	smp_store_release(&dq->tail, tail);
	return n;
}

/**
 * embm_direct_half_full() - is the queue at least half full?
 * @dq: the queue
 *
 * For its reader, before it sleeps: a wake that came while it was awake
 * found it running, and the writer sends no second one.
 *
 * Context: a reader of the queue.
 * Return: true if it holds half its entries or more.
 */
bool embm_direct_half_full(struct embm_direct *dq)
{
	/* Acquire pairs with the writer's release of head. */
	return smp_load_acquire(&dq->head) - dq->tail >= (dq->mask + 1) / 2;
}

/**
 * embm_direct_lost() - take the count of samples the queue dropped
 * @dq: the queue
 * @by_kind: EMBM_MAX_EVENTS counts, each increased by the samples of
 *	its kind dropped since the last call
 *
 * Context: a reader of the queue (see embm_direct_read()).
 * Return: the samples dropped since the last call, of every kind (full
 * queue, or taken outside task context).
 */
u64 embm_direct_lost(struct embm_direct *dq, u64 *by_kind)
{
	u64 full, n, sum = 0;
	int k;

	for (k = 0; k < EMBM_MAX_EVENTS; k++) {
		full = READ_ONCE(dq->lost[k]);
		n = full - dq->lost_read[k] + atomic64_xchg(&dq->lost_elsewhere[k], 0);
		dq->lost_read[k] = full;
		by_kind[k] += n;
		sum += n;
	}
	return sum;
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/direct-kunit.h"
#endif
