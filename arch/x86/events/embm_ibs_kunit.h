/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_ibs.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef _ARCH_X86_EVENTS_EMBM_IBS_KUNIT_H
#define _ARCH_X86_EVENTS_EMBM_IBS_KUNIT_H

#include <kunit/test.h>

/* IbsOpData3 at its place in PERF_SAMPLE_RAW: caps, then IbsOpCtl... */
static void ibs_raw(u8 *raw, u64 op_data3)
{
	memset(raw, 0, 4 + 8 * 8);
	memcpy(raw + 4 + 8 * (MSR_AMD64_IBSOPDATA3 - MSR_AMD64_IBSOPCTL), &op_data3,
	       sizeof(op_data3));
}

static void embm_ibs_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;
	struct embm_sample s = {};
	union perf_mem_data_src src = {};
	union ibs_op_data3 d3 = {};
	u8 raw[4 + 8 * 8];

	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_ibs_setup_caps(false, &args, d, &why));
	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, &args, d, &why));
	KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_RAW, d[0].attr.type);
	/* forward_event_to_ibs(): 0xC1 is op counting (IbsOpCntCtl), 0x76 cycles. */
	KUNIT_EXPECT_EQ(test, 0xc1ULL, d[0].attr.config);
	KUNIT_EXPECT_EQ(test, 1U, (unsigned int)d[0].attr.precise_ip);
	/* ibs_op has PERF_PMU_CAP_NO_EXCLUDE: any exclude_* bit is -EINVAL. */
	KUNIT_EXPECT_EQ(test, 0U, (unsigned int)(d[0].attr.exclude_user |
		d[0].attr.exclude_kernel | d[0].attr.exclude_hv | d[0].attr.exclude_idle |
		d[0].attr.exclude_host | d[0].attr.exclude_guest));
	KUNIT_EXPECT_TRUE(test, d[0].attr.sample_type & PERF_SAMPLE_DATA_SRC);
	KUNIT_EXPECT_TRUE(test, d[0].attr.sample_type & PERF_SAMPLE_RAW);
	/* What embm_record_kunit.h's IBS record test writes and parses. */
	KUNIT_EXPECT_EQ(test, EMBM_SAMPLE_TYPE_MAX, d[0].attr.sample_type);
	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&d[0].attr));
	KUNIT_EXPECT_TRUE(test, embm_src_ibs.op_of == embm_ibs_op_of);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_src_ibs.period % embm_src_ibs.period_align);
	args.period = 8;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_ibs_setup_caps(true, &args, d, &why));

	/* Load or store from the data source of each sample. */
	src.mem_op = PERF_MEM_OP_LOAD;
	s.data_src = src.val;
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD, embm_op_from_data_src(s.data_src));
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD, embm_ibs_op_of(&s));
	src.mem_op = PERF_MEM_OP_STORE;
	KUNIT_EXPECT_EQ(test, EMBM_OP_STORE, embm_op_from_data_src(src.val));
	src.mem_op = PERF_MEM_OP_NA;
	KUNIT_EXPECT_EQ(test, EMBM_OP_ANY, embm_op_from_data_src(src.val));

	/* The raw registers say more: a read-modify-write op is both. */
	s.raw = raw;
	s.raw_size = sizeof(raw);
	d3.ld_op = 1;
	d3.st_op = 1;
	ibs_raw(raw, d3.val);
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD_STORE, embm_ibs_op_of(&s));
	d3.ld_op = 0;
	ibs_raw(raw, d3.val);
	KUNIT_EXPECT_EQ(test, EMBM_OP_STORE, embm_ibs_op_of(&s));
	d3.st_op = 0;
	ibs_raw(raw, d3.val);
	KUNIT_EXPECT_EQ(test, EMBM_OP_ANY, embm_ibs_op_of(&s));
	/* Too short to hold IbsOpData3: the data source decides. */
	s.raw_size = 4 + 8 * 4;
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD, embm_ibs_op_of(&s));
}

static struct kunit_case embm_ibs_test_cases[] = {
	KUNIT_CASE(embm_ibs_test),
	{}
};

static struct kunit_suite embm_ibs_test_suite = {
	.name = "embm_ibs",
	.test_cases = embm_ibs_test_cases,
};

kunit_test_suite(embm_ibs_test_suite);

#endif /* _ARCH_X86_EVENTS_EMBM_IBS_KUNIT_H */
