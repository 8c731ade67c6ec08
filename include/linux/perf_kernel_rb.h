/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ring buffers for perf events owned by the kernel
 *
 * perf_event_create_kernel_counter() makes events without a ring buffer;
 * only perf_mmap() makes one.  With these helpers a kernel user gives its
 * counters a buffer that their default overflow handler (and large PEBS)
 * write samples into, and reads the records back the way the perf tool
 * reads an mmap()ed buffer; perf_kernel_counter_enable() and
 * perf_kernel_counter_period() reach the events a counter handed down to
 * the tasks forked since; perf_sample_phys_addr() gives an overflow handler
 * of its own the physical address a record would have had, and the size
 * of the page that maps it.
 * perf_event_open_permitted() and perf_event_target_permitted() apply
 * perf_event_open()'s permission rules to counters the kernel creates on
 * behalf of a user.
 */
#ifndef _LINUX_PERF_KERNEL_RB_H
#define _LINUX_PERF_KERNEL_RB_H

#include <linux/types.h>

struct perf_buffer;
struct perf_event;
struct perf_event_attr;
struct perf_event_header;
struct task_struct;

/**
 * typedef perf_kernel_rb_fn - called for each record read from a buffer
 * @rec: the record, header first, contiguous in memory (copied into the
 *	 reader's scratch space if it crossed a page or the buffer's end)
 * @arg: the argument given to perf_kernel_rb_read()
 *
 * Context: that of perf_kernel_rb_read()'s caller; @rec is valid only
 * during the call.
 */
typedef void (*perf_kernel_rb_fn)(const struct perf_event_header *rec, void *arg);

#ifdef CONFIG_PERF_KERNEL_RB
struct perf_buffer *perf_kernel_rb_alloc(unsigned int nr_pages, int cpu);
void perf_kernel_rb_put(struct perf_buffer *rb);
int perf_kernel_rb_attach(struct perf_event *event, struct perf_buffer *rb);
long perf_kernel_rb_read(struct perf_buffer *rb, perf_kernel_rb_fn fn, void *arg,
			 void *scratch, size_t scratch_size);
u64 perf_kernel_rb_pending(struct perf_buffer *rb);
u64 perf_kernel_rb_lost(struct perf_buffer *rb);
void perf_kernel_counter_enable(struct perf_event *event, bool enable);
int perf_kernel_counter_period(struct perf_event *event, u64 value);
u64 perf_sample_phys_addr(u64 virt, u64 *page_size);
#endif

/* perf_event_open()'s permission checks, for counters made on a user's behalf. */
int perf_event_open_permitted(const struct perf_event_attr *attr);
int perf_event_target_permitted(struct perf_event_attr *attr,
				struct task_struct *task);

#endif /* _LINUX_PERF_KERNEL_RB_H */
