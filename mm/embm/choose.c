// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the choice of a source at session start
 *
 * The source knob forces one registered source, or lets the automatic
 * choice try them in rank order (source.c): the precise hardware sources
 * first, the page-fault source last, as it works everywhere but sees only
 * first touches.  A source is taken when its descriptors pass embm's
 * checks and its events open on every online CPU; the status's why says
 * what each source tried answered.  The starter's context (process),
 * before ksamplingd runs.
 */

#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/embm.h>
#include <linux/string.h>

#include "sampler-internal.h"
#include "source.h"

/* Forget what an earlier source set up, and take @src. */
static void embm_reset_source(struct embm_sampler *s, const struct embm_source *src)
{
	s->src = src;
	s->nr_descs = 0;
	s->direct = false;
	s->direct_full = false;
	s->records = false;
	memset(s->closed, 0, sizeof(s->closed));
	memset(s->status.kind, 0, sizeof(s->status.kind));
	memset(s->throttled_ns, 0, sizeof(s->throttled_ns));
	s->status.nr_kinds = 0;
}

/*
 * Check descriptor @d of the source, a source's bug if it fails (with a
 * warning): -EINVAL and *@why.  The permission checks go by the
 * sample_type.
 */
static int embm_check_desc(struct embm_sampler *s, int d, const char **why)
{
	const struct embm_event_desc *desc = &s->descs[d];
	bool pmu_direct = s->src->direct_irq && desc->attr.type >= PERF_TYPE_MAX;

	/* A leader counts, and leads one sampling kind. */
	if (WARN_ON_ONCE(desc->lead && (desc->attr.sample_type || desc[1].lead))) {
		*why = "its descriptors are malformed";
		return -EINVAL;
	}
	/* embm's permission checks would not be perf's for it. */
	if (WARN_ON_ONCE(!embm_source_attr_ok(s->src, &desc->attr))) {
		*why = "its attributes need checks embm does not make";
		return -EINVAL;
	}
	/*
	 * Large PEBS would not call embm's handler: software only, or a
	 * PMU whose driver calls it outside NMI (embm_source.direct_irq).
	 * The permission checks go by the sample_type: it must say that the
	 * samples disclose physical addresses.
	 */
	if (WARN_ON_ONCE(desc->direct && (desc->lead ||
					  (desc->attr.type != PERF_TYPE_SOFTWARE && !pmu_direct) ||
					  !(desc->attr.sample_type & PERF_SAMPLE_PHYS_ADDR)))) {
		*why = "its descriptors are malformed";
		return -EINVAL;
	}
	return 0;
}

/*
 * The source's descriptors for this machine and the session's knobs, checked,
 * and the kinds of the status named after them.  Return: their number, or
 * the source's errno or -EINVAL with *@why.
 */
static int embm_setup_descs(struct embm_sampler *s, const char **why)
{
	struct embm_source_args args = {
		.period		= s->cfg.period,
		.store_period	= s->cfg.store_period,
		.ldlat		= s->cfg.ldlat,
	};
	int d, n, err;

	n = s->src->setup(&args, s->descs, why);
	if (n < 0)
		return n;
	if (WARN_ON_ONCE(!n || n > EMBM_MAX_EVENTS || s->descs[n - 1].lead)) {
		*why = "its descriptors are malformed";
		return -EINVAL;
	}
	for (d = 0; d < n; d++) {
		err = embm_check_desc(s, d, why);
		if (err)
			return err;
		s->direct |= s->descs[d].direct;
		s->direct_full |= s->descs[d].direct && s->src->direct_irq;
		s->records |= !s->descs[d].direct && !s->descs[d].lead;
		s->status.kind[d].name = s->descs[d].name;
		s->status.kind[d].lead = s->descs[d].lead;
		s->status.kind[d].by_count = !s->descs[d].lead &&
			!(s->descs[d].attr.sample_type & PERF_SAMPLE_PERIOD);
	}
	return n;
}

/* The periods the session starts with: the knobs', else the source's. */
static void embm_start_periods(struct embm_sampler *s)
{
	s->status.period = embm_align_period(s, s->cfg.period ?: s->src->period);
	s->status.store_period = embm_align_period(s, s->cfg.store_period ?:
						   s->src->store_period);
	s->status.period_start = s->status.period;
	s->status.count_read_every_ms = EMBM_READ_MS;
	s->status.period_max = s->status.period;
	s->base_period = s->status.period;
	s->base_store = s->status.store_period;
}

/* Open the events on every online CPU.  Return: 0 or the first error. */
static int embm_open_online(struct embm_sampler *s)
{
	int cpu, err;

	for_each_online_cpu(cpu) {
		err = embm_open_cpu(s, cpu, 0);
		if (err == -ENODEV) {
			/* It went offline meanwhile: ksamplingd follows it. */
			mutex_lock(&s->lock);
			__embm_close_cpu(s, cpu, false);
			mutex_unlock(&s->lock);
			err = 0;
		}
		if (err)
			return err;
	}
	return 0;
}

/*
 * Why the events could not be opened, from @err, in *@why.  Return: the
 * errno of the start: -EOPNOTSUPP when the PMU would not take them, so
 * that the automatic choice moves on; @err otherwise.
 */
static int embm_open_why(int err, const char **why)
{
	switch (err) {
	case -ENOENT:
	case -ENODEV:
		*why = "no PMU takes its events";
		return -EOPNOTSUPP;
	case -EOPNOTSUPP:
	case -EINVAL:
	case -ENODATA:
		*why = "the PMU refuses its attributes";
		return -EOPNOTSUPP;
	case -E2BIG:
		*why = "it needs more events than max_events";
		return err;
	case -EPERM:
		*why = "its ring buffers pass the starter's mlock limit";
		return err;
	default:
		*why = "its events could not be created";
		return err;
	}
}

/*
 * Try one source: its descriptors, then every event on every online CPU.
 * On failure everything opened is closed and @why says why.
 */
static int embm_try_source(struct embm_sampler *s, const struct embm_source *src,
			   const char **why)
{
	int err;

	embm_reset_source(s, src);
	err = embm_setup_descs(s, why);
	if (err < 0)
		return err;
	s->nr_descs = err;
	s->status.nr_kinds = s->nr_descs;
	embm_start_periods(s);

	err = embm_open_online(s);
	if (err)
		goto out_close;
	mutex_lock(&s->lock);
	__embm_count_events(s);
	mutex_unlock(&s->lock);
	return 0;

out_close:
	embm_close_all(s);
	cpumask_clear(&s->status.cpus);
	return embm_open_why(err, why);
}

/**
 * embm_choose_source() - take the forced source, or the first that works
 * @s: a sampler not yet running
 *
 * The status's why says "forced: <name> (<reason>)", or "auto: " and each
 * source tried with its reason, "; " between them.
 *
 * Context: process, the starter's.
 * Return: 0 with a source's events open on every online CPU;
 * -EOPNOTSUPP when no source works (or not the forced one); the errno of
 * a source that failed otherwise (-ENOMEM and the like are not hidden by
 * trying the next).
 */
int embm_choose_source(struct embm_sampler *s)
{
	char *why = s->status.why;
	size_t room = sizeof(s->status.why);
	const struct embm_source *src;
	const char *reason;
	int i, err = -EOPNOTSUPP, len = 0;

	if (s->cfg.source) {
		err = embm_try_source(s, s->cfg.source, &reason);
		scnprintf(why, room, "forced: %s (%s)", s->src->name, reason);
		return err;
	}
	for (i = 0; (src = embm_source_at(i)); i++) {
		if (src->forced_only)
			continue;
		err = embm_try_source(s, src, &reason);
		len += scnprintf(why + len, room - len, "%s%s: %s", len ? "; " : "auto: ",
				 src->name, reason);
		if (!err)
			return 0;
		if (err != -EOPNOTSUPP && err != -EINVAL)
			return err;	/* -ENOMEM and the like: do not hide them */
	}
	return err;
}
