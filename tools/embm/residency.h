/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: where a process's pages are, per node (/proc/PID/numa_maps),
 * beside where its accesses went
 */
#ifndef __EMBM_TOOLS_RESIDENCY_H
#define __EMBM_TOOLS_RESIDENCY_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "report.h"

#define EMBM_RES_MAX_NODES	1024

/* One node's resident pages, in 4 KiB pages. */
struct embm_res_node {
	int node;
	unsigned long long anon, file;
};

/**
 * struct embm_residency - resident pages per node of a process (or of a
 * cgroup's processes, summed)
 * @valid:      read at least once
 * @procs:      processes read (a cgroup's may be many)
 * @elapsed_ms: when, in the session's time (status's elapsed_ms), or 0
 * @what:       "process 123" or "cgroup DIR"
 * @why:        when not @valid: why not
 * @nr:         nodes in @n, by node number
 */
struct embm_residency {
	bool valid;
	int procs;
	unsigned long long elapsed_ms;
	char what[256];
	char why[256];
	int nr;
	struct embm_res_node n[EMBM_RES_MAX_NODES];
};

int embm_residency_read_pid(struct embm_residency *res, pid_t pid, const char *root);
int embm_residency_read_cgroup(struct embm_residency *res, const char *dir, const char *root);
void embm_residency_print(FILE *f, const struct embm_residency *res,
			  const struct embm_report *r);
void embm_residency_json(FILE *f, const struct embm_residency *res);

#endif /* __EMBM_TOOLS_RESIDENCY_H */
