/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of hot.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_TESTS_HOT_KUNIT_H
#define __MM_EMBM_TESTS_HOT_KUNIT_H

#include <kunit/test.h>

/*
 * Space-saving on a skewed stream: every page with more than N/k samples
 * is kept, counts never underestimate, and overestimate by at most error.
 */
static void embm_hot_test(struct kunit *test)
{
	const unsigned int k = 16, cold = 5000;
	struct embm_hot *hot = embm_hot_alloc(k);
	struct embm_hot_page *top;
	unsigned int n, i, j, found = 0;
	u64 total = 0;

	KUNIT_ASSERT_NOT_NULL(test, hot);
	top = kunit_kcalloc(test, k, sizeof(*top), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, top);
	/* Pages 1..4 get 1000, 800, 600, 400 samples among 5000 cold ones. */
	for (i = 0; i < cold; i++) {
		embm_hot_add(hot, 1000 + i, 1);
		total++;
		for (j = 1; j <= 4; j++) {
			if (i % 5 < 6 - j - 1 || (j == 1 && i % 5 == 4)) {
				embm_hot_add(hot, j, 1);
				total++;
			}
		}
	}
	n = embm_hot_top(hot, top, k);
	KUNIT_EXPECT_EQ(test, k, n);
	for (i = 0; i < n; i++) {
		u64 truth = 0;

		if (top[i].pfn >= 1 && top[i].pfn <= 4) {
			found++;
			truth = cold / 5 * (5 - top[i].pfn + (top[i].pfn == 1));
		} else {
			truth = 1;
		}
		KUNIT_EXPECT_GE(test, top[i].count, truth);
		KUNIT_EXPECT_LE(test, top[i].count - top[i].error, truth);
		if (i)
			KUNIT_EXPECT_GE(test, top[i - 1].count, top[i].count);
	}
	KUNIT_EXPECT_EQ(test, 4U, found);
	KUNIT_EXPECT_EQ(test, 1ULL, top[0].pfn);
	KUNIT_EXPECT_EQ(test, 2ULL, top[1].pfn);
	KUNIT_EXPECT_EQ(test, 3ULL, top[2].pfn);
	KUNIT_EXPECT_EQ(test, 4ULL, top[3].pfn);
	embm_hot_free(hot);
	KUNIT_EXPECT_NULL(test, embm_hot_alloc(0));
}

/*
 * The lazy keys on a random stream of random weights: a new page always
 * takes over a counter of the least count (its error is that count),
 * and after every sample the keys form a min-heap, none above its count,
 * each counter where the heap says.
 */
static void embm_hot_lazy_test(struct kunit *test)
{
	const unsigned int k = 16;
	struct embm_hot *hot = embm_hot_alloc(k);
	unsigned int i, j, bad_heap = 0, bad_victim = 0, taken = 0;
	u64 x = 12345, pfn, weight, least;
	bool kept, full;

	KUNIT_ASSERT_NOT_NULL(test, hot);
	for (i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		/* Pages 0-7 often, 8-199 seldom; weights 1 to 1000. */
		pfn = (x >> 33) % 4 ? (x >> 40) % 8 : 8 + (x >> 40) % 192;
		weight = 1 + (x >> 20) % 1000;
		least = U64_MAX;
		kept = false;
		full = hot->used == k;
		for (j = 0; j < hot->used; j++) {
			least = min(least, hot->entry[j].page.count);
			kept |= hot->entry[j].page.pfn == pfn;
		}
		embm_hot_add(hot, pfn, weight);
		if (!kept && full) {
			taken++;
			for (j = 0; j < k; j++) {
				const struct embm_hot_page *p = &hot->entry[j].page;

				if (p->pfn == pfn && p->error != least)
					bad_victim++;
			}
		}
		for (j = 0; j < hot->used; j++) {
			const struct embm_hot_entry *e = &hot->entry[hot->heap[j]];

			if (e->key > e->page.count || e->pos != j ||
			    (j && hot_key(hot, (j - 1) / 2) > e->key))
				bad_heap++;
		}
	}
	KUNIT_EXPECT_EQ(test, k, hot->used);
	/* The stream made the table take over counters, often. */
	KUNIT_EXPECT_LT(test, 1000U, taken);
	KUNIT_EXPECT_EQ(test, 0U, bad_victim);
	KUNIT_EXPECT_EQ(test, 0U, bad_heap);
	embm_hot_free(hot);
}

static struct kunit_case embm_hot_test_cases[] = {
	KUNIT_CASE(embm_hot_test),
	KUNIT_CASE(embm_hot_lazy_test),
	{}
};

static struct kunit_suite embm_hot_test_suite = {
	.name = "embm_hot",
	.test_cases = embm_hot_test_cases,
};

kunit_test_suite(embm_hot_test_suite);

#endif /* __MM_EMBM_TESTS_HOT_KUNIT_H */
