// SPDX-License-Identifier: GPL-2.0
/*
 * Ring buffers for perf events owned by the kernel: allocation and reading
 *
 * The buffer is the one perf_mmap() makes (rb_alloc() with
 * RING_BUFFER_WRITABLE, and RING_BUFFER_NO_ZERO: nobody maps its data
 * pages, and the reader reads only bytes the writers wrote, so they are
 * not zeroed), so the writers honour data_tail and never
 * overwrite unread records: when the buffer is full they drop samples and
 * later emit PERF_RECORD_LOST.  The reader below is the kernel's version of
 * what the perf tool does on an mmap()ed buffer.  Attaching an event lives
 * in core.c, next to perf_mmap(), with which it shares static helpers.
 */

#define pr_fmt(fmt) "perf-kernel-rb: " fmt

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/string.h>

#include "internal.h"

/**
 * perf_kernel_rb_alloc() - allocate a ring buffer for kernel counters
 * @nr_pages: data pages, a power of two
 * @cpu:      CPU whose node backs the pages, or -1
 *
 * The buffer may be shared by several events, all bound to @cpu: perf's
 * writers assume one CPU writes a buffer.  Drop the reference with
 * perf_kernel_rb_put() once every event using it is released.
 *
 * Context: process; may sleep.
 * Return: the buffer, or ERR_PTR(-EINVAL) for a bad @nr_pages,
 * ERR_PTR(-ENOMEM).
 */
struct perf_buffer *perf_kernel_rb_alloc(unsigned int nr_pages, int cpu)
{
	struct perf_buffer *rb;

	if (!nr_pages || !is_power_of_2(nr_pages) || nr_pages > INT_MAX / 2)
		return ERR_PTR(-EINVAL);
	rb = rb_alloc(nr_pages, 0, cpu, RING_BUFFER_WRITABLE | RING_BUFFER_NO_ZERO);
	if (!rb)
		return ERR_PTR(-ENOMEM);
	return rb;
}
EXPORT_SYMBOL_GPL(perf_kernel_rb_alloc);

/**
 * perf_kernel_rb_put() - drop the reference perf_kernel_rb_alloc() gave
 * @rb: the buffer; NULL or an error pointer is ignored
 *
 * Events still attached keep the buffer alive until they are released.
 *
 * Context: any but NMI.
 */
void perf_kernel_rb_put(struct perf_buffer *rb)
{
	if (!IS_ERR_OR_NULL(rb))
		ring_buffer_put(rb);
}
EXPORT_SYMBOL_GPL(perf_kernel_rb_put);

/* Copy @len bytes at buffer offset @off, crossing pages and the end. */
static void rb_copy_out(struct perf_buffer *rb, u64 off, void *dst, size_t len)
{
	unsigned int page_shift = PAGE_SHIFT + page_order(rb);
	unsigned long page_size = 1UL << page_shift;

	while (len) {
		unsigned long nr = (off >> page_shift) & (rb->nr_pages - 1);
		unsigned long poff = off & (page_size - 1);
		size_t n = min_t(size_t, len, page_size - poff);

		memcpy(dst, rb->data_pages[nr] + poff, n);
		dst += n;
		off += n;
		len -= n;
	}
}

/**
 * perf_kernel_rb_pending() - bytes written and not yet read
 * @rb: the buffer
 *
 * Context: any.
 * Return: data_head - data_tail, in bytes.
 */
u64 perf_kernel_rb_pending(struct perf_buffer *rb)
{
	struct perf_event_mmap_page *up = rb->user_page;

	/* Acquire pairs with the writers' update of data_head. */
	return smp_load_acquire(&up->data_head) - READ_ONCE(up->data_tail);
}
EXPORT_SYMBOL_GPL(perf_kernel_rb_pending);

/**
 * perf_kernel_rb_lost() - take the count of drops not yet reported
 * @rb: the buffer
 *
 * A writer that finds the buffer full drops its record, counts it, and
 * reports the count in a PERF_RECORD_LOST before its next record.  Drops
 * after the last record written are never reported that way: a reader that
 * is done with the buffer (its events disabled or released) takes them here.
 *
 * Context: any; once no event writes into @rb any more.
 * Return: the records dropped since the last PERF_RECORD_LOST; the count
 * starts again from zero.
 */
u64 perf_kernel_rb_lost(struct perf_buffer *rb)
{
	return local_xchg(&rb->lost, 0);
}
EXPORT_SYMBOL_GPL(perf_kernel_rb_lost);

/**
 * perf_kernel_rb_read() - consume every record between tail and head
 * @rb:           the buffer
 * @fn:           called for each record, in order
 * @arg:          passed to @fn
 * @scratch:      room for one record that crosses a page or the end
 * @scratch_size: its size; records written by the caller's events must fit
 *
 * Records include PERF_RECORD_LOST and PERF_RECORD_THROTTLE/UNTHROTTLE:
 * @fn sees every type and must count what it does not use.  The tail moves
 * past what was read, so writers may reuse the space.
 *
 * Context: process or softirq; one reader per buffer at a time.
 * Return: the number of records passed to @fn; -EMSGSIZE if a record did
 * not fit @scratch (it was skipped) or -EBADMSG if a header was corrupt
 * (everything up to head was skipped): records before it were passed on.
 */
long perf_kernel_rb_read(struct perf_buffer *rb, perf_kernel_rb_fn fn, void *arg,
			 void *scratch, size_t scratch_size)
{
	struct perf_event_mmap_page *up = rb->user_page;
	unsigned int page_shift = PAGE_SHIFT + page_order(rb);
	unsigned long page_size = 1UL << page_shift;
	struct perf_event_header *hdr;
	long nr = 0, err = 0;
	u64 head, tail;

	/* Pairs with the writer's update of data_head (perf_output_put_handle). */
	head = smp_load_acquire(&up->data_head);
	tail = READ_ONCE(up->data_tail);

	while (tail != head) {
		unsigned long pnr = (tail >> page_shift) & (rb->nr_pages - 1);
		unsigned long poff = tail & (page_size - 1);

		/* Records are 8-byte aligned: a header never crosses a page. */
		hdr = rb->data_pages[pnr] + poff;
		if (hdr->size < sizeof(*hdr) || hdr->size > head - tail ||
		    !IS_ALIGNED(hdr->size, sizeof(u64))) {
			pr_warn_ratelimited("corrupt record header (size %u) at %llu\n",
					    hdr->size, tail);
			tail = head;
			err = -EBADMSG;
			break;
		}
		if (hdr->size > page_size - poff) {
			if (hdr->size > scratch_size) {
				tail += hdr->size;
				err = -EMSGSIZE;
				continue;
			}
			rb_copy_out(rb, tail, scratch, hdr->size);
			hdr = scratch;
		}
		fn(hdr, arg);
		tail += hdr->size;
		nr++;
	}

	/* The records are read before writers may reuse their space. */
	smp_store_release(&up->data_tail, tail);
	return err ?: nr;
}
EXPORT_SYMBOL_GPL(perf_kernel_rb_read);
