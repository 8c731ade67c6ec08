// SPDX-License-Identifier: GPL-2.0
/*
 * embm: ksamplingd, the sampler's thread
 *
 * ksamplingd drains the buffers and queues at an interval that follows
 * the rate the rings fill at (ksamplingd_next_wake()), or sooner when a
 * queue filled to half or perf's wakeup of a ring (half of it written)
 * woke it, through an irq_work (in hard IRQ context), follows CPU hotplug
 * and the period knobs, keeps its own CPU use within a budget by moving the
 * periods, reads the events' counts, and notices when the target process
 * or the starter exits.  Functions named ksamplingd_*() run only in it;
 * while it runs it alone touches the events and buffers
 * (sampler-internal.h has the lock rules).
 */

#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/perf_event.h>
#include <linux/perf_kernel_rb.h>
#include <linux/sched/cputime.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

#include "direct.h"
#include "knobs.h"
#include "sampler.h"
#include "sampler-internal.h"
#include "session.h"

#define EMBM_WAKE_START_US	10000	/* the first round's interval */
#define EMBM_WAKE_MIN_US	500	/* the shortest interval, ... */
#define EMBM_WAKE_MAX_US	100000	/* ... the longest */
#define EMBM_ADAPT_MS		200	/* how often it checks its CPU use */
#define EMBM_ADAPT_SAMPLES	64	/* samples a round needs to measure their cost */
#define EMBM_READ_PERMILLE	10	/* of a CPU the count reads may take */

/*
 * Drain every CPU's buffer and queue.  The CPU time of a pass that found
 * samples goes to the budget's measure of the cost per sample (only work
 * done for samples: a wakeup that finds nothing costs no sample).  The
 * bytes each ring held add to its @filled, for ksamplingd_next_wake().
 * Context: ksamplingd.
 */
static void ksamplingd_drain_all(struct embm_sampler *s)
{
	u64 t0 = task_sched_runtime(current), n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!s->cpu[cpu].rb)
			continue;
		s->cpu[cpu].filled += perf_kernel_rb_pending(s->cpu[cpu].rb);
		mutex_lock(&s->lock);
		n += __embm_drain_cpu(s, cpu);
		s->status.kthread_ns = s->thread->se.sum_exec_runtime;
		mutex_unlock(&s->lock);
		cond_resched();
	}
	if (n) {
		s->win_samples += n;
		s->win_ns += task_sched_runtime(current) - t0;
	}
}

/*
 * The interval to the next round, in us: the time the fastest-filling
 * ring takes to fill a quarter at the rate it filled since the last
 * round (@elapsed_ns ago), between EMBM_WAKE_MIN_US and EMBM_WAKE_MAX_US,
 * and at most twice the last interval, so that a pause in the samples
 * does not leave the rings a long sleep to overflow in when they come
 * back.  Rings fill at the sample rate (a record each; perf's throttle
 * and lost records for direct events, whose samples go to queues that
 * wake ksamplingd themselves when half full).  Resets the rings' @filled.
 * Context: ksamplingd.
 */
static u64 ksamplingd_next_wake(struct embm_sampler *s, u64 elapsed_ns)
{
	u64 quarter = embm_ring_pages(s) * PAGE_SIZE / 4, most = 0, us;
	int cpu;

	for_each_possible_cpu(cpu) {
		most = max(most, s->cpu[cpu].filled);
		s->cpu[cpu].filled = 0;
	}
	/* No quotient past 2^64 (a fault on x86) after a long stall. */
	elapsed_ns = min_t(u64, elapsed_ns, 4ULL * EMBM_WAKE_MAX_US * NSEC_PER_USEC);
	us = most ? div64_u64(mul_u64_u64_div_u64(elapsed_ns, quarter, most), NSEC_PER_USEC) :
		EMBM_WAKE_MAX_US;
	us = clamp_t(u64, us, EMBM_WAKE_MIN_US, EMBM_WAKE_MAX_US);
	return min(us, 2 * s->status.wake_us);
}

/*
 * ksamplingd's periodic embm_read_kinds(), bounded: perf reads each
 * inherited child of an event with it, under the parent's child_mutex, so
 * a read costs in proportion to the threads the target forked, which the
 * sampled user controls.  The next read waits until this one's CPU time
 * is at most EMBM_READ_PERMILLE of the time in between (at least
 * EMBM_READ_MS): the reads take at most that share of a CPU however many
 * children there are, and their figures (time enabled and running, for
 * the scaling) come less often: with no upper limit, a read of 1 s
 * leaves them 100 s old.  The samples are drained first (that drain is
 * the budget's, not timed here): the counts go with the samples drained
 * by then.  Context: ksamplingd.
 */
static void ksamplingd_read_kinds(struct embm_sampler *s, u64 *next_ns)
{
	u64 cpu_ns, cost, every;

	ksamplingd_drain_all(s);
	cpu_ns = task_sched_runtime(current);
	embm_read_kinds(s);
	cost = task_sched_runtime(current) - cpu_ns;
	every = max_t(u64, EMBM_READ_MS * NSEC_PER_MSEC,
		      div_u64(cost, EMBM_READ_PERMILLE) * 1000);
	*next_ns = ktime_get_ns() + every;
	mutex_lock(&s->lock);
	s->status.count_reads++;
	s->status.count_read_ns = cost;
	s->status.count_read_every_ms = div_u64(every, NSEC_PER_MSEC);
	mutex_unlock(&s->lock);
}

/*
 * Follow CPUs that went away (system-wide sessions close their events) or
 * came online without events (both kinds open them).  A CPU that cannot
 * get its events (max_events, the mlock limit, memory) is counted in
 * the status's cpus_skipped.
 */
static void ksamplingd_hotplug(struct embm_sampler *s)
{
	int cpu, err;

	for_each_cpu(cpu, s->cpus_gone) {
		cpumask_clear_cpu(cpu, s->cpus_gone);
		/* A process's events stay valid: they run where it runs. */
		if (s->target || !s->cpu[cpu].rb)
			continue;
		mutex_lock(&s->lock);
		__embm_close_cpu(s, cpu, false);
		__embm_count_events(s);
		mutex_unlock(&s->lock);
	}
	for_each_cpu(cpu, s->cpus_new) {
		cpumask_clear_cpu(cpu, s->cpus_new);
		if (!cpu_online(cpu) || s->cpu[cpu].rb)
			continue;
		/*
		 * Threads made since the last scan have inherited events on
		 * the other CPUs, none on this one: list them again first.
		 */
		err = s->target ? embm_rescan_tasks(s) : 0;
		mutex_lock(&s->lock);
		if (!err)
			err = embm_open_cpu(s, cpu, 0);
		if (err) {
			__embm_close_cpu(s, cpu, false);
			/* Offline again, or over max_events, mlock or memory. */
			if (err != -ENODEV)
				s->status.cpus_skipped++;
		} else {
			embm_enable_cpu(s, cpu, 0);
		}
		__embm_count_events(s);
		mutex_unlock(&s->lock);
	}
}

/* The period @ev takes, of a load and a store period; 0: it counts only. */
static u64 ksamplingd_desc_period(struct embm_sampler *s, const struct embm_ev *ev,
				  u64 period, u64 store)
{
	const struct embm_event_desc *desc = embm_ev_desc(s, ev);

	if (desc && desc->lead)
		return 0;
	return desc && desc->store ? store : period;
}

/*
 * Give the events ksamplingd_set_periods() changed before it reached the
 * one perf refused, event @bad of @bad_cpu, their periods @period and
 * @store back.  Context: ksamplingd.
 */
static void ksamplingd_restore_periods(struct embm_sampler *s, u64 period, u64 store,
				       int bad_cpu, unsigned int bad)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct embm_cpu *c = &s->cpu[cpu];

		for (i = 0; i < c->nr_events; i++) {
			u64 p = ksamplingd_desc_period(s, &c->evs[i], period, store);

			if (cpu == bad_cpu && i == bad)
				return;
			if (p)
				perf_kernel_counter_period(c->evs[i].event, p);
		}
	}
}

/**
 * ksamplingd_set_periods() - give every event a new load and store period
 * @s:	    the sampler
 * @period: load (or all-sample) period
 * @store:  store period
 * @why:    why, for the status (period_why)
 *
 * All or nothing: when perf refuses one event's period, the events changed
 * before it get the current periods back and the status's period stays as
 * it is, so that what status reports is what the events use (the few
 * samples those events took at the refused period meanwhile are weighted
 * with the old one, if they carry no period).  Each CPU's buffer is
 * drained just before its events change (see embm_drain_record()).
 *
 * Context: ksamplingd; takes s->lock.
 * Return: 0 or perf_kernel_counter_period()'s error.
 */
static int ksamplingd_set_periods(struct embm_sampler *s, u64 period, u64 store,
				  const char *why)
{
	u64 old = s->status.period, old_store = s->status.store_period;
	unsigned int i;
	int cpu, err;

	for_each_possible_cpu(cpu) {
		struct embm_cpu *c = &s->cpu[cpu];

		/*
		 * Samples without a period of their own get the one in force
		 * when drained: take this CPU's (its events' and their
		 * children's) before its periods change.
		 */
		if (c->rb) {
			mutex_lock(&s->lock);
			__embm_drain_cpu(s, cpu);
			mutex_unlock(&s->lock);
		}
		for (i = 0; i < c->nr_events; i++) {
			u64 p = ksamplingd_desc_period(s, &c->evs[i], period, store);

			if (!p)
				continue;
			err = perf_kernel_counter_period(c->evs[i].event, p);
			if (err)
				goto out_restore;
		}
	}
	mutex_lock(&s->lock);
	s->status.period = period;
	s->status.store_period = store;
	s->status.period_max = max(s->status.period_max, period);
	s->status.period_changes++;
	strscpy(s->status.period_why, why, sizeof(s->status.period_why));
	mutex_unlock(&s->lock);
	return 0;

out_restore:
	ksamplingd_restore_periods(s, old, old_store, cpu, i);
	mutex_lock(&s->lock);
	s->status.period_errors++;
	mutex_unlock(&s->lock);
	return err;
}

/*
 * Keep ksamplingd's CPU use under cfg.cpu_budget permille: double the
 * periods when above, halve them (not below the base) when under a
 * quarter.  Inherited events change with their parents
 * (perf_kernel_counter_period()).  Samples carry their own period, or
 * get the one in force when they are drained: ksamplingd_set_periods()
 * drains each CPU's buffer just before it changes that CPU's events.
 *
 * The use is estimated as the samples drained in the round times the cost
 * of one, the least ksamplingd's CPU time per sample has been over the
 * last EMBM_COST_ROUNDS rounds of at least EMBM_ADAPT_SAMPLES samples (so
 * that it follows a workload whose samples cost more).  Not ksamplingd's
 * whole CPU
 * time: its wakeups cost the same with no sample to drain, and a host that
 * stalls a guest's vCPUs (QEMU under TCG, an overcommitted VM) inflates
 * the CPU time the guest sees, but only ever adds to the least cost per
 * sample.  Reading the events' counts is not counted: it does not
 * depend on the period, and ksamplingd_read_kinds() bounds it apart.
 * The cost a sample adds to the sampled task (perf's overflow, a PEBS or
 * IBS record, a direct sample's 8 or 20 bytes) is not counted either.
 */
static void ksamplingd_adapt(struct embm_sampler *s, u64 *last_ns)
{
	u64 now = ktime_get_ns(), elapsed = now - *last_ns, n = s->win_samples, used;
	u64 period = s->status.period, store = s->status.store_period, budget;
	char why[sizeof(s->status.period_why)];

	if (elapsed < EMBM_ADAPT_MS * NSEC_PER_MSEC)
		return;
	*last_ns = now;
	if (n >= EMBM_ADAPT_SAMPLES) {
		u64 cost = max(div64_u64(s->win_ns, n), 1ULL), least = cost;
		int i;

		s->costs[s->nr_costs++ % EMBM_COST_ROUNDS] = cost;
		for (i = 0; i < min(s->nr_costs, EMBM_COST_ROUNDS); i++)
			least = min(least, s->costs[i]);
		s->status.sample_cost_ns = least;
	}
	s->win_samples = 0;
	s->win_ns = 0;
	used = mul_u64_u64_div_u64(n, s->status.sample_cost_ns * 1000, elapsed);
	s->status.budget_used = used;
	budget = s->cfg.cpu_budget;
	if (!budget)
		return;

	if (used > budget && period < EMBM_PERIOD_MAX) {
		snprintf(why, sizeof(why),
			 "cpu_budget: %llu > %llu permille (%llu samples/s, %llu ns each)",
			 used, budget, div64_u64(n * NSEC_PER_SEC, elapsed),
			 s->status.sample_cost_ns);
		ksamplingd_set_periods(s, embm_align_period(s, period * 2),
				       embm_align_period(s, store * 2), why);
	} else if (used < budget / 4 && period > s->base_period) {
		snprintf(why, sizeof(why), "cpu_budget: %llu < %llu permille, a quarter of %llu",
			 used, budget / 4, budget);
		ksamplingd_set_periods(s, embm_align_period(s, max(period / 2, s->base_period)),
				       embm_align_period(s, max(store / 2, s->base_store)), why);
	}
}

/*
 * Take the period knobs again when they were written since the last look:
 * they become the periods in force (a write of the same value brings back
 * a period the budget raised) and the base the budget never goes below.
 * The source's setup() does not see them: they are only aligned as its
 * periods are.  Context: ksamplingd.
 */
static void ksamplingd_knobs(struct embm_sampler *s)
{
	unsigned int gen = embm_knobs_period_gen();
	struct embm_config cfg;
	u64 period, store;
	char why[sizeof(s->status.period_why)];

	if (gen == s->knob_gen)
		return;
	s->knob_gen = gen;
	embm_knobs_get(&cfg);
	period = embm_align_period(s, cfg.period ?: s->src->period);
	store = embm_align_period(s, cfg.store_period ?: s->src->store_period);
	/*
	 * Below the source's least (ibs: 144; emu: 256, loads and stores),
	 * refused as setup() refuses it at start: 6.12's ibs_op would
	 * program it (no check_period()), and emu's drain would fall behind.
	 */
	if ((cfg.period && cfg.period < s->src->min_period) ||
	    (cfg.store_period && cfg.store_period < s->src->min_store_period)) {
		bool st = !(cfg.period && cfg.period < s->src->min_period);

		mutex_lock(&s->lock);
		s->status.period_errors++;
		snprintf(s->status.period_why, sizeof(s->status.period_why),
			 "knob: %s %llu below %s's least, %llu: refused",
			 st ? "store_period" : "period", st ? cfg.store_period : cfg.period,
			 s->src->name, st ? s->src->min_store_period : s->src->min_period);
		mutex_unlock(&s->lock);
		return;
	}
	if (period != s->status.period || store != s->status.store_period) {
		snprintf(why, sizeof(why), "knob: period %llu, store_period %llu", period, store);
		/* Refused: the periods, and the base, stay (period_errors). */
		if (ksamplingd_set_periods(s, period, store, why))
			return;
	}
	s->cfg.period = cfg.period;
	s->cfg.store_period = cfg.store_period;
	s->base_period = period;
	s->base_store = store;
}

/*
 * Copy the status for readers: they never wait for ksamplingd's work (a
 * CPU that came online can take long to get its events), only for this
 * copy.  Context: the status's writer; takes pub_lock.
 */
void embm_publish_status(struct embm_sampler *s)
{
	spin_lock(&s->pub_lock);
	*s->published = s->status;
	spin_unlock(&s->pub_lock);
}

/*
 * Let the queues wake ksamplingd, from its own thread: the one that frees
 * a queue when its CPU goes (a queue made later gets its reader when it is
 * made, embm_open_cpu()).  The sampler's reference keeps the task while a
 * wake may come (embm_sampler_stop()).
 */
static void ksamplingd_set_readers(struct embm_sampler *s)
{
	int cpu;

	mutex_lock(&s->lock);
	for_each_possible_cpu(cpu) {
		if (s->cpu[cpu].dq)
			embm_direct_set_reader(s->cpu[cpu].dq, current);
	}
	mutex_unlock(&s->lock);
}

/*
 * Sleep until the next round, status.wake_us from now (with a quarter of
 * it as slack, for the timer to coalesce with others).  A wake that came
 * while ksamplingd was awake found it running and will not come again: a
 * queue or ring half full is drained now, and a kthread_stop() ends the
 * round.  Set the state first, so that a wake from here on ends the sleep.
 */
static void ksamplingd_sleep(struct embm_sampler *s)
{
	u64 us = s->status.wake_us;
	ktime_t t = ns_to_ktime(us * NSEC_PER_USEC);
	int cpu;

	set_current_state(TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	for_each_possible_cpu(cpu) {
		struct embm_direct *dq = s->cpu[cpu].dq;

		if ((dq && embm_direct_half_full(dq)) || embm_ring_half_full(s, &s->cpu[cpu])) {
			__set_current_state(TASK_RUNNING);
			return;
		}
	}
	schedule_hrtimeout_range(&t, us * NSEC_PER_USEC / 4, HRTIMER_MODE_REL);
}

/*
 * The thread: a round every status.wake_us or sooner, until the target or
 * the starter exits (then it tells the session and waits) or the stop
 * comes (kthread_stop()).  What it allocates is charged to the starter's
 * memory cgroup.
 */
int ksamplingd(void *data)
{
	struct embm_sampler *s = data;
	u64 last_ns = ktime_get_ns(), next_read = last_ns + EMBM_READ_MS * NSEC_PER_MSEC;
	u64 round_ns = last_ns, now;
	bool target_gone, owner_gone;
	struct mem_cgroup *old_memcg = set_active_memcg(s->memcg);

	ksamplingd_set_readers(s);
	s->status.wake_us = EMBM_WAKE_START_US;
	while (!kthread_should_stop()) {
		now = ktime_get_ns();
		ksamplingd_drain_all(s);
		s->status.wake_us = ksamplingd_next_wake(s, now - round_ns);
		s->status.wakeups++;
		round_ns = now;
		ksamplingd_hotplug(s);
		ksamplingd_knobs(s);
		ksamplingd_adapt(s, &last_ns);
		if (ktime_get_ns() >= next_read)
			ksamplingd_read_kinds(s, &next_read);
		target_gone = embm_pid_gone(s->target);
		owner_gone = embm_pid_gone(s->owner);
		if (target_gone || owner_gone) {
			/* Drain what the last threads wrote, then let the core end it. */
			ksamplingd_drain_all(s);
			embm_publish_status(s);
			s->exited_fn(s->exited_data, !owner_gone ? EMBM_EXIT_TARGET :
				     target_gone ? EMBM_EXIT_BOTH : EMBM_EXIT_STARTER);
			break;
		}
		embm_publish_status(s);
		ksamplingd_sleep(s);
	}
	/* Wait for kthread_stop(). */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	set_active_memcg(old_memcg);
	return 0;
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/ksamplingd-kunit.h"
#endif
