/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm: the registered sources of samples (source.c), for the automatic
 * choice (choose.c) and the source knob (sysfs.c).  Sources themselves see
 * only <linux/embm.h>.
 */
#ifndef __MM_EMBM_SOURCE_H
#define __MM_EMBM_SOURCE_H

struct embm_source;

const struct embm_source *embm_source_at(unsigned int i);
const struct embm_source *embm_source_find(const char *name);

#endif /* __MM_EMBM_SOURCE_H */
