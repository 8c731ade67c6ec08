// SPDX-License-Identifier: GPL-2.0
/*
 * embm under stress and on less-travelled paths: many start/end cycles,
 * racing starts, a killed launcher, a flood of samples into the smallest
 * ring, /proc reads racing the end of a session, the cap on events, and
 * a target with thousands of threads.
 * Leaks and memory errors these cause show up in the debug kernel's
 * kmemleak and KASAN checks after the run.
 *
 * Needs root and a kernel with CONFIG_EMBM; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/embm.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define NOBODY		65534

static const char *const knobs[] = {
	"source", "period", "store_period", "ring_pages", "cpu_budget", "max_events",
	"hot_pages",
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

/* Wait up to @ms for /proc/embm/status to say "state @want". */
static bool wait_state(const char *want, long ms)
{
	char state[32];

	for (; ms > 0; ms -= 10) {
		if (!embm_status("state", state, sizeof(state)) && !strcmp(state, want))
			return true;
		sleep_ms(10);
	}
	return false;
}

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_MEM		CG_ROOT "/embm-memcg"

/* Move the calling process to cgroup @dir; 0 or -1. */
static int enter_cgroup(const char *dir)
{
	char path[256], pid[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(path, pid);
}

FIXTURE(stress) {
	char saved[NR_KNOBS][64];
	char paranoid[16];
	char rate[32];
	char mlock_kb[32];
};

FIXTURE_SETUP(stress)
{
	unsigned int i;

	if (embm_end(EMBM_PID_SYSTEM) && errno == ENOSYS)
		SKIP(return, "embm syscalls not available (CONFIG_EMBM=n)");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	ASSERT_NE(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	embm_end(EMBM_PID_SELF);
	for (i = 0; i < NR_KNOBS; i++)
		ASSERT_EQ(0, embm_get_knob(knobs[i], self->saved[i], sizeof(self->saved[i])));
	ASSERT_EQ(0, read_line("/proc/sys/kernel/perf_event_paranoid", self->paranoid,
			       sizeof(self->paranoid)));
	ASSERT_EQ(0, read_line("/proc/sys/kernel/perf_event_max_sample_rate", self->rate,
			       sizeof(self->rate)));
	ASSERT_EQ(0, read_line("/proc/sys/kernel/perf_event_mlock_kb", self->mlock_kb,
			       sizeof(self->mlock_kb)));
	ASSERT_EQ(0, embm_set_knob("source", "swfault"));
	ASSERT_EQ(0, embm_set_knob("cpu_budget", "0"));
}

FIXTURE_TEARDOWN(stress)
{
	unsigned int i;

	/* A test that failed between offlining a CPU and onlining it. */
	for (i = 1; i < (unsigned int)sysconf(_SC_NPROCESSORS_CONF); i++)
		set_online(i, 1);
	/* ... or in its memory cgroup. */
	if (!access(CG_MEM, F_OK)) {
		enter_cgroup(CG_ROOT);
		rmdir(CG_MEM);
	}
	embm_end(EMBM_PID_SYSTEM);
	embm_end(EMBM_PID_SELF);
	for (i = 0; i < NR_KNOBS; i++)
		if (self->saved[i][0])
			embm_set_knob(knobs[i], self->saved[i]);
	if (self->paranoid[0])
		write_file("/proc/sys/kernel/perf_event_paranoid", self->paranoid);
	if (self->rate[0])
		write_file("/proc/sys/kernel/perf_event_max_sample_rate", self->rate);
	if (self->mlock_kb[0])
		write_file("/proc/sys/kernel/perf_event_mlock_kb", self->mlock_kb);
}

#define CYCLES	1000

/* @n start/end cycles as nobody with RLIMIT_MEMLOCK @memlock; 0 if all worked. */
static int cycles_as_nobody(int n, rlim_t memlock)
{
	struct rlimit rl = { memlock, memlock };
	pid_t pid = fork();
	int i;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setrlimit(RLIMIT_MEMLOCK, &rl) || prctl(PR_SET_KEEPCAPS, 0) ||
		    setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(200);
		for (i = 0; i < n; i++) {
			if (embm_start(EMBM_PID_SELF, EMBM_NODE_NONE))
				_exit(i % 200 + 1);	/* not 0 */
			if (embm_end(EMBM_PID_SELF))
				_exit(201);
		}
		_exit(0);
	}
	return reap(pid);
}

/*
 * Start/end cycles by a user without CAP_IPC_LOCK whose mlock allowance
 * holds one session's ring buffers, (1 + 1) pages a CPU, but not two: a
 * charge not given back would make a later start fail with EPERM.  Half
 * the cycles are charged to RLIMIT_MEMLOCK (pinned_vm; no per-user
 * allowance), half to the user's perf_mlock (perf_event_mlock_kb of 3
 * pages a CPU; no RLIMIT_MEMLOCK).
 */
TEST_F_TIMEOUT(stress, thousand_cycles_give_everything_back, 900)
{
	struct timespec t0, t1;
	int status;

	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_paranoid", "1"));
	ASSERT_EQ(0, embm_set_knob("ring_pages", "1"));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_mlock_kb", "0"));
	status = cycles_as_nobody(CYCLES / 2, 3 * online_cpus() * EMBM_PAGE);
	EXPECT_EQ(0, status) TH_LOG("RLIMIT_MEMLOCK: a cycle failed (code %d)", status);
	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_mlock_kb", "12"));
	status = cycles_as_nobody(CYCLES / 2, 0);
	EXPECT_EQ(0, status) TH_LOG("perf_event_mlock_kb: a cycle failed (code %d)", status);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d cycles in %ld ms", CYCLES,
	       (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
	EXPECT_EQ(0, embm_status_ll("events"));
	EXPECT_EQ(0, embm_status_ll("ring_pages_locked"));
}

#define RACERS	8

struct racer {
	pthread_barrier_t *go;
	int err;
};

static void *race_start(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	r->err = ERRNO_OF(embm_start(EMBM_PID_SYSTEM, EMBM_NODE_NONE));
	return NULL;
}

/* Eight threads start at once: exactly one wins, the others get EBUSY. */
TEST_F_TIMEOUT(stress, racing_starts_one_wins, 300)
{
	struct racer r[RACERS];
	pthread_barrier_t go;
	pthread_t t[RACERS];
	int i, round, won;

	ASSERT_EQ(0, embm_set_knob("ring_pages", "1"));
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, RACERS));
		for (i = 0; i < RACERS; i++) {
			r[i].go = &go;
			ASSERT_EQ(0, pthread_create(&t[i], NULL, race_start, &r[i]));
		}
		won = 0;
		for (i = 0; i < RACERS; i++) {
			pthread_join(t[i], NULL);
			if (!r[i].err)
				won++;
			else
				EXPECT_EQ(EBUSY, r[i].err) TH_LOG("%s", strerror(r[i].err));
		}
		pthread_barrier_destroy(&go);
		EXPECT_EQ(1, won);
		EXPECT_EQ(0, embm_end(EMBM_PID_SYSTEM));
	}
}

/* A process that starts a session on @target, says so, and waits. */
static pid_t spawn_launcher(pid_t target, int *ready)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (embm_start(target, EMBM_NODE_NONE))
			_exit(1);
		if (write(p[1], "", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(p[1]);
	*ready = p[0];
	return pid;
}

/* A launcher killed with SIGKILL leaves no session behind. */
TEST_F_TIMEOUT(stress, killed_launcher_ends_its_session, 120)
{
	pid_t targets[] = { EMBM_PID_SYSTEM, 0 }, target, launcher;
	char buf[32], b;
	unsigned int i;
	int ready;

	ASSERT_EQ(0, embm_set_knob("ring_pages", "1"));
	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		/* 0: a target process that outlives its launcher. */
		target = targets[i];
		if (!target) {
			target = fork();
			ASSERT_LE(0, target);
			if (target == 0) {
				for (;;)
					pause();
			}
		}
		launcher = spawn_launcher(target, &ready);
		ASSERT_LT(0, launcher);
		ASSERT_EQ(1, read(ready, &b, 1));
		close(ready);
		ASSERT_TRUE(wait_state("running", 1000));
		ASSERT_LT(0, embm_status_ll("events"));
		ASSERT_EQ(0, kill(launcher, SIGKILL));
		EXPECT_EQ(128 + SIGKILL, reap(launcher));
		EXPECT_TRUE(wait_state("done", 2000));
		ASSERT_EQ(0, embm_status("ended_by", buf, sizeof(buf)));
		EXPECT_STREQ("starter_exit", buf);
		EXPECT_EQ(0, embm_status_ll("events"));
		EXPECT_EQ(0, embm_status_ll("ring_pages_locked"));
		/* Nothing left to end; the next session starts. */
		EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(target)));
		EXPECT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
		EXPECT_EQ(0, embm_end(EMBM_PID_SELF));
		if (target > 0) {
			kill(target, SIGKILL);
			reap(target);
		}
	}
}

#define FLOOD_THREADS	4
#define FLOOD_PAGES	16384

static void *flood(void *arg)
{
	char *p = embm_node_pages(FLOOD_PAGES, *(int *)arg);

	if (!p)
		return (void *)1;
	embm_touch(p, FLOOD_PAGES);
	munmap(p, FLOOD_PAGES * EMBM_PAGE);
	return NULL;
}

/*
 * Period 1 into one-page rings (and, for swfault's direct samples, the
 * queues of 64 entries sized from them): what does not fit is dropped and
 * counted; embm does not hang, and what it kept plus what was lost covers
 * every page touched.
 */
TEST_F_TIMEOUT(stress, flood_into_smallest_ring_counts_losses, 300)
{
	bool memory[EMBM_MAX_NODES];
	pthread_t t[FLOOD_THREADS];
	long long lost, total;
	int node = -1, i;
	void *ret;

	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", memory));
	for (i = 0; i < EMBM_MAX_NODES; i++)
		if (memory[i])
			node = i;
	ASSERT_LE(0, node);
	ASSERT_EQ(0, embm_set_knob("ring_pages", "1"));
	ASSERT_EQ(0, embm_set_knob("period", "1"));
	ASSERT_EQ(0, write_file("/proc/sys/kernel/perf_event_max_sample_rate", "1000000"));
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, node));
	for (i = 0; i < FLOOD_THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, flood, &node));
	for (i = 0; i < FLOOD_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], &ret));
		ASSERT_EQ(NULL, ret);
	}
	ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
	lost = embm_status_ll("lost");
	total = embm_status_ll("samples");
	TH_LOG("%lld samples read, %lld lost, %lld throttled", total, lost,
	       embm_status_ll("throttled"));
	EXPECT_LT(0, lost);
	EXPECT_EQ(0, embm_status_ll("throttled"));
	EXPECT_LE((long long)FLOOD_THREADS * FLOOD_PAGES, total + lost);
}

static const char *const proc_files[] = {
	"status", "nodes", "matrix", "latency", "hotpages", "windows",
};

static int stop_readers;	/* __atomic_*_n() */

static void *reader(void *arg)
{
	char path[64], buf[4096];
	unsigned long bad = 0, i;
	ssize_t n;
	int fd;

	for (i = 0; !__atomic_load_n(&stop_readers, __ATOMIC_RELAXED); i++) {
		snprintf(path, sizeof(path), "/proc/embm/%s",
			 proc_files[i % ARRAY_SIZE(proc_files)]);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			bad++;
			continue;
		}
		do {
			n = read(fd, buf, sizeof(buf));
		} while (n > 0);
		/* A session that started after the open: ESTALE. */
		if (n < 0 && errno != ESTALE)
			bad++;
		close(fd);
	}
	return (void *)bad;
}

/* Reads of every /proc/embm file racing starts and ends. */
TEST_F_TIMEOUT(stress, proc_reads_race_start_and_end, 600)
{
	pthread_t t[4];
	void *bad;
	int i;

	ASSERT_EQ(0, embm_set_knob("ring_pages", "1"));
	__atomic_store_n(&stop_readers, 0, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reader, NULL));
	for (i = 0; i < 100; i++) {
		ASSERT_EQ(0, embm_start(i % 2 ? EMBM_PID_SELF : EMBM_PID_SYSTEM, EMBM_NODE_NONE));
		ASSERT_EQ(0, embm_end(i % 2 ? EMBM_PID_SELF : EMBM_PID_SYSTEM));
	}
	__atomic_store_n(&stop_readers, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &bad);
		EXPECT_EQ(NULL, bad) TH_LOG("reader %d: %lu failed reads", i, (unsigned long)bad);
	}
}

/* A session needs threads x CPUs x kinds events: past max_events, E2BIG. */
TEST_F(stress, max_events_caps_a_session)
{
	/* swfault opens two kinds (minor and major faults); one thread here. */
	int need = 2 * online_cpus();
	char val[32];

	snprintf(val, sizeof(val), "%d", need - 1);
	ASSERT_EQ(0, embm_set_knob("max_events", val));
	EXPECT_EQ(E2BIG, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SELF)));
	snprintf(val, sizeof(val), "%d", need);
	ASSERT_EQ(0, embm_set_knob("max_events", val));
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	EXPECT_EQ(need, embm_status_ll("events"));
	EXPECT_EQ(need, embm_status_ll("max_events"));
	EXPECT_EQ(0, embm_end(EMBM_PID_SELF));
}

/* utime + stime of @pid, in clock ticks; -1 if unreadable. */
static long long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	/* After the comm: state, then fields 4 to 13, then utime and stime. */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return ut + st;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
	char c;

	/* Blocks until the write end closes: no faults, no samples. */
	return (void *)(long)read(*(int *)arg, &c, 1);
}

#define CHILDREN	4000

/*
 * perf reads every inherited child with its parent: a target that forks
 * thousands of threads makes each read of the counts cost in proportion.
 * Measured by the kernel's own accounting of ksamplingd (its utime and
 * stime): over a window of at least two read intervals in which the
 * threads sleep and make no samples, ksamplingd uses at most 25 per mille
 * of a CPU more than over five seconds before they were made (its drain
 * wakeups), the reads' bound being 10 on average (a window's edges may
 * hold one read more: 12 to 18 measured); and it still reads.  Where a
 * read costs under 5 ms (hardware, KVM) the bound cannot show: it skips.
 * Before the reads were bounded, they ran every second whatever they
 * cost: 30 to 60 ms a read for 4,000 threads on 4 CPUs under TCG, 25 to
 * 50 per mille more.
 */
TEST_F_TIMEOUT(stress, count_reads_bounded_by_children, 900)
{
	long hz = sysconf(_SC_CLK_TCK);
	long long b0, b1, c0, c1, r0, base, permille, window;
	pthread_t *t = calloc(CHILDREN, sizeof(*t));
	pthread_attr_t attr;
	int pfd[2], i, made;
	double s0, s1, t0, t1;
	pid_t kd;

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, pthread_attr_init(&attr));
	ASSERT_EQ(0, pthread_attr_setstacksize(&attr, 64 << 10));
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	kd = embm_ksamplingd_pid();
	ASSERT_LT(0, kd);
	/* ksamplingd without children: its wakeups. */
	sleep_ms(1000);
	b0 = cpu_ticks(kd);
	s0 = now_s();
	sleep_ms(5000);
	b1 = cpu_ticks(kd);
	s1 = now_s();
	ASSERT_LE(0, b0);
	base = (long long)((b1 - b0) * 1000.0 / hz / (s1 - s0));
	for (made = 0; made < CHILDREN; made++)
		if (pthread_create(&t[made], &attr, sleeper, &pfd[0]))
			break;
	EXPECT_EQ(CHILDREN, made);
	/* Let ksamplingd drain the creation's faults and read once. */
	sleep_ms(3000);
	if (embm_status_ll("count_read_ns") < 5000000) {
		close(pfd[1]);
		for (i = 0; i < made; i++)
			pthread_join(t[i], NULL);
		embm_end(EMBM_PID_SELF);
		SKIP(return, "reads of %d threads' counts cost %lld ns here: too few to show",
		     made, embm_status_ll("count_read_ns"));
	}
	/* At least two reads in the window. */
	window = 2 * embm_status_ll("count_read_every_ms") + 1000;
	if (window < 10000)
		window = 10000;
	r0 = embm_status_ll("count_reads");
	c0 = cpu_ticks(kd);
	t0 = now_s();
	sleep_ms(window);
	c1 = cpu_ticks(kd);
	t1 = now_s();
	ASSERT_LE(0, c0);
	ASSERT_LE(c0, c1);
	/*
	 * The mechanism: the wait is at least 100 times the read's CPU time
	 * (10% slack: the two keys may come from two reads).
	 */
	EXPECT_LE(embm_status_ll("count_read_ns") / 10000,
		  embm_status_ll("count_read_every_ms") * 11 / 10);
	permille = (long long)((c1 - c0) * 1000.0 / hz / (t1 - t0));
	TH_LOG("ksamplingd: %lld permille alone; %d threads: %lld ticks in %.1f s (%lld permille)",
	       base, made, c1 - c0, t1 - t0, permille);
	TH_LOG("last read %lld ns, every %lld ms, %lld reads in the window",
	       embm_status_ll("count_read_ns"), embm_status_ll("count_read_every_ms"),
	       embm_status_ll("count_reads") - r0);
	EXPECT_LE(permille - base, 25);
	EXPECT_LT(r0, embm_status_ll("count_reads"));
	close(pfd[1]);
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	close(pfd[0]);
	free(t);
	EXPECT_EQ(0, embm_end(EMBM_PID_SELF));
}

/*
 * The "kernel" line of the test cgroup's memory.stat, in bytes, once the
 * kernel's periodic flush (every 2 s) has brought every CPU's updates in;
 * -1 if unreadable.
 */
static long long memcg_kernel(void)
{
	char line[128];
	long long v = -1;
	FILE *f;

	sleep_ms(2500);
	f = fopen(CG_MEM "/memory.stat", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "kernel %lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/*
 * A session's memory is charged to its starter's memory cgroup, as a
 * perf_event_open() caller's would be: what the start allocates (the
 * results' tables, the hot-page table the largest at hot_pages 65536) and
 * what ksamplingd allocates later, for a CPU that came online (the queue
 * swfault's samples go through, 128 KiB at ring_pages 64).  The truth is
 * the kernel's own count of the cgroup's kernel memory; the figures it
 * is held to are the sizes the status gives (table_bytes,
 * queue_bytes_max).  Ring buffers are perf's, charged to the mlock limit
 * as perf_mmap() charges them, not to a memory cgroup.  The cgroup's
 * count lags: a read of memory.stat flushes the per-CPU updates only past
 * a batch of pages a CPU, the rest every 2 s (rstat), so the test waits
 * up to 5 s for it to catch up.
 */
TEST_F_TIMEOUT(stress, memory_charged_to_the_starters_cgroup, 300)
{
	int cpu = online_cpus() - 1;
	long long k0, k1, k2, q0, q1, tables;
	int i;

	if (cpu < 1)
		SKIP(return, "needs two CPUs");
	if (access(CG_ROOT "/cgroup.procs", F_OK) &&
	    ((mkdir(CG_ROOT, 0755) && errno != EEXIST) ||
	     mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL)))
		SKIP(return, "no cgroup v2: %s", strerror(errno));
	if (write_file(CG_ROOT "/cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller");
	ASSERT_TRUE(!mkdir(CG_MEM, 0755) || errno == EEXIST);
	ASSERT_EQ(0, enter_cgroup(CG_MEM));
	ASSERT_EQ(0, embm_set_knob("hot_pages", "65536"));
	ASSERT_EQ(0, embm_set_knob("ring_pages", "64"));
	ASSERT_EQ(0, set_online(cpu, 0));

	k0 = memcg_kernel();
	if (k0 < 0)
		SKIP(return, "no kernel memory accounting (cgroup.memory=nokmem?)");
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	k1 = memcg_kernel();
	tables = embm_status_ll("table_bytes");
	q0 = embm_status_ll("queue_bytes_max");
	TH_LOG("start: kernel memory +%lld, tables %lld", k1 - k0, tables);
	EXPECT_LE(tables * 9 / 10, k1 - k0);

	ASSERT_EQ(0, set_online(cpu, 1));
	for (i = 0; i < 500 && embm_status_ll("queue_bytes_max") == q0; i++)
		sleep_ms(10);
	q1 = embm_status_ll("queue_bytes_max");
	for (i = 0; i < 50; i++) {
		k2 = memcg_kernel();
		if ((q1 - q0) * 9 / 10 <= k2 - k1)
			break;
		sleep_ms(100);
	}
	TH_LOG("CPU %d online: kernel memory +%lld, queues +%lld", cpu, k2 - k1, q1 - q0);
	EXPECT_LT(q0, q1);
	EXPECT_LE((q1 - q0) * 9 / 10, k2 - k1);

	EXPECT_EQ(0, embm_end(EMBM_PID_SELF));
	EXPECT_EQ(0, enter_cgroup(CG_ROOT));
	rmdir(CG_MEM);
}

TEST_HARNESS_MAIN
