/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the embm selftests: the system calls, the knobs, the files
 * of /proc/embm, and memory bound to a node.
 */
#ifndef __EMBM_UTIL_H
#define __EMBM_UTIL_H

#include <errno.h>
#include <linux/embm.h>
#include <linux/mempolicy.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EMBM_MAX_NODES	1024
#define EMBM_PAGE	4096UL

static inline long embm_start(pid_t pid, int node)
{
	return syscall(__NR_embm_start, pid, node, 0);
}

static inline long embm_end(pid_t pid)
{
	return syscall(__NR_embm_end, pid, 0);
}

/* Parse a node list such as "0-1,3" from sysfs into @set; -1 on error. */
static inline int embm_read_nodelist(const char *path, bool *set)
{
	char buf[4096], *p, *end;
	long a, b;
	FILE *f;

	memset(set, 0, EMBM_MAX_NODES * sizeof(*set));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (p = buf; *p && *p != '\n'; p = end + (*end == ',')) {
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (end == p || a < 0 || b >= EMBM_MAX_NODES || a > b)
			return -1;
		while (a <= b)
			set[a++] = true;
	}
	return 0;
}

/* Write @val to /sys/kernel/mm/embm/@knob; 0 or an errno. */
static inline int embm_set_knob(const char *knob, const char *val)
{
	char path[256];
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/embm/%s", knob);
	f = fopen(path, "w");
	if (!f)
		return errno;
	if (fputs(val, f) < 0)
		err = errno;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

/* Read /sys/kernel/mm/embm/@knob into @buf (the selected word for source); 0 or -1. */
static inline int embm_get_knob(const char *knob, char *buf, size_t size)
{
	char path[256], line[256], *s, *e;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/mm/embm/%s", knob);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	s = strchr(line, '[');
	if (s) {
		e = strchr(++s, ']');
		if (e)
			*e = 0;
	} else {
		s = line;
	}
	snprintf(buf, size, "%s", s);
	return 0;
}

/* Value of "key value" in /proc/embm/status, as a string; 0 if found. */
static inline int embm_status(const char *key, char *buf, size_t size)
{
	char line[512];
	size_t n = strlen(key);
	int ret = -1;
	FILE *f = fopen("/proc/embm/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n) && line[n] == ' ') {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, size, "%s", line + n + 1);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline long long embm_status_ll(const char *key)
{
	char buf[64];

	return embm_status(key, buf, sizeof(buf)) ? -1 : atoll(buf);
}

/* One line of /proc/embm/nodes. */
struct embm_node_row {
	int node;
	char tier[16];
	unsigned long long samples, loads, stores, accesses, lat_samples,
			   lat_mean, pages;
	double share;
	bool study;
};

/* Read /proc/embm/nodes into @rows, indexed by node; -1 on error. */
static inline int embm_read_nodes(struct embm_node_row *rows)
{
	struct embm_node_row r;
	char line[512], study[4];
	int version = 0, n = 0;
	FILE *f = fopen("/proc/embm/nodes", "r");

	memset(rows, 0, EMBM_MAX_NODES * sizeof(*rows));
	for (int i = 0; i < EMBM_MAX_NODES; i++)
		rows[i].node = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "version %d", &version) == 1 || !strncmp(line, "node ", 5) ||
		    !strncmp(line, "state ", 6))
			continue;
		memset(&r, 0, sizeof(r));
		if (sscanf(line, "%d %15s %llu %lf %llu %llu %llu %llu %llu %llu %3s",
			   &r.node, r.tier, &r.samples, &r.share, &r.loads, &r.stores,
			   &r.accesses, &r.lat_samples, &r.lat_mean, &r.pages, study) != 11 ||
		    r.node < 0 || r.node >= EMBM_MAX_NODES) {
			fclose(f);
			return -1;
		}
		r.study = study[0] == '*';
		rows[r.node] = r;
		n++;
	}
	fclose(f);
	return version == EMBM_PROC_VERSION ? n : -1;
}

/*
 * @pages fresh 4 KiB pages that can only come from @node: bound with
 * MPOL_BIND, no transparent huge pages.  Not touched yet.
 */
static inline char *embm_node_pages(unsigned long pages, int node)
{
	unsigned long mask[EMBM_MAX_NODES / (8 * sizeof(long))] = { 0 };
	char *p;

	p = mmap(NULL, pages * EMBM_PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	if (madvise(p, pages * EMBM_PAGE, MADV_NOHUGEPAGE) ||
	    syscall(__NR_mbind, p, pages * EMBM_PAGE, MPOL_BIND, mask,
		    EMBM_MAX_NODES, MPOL_MF_STRICT)) {
		munmap(p, pages * EMBM_PAGE);
		return NULL;
	}
	return p;
}

/* Write one byte to each page: one first-touch fault each. */
static inline void embm_touch(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		__atomic_store_n(&p[i * EMBM_PAGE], 1, __ATOMIC_RELAXED);
}

#endif /* __EMBM_UTIL_H */
