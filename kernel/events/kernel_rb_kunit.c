// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the ring buffers for kernel counters
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/slab.h>

#include "internal.h"

#define NR_PAGES	2
#define BUF_SIZE	(NR_PAGES * PAGE_SIZE)

/* Write @len bytes at offset @off of the buffer, as a perf writer would. */
static void rb_put(struct perf_buffer *rb, u64 off, const void *src, size_t len)
{
	while (len) {
		unsigned long nr = (off >> PAGE_SHIFT) & (rb->nr_pages - 1);
		unsigned long poff = off & (PAGE_SIZE - 1);
		size_t n = min_t(size_t, len, PAGE_SIZE - poff);

		memcpy(rb->data_pages[nr] + poff, src, n);
		src += n;
		off += n;
		len -= n;
	}
}

/* A record of @size bytes whose payload says which record it is. */
static void make_record(u8 *buf, u16 size, u16 seq)
{
	struct perf_event_header *hdr = (void *)buf;
	u16 i;

	hdr->type = PERF_RECORD_SAMPLE;
	hdr->misc = seq;
	hdr->size = size;
	for (i = sizeof(*hdr); i < size; i++)
		buf[i] = (u8)(seq * 31 + i);
}

struct check {
	struct kunit *test;
	u16 next;		/* expected seq */
	u16 sizes[BUF_SIZE / 8];
	unsigned int bad;
};

static void check_record(const struct perf_event_header *hdr, void *arg)
{
	struct check *c = arg;
	const u8 *buf = (const u8 *)hdr;
	u16 i;

	if (hdr->misc != c->next || hdr->size != c->sizes[c->next % ARRAY_SIZE(c->sizes)]) {
		c->bad++;
		return;
	}
	for (i = sizeof(*hdr); i < hdr->size; i++) {
		if (buf[i] != (u8)(hdr->misc * 31 + i)) {
			c->bad++;
			return;
		}
	}
	c->next++;
}

static struct perf_buffer *alloc_rb(struct kunit *test, u64 start)
{
	struct perf_buffer *rb = perf_kernel_rb_alloc(NR_PAGES, -1);

	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rb));
	rb->user_page->data_head = start;
	rb->user_page->data_tail = start;
	return rb;
}

/* Records of many sizes, crossing the page boundary and the end, in order. */
static void kernel_rb_wrap_test(struct kunit *test)
{
	/* Start just before the end, in the third lap of the buffer. */
	struct perf_buffer *rb = alloc_rb(test, 3 * BUF_SIZE - 104);
	struct check *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	u8 *rec = kunit_kzalloc(test, 512, GFP_KERNEL);
	void *scratch = kunit_kzalloc(test, 512, GFP_KERNEL);
	u64 head = rb->user_page->data_head;
	u16 seq = 0;
	int round;

	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, rec);
	KUNIT_ASSERT_NOT_NULL(test, scratch);
	c->test = test;
	for (round = 0; round < 20; round++) {
		u64 start = head;
		u16 first = seq;
		long n;

		/* Fill at most the buffer's size, as writers never pass the tail. */
		for (;;) {
			u16 size = 8 * (1 + (seq * 7) % 40);

			if (head + size - start > BUF_SIZE)
				break;
			make_record(rec, size, seq);
			c->sizes[seq % ARRAY_SIZE(c->sizes)] = size;
			rb_put(rb, head, rec, size);
			head += size;
			seq++;
		}
		/* Publish the records, as perf_output_put_handle() does. */
		smp_store_release(&rb->user_page->data_head, head);
		KUNIT_EXPECT_EQ(test, head - start, perf_kernel_rb_pending(rb));
		n = perf_kernel_rb_read(rb, check_record, c, scratch, 512);
		KUNIT_EXPECT_EQ(test, (long)(seq - first), n);
		KUNIT_EXPECT_EQ(test, seq, c->next);
		KUNIT_EXPECT_EQ(test, head, READ_ONCE(rb->user_page->data_tail));
	}
	KUNIT_EXPECT_EQ(test, 0U, c->bad);
	KUNIT_EXPECT_EQ(test, seq, c->next);
	KUNIT_EXPECT_EQ(test, 0ULL, perf_kernel_rb_pending(rb));
	perf_kernel_rb_put(rb);
}

static void count_record(const struct perf_event_header *hdr, void *arg)
{
	(*(unsigned int *)arg)++;
}

/* A header that cannot be right makes the reader skip to head. */
static void kernel_rb_corrupt_test(struct kunit *test)
{
	struct perf_buffer *rb = alloc_rb(test, 0);
	u8 rec[64];
	unsigned int seen = 0;
	u64 scratch[8];

	make_record(rec, 32, 0);
	rb_put(rb, 0, rec, 32);
	make_record(rec, 32, 1);
	((struct perf_event_header *)rec)->size = 0;
	rb_put(rb, 32, rec, 32);
	/* Publish, as a writer would. */
	smp_store_release(&rb->user_page->data_head, 64);
	KUNIT_EXPECT_EQ(test, -EBADMSG,
			perf_kernel_rb_read(rb, count_record, &seen, scratch, sizeof(scratch)));
	KUNIT_EXPECT_EQ(test, 1U, seen);
	KUNIT_EXPECT_EQ(test, 64ULL, READ_ONCE(rb->user_page->data_tail));

	/* A size beyond head is corrupt too. */
	make_record(rec, 64, 2);
	rb_put(rb, 64, rec, 32);
	/* Publish, as a writer would. */
	smp_store_release(&rb->user_page->data_head, 96);
	KUNIT_EXPECT_EQ(test, -EBADMSG,
			perf_kernel_rb_read(rb, count_record, &seen, scratch, sizeof(scratch)));
	KUNIT_EXPECT_EQ(test, 96ULL, READ_ONCE(rb->user_page->data_tail));
	perf_kernel_rb_put(rb);
}

/* A record that crosses a page and does not fit the scratch is skipped. */
static void kernel_rb_oversized_test(struct kunit *test)
{
	struct perf_buffer *rb = alloc_rb(test, PAGE_SIZE - 64);
	u8 *rec = kunit_kzalloc(test, 256, GFP_KERNEL);
	unsigned int seen = 0;
	u64 scratch[8];	/* 64 bytes */

	KUNIT_ASSERT_NOT_NULL(test, rec);
	make_record(rec, 256, 0);
	rb_put(rb, PAGE_SIZE - 64, rec, 256);
	make_record(rec, 48, 1);
	rb_put(rb, PAGE_SIZE + 192, rec, 48);
	/* Publish, as a writer would. */
	smp_store_release(&rb->user_page->data_head, PAGE_SIZE + 240);
	KUNIT_EXPECT_EQ(test, -EMSGSIZE,
			perf_kernel_rb_read(rb, count_record, &seen, scratch, sizeof(scratch)));
	KUNIT_EXPECT_EQ(test, 1U, seen);
	KUNIT_EXPECT_EQ(test, (u64)PAGE_SIZE + 240, READ_ONCE(rb->user_page->data_tail));
	perf_kernel_rb_put(rb);
}

static void kernel_rb_bad_alloc_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR(perf_kernel_rb_alloc(0, -1)));
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR(perf_kernel_rb_alloc(3, -1)));
}

struct sample_check {
	unsigned int samples, bad_size, other;
	u16 size;
};

static void check_sample(const struct perf_event_header *hdr, void *arg)
{
	struct sample_check *c = arg;

	if (hdr->type != PERF_RECORD_SAMPLE) {
		c->other++;
		return;
	}
	c->samples++;
	if (hdr->size != c->size)
		c->bad_size++;
}

/*
 * A real writer: a cpu-clock kernel counter sampling every 100 us into a
 * kernel buffer.  Each sample must have the size its sample_type says,
 * not the 8 bytes an unsized kernel counter writes.
 */
static void kernel_rb_event_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 100 * NSEC_PER_USEC,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.disabled = 1,
	};
	struct sample_check c = {
		.size = sizeof(struct perf_event_header) + 4 * sizeof(u64),
	};
	struct perf_event *event;
	struct perf_buffer *rb;
	u64 scratch[16];
	int cpu = raw_smp_processor_id();

	rb = perf_kernel_rb_alloc(8, cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rb));
	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_ASSERT_EQ(test, 0, perf_kernel_rb_attach(event, rb));
	KUNIT_EXPECT_EQ(test, -EBUSY, perf_kernel_rb_attach(event, rb));
	perf_event_enable(event);
	msleep(50);
	perf_event_disable(event);
	KUNIT_EXPECT_GT(test, perf_kernel_rb_read(rb, check_sample, &c, scratch,
						  sizeof(scratch)), 0L);
	KUNIT_EXPECT_GT(test, c.samples, 10U);
	KUNIT_EXPECT_EQ(test, 0U, c.bad_size);
	perf_event_release_kernel(event);
	perf_kernel_rb_put(rb);
}

/*
 * perf_event_create_kernel_group(): a sampling cpu-clock counter led by a
 * counting one, on the same CPU.  The member writes its samples into a
 * kernel buffer while its leader counts; groups perf_event_open() would
 * refuse are refused.
 */
static void kernel_group_test(struct kunit *test)
{
	struct perf_event_attr lead_attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(lead_attr),
		.disabled = 1,
	};
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = 100 * NSEC_PER_USEC,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.disabled = 1,
	};
	struct sample_check c = {
		.size = sizeof(struct perf_event_header) + 2 * sizeof(u64),
	};
	struct perf_event *leader, *member, *member2, *bad;
	struct perf_buffer *rb;
	u64 scratch[16], count, enabled, running;
	int cpu = raw_smp_processor_id(), other;

	leader = perf_event_create_kernel_group(&lead_attr, cpu, NULL, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(leader));
	member = perf_event_create_kernel_group(&attr, cpu, NULL, leader, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(member));
	KUNIT_EXPECT_PTR_EQ(test, member->group_leader, leader);
	KUNIT_EXPECT_EQ(test, 1, leader->nr_siblings);

	/* A member cannot lead; pinned members and other CPUs are refused. */
	bad = perf_event_create_kernel_group(&attr, cpu, NULL, member, NULL, NULL);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(bad));
	attr.pinned = 1;
	bad = perf_event_create_kernel_group(&attr, cpu, NULL, leader, NULL, NULL);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(bad));
	attr.pinned = 0;
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other < nr_cpu_ids) {
		bad = perf_event_create_kernel_group(&attr, other, NULL, leader, NULL, NULL);
		KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(bad));
	}
	/* A task's group must agree on inherit, as with perf_event_open(). */
	lead_attr.inherit = 1;
	bad = perf_event_create_kernel_group(&lead_attr, -1, current, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(bad));
	member2 = perf_event_create_kernel_group(&attr, -1, current, bad, NULL, NULL);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(member2));
	if (!IS_ERR(member2))
		perf_event_release_kernel(member2);
	perf_event_release_kernel(bad);
	KUNIT_EXPECT_EQ(test, 1, leader->nr_siblings);

	rb = perf_kernel_rb_alloc(8, cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rb));
	KUNIT_ASSERT_EQ(test, 0, perf_kernel_rb_attach(member, rb));
	/* A member runs only with its leader: none while the leader is off. */
	perf_event_enable(member);
	msleep(20);
	KUNIT_EXPECT_EQ(test, 0L,
			perf_kernel_rb_read(rb, check_sample, &c, scratch, sizeof(scratch)));
	perf_event_read_value(member, &enabled, &running);
	KUNIT_EXPECT_EQ(test, 0ULL, running);
	perf_event_enable(leader);
	msleep(50);
	perf_event_disable(leader);
	count = perf_event_read_value(leader, &enabled, &running);
	KUNIT_EXPECT_GT(test, count, 0ULL);
	KUNIT_EXPECT_EQ(test, enabled, running);
	KUNIT_EXPECT_GT(test, perf_kernel_rb_read(rb, check_sample, &c, scratch,
						  sizeof(scratch)), 0L);
	KUNIT_EXPECT_GT(test, c.samples, 10U);
	KUNIT_EXPECT_EQ(test, 0U, c.bad_size);
	/* The leader may go first: its member is left a group of its own. */
	perf_event_release_kernel(leader);
	KUNIT_EXPECT_PTR_EQ(test, member, member->group_leader);
	perf_event_release_kernel(member);
	perf_kernel_rb_put(rb);
}

/*
 * perf_kernel_rb_attach() refuses what a buffer's writers or its reader
 * could not take: an event bound to another CPU than the buffer's events
 * (perf's writers assume one CPU writes a buffer), and a write_backward
 * event (the reader reads forwards).
 */
static void kernel_rb_attach_checks_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = NSEC_PER_SEC,
		.sample_type = PERF_SAMPLE_TID,
		.disabled = 1,
	};
	int cpu = cpumask_first(cpu_online_mask);
	int other = cpumask_next(cpu, cpu_online_mask);
	struct perf_event *a, *b;
	struct perf_buffer *rb;

	rb = perf_kernel_rb_alloc(2, cpu);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(rb));
	a = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_rb_attach(a, rb));
	if (other < nr_cpu_ids) {
		b = perf_event_create_kernel_counter(&attr, other, NULL, NULL, NULL);
		KUNIT_EXPECT_FALSE(test, IS_ERR(b));
		if (!IS_ERR(b)) {
			KUNIT_EXPECT_EQ(test, -EINVAL, perf_kernel_rb_attach(b, rb));
			perf_event_release_kernel(b);
		}
	}
	attr.write_backward = 1;
	b = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	KUNIT_EXPECT_FALSE(test, IS_ERR(b));
	if (!IS_ERR(b)) {
		KUNIT_EXPECT_EQ(test, -EINVAL, perf_kernel_rb_attach(b, rb));
		perf_event_release_kernel(b);
	}
	perf_event_release_kernel(a);
	perf_kernel_rb_put(rb);
}

/* What a counter's overflow handler saw: its count and the sample's period. */
struct overflow_log {
	unsigned int n;
	u64 count[8], period[8];
};

static void log_overflow(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	struct overflow_log *log = event->overflow_handler_context;

	if (log->n < ARRAY_SIZE(log->count)) {
		log->count[log->n] = local64_read(&event->count);
		log->period[log->n] = data->period;
	}
	log->n++;
}

/* @nr minor-fault events of this thread, as a page fault counts them. */
static void fire_faults(unsigned int nr)
{
	struct pt_regs regs = { };

	while (nr--)
		perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, &regs, 0);
}

/*
 * perf_kernel_counter_period() on a software event keeps its count since
 * its last sample: each sample's period is the events it stands for.  Made
 * at period 2 and changed to 4 before it ever ran (a whole period then),
 * events 4 and 8 are sampled; after 10, period 3: event 11 (9, 10, 11)
 * and 14; then period 8: 22; then 6 events on, period 4 (shorter than the
 * 6 since the sample): the next event, 29, with period 4.
 */
static void kernel_counter_swevent_period_test(struct kunit *test)
{
	static const u64 counts[] = { 4, 8, 11, 14, 22, 29 };
	static const u64 periods[] = { 4, 4, 3, 3, 8, 4 };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS_MIN,
		.size = sizeof(attr),
		.sample_period = 2,
		.sample_type = PERF_SAMPLE_TID,
		.disabled = 1,
	};
	struct overflow_log log = { };
	struct perf_event *event;
	unsigned int i;

	/* This thread's events only: no other task's faults in the count. */
	event = perf_event_create_kernel_counter(&attr, -1, current, log_overflow, &log);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_counter_period(event, 4));
	perf_event_enable(event);
	fire_faults(10);
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_counter_period(event, 3));
	fire_faults(4);
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_counter_period(event, 8));
	fire_faults(14);
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_counter_period(event, 4));
	fire_faults(1);
	perf_event_disable(event);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(counts), log.n);
	for (i = 0; i < ARRAY_SIZE(counts) && i < log.n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, counts[i], log.count[i], "sample %u", i);
		KUNIT_EXPECT_EQ_MSG(test, periods[i], log.period[i], "sample %u", i);
	}
	perf_event_release_kernel(event);
}

static struct kunit_case kernel_rb_test_cases[] = {
	KUNIT_CASE(kernel_rb_wrap_test),
	KUNIT_CASE(kernel_rb_corrupt_test),
	KUNIT_CASE(kernel_rb_oversized_test),
	KUNIT_CASE(kernel_rb_bad_alloc_test),
	KUNIT_CASE(kernel_rb_event_test),
	KUNIT_CASE(kernel_group_test),
	KUNIT_CASE(kernel_counter_swevent_period_test),
	KUNIT_CASE(kernel_rb_attach_checks_test),
	{}
};

static struct kunit_suite kernel_rb_test_suite = {
	.name = "perf_kernel_rb",
	.test_cases = kernel_rb_test_cases,
};

kunit_test_suite(kernel_rb_test_suite);
