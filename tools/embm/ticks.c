// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: what happened during each tick of a session
 *
 * /proc/embm holds the session's totals since its start.  A person
 * watching a program go through its phases wants what happened during
 * the last second instead: the difference of two successive reads.  Each
 * tick keeps the counters it was taken from (struct embm_tick_base) and
 * gives the next one the samples and estimated accesses per node since
 * then, each node's share of the tick's estimate, the same per tier, the
 * samples lost meanwhile and the period in force.  Differences telescope:
 * the ticks of a session, the last taken from the final report, add up
 * to the final report's totals exactly.
 *
 * A session's counters start at zero (embm_start() resets them), so the
 * first tick is taken against zero.  A node that appears later (memory
 * hotplug) starts at zero too.
 */
#include <stdlib.h>
#include <string.h>

#include "ticks.h"

/**
 * embm_ticks_init() - the base of a session's first tick: zero
 * @b: the base
 */
void embm_ticks_init(struct embm_tick_base *b)
{
	memset(b, 0, sizeof(*b));
}

/* @b's counters of @node, or NULL: a node new since the last tick. */
static const struct embm_tick_count *base_node(const struct embm_tick_base *b, int node)
{
	for (int i = 0; i < b->nr_nodes; i++)
		if (b->nodes[i].node == node)
			return &b->nodes[i];
	return NULL;
}

/* A counter's growth; 0 if it went back (it should not within a session). */
static unsigned long long delta(unsigned long long now, unsigned long long then)
{
	return now >= then ? now - then : 0;
}

static void sum_tiers(struct embm_tick *k)
{
	struct embm_tick_tier *t;
	int i, j;

	for (i = 0; i < k->nr_nodes; i++) {
		const struct embm_tick_node *n = &k->nodes[i];

		for (j = 0; j < k->nr_tiers; j++)
			if (!strcmp(k->tiers[j].tier, n->tier))
				break;
		if (j == EMBM_TICK_MAX_TIERS)
			continue;
		t = &k->tiers[j];
		if (j == k->nr_tiers) {
			k->nr_tiers++;
			snprintf(t->tier, sizeof(t->tier), "%s", n->tier);
		}
		t->samples += n->samples;
		t->accesses += n->accesses;
	}
	for (j = 0; j < k->nr_tiers; j++)
		k->tiers[j].share = k->accesses ? 100.0 * k->tiers[j].accesses / k->accesses : -1;
}

/**
 * embm_tick_take() - the tick that ends with report @r
 * @b:          the counters of the last tick, replaced by @r's
 * @r:          a report of the running (or, with @end, ended) session
 * @cumulative: give the totals since the start rather than the tick's
 * @end:        @r is the final report
 * @k:          filled in; free with embm_tick_free()
 *
 * With @cumulative each node's share is the report's own (share_pct of
 * /proc/embm/nodes); otherwise it is the node's part of the estimated
 * accesses of the tick, which weighs each sample by its period as the
 * report's shares do.
 *
 * Return: 0, or -1 when out of memory.
 */
int embm_tick_take(struct embm_tick_base *b, const struct embm_report *r, bool cumulative,
		   bool end, struct embm_tick *k)
{
	int i;

	memset(k, 0, sizeof(*k));
	k->nodes = calloc(r->nr_nodes ? r->nr_nodes : 1, sizeof(*k->nodes));
	if (!k->nodes)
		return -1;
	k->seq = ++b->seq;
	k->end = end;
	k->cumulative = cumulative;
	k->elapsed_ms = r->elapsed_ms;
	k->span_ms = delta(r->elapsed_ms, b->elapsed_ms);
	k->samples = cumulative ? r->samples : delta(r->samples, b->samples);
	k->attributed = cumulative ? r->attributed : delta(r->attributed, b->attributed);
	k->lost = cumulative ? r->lost : delta(r->lost, b->lost);
	k->period = r->period;
	snprintf(k->unit, sizeof(k->unit), "%s", r->unit[0] ? r->unit : "accesses");
	k->nr_nodes = r->nr_nodes;
	for (i = 0; i < r->nr_nodes; i++) {
		const struct embm_node *n = &r->nodes[i];
		struct embm_tick_node *t = &k->nodes[i];
		const struct embm_tick_count *p = cumulative ? NULL : base_node(b, n->node);

		t->node = n->node;
		t->study = n->study;
		snprintf(t->tier, sizeof(t->tier), "%s", n->tier);
		t->samples = delta(n->samples, p ? p->samples : 0);
		t->accesses = delta(n->accesses, p ? p->accesses : 0);
		k->accesses += t->accesses;
	}
	for (i = 0; i < k->nr_nodes; i++) {
		struct embm_tick_node *t = &k->nodes[i];

		if (cumulative)
			t->share = r->accesses ? r->nodes[i].share : -1;
		else
			t->share = k->accesses ? 100.0 * t->accesses / k->accesses : -1;
	}
	sum_tiers(k);

	b->elapsed_ms = r->elapsed_ms;
	b->samples = r->samples;
	b->attributed = r->attributed;
	b->lost = r->lost;
	b->nr_nodes = r->nr_nodes < EMBM_TOOLS_MAX_NODES ? r->nr_nodes : EMBM_TOOLS_MAX_NODES;
	for (i = 0; i < b->nr_nodes; i++) {
		b->nodes[i].node = r->nodes[i].node;
		b->nodes[i].samples = r->nodes[i].samples;
		b->nodes[i].accesses = r->nodes[i].accesses;
	}
	return 0;
}

void embm_tick_free(struct embm_tick *k)
{
	free(k->nodes);
	k->nodes = NULL;
}

static void print_share(FILE *f, double share)
{
	if (share < 0)
		fprintf(f, " -");
	else
		fprintf(f, " %.1f%%", share);
}

/**
 * embm_tick_print() - the tick as one line for a person
 * @f: where to
 * @k: the tick
 *
 * "t=2.0s +4120 samples: *n2 cxl 15.8% n0 dram 41.2% ...; dram 84.2% cxl
 * 15.8%; lost 0; period 10007": the session's time, the samples of the
 * tick ("+") or since the start, each node's share of the estimate ('*'
 * marks the node under study), each tier's, then the samples lost and
 * the period.  The last tick ends with "(end)".
 */
void embm_tick_print(FILE *f, const struct embm_tick *k)
{
	int i;

	fprintf(f, "t=%llu.%llus %s%llu samples:", k->elapsed_ms / 1000,
		k->elapsed_ms % 1000 / 100, k->cumulative ? "" : "+", k->samples);
	for (i = 0; i < k->nr_nodes; i++) {
		fprintf(f, " %sn%d %s", k->nodes[i].study ? "*" : "", k->nodes[i].node,
			k->nodes[i].tier);
		print_share(f, k->nodes[i].share);
	}
	fprintf(f, ";");
	for (i = 0; i < k->nr_tiers; i++) {
		fprintf(f, " %s", k->tiers[i].tier);
		print_share(f, k->tiers[i].share);
	}
	fprintf(f, "; lost %llu; period %llu%s\n", k->lost, k->period, k->end ? " (end)" : "");
}

/**
 * embm_tick_json() - the tick as one JSON object on one line (JSON Lines)
 * @f: where to
 * @k: the tick
 *
 * The names are the report's: samples, attributed, lost, period, the
 * estimate named by its unit ("accesses" or "pages"), share_pct (null
 * when the tick estimated nothing), node, tier and study.
 */
void embm_tick_json(FILE *f, const struct embm_tick *k)
{
	int i;

	fprintf(f, "{\"tick\": %u, \"end\": %s, \"cumulative\": %s, \"elapsed_ms\": %llu, ",
		k->seq, k->end ? "true" : "false", k->cumulative ? "true" : "false",
		k->elapsed_ms);
	fprintf(f, "\"span_ms\": %llu, \"samples\": %llu, \"attributed\": %llu, ", k->span_ms,
		k->samples, k->attributed);
	fprintf(f, "\"lost\": %llu, \"period\": %llu, \"unit\": \"%s\", \"%s\": %llu, \"nodes\": [",
		k->lost, k->period, k->unit, k->unit, k->accesses);
	for (i = 0; i < k->nr_nodes; i++) {
		const struct embm_tick_node *n = &k->nodes[i];

		fprintf(f, "%s{\"node\": %d, \"tier\": ", i ? ", " : "", n->node);
		embm_json_str(f, n->tier);
		fprintf(f, ", \"study\": %s, \"samples\": %llu, \"%s\": %llu, \"share_pct\": ",
			n->study ? "true" : "false", n->samples, k->unit, n->accesses);
		if (n->share < 0)
			fprintf(f, "null}");
		else
			fprintf(f, "%.2f}", n->share);
	}
	fprintf(f, "], \"tiers\": [");
	for (i = 0; i < k->nr_tiers; i++) {
		const struct embm_tick_tier *t = &k->tiers[i];

		fprintf(f, "%s{\"tier\": ", i ? ", " : "");
		embm_json_str(f, t->tier);
		fprintf(f, ", \"samples\": %llu, \"%s\": %llu, \"share_pct\": ", t->samples,
			k->unit, t->accesses);
		if (t->share < 0)
			fprintf(f, "null}");
		else
			fprintf(f, "%.2f}", t->share);
	}
	fprintf(f, "]}\n");
}
