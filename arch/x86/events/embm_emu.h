/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm_emu: what the embm source "emu" (embm_emu_source.c) needs of the
 * driver of the emulated PMU (embm_emu.c)
 */
#ifndef _ARCH_X86_EVENTS_EMBM_EMU_H
#define _ARCH_X86_EVENTS_EMBM_EMU_H

#include <linux/bits.h>
#include <linux/types.h>

/* perf_event_attr.config of an embm_emu event: its sysfs format */
#define EMBM_EMU_CFG_LOAD	BIT_ULL(0)	/* "load": counts loads */
#define EMBM_EMU_CFG_STORE	BIT_ULL(1)	/* "store": counts stores */
#define EMBM_EMU_CFG_RAND	BIT_ULL(2)	/* "rand": randomised intervals */
#define EMBM_EMU_CFG_MASK	(EMBM_EMU_CFG_LOAD | EMBM_EMU_CFG_STORE | EMBM_EMU_CFG_RAND)

int embm_emu_pmu_type(void);
u32 embm_emu_features(void);

#endif /* _ARCH_X86_EVENTS_EMBM_EMU_H */
