/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of stats.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.  The tier rule, the CXL
 * window table and pfn -> node are tested in tests/tier-kunit.h; here,
 * how samples count on what tier.c finds.
 */
#ifndef __MM_EMBM_TESTS_STATS_KUNIT_H
#define __MM_EMBM_TESTS_STATS_KUNIT_H

#include <kunit/test.h>
#include <linux/memblock.h>
#include <linux/sizes.h>

#include "embm-kunit.h"

/**
 * embm_stats_identity_ok() - do a session's sample counts add up?
 * @st: the results; caller holds st->lock
 *
 * samples = attributed + latency_only + no_phys + bad_pfn + hotplug_busy
 * + device: embm_stats_add() counts every sample in exactly one of them.
 * The summary, status and embm-run print these terms; the tests below
 * and the selftests assert this.
 *
 * Context: any; caller holds st->lock.
 * Return: true if it holds.
 */
static bool embm_stats_identity_ok(const struct embm_stats *st)
{
	return st->samples == embm_stats_attributed(st) + st->latency_only +
			      st->no_phys + st->bad_pfn + st->hotplug_busy +
			      embm_stats_device(st);
}

static void embm_lat_bucket_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 0U, embm_lat_bucket(0));
	KUNIT_EXPECT_EQ(test, 0U, embm_lat_bucket(1));
	KUNIT_EXPECT_EQ(test, 1U, embm_lat_bucket(2));
	KUNIT_EXPECT_EQ(test, 1U, embm_lat_bucket(3));
	KUNIT_EXPECT_EQ(test, 8U, embm_lat_bucket(256));
	KUNIT_EXPECT_EQ(test, 8U, embm_lat_bucket(511));
	KUNIT_EXPECT_EQ(test, EMBM_LAT_BUCKETS - 1, embm_lat_bucket(U64_MAX));
}

/* Samples on real pages land on their node, with counts, matrix and latency. */
static void embm_stats_add_test(struct kunit *test)
{
	struct embm_stats *st = embm_stats_alloc(8);
	struct embm_kind_stats kinds[2] = {};
	struct page *page;
	struct embm_sample s = { .cpu = 0, .period = 10 };
	int nid, i;

	KUNIT_ASSERT_NOT_NULL(test, st);
	embm_stats_classify_nodes(st);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	nid = page_to_nid(page);

	mutex_lock(&st->lock);
	s.phys = PFN_PHYS(page_to_pfn(page)) + 0x10;
	for (i = 0; i < 5; i++)
		embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	/* A latency without a data source says nothing: left out. */
	s.weight = 999;
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	s.weight = 300;
	s.data_src = P(OP, STORE) | L(LOC_RAM) | LEVEL(RAM);
	embm_stats_add(st, &s, 1, EMBM_OP_STORE, false);
	embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);	/* latency only */
	embm_stats_add(st, &s, 1, EMBM_OP_LOAD_STORE, false);
	/* Served by a cache: counted apart, no latency. */
	s.data_src = P(OP, LOAD) | L(L2) | LEVEL(L2);
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	s.phys = 0;
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);

	KUNIT_EXPECT_EQ(test, 12ULL, st->samples);
	KUNIT_EXPECT_EQ(test, 1ULL, st->no_phys);
	KUNIT_EXPECT_EQ(test, 1ULL, st->latency_only);
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	KUNIT_EXPECT_EQ(test, 1ULL, st->node[nid].lat_dropped[EMBM_LAT_UNKNOWN]);
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].lat_dropped[EMBM_LAT_CACHE]);
	KUNIT_EXPECT_EQ(test, 10ULL, st->node[nid].samples);
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].cache);
	KUNIT_EXPECT_EQ(test, 2ULL, st->cache);
	KUNIT_EXPECT_EQ(test, 7ULL, st->node[nid].loads);
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].stores);
	KUNIT_EXPECT_EQ(test, 80ULL, st->node[nid].accesses);
	KUNIT_EXPECT_EQ(test, 60ULL, st->node[nid].kind_accesses[0]);
	KUNIT_EXPECT_EQ(test, 20ULL, st->node[nid].kind_accesses[1]);
	KUNIT_EXPECT_EQ(test, 3ULL, st->node[nid].lat_samples);
	/* Latency and the estimates weigh each sample by its period, 10. */
	KUNIT_EXPECT_EQ(test, 30ULL, st->node[nid].lat_weight);
	KUNIT_EXPECT_EQ(test, 9000ULL, st->node[nid].lat_sum);
	KUNIT_EXPECT_EQ(test, 300ULL, embm_stats_lat_mean(&st->node[nid]));
	KUNIT_EXPECT_EQ(test, 30ULL, st->node[nid].lat_hist[embm_lat_bucket(300)]);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_stats_distinct_pages(&st->node[nid]));
	KUNIT_EXPECT_EQ(test, 80ULL, st->matrix[cpu_to_node(0) * st->nr_nodes + nid]);
	KUNIT_EXPECT_EQ(test, 80ULL, embm_stats_share_basis(st, false, kinds, 2));
	/* IBS: shares of what memory served. */
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].mem);
	KUNIT_EXPECT_EQ(test, 20ULL, embm_stats_share_basis(st, true, kinds, 2));

	/* Kind 0 was on the PMU a quarter of the time: its 60 stand for 240. */
	KUNIT_EXPECT_EQ(test, 80ULL, embm_stats_node_accesses(&st->node[nid], kinds, 2));
	kinds[0].enabled = 4000;
	kinds[0].running = 1000;
	kinds[1].enabled = 1000;
	kinds[1].running = 1000;
	KUNIT_EXPECT_EQ(test, 260ULL, embm_stats_node_accesses(&st->node[nid], kinds, 2));
	/* Never on the PMU: nothing to scale. */
	kinds[0].running = 0;
	KUNIT_EXPECT_EQ(test, 80ULL, embm_stats_node_accesses(&st->node[nid], kinds, 2));
	/*
	 * A kind without periods in its samples: calibrated to perf's count,
	 * its 60 of the 100 periods the kind's samples add to, of a count
	 * of 150, stand for 90 (and never the multiplexing scale); kind 1
	 * adds its 20.  The weights count every sample of the kind but the
	 * latency-only ones: nine of period 10 for kind 0.
	 */
	KUNIT_EXPECT_EQ(test, 90ULL, st->kind_weight[0]);
	KUNIT_EXPECT_EQ(test, 0ULL, st->kind_weight[2]);
	kinds[0].by_count = true;
	kinds[0].count = 150;
	kinds[0].weight = 100;
	kinds[0].running = 1;
	KUNIT_EXPECT_EQ(test, 110ULL, embm_stats_node_accesses(&st->node[nid], kinds, 2));
	/*
	 * 10 of the 150 events were in lost samples: where they went is not
	 * known, so they are not spread over the nodes: 60 * 140 / 100 = 84.
	 */
	kinds[0].lost_read = 10;
	KUNIT_EXPECT_EQ(test, 104ULL, embm_stats_node_accesses(&st->node[nid], kinds, 2));
	kinds[0].lost_read = 0;
	/* Not read yet: the periods as they are, never scaled for multiplexing. */
	kinds[0].weight = 0;
	KUNIT_EXPECT_EQ(test, 80ULL, embm_stats_node_accesses(&st->node[nid], kinds, 2));
	/* Every sample in exactly one term of the summary. */
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_put(st);
}

/*
 * Sapphire Rapids' load-latency event (latency-only beside the L3-miss
 * loads) on a CXL node: a CXL-served load may say dse 0x0, "L3 miss,
 * source unknown" (no Intel driver names CXL, 6.12 ds.c); the node comes
 * from the address, so the latency counts there.  Cache hits, uncached
 * and I/O loads are left out, each counted by its reason.
 */
static void embm_lat_cxl_test(struct kunit *test)
{
	struct embm_sample s = { .cpu = 0, .period = 1, .weight = 400 };
	struct embm_stats *st = embm_stats_alloc(8);
	struct embm_node_stats *ns;
	struct page *page;
	int nid;

	KUNIT_ASSERT_NOT_NULL(test, st);
	embm_stats_classify_nodes(st);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	nid = page_to_nid(page);
	ns = &st->node[nid];

	mutex_lock(&st->lock);
	st->tier[nid] = EMBM_TIER_CXL;	/* as if the node's memory were CXL's */
	s.phys = PFN_PHYS(page_to_pfn(page));
	s.data_src = P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA);	/* dse 0x0 */
	embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);
	KUNIT_EXPECT_EQ(test, 1ULL, ns->lat_samples);
	KUNIT_EXPECT_EQ(test, 400ULL, embm_stats_lat_mean(ns));
	/* The L3-miss load event counts the access; this one adds none. */
	KUNIT_EXPECT_EQ(test, 0ULL, ns->samples);
	KUNIT_EXPECT_EQ(test, 0ULL, ns->accesses);
	s.data_src = OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE);		/* dse 0x4 */
	embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);
	s.data_src = OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE);	/* dse 0xf */
	embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);
	s.data_src = OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE);		/* dse 0xe */
	embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);
	/* Without an address: no node, counted as latency-only all the same. */
	s.phys = 0;
	embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);
	KUNIT_EXPECT_EQ(test, 1ULL, ns->lat_samples);
	KUNIT_EXPECT_EQ(test, 1ULL, ns->lat_dropped[EMBM_LAT_CACHE]);
	KUNIT_EXPECT_EQ(test, 1ULL, ns->lat_dropped[EMBM_LAT_UNCACHED]);
	KUNIT_EXPECT_EQ(test, 1ULL, ns->lat_dropped[EMBM_LAT_IO]);
	KUNIT_EXPECT_EQ(test, 5ULL, st->latency_only);
	KUNIT_EXPECT_EQ(test, 0ULL, st->no_phys);
	KUNIT_EXPECT_EQ(test, 5ULL, st->samples);
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_put(st);
}

/*
 * A throttled kind: perf kept it active for 500 of its 1,000 ns running,
 * taking no samples; its samples stand for the 500 ns it sampled.
 */
static void embm_throttle_scale_test(struct kunit *test)
{
	struct embm_kind_stats ks = { .enabled = 1000, .running = 1000 };

	KUNIT_EXPECT_EQ(test, 100ULL, embm_stats_scale(100, &ks));
	ks.throttled_ns = 500;
	KUNIT_EXPECT_EQ(test, 200ULL, embm_stats_scale(100, &ks));
	/* Multiplexed too: enabled 2,000, on the PMU 1,000, 500 of it throttled. */
	ks.enabled = 2000;
	KUNIT_EXPECT_EQ(test, 400ULL, embm_stats_scale(100, &ks));
	/* More throttled than it ran (a count read late): at most 8 times. */
	ks.throttled_ns = 5000;
	KUNIT_EXPECT_EQ(test, 1600ULL, embm_stats_scale(100, &ks));
	/* Ran more than enabled (events of a CPU that came online): throttling alone. */
	ks.enabled = 1000;
	ks.running = 2000;
	ks.throttled_ns = 1000;
	KUNIT_EXPECT_EQ(test, 200ULL, embm_stats_scale(100, &ks));
	/* Past a u64: saturated, not a divide error. */
	ks.enabled = 1ULL << 40;
	ks.running = 1;
	ks.throttled_ns = 0;
	KUNIT_EXPECT_EQ(test, U64_MAX, embm_stats_scale(1ULL << 62, &ks));
	ks.by_count = true;
	ks.weight = 1;
	ks.count = 1ULL << 40;
	KUNIT_EXPECT_EQ(test, U64_MAX, embm_stats_scale(1ULL << 62, &ks));
}

/*
 * Memory that comes online on a node during a session: its samples show
 * in the node's row, so that the rows add up to "attributed".
 */
static void embm_new_node_test(struct kunit *test)
{
	struct embm_sample s = { .cpu = 0, .period = 1 };
	struct embm_stats *st = embm_stats_alloc(8);
	int *order, nid, n, i;
	struct page *page;
	u64 sum = 0;
	size_t bytes;

	KUNIT_ASSERT_NOT_NULL(test, st);
	embm_stats_classify_nodes(st);
	order = kunit_kcalloc(test, st->nr_nodes, sizeof(*order), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, order);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	nid = page_to_nid(page);
	/* As if there was no memory on @nid when the session started. */
	kvfree(st->node[nid].pages);
	st->node[nid].pages = NULL;
	st->node[nid].present = false;
	bytes = st->bytes;

	mutex_lock(&st->lock);
	s.phys = PFN_PHYS(page_to_pfn(page));
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	n = embm_stats_node_order(st, NUMA_NO_NODE, order);
	for (i = 0; i < n; i++)
		sum += st->node[order[i]].samples;
	KUNIT_EXPECT_EQ(test, 2ULL, embm_stats_attributed(st));
	KUNIT_EXPECT_EQ(test, embm_stats_attributed(st), sum);
	KUNIT_EXPECT_TRUE(test, st->node[nid].present);
	KUNIT_EXPECT_EQ(test, (int)embm_node_tier(st, nid), (int)st->tier[nid]);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_stats_distinct_pages(&st->node[nid]));
	/* Its page bitmap is counted in the session's memory. */
	KUNIT_EXPECT_EQ(test, bytes + EMBM_PAGES_BYTES, st->bytes);
	/* Every sample in exactly one term of the summary. */
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_put(st);
}

/*
 * Memory went online or offline somewhere: the next sample rescans the
 * windows and gives every node with memory the tier the rescan finds.  A
 * tier that went stale (as when a node's CXL part came or went) is
 * replaced; a node with no memory keeps its own.  tests/tier-kunit.h
 * checks that the memory notifier's count starts a rescan; here the
 * session's own count of the last scan goes stale instead.
 */
static void embm_add_rescan_test(struct kunit *test)
{
	struct embm_sample s = { .cpu = 0, .period = 1 };
	struct embm_stats *st = embm_stats_alloc(8);
	enum embm_tier stale, right;
	struct page *page;
	int nid, gen;

	KUNIT_ASSERT_NOT_NULL(test, st);
	embm_stats_classify_nodes(st);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	nid = page_to_nid(page);
	right = st->tier[nid];
	stale = right == EMBM_TIER_CXL ? EMBM_TIER_DRAM : EMBM_TIER_CXL;

	mutex_lock(&st->lock);
	st->tier[nid] = stale;
	s.phys = PFN_PHYS(page_to_pfn(page));
	/* No memory event: the tier stays as it was. */
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	KUNIT_EXPECT_EQ(test, (int)stale, (int)st->tier[nid]);
	/* As if a memory block went on- or offline since the last scan. */
	gen = st->mem_gen;
	st->mem_gen--;
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	KUNIT_EXPECT_EQ(test, (int)right, (int)st->tier[nid]);
	KUNIT_EXPECT_EQ(test, gen, st->mem_gen);
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].samples);
	/* Every sample in exactly one term of the summary. */
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_put(st);
}

/*
 * While a memory hotplug operation holds mem_hotplug_lock (as
 * mem_hotplug_begin() takes it for an online, offline or remove),
 * embm_pfn_nid() says -EBUSY at once rather than wait (tests/tier-kunit.h):
 * the sample counts in hotplug_busy.
 */
static void embm_hotplug_busy_test(struct kunit *test)
{
	struct embm_sample s = { .cpu = 0, .period = 1 };
	struct embm_stats *st = embm_stats_alloc(8);
	struct page *page = alloc_page(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, page);
	embm_stats_classify_nodes(st);
	s.phys = PFN_PHYS(page_to_pfn(page));
	if (!IS_ENABLED(CONFIG_MEMORY_HOTPLUG)) {
		__free_page(page);
		embm_stats_put(st);
		kunit_skip(test, "no memory hotplug in this kernel");
	}
	mutex_lock(&st->lock);
	mem_hotplug_begin();
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	mem_hotplug_done();
	KUNIT_EXPECT_EQ(test, 1ULL, st->hotplug_busy);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_stats_attributed(st));
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	KUNIT_EXPECT_EQ(test, 1ULL, st->hotplug_busy);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_stats_attributed(st));
	/* Every sample in exactly one term of the summary. */
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_put(st);
}

/*
 * Each sample classified by its own address: in a CXL window or not, on
 * a node's System RAM or on pages that are none (a device's).  The
 * windows are set by hand here; tests/tier-kunit.h tests the table.
 */
static void embm_window_samples_test(struct kunit *test)
{
	struct embm_sample s = { .cpu = 0, .period = 1 };
	struct embm_stats *st = embm_stats_alloc(8);
	struct embm_window *ram, *dev;
	struct page *page;
	u64 phys, nomem;
	int nid, i;

	KUNIT_ASSERT_NOT_NULL(test, st);
	embm_stats_classify_nodes(st);
	page = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	nid = page_to_nid(page);
	phys = PFN_PHYS(page_to_pfn(page));
	/* Addresses above all memory, as a namespace's would be to the test. */
	nomem = PFN_PHYS(ALIGN(max_pfn, PAGES_PER_SECTION) + PAGES_PER_SECTION);
	KUNIT_ASSERT_NULL(test, pfn_to_online_page(PHYS_PFN(nomem)));

	KUNIT_ASSERT_NULL(test, pfn_to_online_page(PHYS_PFN(nomem + SZ_4M)));

	/* No ASSERT below: it would leave the lock held. */
	mutex_lock(&st->lock);
	/* Two windows, those of this machine, if any, aside. */
	ram = &st->win[0];
	dev = &st->win[1];
	*ram = (struct embm_window){ .start = phys, .end = phys + PAGE_SIZE - 1,
				     .nid = NUMA_NO_NODE };
	*dev = (struct embm_window){ .start = nomem, .end = nomem + SZ_2M - 1,
				     .nid = NUMA_NO_NODE };
	st->nr_win = 2;

	s.phys = phys + 8;				/* RAM in a window */
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	embm_stats_add(st, &s, 1, EMBM_OP_LOAD, true);	/* latency only */
	s.phys = phys + PAGE_SIZE;			/* RAM, no window */
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	s.phys = nomem + 64;				/* device pages */
	for (i = 0; i < 3; i++)
		embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	embm_stats_add(st, &s, 1, EMBM_OP_LOAD, true);
	s.phys = nomem + SZ_4M;				/* nothing at all */
	embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);

	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].samples);
	KUNIT_EXPECT_EQ(test, 1ULL, st->node[nid].cxl);
	KUNIT_EXPECT_EQ(test, 1ULL, ram->samples);
	KUNIT_EXPECT_EQ(test, 0ULL, ram->device);
	KUNIT_EXPECT_EQ(test, 3ULL, dev->samples);
	KUNIT_EXPECT_EQ(test, 3ULL, dev->device);
	KUNIT_EXPECT_EQ(test, 3ULL, embm_stats_device(st));
	KUNIT_EXPECT_EQ(test, 1ULL, st->bad_pfn);
	KUNIT_EXPECT_EQ(test, 2ULL, embm_stats_attributed(st));
	KUNIT_EXPECT_EQ(test, 8ULL, st->samples);

	/* Every sample in exactly one term of the summary. */
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_pages(page, 1);
	embm_stats_put(st);
}

/* Node-sized tables for 1024 node ids: an 8 MiB matrix, so kvcalloc(). */
static void embm_many_nodes_test(struct kunit *test)
{
	struct embm_stats *st = embm_stats_alloc_nodes(1024, 8);

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_EQ(test, 1024, st->nr_nodes);
	/* The matrix, the hot table and a bitmap per node with memory. */
	KUNIT_EXPECT_GE(test, st->bytes, 1024 * 1024 * sizeof(*st->matrix) +
			embm_hot_bytes(st->hot) + num_node_state(N_MEMORY) * EMBM_PAGES_BYTES);
	KUNIT_EXPECT_LT(test, st->bytes, 1024 * 1024 * sizeof(*st->matrix) + SZ_1M +
			num_node_state(N_MEMORY) * EMBM_PAGES_BYTES);
	st->matrix[1024 * 1024 - 1] = 1;
	st->node[1023].samples = 1;
	st->tier[1023] = EMBM_TIER_FAR;
	embm_stats_put(st);
}

/*
 * Linear counting stays within 1% of the truth over a wide range, on a
 * bitmap never zeroed as a whole (its chunks are zeroed as bits land in
 * them): it starts all ones here.
 */
static void embm_distinct_pages_test(struct kunit *test)
{
	static const unsigned int truths[] = { 1, 10, 1000, 50000, 300000 };
	struct embm_node_stats ns = {};
	unsigned int i, t;
	u64 pfn = 0x100000, est;

	ns.pages = bitmap_alloc(1U << EMBM_PAGES_BITS, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ns.pages);
	bitmap_fill(ns.pages, 1U << EMBM_PAGES_BITS);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_stats_distinct_pages(&ns));
	for (t = 0, i = 0; t < ARRAY_SIZE(truths); t++) {
		for (; i < truths[t]; i++)
			embm_stats_set_page_bit(&ns, embm_page_bit(pfn + i));
		ns.page_samples = i;
		est = embm_stats_distinct_pages(&ns);
		KUNIT_EXPECT_LE_MSG(test, est, (u64)truths[t] * 101 / 100 + 1,
				    "truth %u", truths[t]);
		KUNIT_EXPECT_GE_MSG(test, est, (u64)truths[t] * 99 / 100,
				    "truth %u", truths[t]);
	}
	bitmap_free(ns.pages);
}

/* A page of @nid, or NULL; the test frees it. */
static struct page *embm_kunit_page_on(int nid)
{
	struct page *page = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE, 0);

	if (page && page_to_nid(page) != nid) {
		__free_page(page);
		return NULL;
	}
	return page;
}

/*
 * The shares, the matrix, the hot pages and the latency mean weigh each
 * sample by its period: 100 samples on node A at period 1, then 10 on
 * node B at period 16, stand for 100 and 160 accesses, so A's share is
 * 100 / 260, not 100 / 110 of the samples.  A sample of a 2 MiB mapping
 * stands for its 512 pages, in accesses and in distinct pages.
 */
static void embm_weighted_test(struct kunit *test)
{
	struct embm_stats *st = embm_stats_alloc(8);
	struct embm_kind_stats kinds[1] = {};
	struct embm_sample s = { .cpu = 0 };
	struct page *pa, *pb = NULL;
	struct embm_hot_page top[2];
	int a, b, i, cnode = cpu_to_node(0);

	KUNIT_ASSERT_NOT_NULL(test, st);
	embm_stats_classify_nodes(st);
	for_each_node_state(b, N_MEMORY) {
		if (b != first_memory_node) {
			pb = embm_kunit_page_on(b);
			if (pb)
				break;
		}
	}
	if (!pb) {
		embm_stats_put(st);
		kunit_skip(test, "needs two nodes with memory");
	}
	a = first_memory_node;
	pa = embm_kunit_page_on(a);
	KUNIT_ASSERT_NOT_NULL(test, pa);

	mutex_lock(&st->lock);
	s.period = 1;
	s.phys = PFN_PHYS(page_to_pfn(pa));
	for (i = 0; i < 100; i++)
		embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	s.period = 16;
	s.phys = PFN_PHYS(page_to_pfn(pb));
	for (i = 0; i < 10; i++)
		embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	KUNIT_EXPECT_EQ(test, 100ULL, embm_stats_share_part(&st->node[a], false, kinds, 1));
	KUNIT_EXPECT_EQ(test, 160ULL, embm_stats_share_part(&st->node[b], false, kinds, 1));
	KUNIT_EXPECT_EQ(test, 260ULL, embm_stats_share_basis(st, false, kinds, 1));
	KUNIT_EXPECT_EQ(test, 100ULL, st->matrix[cnode * st->nr_nodes + a]);
	KUNIT_EXPECT_EQ(test, 160ULL, st->matrix[cnode * st->nr_nodes + b]);
	/* Hot pages: counts of accesses, samples exact since the entry. */
	KUNIT_ASSERT_EQ(test, 2U, embm_hot_top(st->hot, top, 2));
	KUNIT_EXPECT_EQ(test, page_to_pfn(pb), top[0].pfn);
	KUNIT_EXPECT_EQ(test, 160ULL, top[0].count);
	KUNIT_EXPECT_EQ(test, 10ULL, top[0].samples);
	KUNIT_EXPECT_EQ(test, 100ULL, top[1].count);
	KUNIT_EXPECT_EQ(test, 100ULL, top[1].samples);
	/* Calibrated to a count of twice the periods, none lost: the shares stay. */
	kinds[0].by_count = true;
	kinds[0].count = 2 * 260;
	kinds[0].weight = 260;
	KUNIT_EXPECT_EQ(test, 200ULL, embm_stats_share_part(&st->node[a], false, kinds, 1));
	KUNIT_EXPECT_EQ(test, 520ULL, embm_stats_share_basis(st, false, kinds, 1));

	/* One sample of a 2 MiB mapping on A: 512 pages, 512 accesses. */
	s.period = 1;
	s.pages = 512;
	s.phys = PFN_PHYS(page_to_pfn(pa));
	embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	KUNIT_EXPECT_EQ(test, 101ULL, st->node[a].samples);
	KUNIT_EXPECT_EQ(test, 612ULL, st->node[a].accesses);
	KUNIT_EXPECT_EQ(test, 612ULL, st->node[a].page_samples);
	/* Linear counting of 512 (or 513) pages in 2^20 bits: within 1%. */
	KUNIT_EXPECT_GE(test, embm_stats_distinct_pages(&st->node[a]), 507ULL);
	KUNIT_EXPECT_LE(test, embm_stats_distinct_pages(&st->node[a]), 518ULL);
	/* Never more pages than the samples covered: B's 10 samples, 1 page. */
	KUNIT_EXPECT_EQ(test, 1ULL, embm_stats_distinct_pages(&st->node[b]));
	/* Every sample in exactly one term of the summary. */
	KUNIT_EXPECT_TRUE(test, embm_stats_identity_ok(st));
	mutex_unlock(&st->lock);
	__free_page(pa);
	__free_page(pb);
	embm_stats_put(st);
}

/*
 * The 95% intervals: Wilson's at equal weights (p = 0.4 of n = 1000 is
 * [0.37007, 0.43069]), the same with every weight 10, an upper bound of
 * about 3.84/n at a share of 0, nothing known without an estimate; the
 * count's Poisson score interval, also with no draw on the node.
 */
static void embm_interval_test(struct kunit *test)
{
	u64 lo, hi;

	embm_stats_share_interval(400, 400, 1000, 1000, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 370074240ULL, lo);
	KUNIT_EXPECT_EQ(test, 430691138ULL, hi);
	embm_stats_share_interval(4000, 40000, 10000, 100000, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 370074240ULL, lo);
	KUNIT_EXPECT_EQ(test, 430691138ULL, hi);
	embm_stats_share_interval(0, 0, 1000, 1000, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 0ULL, lo);
	KUNIT_EXPECT_EQ(test, 3826898ULL, hi);
	embm_stats_share_interval(0, 0, 0, 0, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 0ULL, lo);
	KUNIT_EXPECT_EQ(test, EMBM_PPB, hi);
	/* Sums of squares that saturated: nothing known. */
	embm_stats_share_interval(1ULL << 40, U64_MAX, 1ULL << 41, U64_MAX, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 0ULL, lo);
	KUNIT_EXPECT_EQ(test, EMBM_PPB, hi);
	/* A census (period 1): the share itself. */
	embm_stats_share_interval(250, 0, 1000, 0, &lo, &hi);
	KUNIT_EXPECT_EQ(test, EMBM_PPB / 4, lo);
	KUNIT_EXPECT_EQ(test, EMBM_PPB / 4, hi);

	/* 20 + 19.208 -+ 1.96 sqrt(200 + 96.04): [5.49, 72.93]. */
	embm_stats_count_interval(20, 200, 20, 200, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 5ULL, lo);
	KUNIT_EXPECT_EQ(test, 73ULL, hi);
	/* No draw on the node, draws of weight 1 elsewhere: up to 3.84. */
	embm_stats_count_interval(0, 0, 1000, 1000, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 0ULL, lo);
	KUNIT_EXPECT_EQ(test, 4ULL, hi);
	embm_stats_count_interval(U64_MAX / 2, U64_MAX, U64_MAX, U64_MAX, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 0ULL, lo);
	KUNIT_EXPECT_EQ(test, U64_MAX, hi);
	embm_stats_count_interval(250, 0, 1000, 0, &lo, &hi);
	KUNIT_EXPECT_EQ(test, 250ULL, lo);
	KUNIT_EXPECT_EQ(test, 250ULL, hi);
}

static struct kunit_case embm_stats_test_cases[] = {
	KUNIT_CASE(embm_interval_test),
	KUNIT_CASE(embm_lat_bucket_test),
	KUNIT_CASE(embm_stats_add_test),
	KUNIT_CASE(embm_lat_cxl_test),
	KUNIT_CASE(embm_throttle_scale_test),
	KUNIT_CASE(embm_new_node_test),
	KUNIT_CASE(embm_window_samples_test),
	KUNIT_CASE(embm_many_nodes_test),
	KUNIT_CASE(embm_distinct_pages_test),
	KUNIT_CASE(embm_weighted_test),
	KUNIT_CASE(embm_add_rescan_test),
	KUNIT_CASE(embm_hotplug_busy_test),
	{}
};

static struct kunit_suite embm_stats_test_suite = {
	.name = "embm_stats",
	.test_cases = embm_stats_test_cases,
};

kunit_test_suite(embm_stats_test_suite);

#endif /* __MM_EMBM_TESTS_STATS_KUNIT_H */
