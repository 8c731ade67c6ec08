// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the estimates a user reads first: the node shares, against
 * pages touched on known nodes, when the period moves during a session
 * (through the period knob, and through the CPU budget), when faults map
 * huge pages, and when most samples have no address.
 *
 * The test process samples itself (embm_start(0)) with the swfault
 * source, pinned to one CPU so that one event counts its faults: with
 * period P a node's estimate is then off by at most about P per period
 * change, which the sizes below keep far under the 1 point allowed.
 * Needs root and CONFIG_EMBM; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define MAX_PHASES	3
#define HUGE		(2UL << 20)

static bool memory_nodes[EMBM_MAX_NODES];
static char zero_sink;	/* what the zero-page reads read: kept */

/*
 * Nodes for up to three phases: the last node with memory (the CXL node
 * in a CXL boot), the first, and the one after it; repeated when there
 * are fewer.  Return: how many distinct nodes.
 */
static int phase_nodes(int *nodes)
{
	int n, nr = 0, found[EMBM_MAX_NODES];

	for (n = 0; n < EMBM_MAX_NODES; n++)
		if (memory_nodes[n])
			found[nr++] = n;
	if (!nr)
		return 0;
	nodes[0] = found[nr - 1];
	nodes[1] = found[0];
	nodes[2] = nr > 2 ? found[1] : found[0];
	return nr > 2 ? 3 : nr;
}

/* Wait until status's @key reads @want: 0, or -1 after 5 s. */
static int wait_status(const char *key, long long want)
{
	for (int i = 0; i < 500; i++) {
		if (embm_status_ll(key) == want)
			return 0;
		sleep_ms(10);
	}
	return -1;
}

/* Pin the caller to the CPU it runs on: one event counts its faults. */
static int pin_here(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Touch @pages new pages on @node, @burst at a time with @pause_us
 * between bursts (0: at full speed).  Return: 0 or -1.
 */
static int touch_new(int node, unsigned long pages, unsigned long burst, long pause_us)
{
	char *p = embm_node_pages(pages, node);
	struct timespec ts = { 0, pause_us * 1000 };

	if (!p)
		return -1;
	for (unsigned long i = 0; i < pages; i += burst) {
		embm_touch(p + i * EMBM_PAGE, i + burst > pages ? pages - i : burst);
		if (pause_us)
			nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * Each node's share, against the truth (@truth pages per node): within 1
 * point for every node that has memory.  Returns the worst difference, in
 * points; logs every node.
 */
static double check_shares(struct __test_metadata *_metadata, const unsigned long *truth)
{
	struct embm_node rows[EMBM_MAX_NODES];
	unsigned long total = 0;
	double worst = 0;
	int n;

	EXPECT_LT(0, embm_read_nodes(rows));
	for (n = 0; n < EMBM_MAX_NODES; n++)
		total += truth[n];
	for (n = 0; n < EMBM_MAX_NODES; n++) {
		double want, d;

		if (!memory_nodes[n])
			continue;
		want = total ? 100.0 * truth[n] / total : 0;
		d = rows[n].share - want;
		d = d < 0 ? -d : d;
		worst = d > worst ? d : worst;
		TH_LOG("node %d: %lu pages (%.2f%%), share %.2f%%; %llu samples, estimate %llu",
		       n, truth[n], want, rows[n].share, rows[n].samples, rows[n].accesses);
		EXPECT_GE(1.0, d);
	}
	return worst;
}

FIXTURE(estimate) {
	struct embm_saved_knobs saved;
	char budget[32];
	int nodes[MAX_PHASES];
	int nr_nodes;
};

FIXTURE_SETUP(estimate)
{
	if (access("/proc/embm/status", R_OK))
		SKIP(return, "no /proc/embm: kernel without CONFIG_EMBM");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	ASSERT_EQ(0, embm_exact_sampling(&self->saved));
	ASSERT_EQ(0, embm_get_knob("cpu_budget", self->budget, sizeof(self->budget)));
	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", memory_nodes));
	self->nr_nodes = phase_nodes(self->nodes);
	ASSERT_LT(0, self->nr_nodes);
	ASSERT_EQ(0, pin_here());
}

FIXTURE_TEARDOWN(estimate)
{
	embm_end(0);
	embm_restore_sampling(&self->saved);
}

/*
 * The period knob, written during a session, applies to it: 4,096 pages
 * at period 1, 6,144 at period 16, then 2,048 at period 4.  Counted by
 * samples, the first phase would take 82% of the shares; weighted by
 * their periods, each node's share is within a point of the truth.
 */
TEST_F(estimate, shares_hold_when_the_period_knob_moves)
{
	static const unsigned long pages[MAX_PHASES] = { 4096, 6144, 2048 };
	static const char *const periods[MAX_PHASES] = { "1", "16", "4" };
	unsigned long truth[EMBM_MAX_NODES] = { 0 };
	struct embm_node rows[EMBM_MAX_NODES];
	char why[128];
	int i;

	ASSERT_EQ(0, embm_start(0, self->nodes[0])) TH_LOG("embm_start: %m");
	for (i = 0; i < MAX_PHASES; i++) {
		ASSERT_EQ(0, embm_set_knob("period", periods[i]));
		ASSERT_EQ(0, wait_status("period", atoll(periods[i])))
			TH_LOG("the session did not take period %s", periods[i]);
		ASSERT_EQ(0, touch_new(self->nodes[i], pages[i], pages[i], 0));
		truth[self->nodes[i]] += pages[i];
	}
	ASSERT_EQ(0, embm_end(0));
	check_shares(_metadata, truth);

	EXPECT_EQ(1, embm_status_ll("period_start"));
	EXPECT_EQ(4, embm_status_ll("period"));
	EXPECT_EQ(16, embm_status_ll("period_max"));
	EXPECT_EQ(2, embm_status_ll("period_changes"));
	ASSERT_EQ(0, embm_status("period_why", why, sizeof(why)));
	EXPECT_EQ(0, strncmp(why, "knob: period 4", 14)) TH_LOG("period_why %s", why);
	/*
	 * The second phase really ran at 16: a sample per 16 faults, and a
	 * few of the test's own at period 1 (its heap, on its CPU's node).
	 */
	ASSERT_LT(0, embm_read_nodes(rows));
	if (self->nr_nodes == 3)
		EXPECT_GE(pages[1] / 16 + 64, rows[self->nodes[1]].samples);
}

/*
 * The CPU budget moves the period: 32,768 pages at full speed (the period
 * climbs), a pause (it comes back down), 2,048 pages slowly (at the base
 * period) on the last node (the CXL node in a CXL boot, whose emulated
 * first touches are slow anyway), then 16,384 at full speed.  Counted by
 * samples, the slow phase would outweigh the others; weighted, each share
 * is within a point.
 */
TEST_F(estimate, shares_hold_when_the_budget_moves_the_period)
{
	unsigned long truth[EMBM_MAX_NODES] = { 0 };
	long long base;

	ASSERT_EQ(0, embm_set_knob("cpu_budget", "10"));
	ASSERT_EQ(0, embm_start(0, self->nodes[0])) TH_LOG("embm_start: %m");
	base = embm_status_ll("period");
	ASSERT_EQ(0, touch_new(self->nodes[1], 32768, 32768, 0));
	truth[self->nodes[1]] += 32768;
	if (embm_status_ll("period_max") == base) {
		embm_end(0);
		SKIP(return, "the budget never moved the period (%lld ns a sample)",
		     embm_status_ll("sample_cost_ns"));
	}
	/* No samples: halved every 200 ms back to the base. */
	EXPECT_EQ(0, wait_status("period", base));
	ASSERT_EQ(0, touch_new(self->nodes[0], 2048, 8, 8000));
	truth[self->nodes[0]] += 2048;
	ASSERT_EQ(0, touch_new(self->nodes[2], 16384, 16384, 0));
	truth[self->nodes[2]] += 16384;
	ASSERT_EQ(0, embm_end(0));
	TH_LOG("period %lld -> %lld, max %lld, %lld changes, %lld ns a sample",
	       embm_status_ll("period_start"), embm_status_ll("period"),
	       embm_status_ll("period_max"), embm_status_ll("period_changes"),
	       embm_status_ll("sample_cost_ns"));
	EXPECT_LE(2, embm_status_ll("period_changes"));
	check_shares(_metadata, truth);
}

/* Base pages of @p's range that are in huge pages, from /proc/self/smaps. */
static long huge_pages_of(const void *p)
{
	char line[256];
	long kb = -1;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long start, end;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* A mapping's first line: "START-END perms ..." */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' '))
			in = start <= (unsigned long)p && (unsigned long)p < end;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb < 0 ? -1 : kb / 4;
}

/*
 * 64 MiB with MADV_HUGEPAGE on one node, 16 MiB of 4 KiB pages on
 * another: a fault that maps 2 MiB counts as its 512 pages, in the
 * estimate, the distinct pages and the shares (80% and 20%), while the
 * samples are the faults.
 */
TEST_F(estimate, huge_pages_count_their_pages)
{
	const unsigned long huge_pages = 16384, small = 4096;
	unsigned long truth[EMBM_MAX_NODES] = { 0 };
	unsigned long mask[EMBM_MAX_NODES / (8 * sizeof(long))] = { 0 };
	int a = self->nodes[0], b = self->nodes[1];
	struct embm_node rows[EMBM_MAX_NODES];
	long in_huge, faults;
	char mode[64] = "";
	char *raw, *p;

	if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof(mode)) ||
	    strstr(mode, "[never]"))
		SKIP(return, "transparent huge pages are off (%s)", mode);
	raw = mmap(NULL, huge_pages * EMBM_PAGE + HUGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, raw);
	p = (char *)(((unsigned long)raw + HUGE - 1) & ~(HUGE - 1));
	mask[a / (8 * sizeof(long))] |= 1UL << (a % (8 * sizeof(long)));
	ASSERT_EQ(0, madvise(p, huge_pages * EMBM_PAGE, MADV_HUGEPAGE));
	ASSERT_EQ(0, syscall(__NR_mbind, p, huge_pages * EMBM_PAGE, MPOL_BIND, mask,
			     EMBM_MAX_NODES, MPOL_MF_STRICT));

	ASSERT_EQ(0, embm_start(0, a)) TH_LOG("embm_start: %m");
	embm_touch(p, huge_pages);
	truth[a] += huge_pages;
	if (b != a) {
		ASSERT_EQ(0, touch_new(b, small, small, 0));
		truth[b] += small;
	}
	ASSERT_EQ(0, embm_end(0));
	in_huge = huge_pages_of(p);
	ASSERT_LE(0, in_huge);
	if (in_huge < (long)huge_pages / 2) {
		munmap(raw, huge_pages * EMBM_PAGE + HUGE);
		SKIP(return, "only %ld of %lu pages in huge pages: no free 2 MiB blocks",
		     in_huge, huge_pages);
	}
	faults = in_huge / 512 + (huge_pages - in_huge);
	TH_LOG("%ld of %lu pages in huge pages: %ld faults", in_huge, huge_pages, faults);
	check_shares(_metadata, truth);
	ASSERT_LT(0, embm_read_nodes(rows));
	/* The samples are the faults (and a few of the test's own). */
	EXPECT_LE(faults, (long)rows[a].samples);
	EXPECT_GE(faults + 16, (long)rows[a].samples);
	/* The pages they mapped: exact at period 1, but for those few. */
	EXPECT_LE(truth[a], rows[a].accesses);
	EXPECT_GE(truth[a] + 16, rows[a].accesses);
	/* Distinct pages: linear counting within 1%. */
	EXPECT_LE(truth[a] * 99 / 100, rows[a].pages);
	EXPECT_GE(truth[a] * 101 / 100 + 16, rows[a].pages);
	munmap(raw, huge_pages * EMBM_PAGE + HUGE);
}

/*
 * Reading never-written memory maps the shared zero page: no address.
 * 65,536 such faults at full speed, then 1,024 pages written on another
 * node: the written node's estimate stays its 1,024 (samples without an
 * address, or lost, are not spread over the nodes), and a thread faulting
 * that fast loses nothing (the queue wakes ksamplingd at half full).
 */
TEST_F(estimate, addressless_samples_are_not_spread)
{
	const unsigned long zero = 65536, written = 1024;
	int a = self->nodes[0], b = self->nodes[1];
	struct embm_node rows[EMBM_MAX_NODES];
	struct timespec t0, t1;
	char sum = 0;
	double secs;
	char *z;

	z = embm_node_pages(zero, a);
	ASSERT_NE(NULL, z);
	ASSERT_EQ(0, embm_start(0, b)) TH_LOG("embm_start: %m");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long i = 0; i < zero; i++)
		sum += __atomic_load_n(&z[i * EMBM_PAGE], __ATOMIC_RELAXED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	zero_sink = sum;
	ASSERT_EQ(0, touch_new(b, written, written, 0));
	ASSERT_EQ(0, embm_end(0));
	secs = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	TH_LOG("%lu zero-page faults in %.3f s (%.0f a second)", zero, secs, zero / secs);
	TH_LOG("%lld samples, %lld without address, %lld lost", embm_status_ll("samples"),
	       embm_status_ll("no_phys"), embm_status_ll("lost"));
	EXPECT_LE((long long)zero, embm_status_ll("no_phys") + embm_status_ll("lost"));
	EXPECT_EQ(0, embm_status_ll("lost"));
	ASSERT_LT(0, embm_read_nodes(rows));
	EXPECT_LE(written, rows[b].accesses);
	EXPECT_GE(written + 16, rows[b].accesses);
	if (a != b)
		EXPECT_GE(16ULL, rows[a].accesses);
	munmap(z, zero * EMBM_PAGE);
}

/*
 * Reading never-written memory that may take huge pages maps the huge
 * zero page, whose address perf does give (a huge page's, unlike the 4 KiB
 * zero page's): still no address of the program's, not 512 pages of a
 * node.  64 MiB read with MADV_HUGEPAGE, then 1,024 pages written.
 */
TEST_F(estimate, huge_zero_page_reads_have_no_address)
{
	const unsigned long pages = 16384, written = 1024;
	struct embm_node rows[EMBM_MAX_NODES];
	char mode[64] = "", *raw, *z;
	int n, b = self->nodes[1];
	long long noaddr;

	if (read_line("/sys/kernel/mm/transparent_hugepage/enabled", mode, sizeof(mode)) ||
	    strstr(mode, "[never]"))
		SKIP(return, "transparent huge pages are off (%s)", mode);
	if (read_line("/sys/kernel/mm/transparent_hugepage/use_zero_page", mode, sizeof(mode)) ||
	    mode[0] != '1')
		SKIP(return, "the huge zero page is not used (use_zero_page %s)", mode);
	raw = mmap(NULL, pages * EMBM_PAGE + HUGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, raw);
	z = (char *)(((unsigned long)raw + HUGE - 1) & ~(HUGE - 1));
	ASSERT_EQ(0, madvise(z, pages * EMBM_PAGE, MADV_HUGEPAGE));
	ASSERT_EQ(0, embm_start(0, b)) TH_LOG("embm_start: %m");
	for (unsigned long i = 0; i < pages; i += 512)
		zero_sink += __atomic_load_n(&z[i * EMBM_PAGE], __ATOMIC_RELAXED);
	ASSERT_EQ(0, touch_new(b, written, written, 0));
	ASSERT_EQ(0, embm_end(0));
	noaddr = embm_status_ll("no_phys");
	ASSERT_LT(0, embm_read_nodes(rows));
	TH_LOG("%lld samples without address; node %d estimate %llu pages", noaddr, b,
	       rows[b].accesses);
	/* 32 huge zero-page faults, none on a node. */
	EXPECT_LE(32LL, noaddr);
	EXPECT_GE(written + 16, rows[b].accesses);
	for (n = 0; n < EMBM_MAX_NODES; n++) {
		if (n != b)
			EXPECT_GT(4096ULL, rows[n].accesses) TH_LOG("node %d", n);
	}
	munmap(raw, pages * EMBM_PAGE + HUGE);
}

TEST_HARNESS_MAIN
