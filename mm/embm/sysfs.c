// SPDX-License-Identifier: GPL-2.0
/*
 * embm: knobs under /sys/kernel/mm/embm/
 *
 * A session takes a copy of the knobs when it starts; changing them during
 * a session changes the next one, but for period and store_period, which
 * the running session takes too, within a round of ksamplingd
 * (embm_knobs_period_gen()).  embm_knobs_lock protects embm_knobs;
 * process context only.
 */

#include <linux/embm.h>
#include <linux/kobject.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "knobs.h"
#include "session.h"
#include "source.h"

/* Protects embm_knobs against concurrent writers and session start. */
static DEFINE_MUTEX(embm_knobs_lock);

/* Bumped by every write of period or store_period; starts at 1. */
static atomic_t embm_period_gen = ATOMIC_INIT(1);

static struct embm_config embm_knobs = {
	.source		= NULL,		/* the automatic choice */
	.period		= 0,
	.store_period	= 0,
	.ldlat		= 64,
	.ring_pages	= 64,
	.cpu_budget	= 30,
	.hot_pages	= 64,
	.max_events	= 65536,
	.max_tasks	= 4096,
};

/*
 * "auto" and the registered sources in the order the automatic choice
 * tries them, the one in force in brackets: "[auto] pebs ibs swfault".
 */
static ssize_t source_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	const struct embm_source *cur, *src;
	int i, len = 0;

	mutex_lock(&embm_knobs_lock);
	cur = embm_knobs.source;
	mutex_unlock(&embm_knobs_lock);

	len += sysfs_emit_at(buf, len, !cur ? "[auto]" : "auto");
	for (i = 0; (src = embm_source_at(i)); i++)
		len += sysfs_emit_at(buf, len, cur == src ? " [%s]" : " %s", src->name);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/* "auto" or a registered source's name; -EINVAL for any other word. */
static ssize_t source_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	const struct embm_source *src = NULL;

	if (!sysfs_streq(buf, "auto")) {
		src = embm_source_find(buf);
		if (!src)
			return -EINVAL;
	}
	mutex_lock(&embm_knobs_lock);
	embm_knobs.source = src;
	mutex_unlock(&embm_knobs_lock);
	return count;
}

static struct kobj_attribute embm_source_attr = __ATTR_RW(source);

/**
 * struct embm_knob - a numeric knob: a field of embm_knobs and its range
 * @attr:   the sysfs file.
 * @offset: of the u64 field in struct embm_config.
 * @min:    smallest value taken.
 * @max:    largest value taken.
 * @pow2:   must also be a power of two.
 * @zero:   0 is taken too, whatever @min (it means "default" or "off").
 */
struct embm_knob {
	struct kobj_attribute attr;
	size_t offset;
	u64 min, max;
	bool pow2, zero;
};

static ssize_t embm_knob_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	const struct embm_knob *k = container_of(attr, struct embm_knob, attr);
	u64 *field = (void *)&embm_knobs + k->offset;
	u64 v;

	mutex_lock(&embm_knobs_lock);
	v = *field;
	mutex_unlock(&embm_knobs_lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t embm_knob_store(struct kobject *kobj, struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	const struct embm_knob *k = container_of(attr, struct embm_knob, attr);
	u64 *field = (void *)&embm_knobs + k->offset;
	u64 v;
	int err;

	err = kstrtou64(buf, 0, &v);
	if (err)
		return err;
	if (!(v == 0 && k->zero) &&
	    (v < k->min || v > k->max || (k->pow2 && !is_power_of_2(v))))
		return -EINVAL;
	mutex_lock(&embm_knobs_lock);
	*field = v;
	mutex_unlock(&embm_knobs_lock);
	if (k->offset == offsetof(struct embm_config, period) ||
	    k->offset == offsetof(struct embm_config, store_period))
		atomic_inc(&embm_period_gen);
	return count;
}

#define EMBM_KNOB_ATTR(_name)	__ATTR(_name, 0644, embm_knob_show, embm_knob_store)
#define EMBM_KNOB_AT(_field)	offsetof(struct embm_config, _field)

static struct embm_knob embm_num_knobs[] = {
	/* 0: the source's default period. */
	{ .attr = EMBM_KNOB_ATTR(period), .offset = EMBM_KNOB_AT(period),
	  .min = 1, .max = BIT_ULL(40), .zero = true },
	{ .attr = EMBM_KNOB_ATTR(store_period), .offset = EMBM_KNOB_AT(store_period),
	  .min = 1, .max = BIT_ULL(40), .zero = true },
	/* 0: no load-latency event; else MSR_PEBS_LD_LAT_THRESHOLD's range. */
	{ .attr = EMBM_KNOB_ATTR(ldlat), .offset = EMBM_KNOB_AT(ldlat),
	  .min = 3, .max = 65535, .zero = true },
	{ .attr = EMBM_KNOB_ATTR(ring_pages), .offset = EMBM_KNOB_AT(ring_pages),
	  .min = 1, .max = 1024, .pow2 = true },
	/* Permille of one CPU; 0: fixed periods. */
	{ .attr = EMBM_KNOB_ATTR(cpu_budget), .offset = EMBM_KNOB_AT(cpu_budget),
	  .min = 1, .max = 1000, .zero = true },
	{ .attr = EMBM_KNOB_ATTR(hot_pages), .offset = EMBM_KNOB_AT(hot_pages),
	  .min = 1, .max = 65536 },
	/* Events of a session: threads x CPUs x kinds; about 1 KiB each. */
	{ .attr = EMBM_KNOB_ATTR(max_events), .offset = EMBM_KNOB_AT(max_events),
	  .min = 1, .max = BIT_ULL(22) },
	/* Tasks of the per-task table; 0: every task in "other tasks". */
	{ .attr = EMBM_KNOB_ATTR(max_tasks), .offset = EMBM_KNOB_AT(max_tasks),
	  .min = 1, .max = 65536, .zero = true },
};

static struct attribute *embm_attrs[ARRAY_SIZE(embm_num_knobs) + 2];

static const struct attribute_group embm_attr_group = {
	.attrs = embm_attrs,
};

/**
 * embm_knobs_get() - the knobs, as a session starts with them
 * @cfg: filled in with a copy
 *
 * Context: process; takes embm_knobs_lock.
 */
void embm_knobs_get(struct embm_config *cfg)
{
	mutex_lock(&embm_knobs_lock);
	*cfg = embm_knobs;
	mutex_unlock(&embm_knobs_lock);
}

/**
 * embm_knobs_period_gen() - the generation of the period knobs
 *
 * A running session compares it with the generation it last saw and takes
 * the period knobs again (embm_knobs_get()) when it moved.
 *
 * Context: any.
 * Return: a number bumped by every write of period or store_period; 1
 * before the first.
 */
unsigned int embm_knobs_period_gen(void)
{
	return atomic_read(&embm_period_gen);
}

/* Create /sys/kernel/mm/embm.  Process context, at boot. */
static int __init embm_sysfs_init(void)
{
	struct kobject *kobj;
	int i, err;

	embm_attrs[0] = &embm_source_attr.attr;
	for (i = 0; i < ARRAY_SIZE(embm_num_knobs); i++)
		embm_attrs[i + 1] = &embm_num_knobs[i].attr.attr;

	kobj = kobject_create_and_add("embm", mm_kobj);
	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &embm_attr_group);
	if (err)
		kobject_put(kobj);
	return err;
}
late_initcall(embm_sysfs_init);

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/sysfs-kunit.h"
#endif
