/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: what happened during each tick of a session, from two
 * successive reports
 */
#ifndef __EMBM_TOOLS_TICKS_H
#define __EMBM_TOOLS_TICKS_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

#define EMBM_TICK_MAX_TIERS	8

/* One node during a tick: @share of the tick's estimate, in percent (< 0: none). */
struct embm_tick_node {
	int node;
	char tier[EMBM_PROC_WORD];
	bool study;
	unsigned long long samples, accesses;
	double share;
};

struct embm_tick_tier {
	char tier[EMBM_PROC_WORD];
	unsigned long long samples, accesses;
	double share;
};

/**
 * struct embm_tick - one tick: what the session counted during it, or
 * since its start with @cumulative
 * @seq:        1 for the first tick
 * @elapsed_ms: the session's time at the tick's end (status's elapsed_ms)
 * @span_ms:    the tick's length in the session's time
 * @end:        the last tick, from the final report
 * @cumulative: the figures are the totals since the start
 * @samples:    every sample (status's samples), @attributed those on a node
 * @lost:       samples lost (the ring was full)
 * @accesses:   the estimate (status's accesses_unit), summed over the nodes
 * @period:     the period in force at the tick's end
 * @unit:       "accesses" or "pages", as the report names the estimate
 * @nr_nodes:   nodes in @nodes, in the report's order (the node under study first)
 * @nr_tiers:   tiers in @tiers, in the order of their first node
 */
struct embm_tick {
	unsigned int seq;
	unsigned long long elapsed_ms, span_ms;
	bool end, cumulative;
	unsigned long long samples, attributed, lost, accesses, period;
	char unit[16];
	int nr_nodes, nr_tiers;
	struct embm_tick_node *nodes;
	struct embm_tick_tier tiers[EMBM_TICK_MAX_TIERS];
};

/* A node's counters in the last report a tick was taken from. */
struct embm_tick_count {
	int node;
	unsigned long long samples, accesses;
};

/* The counters of the last report a tick was taken from. */
struct embm_tick_base {
	unsigned int seq;
	unsigned long long elapsed_ms, samples, attributed, lost;
	int nr_nodes;
	struct embm_tick_count nodes[EMBM_TOOLS_MAX_NODES];
};

void embm_ticks_init(struct embm_tick_base *b);
int embm_tick_take(struct embm_tick_base *b, const struct embm_report *r, bool cumulative,
		   bool end, struct embm_tick *k);
void embm_tick_free(struct embm_tick *k);
void embm_tick_print(FILE *f, const struct embm_tick *k);
void embm_tick_json(FILE *f, const struct embm_tick *k);

#endif /* __EMBM_TOOLS_TICKS_H */
