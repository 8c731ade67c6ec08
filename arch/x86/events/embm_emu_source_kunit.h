/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_emu_source.c, included at the end of it (as
 * mm/damon/tests/ are) so that they reach its static functions.  The PMU's
 * type and the plugin's features are faked: the tests run with or without
 * the device.
 */
#ifndef _ARCH_X86_EVENTS_EMBM_EMU_SOURCE_KUNIT_H
#define _ARCH_X86_EVENTS_EMBM_EMU_SOURCE_KUNIT_H

#include <kunit/static_stub.h>
#include <kunit/test.h>

/* A dynamic type such as perf_pmu_register() gives embm_emu. */
#define EMBM_EMU_FAKE_TYPE	12

static int embm_emu_fake_type(void)
{
	return EMBM_EMU_FAKE_TYPE;
}

static int embm_emu_no_type(void)
{
	return -ENODEV;
}

static u32 embm_emu_fake_random(void)
{
	return EMBM_EMU_FEAT_LATENCY | EMBM_EMU_FEAT_RANDOM;
}

static u32 embm_emu_fake_fixed(void)
{
	return EMBM_EMU_FEAT_LATENCY;
}

static void embm_emu_source_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why = NULL;
	int i;

	kunit_activate_static_stub(test, embm_emu_src_type, embm_emu_fake_type);
	kunit_activate_static_stub(test, embm_emu_src_features, embm_emu_fake_random);
	KUNIT_ASSERT_EQ(test, 2, embm_emu_src_setup(&args, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, why);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, (u32)EMBM_EMU_FAKE_TYPE, d[i].attr.type);
		KUNIT_EXPECT_EQ(test, EMBM_SAMPLE_TYPE | PERF_SAMPLE_DATA_SRC |
				PERF_SAMPLE_WEIGHT_STRUCT, d[i].attr.sample_type);
		KUNIT_EXPECT_TRUE(test, d[i].attr.config & EMBM_EMU_CFG_RAND);
		/* embm's checks are perf's for it: its PMU, its sample types. */
		KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&embm_src_emu, &d[i].attr));
		KUNIT_EXPECT_FALSE(test, d[i].lead || d[i].latency_only);
		/* Direct: the driver's drain calls the handler, never in NMI. */
		KUNIT_EXPECT_TRUE(test, d[i].direct);
	}
	KUNIT_EXPECT_EQ(test, EMBM_EMU_CFG_LOAD | EMBM_EMU_CFG_RAND, d[0].attr.config);
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD, d[0].op);
	KUNIT_EXPECT_FALSE(test, d[0].store);
	KUNIT_EXPECT_EQ(test, EMBM_EMU_CFG_STORE | EMBM_EMU_CFG_RAND, d[1].attr.config);
	KUNIT_EXPECT_EQ(test, EMBM_OP_STORE, d[1].op);
	KUNIT_EXPECT_TRUE(test, d[1].store);

	/* A plugin without random periods: fixed ones. */
	kunit_activate_static_stub(test, embm_emu_src_features, embm_emu_fake_fixed);
	KUNIT_ASSERT_EQ(test, 2, embm_emu_src_setup(&args, d, &why));
	KUNIT_EXPECT_EQ(test, EMBM_EMU_CFG_LOAD, d[0].attr.config);
	KUNIT_EXPECT_EQ(test, EMBM_EMU_CFG_STORE, d[1].attr.config);

	/*
	 * emu-ring: the same events as perf's records, the automatic choice
	 * never taking it; emu the direct ones, from the driver's drain.
	 */
	KUNIT_ASSERT_EQ(test, 2, embm_emu_ring_setup(&args, d, &why));
	KUNIT_EXPECT_FALSE(test, d[0].direct || d[1].direct);
	KUNIT_EXPECT_EQ(test, EMBM_EMU_CFG_LOAD, d[0].attr.config);
	KUNIT_EXPECT_EQ(test, EMBM_EMU_CFG_STORE, d[1].attr.config);
	KUNIT_EXPECT_TRUE(test, embm_src_emu_ring.forced_only && !embm_src_emu_ring.direct_irq);
	KUNIT_EXPECT_TRUE(test, !embm_src_emu.forced_only && embm_src_emu.direct_irq);
	kunit_deactivate_static_stub(test, embm_emu_src_features);
	kunit_deactivate_static_stub(test, embm_emu_src_type);
}

static void embm_emu_source_no_device_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why = NULL;

	kunit_activate_static_stub(test, embm_emu_src_type, embm_emu_no_type);
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_emu_src_setup(&args, d, &why));
	KUNIT_EXPECT_STREQ(test, EMBM_EMU_NO_DEVICE, why);
	/* No type to vouch for: nothing dynamic passes, the generic types do. */
	KUNIT_EXPECT_FALSE(test, embm_source_pmu_ok(&embm_src_emu, (u32)-ENODEV));
	KUNIT_EXPECT_FALSE(test, embm_source_pmu_ok(&embm_src_emu, EMBM_EMU_FAKE_TYPE));
	KUNIT_EXPECT_TRUE(test, embm_source_pmu_ok(&embm_src_emu, PERF_TYPE_RAW));
	kunit_deactivate_static_stub(test, embm_emu_src_type);

	/* With the device, its type only. */
	kunit_activate_static_stub(test, embm_emu_src_type, embm_emu_fake_type);
	KUNIT_EXPECT_TRUE(test, embm_source_pmu_ok(&embm_src_emu, EMBM_EMU_FAKE_TYPE));
	KUNIT_EXPECT_FALSE(test, embm_source_pmu_ok(&embm_src_emu, EMBM_EMU_FAKE_TYPE + 1));
	kunit_deactivate_static_stub(test, embm_emu_src_type);
}

/* The table: rank between ibs and swfault, what the report needs. */
static void embm_emu_source_table_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 30U, embm_src_emu.rank);
	KUNIT_EXPECT_STREQ(test, "accesses", embm_src_emu.unit);
	KUNIT_EXPECT_TRUE(test, embm_src_emu.share_mem);
	KUNIT_EXPECT_EQ(test, EMBM_FIELD_OP | EMBM_FIELD_LATENCY | EMBM_FIELD_DATA_SRC,
			embm_src_emu.fields);
	/* Say what is modelled. */
	KUNIT_EXPECT_NOT_NULL(test, strstr(embm_src_emu.semantics, "MODELLED"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(embm_src_emu.blind, "model"));
}

/* Periods below EMBM_EMU_MIN_PERIOD, of loads or stores, are refused; 0 is the default. */
static void embm_emu_source_min_period_test(struct kunit *test)
{
	struct embm_source_args args = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why = NULL;

	kunit_activate_static_stub(test, embm_emu_src_type, embm_emu_fake_type);
	kunit_activate_static_stub(test, embm_emu_src_features, embm_emu_fake_fixed);
	KUNIT_EXPECT_EQ(test, (u64)EMBM_EMU_MIN_PERIOD, embm_src_emu.min_period);
	KUNIT_EXPECT_GE(test, embm_src_emu.period, embm_src_emu.min_period);
	KUNIT_EXPECT_GE(test, embm_src_emu.store_period, embm_src_emu.min_period);
	args.period = 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_src_setup(&args, d, &why));
	args.period = EMBM_EMU_MIN_PERIOD - 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_src_setup(&args, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, __stringify(EMBM_EMU_MIN_PERIOD)));
	args.period = EMBM_EMU_MIN_PERIOD;
	KUNIT_EXPECT_EQ(test, 2, embm_emu_src_setup(&args, d, &why));
	args.store_period = EMBM_EMU_MIN_PERIOD - 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_src_setup(&args, d, &why));
	args = (struct embm_source_args){};
	KUNIT_EXPECT_EQ(test, 2, embm_emu_src_setup(&args, d, &why));
	kunit_deactivate_static_stub(test, embm_emu_src_features);
	kunit_deactivate_static_stub(test, embm_emu_src_type);
}

static struct kunit_case embm_emu_source_test_cases[] = {
	KUNIT_CASE(embm_emu_source_test),
	KUNIT_CASE(embm_emu_source_no_device_test),
	KUNIT_CASE(embm_emu_source_table_test),
	KUNIT_CASE(embm_emu_source_min_period_test),
	{}
};

static struct kunit_suite embm_emu_source_test_suite = {
	.name = "embm_emu_source",
	.test_cases = embm_emu_source_test_cases,
};

kunit_test_suite(embm_emu_source_test_suite);

#endif /* _ARCH_X86_EVENTS_EMBM_EMU_SOURCE_KUNIT_H */
