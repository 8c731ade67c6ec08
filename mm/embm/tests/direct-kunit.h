/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of direct.c, included at the end of it.
 */
#ifndef __MM_EMBM_TESTS_DIRECT_KUNIT_H
#define __MM_EMBM_TESTS_DIRECT_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/delay.h>
#include <linux/kthread.h>

struct embm_direct_seen {
	u64 phys[8];
	unsigned int order[8];
	int kind[8];
	u64 period[8];
	bool user[8];
	u32 pid[8], tid[8];
	u64 data_src[8];
	u32 weight[8];
	unsigned int n;
};

static void embm_direct_seen_fn(const struct embm_direct_sample *ds, void *arg)
{
	struct embm_direct_seen *seen = arg;

	if (seen->n < ARRAY_SIZE(seen->phys)) {
		seen->phys[seen->n] = ds->phys;
		seen->order[seen->n] = ds->order;
		seen->kind[seen->n] = ds->kind;
		seen->period[seen->n] = ds->period;
		seen->user[seen->n] = ds->user;
		seen->pid[seen->n] = ds->pid;
		seen->tid[seen->n] = ds->tid;
		seen->data_src[seen->n] = ds->data_src;
		seen->weight[seen->n] = ds->weight;
	}
	seen->n++;
}

/* The samples a queue dropped, all kinds, and those of @kind. */
static u64 embm_direct_kunit_lost(struct embm_direct *dq, int kind, u64 *of_kind)
{
	u64 by_kind[EMBM_MAX_EVENTS] = {}, sum;

	sum = embm_direct_lost(dq, by_kind);
	*of_kind = by_kind[kind];
	return sum;
}

/*
 * In order, page, mapping order and kind kept apart, across the end of the
 * queue; a full queue drops and counts by kind, and takes samples again
 * once read.
 */
static void embm_direct_queue_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_alloc(3, 0, false);
	struct embm_direct_seen seen = { };
	int i, round;
	u64 of_kind;

	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_EXPECT_EQ(test, 3U, dq->mask);	/* 3 rounded up to 4 */
	KUNIT_EXPECT_EQ(test, sizeof(*dq) + 4 * sizeof(u64), embm_direct_bytes(dq));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(10 + i) + 123,
								 i * 6, i, i & 1, 0, 0));
		KUNIT_EXPECT_FALSE(test, embm_direct_push(dq, PFN_PHYS(99), 0, 7, false, 0, 0));
		KUNIT_EXPECT_EQ(test, 1ULL, embm_direct_kunit_lost(dq, 7, &of_kind));
		KUNIT_EXPECT_EQ(test, 1ULL, of_kind);
		KUNIT_EXPECT_EQ(test, 0ULL, embm_direct_kunit_lost(dq, 7, &of_kind));
		seen.n = 0;
		KUNIT_EXPECT_EQ(test, 4U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
		KUNIT_ASSERT_EQ(test, 4U, seen.n);
		for (i = 0; i < 4; i++) {
			KUNIT_EXPECT_EQ(test, PFN_PHYS(10 + i), seen.phys[i]);
			KUNIT_EXPECT_EQ(test, i * 6U, seen.order[i]);
			KUNIT_EXPECT_EQ(test, i, seen.kind[i]);
			KUNIT_EXPECT_EQ(test, (bool)(i & 1), seen.user[i]);
		}
		/* Half a queue, so that the next round wraps around its end. */
		KUNIT_EXPECT_TRUE(test,
				  embm_direct_push(dq, 0, 31, EMBM_MAX_EVENTS - 1, true, 0, 0));
		KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(5), 0, 2, false, 0, 0));
		seen.n = 0;
		KUNIT_EXPECT_EQ(test, 2U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
		KUNIT_EXPECT_EQ(test, 0ULL, seen.phys[0]);
		KUNIT_EXPECT_EQ(test, 31U, seen.order[0]);
		KUNIT_EXPECT_EQ(test, EMBM_MAX_EVENTS - 1, seen.kind[0]);
		KUNIT_EXPECT_EQ(test, PFN_PHYS(5), seen.phys[1]);
		KUNIT_EXPECT_EQ(test, 0U, seen.order[1]);
	}
	KUNIT_EXPECT_EQ(test, 0U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	embm_direct_free(dq);
}

/*
 * The handler as perf calls it: the kind from its context, the physical
 * address of the sample's address (a kernel one here: a kernel thread has
 * no user pages), and a sample of address 0, whose data keeps the address
 * of the sample before (perf_sample_data_init() sets it only when not 0):
 * no address, not that one's.
 */
static void embm_direct_overflow_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_alloc(8, 0, false);
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct perf_sample_data data = { };
	struct embm_direct_seen seen = { };
	struct page *page = alloc_page(GFP_KERNEL);
	u64 of_kind;

	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_ASSERT_NOT_NULL(test, event);
	KUNIT_ASSERT_NOT_NULL(test, page);
	event->overflow_handler_context = embm_direct_context(dq, 1);
	perf_sample_data_init(&data, (u64)(uintptr_t)page_address(page) + 100, 1);
	local_irq_disable();	/* as perf_swevent_event() calls it */
	embm_direct_overflow(event, &data, NULL);
	event->overflow_handler_context = embm_direct_context(dq, 0);
	/* Address 0: perf_sample_data_init() leaves addr as it was. */
	perf_sample_data_init(&data, 0, 1);
	embm_direct_overflow(event, &data, NULL);
	/* Kind 1 again, its period now 16, then 16 again: one more mark. */
	event->overflow_handler_context = embm_direct_context(dq, 1);
	perf_sample_data_init(&data, 0, 16);
	embm_direct_overflow(event, &data, NULL);
	embm_direct_overflow(event, &data, NULL);
	local_irq_enable();
	/*
	 * A task mark (this thread's, once), period marks (1, 1, 16) and four
	 * samples in the queue; samples read, none in user mode.
	 */
	KUNIT_EXPECT_EQ(test, 8ULL, dq->head);
	KUNIT_EXPECT_EQ(test, 4U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	KUNIT_EXPECT_EQ(test, (u32)task_tgid_nr(current), seen.pid[3]);
	KUNIT_EXPECT_EQ(test, (u32)task_pid_nr(current), seen.tid[3]);
	KUNIT_EXPECT_FALSE(test, seen.user[0]);
	KUNIT_EXPECT_EQ(test, 1ULL, seen.period[0]);
	KUNIT_EXPECT_EQ(test, 1ULL, seen.period[1]);
	KUNIT_EXPECT_EQ(test, 16ULL, seen.period[2]);
	KUNIT_EXPECT_EQ(test, 1, seen.kind[2]);
	KUNIT_EXPECT_EQ(test, 16ULL, seen.period[3]);
	KUNIT_EXPECT_EQ(test, PFN_PHYS(page_to_pfn(page)), seen.phys[0]);
	/* A kernel address: its direct map's page size is not a fault's. */
	KUNIT_EXPECT_EQ(test, 0U, seen.order[0]);
	KUNIT_EXPECT_EQ(test, 1, seen.kind[0]);
	KUNIT_EXPECT_EQ(test, 0ULL, seen.phys[1]);
	KUNIT_EXPECT_EQ(test, 0, seen.kind[1]);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_direct_kunit_lost(dq, 0, &of_kind));
	__free_page(page);
	embm_direct_free(dq);
}

KUNIT_DEFINE_ACTION_WRAPPER(embm_direct_free_action, embm_direct_free, struct embm_direct *);

/* A queue freed when the test ends, however it ends. */
static struct embm_direct *embm_direct_kunit_alloc(struct kunit *test, unsigned int n, bool full)
{
	struct embm_direct *dq = embm_direct_alloc(n, 0, full);

	if (dq && kunit_add_action_or_reset(test, embm_direct_free_action, dq))
		return NULL;
	return dq;
}

/* A handler call from a hard IRQ: an hrtimer's callback. */
struct embm_direct_hardirq {
	struct hrtimer timer;
	struct perf_event *event;
	struct perf_sample_data *data;
	bool in_task;
	struct completion done;
};

static enum hrtimer_restart embm_direct_hardirq_fn(struct hrtimer *timer)
{
	struct embm_direct_hardirq *h = container_of(timer, struct embm_direct_hardirq, timer);

	h->in_task = in_task();
	embm_direct_overflow(h->event, h->data, NULL);
	complete(&h->done);
	return HRTIMER_NORESTART;
}

/*
 * Call the handler of @event with @data from a hard IRQ, as a PMU driver's
 * drain does.  Return: whether it ran (within 10 s).
 */
static bool embm_direct_kunit_hardirq(struct perf_event *event, struct perf_sample_data *data,
				      bool *in_task)
{
	struct embm_direct_hardirq h = { .event = event, .data = data, .in_task = true };
	unsigned long left;

	init_completion(&h.done);
	hrtimer_init_on_stack(&h.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	h.timer.function = embm_direct_hardirq_fn;
	hrtimer_start(&h.timer, ns_to_ktime(1000), HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&h.done, 10 * HZ);
	/* Not armed, nor running, before the frame may go. */
	hrtimer_cancel(&h.timer);
	destroy_hrtimer_on_stack(&h.timer);
	*in_task = h.in_task;
	return left;
}

/*
 * A sample taken outside task context is not queued in a plain queue (it
 * has one writer, the faulting task) but counted lost, once.
 */
static void embm_direct_not_in_task_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_kunit_alloc(test, 8, false);
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct perf_sample_data data = { };
	struct embm_direct_seen seen = { };
	bool in_task = true;
	u64 of_kind;

	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_ASSERT_NOT_NULL(test, event);
	event->overflow_handler_context = embm_direct_context(dq, 1);
	perf_sample_data_init(&data, 0, 1);
	KUNIT_ASSERT_TRUE(test, embm_direct_kunit_hardirq(event, &data, &in_task));
	KUNIT_EXPECT_FALSE(test, in_task);
	KUNIT_EXPECT_EQ(test, 0U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	KUNIT_EXPECT_EQ(test, 1ULL, embm_direct_kunit_lost(dq, 1, &of_kind));
	KUNIT_EXPECT_EQ(test, 1ULL, of_kind);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_direct_kunit_lost(dq, 1, &of_kind));
}

/*
 * A full queue takes a PMU's samples from a hard IRQ (a driver's drain):
 * each with the physical address the PMU gave, not the page table's (the
 * virtual address here maps nothing), as one access (order 0), with its
 * data source and weight and the period; three queued before each read,
 * around the queue's end: its three arrays kept in step.
 */
static void embm_direct_full_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_kunit_alloc(test, 8, true);
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct perf_sample_data data = { };
	struct embm_direct_seen seen = { };
	bool in_task = true;
	unsigned int i, j, k;
	u64 of_kind;

	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_ASSERT_NOT_NULL(test, event);
	KUNIT_EXPECT_EQ(test, sizeof(*dq) + 8 * (2 * sizeof(u64) + sizeof(u32)),
			embm_direct_bytes(dq));
	event->overflow_handler_context = embm_direct_context(dq, 1);
	for (i = 0; i < 5; i++) {
		for (j = 0; j < 3; j++) {
			k = 3 * i + j;
			perf_sample_data_init(&data, 0x7f0000000000ULL + PFN_PHYS(k) + 8,
					      97 + i / 2);
			data.phys_addr = PFN_PHYS(1000 + k) + 0x234;
			data.data_src.val = 0x123456789aULL + k;
			data.weight.full = 0xdead00000000ULL | (300 + k);
			data.sample_flags |= PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC |
					     PERF_SAMPLE_WEIGHT_STRUCT;
			KUNIT_ASSERT_TRUE(test, embm_direct_kunit_hardirq(event, &data, &in_task));
			KUNIT_EXPECT_FALSE(test, in_task);
		}
		seen.n = 0;
		KUNIT_ASSERT_EQ(test, 3U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
		for (j = 0; j < 3; j++) {
			k = 3 * i + j;
			KUNIT_EXPECT_EQ(test, PFN_PHYS(1000 + k), seen.phys[j]);
			KUNIT_EXPECT_EQ(test, 0U, seen.order[j]);
			KUNIT_EXPECT_EQ(test, 1, seen.kind[j]);
			KUNIT_EXPECT_EQ(test, 97ULL + i / 2, seen.period[j]);
			KUNIT_EXPECT_EQ(test, 0x123456789aULL + k, seen.data_src[j]);
			KUNIT_EXPECT_EQ(test, 300U + k, seen.weight[j]);
		}
	}
	KUNIT_EXPECT_EQ(test, 0ULL, embm_direct_kunit_lost(dq, 1, &of_kind));
	/* A plain queue's samples say no data source or weight. */
	dq = embm_direct_kunit_alloc(test, 4, false);
	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(3), 0, 0, false, 5, 6));
	seen.n = 0;
	KUNIT_ASSERT_EQ(test, 1U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	KUNIT_EXPECT_EQ(test, 0ULL, seen.data_src[0]);
	KUNIT_EXPECT_EQ(test, 0U, seen.weight[0]);
}

#define EMBM_DIRECT_STRESS	200000

/* The writer of the stress test: every sample once, in order, retried when full. */
struct embm_direct_writer {
	struct embm_direct *dq;
	u64 full;		/* pushes refused */
	struct completion done;
};

static int embm_direct_writer_fn(void *arg)
{
	struct embm_direct_writer *w = arg;
	unsigned long flags;
	u64 i;
	bool ok;

	for (i = 0; i < EMBM_DIRECT_STRESS; i++) {
		for (;;) {
			local_irq_save(flags);	/* as perf_swevent_event() calls it */
			ok = embm_direct_push(w->dq, PFN_PHYS(i + 1), 0, i % EMBM_MAX_EVENTS,
					      false, 0, 0);
			local_irq_restore(flags);
			if (ok)
				break;
			w->full++;
			cond_resched();
		}
	}
	complete(&w->done);
	return 0;
}

struct embm_direct_check {
	u64 next, bad;
};

static void embm_direct_check_fn(const struct embm_direct_sample *ds, void *arg)
{
	struct embm_direct_check *c = arg;

	if (ds->phys != PFN_PHYS(c->next + 1) || (u64)ds->kind != c->next % EMBM_MAX_EVENTS)
		c->bad++;
	c->next++;
}

/*
 * One writer on one CPU, this reader on another, as the page faults and
 * ksamplingd are: a small queue that fills often, read while written.
 * Every sample arrives once and in order, and each refused push is
 * counted lost.  This exercises the indexes, the full queue and the
 * counts under real concurrency; on x86 (TSO) it cannot show a missing
 * acquire or release, which only KCSAN's weak-memory mode would.
 */
static void embm_direct_concurrent_test(struct kunit *test)
{
	struct embm_direct_writer w = { .dq = embm_direct_kunit_alloc(test, 64, false) };
	struct embm_direct_check c = { };
	struct task_struct *t;
	u64 of_kind;
	int cpu;

	KUNIT_ASSERT_NOT_NULL(test, w.dq);
	init_completion(&w.done);
	/* The reader stays on its CPU; the writer goes to another. */
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		kunit_skip(test, "one CPU online: no second CPU for the writer");
	}
	t = kthread_create(embm_direct_writer_fn, &w, "embm-kunit-writer");
	if (IS_ERR(t)) {
		migrate_enable();
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(t));
		return;
	}
	kthread_bind(t, cpu);
	wake_up_process(t);
	while (!completion_done(&w.done)) {
		embm_direct_read(w.dq, embm_direct_check_fn, &c);
		cond_resched();
	}
	migrate_enable();
	wait_for_completion(&w.done);
	embm_direct_read(w.dq, embm_direct_check_fn, &c);
	KUNIT_EXPECT_EQ(test, (u64)EMBM_DIRECT_STRESS, c.next);
	KUNIT_EXPECT_EQ(test, 0ULL, c.bad);
	KUNIT_EXPECT_EQ(test, w.full, embm_direct_kunit_lost(w.dq, 0, &of_kind));
	kunit_info(test, "writer on CPU %d, reader on another: %llu pushes refused (queue full)",
		   cpu, w.full);
}

/* A reader that sleeps until it is woken once, then until it is stopped. */
struct embm_direct_sleeper {
	struct completion asleep;
	struct completion woken;
};

static int embm_direct_sleeper_fn(void *arg)
{
	struct embm_direct_sleeper *sl = arg;

	set_current_state(TASK_INTERRUPTIBLE);
	complete(&sl->asleep);
	schedule();
	complete(&sl->woken);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * The push that fills the queue to half wakes the reader (through an
 * irq_work), and the pushes before it do not; without a reader set,
 * nobody is woken.
 */
static void embm_direct_watermark_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_kunit_alloc(test, 16, false);
	struct embm_direct_seen seen = { };
	struct embm_direct_sleeper sl;
	struct task_struct *t;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, dq);
	init_completion(&sl.asleep);
	init_completion(&sl.woken);
	t = kthread_run(embm_direct_sleeper_fn, &sl, "embm-kunit-reader");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	wait_for_completion(&sl.asleep);
	for (i = 0; i < 8; i++) {
		/* Half full with no reader set: no wake. */
		KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(i + 1), 0, 0, false, 0, 0));
	}
	irq_work_sync(&dq->wake);
	KUNIT_EXPECT_EQ(test, 8U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	embm_direct_set_reader(dq, t);
	for (i = 0; i < 7; i++)
		KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(i + 1), 0, 0, false, 0, 0));
	irq_work_sync(&dq->wake);
	msleep(20);
	KUNIT_EXPECT_FALSE(test, completion_done(&sl.woken));
	KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(8), 0, 0, false, 0, 0));
	KUNIT_EXPECT_NE(test, 0UL, wait_for_completion_timeout(&sl.woken, 10 * HZ));
	irq_work_sync(&dq->wake);
	embm_direct_set_reader(dq, NULL);
	kthread_stop(t);
	put_task_struct(t);
}

/*
 * The privilege level from the fault's registers: a user CS queues a
 * sample in user mode, a kernel CS one in the kernel.
 */
static void embm_direct_user_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_alloc(8, 0, false);
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct perf_sample_data data = { };
	struct embm_direct_seen seen = { };
	struct pt_regs regs = { };

	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_ASSERT_NOT_NULL(test, event);
	event->overflow_handler_context = embm_direct_context(dq, 0);
	perf_sample_data_init(&data, 0, 1);
	local_irq_disable();
	regs.cs = __USER_CS;
	embm_direct_overflow(event, &data, &regs);
	regs.cs = __KERNEL_CS;
	embm_direct_overflow(event, &data, &regs);
	local_irq_enable();
	KUNIT_ASSERT_EQ(test, 2U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	KUNIT_EXPECT_TRUE(test, seen.user[0]);
	KUNIT_EXPECT_FALSE(test, seen.user[1]);
	embm_direct_free(dq);
}

static struct kunit_case embm_direct_test_cases[] = {
	KUNIT_CASE(embm_direct_user_test),
	KUNIT_CASE(embm_direct_queue_test),
	KUNIT_CASE(embm_direct_overflow_test),
	KUNIT_CASE(embm_direct_not_in_task_test),
	KUNIT_CASE(embm_direct_full_test),
	KUNIT_CASE(embm_direct_concurrent_test),
	KUNIT_CASE(embm_direct_watermark_test),
	{}
};

static struct kunit_suite embm_direct_test_suite = {
	.name = "embm_direct",
	.test_cases = embm_direct_test_cases,
};

kunit_test_suite(embm_direct_test_suite);

#endif /* __MM_EMBM_TESTS_DIRECT_KUNIT_H */
