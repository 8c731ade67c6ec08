/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_direct.c, included at the end of it.
 */
#ifndef __MM_EMBM_DIRECT_KUNIT_H
#define __MM_EMBM_DIRECT_KUNIT_H

#include <kunit/test.h>

struct embm_direct_seen {
	u64 phys[8];
	int kind[8];
	unsigned int n;
};

static void embm_direct_seen_fn(u64 phys, int kind, void *arg)
{
	struct embm_direct_seen *seen = arg;

	if (seen->n < ARRAY_SIZE(seen->phys)) {
		seen->phys[seen->n] = phys;
		seen->kind[seen->n] = kind;
	}
	seen->n++;
}

/*
 * In order, page and kind kept apart, across the end of the queue; a full
 * queue drops and counts, and takes samples again once read.
 */
static void embm_direct_queue_test(struct kunit *test)
{
	struct embm_direct *dq = embm_direct_alloc(3, 0);
	struct embm_direct_seen seen = { };
	int i, round;

	KUNIT_ASSERT_NOT_NULL(test, dq);
	KUNIT_EXPECT_EQ(test, 3U, dq->mask);	/* 3 rounded up to 4 */
	KUNIT_EXPECT_EQ(test, struct_size(dq, ent, 4), embm_direct_bytes(dq));
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 4; i++)
			KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(10 + i) + 123, i));
		KUNIT_EXPECT_FALSE(test, embm_direct_push(dq, PFN_PHYS(99), 7));
		KUNIT_EXPECT_EQ(test, 1ULL, embm_direct_lost(dq));
		KUNIT_EXPECT_EQ(test, 0ULL, embm_direct_lost(dq));
		seen.n = 0;
		KUNIT_EXPECT_EQ(test, 4U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
		KUNIT_ASSERT_EQ(test, 4U, seen.n);
		for (i = 0; i < 4; i++) {
			KUNIT_EXPECT_EQ(test, PFN_PHYS(10 + i), seen.phys[i]);
			KUNIT_EXPECT_EQ(test, i, seen.kind[i]);
		}
		/* Half a queue, so that the next round wraps around its end. */
		KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, 0, EMBM_MAX_EVENTS - 1));
		KUNIT_EXPECT_TRUE(test, embm_direct_push(dq, PFN_PHYS(5), 2));
		seen.n = 0;
		KUNIT_EXPECT_EQ(test, 2U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
		KUNIT_EXPECT_EQ(test, 0ULL, seen.phys[0]);
		KUNIT_EXPECT_EQ(test, EMBM_MAX_EVENTS - 1, seen.kind[0]);
		KUNIT_EXPECT_EQ(test, PFN_PHYS(5), seen.phys[1]);
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
	struct embm_direct *dq = embm_direct_alloc(8, 0);
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct perf_sample_data data = { };
	struct embm_direct_seen seen = { };
	struct page *page = alloc_page(GFP_KERNEL);

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
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, 2U, embm_direct_read(dq, embm_direct_seen_fn, &seen));
	KUNIT_EXPECT_EQ(test, PFN_PHYS(page_to_pfn(page)), seen.phys[0]);
	KUNIT_EXPECT_EQ(test, 1, seen.kind[0]);
	KUNIT_EXPECT_EQ(test, 0ULL, seen.phys[1]);
	KUNIT_EXPECT_EQ(test, 0, seen.kind[1]);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_direct_lost(dq));
	__free_page(page);
	embm_direct_free(dq);
}

static struct kunit_case embm_direct_test_cases[] = {
	KUNIT_CASE(embm_direct_queue_test),
	KUNIT_CASE(embm_direct_overflow_test),
	{}
};

static struct kunit_suite embm_direct_test_suite = {
	.name = "embm_direct",
	.test_cases = embm_direct_test_cases,
};

kunit_test_suite(embm_direct_test_suite);

#endif /* __MM_EMBM_DIRECT_KUNIT_H */
