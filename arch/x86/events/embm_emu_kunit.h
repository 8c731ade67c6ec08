/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_emu.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.  The shared memory is a
 * kmalloc()ed buffer: the ring's bounds, the checks of a record (its
 * addresses against its mode too) and its data source, a drain of a
 * corrupted ring, the period left, the groups and attributes event_init
 * refuses, and a CPU's teardown run without the device.  The device
 * side's tests are embm_emu_dev_kunit.h.
 */
#ifndef _ARCH_X86_EVENTS_EMBM_EMU_KUNIT_H
#define _ARCH_X86_EVENTS_EMBM_EMU_KUNIT_H

#include <kunit/test.h>
#include <linux/random.h>

#define EMBM_EMU_T_RING		8

static void embm_emu_ring_test(struct kunit *test)
{
	u64 skipped;

	KUNIT_EXPECT_EQ(test, 0ULL, embm_emu_ring_avail(100, 100, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 0ULL, skipped);
	KUNIT_EXPECT_EQ(test, 5ULL, embm_emu_ring_avail(105, 100, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 8ULL, embm_emu_ring_avail(108, 100, 8, &skipped));
	/* Wrapped around 2^64: still 8 behind. */
	KUNIT_EXPECT_EQ(test, 8ULL, embm_emu_ring_avail(3, -5ULL, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 0ULL, skipped);
	/* More than a ring: resync, what the ring held is lost. */
	KUNIT_EXPECT_EQ(test, 0ULL, embm_emu_ring_avail(109, 100, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 8ULL, skipped);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_emu_ring_avail(100 + (1ULL << 31), 100, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 8ULL, skipped);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_emu_ring_avail(100 + (1ULL << 40), 100, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 0ULL, skipped);
	/* The head behind the tail: no count to trust. */
	KUNIT_EXPECT_EQ(test, 0ULL, embm_emu_ring_avail(99, 100, 8, &skipped));
	KUNIT_EXPECT_EQ(test, 0ULL, skipped);
}

/* A CPU's state over fake shared memory, with an event in slot 1. */
struct embm_emu_t_cpu {
	struct embm_emu_pcpu pc;
	struct embm_emu_cpu shm;
	struct embm_emu_record ring[EMBM_EMU_T_RING];
	struct perf_event event;
};

static struct embm_emu_t_cpu *embm_emu_t_cpu(struct kunit *test)
{
	struct embm_emu_t_cpu *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->pc.shm = &t->shm;
	t->pc.ring = t->ring;
	t->pc.ring_mask = EMBM_EMU_T_RING - 1;
	t->pc.cpu = -1;
	t->event.hw.config = EMBM_EMU_SLOT_LOAD | EMBM_EMU_SLOT_USER | EMBM_EMU_SLOT_KERNEL;
	t->event.attr.sample_period = 1000;	/* a sampling event */
	t->event.hw.idx = 1;
	t->pc.event[1] = &t->event;
	t->pc.active = BIT(1);
	t->pc.base[1] = 100;
	return t;
}

static void embm_emu_record_test(struct kunit *test)
{
	struct embm_emu_t_cpu *t = embm_emu_t_cpu(test);
	struct embm_emu_rec ok = {
		.phys = 0x1000, .vaddr = 0x7f0000001000, .ip = 0x401000, .count = 101,
		.latency = 80, .info = 1 | EMBM_EMU_REC_USER, .src = EMBM_EMU_SRC_LOCAL,
		.node = 0,
	};
	struct embm_emu_rec r;

	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &ok));
	r = ok;
	r.node = NUMA_NO_NODE;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &r));
	r.info = EMBM_EMU_REC_USER;	/* slot 0: no event */
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_STALE, embm_emu_check_record(&t->pc, &r));

	/* Out of bounds: corrupted. */
	r = ok;
	r.src = EMBM_EMU_SRC_NR;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.src = 0xff;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r = ok;
	r.node = -2;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.node = nr_node_ids;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.node = S32_MAX;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));

	/* A store on a slot that counts loads, user mode on one that excludes it. */
	r = ok;
	r.info |= EMBM_EMU_REC_STORE;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	t->event.hw.config &= ~EMBM_EMU_SLOT_USER;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &ok));
	r = ok;
	r.info &= ~EMBM_EMU_REC_USER;
	r.ip = 0xffffffff81000000ULL;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &r));
	t->event.hw.config |= EMBM_EMU_SLOT_USER;

	/* Of an earlier event in the slot, or of this one stopped. */
	r = ok;
	r.count = 100;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_STALE, embm_emu_check_record(&t->pc, &r));
	r.count = 3;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_STALE, embm_emu_check_record(&t->pc, &r));
	/* Of this event, stopped (throttled) or off: lost to it, not stale. */
	t->event.hw.state = PERF_HES_STOPPED;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_STOPPED, embm_emu_check_record(&t->pc, &ok));
	t->event.hw.state = 0;
	t->pc.active = 0;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_STOPPED, embm_emu_check_record(&t->pc, &ok));
	/* Of an earlier event, the slot's event stopped: stale still. */
	r = ok;
	r.count = 3;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_STALE, embm_emu_check_record(&t->pc, &r));
	/* A counting event's slot gives no sample: a record for it is forged. */
	t->pc.active = BIT(1);
	t->event.attr.sample_period = 0;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &ok));
	t->event.attr.sample_period = 1000;
}

/*
 * A record's IP and data address against the mode it says: perf would
 * report a kernel address of a "user" record to an event that excludes the
 * kernel.  Corrupted, whatever its slot counts.
 */
static void embm_emu_record_addr_test(struct kunit *test)
{
	static const u64 kip = 0xffffffff81000000ULL, kdata = 0xffff888000001000ULL;
	/* Past the user half: 2^47, or 2^56 with LA57 on. */
	const u64 noncanon = 1ULL << __VIRTUAL_MASK_SHIFT;
	struct embm_emu_t_cpu *t = embm_emu_t_cpu(test);
	struct embm_emu_rec user = {
		.phys = 0x1000, .vaddr = 0x7f0000001000, .ip = 0x401000, .count = 101,
		.latency = 80, .info = 1 | EMBM_EMU_REC_USER, .src = EMBM_EMU_SRC_LOCAL,
	};
	struct embm_emu_rec kern = user, r;

	kern.info = 1;
	kern.ip = kip;
	kern.vaddr = kdata;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &user));
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &kern));
	/* The kernel touches user memory (copy_to_user()). */
	r = kern;
	r.vaddr = user.vaddr;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &r));

	/* User mode, a kernel or non-canonical IP or data address. */
	r = user;
	r.ip = kip;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r = user;
	r.ip = noncanon;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r = user;
	r.vaddr = kdata;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r = user;
	r.vaddr = 0xfffffffffffff800ULL;	/* the last page: the kernel's */
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r = user;
	r.vaddr = TASK_SIZE_MAX;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.vaddr = TASK_SIZE_MAX - 1;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_OK, embm_emu_check_record(&t->pc, &r));

	/* Kernel mode, a user or non-canonical IP, a non-canonical address. */
	r = kern;
	r.ip = user.ip;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.ip = 0;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.ip = noncanon;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.ip = 0x8000000000000000ULL;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r = kern;
	r.vaddr = noncanon;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
	r.vaddr = 0x7fff000000000000ULL;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));

	/* Bad before stale: a gone event's record with a lying mode is bad. */
	r = user;
	r.ip = kip;
	t->pc.active = 0;
	KUNIT_EXPECT_EQ(test, EMBM_EMU_REC_BAD, embm_emu_check_record(&t->pc, &r));
}

/* The fields embm's embm_served_by() and perf report --mem-mode read. */
static void embm_emu_data_src_test(struct kunit *test)
{
	static const struct {
		unsigned int src;
		u64 lvl_num;
		u64 lvl;	/* a bit that must be in mem_lvl, 0: none */
		bool remote;
	} want[] = {
		{ EMBM_EMU_SRC_L1, PERF_MEM_LVLNUM_L1, PERF_MEM_LVL_L1, false },
		{ EMBM_EMU_SRC_L2, PERF_MEM_LVLNUM_L2, PERF_MEM_LVL_L2, false },
		{ EMBM_EMU_SRC_L3, PERF_MEM_LVLNUM_L3, PERF_MEM_LVL_L3, false },
		{ EMBM_EMU_SRC_LOCAL, PERF_MEM_LVLNUM_RAM, PERF_MEM_LVL_LOC_RAM, false },
		{ EMBM_EMU_SRC_REMOTE, PERF_MEM_LVLNUM_RAM, PERF_MEM_LVL_REM_RAM1, true },
		{ EMBM_EMU_SRC_FAR, PERF_MEM_LVLNUM_RAM, PERF_MEM_LVL_REM_RAM1, true },
		{ EMBM_EMU_SRC_CXL, PERF_MEM_LVLNUM_CXL, 0, false },
		{ EMBM_EMU_SRC_OTHER, PERF_MEM_LVLNUM_NA, PERF_MEM_LVL_NA, false },
	};
	union perf_mem_data_src d;
	int i;

	BUILD_BUG_ON(ARRAY_SIZE(want) != EMBM_EMU_SRC_NR);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		d.val = embm_emu_data_src(want[i].src, false, false);
		KUNIT_EXPECT_EQ_MSG(test, want[i].lvl_num, (u64)d.mem_lvl_num, "src %d", i);
		if (want[i].lvl)
			KUNIT_EXPECT_TRUE_MSG(test, d.mem_lvl & want[i].lvl, "src %d", i);
		/* A level that is served hits (embm: else unknown). */
		KUNIT_EXPECT_EQ_MSG(test, want[i].src < EMBM_EMU_SRC_CXL,
				    !!(d.mem_lvl & PERF_MEM_LVL_HIT), "src %d", i);
		KUNIT_EXPECT_FALSE(test, d.mem_lvl & PERF_MEM_LVL_MISS);
		KUNIT_EXPECT_EQ_MSG(test, want[i].remote, !!d.mem_remote, "src %d", i);
		KUNIT_EXPECT_EQ(test, (u64)PERF_MEM_OP_LOAD, (u64)d.mem_op);
		d.val = embm_emu_data_src(want[i].src, true, false);
		KUNIT_EXPECT_EQ(test, (u64)PERF_MEM_OP_STORE, (u64)d.mem_op);
	}
	/* In no range: I/O if QEMU did it as I/O (MMIO). */
	d.val = embm_emu_data_src(EMBM_EMU_SRC_OTHER, false, true);
	KUNIT_EXPECT_EQ(test, (u64)PERF_MEM_LVLNUM_IO, (u64)d.mem_lvl_num);
	/* CXL memory is I/O to QEMU: still CXL. */
	d.val = embm_emu_data_src(EMBM_EMU_SRC_CXL, false, true);
	KUNIT_EXPECT_EQ(test, (u64)PERF_MEM_LVLNUM_CXL, (u64)d.mem_lvl_num);
	KUNIT_EXPECT_EQ(test, (u64)PERF_MEM_NA, embm_emu_data_src(EMBM_EMU_SRC_NR, false, false));
}

/*
 * A ring full of garbage, a head far past the tail, lost going backwards:
 * no record becomes a sample (slot 1's event has no ring buffer: only
 * records that fail the checks are in the ring), the tail follows, the
 * counts say what happened.
 */
static void embm_emu_drain_test(struct kunit *test)
{
	struct embm_emu_t_cpu *t = embm_emu_t_cpu(test);
	struct embm_emu_pcpu *pc = &t->pc;
	int i;

	get_random_bytes(t->ring, sizeof(t->ring));
	for (i = 0; i < EMBM_EMU_T_RING; i++) {
		/* Never a sample: a bad source, or a stale count. */
		if (i % 2)
			t->ring[i].src = EMBM_EMU_SRC_NR + i;
		else
			t->ring[i].count = 0;
	}
	t->shm.head = 5;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 5ULL, pc->tail);
	KUNIT_EXPECT_EQ(test, 5ULL, READ_ONCE(t->shm.tail));
	KUNIT_EXPECT_EQ(test, 0ULL, pc->stats.samples);
	KUNIT_EXPECT_EQ(test, 5ULL, pc->stats.bad + pc->stats.stale);

	/* The budget: 3 of 8. */
	t->shm.head = pc->tail + EMBM_EMU_T_RING;
	embm_emu_drain(pc, 3);
	KUNIT_EXPECT_EQ(test, 8ULL, pc->tail);
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 13ULL, pc->tail);

	/* Far ahead: resync, a ring's worth lost. */
	t->shm.head = pc->tail + 1000;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 1013ULL, pc->tail);
	KUNIT_EXPECT_EQ(test, 1ULL, pc->stats.resyncs);
	KUNIT_EXPECT_EQ(test, 8ULL, pc->stats.lost);
	KUNIT_EXPECT_EQ(test, 13ULL, pc->stats.bad + pc->stats.stale);

	/* Behind, and far ahead: resync, nothing to count. */
	t->shm.head = pc->tail - 1;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 1012ULL, pc->tail);
	t->shm.head = pc->tail + (1ULL << 50);
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 3ULL, pc->stats.resyncs);
	KUNIT_EXPECT_EQ(test, 8ULL, pc->stats.lost);

	/* The plugin's lost: deltas, not a count that went backwards. */
	t->shm.lost = 7;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 15ULL, pc->stats.lost);
	t->shm.lost = 2;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 15ULL, pc->stats.lost);
	t->shm.lost = 5;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	KUNIT_EXPECT_EQ(test, 18ULL, pc->stats.lost);
	KUNIT_EXPECT_EQ(test, 0ULL, pc->stats.samples);
	KUNIT_EXPECT_FALSE(test, pc->draining);
}

static void embm_emu_left_test(struct kunit *test)
{
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	struct hw_perf_event *hwc;

	KUNIT_ASSERT_NOT_NULL(test, event);
	hwc = &event->hw;
	local64_set(&hwc->period_left, 30);
	KUNIT_EXPECT_EQ(test, 30LL, embm_emu_left(hwc, 100));
	local64_set(&hwc->period_left, 0);
	KUNIT_EXPECT_EQ(test, 100LL, embm_emu_left(hwc, 100));
	local64_set(&hwc->period_left, -20);
	KUNIT_EXPECT_EQ(test, 80LL, embm_emu_left(hwc, 100));
	local64_set(&hwc->period_left, -1000);
	KUNIT_EXPECT_EQ(test, 100LL, embm_emu_left(hwc, 100));
	/* A period made smaller (frequency mode): at most the new one. */
	local64_set(&hwc->period_left, 5000);
	KUNIT_EXPECT_EQ(test, 100LL, embm_emu_left(hwc, 100));
	KUNIT_EXPECT_EQ(test, 100ULL, hwc->last_period);
}

/*
 * The attributes event_init() refuses, before it turns sampling on: no
 * device is needed for them.  Type 42 is the fake PMU's.
 */
static void embm_emu_event_init_test(struct kunit *test)
{
	static const struct {
		int err;
		struct perf_event_attr attr;
	} bad[] = {
		{ -ENOENT, { .type = 43, .config = EMBM_EMU_CFG_LOAD } },
		{ -EINVAL, { .type = 42, .config = 0 } },
		{ -EINVAL, { .type = 42, .config = EMBM_EMU_CFG_RAND } },
		{ -EINVAL, { .type = 42, .config = EMBM_EMU_CFG_LOAD | BIT_ULL(3) } },
		{ -EINVAL, { .type = 42, .config = EMBM_EMU_CFG_LOAD, .config1 = 1 } },
		/* Nothing counted at all. */
		{ -EINVAL, { .type = 42, .config = EMBM_EMU_CFG_STORE, .exclude_user = 1,
			     .exclude_kernel = 1 } },
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD,
				 .sample_type = PERF_SAMPLE_CALLCHAIN } },
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD,
				 .sample_type = PERF_SAMPLE_REGS_USER } },
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD,
				 .sample_type = PERF_SAMPLE_REGS_INTR } },
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD,
				 .sample_type = PERF_SAMPLE_STACK_USER } },
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD,
				 .sample_type = PERF_SAMPLE_BRANCH_STACK } },
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD, .sigtrap = 1 } },
		/* Frequency mode: samples reach perf in batches. */
		{ -EINVAL, { .type = 42, .config = EMBM_EMU_CFG_LOAD, .freq = 1,
			     .sample_freq = 1000 } },
		/* "rand" only where the plugin randomises. */
		{ -EOPNOTSUPP, { .type = 42, .config = EMBM_EMU_CFG_LOAD | EMBM_EMU_CFG_RAND } },
		/* Good attributes, on a CPU whose numbering was not checked. */
		{ -ENODEV, { .type = 42, .config = EMBM_EMU_CFG_LOAD | EMBM_EMU_CFG_STORE,
			     .precise_ip = 3, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR |
			     PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC |
			     PERF_SAMPLE_WEIGHT_STRUCT } },
	};
	struct embm_emu *emu = kunit_kzalloc(test, sizeof(*emu), GFP_KERNEL);
	struct perf_event *event = kunit_kzalloc(test, sizeof(*event), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, emu);
	KUNIT_ASSERT_NOT_NULL(test, event);
	emu->pmu.type = 42;
	event->pmu = &emu->pmu;
	event->group_leader = event;
	event->cpu = 0;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		event->attr = bad[i].attr;
		KUNIT_EXPECT_EQ_MSG(test, bad[i].err, embm_emu_event_init(event), "case %d", i);
	}
	KUNIT_EXPECT_NULL(test, event->destroy);
}

/*
 * Groups: at most EMBM_EMU_SLOTS embm_emu events, the new one counted;
 * events of another PMU take no slot.  A group that fits goes on to the
 * next check (-ENODEV: CPU 0's numbering was not checked).  perf holds the
 * leader's ctx->mutex around a sibling's event_init.
 */
static void embm_emu_group_test(struct kunit *test)
{
	struct embm_emu *emu = kunit_kzalloc(test, sizeof(*emu), GFP_KERNEL);
	struct perf_event_context *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct perf_event *ev = kunit_kcalloc(test, 7, sizeof(*ev), GFP_KERNEL);
	struct perf_event *leader, *event;
	struct pmu *other;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, emu);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	emu->pmu.type = 42;
	mutex_init(&ctx->mutex);
	leader = &ev[0];
	event = &ev[6];
	for (i = 0; i < 7; i++) {
		INIT_LIST_HEAD(&ev[i].sibling_list);
		ev[i].group_leader = leader;
		ev[i].ctx = ctx;
		ev[i].pmu = &emu->pmu;
		ev[i].cpu = 0;
	}
	event->attr = (struct perf_event_attr){ .type = 42, .config = EMBM_EMU_CFG_LOAD };

	mutex_lock(&ctx->mutex);
	/* Alone, and with its leader: fits. */
	event->group_leader = event;
	KUNIT_EXPECT_TRUE(test, embm_emu_group_fits(event));
	event->group_leader = leader;
	KUNIT_EXPECT_TRUE(test, embm_emu_group_fits(event));
	/* The leader, 2 siblings and the new one: 4, the slots. */
	for (i = 1; i <= 2; i++)
		list_add_tail(&ev[i].sibling_list, &leader->sibling_list);
	KUNIT_EXPECT_TRUE(test, embm_emu_group_fits(event));
	KUNIT_EXPECT_EQ(test, -ENODEV, embm_emu_event_init(event));
	/* A fifth: it could never be scheduled. */
	list_add_tail(&ev[3].sibling_list, &leader->sibling_list);
	KUNIT_EXPECT_FALSE(test, embm_emu_group_fits(event));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_emu_event_init(event));
	/* Another PMU's events (the leader's too) take no slot. */
	ev[3].pmu = other;
	list_add_tail(&ev[4].sibling_list, &leader->sibling_list);
	ev[4].pmu = other;
	KUNIT_EXPECT_TRUE(test, embm_emu_group_fits(event));
	leader->pmu = other;
	ev[3].pmu = &emu->pmu;
	KUNIT_EXPECT_TRUE(test, embm_emu_group_fits(event));
	ev[4].pmu = &emu->pmu;
	KUNIT_EXPECT_FALSE(test, embm_emu_group_fits(event));
	mutex_unlock(&ctx->mutex);
	KUNIT_EXPECT_NULL(test, event->destroy);
}

/* The drain timer of a test's CPU: never on this CPU, so it ends. */
static enum hrtimer_restart embm_emu_t_timer(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

/*
 * A CPU's teardown at removal: the drain timer is cancelled, the pointers
 * into the shared memory are gone, and a drain or a tag after it touches
 * nothing.
 */
static void embm_emu_release_test(struct kunit *test)
{
	struct embm_emu_t_cpu *t = embm_emu_t_cpu(test);
	struct embm_emu_pcpu *pc = &t->pc;

	hrtimer_init(&pc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	pc->timer.function = embm_emu_t_timer;
	pc->sampling = pc->active;
	hrtimer_start(&pc->timer, ms_to_ktime(60 * MSEC_PER_SEC), HRTIMER_MODE_REL_HARD);
	KUNIT_ASSERT_TRUE(test, hrtimer_active(&pc->timer));

	embm_emu_release_pcpu(pc);
	KUNIT_EXPECT_FALSE(test, hrtimer_active(&pc->timer));
	KUNIT_EXPECT_NULL(test, pc->shm);
	KUNIT_EXPECT_NULL(test, pc->ring);
	KUNIT_EXPECT_EQ(test, 0U, pc->active | pc->sampling);

	/* The memory may be unmapped now: nothing reaches it through @pc. */
	t->shm.head = 5;
	t->shm.active = 0xff;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	embm_emu_tag(pc, current);
	KUNIT_EXPECT_EQ(test, 0ULL, pc->tail);
	KUNIT_EXPECT_EQ(test, 0ULL, READ_ONCE(t->shm.tail));
	KUNIT_EXPECT_EQ(test, 0xffU, READ_ONCE(t->shm.active));
	KUNIT_EXPECT_EQ(test, 0ULL, READ_ONCE(t->shm.task));
}

static struct kunit_case embm_emu_test_cases[] = {
	KUNIT_CASE(embm_emu_ring_test),
	KUNIT_CASE(embm_emu_record_test),
	KUNIT_CASE(embm_emu_record_addr_test),
	KUNIT_CASE(embm_emu_data_src_test),
	KUNIT_CASE(embm_emu_drain_test),
	KUNIT_CASE(embm_emu_left_test),
	KUNIT_CASE(embm_emu_event_init_test),
	KUNIT_CASE(embm_emu_group_test),
	KUNIT_CASE(embm_emu_release_test),
	{}
};

static struct kunit_suite embm_emu_test_suite = {
	.name = "embm_emu",
	.test_cases = embm_emu_test_cases,
};

kunit_test_suite(embm_emu_test_suite);

#endif /* _ARCH_X86_EVENTS_EMBM_EMU_KUNIT_H */
