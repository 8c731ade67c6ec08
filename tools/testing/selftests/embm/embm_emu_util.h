/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests on QEMU's embm-emu plugin share: running a command line,
 * embm-bench's pids from its JSON, the embm_emu driver's counters.
 */
#ifndef __EMBM_EMU_UTIL_H
#define __EMBM_EMU_UTIL_H

#include <sys/types.h>

#include "../kselftest.h"

/* Run a shell command line (printed as a KTAP comment); its status, or -1. */
__printf(1, 2) int emu_run(const char *fmt, ...);

/* The "pids" of embm-bench's JSON in @path: how many, or -1. */
int emu_bench_pids(const char *path, pid_t *pids, int max);

/* A counter of the embm_emu driver's (its device's embm_emu_stats/NAME), or -1. */
long long emu_driver_stat(const char *name);

#endif /* __EMBM_EMU_UTIL_H */
