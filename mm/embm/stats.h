/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm statistics (stats.c): where a session's samples landed, by node,
 * and what perf says of each kind of event
 */
#ifndef __MM_EMBM_STATS_H
#define __MM_EMBM_STATS_H

#include <linux/embm.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/types.h>

#include "record.h"
#include "tier.h"

struct embm_hot;
struct embm_tasks;

#define EMBM_LAT_BUCKETS	32	/* log2 buckets of latency in cycles */
#define EMBM_PPB		1000000000ULL	/* shares of the intervals: parts per 10^9 */
#define EMBM_HINT_PAGES		4096	/* pages a far or CXL node's hint table keeps */

/**
 * struct embm_node_stats - what landed on one memory node
 * @samples:	samples whose address is on this node.
 * @cache:	of which served by a cache, as the data source says; the
 *		figures below leave them out.
 * @mem:	of which served by memory (DRAM, PMEM, CXL, uncached), as the
 *		data source says.
 * @loads:	loads among the others.
 * @stores:	stores among the others (an op may be both; the rest are
 *		unknown).
 *
 * The figures above count samples.  Those below are estimates: each sample
 * stands for its period (the period it was taken with), the accesses ones
 * times the base pages it covers (struct embm_sample.pages), so that
 * samples taken while the adaptive period was low do not outweigh the
 * others.  The latency figures weigh the period only (a load is one
 * access), @page_samples the pages only.
 *
 * @accesses:	estimated accesses of the samples not served by a cache,
 *		not yet scaled for multiplexing.
 * @kind_accesses: @accesses by event kind, to scale each by its own
 *		enabled/running ratio (embm_stats_node_accesses()).
 * @kind_mem:	likewise of the samples served by memory: the node shares
 *		of a source with share_mem.
 * @lat_samples: samples with a latency that no cache, I/O or uncached
 *		access served (embm_lat_drop()): a count.
 * @lat_dropped: samples with a latency left out, by enum embm_lat_drop.
 * @lat_weight:	their estimated accesses.
 * @lat_sum:	their latencies times their periods, in cycles.
 * @lat_hist:	latency histogram of estimated accesses, bucket i for
 *		[2^i, 2^(i+1)) cycles.
 * @pages:	linear-counting bitmap of the base pages seen; NULL when it
 *		could not be allocated.
 * @pages_zeroed: the 4 KiB chunks of @pages zeroed so far (stats.c): the
 *		others are not read.
 * @page_samples: base pages the samples covered, repeats counted: the
 *		distinct pages are at most this.
 * @cxl:	of @samples, those whose physical address lies in a CXL
 *		window: each sample classified by its own address, so that
 *		a node holding DRAM and CXL memory shows how much is which.
 * @user_samples: of @samples, those taken in user mode; the others were
 *		taken in the kernel (or in a mode not known).
 * @kind_user:	of @kind_accesses, those of samples taken in user mode.
 * @kind_sq:	the sums of the squares of @kind_accesses' weights, by
 *		kind: what the variance of the estimates is made of
 *		(embm_stats_share_interval()); U64_MAX when they overflow.
 * @kind_mem_sq: likewise of @kind_mem.
 * @hint:	for a node of the far or CXL tier with memory at start, its
 *		hottest pages, up to EMBM_HINT_PAGES (space-saving, weighted
 *		by the periods: the promotion hint); NULL for the others.
 * @hint_weight: the periods added to @hint.
 * @hint_sq:	the sum of their squares; U64_MAX when it overflows.
 * @present:	the node had memory at start, or got a sample since: it is
 *		in the reports.
 */
struct embm_node_stats {
	u64 samples;
	u64 cache;
	u64 mem;
	u64 loads;
	u64 stores;
	u64 accesses;
	u64 kind_accesses[EMBM_MAX_EVENTS];
	u64 kind_mem[EMBM_MAX_EVENTS];
	u64 lat_samples;
	u64 lat_dropped[EMBM_LAT_NR];
	u64 lat_weight;
	u64 lat_sum;
	u64 lat_hist[EMBM_LAT_BUCKETS];
	unsigned long *pages;
	u32 pages_zeroed;
	u64 page_samples;
	u64 cxl;
	u64 user_samples;
	u64 kind_user[EMBM_MAX_EVENTS];
	u64 kind_sq[EMBM_MAX_EVENTS];
	u64 kind_mem_sq[EMBM_MAX_EVENTS];
	struct embm_hot *hint;
	u64 hint_weight;
	u64 hint_sq;
	bool present;
};

/**
 * struct embm_kind_stats - what perf says of one kind of event
 * @name:	the descriptor's name; NULL for an unused slot.
 * @count:	events counted, on every CPU and thread, children included.
 * @enabled:	time enabled, in ns: for per-thread events, the largest
 *		over the CPUs of each thread, summed over the threads.
 * @running:	time on the PMU, likewise: below @enabled when another
 *		perf user or other events left no counter.
 * @lead:	a counting group leader (no samples of its own).
 * @by_count:	its samples carry no period (software events): its accesses
 *		are calibrated to @count (embm_stats_node_accesses()).
 * @weight:	the sum of its samples' periods when @count was read.
 * @lost:	its samples lost (a full buffer or queue), as far as known.
 * @lost_weight: the events they stood for: each the period in force when
 *		its loss was read.  Calibration leaves them out: where they
 *		landed is not known.
 * @lost_read:	@lost_weight when @count was read: what the calibration
 *		takes, of the same moment as @count and @weight.
 * @throttled_ns: time its events spent throttled while running, as
 *		perf's THROTTLE and UNTHROTTLE records tell (each interval
 *		capped at a tick: see embm_drain_throttle()).  perf leaves a
 *		throttled event active, so @running includes this time
 *		although the event took no samples: embm_stats_scale()
 *		takes it out.
 */
struct embm_kind_stats {
	const char *name;
	u64 count;
	u64 enabled;
	u64 running;
	bool lead;
	bool by_count;
	u64 weight;
	u64 lost;
	u64 lost_weight;
	u64 lost_read;
	u64 throttled_ns;
};

/**
 * struct embm_stats - the results of a session: where its samples landed
 * @ref:	the session holds one reference, and each reader of /proc/embm
 *		or the kernel-log summary one while it formats them.
 * @lock:	held by ksamplingd while it adds a batch and by readers.
 * @nr_nodes:	nr_node_ids when the session started.
 * @tier:	tier of each node, decided at start, or when a node that had
 *		no memory then gets its first sample.
 * @cpu_node:	the node of each possible CPU, at start.
 * @node:	per memory node.
 * @matrix:	estimated accesses by CPU node (row) x memory node (column):
 *		the weights of @node's @accesses, not scaled by kind as the
 *		nodes' estimates are (embm_stats_scale()).
 * @hot:	hot pages.
 * @tasks:	the per-task table, or NULL (embm_stats_prepare()).
 * @samples:	every sample added: the sum of embm_stats_attributed(),
 *		@latency_only, @no_phys, @bad_pfn, @hotplug_busy and
 *		embm_stats_device() (embm_stats_identity_ok()).
 * @latency_only: samples of latency-only kinds: another event counts
 *		their accesses, they add to the latency figures alone, and
 *		none of the counts below includes them.
 * @no_phys:	samples without a physical address.
 * @bad_pfn:	samples whose pfn is not online System RAM of a node of
 *		@node, outside the CXL windows (device pages in one count
 *		in its @device).
 * @hotplug_busy: samples not placed because a memory hotplug operation
 *		was under way (embm_pfn_nid()): their page might be going.
 * @cache:	samples a data source said a cache served.
 * @kind_samples: samples by the event kind that took them.
 * @kind_weight: the sum of their periods, latency-only samples aside.
 * @win:	the CXL windows, as scanned at start and whenever a node
 *		gets memory during the session.
 * @nr_win:	how many of @win are in use.
 * @win_over:	windows seen beyond EMBM_MAX_WINDOWS, not followed.
 * @mem_gen:	the memory hotplug generation of the last scan of @win.
 * @cxl_nodes:	the nodes whose System RAM that scan found mostly in @win.
 * @bytes:	the memory these statistics take, page bitmaps and hot-page
 *		table included; not the per-task table's, which grows
 *		(embm_stats_bytes()).
 *
 * Written under @lock by stats.c (embm_stats_add()) and, for the tiers,
 * the windows and the CXL nodes, by tier.c; what the sampler knows of
 * itself is in struct embm_sampler_status.
 */
struct embm_stats {
	struct kref ref;
	struct mutex lock;	/* see above: ksamplingd vs readers */
	int nr_nodes;
	u8 *tier;
	int *cpu_node;
	struct embm_node_stats *node;
	u64 *matrix;
	struct embm_hot *hot;
	struct embm_tasks *tasks;
	u64 samples;
	u64 latency_only;
	u64 no_phys;
	u64 bad_pfn;
	u64 hotplug_busy;
	u64 cache;
	u64 kind_samples[EMBM_MAX_EVENTS];
	u64 kind_weight[EMBM_MAX_EVENTS];
	struct embm_window win[EMBM_MAX_WINDOWS];
	int nr_win;
	unsigned int win_over;
	int mem_gen;
	nodemask_t cxl_nodes;
	size_t bytes;
};

/* @a + @b, U64_MAX where it does not fit: for sums of squares. */
static inline u64 embm_add_sat(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

/* @w squared, U64_MAX where it does not fit. */
static inline u64 embm_sq_sat(u64 w)
{
	return w > U32_MAX ? U64_MAX : w * w;
}

u64 embm_mul_div_sat(u64 a, u64 b, u64 c);
struct embm_stats *embm_stats_alloc(unsigned int hot_pages);
int embm_stats_prepare(struct embm_stats *st, unsigned int max_tasks, bool tasks);
size_t embm_stats_bytes(const struct embm_stats *st);
void embm_stats_get(struct embm_stats *st);
void embm_stats_put(struct embm_stats *st);
void embm_stats_add(struct embm_stats *st, const struct embm_sample *s,
		    int kind, enum embm_op op, bool latency_only);
void embm_stats_kind_weights(struct embm_stats *st, u64 *weight, int nr_kinds);
u64 embm_stats_scale(u64 est, const struct embm_kind_stats *ks);
u64 embm_stats_node_accesses(const struct embm_node_stats *ns,
			     const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_share_part(const struct embm_node_stats *ns, bool share_mem,
			  const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_share_basis(const struct embm_stats *st, bool share_mem,
			   const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_user_accesses(const struct embm_node_stats *ns,
			     const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_share_var(const struct embm_node_stats *ns, bool share_mem,
			 const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_accesses_var(const struct embm_node_stats *ns,
			    const struct embm_kind_stats *kinds, int nr_kinds);
void embm_stats_share_interval(u64 x, u64 vx, u64 t, u64 vt, u64 *lo, u64 *hi);
void embm_stats_count_interval(u64 x, u64 vx, u64 t, u64 vt, u64 *lo, u64 *hi);
u64 embm_stats_lat_mean(const struct embm_node_stats *ns);
u64 embm_stats_distinct_pages(const struct embm_node_stats *ns);
u64 embm_stats_attributed(const struct embm_stats *st);
u64 embm_stats_device(const struct embm_stats *st);
int embm_stats_node_order(const struct embm_stats *st, int study, int *order);

#endif /* __MM_EMBM_STATS_H */
