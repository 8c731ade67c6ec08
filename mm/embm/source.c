// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the registered sources of samples
 *
 * Each source registers itself at boot with embm_register_source(): PEBS
 * and IBS from arch/x86/events/{intel,amd}/, swfault from swfault.c.  The
 * table is kept in rank order, the order the automatic choice tries the
 * sources in (choose.c).  It is written only by initcalls, which run one
 * at a time before user space can start a session or write the source
 * knob, and only read after that: it needs no lock, readers may be in any
 * context, and it is read-only once init is done (__ro_after_init).
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/embm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "source.h"

#define EMBM_MAX_SOURCES	8	/* sources that may register */

static const struct embm_source *embm_sources[EMBM_MAX_SOURCES] __ro_after_init;
static unsigned int embm_nr_sources __ro_after_init;

/* Put @src in the table at its rank.  Initcalls only. */
static int __init embm_source_insert(const struct embm_source *src)
{
	unsigned int i, at;

	if (!src->name || !*src->name || !src->setup || !strcmp(src->name, "auto"))
		return -EINVAL;
	for (i = 0; i < embm_nr_sources; i++) {
		if (!strcmp(embm_sources[i]->name, src->name) ||
		    embm_sources[i]->rank == src->rank)
			return -EEXIST;
	}
	if (embm_nr_sources == EMBM_MAX_SOURCES)
		return -ENOSPC;
	for (at = 0; at < embm_nr_sources && embm_sources[at]->rank < src->rank; at++)
		;
	for (i = embm_nr_sources; i > at; i--)
		embm_sources[i] = embm_sources[i - 1];
	embm_sources[at] = src;
	embm_nr_sources++;
	return 0;
}

/**
 * embm_register_source() - offer a source of samples to embm
 * @src: the source; a static table, never unregistered
 *
 * @src joins the automatic choice at its rank and may be forced through
 * /sys/kernel/mm/embm/source by its name.  Sources register from an
 * initcall: the table is then complete before user space can start a
 * session, and needs no lock.
 *
 * Context: process, at boot (initcalls only).
 * Return: 0; -EINVAL for a source without a name or setup(), or named
 * "auto" (the knob's word for the automatic choice); -EEXIST when its
 * name or its rank is taken; -ENOSPC when EMBM_MAX_SOURCES sources are
 * registered already.  Each is a source's bug, and is logged: an initcall's
 * error is otherwise seen only with initcall_debug.
 */
int __init embm_register_source(const struct embm_source *src)
{
	int err = src ? embm_source_insert(src) : -EINVAL;

	if (err) {
		pr_err("source %s not registered: %d\n",
		       src && src->name ? src->name : "(unnamed)", err);
		return err;
	}
	pr_debug("source %s registered, rank %u\n", src->name, src->rank);
	return 0;
}

/**
 * embm_source_at() - the registered sources, in rank order
 * @i: from 0 up
 *
 * Context: any.
 * Return: the @i-th source the automatic choice tries, or NULL past the
 * last.
 */
const struct embm_source *embm_source_at(unsigned int i)
{
	return i < embm_nr_sources ? embm_sources[i] : NULL;
}

/**
 * embm_source_find() - a registered source by its name
 * @name: as written to the source knob: a trailing newline is ignored
 *	  (sysfs_streq())
 *
 * Context: any.
 * Return: the source, or NULL when none has that name.
 */
const struct embm_source *embm_source_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < embm_nr_sources; i++) {
		if (sysfs_streq(name, embm_sources[i]->name))
			return embm_sources[i];
	}
	return NULL;
}
