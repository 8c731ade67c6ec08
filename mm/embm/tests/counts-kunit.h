/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of counts.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_TESTS_COUNTS_KUNIT_H
#define __MM_EMBM_TESTS_COUNTS_KUNIT_H

#include <kunit/test.h>

/*
 * Times of a kind: system-wide events add up; a thread's per-CPU events
 * are each enabled whenever it runs, so its time enabled is their most,
 * while their running times add up; events made for a CPU that came
 * online add running time only.  Made-up readings, as perf would give
 * them for two threads on three CPUs.
 */
static void embm_sum_readings_test(struct kunit *test)
{
	struct task_struct *a = (void *)0x1000, *b = (void *)0x2000;
	struct embm_reading r[] = {
		/* Thread a, kind 0: 100 ms on the CPU, split 30/30/40. */
		{ a, 0, false, 5, 100, 30 }, { a, 0, false, 5, 100, 30 },
		{ a, 0, false, 5, 100, 40 },
		/* Kind 1 of thread a ran half the time: multiplexed. */
		{ b, 1, false, 1, 80, 20 }, { a, 1, false, 1, 100, 50 },
		/* Thread b: 80 ms, 60 of it on CPU 3, whose event came late. */
		{ b, 0, false, 2, 80, 20 }, { b, 0, true, 6, 60, 60 },
		/* System-wide events (no task): each CPU's time is its own. */
		{ NULL, 2, false, 7, 1000, 1000 }, { NULL, 2, true, 7, 500, 250 },
	};
	struct embm_kind_sum sums[EMBM_MAX_EVENTS] = {};

	embm_sum_readings(r, ARRAY_SIZE(r), sums);
	KUNIT_EXPECT_EQ(test, 23ULL, sums[0].count);
	KUNIT_EXPECT_EQ(test, 180ULL, sums[0].enabled);
	KUNIT_EXPECT_EQ(test, 180ULL, sums[0].running);
	KUNIT_EXPECT_EQ(test, 180ULL, sums[1].enabled);
	KUNIT_EXPECT_EQ(test, 70ULL, sums[1].running);
	KUNIT_EXPECT_EQ(test, 1500ULL, sums[2].enabled);
	KUNIT_EXPECT_EQ(test, 1250ULL, sums[2].running);
}

static struct kunit_case embm_counts_test_cases[] = {
	KUNIT_CASE(embm_sum_readings_test),
	{}
};

static struct kunit_suite embm_counts_test_suite = {
	.name = "embm_counts",
	.test_cases = embm_counts_test_cases,
};

kunit_test_suite(embm_counts_test_suite);

#endif /* __MM_EMBM_TESTS_COUNTS_KUNIT_H */
