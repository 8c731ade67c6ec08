/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: the kernel's tiering counters (/proc/vmstat and each node's
 * vmstat) over a session
 */
#ifndef __EMBM_TOOLS_VMSTAT_H
#define __EMBM_TOOLS_VMSTAT_H

#include <stdbool.h>
#include <stdio.h>

/* One counter of a snapshot. */
struct embm_vmstat_item {
	int node;		/* -1: /proc/vmstat's, else the node's vmstat */
	char name[40];
	unsigned long long v;
};

/**
 * struct embm_vmstat - a snapshot of the tiering counters
 * @nr:        items in @it
 * @size:      items @it has room for
 * @it:        the counters, /proc/vmstat's first, then node by node
 * @why:       when @it is empty: why /proc/vmstat could not be read
 * @nodes_why: when no node's vmstat could be read: why
 * @folded:    the CPUs' counts were folded in first (root: vm.stat_refresh)
 */
struct embm_vmstat {
	int nr, size;
	struct embm_vmstat_item *it;
	char why[512];
	char nodes_why[512];
	bool folded;
};

void embm_vmstat_read(struct embm_vmstat *s, const char *root);
void embm_vmstat_free(struct embm_vmstat *s);
bool embm_vmstat_wanted(const char *name, bool node);
bool embm_vmstat_delta(const struct embm_vmstat *a, const struct embm_vmstat *b,
		       int node, const char *name, long long *delta);
void embm_vmstat_print(FILE *f, const struct embm_vmstat *a, const struct embm_vmstat *b);
void embm_vmstat_json(FILE *f, const struct embm_vmstat *a, const struct embm_vmstat *b);

#endif /* __EMBM_TOOLS_VMSTAT_H */
