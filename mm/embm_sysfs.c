// SPDX-License-Identifier: GPL-2.0
/*
 * embm: knobs under /sys/kernel/mm/embm/
 *
 * A session takes a copy of the knobs when it starts; changing them during
 * a session changes the next one.  embm_knobs_lock protects embm_knobs;
 * process context only.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/kobject.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "embm.h"

DEFINE_MUTEX(embm_knobs_lock);

struct embm_config embm_knobs = {
	.source		= EMBM_SRC_AUTO,
	.period		= 0,
	.store_period	= 0,
	.ldlat		= 64,
	.ring_pages	= 64,
	.cpu_budget	= 30,
	.hot_pages	= 64,
};

#define EMBM_PERIOD_LIMIT	(1ULL << 40)

static ssize_t source_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	enum embm_source_id cur;
	int i, len = 0;

	mutex_lock(&embm_knobs_lock);
	cur = embm_knobs.source;
	mutex_unlock(&embm_knobs_lock);

	len += sysfs_emit_at(buf, len, cur == EMBM_SRC_AUTO ? "[auto]" : "auto");
	for (i = 0; i < EMBM_NR_SOURCES; i++)
		len += sysfs_emit_at(buf, len, cur == i ? " [%s]" : " %s",
				     embm_sources[i]->name);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static ssize_t source_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	enum embm_source_id id = EMBM_SRC_AUTO;
	int i;

	if (!sysfs_streq(buf, "auto")) {
		for (i = 0; i < EMBM_NR_SOURCES; i++) {
			if (sysfs_streq(buf, embm_sources[i]->name))
				break;
		}
		if (i == EMBM_NR_SOURCES)
			return -EINVAL;
		id = i;
	}
	mutex_lock(&embm_knobs_lock);
	embm_knobs.source = id;
	mutex_unlock(&embm_knobs_lock);
	return count;
}

/* A u64 knob with a range: show and store. */
#define EMBM_KNOB(_name, _min, _max, _check)					\
static ssize_t _name##_show(struct kobject *kobj,				\
			    struct kobj_attribute *attr, char *buf)		\
{										\
	u64 v;									\
										\
	mutex_lock(&embm_knobs_lock);						\
	v = embm_knobs._name;							\
	mutex_unlock(&embm_knobs_lock);						\
	return sysfs_emit(buf, "%llu\n", v);					\
}										\
static ssize_t _name##_store(struct kobject *kobj,				\
			     struct kobj_attribute *attr,			\
			     const char *buf, size_t count)			\
{										\
	u64 v;									\
	int err = kstrtou64(buf, 0, &v);					\
										\
	if (err)								\
		return err;							\
	if (v < (_min) || v > (_max) || !(_check))				\
		return -EINVAL;							\
	mutex_lock(&embm_knobs_lock);						\
	embm_knobs._name = v;							\
	mutex_unlock(&embm_knobs_lock);						\
	return count;								\
}										\
static struct kobj_attribute embm_##_name##_attr = __ATTR_RW(_name)

/* 0 means the source's default period. */
EMBM_KNOB(period, 0, EMBM_PERIOD_LIMIT, true);
EMBM_KNOB(store_period, 0, EMBM_PERIOD_LIMIT, true);
/* 0 turns the load-latency event off; each model has its own maximum. */
EMBM_KNOB(ldlat, 0, 2048, v == 0 || v >= 4);
EMBM_KNOB(ring_pages, 1, 1024, is_power_of_2(v));
EMBM_KNOB(cpu_budget, 0, 1000, true);
EMBM_KNOB(hot_pages, 1, 65536, true);

static struct kobj_attribute embm_source_attr = __ATTR_RW(source);

static struct attribute *embm_attrs[] = {
	&embm_source_attr.attr,
	&embm_period_attr.attr,
	&embm_store_period_attr.attr,
	&embm_ldlat_attr.attr,
	&embm_ring_pages_attr.attr,
	&embm_cpu_budget_attr.attr,
	&embm_hot_pages_attr.attr,
	NULL,
};

static const struct attribute_group embm_attr_group = {
	.attrs = embm_attrs,
};

/**
 * embm_sysfs_init() - create /sys/kernel/mm/embm
 *
 * Context: process, at boot.
 * Return: 0 or a negative errno.
 */
int embm_sysfs_init(void)
{
	struct kobject *kobj;
	int err;

	kobj = kobject_create_and_add("embm", mm_kobj);
	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &embm_attr_group);
	if (err)
		kobject_put(kobj);
	return err;
}
