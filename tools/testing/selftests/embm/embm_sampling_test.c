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
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

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

static bool memory_nodes[EMBM_MAX_NODES], cpu_nodes[EMBM_MAX_NODES];

static int first_memory_node(void)
{
	int n;

	for (n = 0; n < EMBM_MAX_NODES - 1 && !memory_nodes[n]; n++)
		;
	return n;
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
		p = embm_node_pages(1, first_memory_node());
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

static int workload(void *arg)
{
	return touch_all_nodes(memory_nodes, *(int *)arg);
}

FIXTURE(sampling) {
	struct embm_saved_knobs saved;
	int study;		/* a memory node without CPUs, else the last */
};

FIXTURE_SETUP(sampling)
{
	int n;

	if (access("/proc/embm/status", R_OK))
		SKIP(return, "no /proc/embm: kernel without CONFIG_EMBM");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	ASSERT_EQ(0, embm_exact_sampling(&self->saved));

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
	embm_restore_sampling(&self->saved);
}

/* The core claim: per-node counts equal the pages touched on each node. */
TEST_F(sampling, per_node_counts_match_ground_truth)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES], first;
	char source[32], state[32];
	struct child c;
	int scale = 1, n;

	ASSERT_EQ(0, spawn(&c, workload, &scale));
	ASSERT_EQ(0, embm_start(c.pid, self->study)) TH_LOG("embm_start: %m");
	ASSERT_EQ(0, embm_status("source", source, sizeof(source)));
	ASSERT_STREQ("swfault", source);
	ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
	ASSERT_STREQ("running", state);
	sleep_ms(50);
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
	ASSERT_EQ(1, embm_proc_read_nodes(EMBM_PROC_DIR, &first, 1));
	EXPECT_EQ(self->study, first.node);
}

/* Node counts of a session: the samples of @node since @before. */
static unsigned long long delta(const struct embm_node *before,
				const struct embm_node *after, int node)
{
	return after[node].samples - before[node].samples;
}

/* In the running session for @end: snapshot, go, wait, end, snapshot. */
static void run_measured(struct __test_metadata *_metadata, struct child *c, pid_t end,
			 struct embm_node *before, struct embm_node *after)
{
	sleep_ms(50);
	ASSERT_LT(0, embm_read_nodes(before));
	ASSERT_EQ(0, pipe_post(c->go));
	ASSERT_EQ(0, pipe_wait(c->done));
	ASSERT_EQ(0, embm_end(end));
	ASSERT_LT(0, embm_read_nodes(after));
	ASSERT_EQ(0, finish(c));
}

/* A session on the caller's child, measured. */
static void measure(struct __test_metadata *_metadata, struct child *c, int node,
		    struct embm_node *before, struct embm_node *after)
{
	ASSERT_EQ(0, embm_start(c->pid, node)) TH_LOG("embm_start: %m");
	run_measured(_metadata, c, c->pid, before, after);
}

static void *thread_touch(void *arg)
{
	int node = *(int *)arg;
	char *p = embm_node_pages(truth_pages(node), node);

	if (!p)
		return (void *)1;
	embm_touch(p, truth_pages(node));
	return NULL;
}

/* A thread and a child process made after the start are followed. */
static int threads_and_children(void *arg)
{
	pthread_t t;
	int status;
	void *ret;
	pid_t pid;

	if (pthread_create(&t, NULL, thread_touch, arg) || pthread_join(t, &ret) || ret)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(thread_touch(arg) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

TEST_F(sampling, threads_and_children_are_followed)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	struct child c;
	int node = self->study;

	/* Warm the thread and fork paths up once, outside the session. */
	ASSERT_EQ(0, threads_and_children(&node));
	ASSERT_EQ(0, spawn(&c, threads_and_children, &node));
	measure(_metadata, &c, node, before, after);
	/* Page tables and stacks of the new thread and child may land on
	 * the node too when it has CPUs; on a memory-only node it is exact.
	 */
	if (!cpu_nodes[node])
		EXPECT_EQ(2 * truth_pages(node), delta(before, after, node));
	EXPECT_LE(2 * truth_pages(node), delta(before, after, node));
	EXPECT_EQ(0, embm_status_ll("lost"));
	/*
	 * swfault's events are direct, the inherited ones included: every
	 * sample came through embm's overflow handler, none as a record.
	 */
	EXPECT_LT(0, embm_status_ll("direct_samples"));
	EXPECT_EQ(embm_status_ll("samples"), embm_status_ll("direct_samples"));
}

static int touch_study(void *arg)
{
	int node = *(int *)arg;
	char *p = embm_node_pages(truth_pages(node), node);

	if (!p)
		return -1;
	embm_touch(p, truth_pages(node));
	return 0;
}

TEST_F(sampling, system_wide_sees_other_processes)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	struct child c;
	int node = self->study;

	ASSERT_EQ(0, spawn(&c, touch_study, &node));
	ASSERT_EQ(0, embm_start(EMBM_PID_SYSTEM, node));
	run_measured(_metadata, &c, EMBM_PID_SYSTEM, before, after);
	if (!cpu_nodes[node])
		EXPECT_EQ(truth_pages(node), delta(before, after, node));
	EXPECT_LE(truth_pages(node), delta(before, after, node));
	EXPECT_EQ(-1, embm_status_ll("target"));
}

static int touch_and_exit(void *arg)
{
	if (touch_study(arg))
		_exit(1);
	_exit(0);
}

TEST_F(sampling, target_exit_ends_the_session)
{
	struct embm_node rows[EMBM_MAX_NODES];
	char state[32] = "";
	struct child c;
	int node = self->study, i;

	ASSERT_EQ(0, spawn(&c, touch_and_exit, &node));
	ASSERT_EQ(0, embm_start(c.pid, node));
	ASSERT_EQ(0, pipe_post(c.go));
	ASSERT_EQ(0, finish(&c));
	/* ksamplingd notices within a drain interval or two. */
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
		if (!strcmp(state, "exited"))
			break;
		sleep_ms(10);
	}
	EXPECT_STREQ("exited", state);
	/* A new session may start before anyone ends this one... */
	ASSERT_LT(0, embm_read_nodes(rows));
	if (!cpu_nodes[node])
		EXPECT_EQ(truth_pages(node), rows[node].samples);
	EXPECT_LE(truth_pages(node), rows[node].samples);
	/* ...and embm_end() still answers for it, once. */
	EXPECT_EQ(0, embm_end(c.pid));
	ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
	EXPECT_STREQ("done", state);
	EXPECT_EQ(-1, embm_end(c.pid));
	EXPECT_EQ(ENOENT, errno);
}

/* The workload on one CPU: one event counts all its faults. */
static int pinned_workload(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return workload(arg);
}

/*
 * With period P one fault in P is a sample, standing for the P faults up
 * to it: each node's samples are within one of truth / P (one CPU, one
 * event counting; software events that asked perf for PERF_SAMPLE_PERIOD
 * were sampled on every fault).  Each node's estimate is within P of the
 * truth, plus its share of the faults after the last sample (fewer than
 * P), which perf counted and embm spreads over the nodes: within 2P.
 */
TEST_F(sampling, period_estimates_within_one_period)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	static const unsigned long long periods[] = { 1, 16, 256 };
	int scale = 16, n;
	unsigned int i;
	struct child c;
	char knob[24];

	for (i = 0; i < ARRAY_SIZE(periods); i++) {
		const unsigned long long period = periods[i];

		snprintf(knob, sizeof(knob), "%llu", period);
		ASSERT_EQ(0, embm_set_knob("period", knob));
		ASSERT_EQ(0, spawn(&c, pinned_workload, &scale));
		measure(_metadata, &c, self->study, before, after);
		ASSERT_EQ(period, (unsigned long long)embm_status_ll("period"));
		for (n = 0; n < EMBM_MAX_NODES; n++) {
			long long est, truth = truth_pages(n) * scale;
			unsigned long long got;

			if (!memory_nodes[n])
				continue;
			est = after[n].accesses - before[n].accesses;
			got = after[n].samples - before[n].samples;
			EXPECT_LE(llabs(est - truth), 2 * (long long)period)
				TH_LOG("period %llu, node %d: estimate %lld, truth %lld",
				       period, n, est, truth);
			EXPECT_GE(got + 1, (unsigned long long)truth / period)
				TH_LOG("period %llu, node %d: %llu samples for %lld faults",
				       period, n, got, truth);
			EXPECT_LE(got, (unsigned long long)truth / period + 1)
				TH_LOG("period %llu, node %d: %llu samples for %lld faults",
				       period, n, got, truth);
		}
	}
}

/*
 * perf's own count of each event kind, read at the end, agrees with the
 * samples: at period 1 every fault is one sample, none is lost, the
 * events were on the whole time (software events never multiplex), and
 * page faults say nothing of caches.
 */
TEST_F(sampling, perf_counts_agree_with_samples)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	struct embm_proc_status st;
	const struct embm_event *ev;
	unsigned long long truth = 0;
	int scale = 1, n;
	char line[256];
	struct child c;

	ASSERT_EQ(0, embm_set_knob("period", "1"));
	ASSERT_EQ(0, spawn(&c, workload, &scale));
	measure(_metadata, &c, self->study, before, after);
	for (n = 0; n < EMBM_MAX_NODES; n++)
		truth += memory_nodes[n] ? truth_pages(n) : 0;
	ASSERT_EQ(0, embm_proc_read_status(EMBM_PROC_DIR, &st));
	ev = embm_proc_status_event(&st, "minor-faults");
	ASSERT_NE(NULL, ev) TH_LOG("status has no \"event minor-faults\" line");
	EXPECT_GE(ev->count, truth);
	EXPECT_EQ(0, embm_status_ll("lost"));
	EXPECT_EQ(ev->count, ev->samples)
		TH_LOG("counted %llu, sampled %llu", ev->count, ev->samples);
	/* Each thread's time enabled and running, read a moment apart. */
	EXPECT_LE(ev->enabled_ms - ev->running_ms, 1 + ev->enabled_ms / 100)
		TH_LOG("enabled %llu ms, running %llu ms", ev->enabled_ms, ev->running_ms);
	EXPECT_GE(ev->running_permille, 990U);
	EXPECT_EQ(0, embm_status_ll("kinds_multiplexed"));
	EXPECT_EQ(0, embm_status_ll("cpus_skipped"));
	EXPECT_EQ(0, embm_status_ll("cache_served"));
	ASSERT_EQ(0, embm_status("source_semantics", line, sizeof(line)));
	EXPECT_EQ(0, strncmp(line, "samples: completed page faults", 30)) TH_LOG("%s", line);
}

/* The adaptive period moves up under load and the estimate stays near. */
TEST_F(sampling, adaptive_period_keeps_estimates)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	int scale = 20, n = self->study;
	long long est, truth = truth_pages(n) * scale;
	struct child c;

	/* A budget of 1 permille forces the period up. */
	ASSERT_EQ(0, embm_set_knob("cpu_budget", "1"));
	ASSERT_EQ(0, spawn(&c, workload, &scale));
	measure(_metadata, &c, n, before, after);
	if (embm_status_ll("period_changes") == 0)
		SKIP(return, "ksamplingd stayed under 0.1%% of a CPU: nothing to adapt");
	EXPECT_LT(1, embm_status_ll("period"));
	est = after[n].accesses - before[n].accesses;
	/*
	 * The periods now hold: a node's estimate is off by its sampling
	 * error, up to a period or two of the ones in force (on a slow
	 * kernel, with KASAN say, they climb high), on top of the 10%.
	 */
	EXPECT_LE(llabs(est - truth), truth / 10 + 2 * embm_status_ll("period"))
		TH_LOG("estimate %lld, truth %lld, period %lld", est, truth,
		       embm_status_ll("period"));
}

/* Forcing a source that cannot work here fails the start with EOPNOTSUPP. */
TEST_F(sampling, forced_hardware_source_without_pmu)
{
	static const char *const sources[] = { "pebs", "ibs" };
	char why[256];
	unsigned int i, refused = 0;

	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		ASSERT_EQ(0, embm_set_knob("source", sources[i]));
		if (embm_start(EMBM_PID_SELF, EMBM_NODE_NONE) == 0) {
			/* This machine has it: fine, and the session is real. */
			ASSERT_EQ(0, embm_status("source", why, sizeof(why)));
			EXPECT_STREQ(sources[i], why);
			ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
			continue;
		}
		EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("%s: %m", sources[i]);
		refused++;
	}
	/* The automatic choice falls back to a source that works. */
	ASSERT_EQ(0, embm_set_knob("source", "auto"));
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	ASSERT_EQ(0, embm_status("source_reason", why, sizeof(why)));
	EXPECT_EQ(0, strncmp(why, "auto: ", 6)) TH_LOG("reason: %s", why);
	ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
	if (refused == ARRAY_SIZE(sources)) {
		/*
		 * Under QEMU with embm's TCG plugin, its emulated PMU, unless
		 * the period knobs (this fixture's exact sampling: 1) are below
		 * the least it takes, 256: then auto moves on to swfault.
		 */
		bool emu = access("/sys/bus/event_source/devices/embm_emu", F_OK) == 0;
		char period[32], store[32];
		long long p, st;

		ASSERT_EQ(0, embm_get_knob("period", period, sizeof(period)));
		ASSERT_EQ(0, embm_get_knob("store_period", store, sizeof(store)));
		p = atoll(period);
		st = atoll(store);
		if ((p && p < 256) || (st && st < 256))
			emu = false;
		ASSERT_EQ(0, embm_status("source", why, sizeof(why)));
		EXPECT_STREQ(emu ? "emu" : "swfault", why);
	}
}

TEST_F(sampling, knobs_refuse_bad_values)
{
	static const char *const bad[][2] = {
		{ "source", "perf" }, { "source", "\n" },
		{ "period", "-1" }, { "period", "1099511627777" }, { "period", "x" },
		{ "ldlat", "2" }, { "ldlat", "65536" },
		{ "ring_pages", "0" }, { "ring_pages", "3" }, { "ring_pages", "2048" },
		{ "cpu_budget", "1001" }, { "hot_pages", "0" }, { "hot_pages", "65537" },
	};
	static const char *const good[][2] = {
		{ "ring_pages", "8" }, { "ldlat", "0" }, { "ldlat", "128" },
		{ "hot_pages", "16" }, { "period", "0" },
	};
	char before[64], now[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, embm_get_knob(bad[i][0], before, sizeof(before)));
		EXPECT_NE(0, embm_set_knob(bad[i][0], bad[i][1]))
			TH_LOG("%s accepted '%s'", bad[i][0], bad[i][1]);
		ASSERT_EQ(0, embm_get_knob(bad[i][0], now, sizeof(now)));
		EXPECT_STREQ(before, now);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ASSERT_EQ(0, embm_get_knob(good[i][0], before, sizeof(before)));
		EXPECT_EQ(0, embm_set_knob(good[i][0], good[i][1]));
		ASSERT_EQ(0, embm_get_knob(good[i][0], now, sizeof(now)));
		EXPECT_STREQ(good[i][1], now);
		embm_set_knob(good[i][0], before);
	}
}

/* The pfn mapped at @addr, from /proc/self/pagemap; 0 if none. */
static unsigned long long pfn_of(void *addr)
{
	unsigned long long entry = 0;
	FILE *f = fopen("/proc/self/pagemap", "r");

	if (!f)
		return 0;
	if (fseek(f, (unsigned long)addr / EMBM_PAGE * 8, SEEK_SET) ||
	    fread(&entry, 8, 1, f) != 1)
		entry = 0;
	fclose(f);
	return (entry >> 63) ? entry & ((1ULL << 55) - 1) : 0;
}

/* The workload pinned to the CPU in *arg. */
static int workload_on_cpu(void *arg)
{
	int one = 1;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(*(int *)arg, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	return workload(&one);
}

/* A system-wide session follows a CPU that goes offline and comes back. */
TEST_F(sampling, cpu_hotplug_is_followed)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	long long events, n;
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1, node = self->study, i;
	struct child c;

	if (cpu < 1 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no CPU to take offline");
	ASSERT_EQ(0, embm_start(EMBM_PID_SYSTEM, node));
	events = embm_status_ll("events");
	ASSERT_LT(0, events);
	ASSERT_EQ(0, set_online(cpu, 0));
	for (i = 0; i < 100 && embm_status_ll("events") == events; i++)
		sleep_ms(10);
	n = embm_status_ll("events");
	EXPECT_GT(events, n);
	ASSERT_EQ(0, set_online(cpu, 1));
	for (i = 0; i < 100 && embm_status_ll("events") != events; i++)
		sleep_ms(10);
	EXPECT_EQ(events, embm_status_ll("events"));

	/* Samples taken on the CPU that came back are counted. */
	ASSERT_EQ(0, spawn(&c, workload_on_cpu, &cpu));
	run_measured(_metadata, &c, EMBM_PID_SYSTEM, before, after);
	if (!cpu_nodes[node])
		EXPECT_EQ(truth_pages(node), delta(before, after, node));
	EXPECT_LE(truth_pages(node), delta(before, after, node));
}

/*
 * A thread made after the start, on a CPU that comes online after the
 * start: the child makes the thread on "go"; the thread waits for the
 * parent's word on new_cpu_ready, then runs on new_cpu and touches pages.
 */
static int new_cpu, new_cpu_ready[2];

static void *thread_on_new_cpu(void *arg)
{
	cpu_set_t set;

	if (pipe_wait(new_cpu_ready[0]))
		return (void *)1;
	CPU_ZERO(&set);
	CPU_SET(new_cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return (void *)1;
	return thread_touch(arg);
}

static int thread_for_new_cpu(void *arg)
{
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, thread_on_new_cpu, arg) || pthread_join(t, &ret))
		return -1;
	return ret ? -1 : 0;
}

/* A process session gives threads made after the start events on a new CPU. */
TEST_F(sampling, new_threads_sampled_on_cpu_that_came_online)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	int node = self->study, i;
	long long events;
	struct child c;

	new_cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (new_cpu < 1 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no CPU to take offline");
	ASSERT_EQ(0, pipe(new_cpu_ready));
	ASSERT_EQ(0, set_online(new_cpu, 0));
	ASSERT_EQ(0, spawn(&c, thread_for_new_cpu, &node));
	ASSERT_EQ(0, embm_start(c.pid, node));
	sleep_ms(50);
	ASSERT_LT(0, embm_read_nodes(before));
	ASSERT_EQ(0, pipe_post(c.go));
	sleep_ms(100);		/* the thread is made and waits */
	events = embm_status_ll("events");
	ASSERT_EQ(0, set_online(new_cpu, 1));
	for (i = 0; i < 200 && embm_status_ll("events") == events; i++)
		sleep_ms(10);
	ASSERT_LT(events, embm_status_ll("events"));
	ASSERT_EQ(0, pipe_post(new_cpu_ready[1]));
	ASSERT_EQ(0, pipe_wait(c.done));
	ASSERT_EQ(0, embm_end(c.pid));
	ASSERT_LT(0, embm_read_nodes(after));
	ASSERT_EQ(0, finish(&c));
	close(new_cpu_ready[0]);
	close(new_cpu_ready[1]);
	if (!cpu_nodes[node])
		EXPECT_EQ(truth_pages(node), delta(before, after, node));
	EXPECT_LE(truth_pages(node), delta(before, after, node));
}

#define HOT_ROUNDS	1000
#define HOT_FILE	"/tmp/embm-hot-page"

/*
 * Read one page of a tmpfs file, drop the mapping, read it again: each
 * read is a minor fault on the same page-cache page.
 */
static int refault_one_page(void *arg)
{
	int fd, r;
	char *p;

	(void)arg;

	fd = open(HOT_FILE, O_RDONLY);
	if (fd < 0)
		return -1;
	p = mmap(NULL, EMBM_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	for (r = 0; r < HOT_ROUNDS; r++) {
		if (__atomic_load_n(&p[0], __ATOMIC_RELAXED) != 1 ||
		    madvise(p, EMBM_PAGE, MADV_DONTNEED))
			return -1;
	}
	return 0;
}

TEST_F(sampling, hot_page_is_found)
{
	struct embm_node before[EMBM_MAX_NODES], after[EMBM_MAX_NODES];
	char buf[EMBM_PAGE] = { 1 };
	unsigned long long hot_pfn;
	struct embm_hot hot;
	struct child c;
	char *p;
	int fd;

	fd = open(HOT_FILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)EMBM_PAGE, write(fd, buf, EMBM_PAGE));
	p = mmap(NULL, EMBM_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(1, p[0]);
	hot_pfn = pfn_of(p);
	ASSERT_NE(0ULL, hot_pfn);

	ASSERT_EQ(0, spawn(&c, refault_one_page, NULL));
	measure(_metadata, &c, EMBM_NODE_NONE, before, after);
	munmap(p, EMBM_PAGE);
	unlink(HOT_FILE);

	ASSERT_EQ(1, embm_proc_read_hot(EMBM_PROC_DIR, &hot, 1));
	ASSERT_EQ(1, hot.rank);
	EXPECT_EQ(hot_pfn, hot.pfn);
	EXPECT_LE((unsigned long long)HOT_ROUNDS, hot.count);
	EXPECT_LE(hot.count - hot.error, (unsigned long long)HOT_ROUNDS);
	EXPECT_LE(0, hot.node);
}

TEST_HARNESS_MAIN
