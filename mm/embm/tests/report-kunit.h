/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of report.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_TESTS_REPORT_KUNIT_H
#define __MM_EMBM_TESTS_REPORT_KUNIT_H

#include <kunit/test.h>

#include "embm-kunit.h"

/*
 * The per-node table written for its source: a source that says load or
 * store, latency and data source gets those columns, in the header's
 * order, with the estimates weighted by the period (two memory loads and
 * a cache-served store at period 10, latency 300); one that says none of
 * it (swfault) gets none.  And how the period went, in words.
 */
static void embm_report_test(struct kunit *test)
{
	static const struct embm_source all = {
		.name = "kunit",
		.fields = EMBM_FIELD_OP | EMBM_FIELD_LATENCY | EMBM_FIELD_DATA_SRC,
	};
	static const struct embm_source none = { .name = "kunit-none" };
	struct embm_view *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);
	struct embm_sample s = { .cpu = 0, .period = 10, .weight = 300 };
	char line[EMBM_REPORT_LINE], want[EMBM_REPORT_LINE];
	struct embm_report_basis b;
	struct page *page = alloc_page(GFP_KERNEL);
	struct seq_buf sb;
	int nid;

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, page);
	v->stats = embm_stats_alloc(8);
	KUNIT_ASSERT_NOT_NULL(test, v->stats);
	embm_stats_classify_nodes(v->stats);
	nid = page_to_nid(page);
	v->node = nid;
	v->status.source = &all;
	v->status.nr_kinds = 1;
	s.phys = PFN_PHYS(page_to_pfn(page));
	mutex_lock(&v->stats->lock);
	s.data_src = P(OP, LOAD) | L(LOC_RAM) | LEVEL(RAM);
	embm_stats_add(v->stats, &s, 0, EMBM_OP_LOAD, false);
	embm_stats_add(v->stats, &s, 0, EMBM_OP_LOAD, false);
	s.data_src = P(OP, STORE) | L(L1) | LEVEL(L1);
	embm_stats_add(v->stats, &s, 0, EMBM_OP_STORE, false);

	seq_buf_init(&sb, line, sizeof(line));
	embm_report_nodes_header(&sb, embm_report_fields(v));
	KUNIT_EXPECT_STREQ(test,
			   "node tier samples share_pct share_lo_pct share_hi_pct loads stores accesses accesses_lo accesses_hi user_samples kernel_samples user_accesses kernel_accesses lat_samples lat_mean_cycles pages study cache memory cxl_samples windows",
			   seq_buf_str(&sb));
	seq_buf_clear(&sb);
	embm_report_basis(v, &b);
	embm_report_node(&sb, v, nid, &b);
	/*
	 * Two draws of period 10, each of variance 10 x 9: Wilson's interval
	 * at p = 1 and n = 20^2 / 180 is [n / (n + 1.96^2), 1]; the count's,
	 * 20 + 9 x 1.92 -+ 1.96 sqrt(180 + (9 x 0.98)^2): [5.8, 68.8].
	 */
	snprintf(want, sizeof(want),
		 "%d %s 3 100.00 36.64 100.00 2 0 20 5 69 0 3 0 20 2 300 1 * 1 2 0 -", nid,
		 embm_tier_name(v->stats->tier[nid]));
	KUNIT_EXPECT_STREQ(test, want, seq_buf_str(&sb));

	v->status.source = &none;
	seq_buf_clear(&sb);
	embm_report_nodes_header(&sb, embm_report_fields(v));
	KUNIT_EXPECT_STREQ(test,
			   "node tier samples share_pct share_lo_pct share_hi_pct accesses accesses_lo accesses_hi user_samples kernel_samples user_accesses kernel_accesses pages study cxl_samples windows",
			   seq_buf_str(&sb));
	seq_buf_clear(&sb);
	embm_report_basis(v, &b);
	embm_report_node(&sb, v, nid, &b);
	snprintf(want, sizeof(want), "%d %s 3 100.00 36.64 100.00 20 5 69 0 3 0 20 1 * 0 -", nid,
		 embm_tier_name(v->stats->tier[nid]));
	KUNIT_EXPECT_STREQ(test, want, seq_buf_str(&sb));
	mutex_unlock(&v->stats->lock);

	v->status.period = 4;
	seq_buf_clear(&sb);
	embm_report_period(&sb, &v->status);
	KUNIT_EXPECT_STREQ(test, "period 4", seq_buf_str(&sb));
	v->status.period_start = 1;
	v->status.period_max = 16;
	v->status.period_changes = 2;
	strscpy(v->status.period_why, "knob: period 4, store_period 4",
		sizeof(v->status.period_why));
	seq_buf_clear(&sb);
	embm_report_period(&sb, &v->status);
	KUNIT_EXPECT_STREQ(test,
			   "period 1 -> 4 (max 16, 2 changes, last: knob: period 4, store_period 4)",
			   seq_buf_str(&sb));
	embm_stats_put(v->stats);
	__free_page(page);
}

/*
 * The promotion hint of a node made far: one page with 30 samples, one
 * with 10, ten with one, all at period 10: the hottest page carries 60%
 * of the node's 500 accesses, two 80%, four 84%, eight 92%, the twelve
 * kept 100%; a DRAM node has none.
 */
static void embm_report_hint_test(struct kunit *test)
{
	struct embm_view *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);
	struct embm_sample s = { .cpu = 0, .period = 10 };
	struct embm_report_hint pt[EMBM_REPORT_HINT_POINTS];
	static const u64 pages[] = { 1, 2, 4, 8, 12 };
	static const u64 share[] = { 60, 80, 84, 92, 100 };
	struct page *page = alloc_pages(GFP_KERNEL, 4);
	int nid, i;

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, page);
	v->stats = embm_stats_alloc(8);
	KUNIT_ASSERT_NOT_NULL(test, v->stats);
	embm_stats_classify_nodes(v->stats);
	nid = page_to_nid(page);
	mutex_lock(&v->stats->lock);
	KUNIT_EXPECT_EQ(test, 0, embm_report_hint(v, nid, pt));
	v->stats->tier[nid] = EMBM_TIER_FAR;
	mutex_unlock(&v->stats->lock);
	KUNIT_ASSERT_EQ(test, 0, embm_stats_prepare(v->stats, 0, false));
	mutex_lock(&v->stats->lock);
	for (i = 0; i < 50; i++) {
		int pg = i < 30 ? 0 : i < 40 ? 1 : i - 38;

		s.phys = PFN_PHYS(page_to_pfn(page) + pg);
		embm_stats_add(v->stats, &s, 0, EMBM_OP_LOAD, false);
	}
	KUNIT_ASSERT_EQ(test, (int)ARRAY_SIZE(pages), embm_report_hint(v, nid, pt));
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		KUNIT_EXPECT_EQ(test, pages[i], pt[i].pages);
		KUNIT_EXPECT_EQ(test, share[i] * (EMBM_PPB / 100), pt[i].share);
		KUNIT_EXPECT_LE(test, pt[i].lo, pt[i].share);
		KUNIT_EXPECT_GE(test, pt[i].hi, pt[i].share);
	}
	KUNIT_EXPECT_EQ(test, 30ULL, pt[0].min_samples);
	KUNIT_EXPECT_EQ(test, 1ULL, pt[4].min_samples);
	mutex_unlock(&v->stats->lock);
	embm_stats_put(v->stats);
	__free_pages(page, 4);
}

static struct kunit_case embm_report_test_cases[] = {
	KUNIT_CASE(embm_report_test),
	KUNIT_CASE(embm_report_hint_test),
	{}
};

static struct kunit_suite embm_report_test_suite = {
	.name = "embm_report",
	.test_cases = embm_report_test_cases,
};

kunit_test_suite(embm_report_test_suite);

#endif /* __MM_EMBM_TESTS_REPORT_KUNIT_H */
