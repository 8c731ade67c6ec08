/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_src_swfault.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_SRC_SWFAULT_KUNIT_H
#define __MM_EMBM_SRC_SWFAULT_KUNIT_H

#include <kunit/test.h>

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
	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&d[0].attr));
	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&d[1].attr));
}

/* What embm's permission checks do not cover is refused to every source. */
static void embm_source_attr_ok_test(struct kunit *test)
{
	struct perf_event_attr ok = {
		.type = PERF_TYPE_SOFTWARE,
		.sample_type = EMBM_SAMPLE_TYPE_MAX,
	}, a;

	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&ok));
	a = ok;
	a.type = PERF_TYPE_TRACEPOINT;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&a));
	a = ok;
	a.sample_type |= PERF_SAMPLE_REGS_INTR;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&a));
	a = ok;
	a.sigtrap = 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&a));
	a = ok;
	a.text_poke = 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&a));
	a = ok;
	a.namespaces = 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&a));
}

static struct kunit_case embm_src_swfault_test_cases[] = {
	KUNIT_CASE(embm_swfault_test),
	KUNIT_CASE(embm_source_attr_ok_test),
	{}
};

static struct kunit_suite embm_src_swfault_test_suite = {
	.name = "embm_src_swfault",
	.test_cases = embm_src_swfault_test_cases,
};

kunit_test_suite(embm_src_swfault_test_suite);

#endif /* __MM_EMBM_SRC_SWFAULT_KUNIT_H */
