/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the embm selftests: the system calls, the knobs, the files
 * of /proc/embm, memory bound to a node, and the file, process and CPU
 * helpers the tests share (embm_util.c).
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
#include <sys/types.h>
#include <unistd.h>

#include "procfs.h"

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

/* The errno of a call that failed with -1; 0 if it did not fail. */
#define ERRNO_OF(call)	((call) == -1 ? errno : 0)

/* The knobs and /proc/embm, the latter read by tools/embm/procfs.c. */
int embm_read_nodelist(const char *path, bool *set);
int embm_set_knob(const char *knob, const char *val);
int embm_get_knob(const char *knob, char *buf, size_t size);
int embm_status(const char *key, char *buf, size_t size);
long long embm_status_ll(const char *key);
int embm_read_nodes(struct embm_node *rows);
bool embm_status_adds_up(void);

/*
 * Every fault one sample: source swfault, periods 1, a fixed period, and
 * perf_event_max_sample_rate high enough that perf does not throttle (a
 * guest fault takes ~16 us).  embm_exact_sampling() saves what it changes
 * into @saved; embm_restore_sampling() puts back what was saved.
 */
struct embm_saved_knobs {
	char knob[4][64];
	char rate[32];
};

int embm_exact_sampling(struct embm_saved_knobs *saved);
void embm_restore_sampling(const struct embm_saved_knobs *saved);

/* Memory bound to a node. */
char *embm_node_pages(unsigned long pages, int node);
void embm_touch(char *p, unsigned long pages);

/* Files, processes, credentials and CPUs. */
long read_long(const char *path);
int read_line(const char *path, char *buf, size_t size);
int write_file(const char *path, const char *val);
int reap(pid_t pid);
int set_caps(unsigned long long caps);
int become(uid_t uid, unsigned long long caps);
int set_online(int cpu, int on);
int online_cpus(void);
void sleep_ms(long ms);
pid_t embm_ksamplingd_pid(void);

#endif /* __EMBM_UTIL_H */
