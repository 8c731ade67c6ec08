/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_ibs.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef _ARCH_X86_EVENTS_AMD_EMBM_IBS_KUNIT_H
#define _ARCH_X86_EVENTS_AMD_EMBM_IBS_KUNIT_H

#include <kunit/static_stub.h>
#include <kunit/test.h>

/* A dynamic type such as perf_pmu_register() gives ibs_op. */
#define EMBM_IBS_FAKE_TYPE	11

/* What a Zen 4 part reports, as far as embm looks: op counting, L3MissOnly. */
#define EMBM_IBS_FAKE_ZEN4	(IBS_CAPS_DEFAULT | IBS_CAPS_OPCNT | IBS_CAPS_ZEN4)

static int embm_ibs_fake_type(void)
{
	return EMBM_IBS_FAKE_TYPE;
}

/* IbsOpData3 at its place in PERF_SAMPLE_RAW: caps, then IbsOpCtl... */
static void ibs_raw(u8 *raw, u64 op_data3)
{
	memset(raw, 0, 4 + 8 * 8);
	memcpy(raw + 4 + 8 * (MSR_AMD64_IBSOPDATA3 - MSR_AMD64_IBSOPCTL), &op_data3,
	       sizeof(op_data3));
}

static int embm_ibs_no_type(void)
{
	return -ENODEV;
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

	/* perf_ibs_handle_irq(): a u32 of caps, then IbsOpCtl to IbsOpData3. */
	KUNIT_EXPECT_EQ(test, 36, (int)EMBM_IBS_RAW_REG(MSR_AMD64_IBSOPDATA3));
	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
						     EMBM_IBS_FAKE_TYPE, &args, d, &why));
	/* ibs_op itself, by its type: no forwarding from the core PMU. */
	KUNIT_EXPECT_EQ(test, (u32)EMBM_IBS_FAKE_TYPE, d[0].attr.type);
	KUNIT_EXPECT_TRUE(test, d[0].attr.config & IBS_OP_CNT_CTL);
	/* ibs_op has PERF_PMU_CAP_NO_EXCLUDE: any exclude_* bit is -EINVAL. */
	KUNIT_EXPECT_EQ(test, 0U, (unsigned int)(d[0].attr.exclude_user |
		d[0].attr.exclude_kernel | d[0].attr.exclude_hv | d[0].attr.exclude_idle |
		d[0].attr.exclude_host | d[0].attr.exclude_guest));
	KUNIT_EXPECT_TRUE(test, d[0].attr.sample_type & PERF_SAMPLE_DATA_SRC);
	KUNIT_EXPECT_TRUE(test, d[0].attr.sample_type & PERF_SAMPLE_RAW);
	/* What mm/embm/tests/record-kunit.h's IBS record test writes and parses. */
	KUNIT_EXPECT_EQ(test, EMBM_SAMPLE_TYPE_MAX, d[0].attr.sample_type);
	KUNIT_EXPECT_TRUE(test, embm_src_ibs.op_of == embm_ibs_op_of);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_src_ibs.period % embm_src_ibs.period_align);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_src_ibs.period % 16);
	/* One hardware period: IbsOpMaxCnt without the extension bits. */
	KUNIT_EXPECT_LE(test, embm_src_ibs.period, IBS_OP_MAX_CNT << 4);
	KUNIT_EXPECT_GE(test, embm_src_ibs.period, embm_src_ibs.min_period);

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

/* Below 0x90 ops is refused, with the reason; 144 and up are taken. */
static void embm_ibs_period_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, 144ULL, embm_src_ibs.min_period);
	args.period = 100;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
							   EMBM_IBS_FAKE_TYPE, &args, d, &why));
	KUNIT_EXPECT_STREQ(test, why,
			   "ibs needs a period of 144 or more (AMD: 0x90 is the least IBS op period)");
	args.period = 16;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
							   EMBM_IBS_FAKE_TYPE, &args, d, &why));
	args.period = 143;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
							   EMBM_IBS_FAKE_TYPE, &args, d, &why));
	args.period = 144;
	KUNIT_EXPECT_EQ(test, 1, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
						     EMBM_IBS_FAKE_TYPE, &args, d, &why));
	/* The store period is not used: one event, no store kind. */
	args.store_period = 16;
	KUNIT_EXPECT_EQ(test, 1, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
						     EMBM_IBS_FAKE_TYPE, &args, d, &why));
	KUNIT_EXPECT_FALSE(test, d[0].store);
	/* 0 is the default. */
	args.period = 0;
	KUNIT_EXPECT_EQ(test, 1, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
						     EMBM_IBS_FAKE_TYPE, &args, d, &why));
}

/* L3MissOnly with IBS_CAPS_ZEN4 only; without IbsOpCnt, no ops to count. */
static void embm_ibs_caps_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why = NULL;
	u32 zen3 = EMBM_IBS_FAKE_ZEN4 & ~IBS_CAPS_ZEN4;

	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
						     EMBM_IBS_FAKE_TYPE, &args, d, &why));
	KUNIT_EXPECT_EQ(test, IBS_OP_CNT_CTL | IBS_OP_L3MISSONLY, d[0].attr.config);
	KUNIT_EXPECT_STREQ(test, why, "AMD IBS op sampling, ops that missed L3 (L3MissOnly)");

	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, zen3, EMBM_IBS_FAKE_TYPE,
						     &args, d, &why));
	KUNIT_EXPECT_EQ(test, IBS_OP_CNT_CTL, d[0].attr.config);
	KUNIT_EXPECT_FALSE(test, d[0].attr.config & IBS_OP_L3MISSONLY);
	KUNIT_EXPECT_STREQ(test, why, "AMD IBS op sampling, every op (no L3MissOnly before Zen 4)");

	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_ibs_setup_caps(true, zen3 & ~IBS_CAPS_OPCNT, EMBM_IBS_FAKE_TYPE,
					    &args, d, &why));
	KUNIT_EXPECT_STREQ(test, why, "IBS cannot count ops (no IbsOpCnt)");
}

/*
 * get_ibs_caps() is 0 both without IBS and when amd_ibs_init() failed:
 * X86_FEATURE_IBS tells them apart.  ibs_op missing counts as the latter.
 */
static void embm_ibs_avail_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why = NULL;

	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_ibs_setup_caps(false, 0, -ENODEV, &args,
							       d, &why));
	KUNIT_EXPECT_STREQ(test, why, "CPU has no IBS");
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_ibs_setup_caps(true, 0, -ENODEV, &args,
							       d, &why));
	KUNIT_EXPECT_STREQ(test, why, EMBM_IBS_NOT_REGISTERED);
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4, -ENODEV, &args, d, &why));
	KUNIT_EXPECT_STREQ(test, why, EMBM_IBS_NOT_REGISTERED);
	/* Availability comes first: a bad period on a CPU without IBS says so. */
	args.period = 100;
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_ibs_setup_caps(false, 0, -ENODEV, &args,
							       d, &why));
	KUNIT_EXPECT_STREQ(test, why, "CPU has no IBS");
}

/*
 * embm's permission checks hold for ibs_op's type, and for no other
 * dynamic type; without ibs_op (this machine, most likely), for none.
 */
static void embm_ibs_attr_ok_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;
	struct perf_event_attr a;

	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, EMBM_IBS_FAKE_ZEN4,
						     EMBM_IBS_FAKE_TYPE, &args, d, &why));
	if (embm_ibs_op_type() < 0)
		KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_ibs, &d[0].attr));

	kunit_activate_static_stub(test, embm_ibs_op_type, embm_ibs_fake_type);
	KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&embm_src_ibs, &d[0].attr));
	a = d[0].attr;
	a.type = EMBM_IBS_FAKE_TYPE + 1;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_ibs, &a));
	a.type = PERF_TYPE_TRACEPOINT;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_ibs, &a));
	a = d[0].attr;
	a.sample_type |= PERF_SAMPLE_REGS_INTR;
	KUNIT_EXPECT_FALSE(test, embm_source_attr_ok(&embm_src_ibs, &a));
	KUNIT_EXPECT_TRUE(test, embm_source_pmu_ok(&embm_src_ibs, PERF_TYPE_RAW));
	/* No ibs_op: its -ENODEV is no type, and nothing dynamic passes. */
	kunit_activate_static_stub(test, embm_ibs_op_type, embm_ibs_no_type);
	KUNIT_EXPECT_FALSE(test, embm_source_pmu_ok(&embm_src_ibs, (u32)-ENODEV));
	KUNIT_EXPECT_FALSE(test, embm_source_pmu_ok(&embm_src_ibs, EMBM_IBS_FAKE_TYPE));
	KUNIT_EXPECT_TRUE(test, embm_source_pmu_ok(&embm_src_ibs, PERF_TYPE_RAW));
	kunit_deactivate_static_stub(test, embm_ibs_op_type);
}

static struct kunit_case embm_ibs_test_cases[] = {
	KUNIT_CASE(embm_ibs_test),
	KUNIT_CASE(embm_ibs_period_test),
	KUNIT_CASE(embm_ibs_caps_test),
	KUNIT_CASE(embm_ibs_avail_test),
	KUNIT_CASE(embm_ibs_attr_ok_test),
	{}
};

static struct kunit_suite embm_ibs_test_suite = {
	.name = "embm_ibs",
	.test_cases = embm_ibs_test_cases,
};

kunit_test_suite(embm_ibs_test_suite);

#endif /* _ARCH_X86_EVENTS_AMD_EMBM_IBS_KUNIT_H */
