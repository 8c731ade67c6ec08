/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of record.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_TESTS_RECORD_KUNIT_H
#define __MM_EMBM_TESTS_RECORD_KUNIT_H

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <asm/amd-ibs.h>

#include "embm-kunit.h"
#include "../source.h"

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
	struct embm_test_check c = { .sample_type = sample_type };
	/* Header, one u64 per field but RAW, and RAW's u32 size + u32 of nothing. */
	const u16 want = sizeof(struct perf_event_header) +
			 hweight64(sample_type & ~PERF_SAMPLE_RAW) * sizeof(u64) + sizeof(u64);
	struct perf_event *event;
	struct perf_buffer *rb;
	struct pt_regs regs;
	unsigned int fired = 0;
	u64 t0 = 0;
	int cpu = raw_smp_processor_id(), i;
	void *buf;

	buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	c.addr = (unsigned long)buf + 8;
	event = embm_test_event(test, &attr, cpu, &rb);
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
	embm_test_collect(event, rb, &c);

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
		/*
		 * Diamond Rapids as Linux 7.0 decodes it (parse_omr_data_source(),
		 * commit d2bdcde9626c): memory region 3 (0x0b), remote; MMIO
		 * (0x07) at LVLNUM_RAM; a cache region (0x02) at L3; an L0 hit.
		 */
		{ P(OP, LOAD) | L(REM_RAM1) | LEVEL(RAM) | REM | P(SNOOP, HIT) | (0x0bULL << 46),
		  EMBM_SERVED_MEM },
		{ P(OP, LOAD) | P(LVL, HIT) | LEVEL(RAM) | P(SNOOP, HIT) | (0x07ULL << 46),
		  EMBM_SERVED_UNKNOWN },
		{ P(OP, LOAD) | L(L3) | LEVEL(L3) | P(SNOOP, HIT) | (0x02ULL << 46),
		  EMBM_SERVED_CACHE },
		{ P(OP, LOAD) | P(LVL, HIT) | (0x07ULL << PERF_MEM_LVLNUM_SHIFT),
		  EMBM_SERVED_CACHE },
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

/*
 * An ibs_op sample's raw data as perf writes it: the driver's own struct
 * perf_ibs_data (u32 caps, then the registers from IbsOpCtl), handed to
 * perf_sample_save_raw_data() and perf_event_output() as
 * perf_ibs_handle_irq() does, from a software event with the ibs source's
 * sample_type.  The parser and the source's op_of() must find IbsOpData3's
 * load and store bits where the driver put them, past perf's padding.
 */
static void embm_ibs_raw_record_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.sample_period = 1,
		.disabled = 1,
	};
	struct embm_test_check c = {};
	struct perf_ibs_data *ibs;
	struct perf_raw_record raw;
	struct perf_sample_data data;
	union ibs_op_data3 d3 = { .ld_op = 1, .st_op = 1 };
	const struct embm_source *ibs_src;
	struct perf_event *event;
	struct perf_buffer *rb;
	struct pt_regs regs;
	int cpu = raw_smp_processor_id(), i;
	bool fired = false;

	/* The ibs source's sample_type (embm_ibs_test checks it is). */
	attr.sample_type = EMBM_SAMPLE_TYPE_MAX;
	c.sample_type = attr.sample_type;
	ibs = kunit_kzalloc(test, sizeof(*ibs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ibs);
	c.addr = (unsigned long)ibs;
	/* IbsOpCtl .. IbsDcPhysAd, as perf_ibs_handle_irq() reads them. */
	ibs->size = MSR_AMD64_IBSOP_REG_COUNT * sizeof(u64);
	ibs->caps = 0x7ff;
	ibs->regs[MSR_AMD64_IBSOPDATA3 - MSR_AMD64_IBSOPCTL] = d3.val;
	ibs->regs[MSR_AMD64_IBSDCPHYSAD - MSR_AMD64_IBSOPCTL] = 0x123456789ULL;

	event = embm_test_event(test, &attr, cpu, &rb);
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
	embm_test_collect(event, rb, &c);

	KUNIT_ASSERT_TRUE(test, fired);
	KUNIT_ASSERT_EQ(test, 1U, c.samples);
	KUNIT_EXPECT_EQ(test, 0U, c.bad);
	/* u32 size + u32 caps + the registers: no padding needed. */
	KUNIT_EXPECT_EQ(test, sizeof(u32) + ibs->size, c.s.raw_size);
	KUNIT_EXPECT_EQ(test, 0x7ffU, c.raw_word);
	KUNIT_EXPECT_EQ(test, 16ULL, c.s.period);
	/* The record is gone from the buffer: decode the copy of its raw data. */
	ibs_src = embm_source_find("ibs");
	KUNIT_ASSERT_NOT_NULL(test, ibs_src);
	KUNIT_EXPECT_EQ(test, EMBM_OP_LOAD_STORE, ibs_src->op_of(&c.s_raw));
}

/*
 * Which latencies count: every dse of Sapphire Rapids' load-latency table
 * (pebs_data_source[] patched by __intel_pmu_pebs_data_source_skl(true),
 * 6.12 ds.c), AMD's uncached op, and no data source.
 */
static void embm_lat_drop_test(struct kunit *test)
{
	static const struct {
		u64 src;
		int want;
	} cases[] = {
		{ 0, EMBM_LAT_UNKNOWN },
		/* dse 0x0: L3 miss, source unknown; CXL may report it. */
		{ P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA), -1 },
		{ OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, MISS), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), EMBM_LAT_CACHE },
		{ OP_LH | LEVEL(PMEM) | P(SNOOP, HIT), -1 },
		{ OP_LH | LEVEL(PMEM) | REM | P(SNOOP, HIT), -1 },
		{ OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT), -1 },
		{ OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE), -1 },
		{ OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD), EMBM_LAT_CACHE },
		{ OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM), EMBM_LAT_CACHE },
		{ OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE), EMBM_LAT_IO },
		{ OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE), EMBM_LAT_UNCACHED },
		/* AMD IBS: CXL, DRAM, an L2 hit, an uncached op. */
		{ P(OP, LOAD) | LEVEL(CXL) | REM | P(HOPS, 1), -1 },
		{ P(OP, LOAD) | L(LOC_RAM) | LEVEL(RAM), -1 },
		{ P(OP, LOAD) | L(L2) | LEVEL(L2), EMBM_LAT_CACHE },
		{ P(OP, LOAD) | L(UNC) | LEVEL(UNC), EMBM_LAT_UNCACHED },
		/* IBS: a DC-miss load whose DataSrc says nothing (NA). */
		{ P(OP, LOAD) | P(LVL, NA) | LEVEL(NA), EMBM_LAT_UNKNOWN },
		/* An L2 miss alone: it may have hit L3. */
		{ P(OP, LOAD) | P(LVL, MISS) | LEVEL(L2), EMBM_LAT_UNKNOWN },
		/* Diamond Rapids (Linux 7.0): memory region 0 keeps it, MMIO does not. */
		{ P(OP, LOAD) | L(LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT) | (0x08ULL << 46), -1 },
		{ P(OP, LOAD) | P(LVL, HIT) | LEVEL(RAM) | P(SNOOP, HIT) | (0x07ULL << 46),
		  EMBM_LAT_IO },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, cases[i].want, embm_lat_drop(cases[i].src),
				    "case %d: %#llx", i, cases[i].src);
}

/* perf_log_throttle()'s record: time, id, stream id, then the sample id. */
static void embm_parse_throttle_test(struct kunit *test)
{
	struct {
		struct perf_event_header hdr;
		u64 v[4];
	} rec = {
		.hdr = { .type = PERF_RECORD_THROTTLE, .size = sizeof(rec) },
		.v = { 1000, 7, 9, 0 },
	};
	u64 time, id, stream;

	KUNIT_EXPECT_EQ(test, 0, embm_parse_throttle(&rec.hdr, &time, &id, &stream));
	KUNIT_EXPECT_EQ(test, 1000ULL, time);
	KUNIT_EXPECT_EQ(test, 7ULL, id);
	KUNIT_EXPECT_EQ(test, 9ULL, stream);
	rec.hdr.type = PERF_RECORD_UNTHROTTLE;
	KUNIT_EXPECT_EQ(test, 0, embm_parse_throttle(&rec.hdr, &time, &id, &stream));
	rec.hdr.size = sizeof(rec.hdr) + 2 * sizeof(u64);
	KUNIT_EXPECT_EQ(test, -EBADMSG, embm_parse_throttle(&rec.hdr, &time, &id, &stream));
	rec.hdr.type = PERF_RECORD_LOST;
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_parse_throttle(&rec.hdr, &time, &id, &stream));
}

static struct kunit_case embm_record_test_cases[] = {
	KUNIT_CASE(embm_parse_sample_test),
	KUNIT_CASE(embm_parse_lost_test),
	KUNIT_CASE(embm_real_record_test),
	KUNIT_CASE(embm_ibs_raw_record_test),
	KUNIT_CASE(embm_served_by_test),
	KUNIT_CASE(embm_lat_drop_test),
	KUNIT_CASE(embm_parse_throttle_test),
	{}
};

static struct kunit_suite embm_record_test_suite = {
	.name = "embm_record",
	.test_cases = embm_record_test_cases,
};

kunit_test_suite(embm_record_test_suite);

#endif /* __MM_EMBM_TESTS_RECORD_KUNIT_H */
