/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_pebs.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef _ARCH_X86_EVENTS_EMBM_PEBS_KUNIT_H
#define _ARCH_X86_EVENTS_EMBM_PEBS_KUNIT_H

#include <kunit/test.h>

/* What large PEBS keeps (arch/x86/events/perf_event.h, with TIME). */
#define EMBM_LARGE_PEBS	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | \
			 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID | \
			 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER | \
			 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_TIME)

static const struct embm_event_desc *find_desc(const struct embm_event_desc *d,
					       int n, u64 config)
{
	int i;

	for (i = 0; i < n; i++)
		if (d[i].attr.config == config)
			return &d[i];
	return NULL;
}

static void embm_pebs_models_test(struct kunit *test)
{
	static const struct {
		u32 vfm;
		bool aux;
		u16 ldlat_max;
	} models[] = {
		{ INTEL_SKYLAKE_X,	  false, 512 },
		{ INTEL_ICELAKE_X,	  false, 512 },
		{ INTEL_ICELAKE_D,	  false, 512 },
		{ INTEL_SAPPHIRERAPIDS_X, true,  1024 },
		{ INTEL_EMERALDRAPIDS_X,  true,  1024 },
		{ INTEL_GRANITERAPIDS_X,  false, 2048 },
		{ INTEL_GRANITERAPIDS_D,  false, 2048 },
	};
	struct embm_source_args args = { .ldlat = 64 };
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const struct embm_event_desc *e;
	const char *why;
	int m, i, n;

	for (m = 0; m < ARRAY_SIZE(models); m++) {
		n = embm_pebs_setup_vfm(models[m].vfm, false, &args, d, &why);
		KUNIT_EXPECT_EQ_MSG(test, models[m].aux ? 4 : 3, n, "vfm %#x", models[m].vfm);
		if (n <= 0)
			continue;
		for (i = 0; i < n; i++) {
			const struct perf_event_attr *a = &d[i].attr;

			KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_RAW, a->type);
			KUNIT_EXPECT_EQ(test, 0U, (unsigned int)a->freq);
			KUNIT_EXPECT_EQ(test, 0U, a->wakeup_events);
			KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(a));
			if (d[i].lead) {
				/* x86_pmu_hw_config(): precise_ip needs sampling. */
				KUNIT_EXPECT_EQ(test, 0U, (unsigned int)a->precise_ip);
				KUNIT_EXPECT_EQ(test, 0ULL, a->sample_type);
				continue;
			}
			KUNIT_EXPECT_EQ(test, 1U, (unsigned int)a->precise_ip);
			KUNIT_EXPECT_EQ(test, 0ULL, a->sample_type & ~EMBM_LARGE_PEBS);
			KUNIT_EXPECT_TRUE(test, a->sample_type & PERF_SAMPLE_PHYS_ADDR);
			KUNIT_EXPECT_TRUE(test, a->sample_type & PERF_SAMPLE_IDENTIFIER);
		}
		/* Every load that missed L3, CXL and remote included. */
		e = find_desc(d, n, 0x20d1);
		KUNIT_EXPECT_TRUE(test, e && e->op == EMBM_OP_LOAD && !e->latency_only);
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x1d3));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x2d3));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x80d1));
		e = find_desc(d, n, 0x82d0);
		KUNIT_EXPECT_TRUE(test, e && e->store && e->op == EMBM_OP_STORE);
		e = find_desc(d, n, 0x1cd);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_EQ(test, 64ULL, e->attr.config1);
		KUNIT_EXPECT_TRUE(test, e->latency_only);
		KUNIT_EXPECT_TRUE(test, e->attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT);
		KUNIT_EXPECT_TRUE(test, e->attr.sample_type & PERF_SAMPLE_DATA_SRC);
		/* mem-loads-aux leads 0x1cd where the kernel requires it. */
		KUNIT_EXPECT_EQ(test, models[m].aux, e > d && e[-1].lead &&
				e[-1].attr.config == 0x8203);
		KUNIT_EXPECT_FALSE(test, d[n - 1].lead);
		/* ldlat within the model's range. */
		args.ldlat = models[m].ldlat_max;
		KUNIT_EXPECT_LT(test, 0, embm_pebs_setup_vfm(models[m].vfm, false, &args, d, &why));
		args.ldlat = models[m].ldlat_max + 1;
		KUNIT_EXPECT_EQ(test, -EINVAL,
				embm_pebs_setup_vfm(models[m].vfm, false, &args, d, &why));
		args.ldlat = 0;
		KUNIT_EXPECT_EQ(test, 2, embm_pebs_setup_vfm(models[m].vfm, false, &args, d, &why));
		args.ldlat = 64;
	}

	/* Refused with a reason: another vendor (0), clients, E-cores, hybrids. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_pebs_setup_vfm(0, false, &args, d, &why));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_setup_vfm(INTEL_ALDERLAKE, false, &args, d, &why));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_setup_vfm(INTEL_ATOM_CRESTMONT_X, false, &args, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "sierra-forest"));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_setup_vfm(INTEL_SAPPHIRERAPIDS_X, true, &args, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "hybrid"));
}

static struct kunit_case embm_pebs_test_cases[] = {
	KUNIT_CASE(embm_pebs_models_test),
	{}
};

static struct kunit_suite embm_pebs_test_suite = {
	.name = "embm_pebs",
	.test_cases = embm_pebs_test_cases,
};

kunit_test_suite(embm_pebs_test_suite);

#endif /* _ARCH_X86_EVENTS_EMBM_PEBS_KUNIT_H */
