// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of embm
 */

#define pr_fmt(fmt) "embm-kunit: " fmt

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/memory-tiers.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <asm/amd-ibs.h>
#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/processor.h>
#include <uapi/linux/embm.h>

#include "embm.h"

static void embm_check_node_test(struct kunit *test)
{
	int nid;

	KUNIT_EXPECT_EQ(test, 0, embm_check_node(NUMA_NO_NODE));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(-2));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(INT_MIN));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(MAX_NUMNODES));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(INT_MAX));
	for_each_node_state(nid, N_MEMORY)
		KUNIT_EXPECT_EQ(test, 0, embm_check_node(nid));
	for_each_node(nid) {
		if (!node_state(nid, N_MEMORY))
			KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(nid));
	}
}

/* The KUnit runner is a kernel thread: it can only run system-wide sessions. */
static void embm_session_test(struct kunit *test)
{
	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING) {
		mutex_unlock(&embm_lock);
		kunit_skip(test, "a session is running");
	}
	mutex_unlock(&embm_lock);

	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(-2, NUMA_NO_NODE, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SYSTEM, MAX_NUMNODES, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SELF, NUMA_NO_NODE, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_end(-2, 0));
	/* Unknown flags, and a cgroup fd that is not one. */
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SYSTEM, NUMA_NO_NODE, 2));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_end(EMBM_PID_SYSTEM, ~0U));
	KUNIT_EXPECT_EQ(test, -EBADF,
			embm_session_start(-1, NUMA_NO_NODE, EMBM_FLAG_CGROUP));

	KUNIT_ASSERT_EQ(test, 0, embm_session_start(EMBM_PID_SYSTEM, first_memory_node, 0));
	KUNIT_EXPECT_EQ(test, EMBM_RUNNING, embm_session.state);
	KUNIT_EXPECT_EQ(test, first_memory_node, embm_session.node);
	KUNIT_EXPECT_PTR_EQ(test, NULL, embm_session.target);
	KUNIT_EXPECT_EQ(test, -EBUSY, embm_session_start(EMBM_PID_SYSTEM, NUMA_NO_NODE, 0));
	KUNIT_EXPECT_EQ(test, -ESRCH, embm_session_end(EMBM_PID_SELF, 0));
	KUNIT_EXPECT_EQ(test, -ESRCH, embm_session_end(1, 0));
	KUNIT_EXPECT_EQ(test, 0, embm_session_end(EMBM_PID_SYSTEM, 0));
	KUNIT_EXPECT_EQ(test, EMBM_DONE, embm_session.state);
	KUNIT_EXPECT_GE(test, embm_session.stop_ns, embm_session.start_ns);
	KUNIT_EXPECT_EQ(test, -ENOENT, embm_session_end(EMBM_PID_SYSTEM, 0));
}

/* ---- records ----------------------------------------------------------- */

/* Build a sample record: header, then the u64 fields given, in order. */
static struct perf_event_header *make_sample(struct kunit *test, const u64 *fields,
					     unsigned int n)
{
	struct perf_event_header *hdr;

	hdr = kunit_kzalloc(test, sizeof(*hdr) + n * sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hdr);
	hdr->type = PERF_RECORD_SAMPLE;
	hdr->size = sizeof(*hdr) + n * sizeof(u64);
	memcpy(hdr + 1, fields, n * sizeof(u64));
	return hdr;
}

static void embm_parse_sample_test(struct kunit *test)
{
	union perf_sample_weight w = { .var1_dw = 321, .var2_w = 7 };
	const u64 fields[] = {
		42,				/* IDENTIFIER */
		(u64)77 << 32 | 66,		/* TID: pid 66, tid 77 */
		123456789,			/* TIME */
		0x7f0000001008,			/* ADDR */
		3,				/* CPU */
		1000,				/* PERIOD */
		w.full,				/* WEIGHT_STRUCT */
		0x4242,				/* DATA_SRC */
		0x12345008,			/* PHYS_ADDR */
	};
	const u64 no_raw = EMBM_SAMPLE_TYPE_MAX & ~PERF_SAMPLE_RAW;
	struct perf_event_header *hdr = make_sample(test, fields, ARRAY_SIZE(fields));
	struct embm_sample s;
	u64 raw_fields[ARRAY_SIZE(fields) + 2];

	KUNIT_ASSERT_EQ(test, 0, embm_parse_sample(hdr, no_raw, &s));
	KUNIT_EXPECT_EQ(test, 42ULL, s.id);
	KUNIT_EXPECT_EQ(test, 66U, s.pid);
	KUNIT_EXPECT_EQ(test, 77U, s.tid);
	KUNIT_EXPECT_EQ(test, 123456789ULL, s.time);
	KUNIT_EXPECT_EQ(test, 0x7f0000001008ULL, s.addr);
	KUNIT_EXPECT_EQ(test, 3U, s.cpu);
	KUNIT_EXPECT_EQ(test, 1000ULL, s.period);
	KUNIT_EXPECT_EQ(test, 321ULL, s.weight);
	KUNIT_EXPECT_EQ(test, 0x4242ULL, s.data_src);
	KUNIT_EXPECT_EQ(test, 0x12345008ULL, s.phys);
	KUNIT_EXPECT_EQ(test, 42ULL, embm_record_id(hdr));
	KUNIT_EXPECT_NULL(test, s.raw);
	/* A record longer than its fields is refused too. */
	hdr->size += sizeof(u64);
	KUNIT_EXPECT_EQ(test, -EBADMSG,
			embm_parse_sample(hdr, no_raw & ~PERF_SAMPLE_PHYS_ADDR, &s));

	/* RAW after PERIOD: u32 size, 12 bytes, the whole a multiple of 8. */
	memcpy(raw_fields, fields, 6 * sizeof(u64));
	raw_fields[6] = 12 | (u64)0xaabbccdd << 32;
	raw_fields[7] = 0x1122334455667788ULL;
	memcpy(&raw_fields[8], &fields[6], 3 * sizeof(u64));
	hdr = make_sample(test, raw_fields, ARRAY_SIZE(raw_fields));
	KUNIT_ASSERT_EQ(test, 0, embm_parse_sample(hdr, EMBM_SAMPLE_TYPE_MAX, &s));
	KUNIT_EXPECT_EQ(test, 12U, s.raw_size);
	KUNIT_ASSERT_NOT_NULL(test, s.raw);
	KUNIT_EXPECT_EQ(test, 0xaabbccddU, *(const u32 *)s.raw);
	KUNIT_EXPECT_EQ(test, 0x12345008ULL, s.phys);
	KUNIT_EXPECT_EQ(test, 321ULL, s.weight);
	/* A raw size that runs past the record, or leaves it unaligned. */
	raw_fields[6] = 200;
	memcpy(hdr + 1, raw_fields, sizeof(raw_fields));
	KUNIT_EXPECT_EQ(test, -EBADMSG, embm_parse_sample(hdr, EMBM_SAMPLE_TYPE_MAX, &s));
	raw_fields[6] = 8;
	memcpy(hdr + 1, raw_fields, sizeof(raw_fields));
	KUNIT_EXPECT_EQ(test, -EBADMSG, embm_parse_sample(hdr, EMBM_SAMPLE_TYPE_MAX, &s));

	/* Without WEIGHT_STRUCT and DATA_SRC the physical address comes sooner. */
	hdr = make_sample(test, (const u64[]){ 9, 1, 2, 3, 4, 5, 0xabc000 }, 7);
	KUNIT_ASSERT_EQ(test, 0, embm_parse_sample(hdr, EMBM_SAMPLE_TYPE, &s));
	KUNIT_EXPECT_EQ(test, 0xabc000ULL, s.phys);
	KUNIT_EXPECT_EQ(test, 0ULL, s.weight);
	KUNIT_EXPECT_EQ(test, 5ULL, s.period);

	/* One field short. */
	hdr = make_sample(test, fields, 6);
	KUNIT_EXPECT_EQ(test, -EBADMSG, embm_parse_sample(hdr, EMBM_SAMPLE_TYPE, &s));
	/* Unknown bits, no identifier, wrong type. */
	hdr = make_sample(test, fields, ARRAY_SIZE(fields));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			embm_parse_sample(hdr, EMBM_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN, &s));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			embm_parse_sample(hdr, EMBM_SAMPLE_TYPE & ~PERF_SAMPLE_IDENTIFIER, &s));
	hdr->type = PERF_RECORD_LOST;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_parse_sample(hdr, EMBM_SAMPLE_TYPE, &s));
	KUNIT_EXPECT_EQ(test, 0ULL, embm_record_id(hdr));
}

/* The records a real perf writer makes, read back by embm_parse_sample(). */
struct real_check {
	u64 sample_type;
	u64 id;
	u64 addr;
	unsigned int samples;
	unsigned int bad;
	u16 size;
	struct embm_sample s;
	u32 raw_word;
	u8 raw[128];
	struct embm_sample s_raw;	/* s, its raw pointing into raw[] */
};

static void real_record(const struct perf_event_header *hdr, void *arg)
{
	struct real_check *c = arg;
	struct embm_sample s;

	if (hdr->type != PERF_RECORD_SAMPLE)
		return;
	/* The same CPU may take other tasks' faults: only ours count. */
	if (embm_parse_sample(hdr, c->sample_type, &s)) {
		c->bad++;
		return;
	}
	if (s.addr != c->addr)
		return;
	if (embm_record_id(hdr) != c->id)
		c->bad++;
	c->samples++;
	c->size = hdr->size;
	c->s = s;
	c->raw_word = s.raw ? *(const u32 *)s.raw : ~0U;
	c->s_raw = s;
	if (s.raw && s.raw_size <= sizeof(c->raw)) {
		memcpy(c->raw, s.raw, s.raw_size);
		c->s_raw.raw = c->raw;
	}
}

/* A kernel counter on @cpu writing into a new kernel buffer *@rb, enabled. */
static struct perf_event *real_event(struct kunit *test, struct perf_event_attr *attr,
				     int cpu, struct perf_buffer **rb)
{
	struct perf_event *event;

	*rb = perf_kernel_rb_alloc(4, cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(*rb));
	event = perf_event_create_kernel_counter(attr, cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_ASSERT_EQ(test, 0, perf_kernel_rb_attach(event, *rb));
	perf_event_enable(event);
	return event;
}

/*
 * Every sample bit embm can ask for, written by perf itself: a minor-fault
 * software event on this CPU, raised with perf_sw_event() on a kernel
 * address, goes through perf_prepare_sample() and perf_output_sample()
 * into a kernel ring buffer.  The record must be the size perf computed
 * from the sample_type, and each field what perf put there.
 */
static void embm_real_record_test(struct kunit *test)
{
	const u64 sample_type = EMBM_SAMPLE_TYPE_MAX;
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS_MIN,
		.size = sizeof(attr),
		.sample_period = 1,
		.sample_type = sample_type,
		.disabled = 1,
	};
	struct real_check c = { .sample_type = sample_type };
	/* Header, one u64 per field but RAW, and RAW's u32 size + u32 of nothing. */
	const u16 want = sizeof(struct perf_event_header) +
			 hweight64(sample_type & ~PERF_SAMPLE_RAW) * sizeof(u64) + sizeof(u64);
	struct perf_event *event;
	struct perf_buffer *rb;
	struct pt_regs regs;
	unsigned int fired = 0;
	u64 scratch[64], t0 = 0;
	int cpu = raw_smp_processor_id(), i;
	void *buf;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	c.addr = (unsigned long)buf + 8;
	event = real_event(test, &attr, cpu, &rb);
	c.id = event->id;
	for (i = 0; i < 100 && fired < 3; i++) {
		preempt_disable();
		if (smp_processor_id() == cpu) {
			/* perf's clock, on this CPU: local_clock(). */
			if (!fired)
				t0 = local_clock();
			perf_fetch_caller_regs(&regs);
			perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, &regs, c.addr);
			fired++;
		}
		preempt_enable();
		if (fired < 3)
			usleep_range(1000, 2000);
	}
	perf_event_disable(event);
	perf_kernel_rb_read(rb, real_record, &c, scratch, sizeof(scratch));
	perf_event_release_kernel(event);
	perf_kernel_rb_put(rb);

	KUNIT_ASSERT_GT(test, fired, 0U);
	KUNIT_EXPECT_EQ(test, fired, c.samples);
	KUNIT_EXPECT_EQ(test, 0U, c.bad);
	KUNIT_EXPECT_EQ(test, want, c.size);
	KUNIT_EXPECT_EQ(test, (u32)task_tgid_nr(current), c.s.pid);
	KUNIT_EXPECT_EQ(test, (u32)task_pid_nr(current), c.s.tid);
	KUNIT_EXPECT_GE(test, c.s.time, t0);
	KUNIT_EXPECT_EQ(test, (u32)cpu, c.s.cpu);
	KUNIT_EXPECT_EQ(test, 1ULL, c.s.period);
	KUNIT_EXPECT_EQ(test, 4U, c.s.raw_size);
	KUNIT_EXPECT_EQ(test, 0U, c.raw_word);
	KUNIT_EXPECT_EQ(test, 0ULL, c.s.weight);
	KUNIT_EXPECT_EQ(test, (u64)PERF_MEM_NA, c.s.data_src);
	KUNIT_EXPECT_EQ(test, (u64)virt_to_phys((void *)c.addr), c.s.phys);
}

/*
 * An ibs_op sample's raw data as perf writes it: the driver's own struct
 * perf_ibs_data (u32 caps, then the registers from IbsOpCtl), handed to
 * perf_sample_save_raw_data() and perf_event_output() as
 * perf_ibs_handle_irq() does, from a software event with the ibs source's
 * sample_type.  The parser and embm_ibs_op_of() must find IbsOpData3's
 * load and store bits where the driver put them, past perf's padding.
 */
static void embm_ibs_raw_record_test(struct kunit *test)
{
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	struct embm_config cfg = {};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.sample_period = 1,
		.disabled = 1,
	};
	struct real_check c = {};
	struct perf_ibs_data *ibs;
	struct perf_raw_record raw;
	struct perf_sample_data data;
	union ibs_op_data3 d3 = { .ld_op = 1, .st_op = 1 };
	struct perf_event *event;
	struct perf_buffer *rb;
	struct pt_regs regs;
	const char *why;
	u64 scratch[64];
	int cpu = raw_smp_processor_id(), i;
	bool fired = false;

	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, &cfg, d, &why));
	attr.sample_type = d[0].attr.sample_type;
	c.sample_type = attr.sample_type;
	ibs = kunit_kzalloc(test, sizeof(*ibs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ibs);
	c.addr = (unsigned long)ibs;
	/* IbsOpCtl .. IbsDcPhysAd, as perf_ibs_handle_irq() reads them. */
	ibs->size = MSR_AMD64_IBSOP_REG_COUNT * sizeof(u64);
	ibs->caps = 0x7ff;
	ibs->regs[MSR_AMD64_IBSOPDATA3 - MSR_AMD64_IBSOPCTL] = d3.val;
	ibs->regs[MSR_AMD64_IBSDCPHYSAD - MSR_AMD64_IBSOPCTL] = 0x123456789ULL;

	event = real_event(test, &attr, cpu, &rb);
	c.id = event->id;
	for (i = 0; i < 100 && !fired; i++) {
		preempt_disable();
		if (smp_processor_id() == cpu) {
			raw = (struct perf_raw_record){
				.frag = {
					.size = sizeof(u32) + ibs->size,
					.data = ibs->data,
				},
			};
			perf_fetch_caller_regs(&regs);
			perf_sample_data_init(&data, c.addr, 16);
			perf_sample_save_raw_data(&data, event, &raw);
			perf_event_output(event, &data, &regs);
			fired = true;
		}
		preempt_enable();
		if (!fired)
			usleep_range(1000, 2000);
	}
	perf_event_disable(event);
	perf_kernel_rb_read(rb, real_record, &c, scratch, sizeof(scratch));
	perf_event_release_kernel(event);
	perf_kernel_rb_put(rb);

	KUNIT_ASSERT_TRUE(test, fired);
	KUNIT_ASSERT_EQ(test, 1U, c.samples);
	KUNIT_EXPECT_EQ(test, 0U, c.bad);
	/* u32 size + u32 caps + the registers: no padding needed. */
	KUNIT_EXPECT_EQ(test, sizeof(u32) + ibs->size, c.s.raw_size);
	KUNIT_EXPECT_EQ(test, 0x7ffU, c.raw_word);
	KUNIT_EXPECT_EQ(test, 16ULL, c.s.period);
	/* The record is gone from the buffer: decode the copy of its raw data. */
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD_STORE, embm_ibs_op_of(&c.s_raw));
}

/* Data sources as the drivers build them (intel/ds.c, amd/ibs.c). */
#define P(a, b)		PERF_MEM_S(a, b)
#define OP_LH		(P(OP, LOAD) | P(LVL, HIT))
#define LEVEL(x)	P(LVLNUM, x)
#define REM		P(REMOTE, REMOTE)
#define L(x)		(P(LVL, x) | P(LVL, HIT))

static void embm_served_by_test(struct kunit *test)
{
	static const struct {
		u64 src;
		enum embm_served want;
	} cases[] = {
		{ 0, EMBM_SERVED_UNKNOWN },
		{ PERF_MEM_NA, EMBM_SERVED_UNKNOWN },
		/* Intel load latency, pebs_data_source[] with pmem (SKX on). */
		{ P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA), EMBM_SERVED_UNKNOWN },
		{ OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE), EMBM_SERVED_CACHE },
		{ OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE), EMBM_SERVED_CACHE },
		{ OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE), EMBM_SERVED_CACHE },
		{ OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), EMBM_SERVED_CACHE },
		{ OP_LH | LEVEL(PMEM) | P(SNOOP, HIT), EMBM_SERVED_MEM },
		{ OP_LH | LEVEL(PMEM) | REM | P(SNOOP, HIT), EMBM_SERVED_MEM },
		{ OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT), EMBM_SERVED_MEM },
		{ OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), EMBM_SERVED_MEM },
		{ OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD), EMBM_SERVED_CACHE },
		{ OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM), EMBM_SERVED_CACHE },
		{ OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE), EMBM_SERVED_UNKNOWN },
		{ OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE), EMBM_SERVED_MEM },
		/* Intel stores (precise_datala_hsw): L1 hit or miss only. */
		{ (PERF_MEM_NA & ~P(OP, NA) & ~P(LVL, NA)) | P(OP, STORE) | L(L1),
		  EMBM_SERVED_CACHE },
		{ (PERF_MEM_NA & ~P(OP, NA) & ~P(LVL, NA)) | P(OP, STORE) | P(LVL, L1) |
		  P(LVL, MISS), EMBM_SERVED_UNKNOWN },
		/* AMD IBS, Zen 4 encodings and the older ones. */
		{ P(OP, LOAD) | LEVEL(CXL), EMBM_SERVED_MEM },
		{ P(OP, LOAD) | LEVEL(CXL) | REM | P(HOPS, 1), EMBM_SERVED_MEM },
		{ P(OP, LOAD) | L(REM_RAM1) | LEVEL(RAM) | REM | P(HOPS, 1), EMBM_SERVED_MEM },
		{ P(OP, LOAD) | L(L3) | LEVEL(L3), EMBM_SERVED_CACHE },
		{ P(OP, LOAD) | L(REM_CCE2) | LEVEL(ANY_CACHE) | REM | P(HOPS, 1),
		  EMBM_SERVED_CACHE },
		{ P(OP, STORE) | L(L2) | LEVEL(L2), EMBM_SERVED_CACHE },
		{ P(OP, STORE) | P(LVL, NA) | LEVEL(NA), EMBM_SERVED_UNKNOWN },
		{ P(OP, LOAD) | L(UNC) | LEVEL(UNC), EMBM_SERVED_MEM },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, cases[i].want, embm_served_by(cases[i].src),
				    "case %d: %#llx", i, cases[i].src);
}

static void embm_parse_lost_test(struct kunit *test)
{
	struct perf_event_header *hdr = make_sample(test, (const u64[]){ 5, 1234 }, 2);
	u64 lost = 0;

	hdr->type = PERF_RECORD_LOST;
	KUNIT_EXPECT_EQ(test, 0, embm_parse_lost(hdr, &lost));
	KUNIT_EXPECT_EQ(test, 1234ULL, lost);
	hdr->size -= sizeof(u64);
	KUNIT_EXPECT_EQ(test, -EBADMSG, embm_parse_lost(hdr, &lost));
	hdr->type = PERF_RECORD_SAMPLE;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_parse_lost(hdr, &lost));

	/* PERF_RECORD_LOST_SAMPLES: { lost } */
	hdr = make_sample(test, (const u64[]){ 77 }, 1);
	hdr->type = PERF_RECORD_LOST_SAMPLES;
	KUNIT_EXPECT_EQ(test, 0, embm_parse_lost(hdr, &lost));
	KUNIT_EXPECT_EQ(test, 77ULL, lost);
}

/* ---- attribution ----------------------------------------------------- */

static void embm_tier_rule_test(struct kunit *test)
{
	/* has_cpu, top_tier, in_cxl_window */
	KUNIT_EXPECT_EQ(test, EMBM_TIER_DRAM, embm_tier_of(true, true, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_FAR, embm_tier_of(false, true, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_FAR, embm_tier_of(true, false, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_FAR, embm_tier_of(false, false, false));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_CXL, embm_tier_of(false, false, true));
	KUNIT_EXPECT_EQ(test, EMBM_TIER_CXL, embm_tier_of(true, true, true));
	KUNIT_EXPECT_STREQ(test, "dram", embm_tier_name(EMBM_TIER_DRAM));
	KUNIT_EXPECT_STREQ(test, "far", embm_tier_name(EMBM_TIER_FAR));
	KUNIT_EXPECT_STREQ(test, "cxl", embm_tier_name(EMBM_TIER_CXL));
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
		__embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	/* A latency without a data source is not the memory's. */
	s.weight = 999;
	__embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	s.weight = 300;
	s.data_src = P(OP, STORE) | L(LOC_RAM) | LEVEL(RAM);
	__embm_stats_add(st, &s, 1, EMBM_OP_STORE, false);
	__embm_stats_add(st, &s, 2, EMBM_OP_LOAD, true);	/* latency only */
	__embm_stats_add(st, &s, 1, EMBM_OP_LOAD_STORE, false);
	/* Served by a cache: counted apart, no latency. */
	s.data_src = P(OP, LOAD) | L(L2) | LEVEL(L2);
	__embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	__embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);
	s.phys = 0;
	__embm_stats_add(st, &s, 0, EMBM_OP_LOAD, false);

	KUNIT_EXPECT_EQ(test, 12ULL, st->samples);
	KUNIT_EXPECT_EQ(test, 1ULL, st->no_phys);
	KUNIT_EXPECT_EQ(test, 10ULL, st->node[nid].samples);
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].cache);
	KUNIT_EXPECT_EQ(test, 2ULL, st->cache);
	KUNIT_EXPECT_EQ(test, 7ULL, st->node[nid].loads);
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].stores);
	KUNIT_EXPECT_EQ(test, 80ULL, st->node[nid].accesses);
	KUNIT_EXPECT_EQ(test, 60ULL, st->node[nid].kind_accesses[0]);
	KUNIT_EXPECT_EQ(test, 20ULL, st->node[nid].kind_accesses[1]);
	KUNIT_EXPECT_EQ(test, 3ULL, st->node[nid].lat_samples);
	KUNIT_EXPECT_EQ(test, 900ULL, st->node[nid].lat_sum);
	KUNIT_EXPECT_EQ(test, 3ULL, st->node[nid].lat_hist[embm_lat_bucket(300)]);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_stats_distinct_pages(&st->node[nid]));
	KUNIT_EXPECT_EQ(test, 8ULL, st->matrix[cpu_to_node(0) * st->nr_nodes + nid]);
	KUNIT_EXPECT_EQ(test, 8ULL, embm_stats_share_basis(st));
	/* IBS: shares of what memory served. */
	KUNIT_EXPECT_EQ(test, 2ULL, st->node[nid].mem);
	st->share_mem = true;
	KUNIT_EXPECT_EQ(test, 2ULL, embm_stats_share_basis(st));

	/* Kind 0 was on the PMU a quarter of the time: its 60 stand for 240. */
	KUNIT_EXPECT_EQ(test, 80ULL, embm_stats_node_accesses(st, &st->node[nid]));
	st->kind[0].enabled = 4000;
	st->kind[0].running = 1000;
	st->kind[1].enabled = 1000;
	st->kind[1].running = 1000;
	KUNIT_EXPECT_EQ(test, 260ULL, embm_stats_node_accesses(st, &st->node[nid]));
	/* Never on the PMU: nothing to scale. */
	st->kind[0].running = 0;
	KUNIT_EXPECT_EQ(test, 80ULL, embm_stats_node_accesses(st, &st->node[nid]));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_free(st);
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

	mutex_lock(&st->lock);
	s.phys = PFN_PHYS(page_to_pfn(page));
	__embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	__embm_stats_add(st, &s, 0, EMBM_OP_ANY, false);
	n = embm_stats_node_order(st, NUMA_NO_NODE, order);
	for (i = 0; i < n; i++)
		sum += st->node[order[i]].samples;
	KUNIT_EXPECT_EQ(test, 2ULL, embm_stats_attributed(st));
	KUNIT_EXPECT_EQ(test, embm_stats_attributed(st), sum);
	KUNIT_EXPECT_TRUE(test, st->node[nid].present);
	KUNIT_EXPECT_EQ(test, (int)embm_tier_of(node_state(nid, N_CPU), node_is_toptier(nid),
						false), (int)st->tier[nid]);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_stats_distinct_pages(&st->node[nid]));
	mutex_unlock(&st->lock);
	__free_page(page);
	embm_stats_free(st);
}

/* Node-sized tables for 1024 node ids: an 8 MiB matrix, so kvcalloc(). */
static void embm_many_nodes_test(struct kunit *test)
{
	struct embm_stats *st = __embm_stats_alloc(1024, 8);

	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_EXPECT_EQ(test, 1024, st->nr_nodes);
	st->matrix[1024 * 1024 - 1] = 1;
	st->node[1023].samples = 1;
	st->tier[1023] = EMBM_TIER_FAR;
	embm_stats_free(st);
}

/* Linear counting stays within 1% of the truth over a wide range. */
static void embm_distinct_pages_test(struct kunit *test)
{
	static const unsigned int truths[] = { 1, 10, 1000, 50000, 300000 };
	struct embm_node_stats ns = {};
	unsigned int i, t;
	u64 pfn = 0x100000, est;

	ns.pages = bitmap_zalloc(1U << EMBM_PAGES_BITS, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ns.pages);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_stats_distinct_pages(&ns));
	for (t = 0, i = 0; t < ARRAY_SIZE(truths); t++) {
		for (; i < truths[t]; i++)
			__set_bit(embm_page_bit(pfn + i), ns.pages);
		est = embm_stats_distinct_pages(&ns);
		KUNIT_EXPECT_LE_MSG(test, est, (u64)truths[t] * 101 / 100 + 1,
				    "truth %u", truths[t]);
		KUNIT_EXPECT_GE_MSG(test, est, (u64)truths[t] * 99 / 100,
				    "truth %u", truths[t]);
	}
	bitmap_free(ns.pages);
}

/* ---- hot pages --------------------------------------------------------- */

/*
 * Space-saving on a skewed stream: every page with more than N/k samples
 * is kept, counts never underestimate, and overestimate by at most error.
 */
static void embm_hot_test(struct kunit *test)
{
	const unsigned int k = 16, cold = 5000;
	struct embm_hot *hot = embm_hot_alloc(k);
	struct embm_hot_page *top;
	unsigned int n, i, j, found = 0;
	u64 total = 0;

	KUNIT_ASSERT_NOT_NULL(test, hot);
	top = kunit_kcalloc(test, k, sizeof(*top), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, top);
	/* Pages 1..4 get 1000, 800, 600, 400 samples among 5000 cold ones. */
	for (i = 0; i < cold; i++) {
		embm_hot_add(hot, 1000 + i, 1);
		total++;
		for (j = 1; j <= 4; j++) {
			if (i % 5 < 6 - j - 1 || (j == 1 && i % 5 == 4)) {
				embm_hot_add(hot, j, 1);
				total++;
			}
		}
	}
	n = embm_hot_top(hot, top, k);
	KUNIT_EXPECT_EQ(test, k, n);
	for (i = 0; i < n; i++) {
		u64 truth = 0;

		if (top[i].pfn >= 1 && top[i].pfn <= 4) {
			found++;
			truth = cold / 5 * (5 - top[i].pfn + (top[i].pfn == 1));
		} else {
			truth = 1;
		}
		KUNIT_EXPECT_GE(test, top[i].count, truth);
		KUNIT_EXPECT_LE(test, top[i].count - top[i].error, truth);
		if (i)
			KUNIT_EXPECT_GE(test, top[i - 1].count, top[i].count);
	}
	KUNIT_EXPECT_EQ(test, 4U, found);
	KUNIT_EXPECT_EQ(test, 1ULL, top[0].pfn);
	KUNIT_EXPECT_EQ(test, 2ULL, top[1].pfn);
	KUNIT_EXPECT_EQ(test, 3ULL, top[2].pfn);
	KUNIT_EXPECT_EQ(test, 4ULL, top[3].pfn);
	embm_hot_free(hot);
	KUNIT_EXPECT_NULL(test, embm_hot_alloc(0));
}

/* ---- sources --------------------------------------------------------- */

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
	struct embm_config cfg = { .ldlat = 64 };
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const struct embm_event_desc *e;
	const char *why;
	int m, i, n;

	for (m = 0; m < ARRAY_SIZE(models); m++) {
		n = embm_pebs_setup_vfm(models[m].vfm, false, &cfg, d, &why);
		KUNIT_EXPECT_EQ_MSG(test, models[m].aux ? 4 : 3, n, "vfm %#x", models[m].vfm);
		if (n <= 0)
			continue;
		for (i = 0; i < n; i++) {
			const struct perf_event_attr *a = &d[i].attr;

			KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_RAW, a->type);
			KUNIT_EXPECT_EQ(test, 0U, (unsigned int)a->freq);
			KUNIT_EXPECT_EQ(test, 0U, a->wakeup_events);
			KUNIT_EXPECT_TRUE(test, embm_perm_attr_covers(a));
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
		cfg.ldlat = models[m].ldlat_max;
		KUNIT_EXPECT_LT(test, 0, embm_pebs_setup_vfm(models[m].vfm, false, &cfg, d, &why));
		cfg.ldlat = models[m].ldlat_max + 1;
		KUNIT_EXPECT_EQ(test, -EINVAL,
				embm_pebs_setup_vfm(models[m].vfm, false, &cfg, d, &why));
		cfg.ldlat = 0;
		KUNIT_EXPECT_EQ(test, 2, embm_pebs_setup_vfm(models[m].vfm, false, &cfg, d, &why));
		cfg.ldlat = 64;
	}

	/* Refused with a reason: another vendor (0), clients, E-cores, hybrids. */
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_pebs_setup_vfm(0, false, &cfg, d, &why));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_setup_vfm(INTEL_ALDERLAKE, false, &cfg, d, &why));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_setup_vfm(INTEL_ATOM_CRESTMONT_X, false, &cfg, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "sierra-forest"));
	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP,
			embm_pebs_setup_vfm(INTEL_SAPPHIRERAPIDS_X, true, &cfg, d, &why));
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "hybrid"));
}

/* IbsOpData3 at its place in PERF_SAMPLE_RAW: caps, then IbsOpCtl... */
static void ibs_raw(u8 *raw, u64 op_data3)
{
	memset(raw, 0, 4 + 8 * 8);
	memcpy(raw + 4 + 8 * (MSR_AMD64_IBSOPDATA3 - MSR_AMD64_IBSOPCTL), &op_data3,
	       sizeof(op_data3));
}

static void embm_ibs_test(struct kunit *test)
{
	struct embm_config cfg = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;
	struct embm_sample s = {};
	union perf_mem_data_src src = {};
	union ibs_op_data3 d3 = {};
	u8 raw[4 + 8 * 8];

	KUNIT_EXPECT_EQ(test, -EOPNOTSUPP, embm_ibs_setup_caps(false, &cfg, d, &why));
	KUNIT_ASSERT_EQ(test, 1, embm_ibs_setup_caps(true, &cfg, d, &why));
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
	KUNIT_EXPECT_TRUE(test, embm_perm_attr_covers(&d[0].attr));
	KUNIT_EXPECT_TRUE(test, embm_src_ibs.op_of == embm_ibs_op_of);
	KUNIT_EXPECT_EQ(test, 0ULL, embm_src_ibs.period % embm_src_ibs.period_align);
	cfg.period = 8;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_ibs_setup_caps(true, &cfg, d, &why));

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

static void embm_swfault_test(struct kunit *test)
{
	struct embm_config cfg = {};
	struct embm_event_desc d[EMBM_MAX_EVENTS];
	const char *why;
	int n = embm_src_swfault.setup(&cfg, d, &why);

	KUNIT_ASSERT_EQ(test, 2, n);
	KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_SOFTWARE, d[0].attr.type);
	KUNIT_EXPECT_EQ(test, (u64)PERF_COUNT_SW_PAGE_FAULTS_MIN, d[0].attr.config);
	KUNIT_EXPECT_EQ(test, (u64)PERF_COUNT_SW_PAGE_FAULTS_MAJ, d[1].attr.config);
	KUNIT_EXPECT_TRUE(test, d[0].attr.sample_type & PERF_SAMPLE_PHYS_ADDR);
	KUNIT_EXPECT_EQ(test, 1ULL, embm_src_swfault.period);
}

static struct kunit_case embm_core_test_cases[] = {
	KUNIT_CASE(embm_check_node_test),
	KUNIT_CASE(embm_session_test),
	{}
};

static struct kunit_case embm_record_test_cases[] = {
	KUNIT_CASE(embm_parse_sample_test),
	KUNIT_CASE(embm_parse_lost_test),
	KUNIT_CASE(embm_real_record_test),
	KUNIT_CASE(embm_ibs_raw_record_test),
	KUNIT_CASE(embm_served_by_test),
	{}
};

static struct kunit_case embm_stats_test_cases[] = {
	KUNIT_CASE(embm_tier_rule_test),
	KUNIT_CASE(embm_lat_bucket_test),
	KUNIT_CASE(embm_stats_add_test),
	KUNIT_CASE(embm_new_node_test),
	KUNIT_CASE(embm_many_nodes_test),
	KUNIT_CASE(embm_distinct_pages_test),
	KUNIT_CASE(embm_hot_test),
	{}
};

static struct kunit_case embm_source_test_cases[] = {
	KUNIT_CASE(embm_pebs_models_test),
	KUNIT_CASE(embm_ibs_test),
	KUNIT_CASE(embm_swfault_test),
	{}
};

static struct kunit_suite embm_core_test_suite = {
	.name = "embm_core",
	.test_cases = embm_core_test_cases,
};

static struct kunit_suite embm_record_test_suite = {
	.name = "embm_record",
	.test_cases = embm_record_test_cases,
};

static struct kunit_suite embm_stats_test_suite = {
	.name = "embm_stats",
	.test_cases = embm_stats_test_cases,
};

static struct kunit_suite embm_source_test_suite = {
	.name = "embm_source",
	.test_cases = embm_source_test_cases,
};

kunit_test_suites(&embm_core_test_suite, &embm_record_test_suite,
		  &embm_stats_test_suite, &embm_source_test_suite);
