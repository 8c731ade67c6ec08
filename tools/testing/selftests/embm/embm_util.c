// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the embm selftests (embm_util.h): the knobs, /proc/embm
 * through the tools' reader (tools/embm/procfs.c), memory bound to a node,
 * and the file, process, credential and CPU helpers the tests share.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest.h"
#include "embm_util.h"

/* Parse a node list such as "0-1,3" from sysfs into @set; -1 on error. */
int embm_read_nodelist(const char *path, bool *set)
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
int embm_set_knob(const char *knob, const char *val)
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
int embm_get_knob(const char *knob, char *buf, size_t size)
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
int embm_status(const char *key, char *buf, size_t size)
{
	struct embm_proc_status *st = malloc(sizeof(*st));
	const char *v = NULL;

	if (st && !embm_proc_read_status(EMBM_PROC_DIR, st))
		v = embm_proc_status_str(st, key);
	if (v)
		snprintf(buf, size, "%s", v);
	free(st);
	return v ? 0 : -1;
}

/* A number of /proc/embm/status; -1 if missing. */
long long embm_status_ll(const char *key)
{
	char buf[64];

	return embm_status(key, buf, sizeof(buf)) ? -1 : atoll(buf);
}

/*
 * Whether one reading of /proc/embm/status adds up: samples = attributed
 * + latency_only + no_phys + bad_pfn + hotplug_busy + cxl_device_samples
 * (embm_stats_identity_ok(); the file is written under the results' lock,
 * so its figures are of one moment).  Says why on stderr when not.
 */
bool embm_status_adds_up(void)
{
	static const char *const terms[] = {
		"attributed", "latency_only", "no_phys", "bad_pfn", "hotplug_busy",
		"cxl_device_samples",
	};
	struct embm_proc_status *st = malloc(sizeof(*st));
	long long samples, sum = 0;
	const char *v;
	unsigned int i;
	bool ok = false;

	if (!st || embm_proc_read_status(EMBM_PROC_DIR, st))
		goto out;
	v = embm_proc_status_str(st, "state");
	if (v && !strcmp(v, "idle")) {
		ok = true;
		goto out;
	}
	v = embm_proc_status_str(st, "samples");
	if (!v)
		goto out;
	samples = atoll(v);
	for (i = 0; i < ARRAY_SIZE(terms); i++) {
		v = embm_proc_status_str(st, terms[i]);
		if (!v) {
			fprintf(stderr, "status has no %s\n", terms[i]);
			goto out;
		}
		sum += atoll(v);
	}
	ok = sum == samples;
	if (!ok)
		fprintf(stderr, "status: samples %lld, its terms add up to %lld\n", samples, sum);
out:
	free(st);
	return ok;
}

/*
 * Read /proc/embm/nodes into @rows (EMBM_MAX_NODES), indexed by node; a
 * node not in the file has .node -1.  The status must add up
 * (embm_status_adds_up()), or this fails: every test that reads the
 * nodes asserts the summary's identity too.  Return: the number of nodes
 * in the file, 0 when no session ran since boot, -1 on error.
 */
int embm_read_nodes(struct embm_node *rows)
{
	struct embm_node *list;
	int n, i;

	memset(rows, 0, EMBM_MAX_NODES * sizeof(*rows));
	for (i = 0; i < EMBM_MAX_NODES; i++)
		rows[i].node = -1;
	if (!embm_status_adds_up())
		return -1;
	list = calloc(EMBM_MAX_NODES, sizeof(*list));
	if (!list)
		return -1;
	n = embm_proc_read_nodes(EMBM_PROC_DIR, list, EMBM_MAX_NODES);
	for (i = 0; i < n; i++) {
		if (list[i].node < 0 || list[i].node >= EMBM_MAX_NODES) {
			n = -1;
			break;
		}
		rows[list[i].node] = list[i];
	}
	free(list);
	return n;
}

/*
 * @pages fresh 4 KiB pages that can only come from @node: bound with
 * MPOL_BIND, no transparent huge pages.  Not touched yet.
 */
char *embm_node_pages(unsigned long pages, int node)
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
void embm_touch(char *p, unsigned long pages)
{
	for (unsigned long i = 0; i < pages; i++)
		__atomic_store_n(&p[i * EMBM_PAGE], 1, __ATOMIC_RELAXED);
}

/*
 * A number from a file of /proc or /sys; -1 if it cannot be read.  Plain
 * open() and read(): no stdio buffer, so no allocation of the caller's
 * (embm_fault_test counts them) besides the file itself.
 */
long read_long(const char *path)
{
	char buf[32] = "", *end;
	int fd = open(path, O_RDONLY);
	ssize_t n;
	long v;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

/* The first line of @path, with its newline; 0 or -1. */
int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/* Write @val to @path in one write(); 0 or -1 with errno set. */
int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -1;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -1;
	close(fd);
	return err;
}

/* Wait for child @pid: its exit status, 128 + the signal that killed it, or -1. */
int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Make @caps (CAP_* bits) the effective and permitted capabilities. */
int set_caps(unsigned long long caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {
		{ .effective = caps, .permitted = caps },
		{ .effective = caps >> 32, .permitted = caps >> 32 },
	};

	return syscall(SYS_capset, &hdr, data);
}

/* Become @uid (and gid) with only @caps; stay ptrace-able by that uid. */
int become(uid_t uid, unsigned long long caps)
{
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid) ||
	    set_caps(caps) || prctl(PR_SET_DUMPABLE, 1))
		return -1;
	return 0;
}

/* Take CPU @cpu offline (@on 0) or online; 0 or -1. */
int set_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, on ? "1" : "0");
}

int online_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The pid of the kernel thread named ksamplingd (one session at a time), or -1. */
pid_t embm_ksamplingd_pid(void)
{
	char path[300], comm[32];
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t pid = -1;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (atoi(e->d_name) > 0 && !read_line(path, comm, sizeof(comm)) &&
		    !strcmp(comm, "ksamplingd\n")) {
			pid = atoi(e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	return pid;
}

/* The knobs embm_exact_sampling() sets, and to what. */
static const struct {
	const char *name;
	const char *value;
} exact_knobs[] = {
	{ "source", "swfault" }, { "period", "1" }, { "store_period", "1" },
	{ "cpu_budget", "0" },
};

#define MAX_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"

int embm_exact_sampling(struct embm_saved_knobs *saved)
{
	unsigned int i;

	memset(saved, 0, sizeof(*saved));
	for (i = 0; i < ARRAY_SIZE(exact_knobs); i++) {
		if (embm_get_knob(exact_knobs[i].name, saved->knob[i], sizeof(saved->knob[i])) ||
		    embm_set_knob(exact_knobs[i].name, exact_knobs[i].value))
			return -1;
	}
	if (read_line(MAX_RATE, saved->rate, sizeof(saved->rate)))
		return -1;
	return write_file(MAX_RATE, "1000000");
}

void embm_restore_sampling(const struct embm_saved_knobs *saved)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exact_knobs); i++)
		if (saved->knob[i][0])
			embm_set_knob(exact_knobs[i].name, saved->knob[i]);
	if (saved->rate[0])
		write_file(MAX_RATE, saved->rate);
}
