// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of perf's helpers for kernel counters
 */

#include <kunit/test.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/log2.h>
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
 * refuse are refused.  One scenario, read top to bottom: hence its
 * length.
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

/*
 * perf_event_open_permitted() and perf_event_target_permitted() answer as
 * perf_event_open() does.  With every capability (this thread's), all is
 * allowed.  Without any, at perf_event_paranoid 2 (upstream's default) a
 * user-only counter of one's own thread is allowed, while kernel
 * profiling, physical addresses and CPU-wide counters are refused; at 3
 * (CONFIG_SECURITY_PERF_EVENTS_RESTRICT) all is refused.
 */
static void kernel_open_permitted_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.exclude_kernel = 1,
	};
	struct perf_event_attr kern = attr, phys = attr;
	int paranoid = READ_ONCE(sysctl_perf_event_paranoid);
	const struct cred *old;
	struct cred *cred;

	kern.exclude_kernel = 0;
	phys.sample_type = PERF_SAMPLE_PHYS_ADDR;
	KUNIT_EXPECT_EQ(test, 0, perf_event_open_permitted(&attr));
	KUNIT_EXPECT_EQ(test, 0, perf_event_open_permitted(&kern));
	KUNIT_EXPECT_EQ(test, 0, perf_event_open_permitted(&phys));
	KUNIT_EXPECT_EQ(test, 0, perf_event_target_permitted(&attr, NULL));
	KUNIT_EXPECT_EQ(test, 0, perf_event_target_permitted(&attr, current));

	if (paranoid < 2)
		kunit_skip(test, "perf_event_paranoid is %d, not 2 or more", paranoid);
	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_clear(cred->cap_effective);
	old = override_creds(cred);
	KUNIT_EXPECT_EQ(test, paranoid > 2 ? -EACCES : 0, perf_event_open_permitted(&attr));
	KUNIT_EXPECT_EQ(test, -EACCES, perf_event_open_permitted(&kern));
	KUNIT_EXPECT_EQ(test, -EACCES, perf_event_open_permitted(&phys));
	KUNIT_EXPECT_EQ(test, -EACCES, perf_event_target_permitted(&attr, NULL));
	/* One's own thread needs no ptrace access: only the paranoia counts. */
	KUNIT_EXPECT_EQ(test, 0, perf_event_target_permitted(&attr, current));
	revert_creds(old);
	put_cred(cred);
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

/*
 * perf_kernel_counter_period() refuses what perf_event_period() refuses
 * (perf_event_period_check()), and then changes nothing: a counting
 * event, a period of 0 or with its top bit set.  A period it takes is the
 * counter's.  perf_kernel_counter_enable() turns the counter on and off.
 */
static void kernel_counter_period_check_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.disabled = 1,
	};
	int cpu = raw_smp_processor_id();
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_EXPECT_EQ(test, -EINVAL, perf_kernel_counter_period(event, NSEC_PER_MSEC));
	perf_event_release_kernel(event);

	attr.sample_period = NSEC_PER_MSEC;
	event = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(event));
	KUNIT_EXPECT_EQ(test, -EINVAL, perf_kernel_counter_period(event, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, perf_kernel_counter_period(event, 1ULL << 63));
	KUNIT_EXPECT_EQ(test, NSEC_PER_MSEC, event->attr.sample_period);
	KUNIT_EXPECT_EQ(test, 0, perf_kernel_counter_period(event, 2 * NSEC_PER_MSEC));
	KUNIT_EXPECT_EQ(test, 2 * NSEC_PER_MSEC, event->attr.sample_period);
	KUNIT_EXPECT_EQ(test, 2 * NSEC_PER_MSEC, event->hw.sample_period);

	perf_kernel_counter_enable(event, true);
	KUNIT_EXPECT_GE(test, (int)event->state, (int)PERF_EVENT_STATE_INACTIVE);
	perf_kernel_counter_enable(event, false);
	KUNIT_EXPECT_EQ(test, (int)PERF_EVENT_STATE_OFF, (int)event->state);
	perf_event_release_kernel(event);
}

/* This thread's perf_event cgroup, referenced; NULL without CGROUP_PERF. */
static struct cgroup_subsys_state *current_perf_css(void)
{
	struct cgroup_subsys_state *css = NULL;

#ifdef CONFIG_CGROUP_PERF
	rcu_read_lock();
	css = task_css(current, perf_event_cgrp_id);
	css_get(css);
	rcu_read_unlock();
#endif
	return css;
}

/*
 * perf_event_create_kernel_cgroup(): a CPU-wide counter of this thread's
 * cgroup counts while the thread runs on that CPU; a counter needs a CPU
 * and a cgroup.  perf_cgroup_css_from_file() refuses a directory that is
 * not a cgroup's.
 */
static void kernel_cgroup_test(struct kunit *test)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct cgroup_subsys_state *css;
	struct perf_event *event;
	u64 count, enabled, running;
	struct file *root;
	int cpu;

	if (!IS_ENABLED(CONFIG_CGROUP_PERF))
		kunit_skip(test, "no CONFIG_CGROUP_PERF");
	root = filp_open("/", O_RDONLY | O_DIRECTORY, 0);
	if (!IS_ERR(root)) {
		css = perf_cgroup_css_from_file(root);
		KUNIT_EXPECT_EQ(test, -EBADF, PTR_ERR_OR_ZERO(css));
		if (!IS_ERR(css))
			css_put(css);
		fput(root);
	}

	css = current_perf_css();
	event = perf_event_create_kernel_cgroup(&attr, -1, css, NULL, NULL, NULL);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(event));
	event = perf_event_create_kernel_cgroup(&attr, 0, NULL, NULL, NULL, NULL);
	KUNIT_EXPECT_EQ(test, -EINVAL, PTR_ERR_OR_ZERO(event));

	/* Stay on the counter's CPU while it should count. */
	migrate_disable();
	cpu = smp_processor_id();
	event = perf_event_create_kernel_cgroup(&attr, cpu, css, NULL, NULL, NULL);
	css_put(css);
	if (IS_ERR(event)) {
		migrate_enable();
		KUNIT_FAIL(test, "perf_event_create_kernel_cgroup(): %ld", PTR_ERR(event));
		return;
	}
	perf_event_enable(event);
	mdelay(20);
	perf_event_disable(event);
	migrate_enable();
	count = perf_event_read_value(event, &enabled, &running);
	KUNIT_EXPECT_GT(test, count, 0ULL);
	perf_event_release_kernel(event);
}

/*
 * perf_sample_phys_addr() translates a kernel address as
 * PERF_SAMPLE_PHYS_ADDR does, with the size of the page that maps it, and
 * gives no address and no size for an address with no page.
 */
static void kernel_sample_phys_addr_test(struct kunit *test)
{
	u64 *buf = kunit_kzalloc(test, sizeof(*buf), GFP_KERNEL);
	u64 size = 1;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, (u64)virt_to_phys(buf),
			perf_sample_phys_addr((unsigned long)buf, &size));
	KUNIT_EXPECT_GE(test, size, (u64)PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(size));
	KUNIT_EXPECT_EQ(test, (u64)virt_to_phys(buf),
			perf_sample_phys_addr((unsigned long)buf, NULL));
	KUNIT_EXPECT_EQ(test, 0ULL, perf_sample_phys_addr(0, &size));
	KUNIT_EXPECT_EQ(test, 0ULL, size);
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
	KUNIT_CASE(kernel_open_permitted_test),
	KUNIT_CASE(kernel_counter_period_check_test),
	KUNIT_CASE(kernel_cgroup_test),
	KUNIT_CASE(kernel_sample_phys_addr_test),
	{}
};

static struct kunit_suite kernel_rb_test_suite = {
	.name = "perf_kernel_rb",
	.test_cases = kernel_rb_test_cases,
};

kunit_test_suite(kernel_rb_test_suite);
