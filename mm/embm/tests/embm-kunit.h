/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of embm's KUnit tests that read records a real perf writer made
 * (tests/record-kunit.h), and data sources as the drivers build them
 * (tests/record-kunit.h, tests/stats-kunit.h, tests/report-kunit.h)
 */
#ifndef __MM_EMBM_TESTS_EMBM_KUNIT_H
#define __MM_EMBM_TESTS_EMBM_KUNIT_H

#include <kunit/test.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>

#include "../record.h"

/* Data sources as the drivers build them (intel/ds.c, amd/ibs.c). */
#define P(a, b)		PERF_MEM_S(a, b)
#define OP_LH		(P(OP, LOAD) | P(LVL, HIT))
#define LEVEL(x)	P(LVLNUM, x)
#define REM		P(REMOTE, REMOTE)
#define L(x)		(P(LVL, x) | P(LVL, HIT))

/* The records a real perf writer makes, read back by embm_parse_sample(). */
struct embm_test_check {
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

static __maybe_unused void embm_test_record(const struct perf_event_header *hdr, void *arg)
{
	struct embm_test_check *c = arg;
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
static __maybe_unused struct perf_event *
embm_test_event(struct kunit *test, struct perf_event_attr *attr, int cpu, struct perf_buffer **rb)
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

/* Stop @event, read what it wrote into @c, and free it and its buffer @rb. */
static __maybe_unused void embm_test_collect(struct perf_event *event, struct perf_buffer *rb,
					     struct embm_test_check *c)
{
	u64 scratch[64];

	perf_event_disable(event);
	perf_kernel_rb_read(rb, embm_test_record, c, scratch, sizeof(scratch));
	perf_event_release_kernel(event);
	perf_kernel_rb_put(rb);
}

#endif /* __MM_EMBM_TESTS_EMBM_KUNIT_H */
