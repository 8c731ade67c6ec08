// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: the embm-emu device from user space (see emu_oracle.h)
 *
 * The device is QEMU's ivshmem-plain (1af4:1110) whose BAR 2 is the memory
 * file the embm-emu TCG plugin shares; sysfs maps it (resource2, root).
 * The doorbell is CPUID, which user space executes as well as the kernel.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "emu_oracle.h"

#define PCI_DIR		"/sys/bus/pci/devices"
#define NODE_DIR	"/sys/devices/system/node"
#define MEM_DIR		"/sys/devices/system/memory"
#define MAX_NODES	1024

static char err_buf[512];

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Why sysfs cannot map the BAR beside a driver's mapping of another type. */
#define NO_MAP_WHY	"its kernel driver holds the BAR: a kernel with " \
			"CONFIG_IO_STRICT_DEVMEM refuses to map it beside the driver " \
			"(boot with iomem=relaxed), and PAT a map of another memory type " \
			"(dmesg's x86/PAT line); or boot without the driver " \
			"(initcall_blacklist=embm_emu_driver_init)"

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
	va_end(ap);
	return -1;
}

const char *emu_error(void)
{
	return err_buf;
}

static long read_hex_file(const char *path)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 16);
	fclose(f);
	return v;
}

/* Offsets and sizes the plugin wrote, within the BAR. */
static int check_layout(struct emu_dev *d)
{
	struct embm_emu_header *h = d->hdr;
	uint64_t n = h->nr_cpus, size = d->size;
	struct { uint64_t off, len; const char *what; } part[] = {
		{ h->cpu_off, n * sizeof(struct embm_emu_cpu), "cpus" },
		{ h->ring_off, n * h->ring_records * sizeof(struct embm_emu_record), "rings" },
		{ h->oracle_off, n * sizeof(struct embm_emu_oracle), "oracle" },
		{ h->space_off, n * sizeof(struct embm_emu_space), "spaces" },
		{ h->page_off, (uint64_t)h->max_pages * sizeof(uint64_t), "pages" },
		{ h->page_count_off, n * h->max_pages * 2 * sizeof(uint64_t), "page counts" },
	};
	size_t i;

	if (h->magic != EMBM_EMU_MAGIC)
		return fail("%s: no embm-emu magic (is QEMU's embm-emu plugin loaded?)", d->pci);
	if (h->version != EMBM_EMU_VERSION)
		return fail("%s: layout version %u, this tool knows %u", d->pci,
			    h->version, EMBM_EMU_VERSION);
	if (!n || n > EMBM_EMU_MAX_CPUS || !h->ring_records ||
	    (h->ring_records & (h->ring_records - 1)) || h->ring_records > (1U << 24) ||
	    h->max_pages > (1U << 24) || h->size > size)
		return fail("%s: bad header (cpus %u, ring %u, pages %u, size %llu of %zu)",
			    d->pci, h->nr_cpus, h->ring_records, h->max_pages,
			    (unsigned long long)h->size, d->size);
	for (i = 0; i < ARRAY_SIZE(part); i++)
		if (part[i].off < sizeof(*h) || part[i].off > size ||
		    part[i].len > size - part[i].off)
			return fail("%s: the %s lie outside the %zu bytes", d->pci,
				    part[i].what, d->size);
	d->nr_cpus = n;
	return 0;
}

int emu_open(struct emu_dev *d)
{
	char path[512];
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int found = 0;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	dir = opendir(PCI_DIR);
	if (!dir)
		return fail("%s: %s", PCI_DIR, strerror(errno));
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI_DIR "/%s/vendor", de->d_name);
		if (read_hex_file(path) != EMBM_EMU_PCI_VENDOR)
			continue;
		snprintf(path, sizeof(path), PCI_DIR "/%s/device", de->d_name);
		if (read_hex_file(path) != EMBM_EMU_PCI_DEVICE)
			continue;
		snprintf(d->pci, sizeof(d->pci), "%s", de->d_name);
		found = 1;
		break;
	}
	closedir(dir);
	if (!found)
		return fail("no ivshmem-plain device (1af4:1110) in " PCI_DIR
			    ": boot without scripts/embm run's --no-emu, under QEMU 10");
	snprintf(path, sizeof(path), PCI_DIR "/%s/driver", d->pci);
	d->driver_bound = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), PCI_DIR "/%s/resource%d", d->pci, EMBM_EMU_BAR);
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return fail("%s: %s%s", path, strerror(errno),
			    errno == EACCES || errno == EPERM ? " (root only)" : "");
	if (fstat(d->fd, &st) || st.st_size < (off_t)sizeof(struct embm_emu_header)) {
		close(d->fd);
		return fail("%s: no BAR %d to map", path, EMBM_EMU_BAR);
	}
	d->size = st.st_size;
	d->map = mmap(NULL, d->size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, 0);
	if (d->map == MAP_FAILED) {
		int e = errno;

		close(d->fd);
		/*
		 * The driver holds the BAR (pci_request_region()): refused under
		 * CONFIG_IO_STRICT_DEVMEM, or by PAT beside another memory type.
		 */
		if (e == EINVAL && d->driver_bound)
			return fail("cannot map %s: %s: %s", path, strerror(e), NO_MAP_WHY);
		return fail("cannot map %s: %s", path, strerror(e));
	}
	d->hdr = d->map;
	if (check_layout(d)) {
		emu_close(d);
		return -1;
	}
	return 0;
}

void emu_close(struct emu_dev *d)
{
	if (d->map && d->map != MAP_FAILED)
		munmap(d->map, d->size);
	if (d->fd >= 0)
		close(d->fd);
	d->map = NULL;
	d->fd = -1;
}

void emu_doorbell(void)
{
	unsigned int a = 0, b, c = 0, dx;

	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(dx) : : "memory");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int emu_commit(struct emu_dev *d, int timeout_ms)
{
	struct embm_emu_header *h = d->hdr;
	double end = now_ms() + timeout_ms;
	uint64_t gen;

	/*
	 * gen has two writers, this tool and the kernel's driver: bump it
	 * with one atomic read-modify-write (LOCK XADD), after the fields
	 * (a full barrier), never with a load and a store that could lose
	 * the driver's bump.
	 */
	gen = __atomic_add_fetch(&h->gen, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		emu_doorbell();
		/* Taken, or passed by a later change (the driver's) that took it. */
		if ((int64_t)(__atomic_load_n(&h->gen_seen, __ATOMIC_ACQUIRE) - gen) >= 0)
			break;
		if (now_ms() > end)
			return fail("the plugin did not take gen %llu within %d ms (gen_seen %llu)",
				    (unsigned long long)gen, timeout_ms,
				    (unsigned long long)__atomic_load_n(&h->gen_seen,
									   __ATOMIC_RELAXED));
		usleep(200);
	}
	if (h->error)
		fail("the plugin refused the change: error %u (%s)", h->error,
		     h->error == EMBM_EMU_ERR_RANGES ? "ranges" :
		     h->error == EMBM_EMU_ERR_NODE ? "a node" :
		     h->error == EMBM_EMU_ERR_PAGES ? "the page list" :
		     h->error == EMBM_EMU_ERR_WANT ? "want" : "?");
	return h->error;
}

int emu_set_want(struct emu_dev *d, uint32_t want, int timeout_ms)
{
	/* User space's own field: the driver's is drv_want. */
	__atomic_store_n(&d->hdr->want, want, __ATOMIC_RELAXED);
	return emu_commit(d, timeout_ms);
}

/* Parse a cpulist ("0-1,4") into a callback per CPU. */
static void cpulist_each(const char *s, void (*fn)(int cpu, void *arg), void *arg)
{
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a, i;

		if (end == s)
			break;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (i = a; i <= b && i < EMBM_EMU_MAX_CPUS; i++)
			fn(i, arg);
		if (*s == ',')
			s++;
	}
}

struct node_cpus {
	uint32_t *cpu_node;
	int node, count;
};

static void set_cpu_node(int cpu, void *arg)
{
	struct node_cpus *nc = arg;

	nc->cpu_node[cpu] = nc->node;
	nc->count++;
}

/* CXL fixed memory windows, from /proc/iomem (root sees the addresses). */
static int cxl_windows(uint64_t (*win)[2], int max)
{
	char line[256];
	FILE *f = fopen("/proc/iomem", "r");
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (!strstr(line, "CXL Window"))
			continue;
		if (sscanf(line, " %llx-%llx", &a, &b) == 2 && b > a) {
			win[n][0] = a;
			win[n][1] = b + 1;
			n++;
		}
	}
	fclose(f);
	return n;
}

static int add_range(struct embm_emu_range *r, unsigned int *nr, uint64_t start,
		     uint64_t end, unsigned int node)
{
	if (*nr && r[*nr - 1].node == node && r[*nr - 1].end == start) {
		r[*nr - 1].end = end;
		return 0;
	}
	if (*nr >= EMBM_EMU_MAX_RANGES)
		return fail("more than %d memory ranges", EMBM_EMU_MAX_RANGES);
	r[*nr].start = start;
	r[*nr].end = end;
	r[*nr].node = node;
	r[*nr].kind = EMBM_EMU_KIND_DRAM;
	(*nr)++;
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct embm_emu_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Memory blocks of each node (memory hotplug's sysfs), merged. */
static int ranges_from_blocks(struct embm_emu_range *r, unsigned int *nr)
{
	struct { uint64_t block; unsigned int node; } *b = NULL;
	size_t nb = 0, cap = 0, i;
	long bs = read_hex_file(MEM_DIR "/block_size_bytes");
	DIR *nd;
	struct dirent *de;

	if (bs <= 0)
		return -1;
	nd = opendir(NODE_DIR);
	if (!nd)
		return -1;
	while ((de = readdir(nd))) {
		char path[512];
		unsigned int node;
		struct dirent *me;
		DIR *md;

		if (sscanf(de->d_name, "node%u", &node) != 1)
			continue;
		snprintf(path, sizeof(path), NODE_DIR "/%s", de->d_name);
		md = opendir(path);
		if (!md)
			continue;
		while ((me = readdir(md))) {
			unsigned long m;

			if (sscanf(me->d_name, "memory%lu", &m) != 1)
				continue;
			if (nb == cap) {
				void *p = realloc(b, (cap = cap ? cap * 2 : 64) * sizeof(*b));

				if (!p)
					break;
				b = p;
			}
			b[nb].block = m;
			b[nb].node = node;
			nb++;
		}
		closedir(md);
	}
	closedir(nd);
	if (!nb) {
		free(b);
		return -1;
	}
	/* insertion sort by block: few hundred */
	for (i = 1; i < nb; i++) {
		size_t j = i;

		while (j && b[j - 1].block > b[j].block) {
			__typeof__(*b) t = b[j];

			b[j] = b[j - 1];
			b[--j] = t;
		}
	}
	*nr = 0;
	for (i = 0; i < nb; i++)
		if (add_range(r, nr, b[i].block * bs, (b[i].block + 1) * bs, b[i].node)) {
			free(b);
			return -1;
		}
	free(b);
	return 0;
}

/* Zone spans of each node, from /proc/zoneinfo (no memory hotplug). */
static int ranges_from_zoneinfo(struct embm_emu_range *r, unsigned int *nr)
{
	char line[256];
	FILE *f = fopen("/proc/zoneinfo", "r");
	unsigned int node = 0;
	unsigned long spanned = 0, start;

	if (!f)
		return fail("/proc/zoneinfo: %s", strerror(errno));
	*nr = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %u, zone", &node) == 1) {
			spanned = 0;
		} else if (sscanf(line, " spanned %lu", &spanned) == 1) {
			continue;
		} else if (sscanf(line, " start_pfn: %lu", &start) == 1 && spanned) {
			if (add_range(r, nr, (uint64_t)start << 12,
				      (uint64_t)(start + spanned) << 12, node)) {
				fclose(f);
				return -1;
			}
		}
	}
	fclose(f);
	qsort(r, *nr, sizeof(*r), range_cmp);
	return *nr ? 0 : fail("no memory ranges in /proc/zoneinfo");
}

int emu_publish_topology(struct emu_dev *d)
{
	struct embm_emu_range r[EMBM_EMU_MAX_RANGES];
	static uint32_t cpu_node[EMBM_EMU_MAX_CPUS];
	static int node_has_cpus[MAX_NODES];
	uint64_t win[8][2];
	unsigned int nr = 0, i;
	int nw, w;
	DIR *nd;
	struct dirent *de;

	memset(cpu_node, 0, sizeof(cpu_node));
	memset(node_has_cpus, 0, sizeof(node_has_cpus));
	if (ranges_from_blocks(r, &nr) && ranges_from_zoneinfo(r, &nr))
		return -1;
	nd = opendir(NODE_DIR);
	if (!nd)
		return fail(NODE_DIR ": %s", strerror(errno));
	while ((de = readdir(nd))) {
		char path[512], buf[4096];
		struct node_cpus nc = { cpu_node, 0, 0 };
		unsigned int node;
		FILE *f;

		if (sscanf(de->d_name, "node%u", &node) != 1 || node >= MAX_NODES)
			continue;
		snprintf(path, sizeof(path), NODE_DIR "/%s/cpulist", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			nc.node = node;
			cpulist_each(buf, set_cpu_node, &nc);
			node_has_cpus[node] = nc.count > 0;
		}
		fclose(f);
	}
	closedir(nd);
	nw = cxl_windows(win, 8);
	for (i = 0; i < nr; i++) {
		r[i].kind = node_has_cpus[r[i].node % MAX_NODES] ? EMBM_EMU_KIND_DRAM :
			    EMBM_EMU_KIND_FAR;
		for (w = 0; w < nw; w++)
			if (r[i].start >= win[w][0] && r[i].end <= win[w][1])
				r[i].kind = EMBM_EMU_KIND_CXL;
	}
	memcpy(d->hdr->range, r, nr * sizeof(r[0]));
	d->hdr->nr_ranges = nr;
	for (i = 0; i < d->nr_cpus && i < EMBM_EMU_MAX_CPUS; i++)
		d->hdr->cpu_node[i] = cpu_node[i];
	return nr;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int emu_set_pages(struct emu_dev *d, const uint64_t *pfn, size_t n)
{
	uint64_t *list = (uint64_t *)((char *)d->map + d->hdr->page_off);
	uint64_t *tmp;
	size_t i, m = 0;

	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	if (!tmp)
		return fail("out of memory");
	for (i = 0; i < n; i++)
		if (pfn[i])
			tmp[m++] = pfn[i];
	qsort(tmp, m, sizeof(*tmp), u64_cmp);
	for (i = n = 0; i < m; i++)
		if (!n || tmp[i] != tmp[n - 1])
			tmp[n++] = tmp[i];
	if (n > d->hdr->max_pages) {
		free(tmp);
		return fail("%zu pages: the device has room for %u", n, d->hdr->max_pages);
	}
	memcpy(list, tmp, n * sizeof(*tmp));
	d->hdr->nr_pages = n;
	free(tmp);
	return n;
}

int emu_my_space(struct emu_dev *d, uint64_t *key)
{
	cpu_set_t old, one;
	int cpu, ret = -1, tries;

	if (sched_getaffinity(0, sizeof(old), &old))
		return fail("sched_getaffinity: %s", strerror(errno));
	for (tries = 0; tries < 100 && ret; tries++) {
		uint64_t bell;

		cpu = sched_getcpu();
		if (cpu < 0 || (unsigned int)cpu >= d->nr_cpus)
			break;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			break;
		if (sched_getcpu() != cpu)
			continue;
		bell = emu_cpu(d, cpu)->bell;
		emu_doorbell();
		if (emu_cpu(d, cpu)->bell != bell) {
			*key = emu_cpu(d, cpu)->bell_as;
			ret = 0;
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
	return ret ? fail("cannot ring the doorbell pinned to a CPU") : 0;
}

int emu_space_index(const struct emu_snapshot *s, uint64_t key)
{
	int i;

	for (i = 0; key && i < EMBM_EMU_OTHER_SPACE; i++)
		if (s->space_key[i] == key)
			return i;
	return -1;
}

static void acc_add(emu_acc_t sum, const __u64 (*acc)[2][2])
{
	int r, k, o;

	for (r = 0; r <= EMBM_EMU_MAX_RANGES; r++)
		for (k = 0; k < 2; k++)
			for (o = 0; o < 2; o++)
				sum[r][k][o] += acc[r][k][o];
}

int emu_snapshot(struct emu_dev *d, struct emu_snapshot *s)
{
	struct embm_emu_header *h = d->hdr;
	char *base = d->map;
	unsigned int c, sp, nr, np;
	uint64_t *pages = (uint64_t *)(base + h->page_off);

	memset(s, 0, sizeof(*s));
	s->mode = h->mode;
	nr = h->nr_ranges;
	s->nr_ranges = nr > EMBM_EMU_MAX_RANGES ? EMBM_EMU_MAX_RANGES : nr;
	memcpy(s->range, h->range, sizeof(s->range));
	memcpy(s->space_key, h->space_key, sizeof(s->space_key));
	for (c = 0; c < d->nr_cpus; c++) {
		const struct embm_emu_oracle *o =
			(const struct embm_emu_oracle *)(base + h->oracle_off) + c;
		const struct embm_emu_space *spc =
			(const struct embm_emu_space *)(base + h->space_off) + c;

		acc_add(s->ranges, o->acc);
		for (sp = 0; sp < EMBM_EMU_MAX_SPACES; sp++)
			acc_add(s->spaces[sp], spc->acc[sp]);
	}
	np = h->nr_pages;
	if (np > h->max_pages)
		np = h->max_pages;
	s->pfn = calloc(np ? np : 1, sizeof(*s->pfn));
	s->page = calloc(np ? np : 1, sizeof(*s->page));
	if (!s->pfn || !s->page) {
		emu_snapshot_free(s);
		return fail("out of memory");
	}
	s->nr_pages = np;
	memcpy(s->pfn, pages, np * sizeof(*pages));
	for (c = 0; c < d->nr_cpus; c++) {
		const uint64_t *pc = (const uint64_t *)(base + h->page_count_off) +
				     (size_t)c * h->max_pages * 2;
		unsigned int i;

		for (i = 0; i < np; i++) {
			s->page[i][0] += pc[i * 2];
			s->page[i][1] += pc[i * 2 + 1];
		}
	}
	return 0;
}

void emu_snapshot_free(struct emu_snapshot *s)
{
	free(s->pfn);
	free(s->page);
	s->pfn = NULL;
	s->page = NULL;
	s->nr_pages = 0;
}

int emu_pagemap(int pid, uint64_t addr, size_t len, uint64_t *pfn)
{
	char path[64];
	uint64_t first = addr >> 12, last = (addr + len + 4095) >> 12, i;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/pagemap");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("%s: %s", path, strerror(errno));
	for (i = first; i < last; i++) {
		uint64_t e;

		if (pread(fd, &e, sizeof(e), i * sizeof(e)) != sizeof(e)) {
			close(fd);
			return fail("%s: %s", path, strerror(errno));
		}
		/* bit 63 present, bits 0-54 the PFN (0 without CAP_SYS_ADMIN) */
		pfn[i - first] = (e >> 63) ? (e & ((1ULL << 55) - 1)) : 0;
	}
	close(fd);
	return 0;
}
