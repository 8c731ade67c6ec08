// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of what embm reports: known numbers of pages touched on known
 * nodes must come back as the same numbers per node, in the right tier,
 * with threads, children and whole-system sessions, and the knobs.
 *
 * The source is swfault (minor page faults): it works without a PMU and
 * with period 1 each first touch of a page is one sample, so the counts
 * are exact.  Needs root and CONFIG_EMBM; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define KNOBS	4
static const char *const knob_names[KNOBS] = {
	"source", "period", "cpu_budget", "store_period",
};

/* Pages the workload binds to node n: distinct per node, to catch mix-ups. */
static unsigned long truth_pages(int node)
{
	return 300 + 200 * node;
}

static int pipe_wait(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int pipe_post(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Touch truth_pages(n) pages on each node with memory; 0 or -1. */
static int touch_all_nodes(const bool *memory, int pages_scale)
{
	for (int n = 0; n < EMBM_MAX_NODES; n++) {
		unsigned long pages = memory[n] ? truth_pages(n) * pages_scale : 0;
		char *p;

		if (!pages)
			continue;
		p = embm_node_pages(pages, n);
		if (!p)
			return -1;
		embm_touch(p, pages);
	}
	return 0;
}

/*
 * A child that first runs the workload's code once on a single page
 * (so that its later run faults on nothing but the measured pages), then
 * says it is ready and waits; on "go" it runs @fn and says done, then
 * waits for EOF and exits.
 */
struct child {
	pid_t pid;
	int go;		/* parent writes */
	int done;	/* parent reads */
};

static int spawn(struct child *c, int (*fn)(void *), void *arg)
{
	int go[2], done[2];

	if (pipe(go) || pipe(done))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		char *p;

		close(go[1]);
		close(done[0]);
		p = embm_node_pages(1, 0);
		if (!p)
			_exit(2);
		embm_touch(p, 1);
		munmap(p, EMBM_PAGE);
		if (pipe_post(done[1]) || pipe_wait(go[0]))
			_exit(3);
		if (fn(arg))
			_exit(4);
		if (pipe_post(done[1]))
			_exit(5);
		pipe_wait(go[0]);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	c->go = go[1];
	c->done = done[0];
	return pipe_wait(c->done);
}

static int finish(struct child *c)
{
	int status;

	close(c->go);
	close(c->done);
	if (waitpid(c->pid, &status, 0) != c->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static bool memory_nodes[EMBM_MAX_NODES], cpu_nodes[EMBM_MAX_NODES];

static int workload(void *arg)
{
	return touch_all_nodes(memory_nodes, *(int *)arg);
}

FIXTURE(sampling) {
	char saved[KNOBS][64];
	char rate[32];
	int study;		/* a memory node without CPUs, else the last */
};

FIXTURE_SETUP(sampling)
{
	FILE *f;
	int n;

	if (access("/proc/embm/status", R_OK))
		SKIP(return, "no /proc/embm: kernel without CONFIG_EMBM");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	for (n = 0; n < KNOBS; n++)
		ASSERT_EQ(0, embm_get_knob(knob_names[n], self->saved[n], sizeof(self->saved[n])));
	ASSERT_EQ(0, embm_set_knob("source", "swfault"));
	ASSERT_EQ(0, embm_set_knob("period", "1"));
	ASSERT_EQ(0, embm_set_knob("store_period", "1"));
	ASSERT_EQ(0, embm_set_knob("cpu_budget", "0"));
	/* perf throttles past max_sample_rate; a guest fault takes ~16 us. */
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r+");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(self->rate, sizeof(self->rate), f));
	rewind(f);
	fputs("1000000", f);
	fclose(f);

	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", memory_nodes));
	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_cpu", cpu_nodes));
	self->study = -1;
	for (n = 0; n < EMBM_MAX_NODES; n++) {
		if (memory_nodes[n] && (self->study < 0 || cpu_nodes[self->study]))
			self->study = n;
	}
	ASSERT_LE(0, self->study);
}

FIXTURE_TEARDOWN(sampling)
{
	FILE *f;
	int n;

	for (n = 0; n < KNOBS; n++)
		if (self->saved[n][0])
			embm_set_knob(knob_names[n], self->saved[n]);
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "w");
	if (f && self->rate[0])
		fputs(self->rate, f);
	if (f)
		fclose(f);
}

/* The core claim: per-node counts equal the pages touched on each node. */
TEST_F(sampling, per_node_counts_match_ground_truth)
{
	struct embm_node_row before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	char source[32], state[32];
	struct child c;
	int scale = 1, n, first = -1;
	FILE *f;
	char line[256];

	ASSERT_EQ(0, spawn(&c, workload, &scale));
	ASSERT_EQ(0, embm_start(c.pid, self->study)) TH_LOG("embm_start: %m");
	ASSERT_EQ(0, embm_status("source", source, sizeof(source)));
	ASSERT_STREQ("swfault", source);
	ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
	ASSERT_STREQ("running", state);
	msleep(50);
	ASSERT_LT(0, embm_read_nodes(before));

	ASSERT_EQ(0, pipe_post(c.go));
	ASSERT_EQ(0, pipe_wait(c.done));
	ASSERT_EQ(0, embm_end(c.pid));
	ASSERT_LT(0, embm_read_nodes(after));
	ASSERT_EQ(0, finish(&c));

	for (n = 0; n < EMBM_MAX_NODES; n++) {
		if (!memory_nodes[n])
			continue;
		EXPECT_EQ(truth_pages(n), after[n].samples - before[n].samples)
			TH_LOG("node %d: %llu samples before, %llu after, %lu touched",
			       n, before[n].samples, after[n].samples, truth_pages(n));
		EXPECT_EQ(after[n].samples, after[n].accesses);
		/* Every sample here is a distinct page: linear counting within 1%. */
		EXPECT_LE(after[n].samples * 99 / 100, after[n].pages);
		EXPECT_GE(after[n].samples * 101 / 100 + 1, after[n].pages);
		/* Tiers: nodes without CPUs are far (CXL-like); no CXL windows here. */
		EXPECT_STREQ(cpu_nodes[n] ? "dram" : "far", after[n].tier);
		EXPECT_EQ(n == self->study, after[n].study);
	}
	EXPECT_EQ(0, embm_status_ll("lost"));
	EXPECT_EQ(0, embm_status_ll("throttled"));
	EXPECT_EQ(0, embm_status_ll("bad_records"));

	/* The node under study is the first row. */
	f = fopen("/proc/embm/nodes", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f) && first < 0)
		if (line[0] >= '0' && line[0] <= '9')
			first = atoi(line);
	fclose(f);
	EXPECT_EQ(self->study, first);
}

TEST_HARNESS_MAIN
