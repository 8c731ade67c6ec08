// SPDX-License-Identifier: GPL-2.0
/*
 * The answers users ask embm for, against the exact oracle of QEMU's
 * embm-emu TCG plugin: how sure a share is (its 95% interval), how much
 * of the traffic is the kernel's, and which tasks drove it.  The truth is
 * read from the plugin's shared memory (tools/embm/emu_oracle.c), never
 * from embm.
 *
 * Skips without the plugin's device (a guest booted with --no-emu, or
 * QEMU older than 10); needs root and CONFIG_EMBM.
 *
 * Run with --read-file FILE PASSES, it is the workload of the user and
 * kernel test instead: it reads FILE through read(2) PASSES times and
 * sums what it read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "embm_util.h"
#include "emu_oracle.h"
#include "embm_emu_util.h"

#define BENCH_JSON	"/tmp/embm-emu-answers.json"
#define RUN_OUT		"/tmp/embm-emu-answers.txt"
#define READ_FILE	"/tmp/embm-emu-pagecache"
#define READER_PID	"/tmp/embm-emu-reader.pid"
#define FILE_MIB	4
#define MAX_PIDS	16
#define COVER_RUNS	60	/* at least 20: 180 node-runs seldom miss 90% by chance */
#define SPLIT_PP	1.0	/* the bound on the user/kernel split */

FIXTURE(answers) {
	struct emu_dev dev;
	bool open;
	char source[64];
	int nodes[EMBM_MAX_NODES];
	int kind[EMBM_MAX_NODES];
	int nr_nodes;
};

FIXTURE_SETUP(answers)
{
	struct emu_snapshot snap = { 0 };
	uint32_t want;

	self->open = false;
	if (geteuid())
		SKIP(return, "needs root");
	if (access(EMBM_PROC_DIR, F_OK))
		SKIP(return, "no /proc/embm: a kernel without CONFIG_EMBM");
	if (emu_open(&self->dev))
		SKIP(return, "no embm-emu device (a guest without QEMU 10's plugin): %s",
		     emu_error());
	self->open = true;
	ASSERT_EQ(0, embm_get_knob("source", self->source, sizeof(self->source)));
	ASSERT_EQ(0, embm_set_knob("source", "auto"));
	/* The oracle from zero: off, then on. */
	want = self->dev.hdr->want;
	ASSERT_EQ(0, emu_set_want(&self->dev, want & ~EMBM_EMU_MODE_ORACLE, EMU_TIMEOUT_MS));
	ASSERT_EQ(0, emu_set_want(&self->dev, want | EMBM_EMU_MODE_ORACLE, EMU_TIMEOUT_MS));
	self->nr_nodes = memory_nodes(self->nodes);
	ASSERT_GT(self->nr_nodes, 0);
	ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
	for (int i = 0; i < self->nr_nodes; i++) {
		self->kind[i] = -1;
		for (int r = 0; r < (int)snap.nr_ranges; r++)
			if ((int)snap.range[r].node == self->nodes[i])
				self->kind[i] = snap.range[r].kind;
	}
	emu_snapshot_free(&snap);
}

FIXTURE_TEARDOWN(answers)
{
	unlink(READ_FILE);
	if (!self->open)
		return;
	emu_set_want(&self->dev, self->dev.hdr->want & ~EMBM_EMU_MODE_ORACLE, EMU_TIMEOUT_MS);
	if (self->source[0])
		embm_set_knob("source", self->source);
	emu_close(&self->dev);
}

/* The last node with memory of kind @kind, or -1. */
static int node_of_kind(const struct _test_data_answers *self, int kind)
{
	int node = -1;

	for (int i = 0; i < self->nr_nodes; i++)
		if (self->kind[i] == kind)
			node = self->nodes[i];
	return node;
}

/*
 * Coverage of the 95% intervals: COVER_RUNS runs of embm-bench's random
 * reads over a buffer on every node, each a fresh session at the default
 * settings.  In each run, each node's share of the oracle's counts of
 * embm-bench's tasks must lie in embm's interval of it, in at least 90%
 * of the node-runs over all runs; the estimated accesses likewise.  How
 * wide the intervals are is printed beside how far off the shares were:
 * the root mean square of the errors in units of the interval's standard
 * error (its half width / 1.96) is about 1 for an interval as wide as
 * the sampling needs, below for one wider than needed: held to 0.6-1.5
 * for the shares, 0.5-1.5 for the counts (the plugin's periods, spread
 * evenly around their mean, make the number of samples less variable than
 * the intervals' Poisson model: they run a little wide).
 */
TEST_F_TIMEOUT(answers, interval_coverage, 900)
{
	static struct embm_node rows[EMBM_MAX_NODES];
	int cases = 0, in = 0, acc_in = 0;
	double width = 0, z2 = 0, acc_z2 = 0, rel = 0;
	char bufs[512] = "";
	size_t at = 0;

	for (int i = 0; i < self->nr_nodes; i++) {
		/* Less where QEMU is slower: CXL memory, which it runs as I/O. */
		unsigned int kib = self->kind[i] == EMBM_EMU_KIND_CXL ? 128 : 512;

		at += snprintf(bufs + at, sizeof(bufs) - at, " -b %uK@%d", kib, self->nodes[i]);
	}
	for (int run = 0; run < COVER_RUNS; run++) {
		struct emu_snapshot snap = { 0 };
		unsigned long long total, samples = 0;
		pid_t pids[MAX_PIDS];
		struct truth t;
		int n, nr;

		ASSERT_EQ(0, emu_set_want(&self->dev, self->dev.hdr->want & ~EMBM_EMU_MODE_ORACLE,
					  EMU_TIMEOUT_MS));
		ASSERT_EQ(0, emu_set_want(&self->dev, self->dev.hdr->want | EMBM_EMU_MODE_ORACLE,
					  EMU_TIMEOUT_MS));
		ASSERT_EQ(0, emu_run("embm-run -o %s -- embm-bench %s -j -o %s%s", RUN_OUT,
				     "-p rand-read -t 2 -r 300", BENCH_JSON, bufs));
		n = emu_bench_pids(BENCH_JSON, pids, MAX_PIDS);
		ASSERT_EQ(1, n);
		ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
		ASSERT_EQ(1, truth_of(&snap, pids, n, &t));
		emu_snapshot_free(&snap);
		nr = embm_proc_read_nodes(EMBM_PROC_DIR, rows, EMBM_MAX_NODES);
		ASSERT_GT(nr, 0);
		total = t.all[0] + t.all[1];
		ASSERT_GT(total, 0);
		for (int i = 0; i < nr; i++)
			samples += rows[i].samples;
		ASSERT_GE(samples, 500);
		for (int i = 0; i < nr; i++) {
			const struct embm_node *r = &rows[i];
			unsigned long long acc = t.acc[r->node][0] + t.acc[r->node][1];
			double truth = 100.0 * acc / total;
			double se = (r->share_hi - r->share_lo) / 2 / 1.96;
			double ase = (r->accesses_hi - r->accesses_lo) / 2.0 / 1.96;
			bool ok = truth >= r->share_lo && truth <= r->share_hi;
			bool aok = acc >= r->accesses_lo && acc <= r->accesses_hi;

			ksft_print_msg("run %d node %d: %llu of %llu samples, %.2f%% [%.2f-%.2f]\n",
				       run, r->node, r->samples, samples, r->share, r->share_lo,
				       r->share_hi);
			ksft_print_msg("  oracle %.2f%%%s; accesses %llu [%llu, %llu] %s %llu%s\n",
				       truth, ok ? "" : " OUT", r->accesses, r->accesses_lo,
				       r->accesses_hi, "oracle", acc, aok ? "" : " OUT");
			cases++;
			in += ok;
			acc_in += aok;
			width += r->share_hi - r->share_lo;
			if (se > 0)
				z2 += pow((r->share - truth) / se, 2);
			if (ase > 0)
				acc_z2 += pow(((double)r->accesses - acc) / ase, 2);
			if (r->accesses)
				rel += (r->accesses_hi - r->accesses_lo) / 2.0 / r->accesses;
		}
	}
	ksft_print_msg("shares: the oracle's in embm's 95%% interval in %d of %d %s (%.1f%%)\n",
		       in, cases, "node-runs", 100.0 * in / cases);
	ksft_print_msg("  mean width %.2f pp; rms error %.2f standard errors\n", width / cases,
		       sqrt(z2 / cases));
	ksft_print_msg("accesses: in the interval in %d of %d (%.1f%%); mean half width %.1f%%\n",
		       acc_in, cases, 100.0 * acc_in / cases, 100 * rel / cases);
	ksft_print_msg("  rms error %.2f standard errors\n", sqrt(acc_z2 / cases));
	EXPECT_GE(in * 10, cases * 9);
	EXPECT_GE(acc_in * 10, cases * 9);
	/*
	 * Not wider than needed, nor much narrower: the errors' root mean
	 * square in standard errors is about 1 for an interval as wide as
	 * the sampling needs (0.79 to 1.11 here over runs), 0.5 for one
	 * twice as wide, 1.5 for one two thirds as wide.
	 */
	EXPECT_GE(sqrt(z2 / cases), 0.6);
	EXPECT_LE(sqrt(z2 / cases), 1.5);
	EXPECT_GE(sqrt(acc_z2 / cases), 0.5);
	EXPECT_LE(sqrt(acc_z2 / cases), 1.5);
}

/* The workload of user_kernel_split: read @path @passes times, sum it. */
static int read_file(const char *path, long passes)
{
	static uint64_t buf[(64 << 10) / sizeof(uint64_t)];
	uint64_t sum = 0;
	int fd = open(path, O_RDONLY);
	FILE *f = fopen(READER_PID, "w");

	if (fd < 0 || !f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		return 1;
	for (long p = 0; p < passes; p++) {
		off_t off = 0;
		ssize_t n;

		while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
			for (size_t i = 0; i < (size_t)n / sizeof(uint64_t); i++)
				sum += buf[i];
			off += n;
		}
		if (n < 0)
			return 1;
	}
	close(fd);
	/* The sum is the point: the loads must not be optimised away. */
	return sum == 42;
}

/*
 * Write READ_FILE (FILE_MIB MiB) from a child bound to @node, so that its
 * page cache is there (shmem and ramfs allocate with the writer's policy);
 * then count the pages that are, through a mapping of it.  Return: the
 * pages on @node, or -1.
 */
static int file_on_node(int node)
{
	size_t size = FILE_MIB << 20, pages = size / 4096, on = 0;
	unsigned long mask[EMBM_MAX_NODES / 64] = { 0 };
	static char chunk[1 << 16];
	void *addrs[FILE_MIB << 8];
	int status[FILE_MIB << 8];
	pid_t pid;
	char *p;
	int fd;

	memset(chunk, 0x5a, sizeof(chunk));
	mask[node / 64] = 1UL << (node % 64);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (syscall(__NR_set_mempolicy, MPOL_BIND, mask, EMBM_MAX_NODES))
			_exit(1);
		fd = open(READ_FILE, O_CREAT | O_TRUNC | O_WRONLY, 0600);
		for (size_t done = 0; fd >= 0 && done < size; done += sizeof(chunk))
			if (write(fd, chunk, sizeof(chunk)) != sizeof(chunk))
				_exit(1);
		_exit(fd < 0 || close(fd));
	}
	if (reap(pid))
		return -1;
	fd = open(READ_FILE, O_RDONLY);
	if (fd < 0)
		return -1;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < pages; i++) {
		addrs[i] = p + i * 4096;
		__atomic_load_n((char *)addrs[i], __ATOMIC_RELAXED);
	}
	if (syscall(__NR_move_pages, 0, pages, addrs, NULL, status, 0))
		pages = 0;
	for (size_t i = 0; i < pages; i++)
		on += status[i] == node;
	munmap(p, size);
	return on;
}

/*
 * |@got - @want| within SPLIT_PP or four standard errors of @n samples,
 * times the session's emu_weight_factor() @f (their weights).
 */
static bool split_ok(double got, double want, unsigned long long n, double f, double *bound)
{
	*bound = fmax(SPLIT_PP, 4 * f * emu_share_se(want, n));
	return fabs(got - want) <= *bound;
}

/*
 * User and kernel apart: a file whose page cache is on the CXL node (or,
 * without one, a memory-only node) is read with read(2) by a task on
 * another node, which sums what it read.  The kernel's loads of the page
 * cache land on the file's node, its stores and the task's own loads on
 * the task's.  Per node, the kernel's part of embm's estimated accesses
 * must be within 1 pp of the oracle's (of the reader's accesses, by the
 * privilege level each ran at), or four standard errors where the node's
 * samples are too few for 1 pp; so must the kernel's part of them all.
 */
TEST_F_TIMEOUT(answers, user_kernel_split, 300)
{
	static struct embm_node rows[EMBM_MAX_NODES];
	unsigned long long total, kern = 0, est = 0, est_kern = 0, samples = 0;
	struct emu_snapshot snap = { 0 };
	int node = node_of_kind(self, EMBM_EMU_KIND_CXL), on, nr;
	double got, want, bound, f;
	char line[64];
	struct truth t;
	pid_t pid;

	if (node < 0)
		node = node_of_kind(self, EMBM_EMU_KIND_FAR);
	if (node < 0)
		SKIP(return, "no CXL or memory-only node for the page cache");
	on = file_on_node(node);
	ASSERT_GE(on, (FILE_MIB << 8) * 9 / 10) {
		TH_LOG("%d of the file's %d pages on node %d", on, FILE_MIB << 8, node);
	}
	/* The reader on the first CPU; the file's node has none (or is CXL). */
	ASSERT_EQ(0, emu_run("taskset -c 0 embm-run -n %d -o %s -- /proc/%d/exe --read-file %s 40",
			     node, RUN_OUT, getpid(), READ_FILE));
	ASSERT_EQ(0, read_line(READER_PID, line, sizeof(line)));
	pid = atoi(line);
	ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
	ASSERT_EQ(1, truth_of(&snap, &pid, 1, &t));
	emu_snapshot_free(&snap);
	nr = embm_proc_read_nodes(EMBM_PROC_DIR, rows, EMBM_MAX_NODES);
	ASSERT_GT(nr, 0);
	total = t.all[0] + t.all[1];
	ASSERT_GT(total, 0);
	f = emu_weight_factor();
	for (int i = 0; i < nr; i++) {
		const struct embm_node *r = &rows[i];
		unsigned long long acc = t.cpl[r->node][0] + t.cpl[r->node][1];

		if (!r->accesses || !acc)
			continue;
		got = 100.0 * r->kernel_accesses / r->accesses;
		want = 100.0 * t.cpl[r->node][1] / acc;
		EXPECT_TRUE(split_ok(got, want, r->samples, f, &bound));
		ksft_print_msg("node %d %s: kernel %.2f%% of %llu samples (%llu user, %llu %s)\n",
			       r->node, r->tier, got, r->samples, r->user_samples,
			       r->kernel_samples, "kernel");
		ksft_print_msg("  oracle %.2f%% (bound %.2f pp)\n", want, bound);
		kern += t.cpl[r->node][1];
		est += r->accesses;
		est_kern += r->kernel_accesses;
		samples += r->samples;
		if (r->node == node) {
			/* The workload did what it says: the kernel read the file there. */
			EXPECT_GE(want, 90.0);
		}
	}
	got = 100.0 * est_kern / est;
	want = 100.0 * kern / total;
	EXPECT_TRUE(split_ok(got, want, samples, f, &bound));
	ksft_print_msg("all nodes: kernel %.2f%% of %llu samples; oracle %.2f%% (bound %.2f pp)\n",
		       got, samples, want, bound);
}

static int desc_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The promotion hint: embm-bench's hot pattern puts 90% of its loads in 8
 * pages of a 1 MiB buffer on the CXL node (or a memory-only node), and the
 * oracle counts each of its pages (-w).  At each point of embm's curve,
 * the share of the node's accesses that its hottest K pages carry must be
 * within 2 pp of the oracle's (its K pages with the most accesses, of
 * every access of embm-bench's tasks to the node), or four standard
 * errors where the node's samples are too few for 2 pp: for the points
 * whose pages were each sampled at least 10 times.  Past them, pages
 * sampled once or twice are the luckiest of many, the share runs high,
 * and the hint must say so (min_samples below 10: pages sampled 4 to 7
 * times ran 2 to 3 points high in the CXL boot).
 */
TEST_F_TIMEOUT(answers, promotion_hint, 300)
{
	static struct embm_node rows[EMBM_MAX_NODES];
	static struct embm_hint_row hint[64];
	int node = node_of_kind(self, EMBM_EMU_KIND_CXL), nr, n, i, held = 0;
	struct emu_snapshot snap = { 0 };
	unsigned long long total, samples = 0;
	uint64_t *count;
	struct truth t;
	pid_t pid;

	if (node < 0)
		node = node_of_kind(self, EMBM_EMU_KIND_FAR);
	if (node < 0)
		SKIP(return, "no CXL or memory-only node");
	ASSERT_EQ(0, emu_run("embm-run -n %d -o %s -- embm-bench %s -o %s -b 1M@%d", node, RUN_OUT,
			     "-p hot --hot-pages 8 -r 5000 -w -j", BENCH_JSON, node));
	ASSERT_EQ(1, emu_bench_pids(BENCH_JSON, &pid, 1));
	ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
	ASSERT_EQ(1, truth_of(&snap, &pid, 1, &t));
	total = t.acc[node][0] + t.acc[node][1];
	ASSERT_GT(total, 0);
	ASSERT_GE(snap.nr_pages, 8);
	count = calloc(snap.nr_pages, sizeof(*count));
	ASSERT_NE(NULL, count);
	for (i = 0; i < (int)snap.nr_pages; i++)
		count[i] = snap.page[i][0] + snap.page[i][1];
	qsort(count, snap.nr_pages, sizeof(*count), desc_u64);
	nr = embm_proc_read_hint(EMBM_PROC_DIR, hint, 64);
	ASSERT_GT(nr, 0);
	/* The node's samples, for the bound. */
	n = embm_proc_read_nodes(EMBM_PROC_DIR, rows, EMBM_MAX_NODES);
	for (i = 0; i < n; i++)
		if (rows[i].node == node)
			samples = rows[i].samples;
	for (i = 0; i < nr; i++) {
		unsigned long long top = 0;
		double want, bound;
		bool ok;

		if (hint[i].node != node)
			continue;
		for (unsigned long long k = 0; k < hint[i].pages && k < snap.nr_pages; k++)
			top += count[k];
		want = 100.0 * top / total;
		bound = fmax(2.0, 400 * sqrt(want / 100 * (1 - want / 100) / fmax(samples, 1)));
		ok = fabs(hint[i].share - want) <= bound;
		ksft_print_msg("node %d: hottest %llu pages carry %.2f%% [%.2f, %.2f], %s %llu\n",
			       node, hint[i].pages, hint[i].share, hint[i].share_lo,
			       hint[i].share_hi, "fewest samples", hint[i].min_samples);
		ksft_print_msg("  oracle %.2f%% (bound %.2f pp)%s\n", want, bound,
			       ok ? "" : " OFF");
		if (hint[i].min_samples >= 10) {
			EXPECT_TRUE(ok);
			held++;
		} else if (!ok) {
			/* Off only where the hint says it runs high. */
			EXPECT_GT(hint[i].share, want);
		}
	}
	/* The hot set's 8 pages at least, each sampled often. */
	EXPECT_GE(held, 4);
	free(count);
	emu_snapshot_free(&snap);
}

/* The rows of /proc/embm/tasks of process @pid, summed per node column. */
static int task_sum(const struct embm_tasks_table *t, int pid, unsigned long long *acc,
		    unsigned long long *samples)
{
	int threads = 0;

	memset(acc, 0, t->nr_cols * sizeof(*acc));
	*samples = 0;
	for (int i = 0; i < t->nr_rows; i++) {
		if (t->rows[i].pid != pid)
			continue;
		threads++;
		*samples += t->rows[i].samples;
		for (int c = 0; c < t->nr_cols; c++)
			acc[c] += t->rows[i].node_accesses[c];
	}
	return threads;
}

/*
 * Per task: two embm-bench processes of two threads each, with different
 * node mixes (most of one's buffers on the first node, most of the
 * other's on the last), under one session on the shell that starts them.
 * /proc/embm/tasks summed over each process's threads must give each
 * node's share of that process's accesses within 1 pp of the oracle's
 * counts of its address space (or four standard errors of its samples,
 * where they are too few for 1 pp), and each process's part of the two.
 * Then with max_tasks 2, the tasks past it count as "other tasks", and
 * every sample is in one row.
 */
TEST_F_TIMEOUT(answers, per_task, 300)
{
	static struct embm_node rows[EMBM_MAX_NODES];
	unsigned long long acc[2][EMBM_MAX_NODES], samples[2], sum_samples = 0, node_samples = 0;
	int first = self->nodes[0], last = self->nodes[self->nr_nodes - 1], nr, i, p, c;
	struct emu_snapshot snap = { 0 };
	struct embm_tasks_table t;
	struct truth truth[2];
	double bound, got, want, f, tot[2] = { 0 };
	char old[32], mix[2][64];
	pid_t pid[2];

	if (self->nr_nodes < 2)
		SKIP(return, "one node with memory");
	/* Three quarters of the one's buffers on the first node, of the other's on the last. */
	snprintf(mix[0], sizeof(mix[0]), "-b 1536K@%d -b 512K@%d", first, last);
	snprintf(mix[1], sizeof(mix[1]), "-b 512K@%d -b 1536K@%d", first, last);
	ASSERT_EQ(0, emu_run("embm-run -o %s -- sh -c '%s %s -j -o %s.0 & %s %s -j -o %s.1 & wait'",
			     RUN_OUT, "embm-bench -p rand-read -t 2 -r 1000", mix[0], BENCH_JSON,
			     "embm-bench -p rand-read -t 2 -r 1000", mix[1], BENCH_JSON));
	for (p = 0; p < 2; p++) {
		char path[64];

		snprintf(path, sizeof(path), "%s.%d", BENCH_JSON, p);
		ASSERT_EQ(1, emu_bench_pids(path, &pid[p], 1));
	}
	ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
	for (p = 0; p < 2; p++)
		ASSERT_EQ(1, truth_of(&snap, &pid[p], 1, &truth[p]));
	emu_snapshot_free(&snap);
	ASSERT_EQ(0, embm_proc_read_tasks(EMBM_PROC_DIR, &t, 1 << 16));
	ASSERT_GT(t.nr_rows, 0);
	f = emu_weight_factor();
	for (p = 0; p < 2; p++) {
		unsigned long long all = truth[p].all[0] + truth[p].all[1], est = 0;

		/* Its main thread and its two workers each have a row. */
		EXPECT_GE(task_sum(&t, pid[p], acc[p], &samples[p]), 3);
		for (c = 0; c < t.nr_cols; c++)
			est += acc[p][c];
		ASSERT_GT(est, 0);
		ASSERT_GT(all, 0);
		tot[p] = est;
		for (c = 0; c < t.nr_cols; c++) {
			int n = t.cols[c];

			if (n < 0)
				continue;
			got = 100.0 * acc[p][c] / est;
			want = 100.0 * (truth[p].acc[n][0] + truth[p].acc[n][1]) / all;
			EXPECT_TRUE(split_ok(got, want, samples[p], f, &bound));
			ksft_print_msg("process %d node %d: %.2f%% of its %llu samples' %s\n",
				       pid[p], n, got, samples[p], "accesses");
			ksft_print_msg("  oracle %.2f%% (bound %.2f pp)\n", want, bound);
		}
	}
	got = 100.0 * tot[0] / (tot[0] + tot[1]);
	want = 100.0 * (truth[0].all[0] + truth[0].all[1]) /
	       (truth[0].all[0] + truth[0].all[1] + truth[1].all[0] + truth[1].all[1]);
	EXPECT_TRUE(split_ok(got, want, samples[0] + samples[1], f, &bound));
	ksft_print_msg("process %d: %.2f%% of the two's accesses; oracle %.2f%% (bound %.2f pp)\n",
		       pid[0], got, want, bound);
	embm_proc_free_tasks(&t);

	/* Two entries, the rest in "other tasks": every sample in one row. */
	ASSERT_EQ(0, embm_get_knob("max_tasks", old, sizeof(old)));
	ASSERT_EQ(0, embm_set_knob("max_tasks", "2"));
	i = emu_run("embm-run -o %s -- embm-bench -p rand-read -t 3 -r 50 -b 512K@%d",
		    RUN_OUT, first);
	embm_set_knob("max_tasks", old);
	ASSERT_EQ(0, i);
	ASSERT_EQ(0, embm_proc_read_tasks(EMBM_PROC_DIR, &t, 1 << 16));
	ASSERT_EQ(3, t.nr_rows);
	EXPECT_EQ(-1, t.rows[2].pid);
	EXPECT_GT(t.rows[2].samples, 0);
	for (i = 0; i < t.nr_rows; i++)
		sum_samples += t.rows[i].samples;
	nr = embm_proc_read_nodes(EMBM_PROC_DIR, rows, EMBM_MAX_NODES);
	for (i = 0; i < nr; i++)
		node_samples += rows[i].samples;
	EXPECT_EQ(node_samples, sum_samples);
	ksft_print_msg("max_tasks 2: %llu samples in 2 tasks' rows and other tasks' %llu\n",
		       sum_samples, t.rows[2].samples);
	embm_proc_free_tasks(&t);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--read-file"))
		return read_file(argv[2], atol(argv[3]));
	return test_harness_run(argc, argv);
}
