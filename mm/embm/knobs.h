/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm: the knobs under /sys/kernel/mm/embm/ (sysfs.c), as the session
 * (core.c) and ksamplingd (ksamplingd.c) read them.
 */
#ifndef __MM_EMBM_KNOBS_H
#define __MM_EMBM_KNOBS_H

struct embm_config;

void embm_knobs_get(struct embm_config *cfg);
unsigned int embm_knobs_period_gen(void);

#endif /* __MM_EMBM_KNOBS_H */
