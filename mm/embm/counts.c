// SPDX-License-Identifier: GPL-2.0
/*
 * embm: perf's counts and times of each kind of event
 *
 * Each event's count, time enabled and time running, read from perf (with
 * its inherited children's), summed per kind into the sampler's status,
 * where they scale the estimates for multiplexing (embm_stats_scale()).
 * Process context: reading an event takes perf's context mutex.
 */

#include <linux/minmax.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "sampler-internal.h"
#include "stats.h"

static int embm_reading_cmp(const void *a, const void *b)
{
	const struct embm_reading *x = a, *y = b;

	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->kind - y->kind;
}

/*
 * Read @ev (perf adds its children's count and times) into @r.  Context:
 * process; takes perf's context mutex (and may IPI the event's CPU).
 */
bool embm_read_ev(struct embm_sampler *s, const struct embm_ev *ev,
		  struct embm_reading *r)
{
	const struct embm_event_desc *desc = embm_ev_desc(s, ev);

	if (!desc)
		return false;
	r->task = ev->event->hw.target;
	r->kind = desc - s->descs;
	r->late = ev->late;
	r->count = perf_event_read_value(ev->event, &r->enabled, &r->running);
	return true;
}

/*
 * Sum @n readings into @sums.  A CPU's event is enabled as long as its
 * context is: all the time system-wide, but for a thread's event whenever
 * the thread runs, on any CPU, while it runs (and is counted) only on its
 * own CPU.  So a thread's time enabled is the most any of its per-CPU
 * events saw, not their sum, or every thread would look multiplexed by
 * the number of CPUs.  Events made for a CPU that came online add no time
 * enabled: the thread's events on the CPUs it had from the start already
 * count it, or those of the thread it inherited them from do (their
 * children's times are summed in), and counting it again would make the
 * thread look multiplexed.  Sorts @r.
 */
static void embm_sum_readings(struct embm_reading *r, unsigned int n,
			      struct embm_kind_sum *sums)
{
	unsigned int i, j;

	sort(r, n, sizeof(*r), embm_reading_cmp, NULL);
	for (i = 0; i < n; i = j) {
		struct embm_kind_sum *k = &sums[r[i].kind];
		u64 enabled = 0;

		for (j = i; j < n && r[j].task == r[i].task && r[j].kind == r[i].kind; j++) {
			k->count += r[j].count;
			k->running += r[j].running;
			if (!r[j].task)
				enabled += r[j].enabled;
			else if (!r[j].late)
				enabled = max(enabled, r[j].enabled);
		}
		k->enabled += enabled;
	}
}

/*
 * Put @sums into the status, with the periods of each kind's samples as
 * drained by then (@weight), and the throttle intervals up to now.
 * Caller holds s->lock.
 */
static void __embm_publish_kinds(struct embm_sampler *s,
				 const struct embm_kind_sum *sums, const u64 *weight)
{
	int d;

	lockdep_assert_held(&s->lock);

	__embm_throttle_sweep(s);
	for (d = 0; d < s->nr_descs; d++) {
		s->status.kind[d].count = sums[d].count;
		s->status.kind[d].enabled = sums[d].enabled;
		s->status.kind[d].running = sums[d].running;
		s->status.kind[d].weight = weight[d];
		/* The losses of the same drains, for the calibration. */
		s->status.kind[d].lost_read = s->status.kind[d].lost_weight;
		s->status.kind[d].throttled_ns = s->throttled_ns[d];
	}
}

/*
 * Read every open event's count and times, as perf stat does at its end,
 * into @sums, and each kind's weight into @weight.  Events already closed
 * add what __embm_close_cpu() kept.  The readings' array is kept and grows
 * with the events.  Context: ksamplingd, or the stop with ksamplingd gone.
 * Return: false without memory for the readings.
 */
static bool embm_read_sums(struct embm_sampler *s, struct embm_kind_sum *sums, u64 *weight)
{
	unsigned int i, n = 0;
	int cpu;

	if (s->nr_readings < s->nr_events) {
		struct embm_reading *r;

		r = kvrealloc(s->readings, array_size(s->nr_events, sizeof(*r)),
			      GFP_KERNEL_ACCOUNT);
		if (!r)
			return false;
		s->readings = r;
		s->nr_readings = s->nr_events;
	}
	memcpy(sums, s->closed, sizeof(s->closed));
	for_each_possible_cpu(cpu) {
		for (i = 0; i < s->cpu[cpu].nr_events && n < s->nr_readings; i++) {
			n += embm_read_ev(s, &s->cpu[cpu].evs[i], &s->readings[n]);
			cond_resched();
		}
	}
	embm_sum_readings(s->readings, n, sums);
	/* Callers drained the buffers just before: the samples of these counts. */
	embm_stats_kind_weights(s->st, weight, s->nr_descs);
	return true;
}

/*
 * Read every event's count and times into the status, so that it shows
 * how long each kind was really on the PMU (embm_read_sums()); without
 * memory for the readings, the last figures stay.  Caller holds s->lock,
 * with ksamplingd not running (embm_close_all()).
 */
void __embm_read_kinds(struct embm_sampler *s)
{
	u64 weight[EMBM_MAX_EVENTS];
	struct embm_kind_sum sums[EMBM_MAX_EVENTS];

	lockdep_assert_held(&s->lock);

	if (embm_read_sums(s, sums, weight))
		__embm_publish_kinds(s, sums, weight);
}

/*
 * __embm_read_kinds() for ksamplingd, which alone touches the events while
 * it runs: it reads them without s->lock and takes it to update the
 * status.  The CPU time this takes is kept apart from the budget the
 * adaptive period watches, and bounded (ksamplingd_read_kinds()).
 * Context: ksamplingd; takes s->lock.
 */
void embm_read_kinds(struct embm_sampler *s)
{
	u64 weight[EMBM_MAX_EVENTS];
	struct embm_kind_sum sums[EMBM_MAX_EVENTS];

	if (!embm_read_sums(s, sums, weight))
		return;
	mutex_lock(&s->lock);
	__embm_publish_kinds(s, sums, weight);
	mutex_unlock(&s->lock);
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/counts-kunit.h"
#endif
