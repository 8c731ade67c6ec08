/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of ksamplingd.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions: the period changes and
 * the CPU budget.
 */
#ifndef __MM_EMBM_TESTS_KSAMPLINGD_KUNIT_H
#define __MM_EMBM_TESTS_KSAMPLINGD_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/sched/task.h>

/* A disabled software event on @cpu; a counting one if @period is 0. */
static struct perf_event *embm_test_event(struct kunit *test, int cpu, u64 period)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_PAGE_FAULTS_MIN,
		.sample_period	= period,
		.disabled	= 1,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	return event;
}

/*
 * A sampler with no event yet, CPUs and periods 1, freed with the test
 * (its lock and xarray are the caller's to destroy); NULL without memory.
 */
static struct embm_sampler *embm_kunit_sampler(struct kunit *test)
{
	struct embm_sampler *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	if (!s)
		return NULL;
	s->cpu = kunit_kcalloc(test, nr_cpu_ids, sizeof(*s->cpu), GFP_KERNEL);
	if (!s->cpu)
		return NULL;
	mutex_init(&s->lock);
	xa_init(&s->ids);
	s->status.period = 1;
	s->status.store_period = 1;
	return s;
}

/*
 * A period change perf refuses for one event leaves every event and the
 * reported period as they were, and is counted.
 */
static void ksamplingd_set_periods_test(struct kunit *test)
{
	int cpu = cpumask_first(cpu_online_mask);
	struct embm_sampler *s = embm_kunit_sampler(test);
	struct embm_cpu *c;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->nr_descs = 1;

	c = &s->cpu[cpu];
	c->evs = kunit_kcalloc(test, 3, sizeof(*c->evs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->evs);
	c->room = 3;
	/* Two sampling events, and between them one perf refuses a period for. */
	for (i = 0; i < 3; i++) {
		struct perf_event *ev = embm_test_event(test, cpu, i == 1 ? 0 : 1);

		c->evs[c->nr_events++] = (struct embm_ev){ .event = ev, .id = ev->id };
		KUNIT_ASSERT_EQ(test, 0, xa_err(xa_store(&s->ids, ev->id, xa_mk_value(0),
							 GFP_KERNEL)));
	}

	KUNIT_EXPECT_EQ(test, -EINVAL, ksamplingd_set_periods(s, 8, 8, "kunit"));
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period_errors);
	KUNIT_EXPECT_EQ(test, 0ULL, s->status.period_changes);
	KUNIT_EXPECT_EQ(test, 1ULL, c->evs[0].event->attr.sample_period);
	KUNIT_EXPECT_EQ(test, 1ULL, c->evs[2].event->attr.sample_period);

	/* Without it, the change applies to all. */
	perf_event_release_kernel(c->evs[1].event);
	c->evs[1] = c->evs[2];
	c->nr_events = 2;
	KUNIT_EXPECT_EQ(test, 0, ksamplingd_set_periods(s, 8, 8, "kunit"));
	KUNIT_EXPECT_EQ(test, 8ULL, s->status.period);
	KUNIT_EXPECT_EQ(test, 8ULL, s->status.period_max);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period_changes);
	KUNIT_EXPECT_STREQ(test, "kunit", s->status.period_why);
	KUNIT_EXPECT_EQ(test, 8ULL, c->evs[0].event->attr.sample_period);
	KUNIT_EXPECT_EQ(test, 8ULL, c->evs[1].event->attr.sample_period);

	for (i = 0; i < c->nr_events; i++)
		perf_event_release_kernel(c->evs[i].event);
	xa_destroy(&s->ids);
	mutex_destroy(&s->lock);
}

/* Run the budget as if its last round ended 200 ms ago. */
static void embm_kunit_adapt(struct embm_sampler *s, u64 samples, u64 cpu_ns)
{
	u64 last = ktime_get_ns() - EMBM_ADAPT_MS * NSEC_PER_MSEC;

	s->win_samples = samples;
	s->win_ns = cpu_ns;
	ksamplingd_adapt(s, &last);
}

/*
 * The CPU budget acts on samples x the least cost of one: ksamplingd's CPU
 * time inflated by the host (150 ms in a round of 10 samples: 75% of a CPU
 * for the whole-thread measure) moves nothing, many cheap samples raise
 * the period, and none bring it back down to the base.
 */
static void embm_budget_test(struct kunit *test)
{
	static const struct embm_source src = { .name = "kunit", .period = 1 };
	struct embm_sampler *s = embm_kunit_sampler(test);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->src = &src;
	s->cfg.cpu_budget = 30;
	s->base_period = 1;
	s->base_store = 1;

	/* Too few samples to measure a cost; nothing to answer for. */
	embm_kunit_adapt(s, 10, 150 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, 0ULL, s->status.sample_cost_ns);
	KUNIT_EXPECT_EQ(test, 0ULL, s->status.budget_used);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period);
	/* 1,000 samples at 1 us: 5 permille, under the budget. */
	embm_kunit_adapt(s, 1000, 1000 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, 1000ULL, s->status.sample_cost_ns);
	KUNIT_EXPECT_LE(test, s->status.budget_used, 5ULL);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period);
	/* 100,000 samples, measured at 2 us (a stalled host): 1 us counts. */
	embm_kunit_adapt(s, 100000, 200 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, 1000ULL, s->status.sample_cost_ns);
	KUNIT_EXPECT_GE(test, s->status.budget_used, 490ULL);
	KUNIT_EXPECT_EQ(test, 2ULL, s->status.period);
	KUNIT_EXPECT_EQ(test, 2ULL, s->status.period_max);
	KUNIT_EXPECT_EQ(test, 0, strncmp(s->status.period_why, "cpu_budget: ", 12));
	/* Nothing sampled: back down, never below the base. */
	embm_kunit_adapt(s, 0, 0);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period);
	embm_kunit_adapt(s, 0, 0);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period);
	KUNIT_EXPECT_EQ(test, 2ULL, s->status.period_changes);
	KUNIT_EXPECT_EQ(test, 2ULL, s->status.period_max);
	/* Without a budget the cost is measured, the period left alone. */
	s->cfg.cpu_budget = 0;
	embm_kunit_adapt(s, 100000, 200 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, 1ULL, s->status.period);
	KUNIT_EXPECT_GE(test, s->status.budget_used, 490ULL);
	xa_destroy(&s->ids);
	mutex_destroy(&s->lock);
}

/* A kernel_thread() child: returning would mean going to user space. */
static int embm_test_child(void *arg)
{
	wait_for_completion(arg);
	do_exit(0);
}

/*
 * A thread forked after an inherited event was made gets a child event;
 * perf_kernel_counter_period() changes the child's period with its
 * parent's (perf_event_period() would change the parent's alone).
 */
static void embm_child_period_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.size		= sizeof(attr),
		.type		= PERF_TYPE_SOFTWARE,
		.config		= PERF_COUNT_SW_PAGE_FAULTS_MIN,
		.sample_period	= 1,
		.disabled	= 1,
		.inherit	= 1,
	};
	unsigned int children = 0, changed = 0;
	struct perf_event *event, *child;
	struct completion *go;
	pid_t pid;

	go = kunit_kzalloc(test, sizeof(*go), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, go);
	init_completion(go);
	event = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	pid = kernel_thread(embm_test_child, go, "embm-kunit-child", SIGCHLD);
	if (pid < 0) {
		perf_event_release_kernel(event);
		KUNIT_FAIL(test, "kernel_thread: %d", pid);
		return;
	}
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_counter_period(event, 8));
	mutex_lock(&event->child_mutex);
	list_for_each_entry(child, &event->child_list, child_list) {
		children++;
		/* Never run: a whole new period, no count under way. */
		changed += child->attr.sample_period == 8 && child->hw.sample_period == 8 &&
			   local64_read(&child->hw.period_left) == -8;
	}
	mutex_unlock(&event->child_mutex);
	complete(go);
	kernel_wait(pid, NULL);
	KUNIT_EXPECT_EQ(test, 1U, children);
	KUNIT_EXPECT_EQ(test, children, changed);
	KUNIT_EXPECT_EQ(test, 8ULL, event->attr.sample_period);
	perf_event_release_kernel(event);
}

/*
 * The interval to the next round follows the fastest-filling ring: the
 * time it takes to fill a quarter at the rate it filled, within the
 * bounds, at most twice the last interval; no samples: the longest.  A
 * source with no records in its rings (swfault) has one-page rings.
 */
static void ksamplingd_next_wake_test(struct kunit *test)
{
	struct embm_sampler *s = embm_kunit_sampler(test);
	u64 quarter, ms = NSEC_PER_MSEC;
	int cpu = cpumask_first(cpu_possible_mask);
	int last = cpumask_last(cpu_possible_mask);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->records = true;
	s->cfg.ring_pages = 64;
	quarter = 64 * PAGE_SIZE / 4;
	KUNIT_EXPECT_EQ(test, 64, embm_ring_pages(s));

	/* A quarter in 10 ms: 10 ms again; the fullest CPU counts. */
	s->status.wake_us = 10000;
	s->cpu[cpu].filled = quarter / 8;
	s->cpu[last].filled = quarter;
	KUNIT_EXPECT_EQ(test, 10000, ksamplingd_next_wake(s, 10 * ms));
	KUNIT_EXPECT_EQ(test, 0, s->cpu[cpu].filled);
	KUNIT_EXPECT_EQ(test, 0, s->cpu[last].filled);
	/* A whole ring in 10 ms: 2.5 ms. */
	s->cpu[last].filled = 4 * quarter;
	KUNIT_EXPECT_EQ(test, 2500, ksamplingd_next_wake(s, 10 * ms));
	/* Faster than the shortest interval allows: the shortest. */
	s->cpu[cpu].filled = 4 * quarter;
	KUNIT_EXPECT_EQ(test, EMBM_WAKE_MIN_US, ksamplingd_next_wake(s, ms / 10));
	/* Then nothing: doubling, up to the longest, not at once. */
	s->status.wake_us = EMBM_WAKE_MIN_US;
	KUNIT_EXPECT_EQ(test, 2 * EMBM_WAKE_MIN_US, ksamplingd_next_wake(s, ms));
	s->status.wake_us = EMBM_WAKE_MAX_US;
	KUNIT_EXPECT_EQ(test, EMBM_WAKE_MAX_US, ksamplingd_next_wake(s, 100 * ms));
	/* A slow trickle: the longest. */
	s->cpu[cpu].filled = 64;
	KUNIT_EXPECT_EQ(test, EMBM_WAKE_MAX_US, ksamplingd_next_wake(s, 100 * ms));

	/* Direct events only: a one-page ring, whatever ring_pages says. */
	s->records = false;
	KUNIT_EXPECT_EQ(test, 1, embm_ring_pages(s));
	s->cpu[cpu].filled = PAGE_SIZE / 4;
	s->status.wake_us = 10000;
	KUNIT_EXPECT_EQ(test, 10000, ksamplingd_next_wake(s, 10 * ms));
	mutex_destroy(&s->lock);
	xa_destroy(&s->ids);
}

static struct kunit_case embm_ksamplingd_test_cases[] = {
	KUNIT_CASE(ksamplingd_set_periods_test),
	KUNIT_CASE(embm_budget_test),
	KUNIT_CASE(embm_child_period_test),
	KUNIT_CASE(ksamplingd_next_wake_test),
	{}
};

static struct kunit_suite embm_ksamplingd_test_suite = {
	.name = "embm_ksamplingd",
	.test_cases = embm_ksamplingd_test_cases,
};

kunit_test_suite(embm_ksamplingd_test_suite);

#endif /* __MM_EMBM_TESTS_KSAMPLINGD_KUNIT_H */
