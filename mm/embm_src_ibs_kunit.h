/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_src_ibs.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_SRC_IBS_KUNIT_H
#define __MM_EMBM_SRC_IBS_KUNIT_H

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/perf_kernel_rb.h>

#include "embm_kunit.h"

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
	struct embm_event_desc *d;
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

	d = kunit_kcalloc(test, EMBM_MAX_EVENTS, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
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

static struct kunit_case embm_src_ibs_test_cases[] = {
	KUNIT_CASE(embm_ibs_test),
	KUNIT_CASE(embm_ibs_raw_record_test),
	{}
};

static struct kunit_suite embm_src_ibs_test_suite = {
	.name = "embm_src_ibs",
	.test_cases = embm_src_ibs_test_cases,
};

kunit_test_suite(embm_src_ibs_test_suite);

#endif /* __MM_EMBM_SRC_IBS_KUNIT_H */
