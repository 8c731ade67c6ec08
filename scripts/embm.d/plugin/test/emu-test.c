// SPDX-License-Identifier: GPL-2.0
/*
 * emu-test: the embm-emu plugin checked from a guest, with no kernel
 * driver: the device mapped from user space (tools/embm/emu_oracle.c).
 *
 *   emu-test check [-n NODE] [-l LOADS] [-s STORES] [-p PERIOD]
 *	the doorbell on each CPU; the topology taken; the oracle's exact
 *	counts of a loop of LOADS loads and STORES stores to a buffer bound
 *	to NODE (per watched page, per address space and range); a slot
 *	armed on this CPU with PERIOD: records with the right phys, node,
 *	op and source, about count / PERIOD of them; a kernel-mode slot's
 *	records (a read() from /dev/zero into the buffer) by CPL, with kernel
 *	IPs; the driver's drv_want beside user space's want.  Prints "ok ..."
 *	or "not ok ..." lines, exits 1 on any failure.
 *   emu-test fuzz [-l ROUNDS]
 *	garbage in every field of the shared memory, doorbells and accesses
 *	between: QEMU must live on and the plugin answer after.
 *   emu-test bench [-m none|idle|wanted|sample|oracle] [-l LOADS] [-p PERIOD] [-n NODE]
 *	times LOADS loads (ns a load): none needs no device; idle: the plugin
 *	instruments nothing; wanted: sampling wanted, no slot on; sample: a
 *	slot on this CPU with PERIOD, the ring drained; oracle: exact counts.
 *
 * Built static by scripts/embm.d/host/plugin.sh (plugin_build_test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <numaif.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "emu_oracle.h"

#define BUF_SIZE	(8UL << 20)
#define KERNEL_HALF	0xffff800000000000ULL	/* 4-level paging's kernel half */
#define KERNEL_READ	(64UL << 10)		/* bytes read() from /dev/zero */

static int failures;
static struct emu_dev dev;

#define check(cond, ...)						\
	do {								\
		bool ok_ = (cond);					\
		printf("%s ", ok_ ? "ok" : "not ok");			\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		fflush(stdout);						\
		if (!ok_)						\
			failures++;					\
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "emu-test: %s: %s\n", what, emu_error());
	exit(1);
}

/* Exactly @n loads (8 bytes, cycling over @words words) and nothing else. */
__attribute__((noinline)) static uint64_t do_loads(const uint64_t *buf, uint64_t words,
						   uint64_t n)
{
	uint64_t sum = 0, j = 0;

	if (!n)
		return 0;
	__asm__ __volatile__(
		"1:\n\t"
		"add (%[b],%[j],8), %[s]\n\t"
		"inc %[j]\n\t"
		"cmp %[w], %[j]\n\t"
		"jb 2f\n\t"
		"xor %[j], %[j]\n"
		"2:\n\t"
		"dec %[n]\n\t"
		"jnz 1b\n\t"
		: [s] "+r"(sum), [j] "+r"(j), [n] "+r"(n)
		: [b] "r"(buf), [w] "r"(words)
		: "cc", "memory");
	return sum;
}

/* Exactly @n stores likewise. */
__attribute__((noinline)) static void do_stores(uint64_t *buf, uint64_t words, uint64_t n)
{
	uint64_t j = 0;

	if (!n)
		return;
	__asm__ __volatile__(
		"1:\n\t"
		"mov %[n], (%[b],%[j],8)\n\t"
		"inc %[j]\n\t"
		"cmp %[w], %[j]\n\t"
		"jb 2f\n\t"
		"xor %[j], %[j]\n"
		"2:\n\t"
		"dec %[n]\n\t"
		"jnz 1b\n\t"
		: [j] "+r"(j), [n] "+r"(n)
		: [b] "r"(buf), [w] "r"(words)
		: "cc", "memory");
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static uint64_t *node_buffer(int node, size_t size)
{
	unsigned long mask[1024 / 64] = { 0 };
	uint64_t *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, size, MADV_NOHUGEPAGE);
	mask[node / 64] = 1UL << (node % 64);
	if (mbind(p, size, MPOL_BIND, mask, 1024, MPOL_MF_STRICT)) {
		perror("mbind");
		exit(1);
	}
	memset(p, 1, size);
	return p;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int range_of_node(const struct emu_snapshot *s, int node)
{
	unsigned int i;

	for (i = 0; i < s->nr_ranges; i++)
		if ((int)s->range[i].node == node)
			return i;
	return -1;
}

/* Loads (op 0) or stores (op 1) of @s minus @t, user mode, in ranges of @node,
 * for space @sp (-1: all spaces, the per-range table). */
static uint64_t node_delta(const struct emu_snapshot *s, const struct emu_snapshot *t,
			   int node, int sp, int op)
{
	uint64_t d = 0;
	unsigned int i;

	for (i = 0; i < s->nr_ranges; i++) {
		if ((int)s->range[i].node != node)
			continue;
		if (sp < 0)
			d += s->ranges[i][0][op] - t->ranges[i][0][op];
		else
			d += s->spaces[sp][i][0][op] - t->spaces[sp][i][0][op];
	}
	return d;
}

static void check_handshake(void)
{
	unsigned int cpu, bad = 0, tries;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (cpu = 0; cpu < dev.nr_cpus && cpu < (unsigned int)ncpu; cpu++) {
		uint64_t before = 0, after = 0, other = 0, o2;
		unsigned int c;

		pin(cpu);
		for (tries = 0; tries < 20; tries++) {
			other = 0;
			for (c = 0; c < dev.nr_cpus; c++)
				other += c == cpu ? 0 : emu_cpu(&dev, c)->bell;
			before = emu_cpu(&dev, cpu)->bell;
			emu_doorbell();
			after = emu_cpu(&dev, cpu)->bell;
			o2 = 0;
			for (c = 0; c < dev.nr_cpus; c++)
				o2 += c == cpu ? 0 : emu_cpu(&dev, c)->bell;
			if (after == before + 1 && o2 == other)
				break;
		}
		if (after != before + 1) {
			bad++;
			printf("# cpu %u: bell %llu -> %llu around one CPUID\n", cpu,
			       (unsigned long long)before, (unsigned long long)after);
		}
		if (!emu_cpu(&dev, cpu)->bell_as) {
			bad++;
			printf("# cpu %u: no address space at the doorbell\n", cpu);
		}
	}
	check(!bad, "doorbell: each of %u CPUs' bell rises by 1 around one CPUID, "
	      "with its address space", cpu);
}

static void print_ranges(const struct emu_snapshot *s)
{
	static const char *const kinds[] = { "dram", "far", "cxl" };
	unsigned int i;

	for (i = 0; i < s->nr_ranges; i++)
		printf("# range %u: node %u %s 0x%llx-0x%llx\n", i, s->range[i].node,
		       s->range[i].kind <= 2 ? kinds[s->range[i].kind] : "?",
		       (unsigned long long)s->range[i].start,
		       (unsigned long long)s->range[i].end);
}

static int cmd_check(int node, uint64_t nloads, uint64_t nstores, uint64_t period)
{
	static struct emu_snapshot s0, s1;
	uint64_t *buf, *pfn, key, words = BUF_SIZE / 8, ld = 0, st = 0;
	size_t npages = BUF_SIZE / 4096, i;
	int ret, sp, r, cpu;
	uint64_t head0, count0, head1, count1, nrec, inbuf = 0, badrec = 0;
	uint64_t lo_gap = UINT64_MAX, hi_gap = 0, prev = 0, lost0;
	struct embm_emu_cpu *c;
	struct embm_emu_slot *sl;

	printf("# device %s: %u vCPUs, ring %u, pages %u, %zu bytes, features 0x%x%s\n",
	       dev.pci, dev.nr_cpus, dev.hdr->ring_records, dev.hdr->max_pages, dev.size,
	       dev.hdr->features, dev.driver_bound ? ", a driver is bound" : "");
	check_handshake();

	/* a bad change is refused, and nothing of it taken */
	dev.hdr->want = 0x80;
	ret = emu_commit(&dev, EMU_TIMEOUT_MS);
	check(ret == EMBM_EMU_ERR_WANT, "unknown want bits refused (error %d)", ret);
	dev.hdr->want = 0;
	ret = emu_publish_topology(&dev);
	check(ret > 0, "topology: %d ranges from sysfs", ret);
	dev.hdr->range[0].end = dev.hdr->range[0].start;
	ret = emu_commit(&dev, EMU_TIMEOUT_MS);
	check(ret == EMBM_EMU_ERR_RANGES, "an empty range refused (error %d)", ret);
	emu_publish_topology(&dev);

	cpu = 0;
	pin(cpu);
	buf = node_buffer(node, BUF_SIZE);
	pfn = calloc(npages, sizeof(*pfn));
	if (!pfn || emu_pagemap(0, (uintptr_t)buf, BUF_SIZE, pfn))
		die("pagemap");
	ret = emu_set_pages(&dev, pfn, npages);
	check(ret == (int)npages, "%d of %zu buffer pages watched", ret, npages);
	dev.hdr->want = EMBM_EMU_MODE_ORACLE;
	ret = emu_commit(&dev, EMU_TIMEOUT_MS);
	check(ret == 0 && (dev.hdr->mode & EMBM_EMU_MODE_ORACLE),
	      "oracle on (error %d, mode %u, resets %llu)", ret, dev.hdr->mode,
	      (unsigned long long)dev.hdr->resets);
	if (emu_my_space(&dev, &key))
		die("address space");
	printf("# my address space 0x%llx\n", (unsigned long long)key);

	if (emu_snapshot(&dev, &s0))
		die("snapshot");
	print_ranges(&s0);
	r = range_of_node(&s0, node);
	check(r >= 0, "node %d has a range", node);
	do_loads(buf, words, nloads);
	do_stores(buf, words, nstores);
	if (emu_snapshot(&dev, &s1))
		die("snapshot");
	for (i = 0; i < s1.nr_pages && i < s0.nr_pages; i++) {
		ld += s1.page[i][0] - s0.page[i][0];
		st += s1.page[i][1] - s0.page[i][1];
	}
	check(ld == nloads && st == nstores,
	      "watched pages: %llu loads, %llu stores counted, %llu and %llu made",
	      (unsigned long long)ld, (unsigned long long)st,
	      (unsigned long long)nloads, (unsigned long long)nstores);
	sp = emu_space_index(&s1, key);
	check(sp >= 0, "my address space has index %d", sp);
	if (sp >= 0) {
		uint64_t dl = node_delta(&s1, &s0, node, sp, 0);
		uint64_t ds = node_delta(&s1, &s0, node, sp, 1);

		check(dl >= nloads && dl - nloads <= 1000 && ds >= nstores && ds - nstores <= 1000,
		      "my space, node %d, user: %llu loads (%+lld), %llu stores (%+lld)",
		      node, (unsigned long long)dl, (long long)(dl - nloads),
		      (unsigned long long)ds, (long long)(ds - nstores));
	}
	printf("# all spaces, node %d, user: %llu loads, %llu stores\n", node,
	       (unsigned long long)node_delta(&s1, &s0, node, -1, 0),
	       (unsigned long long)node_delta(&s1, &s0, node, -1, 1));
	emu_snapshot_free(&s0);
	emu_snapshot_free(&s1);

	/* sampling: slot 0, user loads, on this CPU */
	dev.hdr->want = EMBM_EMU_MODE_SAMPLE | EMBM_EMU_MODE_ORACLE;
	ret = emu_commit(&dev, EMU_TIMEOUT_MS);
	check(ret == 0 && (dev.hdr->mode & EMBM_EMU_MODE_SAMPLE), "sampling on (mode %u)",
	      dev.hdr->mode);
	c = emu_cpu(&dev, cpu);
	lost0 = c->lost;
	sl = &c->slot[0];
	c->tail = c->head;
	sl->period = period;
	sl->left = period;
	sl->ctl = EMBM_EMU_SLOT_ON | EMBM_EMU_SLOT_LOAD | EMBM_EMU_SLOT_USER;
	head0 = c->head;
	count0 = sl->count;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c->active = 1;
	do_loads(buf, words, nloads);
	c->active = 0;
	sl->ctl = 0;
	head1 = c->head;
	count1 = sl->count;
	nrec = head1 - head0;
	check(nrec == (count1 - count0) / period || nrec == (count1 - count0) / period + 1,
	      "%llu records for %llu counted loads, period %llu",
	      (unsigned long long)nrec, (unsigned long long)(count1 - count0),
	      (unsigned long long)period);
	for (i = 0; i < nrec && i < dev.hdr->ring_records; i++) {
		const struct embm_emu_record *rec =
			&emu_ring(&dev, cpu)[(head0 + i) & (dev.hdr->ring_records - 1)];
		uint64_t off = rec->vaddr - (uintptr_t)buf;

		if (i && rec->count - prev < lo_gap)
			lo_gap = rec->count - prev;
		if (i && rec->count - prev > hi_gap)
			hi_gap = rec->count - prev;
		prev = rec->count;
		if ((rec->info & (EMBM_EMU_REC_STORE | EMBM_EMU_REC_USER | EMBM_EMU_REC_SLOT_MASK)) !=
		    EMBM_EMU_REC_USER || rec->as != key) {
			badrec++;
			continue;
		}
		if (off >= BUF_SIZE)
			continue;
		inbuf++;
		if (rec->phys >> 12 != pfn[off >> 12] || (rec->phys & 4095) != (rec->vaddr & 4095) ||
		    rec->node != node || rec->size_shift != 3 ||
		    (((dev.hdr->features & EMBM_EMU_FEAT_CACHE) ? rec->src > EMBM_EMU_SRC_L3 : 1) &&
		     rec->src != (dev.hdr->range[r].kind == EMBM_EMU_KIND_CXL ? EMBM_EMU_SRC_CXL :
				  dev.hdr->range[r].kind == EMBM_EMU_KIND_FAR ? EMBM_EMU_SRC_FAR :
				  dev.hdr->cpu_node[cpu] == (uint32_t)node ? EMBM_EMU_SRC_LOCAL :
				  EMBM_EMU_SRC_REMOTE)) ||
		    !rec->latency || rec->ip < (uintptr_t)do_loads ||
		    rec->ip >= (uintptr_t)do_loads + 256) {
			if (badrec < 3)
				printf("# bad record: phys 0x%llx vaddr 0x%llx ip 0x%llx node %d src %u "
				       "shift %u lat %u\n", (unsigned long long)rec->phys,
				       (unsigned long long)rec->vaddr, (unsigned long long)rec->ip,
				       rec->node, rec->src, rec->size_shift, rec->latency);
			badrec++;
		}
	}
	check(!badrec, "every record: a user load of slot 0 in my space; the buffer's with "
	      "its phys, node %d, source, size, latency and ip", node);
	check(inbuf * 100 >= nloads / period * 98 && inbuf <= nloads / period + 2,
	      "%llu records in the buffer for %llu loads / %llu", (unsigned long long)inbuf,
	      (unsigned long long)nloads, (unsigned long long)period);
	check(nrec < 2 || (lo_gap == period && hi_gap == period),
	      "fixed period: every record %llu-%llu counts after the last",
	      (unsigned long long)lo_gap, (unsigned long long)hi_gap);

	/* random periods, stores, slot 1 */
	sl = &c->slot[1];
	c->tail = c->head;
	sl->period = period;
	sl->left = period;
	sl->ctl = EMBM_EMU_SLOT_ON | EMBM_EMU_SLOT_STORE | EMBM_EMU_SLOT_USER |
		  EMBM_EMU_SLOT_RANDOM;
	head0 = c->head;
	count0 = sl->count;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* the slot before active */
	c->active = 2;
	do_stores(buf, words, nloads);
	c->active = 0;
	sl->ctl = 0;
	nrec = c->head - head0;
	lo_gap = UINT64_MAX;
	hi_gap = badrec = 0;
	for (i = 0; i < nrec && i < dev.hdr->ring_records; i++) {
		const struct embm_emu_record *rec =
			&emu_ring(&dev, cpu)[(head0 + i) & (dev.hdr->ring_records - 1)];

		if ((rec->info & (EMBM_EMU_REC_STORE | EMBM_EMU_REC_SLOT_MASK)) !=
		    (EMBM_EMU_REC_STORE | 1))
			badrec++;
		if (i && rec->count - prev < period / 2)
			printf("# record %zu: count %llu after %llu, vaddr 0x%llx ip 0x%llx info 0x%x\n",
			       i, (unsigned long long)rec->count, (unsigned long long)prev,
			       (unsigned long long)rec->vaddr, (unsigned long long)rec->ip, rec->info);
		if (i && rec->count - prev < lo_gap)
			lo_gap = rec->count - prev;
		if (i && rec->count - prev > hi_gap)
			hi_gap = rec->count - prev;
		prev = rec->count;
	}
	check(!badrec && nrec > 1 && lo_gap >= period / 2 && hi_gap < period * 3 / 2 &&
	      hi_gap > lo_gap,
	      "random period: %llu store records of slot 1, gaps %llu-%llu for period %llu",
	      (unsigned long long)nrec, (unsigned long long)lo_gap,
	      (unsigned long long)hi_gap, (unsigned long long)period);
	check(c->lost == lost0, "no record lost (%llu)", (unsigned long long)(c->lost - lost0));
	c->tail = c->head;

	/*
	 * Kernel mode, by CPL: slot 2 counts the kernel's stores only, and
	 * read() from /dev/zero stores into the user buffer from the kernel
	 * (a store an element of rep stos, as TCG runs it).  Every record is kernel
	 * mode, with a kernel IP; some are in the buffer.
	 */
	{
		uint64_t kperiod = period < 64 ? period : 64, inb = 0, bad = 0;
		int fd = open("/dev/zero", O_RDONLY);
		ssize_t got;

		sl = &c->slot[2];
		sl->period = kperiod;
		sl->left = kperiod;
		sl->ctl = EMBM_EMU_SLOT_ON | EMBM_EMU_SLOT_STORE | EMBM_EMU_SLOT_KERNEL;
		head0 = c->head;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		c->active = 4;
		got = fd < 0 ? -1 : read(fd, buf, KERNEL_READ);
		c->active = 0;
		sl->ctl = 0;
		if (fd >= 0)
			close(fd);
		nrec = c->head - head0;
		for (i = 0; i < nrec && i < dev.hdr->ring_records; i++) {
			const struct embm_emu_record *rec =
				&emu_ring(&dev, cpu)[(head0 + i) & (dev.hdr->ring_records - 1)];

			if ((rec->info & (EMBM_EMU_REC_STORE | EMBM_EMU_REC_USER |
					  EMBM_EMU_REC_SLOT_MASK)) != (EMBM_EMU_REC_STORE | 2) ||
			    rec->ip < KERNEL_HALF) {
				if (bad < 3)
					printf("# bad kernel record: vaddr 0x%llx ip 0x%llx info 0x%x\n",
					       (unsigned long long)rec->vaddr,
					       (unsigned long long)rec->ip, rec->info);
				bad++;
			}
			inb += rec->vaddr - (uintptr_t)buf < KERNEL_READ;
		}
		check(got == (ssize_t)KERNEL_READ && nrec > 0 && !bad &&
		      inb * kperiod * 16 >= KERNEL_READ,
		      "kernel mode (CPL%s): %llu store records, %llu bad, %llu in the buffer read()",
		      dev.hdr->features & EMBM_EMU_FEAT_CPL ? "" : ": no, by the IP's half",
		      (unsigned long long)nrec, (unsigned long long)bad,
		      (unsigned long long)inb);
		c->tail = c->head;
	}

	/*
	 * Two writers of what is wanted: the driver's drv_want and user
	 * space's want, ORed; each bump of gen is atomic and its own.
	 */
	{
		uint64_t g0 = dev.hdr->gen;

		dev.hdr->drv_want = EMBM_EMU_MODE_SAMPLE;
		ret = emu_set_want(&dev, 0, EMU_TIMEOUT_MS);
		check(ret == 0 && dev.hdr->mode == EMBM_EMU_MODE_SAMPLE && dev.hdr->gen == g0 + 1,
		      "drv_want alone: mode %u (gen %llu after %llu)", dev.hdr->mode,
		      (unsigned long long)dev.hdr->gen, (unsigned long long)g0);
		dev.hdr->drv_want = 0x40;
		ret = emu_commit(&dev, EMU_TIMEOUT_MS);
		check(ret == EMBM_EMU_ERR_WANT, "unknown drv_want bits refused (error %d)", ret);
		dev.hdr->drv_want = 0;
	}

	ret = emu_set_want(&dev, 0, EMU_TIMEOUT_MS);
	check(ret == 0 && dev.hdr->mode == 0, "everything off (mode %u, resets %llu, bells %llu)",
	      dev.hdr->mode, (unsigned long long)dev.hdr->resets,
	      (unsigned long long)dev.hdr->bells);
	return failures ? 1 : 0;
}

static uint64_t fuzz_rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	fuzz_rng ^= fuzz_rng << 13;
	fuzz_rng ^= fuzz_rng >> 7;
	fuzz_rng ^= fuzz_rng << 17;
	return fuzz_rng;
}

/* A value that is often at an edge. */
static uint64_t edgy(void)
{
	static const uint64_t edge[] = { 0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 4095, 4096,
		16384, 16385, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 1 };

	return rnd() % 3 ? edge[rnd() % (sizeof(edge) / sizeof(edge[0]))] : rnd();
}

/* Garbage in every field the guest can write, and in the plugin's own,
 * doorbells and accesses between; then the plugin must still answer. */
static int cmd_fuzz(uint64_t rounds)
{
	struct embm_emu_header *h = dev.hdr;
	uint64_t *buf = node_buffer(0, 1 << 20), r, refused = 0, taken = 0, timeouts = 0;
	uint64_t *pages = (uint64_t *)((char *)dev.map + h->page_off);
	unsigned int i, cpu, max_pages = h->max_pages;
	int ret;

	for (r = 0; r < rounds; r++) {
		cpu = rnd() % dev.nr_cpus;
		pin(cpu);
		bool valid = rnd() % 2;	/* half of them to be taken */

		h->want = valid || rnd() % 4 ? rnd() % 4 : edgy();
		h->drv_want = valid || rnd() % 4 ? rnd() % 4 : edgy();
		h->nr_ranges = valid ? rnd() % 33 : rnd() % 2 ? rnd() % 34 : edgy();
		for (i = 0; i < EMBM_EMU_MAX_RANGES; i++) {
			uint64_t a = rnd() % 4 ? (rnd() % 64) << 26 : edgy();

			if (valid)
				a = (uint64_t)i << 27;
			h->range[i].start = a;
			h->range[i].end = valid ? a + (1 + rnd() % 2) * (1ULL << 26) :
					  rnd() % 4 ? a + ((rnd() % 8) << 26) : edgy();
			h->range[i].node = valid || rnd() % 4 ? rnd() % 4 : edgy();
			h->range[i].kind = valid || rnd() % 4 ? rnd() % 3 : edgy();
		}
		for (i = 0; i < EMBM_EMU_MAX_CPUS; i++)
			h->cpu_node[i] = valid || rnd() % 4 ? rnd() % 4 : edgy();
		h->nr_pages = valid ? rnd() % 65 : rnd() % 2 ? rnd() % (max_pages + 2) : edgy();
		for (i = 0; i < 64 && i < max_pages; i++)
			pages[i] = valid ? 0x80000 + i * 2 + rnd() % 2 : rnd() % 2 ? i + (rnd() % 2) : edgy();
		if (rnd() % 8 == 0) {	/* the plugin's fields too */
			h->page_off = edgy();
			h->oracle_off = edgy();
			h->space_off = edgy();
			h->page_count_off = edgy();
			h->space_key[rnd() % EMBM_EMU_MAX_SPACES] = edgy();
			h->gen_seen = edgy();
		}
		for (i = 0; i < dev.nr_cpus; i++) {
			struct embm_emu_cpu *c = emu_cpu(&dev, i);
			unsigned int s;

			c->active = rnd() % 2 ? rnd() % 16 : edgy();
			c->tail = rnd() % 2 ? c->head : edgy();
			if (rnd() % 8 == 0)
				c->head = edgy();
			for (s = 0; s < EMBM_EMU_SLOTS; s++) {
				c->slot[s].ctl = rnd() % 2 ? rnd() % 64 : edgy();
				c->slot[s].period = rnd() % 2 ? rnd() % 100 : edgy();
				c->slot[s].left = rnd() % 2 ? (int64_t)(rnd() % 100) - 50 : (int64_t)edgy();
			}
		}
		ret = emu_commit(&dev, 2000);
		if (ret < 0)
			timeouts++;
		else if (ret)
			refused++;
		else
			taken++;
		do_loads(buf, (1 << 20) / 8, 20000);
		do_stores(buf, (1 << 20) / 8, 20000);
	}
	/* sane again: everything off, the plugin answers */
	for (i = 0; i < dev.nr_cpus; i++)
		memset(emu_cpu(&dev, i)->slot, 0, sizeof(emu_cpu(&dev, i)->slot)),
		emu_cpu(&dev, i)->active = 0;
	h->nr_pages = 0;
	h->drv_want = 0;
	emu_publish_topology(&dev);
	ret = emu_set_want(&dev, 0, EMU_TIMEOUT_MS);
	check(ret == 0 && h->mode == 0,
	      "fuzz: %llu rounds (%llu taken, %llu refused, %llu timeouts), then off (%d)",
	      (unsigned long long)rounds, (unsigned long long)taken,
	      (unsigned long long)refused, (unsigned long long)timeouts, ret);
	check(taken > 0 && refused > 0, "fuzz: changes both taken and refused");
	return failures ? 1 : 0;
}

static int cmd_bench(const char *mode, int node, uint64_t nloads, uint64_t period)
{
	uint64_t *buf, words = BUF_SIZE / 8, done, chunk = 1000000, head0;
	struct embm_emu_cpu *c = NULL;
	double t0, t1;
	uint32_t want = 0;

	pin(0);
	buf = node_buffer(node, BUF_SIZE);
	if (strcmp(mode, "none")) {
		if (emu_open(&dev))
			die("device");
		if (!strcmp(mode, "sample") || !strcmp(mode, "wanted"))
			want = EMBM_EMU_MODE_SAMPLE;
		else if (!strcmp(mode, "oracle"))
			want = EMBM_EMU_MODE_ORACLE;
		else if (strcmp(mode, "idle")) {
			fprintf(stderr, "emu-test: -m none, idle, wanted, sample or oracle\n");
			return 2;
		}
		if (emu_publish_topology(&dev) < 0 || emu_set_want(&dev, want, EMU_TIMEOUT_MS))
			die("setup");
		if (!strcmp(mode, "sample")) {
			c = emu_cpu(&dev, 0);
			c->slot[0].period = period;
			c->slot[0].left = period;
			c->slot[0].ctl = EMBM_EMU_SLOT_ON | EMBM_EMU_SLOT_LOAD |
					 EMBM_EMU_SLOT_STORE | EMBM_EMU_SLOT_USER |
					 EMBM_EMU_SLOT_KERNEL;
			c->tail = c->head;
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			c->active = 1;
		}
	}
	do_loads(buf, words, nloads / 10);	/* warm: translated, in the TLB */
	if (c)
		c->tail = c->head;
	head0 = c ? c->head : 0;
	t0 = now_s();
	for (done = 0; done < nloads; done += chunk) {
		do_loads(buf, words, nloads - done < chunk ? nloads - done : chunk);
		if (c)
			c->tail = c->head;	/* taken: the ring never fills */
	}
	t1 = now_s();
	if (c) {
		c->active = 0;
		printf("# %llu records, %llu lost\n", (unsigned long long)(c->head - head0),
		       (unsigned long long)c->lost);
	}
	printf("bench %s period %llu loads %llu seconds %.3f ns/load %.2f\n", mode,
	       (unsigned long long)(c ? period : 0), (unsigned long long)nloads,
	       t1 - t0, (t1 - t0) * 1e9 / nloads);
	if (want)
		emu_set_want(&dev, 0, EMU_TIMEOUT_MS);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "check", *mode = "idle";
	uint64_t nloads = 10000000, nstores = 1000000, period = 5000;
	int node = -1, o;

	if (argc > 1)
		optind = 2;
	while ((o = getopt(argc, argv, "n:l:s:p:m:h")) != -1) {
		switch (o) {
		case 'n': node = atoi(optarg); break;
		case 'l': nloads = strtoull(optarg, NULL, 0); break;
		case 's': nstores = strtoull(optarg, NULL, 0); break;
		case 'p': period = strtoull(optarg, NULL, 0); break;
		case 'm': mode = optarg; break;
		default:
			fprintf(stderr, "usage: emu-test check|fuzz|bench [-n NODE] [-l LOADS] "
				"[-s STORES] [-p PERIOD] [-m none|idle|wanted|sample|oracle]\n");
			return 2;
		}
	}
	if (!period)
		period = 1;
	if (node < 0) {
		/* the last node: memory only in the default topology */
		for (node = 63; node > 0; node--) {
			char path[64];

			snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
			if (access(path, F_OK) == 0)
				break;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(mode, node, nloads, period);
	if (strcmp(cmd, "check") && strcmp(cmd, "fuzz")) {
		fprintf(stderr, "emu-test: check, fuzz or bench\n");
		return 2;
	}
	if (emu_open(&dev))
		die("device");
	if (!strcmp(cmd, "fuzz"))
		return cmd_fuzz(nloads);
	return cmd_check(node, nloads, nstores, period);
}
