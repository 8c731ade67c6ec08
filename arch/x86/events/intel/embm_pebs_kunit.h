/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_pebs.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.  The CPUs are faked: no
 * PMU is touched.
 */
#ifndef _ARCH_X86_EVENTS_INTEL_EMBM_PEBS_KUNIT_H
#define _ARCH_X86_EVENTS_INTEL_EMBM_PEBS_KUNIT_H

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

static int embm_pebs_test_setup(u32 vfm, bool hybrid, bool arch_pebs, u64 ldlat,
				struct embm_event_desc *d, const char **why)
{
	struct embm_pebs_caps caps = {
		.vfm = vfm, .hybrid = hybrid, .arch_pebs = arch_pebs,
	};
	struct embm_source_args args = { .ldlat = ldlat };

	return embm_pebs_setup_caps(&caps, &args, d, why);
}

/* What every sampling or leading event must keep, whatever the model. */
static void embm_pebs_check_attrs(struct kunit *test, const struct embm_event_desc *d,
				  int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const struct perf_event_attr *a = &d[i].attr;

		KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_RAW, a->type);
		KUNIT_EXPECT_EQ(test, 0U, (unsigned int)a->freq);
		KUNIT_EXPECT_EQ(test, 0U, a->wakeup_events);
		KUNIT_EXPECT_TRUE(test, embm_source_attr_ok(&embm_src_pebs, a));
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
	KUNIT_EXPECT_FALSE(test, d[n - 1].lead);
}

static void embm_pebs_pcore_test(struct kunit *test)
{
	static const struct {
		u32 vfm;
		bool aux;
	} models[] = {
		{ INTEL_SKYLAKE_X,	  false },
		{ INTEL_ICELAKE_X,	  false },
		{ INTEL_ICELAKE_D,	  false },
		{ INTEL_SAPPHIRERAPIDS_X, true },
		{ INTEL_EMERALDRAPIDS_X,  true },
		{ INTEL_GRANITERAPIDS_X,  false },
		{ INTEL_GRANITERAPIDS_D,  false },
	};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const struct embm_event_desc *e;
	const char *why;
	int m, n;

	for (m = 0; m < ARRAY_SIZE(models); m++) {
		u32 vfm = models[m].vfm;

		n = embm_pebs_test_setup(vfm, false, false, 64, d, &why);
		KUNIT_EXPECT_EQ_MSG(test, models[m].aux ? 4 : 3, n, "vfm %#x", vfm);
		if (n <= 0)
			continue;
		embm_pebs_check_attrs(test, d, n);
		/* Every load that missed L3, CXL and remote included. */
		e = find_desc(d, n, 0x20d1);
		KUNIT_EXPECT_TRUE(test, e && e->op == EMBM_OP_LOAD && !e->latency_only);
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x1d3));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x2d3));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x80d1));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x5d0));
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
		/* The field's range, on every model. */
		KUNIT_EXPECT_LT(test, 0, embm_pebs_test_setup(vfm, false, false, 65535, d, &why));
		KUNIT_EXPECT_EQ(test, -EINVAL,
				embm_pebs_test_setup(vfm, false, false, 65536, d, &why));
		/* No ldlat: no load-latency event. */
		KUNIT_EXPECT_EQ(test, 2, embm_pebs_test_setup(vfm, false, false, 0, d, &why));
		KUNIT_EXPECT_NULL(test, find_desc(d, 2, 0x1cd));
	}
}

/* MSR_PEBS_LD_LAT_THRESHOLD: 16 bits, at least 3. */
static void embm_pebs_ldlat_range_test(struct kunit *test)
{
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const struct embm_event_desc *e;
	const char *why;
	int n;

	KUNIT_EXPECT_EQ(test, -EINVAL,
			embm_pebs_test_setup(INTEL_SAPPHIRERAPIDS_X, false, false, 2, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "ldlat"));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			embm_pebs_test_setup(INTEL_SAPPHIRERAPIDS_X, false, false, 65536, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "ldlat"));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			embm_pebs_test_setup(INTEL_ATOM_CRESTMONT_X, false, false, 2, d, &why));

	n = embm_pebs_test_setup(INTEL_SAPPHIRERAPIDS_X, false, false, 3, d, &why);
	KUNIT_ASSERT_EQ(test, 4, n);
	e = find_desc(d, n, 0x1cd);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, 3ULL, e->attr.config1);

	n = embm_pebs_test_setup(INTEL_SAPPHIRERAPIDS_X, false, false, 65535, d, &why);
	KUNIT_ASSERT_EQ(test, 4, n);
	e = find_desc(d, n, 0x1cd);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_EQ(test, 65535ULL, e->attr.config1);
	KUNIT_EXPECT_STREQ(test, "sapphire-rapids", why);
}

/* Sierra Forest and Grand Ridge: loads through the load-latency event. */
static void embm_pebs_ecore_test(struct kunit *test)
{
	static const struct {
		u32 vfm;
		const char *name;
	} models[] = {
		{ INTEL_ATOM_CRESTMONT_X, "sierra-forest" },
		{ INTEL_ATOM_CRESTMONT,	  "grand-ridge" },
	};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const struct embm_event_desc *e;
	const char *why;
	int m, n;

	for (m = 0; m < ARRAY_SIZE(models); m++) {
		u32 vfm = models[m].vfm;

		n = embm_pebs_test_setup(vfm, false, false, 64, d, &why);
		KUNIT_ASSERT_EQ_MSG(test, 2, n, "vfm %#x", vfm);
		embm_pebs_check_attrs(test, d, n);
		KUNIT_EXPECT_NOT_NULL(test, strstr(why, models[m].name));
		KUNIT_EXPECT_NOT_NULL(test, strstr(why, "ldlat"));
		/* The loads are the load-latency event, counted as accesses. */
		e = find_desc(d, n, 0x5d0);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD, e->op);
		KUNIT_EXPECT_FALSE(test, e->latency_only);
		KUNIT_EXPECT_FALSE(test, e->store);
		KUNIT_EXPECT_EQ(test, 64ULL, e->attr.config1);
		KUNIT_EXPECT_EQ(test, (u64)(EMBM_SAMPLE_TYPE | PERF_SAMPLE_WEIGHT_STRUCT |
				      PERF_SAMPLE_DATA_SRC), e->attr.sample_type);
		e = find_desc(d, n, 0x82d0);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_TRUE(test, e->store && e->op == EMBM_OP_STORE);
		KUNIT_EXPECT_EQ(test, 0ULL, e->attr.config1);
		KUNIT_EXPECT_EQ(test, (u64)EMBM_SAMPLE_TYPE, e->attr.sample_type);
		/* No P-core event: 0x20d1 is WCB_HIT there, 0x1cd ARITH. */
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x20d1));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x1cd));
		KUNIT_EXPECT_NULL(test, find_desc(d, n, 0x8203));

		/* No ldlat from the session: the E-core default. */
		n = embm_pebs_test_setup(vfm, false, false, 0, d, &why);
		KUNIT_ASSERT_EQ(test, 2, n);
		e = find_desc(d, n, 0x5d0);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_EQ(test, (u64)EMBM_LDLAT_ECORE, e->attr.config1);

		n = embm_pebs_test_setup(vfm, false, false, 3, d, &why);
		KUNIT_ASSERT_EQ(test, 2, n);
		e = find_desc(d, n, 0x5d0);
		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_EXPECT_EQ(test, 3ULL, e->attr.config1);
		KUNIT_EXPECT_EQ(test, -EINVAL,
				embm_pebs_test_setup(vfm, false, false, 65536, d, &why));
	}
}

/* Each refusal says which kernel first knows the CPU. */
static void embm_pebs_refused_test(struct kunit *test)
{
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;

	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_ATOM_DARKMONT_X, false, false, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "clearwater-forest"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "6.16"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "6.19"));
	/* Its own reason, though it has architectural PEBS too. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_ATOM_DARKMONT_X, false, true, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "clearwater-forest"));

	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(IFM(19, 0x01), false, false, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "diamond-rapids"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "7.0"));

	/* A model embm does not know, with architectural PEBS. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(IFM(6, 0xfe), false, true, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "architectural PEBS"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "6.19"));
	/* Even a hybrid one, even with a known model id. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_ALDERLAKE, true, true, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "architectural PEBS"));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_GRANITERAPIDS_X, false, true, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "architectural PEBS"));

	/* Another vendor (0), clients, hybrids. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_pebs_test_setup(0, false, false, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "table"));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_ALDERLAKE, false, false, 64, d, &why));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_SAPPHIRERAPIDS_X, true, false, 64, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "hybrid"));
	/* A refusal wins over a bad ldlat: the model is the first answer. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_test_setup(INTEL_ATOM_DARKMONT_X, false, false, 2, d, &why));
}

static struct kunit_case embm_pebs_test_cases[] = {
	KUNIT_CASE(embm_pebs_pcore_test),
	KUNIT_CASE(embm_pebs_ldlat_range_test),
	KUNIT_CASE(embm_pebs_ecore_test),
	KUNIT_CASE(embm_pebs_refused_test),
	{}
};

static struct kunit_suite embm_pebs_test_suite = {
	.name = "embm_pebs",
	.test_cases = embm_pebs_test_cases,
};

kunit_test_suite(embm_pebs_test_suite);

#endif /* _ARCH_X86_EVENTS_INTEL_EMBM_PEBS_KUNIT_H */
