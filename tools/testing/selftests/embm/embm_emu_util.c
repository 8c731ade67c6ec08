// SPDX-License-Identifier: GPL-2.0
/* What the tests on QEMU's embm-emu plugin share (embm_emu_util.h). */
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "embm_emu_util.h"

#define STATS_GLOB	"/sys/bus/pci/drivers/embm_emu/*/embm_emu_stats"

int emu_run(const char *fmt, ...)
{
	char cmd[1536];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# %s\n", cmd);
	st = system(cmd);
	return st < 0 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

int emu_bench_pids(const char *path, pid_t *pids, int max)
{
	char buf[8192], *p;
	FILE *f = fopen(path, "r");
	size_t len;
	int n = 0;

	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	p = strstr(buf, "\"pids\": [");
	if (!p)
		return -1;
	p += strlen("\"pids\": [");
	while (n < max && *p && *p != ']') {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			return -1;
		pids[n++] = v;
		for (p = end; *p == ',' || *p == ' '; p++)
			;
	}
	return n;
}

long long emu_driver_stat(const char *name)
{
	char cmd[600], buf[64] = "";
	FILE *f;

	/* The device's PCI address is not known here: the shell globs it. */
	snprintf(cmd, sizeof(cmd), "cat %s/%s 2>/dev/null", STATS_GLOB, name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	pclose(f);
	return buf[0] ? atoll(buf) : -1;
}

double emu_share_se(double p, unsigned long long n)
{
	return n ? 100.0 * sqrt(p / 100 * (1 - p / 100) / n) : 100;
}

double emu_weight_factor(void)
{
	static struct embm_node rows[EMBM_MAX_NODES];
	unsigned long long samples = 0;
	double f = 1;
	int nr, i;

	nr = embm_proc_read_nodes(EMBM_PROC_DIR, rows, EMBM_MAX_NODES);
	if (nr <= 0) {
		ksft_print_msg("weight factor: no %s/nodes to read; 1\n", EMBM_PROC_DIR);
		return 1;
	}
	for (i = 0; i < nr; i++)
		samples += rows[i].samples;
	for (i = 0; i < nr; i++) {
		double se = emu_share_se(rows[i].share, samples);

		if (rows[i].share >= 1 && rows[i].share <= 99 && se > 0)
			f = fmax(f, (rows[i].share_hi - rows[i].share_lo) / 2 / 1.96 / se);
	}
	ksft_print_msg("weight factor %.2f%s: embm's node intervals against equal samples'\n",
		       fmin(f, 2), f > 2 ? " (limited to 2)" : "");
	return fmin(f, 2);
}

/* Start @t: nothing counted, each node's kind from the oracle's ranges. */
static void truth_init(const struct emu_snapshot *snap, struct truth *t)
{
	memset(t, 0, sizeof(*t));
	for (int n = 0; n < EMBM_MAX_NODES; n++)
		t->kind[n] = -1;
	for (int r = 0; r < (int)snap->nr_ranges; r++)
		if (snap->range[r].node < EMBM_MAX_NODES)
			t->kind[snap->range[r].node] = snap->range[r].kind;
}

/* Add address space @sp's counts to @t. */
static void truth_add_space(const struct emu_snapshot *snap, int sp, struct truth *t)
{
	for (int r = 0; r < (int)snap->nr_ranges; r++) {
		unsigned int node = snap->range[r].node;

		for (int m = 0; m < 2; m++) {
			for (int o = 0; o < 2; o++) {
				unsigned long long a = snap->spaces[sp][r][m][o];

				if (node < EMBM_MAX_NODES) {
					t->acc[node][o] += a;
					t->cpl[node][m] += a;
				}
				t->all[o] += a;
			}
		}
	}
}

int truth_of(const struct emu_snapshot *snap, const pid_t *pids, int n, struct truth *t)
{
	int found = 0;

	truth_init(snap, t);
	for (int i = 0; i < n; i++) {
		int sp = emu_space_index(snap, EMBM_EMU_TASK(pids[i]));

		if (sp < 0)
			continue;
		found++;
		truth_add_space(snap, sp, t);
	}
	return found;
}

void truth_tagged(const struct emu_snapshot *snap, struct truth *t)
{
	truth_init(snap, t);
	for (int sp = 0; sp < EMBM_EMU_OTHER_SPACE; sp++)
		if (snap->space_key[sp] & EMBM_EMU_TASK_BIT)
			truth_add_space(snap, sp, t);
}

void truth_sub(struct truth *b, const struct truth *a)
{
	for (int n = 0; n < EMBM_MAX_NODES; n++) {
		for (int o = 0; o < 2; o++) {
			b->acc[n][o] -= a->acc[n][o];
			b->cpl[n][o] -= a->cpl[n][o];
		}
	}
	for (int o = 0; o < 2; o++)
		b->all[o] -= a->all[o];
}

const char *kind_tier(int kind)
{
	return kind == EMBM_EMU_KIND_CXL ? "cxl" : kind == EMBM_EMU_KIND_FAR ? "far" : "dram";
}

int memory_nodes(int *nodes)
{
	static bool set[EMBM_MAX_NODES];
	int n, nr = 0;

	if (embm_read_nodelist("/sys/devices/system/node/has_memory", set))
		return 0;
	for (n = 0; n < EMBM_MAX_NODES; n++)
		if (set[n])
			nodes[nr++] = n;
	return nr;
}
