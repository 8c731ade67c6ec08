/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of swfault.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_TESTS_SWFAULT_KUNIT_H
#define __MM_EMBM_TESTS_SWFAULT_KUNIT_H

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/slab.h>

#include "embm-kunit.h"

static void embm_swfault_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;
	int n = embm_src_swfault.setup(&args, d, &why);

	KUNIT_ASSERT_EQ(test, 2, n);
	KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_SOFTWARE, d[0].attr.type);
	KUNIT_EXPECT_EQ(test, (u64)PERF_COUNT_SW_PAGE_FAULTS_MIN, d[0].attr.config);
	KUNIT_EXPECT_EQ(test, (u64)PERF_COUNT_SW_PAGE_FAULTS_MAJ, d[1].attr.config);
	KUNIT_EXPECT_TRUE(test, d[0].attr.sample_type & PERF_SAMPLE_PHYS_ADDR);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_src_swfault.period);
	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&embm_src_swfault, &d[0].attr));
	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&embm_src_swfault, &d[1].attr));
}

/*
 * The samples perf writes for @n minor faults raised on one CPU by a
 * software event of @sample_type and @period, as the source opens them.
 */
static unsigned int swfault_samples(struct kunit *test, u64 sample_type, u64 period,
				    unsigned int n)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS_MIN,
		.size = sizeof(attr),
		.sample_period = period,
		.sample_type = sample_type,
		.disabled = 1,
	};
	struct embm_test_check c = { .sample_type = sample_type };
	int cpu = raw_smp_processor_id(), i;
	struct perf_event *event;
	struct perf_buffer *rb;
	struct pt_regs regs;
	bool fired = false;
	unsigned int j;
	void *buf;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	c.addr = (unsigned long)buf;
	event = embm_test_event(test, &attr, cpu, &rb);
	c.id = event->id;
	for (i = 0; i < 100 && !fired; i++) {
		preempt_disable();
		if (smp_processor_id() == cpu) {
			perf_fetch_caller_regs(&regs);
			for (j = 0; j < n; j++)
				perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, &regs, c.addr);
			fired = true;
		}
		preempt_enable();
		if (!fired)
			usleep_range(1000, 2000);
	}
	embm_test_collect(event, rb, &c);
	KUNIT_EXPECT_TRUE(test, fired);
	KUNIT_EXPECT_EQ(test, 0U, c.bad);
	return c.samples;
}

/*
 * The period holds for the source's events: one sample every period
 * faults.  With PERF_SAMPLE_PERIOD perf would sample every fault, as
 * perf_swevent_event() does for a software event that asks for it.
 */
static void embm_swfault_period_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;
	u64 st;

	KUNIT_ASSERT_EQ(test, 2, embm_src_swfault.setup(&args, d, &why));
	st = d[0].attr.sample_type;
	KUNIT_EXPECT_FALSE(test, st & PERF_SAMPLE_PERIOD);
	KUNIT_EXPECT_EQ(test, 16U, swfault_samples(test, st, 1, 16));
	KUNIT_EXPECT_EQ(test, 4U, swfault_samples(test, st, 4, 16));
	KUNIT_EXPECT_EQ(test, 1U, swfault_samples(test, st, 16, 16));
	KUNIT_EXPECT_EQ(test, 16U, swfault_samples(test, st | PERF_SAMPLE_PERIOD, 4, 16));
}

/* What embm's permission checks do not cover is refused to every source. */
static void embm_source_attr_ok_test(struct kunit *test)
{
	struct perf_event_attr ok = {
		.type = PERF_TYPE_SOFTWARE,
		.sample_type = EMBM_SAMPLE_TYPE_MAX,
	}, a;

	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&embm_src_swfault, &ok));
	a = ok;
	a.type = PERF_TYPE_TRACEPOINT;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_swfault, &a));
	a = ok;
	a.sample_type |= PERF_SAMPLE_REGS_INTR;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_swfault, &a));
	a = ok;
	a.sigtrap = 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_swfault, &a));
	a = ok;
	a.text_poke = 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_swfault, &a));
	a = ok;
	a.namespaces = 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_swfault, &a));
	/* A dynamic type, for a source that vouches for none. */
	a = ok;
	a.type = PERF_TYPE_MAX + 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_swfault, &a));
}

static struct kunit_case embm_swfault_test_cases[] = {
	KUNIT_CASE(embm_swfault_test),
	KUNIT_CASE(embm_swfault_period_test),
	KUNIT_CASE(embm_source_attr_ok_test),
	{}
};

static struct kunit_suite embm_swfault_test_suite = {
	.name = "embm_swfault",
	.test_cases = embm_swfault_test_cases,
};

kunit_test_suite(embm_swfault_test_suite);

#endif /* __MM_EMBM_TESTS_SWFAULT_KUNIT_H */
