// SPDX-License-Identifier: GPL-2.0
/*
 * embm: draining, the records and direct samples of each CPU into the
 * results
 *
 * Each CPU's ring buffer holds its events' PERF_RECORD_*; its direct
 * queue (direct.c) the samples of its direct events.  A drain reads both
 * into the results (embm_stats_add()) under their lock, and keeps the
 * sampler's status of lost, throttled and unparsable records.  ksamplingd
 * drains every round; the stop, and ksamplingd before a period changes,
 * drain too.  Every function here runs with the sampler's lock held.
 */

#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched/clock.h>
#include <linux/xarray.h>

#include "direct.h"
#include "record.h"
#include "sampler.h"
#include "sampler-internal.h"
#include "stats.h"

/* An event throttled at @time (below 2^60 ns) of kind @kind, in @throttles. */
#define EMBM_THROTTLE_MARK(time, kind)	xa_mk_value(((time) << 3) | (kind))
#define EMBM_THROTTLE_TIME(entry)	(xa_to_value(entry) >> 3)
#define EMBM_THROTTLE_KIND(entry)	(xa_to_value(entry) & 7)
static_assert(EMBM_MAX_EVENTS <= 8);

/*
 * A THROTTLE or UNTHROTTLE record: perf stopped an event that sampled too
 * often in a tick (perf_event_max_sample_rate), or started it again.  A
 * throttled event stays active, so its time running grows while it takes
 * no samples; each interval is added to its kind's throttled_ns, which
 * embm_stats_scale() takes out of the time running.  perf unthrottles at
 * the next tick of its CPU, or, for a thread's event scheduled out in
 * between, when it is scheduled in again: an interval is capped at a tick,
 * the most the event can have run throttled (exact when the tick ended
 * it; at most a tick too much when the thread slept).  A record lost with
 * a full buffer leaves its interval out.  Caller holds s->lock; may sleep.
 */
static void embm_drain_throttle(struct embm_sampler *s, const struct perf_event_header *hdr)
{
	u64 time, id, stream;
	void *entry, *old;
	int kind;

	if (embm_parse_throttle(hdr, &time, &id, &stream)) {
		s->status.bad_records++;
		return;
	}
	entry = xa_load(&s->ids, id);
	if (!entry) {
		s->status.bad_records++;
		return;
	}
	kind = xa_to_value(entry);
	if (hdr->type == PERF_RECORD_THROTTLE) {
		s->status.throttled++;
		/*
		 * Without memory the interval is not corrected for: no
		 * reclaim with the results' lock held, where readers wait.
		 */
		if (time < BIT_ULL(60))
			xa_store(&s->throttles, stream, EMBM_THROTTLE_MARK(time, kind),
				 GFP_NOWAIT | __GFP_ACCOUNT | __GFP_NOWARN);
		return;
	}
	s->status.unthrottled++;
	old = xa_erase(&s->throttles, stream);
	if (old && time > EMBM_THROTTLE_TIME(old))
		s->throttled_ns[kind] += min_t(u64, time - EMBM_THROTTLE_TIME(old), TICK_NSEC);
}

/*
 * Events throttled more than a tick ago whose UNTHROTTLE has not come: an
 * inherited child that exited throttled, an event closed throttled, or a
 * thread that has not run since.  Each ran throttled at most a tick: that
 * is credited now and the entry dropped, so that @throttles holds only
 * the events throttled in the last tick.  The record times are perf's
 * clock, local_clock() (embm sets no clockid).  Caller holds s->lock.
 */
void __embm_throttle_sweep(struct embm_sampler *s)
{
	u64 now = local_clock();
	unsigned long stream;
	void *entry;

	lockdep_assert_held(&s->lock);
	xa_for_each(&s->throttles, stream, entry) {
		/* Signed: another CPU's clock may be a little ahead. */
		if ((s64)(now - EMBM_THROTTLE_TIME(entry)) <= (s64)TICK_NSEC)
			continue;
		s->throttled_ns[EMBM_THROTTLE_KIND(entry)] += TICK_NSEC;
		xa_erase(&s->throttles, stream);
	}
}

static void embm_drain_record(const struct perf_event_header *hdr, void *arg)
{
	struct embm_sampler *s = arg;
	struct embm_sampler_status *ss = &s->status;
	const struct embm_event_desc *d;
	struct embm_sample sample;
	enum embm_op op;
	void *entry;
	u64 n;

	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		entry = xa_load(&s->ids, embm_record_id(hdr));
		if (!entry) {
			ss->bad_records++;
			return;
		}
		d = &s->descs[xa_to_value(entry)];
		if (d->lead || embm_parse_sample(hdr, d->attr.sample_type, &sample)) {
			ss->bad_records++;
			return;
		}
		/*
		 * Without PERF_SAMPLE_PERIOD (software events, which perf
		 * samples on every event when it is asked for), the period in
		 * force: ksamplingd drains every buffer before it changes one.
		 */
		if (!(d->attr.sample_type & PERF_SAMPLE_PERIOD))
			sample.period = d->store ? ss->store_period : ss->period;
		op = d->op;
		if (op == EMBM_OP_ANY && s->src->op_of)
			op = s->src->op_of(&sample);
		embm_stats_add(s->st, &sample, d - s->descs, op, d->latency_only);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (embm_parse_lost(hdr, &n))
			ss->bad_records++;
		else
			ss->lost += n;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		embm_drain_throttle(s, hdr);
		break;
	default:
		ss->other++;
		break;
	}
}

struct embm_drain_direct {
	struct embm_sampler *s;
	int cpu;
};

/* A direct sample (struct embm_direct_sample), read by embm_direct_read(). */
static void embm_drain_direct(const struct embm_direct_sample *ds, void *arg)
{
	struct embm_drain_direct *dd = arg;
	struct embm_sampler *s = dd->s;
	const struct embm_event_desc *d;
	struct embm_sample sample = {
		.phys = ds->phys, .cpu = dd->cpu, .user = ds->user, .pid = ds->pid,
		.tid = ds->tid, .data_src = ds->data_src, .weight = ds->weight,
	};
	enum embm_op op;

	if (ds->kind >= s->nr_descs || !s->descs[ds->kind].direct) {
		s->status.bad_records++;
		return;
	}
	d = &s->descs[ds->kind];
	s->status.direct_samples++;
	sample.period = ds->period ?: d->store ? s->status.store_period : s->status.period;
	/* At most 4 GiB (order 20): period (< 2^40) x pages stays in a u64. */
	sample.pages = d->maps_pages ? 1U << min(ds->order, 20U) : 1;
	op = d->op;
	if (op == EMBM_OP_ANY && s->src->op_of)
		op = s->src->op_of(&sample);
	embm_stats_add(s->st, &sample, ds->kind, op, d->latency_only);
}

/*
 * Count the samples a direct queue dropped, by kind, each standing for the
 * period in force (as a sample read now would).  Caller holds s->lock.
 */
static void embm_count_direct_lost(struct embm_sampler *s, struct embm_direct *dq)
{
	u64 lost[EMBM_MAX_EVENTS] = {};
	int k;

	s->status.lost += embm_direct_lost(dq, lost);
	for (k = 0; k < s->nr_descs; k++) {
		struct embm_kind_stats *ks = &s->status.kind[k];

		if (!lost[k])
			continue;
		ks->lost += lost[k];
		ks->lost_weight += lost[k] * (s->descs[k].store ? s->status.store_period :
					      s->status.period);
	}
}

/*
 * Read what @cpu's buffer and queue hold into the results, under their lock.
 * Caller holds s->lock (the status).  Return: the records and samples read.
 */
u64 __embm_drain_cpu(struct embm_sampler *s, int cpu)
{
	struct embm_cpu *c = &s->cpu[cpu];
	struct embm_drain_direct dd = { .s = s, .cpu = cpu };
	u64 n = 0;
	long ret;

	lockdep_assert_held(&s->lock);

	mutex_lock(&s->st->lock);
	ret = perf_kernel_rb_read(c->rb, embm_drain_record, s, s->scratch, EMBM_SCRATCH);
	if (c->dq) {
		n += embm_direct_read(c->dq, embm_drain_direct, &dd);
		embm_count_direct_lost(s, c->dq);
	}
	mutex_unlock(&s->st->lock);
	if (ret < 0)
		s->status.bad_records++;
	else
		n += ret;
	return n;
}
