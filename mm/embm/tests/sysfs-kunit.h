/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of sysfs.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions and knobs.
 */
#ifndef __MM_EMBM_TESTS_SYSFS_KUNIT_H
#define __MM_EMBM_TESTS_SYSFS_KUNIT_H

#include <kunit/test.h>

/*
 * The sources registered at boot are in the order the automatic choice
 * tries them, by rank whatever the link order: pebs, ibs, emu, swfault (no
 * pebs without CONFIG_CPU_SUP_INTEL, no emu without
 * CONFIG_PERF_EVENTS_EMBM_EMU).  The source knob reads as it did when the
 * table was fixed at build time, and takes "auto" and the names.
 */
static void embm_source_knob_test(struct kunit *test)
{
	const char *names[5];
	const struct embm_source *src, *prev = NULL;
	struct embm_config saved;
	char *buf, *want;
	int i, nr = 0, len;

	if (IS_ENABLED(CONFIG_CPU_SUP_INTEL))
		names[nr++] = "pebs";
	names[nr++] = "ibs";
	if (IS_ENABLED(CONFIG_PERF_EVENTS_EMBM_EMU)) {
		names[nr++] = "emu";
		names[nr++] = "emu-ring";
	}
	names[nr++] = "swfault";
	for (i = 0; (src = embm_source_at(i)); i++) {
		KUNIT_ASSERT_LT(test, i, nr);
		KUNIT_EXPECT_STREQ(test, names[i], src->name);
		if (prev)
			KUNIT_EXPECT_LT(test, prev->rank, src->rank);
		KUNIT_EXPECT_PTR_EQ(test, src, embm_source_find(src->name));
		prev = src;
	}
	KUNIT_EXPECT_EQ(test, nr, i);
	KUNIT_EXPECT_NULL(test, embm_source_find("auto"));
	KUNIT_EXPECT_PTR_EQ(test, embm_source_find("swfault\n"), prev);

	/* sysfs_emit_at() wants a page, as sysfs gives. */
	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	want = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	embm_knobs_get(&saved);
	KUNIT_EXPECT_EQ(test, 5L, (long)source_store(NULL, NULL, "auto\n", 5));
	source_show(NULL, NULL, buf);
	len = scnprintf(want, PAGE_SIZE, "[auto]");
	for (i = 0; i < nr; i++)
		len += scnprintf(want + len, PAGE_SIZE - len, " %s", names[i]);
	scnprintf(want + len, PAGE_SIZE - len, "\n");
	KUNIT_EXPECT_STREQ(test, want, buf);
	KUNIT_EXPECT_EQ(test, 8L, (long)source_store(NULL, NULL, "swfault\n", 8));
	source_show(NULL, NULL, buf);
	len = scnprintf(want, PAGE_SIZE, "auto");
	for (i = 0; i < nr - 1; i++)
		len += scnprintf(want + len, PAGE_SIZE - len, " %s", names[i]);
	scnprintf(want + len, PAGE_SIZE - len, " [swfault]\n");
	KUNIT_EXPECT_STREQ(test, want, buf);
	KUNIT_EXPECT_EQ(test, (long)-EINVAL, (long)source_store(NULL, NULL, "none\n", 5));

	mutex_lock(&embm_knobs_lock);
	embm_knobs.source = saved.source;
	mutex_unlock(&embm_knobs_lock);
}

static struct kunit_case embm_sysfs_test_cases[] = {
	KUNIT_CASE(embm_source_knob_test),
	{}
};

static struct kunit_suite embm_sysfs_test_suite = {
	.name = "embm_sysfs",
	.test_cases = embm_sysfs_test_cases,
};

kunit_test_suite(embm_sysfs_test_suite);

#endif /* __MM_EMBM_TESTS_SYSFS_KUNIT_H */
