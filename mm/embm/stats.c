// SPDX-License-Identifier: GPL-2.0
/*
 * embm: where a session's samples landed, and the estimates made of them
 *
 * Each sample counts on the node of its page (tier.c finds the node, and
 * the node's tier), in the CXL window it lies in, and in the matrix of
 * CPU node by memory node; its period makes it stand for the accesses it
 * samples.  This file alone writes the counts of struct embm_stats:
 * updates run in ksamplingd with embm_stats.lock held; readers take the
 * lock too, and hold a reference (embm_stats_get()) while they format.
 * Nothing here runs in NMI or atomic context.
 */

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/lockdep.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "hot.h"
#include "tasks.h"
#include "record.h"
#include "stats.h"
#include "tier.h"

#define EMBM_THROTTLE_MAX	8	/* the most throttling scales a kind by */
#define EMBM_PAGES_BITS		20	/* distinct-page bitmap: 2^20 bits a node */

/*
 * Bit of a pfn in a node's distinct-page bitmap.  Linear counting assumes
 * random collisions: a multiplicative hash spreads runs of pfns too evenly
 * and the estimate then runs high, so mix like murmur3's finaliser.
 */
static unsigned int embm_page_bit(u64 pfn)
{
	pfn ^= pfn >> 33;
	pfn *= 0xff51afd7ed558ccdULL;
	pfn ^= pfn >> 33;
	pfn *= 0xc4ceb9fe1a85ec53ULL;
	pfn ^= pfn >> 33;
	return pfn >> (64 - EMBM_PAGES_BITS);
}

#define EMBM_PAGES_BYTES	(BITS_TO_LONGS(1U << EMBM_PAGES_BITS) * sizeof(long))

/*
 * The bitmap is zeroed a chunk at a time, when a page's bit first lands in
 * it (struct embm_node_stats's pages_zeroed): not at start, where zeroing
 * every node's took most of embm_start() under QEMU's TCG.
 */
#define EMBM_PAGES_CHUNKS	32
#define EMBM_CHUNK_BITS		(EMBM_PAGES_BITS - ilog2(EMBM_PAGES_CHUNKS))
#define EMBM_CHUNK_LONGS	(BITS_TO_LONGS(1U << EMBM_CHUNK_BITS))
static_assert(EMBM_PAGES_CHUNKS <= 32);	/* a bit each in pages_zeroed, a u32 */

/*
 * The distinct-page bitmap of a node: 128 KiB, so maybe vmalloc()ed; not
 * zeroed (above).  Counted in @st's size.  Process context; st->lock held
 * once @st is seen.
 */
static unsigned long *embm_pages_alloc(struct embm_stats *st)
{
	unsigned long *pages = kvmalloc(EMBM_PAGES_BYTES, GFP_KERNEL_ACCOUNT);

	if (pages)
		st->bytes += EMBM_PAGES_BYTES;
	return pages;
}

/*
 * A sample landed on a node that had no memory at start: memory came
 * online there (embm_stats_add() has had tier.c scan the windows again
 * since).  Report it from now on, with its tier and a page bitmap.
 * Context: ksamplingd (process), st->lock held; may sleep.
 */
static void __embm_stats_add_node(struct embm_stats *st, int nid)
{
	struct embm_node_stats *ns = &st->node[nid];

	lockdep_assert_held(&st->lock);
	ns->present = true;
	st->tier[nid] = embm_node_tier(st, nid);
	if (!ns->pages) {
		ns->pages = embm_pages_alloc(st);
		ns->pages_zeroed = 0;
	}
}

static void embm_stats_free(struct embm_stats *st);

/*
 * Zeroed statistics for @nr_nodes nodes, or NULL.  The per-node tables
 * grow with the square of @nr_nodes (8 MiB of matrix for 1024 nodes):
 * they are allocated with kvcalloc().  Page bitmaps are made for the nodes
 * that have memory now.  Process context.
 */
static struct embm_stats *embm_stats_alloc_nodes(int nr_nodes, unsigned int hot_pages)
{
	struct embm_stats *st;
	int nid;

	st = kzalloc(sizeof(*st), GFP_KERNEL_ACCOUNT);
	if (!st)
		return NULL;
	kref_init(&st->ref);
	mutex_init(&st->lock);
	st->nr_nodes = nr_nodes;
	st->tier = kvcalloc(nr_nodes, sizeof(*st->tier), GFP_KERNEL_ACCOUNT);
	st->cpu_node = kvcalloc(nr_cpu_ids, sizeof(*st->cpu_node), GFP_KERNEL_ACCOUNT);
	st->node = kvcalloc(nr_nodes, sizeof(*st->node), GFP_KERNEL_ACCOUNT);
	st->matrix = kvcalloc(array_size(nr_nodes, nr_nodes), sizeof(*st->matrix),
			      GFP_KERNEL_ACCOUNT);
	st->hot = embm_hot_alloc(hot_pages);
	if (!st->tier || !st->cpu_node || !st->node || !st->matrix || !st->hot)
		goto out_free;
	st->bytes = sizeof(*st) + nr_nodes * (sizeof(*st->tier) + sizeof(*st->node)) +
		nr_cpu_ids * sizeof(*st->cpu_node) +
		array_size(nr_nodes, nr_nodes) * sizeof(*st->matrix) + embm_hot_bytes(st->hot);
	for_each_node_state(nid, N_MEMORY) {
		if (nid >= nr_nodes)
			break;
		st->node[nid].pages = embm_pages_alloc(st);
		if (!st->node[nid].pages)
			goto out_free;
	}
	return st;

out_free:
	embm_stats_free(st);
	return NULL;
}

/**
 * embm_stats_alloc() - zeroed statistics for a session
 * @hot_pages: how many hot pages to keep
 *
 * Context: process; may sleep.
 * Return: the statistics, with one reference for embm_stats_put(), or NULL.
 */
struct embm_stats *embm_stats_alloc(unsigned int hot_pages)
{
	return embm_stats_alloc_nodes(nr_node_ids, hot_pages);
}

/**
 * embm_stats_prepare() - the tables a session fills as it goes
 * @st:	       statistics from embm_stats_alloc(), their nodes classified
 *	       (embm_stats_classify_nodes()), no sample added yet
 * @max_tasks: the most tasks with an entry of their own (the max_tasks knob)
 * @tasks:     keep a per-task table: the session's starter is in the
 *	       initial pid namespace, as the ids of its samples then are
 *
 * The promotion hint's table of each node of the far or CXL tier with
 * memory now (a node that gets memory later has none), and the per-task
 * table, made here, in the starter's context, so that ksamplingd does not
 * allocate them under the results' lock.
 *
 * Context: process; may sleep.
 * Return: 0 or -ENOMEM.
 */
int embm_stats_prepare(struct embm_stats *st, unsigned int max_tasks, bool tasks)
{
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		struct embm_node_stats *ns = &st->node[nid];

		if (nid >= st->nr_nodes || st->tier[nid] == EMBM_TIER_DRAM || ns->hint)
			continue;
		ns->hint = embm_hot_alloc(EMBM_HINT_PAGES);
		if (!ns->hint)
			return -ENOMEM;
		st->bytes += embm_hot_bytes(ns->hint);
	}
	if (!tasks)
		return 0;
	st->tasks = embm_tasks_alloc(max_tasks);
	return st->tasks ? 0 : -ENOMEM;
}

/**
 * embm_stats_bytes() - the memory the statistics take now
 * @st: the statistics; caller holds st->lock
 *
 * Return: @st->bytes and the per-task table's.
 */
size_t embm_stats_bytes(const struct embm_stats *st)
{
	return st->bytes + (st->tasks ? embm_tasks_bytes(st->tasks) : 0);
}

/* Free statistics from embm_stats_alloc_nodes(), or NULL. */
static void embm_stats_free(struct embm_stats *st)
{
	int nid;

	if (!st)
		return;
	if (st->node) {
		for (nid = 0; nid < st->nr_nodes; nid++) {
			kvfree(st->node[nid].pages);
			embm_hot_free(st->node[nid].hint);
		}
	}
	embm_tasks_free(st->tasks);
	embm_hot_free(st->hot);
	kvfree(st->matrix);
	kvfree(st->node);
	kvfree(st->cpu_node);
	kvfree(st->tier);
	mutex_destroy(&st->lock);
	kfree(st);
}

static void embm_stats_release(struct kref *ref)
{
	embm_stats_free(container_of(ref, struct embm_stats, ref));
}

/**
 * embm_stats_get() - take a reference to the statistics
 * @st: the statistics, with a reference held by the caller
 *
 * Context: any.
 */
void embm_stats_get(struct embm_stats *st)
{
	kref_get(&st->ref);
}

/**
 * embm_stats_put() - drop a reference; the last one frees the statistics
 * @st: the statistics, or NULL
 *
 * Context: process; may sleep.
 */
void embm_stats_put(struct embm_stats *st)
{
	if (st)
		kref_put(&st->ref, embm_stats_release);
}

/**
 * embm_stats_attributed() - samples attributed to a node, all nodes
 * @st: the statistics; caller holds st->lock
 *
 * Return: the sum of the nodes' samples.
 */
u64 embm_stats_attributed(const struct embm_stats *st)
{
	u64 sum = 0;
	int nid;

	for (nid = 0; nid < st->nr_nodes; nid++)
		sum += st->node[nid].samples;
	return sum;
}

/**
 * embm_mul_div_sat() - @a * @b / @c, U64_MAX where it does not fit
 * @a: a factor
 * @b: the other
 * @c: the divisor, not 0
 *
 * x86's divq would fault where mul_u64_u64_div_u64() does not fit.
 *
 * Context: any.
 * Return: the quotient, or U64_MAX.
 */
u64 embm_mul_div_sat(u64 a, u64 b, u64 c)
{
	if (mul_u64_u64_shr(a, b, 64) >= c)
		return U64_MAX;
	return mul_u64_u64_div_u64(a, b, c);
}

/**
 * embm_stats_scale() - one kind's estimate, scaled as perf's count says
 * @est: accesses of one kind's samples: the sum of their periods (times
 *	 the base pages each covers)
 * @ks:	 what perf says of that kind (the sampler's status)
 *
 * Scaled by the kind's time_enabled / time_running as perf stat scales a
 * multiplexed count: a kind that was on the PMU half the time it was
 * enabled stands for twice its samples.  A kind never on the PMU has no
 * samples to scale.  The time it ran throttled (@throttled_ns) is taken
 * out of its time running first, which then counts for at least
 * 1/EMBM_THROTTLE_MAX of itself: perf leaves a throttled event on the
 * PMU, taking no samples.  An estimate that would not fit in a u64 is
 * U64_MAX.
 *
 * A kind whose samples carry no period in their record (@by_count:
 * software events, whose period the direct handler queues) is calibrated
 * to perf's own count instead: times (@count - @lost_read) / @weight,
 * the events of all its samples when the count was read.  The events
 * after the last sample, and those a shortened period left out
 * (__perf_kernel_swevent_period()), are in no sample: the calibration puts
 * the total back to what perf counted.  Lost samples are left out (their
 * addresses, and so their nodes, are not known): they are reported apart.
 * Live, the factor is that of the last read (about a second old).
 *
 * Context: any.
 * Return: the estimate.
 */
u64 embm_stats_scale(u64 est, const struct embm_kind_stats *ks)
{
	u64 ran, whole;

	if (!est)
		return 0;
	if (ks->by_count) {
		if (ks->weight && ks->count > ks->lost_read)
			est = embm_mul_div_sat(est, ks->count - ks->lost_read, ks->weight);
		return est;
	}
	if (!ks->running)
		return est;
	/*
	 * The time it ran throttled took no samples (embm_drain_throttle()):
	 * its samples stand for running / (running - throttled) times as
	 * many, at most EMBM_THROTTLE_MAX times (records that do not fit,
	 * a tick credited too many).  Then multiplexing, if it ran less
	 * than it was enabled.
	 */
	ran = max3(ks->running - min(ks->throttled_ns, ks->running),
		   ks->running / EMBM_THROTTLE_MAX, 1ULL);
	whole = max(ks->enabled, ks->running);
	if (ran < whole)
		est = embm_mul_div_sat(est, whole, ran);
	return est;
}

/* Sum of @per_kind scaled kind by kind (embm_stats_scale()). */
static u64 embm_stats_scaled_sum(const u64 *per_kind, const struct embm_kind_stats *kinds,
				 int nr_kinds)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < min(nr_kinds, EMBM_MAX_EVENTS); k++)
		sum += embm_stats_scale(per_kind[k], &kinds[k]);
	return sum;
}

/**
 * embm_stats_share_part() - the part of a node's estimate its share is of
 * @ns:	       a node of the statistics; caller holds their lock
 * @share_mem: the source's share_mem
 * @kinds:     what perf says of each kind of event (the sampler's status)
 * @nr_kinds:  how many
 *
 * For a source whose every sample has a data source (IBS), the estimated
 * accesses served by memory; for the others, those
 * not served by a cache (all of them, for sources without a data source):
 * each sample weighted by its period, so that the shares stay right when
 * the period moves during a session, and each kind scaled as
 * embm_stats_scale() says.
 *
 * Return: the estimate.
 */
u64 embm_stats_share_part(const struct embm_node_stats *ns, bool share_mem,
			  const struct embm_kind_stats *kinds, int nr_kinds)
{
	return embm_stats_scaled_sum(share_mem ? ns->kind_mem : ns->kind_accesses,
				     kinds, nr_kinds);
}

/**
 * embm_stats_share_basis() - what the node shares are computed over
 * @st:	       the statistics; caller holds st->lock
 * @share_mem: the source's share_mem
 * @kinds:     what perf says of each kind of event (the sampler's status)
 * @nr_kinds:  how many
 *
 * Return: the sum over the nodes of embm_stats_share_part().
 */
u64 embm_stats_share_basis(const struct embm_stats *st, bool share_mem,
			   const struct embm_kind_stats *kinds, int nr_kinds)
{
	u64 sum = 0;
	int nid;

	for (nid = 0; nid < st->nr_nodes; nid++)
		sum += embm_stats_share_part(&st->node[nid], share_mem, kinds, nr_kinds);
	return sum;
}

/**
 * embm_stats_node_accesses() - a node's estimated accesses
 * @ns:	      a node of the statistics; caller holds their lock
 * @kinds:    what perf says of each kind of event (the sampler's status)
 * @nr_kinds: how many
 *
 * Return: the sum over the kinds of their accesses on the node, each
 * scaled by embm_stats_scale().
 */
u64 embm_stats_node_accesses(const struct embm_node_stats *ns,
			     const struct embm_kind_stats *kinds, int nr_kinds)
{
	return embm_stats_scaled_sum(ns->kind_accesses, kinds, nr_kinds);
}

/**
 * embm_stats_user_accesses() - a node's estimated accesses in user mode
 * @ns:	      a node of the statistics; caller holds their lock
 * @kinds:    what perf says of each kind of event (the sampler's status)
 * @nr_kinds: how many
 *
 * The part of embm_stats_node_accesses() that samples taken in user mode
 * stand for, scaled alike; the rest is the kernel's.
 *
 * Return: the estimate.
 */
u64 embm_stats_user_accesses(const struct embm_node_stats *ns,
			     const struct embm_kind_stats *kinds, int nr_kinds)
{
	return embm_stats_scaled_sum(ns->kind_user, kinds, nr_kinds);
}

/* Sum of @sq scaled kind by kind twice: variances scale with the square. */
static u64 embm_stats_scaled_var(const u64 *sq, const struct embm_kind_stats *kinds,
				 int nr_kinds)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < min(nr_kinds, EMBM_MAX_EVENTS); k++) {
		/* Saturated stays so: a factor below 1 must not make it a figure. */
		if (sq[k] == U64_MAX)
			return U64_MAX;
		sum = embm_add_sat(sum, embm_stats_scale(embm_stats_scale(sq[k], &kinds[k]),
							 &kinds[k]));
	}
	return sum;
}

/**
 * embm_stats_share_var() - the variance of embm_stats_share_part()
 * @ns:	       a node of the statistics; caller holds their lock
 * @share_mem: the source's share_mem
 * @kinds:     what perf says of each kind of event (the sampler's status)
 * @nr_kinds:  how many
 *
 * Each sample is taken as a draw that picks each of its period's events
 * with probability 1/period, independently, and stands for its pages
 * each time: the estimate's variance is then estimated by the sum of
 * period (period - 1) pages^2 (Horvitz and Thompson's under Poisson
 * sampling; 0 at period 1, where every event is a sample), each kind's
 * scaled by the square of its multiplexing factor.  The draws of sources that randomise
 * the period are close to this; a fixed period on a loop that strides
 * with it is not (see Documentation/admin-guide/mm/embm.rst).
 *
 * Return: the variance, in accesses squared; U64_MAX when it overflows.
 */
u64 embm_stats_share_var(const struct embm_node_stats *ns, bool share_mem,
			 const struct embm_kind_stats *kinds, int nr_kinds)
{
	return embm_stats_scaled_var(share_mem ? ns->kind_mem_sq : ns->kind_sq, kinds,
				     nr_kinds);
}

/**
 * embm_stats_accesses_var() - the variance of embm_stats_node_accesses()
 * @ns:	      a node of the statistics; caller holds their lock
 * @kinds:    what perf says of each kind of event (the sampler's status)
 * @nr_kinds: how many
 *
 * As embm_stats_share_var(), of every access not served by a cache.
 *
 * Return: the variance; U64_MAX when it overflows.
 */
u64 embm_stats_accesses_var(const struct embm_node_stats *ns,
			    const struct embm_kind_stats *kinds, int nr_kinds)
{
	return embm_stats_scaled_var(ns->kind_sq, kinds, nr_kinds);
}

/*
 * z of a two-sided 95% normal interval (1.96), its half and its square,
 * scaled by 10^4.
 */
#define EMBM_Z_E4	19600ULL
#define EMBM_Z_HALF_E4	9800ULL
#define EMBM_Z2_E4	38416ULL
#define EMBM_E4		10000ULL

/**
 * embm_stats_share_interval() - a 95% interval of a share
 * @x:	the part's estimate (embm_stats_share_part())
 * @vx:	its variance (embm_stats_share_var())
 * @t:	the whole's estimate, at least @x (embm_stats_share_basis())
 * @vt:	its variance, at least @vx: the sum of the nodes'
 * @lo:	the lower bound, in parts per 10^9 (EMBM_PPB)
 * @hi:	the upper bound, likewise
 *
 * The Wilson score interval, with the binomial variance p(1-p)/n replaced
 * by the delta method's of the ratio x/t, which weighs each draw by its
 * weight: (vx (1-p)^2 + (vt-vx) p^2) / t^2, the part and the rest taken
 * as independent; and n by the effective number of draws, t^2/vt.  With
 * every weight the same, this is Wilson's interval exactly.  Unlike the
 * normal one it is not empty at a share of 0: a node without samples
 * still gets an upper bound, about 3.84/n.  Without any estimate, or with
 * a variance that overflowed (U64_MAX), 0 to 1; for a census (@vt 0), the
 * share itself.
 *
 * Context: any.
 */
void embm_stats_share_interval(u64 x, u64 vx, u64 t, u64 vt, u64 *lo, u64 *hi)
{
	u64 rest, var, sd2, e, p, z2e, d, c, h;

	*lo = 0;
	*hi = EMBM_PPB;
	if (!t || x > t || vt == U64_MAX)
		return;		/* no estimate, or its variance unknown */
	if (!vt) {
		/* A census: every event a sample, the share exact. */
		*lo = *hi = embm_mul_div_sat(x, EMBM_PPB, t);
		return;
	}
	vx = min(vx, vt);
	rest = t - x;
	/* The delta method's variance of x/t, times t^2; then in ppb squared. */
	var = embm_add_sat(embm_mul_div_sat(embm_mul_div_sat(vx, rest, t), rest, t),
			   embm_mul_div_sat(embm_mul_div_sat(vt - vx, x, t), x, t));
	sd2 = embm_mul_div_sat(embm_mul_div_sat(var, EMBM_PPB, t), EMBM_PPB, t);
	/* 1/n in ppb: vt/t^2, without t^2 (which may not fit). */
	e = embm_mul_div_sat(vt, EMBM_PPB, t);
	e = e == U64_MAX ? embm_mul_div_sat(div64_u64(vt, t), EMBM_PPB, t) : div64_u64(e, t);
	if (e >= EMBM_PPB || sd2 > EMBM_PPB * EMBM_PPB)
		return;	/* fewer than one draw's worth: nothing is known */
	p = embm_mul_div_sat(x, EMBM_PPB, t);
	z2e = div64_u64(e * EMBM_Z2_E4, EMBM_E4);
	d = EMBM_PPB + z2e;
	c = div64_u64((p + z2e / 2) * EMBM_PPB, d);
	e = div64_u64(e * EMBM_Z_HALF_E4, EMBM_E4);
	h = int_sqrt64(sd2 + e * e);
	h = div64_u64(div64_u64(h * EMBM_Z_E4, EMBM_E4) * EMBM_PPB, d);
	/* Wilson's bounds hold the share between them; rounding may not. */
	*lo = min(c > h ? c - h : 0, p);
	*hi = max(min(c + h, EMBM_PPB), p);
}

/**
 * embm_stats_count_interval() - a 95% interval of an estimated count
 * @x:	the estimate (embm_stats_node_accesses())
 * @vx:	its variance (embm_stats_accesses_var())
 * @t:	every node's estimate, for the weight of a draw where @x has none
 * @vt:	its variance
 * @lo:	the lower bound
 * @hi:	the upper bound
 *
 * The score interval of a Poisson count, c + z^2/2 +- z sqrt(c + z^2/4),
 * in effective draws c = x^2/vx of weight w = vx/x: x + w z^2/2 +-
 * z sqrt(vx + w^2 z^2/4).  Where @x has no draw, w is the mean weight of
 * all of them: the upper bound is then about 3.84 draws' worth.  For a
 * census (@vt 0), @x itself; for a variance that overflowed, 0 to U64_MAX.
 *
 * Context: any.
 */
void embm_stats_count_interval(u64 x, u64 vx, u64 t, u64 vt, u64 *lo, u64 *hi)
{
	unsigned int sh = 8;	/* in 1/256ths of an access where they fit */
	u64 w, c, h, wz;

	*lo = 0;
	*hi = 0;
	if (!t)
		return;
	if (vx == U64_MAX || vt == U64_MAX) {
		*hi = U64_MAX;	/* its variance unknown */
		return;
	}
	if (!vt) {
		*lo = *hi = x;	/* a census */
		return;
	}
	if (x > U64_MAX >> 10 || vx > U64_MAX >> 18 || vt > U64_MAX >> 18)
		sh = 0;
again:
	/* The mean weight of the draws behind @x, or without any, of all. */
	w = x && vx ? embm_mul_div_sat(vx, 1ULL << sh, x) : embm_mul_div_sat(vt, 1ULL << sh, t);
	w = max(w, 1ULL << sh);
	if (sh && w > U32_MAX >> 1) {
		sh = 0;
		goto again;
	}
	wz = embm_mul_div_sat(w, EMBM_Z_HALF_E4, EMBM_E4);
	c = embm_add_sat(x << sh, embm_mul_div_sat(w, EMBM_Z2_E4 / 2, EMBM_E4));
	h = embm_mul_div_sat(int_sqrt64(embm_add_sat(vx << (2 * sh), embm_sq_sat(wz))),
			     EMBM_Z_E4, EMBM_E4);
	*lo = c > h ? (c - h) >> sh : 0;
	*hi = embm_add_sat(c, h);
	*hi = *hi == U64_MAX ? U64_MAX : (*hi + (1ULL << sh) - 1) >> sh;
}

/**
 * embm_stats_lat_mean() - a node's mean latency, weighted by the periods
 * @ns: a node of the statistics; caller holds their lock
 *
 * Each latency sample stands for its period's accesses, as in the other
 * estimates.
 *
 * Return: the mean in cycles, 0 without latency samples.
 */
u64 embm_stats_lat_mean(const struct embm_node_stats *ns)
{
	return ns->lat_weight ? div64_u64(ns->lat_sum, ns->lat_weight) : 0;
}

/**
 * embm_stats_kind_weights() - the sum of the periods of each kind's samples
 * @st:	      the statistics
 * @weight:   room for @nr_kinds sums
 * @nr_kinds: how many kinds, at most EMBM_MAX_EVENTS
 *
 * Context: process; takes st->lock.
 */
void embm_stats_kind_weights(struct embm_stats *st, u64 *weight, int nr_kinds)
{
	mutex_lock(&st->lock);
	memcpy(weight, st->kind_weight, clamp(nr_kinds, 0, EMBM_MAX_EVENTS) * sizeof(*weight));
	mutex_unlock(&st->lock);
}

/**
 * embm_stats_node_order() - the nodes of the reports, in report order
 * @st:	   the statistics; caller holds st->lock
 * @study: the node under study (first), or NUMA_NO_NODE
 * @order: room for st->nr_nodes node ids
 *
 * Every node present (with memory at start, or a sample since), so that
 * the per-node samples add up to embm_stats_attributed().
 *
 * Return: how many nodes were put in @order.
 */
int embm_stats_node_order(const struct embm_stats *st, int study, int *order)
{
	int nid, n = 0;

	if (study >= 0 && study < st->nr_nodes && st->node[study].present)
		order[n++] = study;
	for (nid = 0; nid < st->nr_nodes; nid++) {
		if (st->node[nid].present && nid != study)
			order[n++] = nid;
	}
	return n;
}

/**
 * embm_stats_device() - samples on device pages in the CXL windows
 * @st: the statistics; caller holds st->lock
 *
 * Return: the sum of the windows' device counts: samples on no node.
 */
u64 embm_stats_device(const struct embm_stats *st)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < st->nr_win; i++)
		sum += st->win[i].device;
	return sum;
}

/**
 * embm_lat_bucket() - the log2 histogram bucket of a latency
 * @cycles: latency in cycles; 0 and 1 go to bucket 0
 *
 * Return: ilog2(@cycles), at most EMBM_LAT_BUCKETS - 1.
 */
static unsigned int embm_lat_bucket(u64 cycles)
{
	return cycles ? min_t(unsigned int, ilog2(cycles), EMBM_LAT_BUCKETS - 1) : 0;
}

/* Pages a sample's mapping covers, at most this many (4 GiB): a bound for the sums. */
#define EMBM_SAMPLE_PAGES_MAX	BIT(20)

/*
 * Mark the base pages of a sample's mapping, @nr from the one of @pfn
 * (aligned down to @nr, a power of two, at most EMBM_SAMPLE_PAGES_MAX), in
 * @ns's page bitmap, if it has one: a 1 GiB page marks 2^18 bits, a
 * quarter of it, in about a millisecond.  Caller holds st->lock (a mutex):
 * may yield.
 */
/* Set bit @bit of @ns's bitmap, zeroing its chunk first if it is new. */
static void embm_stats_set_page_bit(struct embm_node_stats *ns, unsigned int bit)
{
	unsigned int chunk = bit >> EMBM_CHUNK_BITS;

	if (!(ns->pages_zeroed & BIT(chunk))) {
		bitmap_zero(ns->pages + chunk * EMBM_CHUNK_LONGS, 1U << EMBM_CHUNK_BITS);
		ns->pages_zeroed |= BIT(chunk);
	}
	__set_bit(bit, ns->pages);
}

static void embm_stats_mark_pages(struct embm_node_stats *ns, u64 pfn, u32 nr)
{
	u64 first = pfn & ~((u64)nr - 1);
	u32 i;

	if (!ns->pages)
		return;
	if (nr == 1) {
		embm_stats_set_page_bit(ns, embm_page_bit(pfn));
		return;
	}
	for (i = 0; i < nr; i++) {
		embm_stats_set_page_bit(ns, embm_page_bit(first + i));
		if ((i & 4095) == 4095)
			cond_resched();
	}
}

/*
 * Add @s's latency, if it has one, to node @ns, or count why not
 * (embm_lat_drop()).  Caller holds the lock of @ns's struct embm_stats.
 */
static void embm_node_add_latency(struct embm_node_stats *ns,
				  const struct embm_sample *s, u64 period)
{
	int drop;

	if (!s->weight)
		return;
	drop = embm_lat_drop(s->data_src);
	if (drop >= 0) {
		ns->lat_dropped[drop]++;
		return;
	}
	ns->lat_samples++;
	ns->lat_weight += period;
	ns->lat_sum += s->weight * period;
	ns->lat_hist[embm_lat_bucket(s->weight)] += period;
}

/*
 * The node of @s's page for a latency-only sample (another event counts
 * the access, and counts it where it lands), or NULL: no address, not a
 * node's System RAM, or a memory hotplug operation under way.  Caller
 * holds st->lock.
 */
static struct embm_node_stats *__embm_stats_lat_node(struct embm_stats *st,
						     const struct embm_sample *s)
{
	int nid;

	lockdep_assert_held(&st->lock);
	if (!s->phys || !s->weight)
		return NULL;
	nid = embm_pfn_nid(PHYS_PFN(s->phys));
	if (nid < 0 || nid >= st->nr_nodes)
		return NULL;
	if (unlikely(!st->node[nid].present))
		__embm_stats_add_node(st, nid);
	return &st->node[nid];
}

/*
 * The node of @s's page, made present if it had no memory at start; or
 * NUMA_NO_NODE, with @s counted where it belongs instead: without an
 * address, during a memory hotplug operation, on a CXL window's device
 * pages, or on no System RAM of a node of @st.  Caller holds st->lock.
 */
static int __embm_stats_place(struct embm_stats *st, const struct embm_sample *s)
{
	struct embm_window *win;
	int nid;

	lockdep_assert_held(&st->lock);
	if (!s->phys) {
		st->no_phys++;
		return NUMA_NO_NODE;
	}
	nid = embm_pfn_nid(PHYS_PFN(s->phys));
	if (unlikely(nid == -EBUSY)) {
		/* Its page may be going away: placed nowhere, counted apart. */
		st->hotplug_busy++;
		return NUMA_NO_NODE;
	}
	if (nid < 0 || nid >= st->nr_nodes) {
		win = embm_window_find(st, s->phys);
		if (win && nid == NUMA_NO_NODE) {
			win->samples++;
			win->device++;
		} else {
			st->bad_pfn++;
		}
		return NUMA_NO_NODE;
	}
	if (unlikely(!st->node[nid].present))
		__embm_stats_add_node(st, nid);
	return nid;
}

/*
 * The variance a sample adds to its estimate: a draw that picks each of
 * @period events with chance 1/@period and stands for @pages each time
 * (Horvitz and Thompson's under Poisson sampling): period (period - 1)
 * pages^2, 0 for a census (period 1).  U64_MAX where it does not fit.
 */
static u64 embm_draw_var(u64 period, u32 pages)
{
	u64 v;

	if (check_mul_overflow(period, period - 1, &v) ||
	    check_mul_overflow(v, (u64)pages * pages, &v))
		return U64_MAX;
	return v;
}

/*
 * The accesses a sample that no cache served stands for, @weight, on node
 * @nid: by kind (and those @mem served, as its data source says), and in
 * the matrix by the node of the CPU that took it; its load and store
 * counts too; and @var, the variance it adds (embm_draw_var()).  Caller
 * holds st->lock.
 */
static void __embm_stats_add_accesses(struct embm_stats *st, int nid,
				      const struct embm_sample *s, int kind,
				      enum embm_op op, bool mem, u64 weight, u64 var)
{
	struct embm_node_stats *ns = &st->node[nid];
	int cnid;

	lockdep_assert_held(&st->lock);
	if (mem)
		ns->mem++;
	ns->accesses += weight;
	if (kind >= 0 && kind < EMBM_MAX_EVENTS) {
		u64 sq = var;

		ns->kind_accesses[kind] += weight;
		ns->kind_sq[kind] = embm_add_sat(ns->kind_sq[kind], sq);
		if (s->user)
			ns->kind_user[kind] += weight;
		if (mem) {
			ns->kind_mem[kind] += weight;
			ns->kind_mem_sq[kind] = embm_add_sat(ns->kind_mem_sq[kind], sq);
		}
	}
	if (op & EMBM_OP_LOAD)
		ns->loads++;
	if (op & EMBM_OP_STORE)
		ns->stores++;

	cnid = s->cpu < nr_cpu_ids ? st->cpu_node[s->cpu] : NUMA_NO_NODE;
	if (cnid >= 0 && cnid < st->nr_nodes)
		st->matrix[cnid * st->nr_nodes + nid] += weight;
}

/*
 * Add a sample's page to the promotion hint of node @nid, if it has one
 * (embm_stats_prepare()).  Caller holds st->lock.
 */
static void __embm_stats_add_hint(struct embm_stats *st, int nid, u64 pfn, u64 period)
{
	struct embm_node_stats *ns = &st->node[nid];

	lockdep_assert_held(&st->lock);
	if (!ns->hint)
		return;
	embm_hot_add(ns->hint, pfn, period);
	ns->hint_weight += period;
	ns->hint_sq = embm_add_sat(ns->hint_sq, embm_draw_var(period, 1));
}

/**
 * embm_stats_add() - count one sample
 * @st:	  the statistics; caller holds st->lock
 * @s:	  the sample
 * @kind: index of the event kind that took it, < EMBM_MAX_EVENTS
 * @op:	  load, store, both or unknown
 * @latency_only: add to latency only; another event counts the access
 *
 * A sample whose address lies in a CXL window counts in that window too,
 * and in its node's cxl count; one on a page that is not online System RAM
 * there (a device's) counts in the window alone.  A latency-only sample
 * counts in @st->latency_only and adds to its node's latency, if it has
 * one, and nothing else: the event that counts the access counts it
 * where it lands.  So every sample counts in exactly one of the terms of
 * embm_stats_identity_ok().  A sample that a data source says a cache
 * served counts in the node's samples, pages and cache count only.  A
 * latency counts unless a cache, I/O or an uncached access served it
 * (embm_lat_drop(), which the node's lat_dropped counts by reason).
 *
 * The estimates (accesses, the matrix, the hot pages' counts, the
 * promotion hint of a far or CXL node, the latency mean and histogram)
 * weigh the sample by its period, times the base
 * pages it covers (@s->pages, a power of two: a 2 MiB fault's 512) for
 * accesses and the matrix: a page fault that maps 512 pages stands for
 * 512 first touches.  The hot-page and hint tables count the sample's
 * own page.
 *
 * Context: ksamplingd (process), st->lock held; may sleep, the first time
 * a node that had no memory at start gets a sample, and the first sample
 * after memory went online or offline anywhere (the windows are scanned
 * again).
 */
void embm_stats_add(struct embm_stats *st, const struct embm_sample *s,
		    int kind, enum embm_op op, bool latency_only)
{
	enum embm_served served = embm_served_by(s->data_src);
	u32 nr = clamp_t(u32, s->pages, 1, EMBM_SAMPLE_PAGES_MAX);
	u64 period = s->period ?: 1;
	struct embm_node_stats *ns;
	struct embm_window *win;
	int nid;

	lockdep_assert_held(&st->lock);

	st->samples++;
	if (kind >= 0 && kind < EMBM_MAX_EVENTS) {
		st->kind_samples[kind]++;
		if (!latency_only)
			st->kind_weight[kind] += period;
	}
	/* Memory came or went: the windows' nodes and tiers may have changed. */
	__embm_tier_update(st);
	if (latency_only) {
		st->latency_only++;
		ns = __embm_stats_lat_node(st, s);
		if (ns)
			embm_node_add_latency(ns, s, period);
		return;
	}
	nid = __embm_stats_place(st, s);
	if (nid == NUMA_NO_NODE)
		return;

	ns = &st->node[nid];
	win = embm_window_find(st, s->phys);
	embm_node_add_latency(ns, s, period);
	ns->samples++;
	if (s->user)
		ns->user_samples++;
	ns->page_samples += nr;
	if (win) {
		win->samples++;
		ns->cxl++;
	}
	embm_stats_mark_pages(ns, PHYS_PFN(s->phys), nr);
	if (served == EMBM_SERVED_CACHE) {
		ns->cache++;
		st->cache++;
		if (st->tasks)
			embm_tasks_add(st->tasks, s->pid, s->tid, nid, 0, s->user, win);
		return;
	}
	if (st->tasks)
		embm_tasks_add(st->tasks, s->pid, s->tid, nid, period * nr, s->user, win);
	__embm_stats_add_accesses(st, nid, s, kind, op, served == EMBM_SERVED_MEM, period * nr,
				  embm_draw_var(period, nr));
	embm_hot_add(st->hot, PHYS_PFN(s->phys), period);
	__embm_stats_add_hint(st, nid, PHYS_PFN(s->phys), period);
}

/* log2(@v) in 32.32 fixed point, for @v >= 1; good to about 2^-28. */
static u64 embm_log2_q32(u32 v)
{
	unsigned int ip = ilog2(v), i;
	u64 y = ((u64)v << 31) >> ip;	/* v / 2^ip in Q31: [2^31, 2^32) */
	u64 frac = 0;

	/* Square and compare: each round gives one more bit of the fraction. */
	for (i = 0; i < 32; i++) {
		y = (y * y) >> 31;
		frac <<= 1;
		if (y >= (1ULL << 32)) {
			y >>= 1;
			frac |= 1;
		}
	}
	return ((u64)ip << 32) | frac;
}

#define EMBM_LN2_Q32	2977044472ULL	/* ln 2 * 2^32 */

/**
 * embm_stats_distinct_pages() - distinct pages seen on a node, estimated
 * @ns: the node's statistics
 *
 * Linear counting (Whang et al.): with m bits of which z are still zero
 * after hashing every pfn, about m * ln(m / z) distinct pfns were seen.
 * With m = 2^20 the estimate is within 1% up to about a million pages; a
 * full bitmap reports m * ln(m), a floor.  It is never more than the base
 * pages the samples covered (@page_samples): the estimate's error, which
 * may run a little high, never shows more pages than samples of 4 KiB.
 *
 * Return: the estimate; 0 without a bitmap or with nothing seen.
 */
u64 embm_stats_distinct_pages(const struct embm_node_stats *ns)
{
	const unsigned int m = 1U << EMBM_PAGES_BITS;
	unsigned int z = m, c;
	u64 ln_q32;

	if (!ns->pages)
		return 0;
	/* Chunks never zeroed have no bit set. */
	for (c = 0; c < EMBM_PAGES_CHUNKS; c++) {
		if (ns->pages_zeroed & BIT(c))
			z -= bitmap_weight(ns->pages + c * EMBM_CHUNK_LONGS, 1U << EMBM_CHUNK_BITS);
	}
	if (z == m)
		return 0;
	z = max(z, 1U);
	ln_q32 = mul_u64_u64_shr(embm_log2_q32(m) - embm_log2_q32(z), EMBM_LN2_Q32, 32);
	return min(((u64)m * ln_q32 + (1ULL << 31)) >> 32, ns->page_samples);
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/stats-kunit.h"
#endif
