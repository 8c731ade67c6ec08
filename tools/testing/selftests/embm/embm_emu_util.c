// SPDX-License-Identifier: GPL-2.0
/* What the tests on QEMU's embm-emu plugin share (embm_emu_util.h). */
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
