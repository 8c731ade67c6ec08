/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_emu_dev.c, included at the end of it (as mm/damon/
 * tests/ are) so that they reach its static functions: the layout checks
 * on a kmalloc()ed header, the ranges told to the plugin, and the
 * generation's bump.  They need no device.
 */
#ifndef _ARCH_X86_EVENTS_EMBM_EMU_DEV_KUNIT_H
#define _ARCH_X86_EVENTS_EMBM_EMU_DEV_KUNIT_H

#include <kunit/test.h>

#define EMBM_EMU_T_CPUS		2
#define EMBM_EMU_T_RING		8
#define EMBM_EMU_T_PAGES	4

/* A plugin's layout for 2 vCPUs, rings of 8, 4 watched pages: its size. */
static u64 embm_emu_t_layout(struct embm_emu_header *h)
{
	u64 off = ALIGN(sizeof(*h), 64);

	memset(h, 0, sizeof(*h));
	h->magic = EMBM_EMU_MAGIC;
	h->version = EMBM_EMU_VERSION;
	h->nr_cpus = EMBM_EMU_T_CPUS;
	h->ring_records = EMBM_EMU_T_RING;
	h->max_pages = EMBM_EMU_T_PAGES;
	h->features = EMBM_EMU_FEAT_DRV_WANT;
	h->cpu_off = off;
	off += EMBM_EMU_T_CPUS * sizeof(struct embm_emu_cpu);
	h->ring_off = off;
	off += EMBM_EMU_T_CPUS * EMBM_EMU_T_RING * sizeof(struct embm_emu_record);
	h->oracle_off = off;
	off += EMBM_EMU_T_CPUS * sizeof(struct embm_emu_oracle);
	h->space_off = off;
	off += EMBM_EMU_T_CPUS * sizeof(struct embm_emu_space);
	h->page_off = off;
	off += EMBM_EMU_T_PAGES * sizeof(u64);
	h->page_count_off = off;
	off += EMBM_EMU_T_CPUS * EMBM_EMU_T_PAGES * 2 * sizeof(u64);
	h->size = off;
	return off;
}

/* Check the layout of @h against a BAR of @bar bytes; a refusal says why. */
static int embm_emu_t_check(struct embm_emu_header *h, u64 bar)
{
	struct embm_emu_layout l;
	const char *why = NULL;
	int err;

	err = embm_emu_check_layout(h, bar, &l, &why);
	if (err && !why)
		return -EFAULT;
	return err;
}

static void embm_emu_layout_test(struct kunit *test)
{
	struct embm_emu_header *h;
	struct embm_emu_layout l;
	const char *why;
	u64 size;

	h = kunit_kzalloc(test, 256 * 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	size = embm_emu_t_layout(h);
	KUNIT_ASSERT_LE(test, size, 256 * 1024ULL);

	/* The right magic and version, else not ours. */
	KUNIT_EXPECT_EQ(test, 0, embm_emu_magic_ok(h, size));
	KUNIT_EXPECT_EQ(test, -ENODEV, embm_emu_magic_ok(h, sizeof(*h) - 1));
	h->version = EMBM_EMU_VERSION + 1;
	KUNIT_EXPECT_EQ(test, -EPROTO, embm_emu_magic_ok(h, size));
	h->magic = 0;
	KUNIT_EXPECT_EQ(test, -ENODEV, embm_emu_magic_ok(h, size));

	size = embm_emu_t_layout(h);
	KUNIT_ASSERT_EQ(test, 0, embm_emu_check_layout(h, size, &l, &why));
	KUNIT_EXPECT_EQ(test, (u32)EMBM_EMU_T_CPUS, l.nr_cpus);
	KUNIT_EXPECT_EQ(test, (u32)EMBM_EMU_T_RING, l.ring_records);
	KUNIT_EXPECT_EQ(test, h->ring_off, l.ring_off);
	/* The plugin's size may be less than the BAR's, not more. */
	KUNIT_EXPECT_EQ(test, 0, embm_emu_t_check(h, size + 4096));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size - 1));

	embm_emu_t_layout(h);
	h->nr_cpus = 0;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	h->nr_cpus = EMBM_EMU_MAX_CPUS + 1;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));

	embm_emu_t_layout(h);
	h->ring_records = 6;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	h->ring_records = 0;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	h->ring_records = 1U << 31;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));

	embm_emu_t_layout(h);
	h->max_pages = U32_MAX;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));

	/* A plugin that would take want alone (user space's): refused. */
	embm_emu_t_layout(h);
	h->features = EMBM_EMU_FEAT_LATENCY | EMBM_EMU_FEAT_RANDOM;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	h->features |= EMBM_EMU_FEAT_DRV_WANT;
	KUNIT_EXPECT_EQ(test, 0, embm_emu_t_check(h, size));

	/* Misaligned, in the header, wrapping around, overlapping, too long. */
	embm_emu_t_layout(h);
	h->cpu_off += 4;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	embm_emu_t_layout(h);
	h->cpu_off = 0;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	embm_emu_t_layout(h);
	h->ring_off = U64_MAX - 63;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	embm_emu_t_layout(h);
	h->ring_off = h->cpu_off + sizeof(struct embm_emu_cpu);
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	embm_emu_t_layout(h);
	h->page_off = h->oracle_off;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	embm_emu_t_layout(h);
	h->page_count_off += 8;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_t_check(h, size));
	/* No watched pages: empty regions overlap nothing. */
	embm_emu_t_layout(h);
	h->max_pages = 0;
	h->page_count_off = h->page_off;
	KUNIT_EXPECT_EQ(test, 0, embm_emu_t_check(h, size));
}

static void embm_emu_range_test(struct kunit *test)
{
	struct embm_emu_topo *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	/* Contiguous, same node and kind: one range; empty pieces: nothing. */
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 0x1000, 0x9f000, 0, EMBM_EMU_KIND_DRAM));
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 0x100000, 0x8000000, 0,
						    EMBM_EMU_KIND_DRAM));
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 0x8000000, 0x10000000, 0,
						    EMBM_EMU_KIND_DRAM));
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 0x10000000, 0x10000000, 1,
						    EMBM_EMU_KIND_DRAM));
	KUNIT_EXPECT_EQ(test, 2U, t->nr_ranges);
	KUNIT_EXPECT_EQ(test, 0x10000000ULL, t->range[1].end);
	/* Another node, or kind, is another range. */
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 0x10000000, 0x18000000, 1,
						    EMBM_EMU_KIND_DRAM));
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 0x18000000, 0x20000000, 1,
						    EMBM_EMU_KIND_CXL));
	KUNIT_EXPECT_EQ(test, 4U, t->nr_ranges);
	KUNIT_EXPECT_EQ(test, 0U, t->merged);

	/* Full: a gap of the same node and kind is merged, another is refused. */
	for (i = t->nr_ranges; i < EMBM_EMU_MAX_RANGES; i++)
		KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, (u64)(i + 1) << 32,
							    ((u64)(i + 1) << 32) + 4096, 2,
							    EMBM_EMU_KIND_FAR));
	KUNIT_EXPECT_EQ(test, (u32)EMBM_EMU_MAX_RANGES, t->nr_ranges);
	KUNIT_EXPECT_EQ(test, 0, embm_emu_range_add(t, 1ULL << 40, (1ULL << 40) + 4096, 2,
						    EMBM_EMU_KIND_FAR));
	KUNIT_EXPECT_EQ(test, 1U, t->merged);
	KUNIT_EXPECT_EQ(test, (1ULL << 40) + 4096, t->range[EMBM_EMU_MAX_RANGES - 1].end);
	KUNIT_EXPECT_EQ(test, -ENOSPC, embm_emu_range_add(t, 1ULL << 41, (1ULL << 41) + 4096,
							  3, EMBM_EMU_KIND_FAR));
	KUNIT_EXPECT_EQ(test, (u32)EMBM_EMU_MAX_RANGES, t->nr_ranges);
}

/*
 * The generation has two writers (the driver, a tool in user space): each
 * bump is one atomic step that returns its own value, wrapping at 2^64.
 */
static void embm_emu_gen_test(struct kunit *test)
{
	struct embm_emu_header *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	h->gen = 41;
	KUNIT_EXPECT_EQ(test, 42ULL, embm_emu_bump_gen(h));
	KUNIT_EXPECT_EQ(test, 42ULL, h->gen);
	/* Another writer's bump in between is kept. */
	h->gen += 1;
	KUNIT_EXPECT_EQ(test, 44ULL, embm_emu_bump_gen(h));
	h->gen = U64_MAX;
	KUNIT_EXPECT_EQ(test, 0ULL, embm_emu_bump_gen(h));
	/* The driver's want is its own field: a tool's is left alone. */
	KUNIT_EXPECT_EQ(test, offsetof(struct embm_emu_header, drv_want),
			offsetof(struct embm_emu_header, nr_pages) + sizeof(u32));
}

static struct kunit_case embm_emu_dev_test_cases[] = {
	KUNIT_CASE(embm_emu_layout_test),
	KUNIT_CASE(embm_emu_range_test),
	KUNIT_CASE(embm_emu_gen_test),
	{}
};

static struct kunit_suite embm_emu_dev_test_suite = {
	.name = "embm_emu_dev",
	.test_cases = embm_emu_dev_test_cases,
};

kunit_test_suite(embm_emu_dev_test_suite);

#endif /* _ARCH_X86_EVENTS_EMBM_EMU_DEV_KUNIT_H */
