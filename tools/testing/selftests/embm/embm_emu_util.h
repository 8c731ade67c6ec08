/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests on QEMU's embm-emu plugin share: running a command line,
 * embm-bench's pids from its JSON, the embm_emu driver's counters, the
 * oracle's counts of some tasks per node.
 */
#ifndef __EMBM_EMU_UTIL_H
#define __EMBM_EMU_UTIL_H

#include <sys/types.h>

#include "../kselftest.h"
#include "embm_util.h"
#include "emu_oracle.h"

/*
 * The oracle's counts of some tasks, per node: @acc [node][0 loads,
 * 1 stores], @cpl [node][0 user, 1 kernel] (loads and stores), @all
 * [0 loads, 1 stores] of every node and of no node.
 */
struct truth {
	unsigned long long acc[EMBM_MAX_NODES][2];
	unsigned long long cpl[EMBM_MAX_NODES][2];
	unsigned long long all[2];
	int kind[EMBM_MAX_NODES];	/* EMBM_EMU_KIND_*, -1: no range */
};

/* Run a shell command line (printed as a KTAP comment); its status, or -1. */
__printf(1, 2) int emu_run(const char *fmt, ...);

/* The "pids" of embm-bench's JSON in @path: how many, or -1. */
int emu_bench_pids(const char *path, pid_t *pids, int max);

/* A counter of the embm_emu driver's (its device's embm_emu_stats/NAME), or -1. */
long long emu_driver_stat(const char *name);

/* The standard error (pp) of a share @p (percent) of @n equal samples. */
double emu_share_se(double p, unsigned long long n);

/*
 * How much wider the last session's node shares are than equal samples'
 * (emu_share_se() of all its samples), by embm's own 95% intervals in
 * /proc/embm/nodes: the most of any node with a share from 1% to 99%,
 * from 1 to at most 2 (a chosen limit: the periods moved 4 to 8 fold in
 * the runs here, and embm's intervals were 1.0 to 1.4 times as wide), so
 * that embm cannot loosen its own tests further.  Samples that weigh
 * differently (periods the CPU budget doubled while the run went on;
 * stores with their own period) are fewer draws' worth than their number.
 * Prints the factor, and says when it was limited or could not be read
 * (then 1, the strictest).
 */
double emu_weight_factor(void);

/*
 * The oracle's counts of the tasks @pids (their address-space keys, as
 * the driver tags them) into @t.  Return: how many of them it has.
 */
int truth_of(const struct emu_snapshot *snap, const pid_t *pids, int n, struct truth *t);

/*
 * The counts of every task the driver tagged (kernel threads and the idle
 * task included): not the accesses of the driver's own drains, which it
 * leaves untagged because its events are frozen then, as a hardware PMU
 * is in its interrupt handler.
 */
void truth_tagged(const struct emu_snapshot *snap, struct truth *t);

/* @b - @a, node by node (the counts of a window). */
void truth_sub(struct truth *b, const struct truth *a);

/* The tier embm names a range kind (EMBM_EMU_KIND_*). */
const char *kind_tier(int kind);

/* Nodes with memory, in @nodes (room for EMBM_MAX_NODES); how many. */
int memory_nodes(int *nodes);

#endif /* __EMBM_EMU_UTIL_H */
