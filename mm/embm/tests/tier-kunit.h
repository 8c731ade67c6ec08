/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of tier.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.  tier.c calls nothing in
 * stats.c, and neither do these tests: they build the part of a struct
 * embm_stats that tier.c reads and writes themselves.  How samples count
 * on what tier.c finds is tested in tests/stats-kunit.h.
 */
#ifndef __MM_EMBM_TESTS_TIER_KUNIT_H
#define __MM_EMBM_TESTS_TIER_KUNIT_H

#include <kunit/test.h>
#include <linux/memblock.h>
#include <linux/sizes.h>

/* Statistics with the tables tier.c uses and no counts, freed by KUnit. */
static struct embm_stats *embm_tier_test_stats(struct kunit *test)
{
	struct embm_stats *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	mutex_init(&st->lock);
	st->nr_nodes = nr_node_ids;
	st->tier = kunit_kcalloc(test, nr_node_ids, sizeof(*st->tier), GFP_KERNEL);
	st->node = kunit_kcalloc(test, nr_node_ids, sizeof(*st->node), GFP_KERNEL);
	st->cpu_node = kunit_kcalloc(test, nr_cpu_ids, sizeof(*st->cpu_node), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st->tier);
	KUNIT_ASSERT_NOT_NULL(test, st->node);
	KUNIT_ASSERT_NOT_NULL(test, st->cpu_node);
	return st;
}

static void embm_tier_rule_test(struct kunit *test)
{
	/* has_cpu, top_tier, in_cxl_window */
	KUNIT_EXPECT_EQ(test, EMBM_TIER_DRAM, embm_tier_of(true, true, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_FAR, embm_tier_of(false, true, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_FAR, embm_tier_of(true, false, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_FAR, embm_tier_of(false, false, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_CXL, embm_tier_of(false, false, true));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_CXL, embm_tier_of(true, true, true));
	KUNIT_EXPECT_STREQ(test, "dram", embm_tier_name(EMBM_TIER_DRAM));
	KUNIT_EXPECT_STREQ(test, "far", embm_tier_name(EMBM_TIER_FAR));
	KUNIT_EXPECT_STREQ(test, "cxl", embm_tier_name(EMBM_TIER_CXL));
}

/*
 * The window table: windows kept in the order first seen, each found
 * again by its range and by the addresses in it, at most
 * EMBM_MAX_WINDOWS.
 */
static void embm_window_test(struct kunit *test)
{
	struct embm_stats *st = embm_tier_test_stats(test);
	struct embm_window *ram, *dev;
	struct page *page;
	u64 phys, nomem;
	int i;

	embm_stats_classify_nodes(st);
	page = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	phys = PFN_PHYS(page_to_pfn(page));
	/* Addresses above all memory, as a namespace's would be to the test. */
	nomem = PFN_PHYS(ALIGN(max_pfn, PAGES_PER_SECTION) + PAGES_PER_SECTION);
	KUNIT_ASSERT_NULL(test, pfn_to_online_page(PHYS_PFN(nomem)));

	KUNIT_ASSERT_NULL(test, pfn_to_online_page(PHYS_PFN(nomem + SZ_4M)));

	/* No ASSERT below: it would leave the lock held. */
	mutex_lock(&st->lock);
	st->nr_win = 0;		/* windows of this machine, if any, aside */
	ram = embm_window_get(st, phys, phys + PAGE_SIZE - 1);
	dev = embm_window_get(st, nomem, nomem + SZ_2M - 1);
	if (!ram || !dev) {
		mutex_unlock(&st->lock);
		__free_pages(page, 1);
		KUNIT_FAIL(test, "no room for two windows");
		return;
	}
	KUNIT_EXPECT_PTR_EQ(test, ram, embm_window_get(st, phys, phys + PAGE_SIZE - 1));
	KUNIT_EXPECT_EQ(test, 2, st->nr_win);
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE, dev->nid);

	/* RAM in a window, RAM in none, device pages, nothing at all. */
	KUNIT_EXPECT_PTR_EQ(test, ram, embm_window_find(st, phys + 8));
	KUNIT_EXPECT_NULL(test, embm_window_find(st, phys + PAGE_SIZE));
	KUNIT_EXPECT_PTR_EQ(test, dev, embm_window_find(st, nomem + 64));
	KUNIT_EXPECT_NULL(test, embm_window_find(st, nomem + SZ_4M));

	/* A full table follows no more windows; the others keep theirs. */
	for (i = st->nr_win; i < EMBM_MAX_WINDOWS; i++)
		KUNIT_EXPECT_NOT_NULL(test, embm_window_get(st, nomem + (i + 1) * SZ_8M,
							    nomem + (i + 2) * SZ_8M - 1));
	KUNIT_EXPECT_NULL(test, embm_window_get(st, 0, PAGE_SIZE - 1));
	KUNIT_EXPECT_EQ(test, EMBM_MAX_WINDOWS, st->nr_win);
	KUNIT_EXPECT_PTR_EQ(test, dev, embm_window_get(st, nomem, nomem + SZ_2M - 1));
	mutex_unlock(&st->lock);
	__free_pages(page, 1);
}

/*
 * Memory went online or offline somewhere: the next update rescans the
 * windows and gives every node with memory the tier the rescan finds.  A
 * tier that went stale (as when a node's CXL part came or went) is
 * replaced; a node with no memory keeps its own.
 */
static void embm_rescan_retiers_test(struct kunit *test)
{
	struct embm_stats *st = embm_tier_test_stats(test);
	enum embm_tier stale, right;
	struct page *page;
	int nid;

	embm_stats_classify_nodes(st);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	nid = page_to_nid(page);
	right = st->tier[nid];
	stale = right == EMBM_TIER_CXL ? EMBM_TIER_DRAM : EMBM_TIER_CXL;

	mutex_lock(&st->lock);
	st->tier[nid] = stale;
	/* No memory event: the tier stays as it was. */
	__embm_tier_update(st);
	KUNIT_EXPECT_EQ(test, (int)stale, (int)st->tier[nid]);
	/* As the memory notifier does for each block on- or offlined. */
	atomic_inc(&embm_mem_gen);
	__embm_tier_update(st);
	KUNIT_EXPECT_EQ(test, (int)right, (int)st->tier[nid]);
	KUNIT_EXPECT_EQ(test, st->mem_gen, atomic_read(&embm_mem_gen));
	mutex_unlock(&st->lock);
	__free_page(page);
}

/*
 * The node of a page, none for pfns that are not online memory, and,
 * while a memory hotplug operation holds mem_hotplug_lock (as
 * mem_hotplug_begin() takes it for an online, offline or remove), -EBUSY
 * at once rather than a wait.
 */
static void embm_pfn_nid_test(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned long pfn;

	KUNIT_ASSERT_NOT_NULL(test, page);
	pfn = page_to_pfn(page);
	KUNIT_EXPECT_EQ(test, page_to_nid(page), embm_pfn_nid(pfn));
	/* Far past any memory: not even a section. */
	KUNIT_EXPECT_EQ(test, NUMA_NO_NODE, embm_pfn_nid(PHYS_PFN(1ULL << MAX_PHYSMEM_BITS) - 1));

	if (!IS_ENABLED(CONFIG_MEMORY_HOTPLUG)) {
		__free_page(page);
		kunit_skip(test, "no memory hotplug in this kernel");
	}
	mem_hotplug_begin();
	KUNIT_EXPECT_EQ(test, -EBUSY, embm_pfn_nid(pfn));
	mem_hotplug_done();
	KUNIT_EXPECT_EQ(test, page_to_nid(page), embm_pfn_nid(pfn));
	__free_page(page);
}

static struct kunit_case embm_tier_test_cases[] = {
	KUNIT_CASE(embm_tier_rule_test),
	KUNIT_CASE(embm_window_test),
	KUNIT_CASE(embm_rescan_retiers_test),
	KUNIT_CASE(embm_pfn_nid_test),
	{}
};

static struct kunit_suite embm_tier_test_suite = {
	.name = "embm_tier",
	.test_cases = embm_tier_test_cases,
};

kunit_test_suite(embm_tier_test_suite);

#endif /* __MM_EMBM_TESTS_TIER_KUNIT_H */
