// SPDX-License-Identifier: GPL-2.0
/*
 * embm when allocations fail, every allocation one at a time, through
 * fail-nth (/proc/PID/fail-nth) with failslab and fail_page_alloc armed for
 * sleeping allocations of every order: those of embm_start() (each start
 * works and ends, or fails with ENOMEM, and the next start works), those
 * ksamplingd makes for a CPU that comes online (the session goes on, the
 * CPU gets its events or is skipped), those it makes after memory went
 * online or offline (the CXL windows' rescan), those of embm_end() (the
 * session always ends), those of the /proc/embm readers (a read works or
 * gives ENOMEM).  The debug kernel's kmemleak scan after the run finds
 * nothing left behind.  Not reached here: the work that ends a session whose
 * target exited runs in a shared kworker; it runs the stop embm_end()
 * runs.
 *
 * Needs root, embm, and a kernel with CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC
 * and CONFIG_FAULT_INJECTION_DEBUG_FS (the debug kernel); skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/embm.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define DEBUGFS		"/sys/kernel/debug"
#define MAX_NTH		20000	/* far more allocations than one start makes */

static const char *const attrs[][2] = {
	{ DEBUGFS "/failslab/ignore-gfp-wait", "N" },
	{ DEBUGFS "/fail_page_alloc/ignore-gfp-wait", "N" },
	{ DEBUGFS "/fail_page_alloc/min-order", "0" },
	{ DEBUGFS "/failslab/verbose", "0" },
	{ DEBUGFS "/fail_page_alloc/verbose", "0" },
};

/* A target with threads, so that the thread lists grow past one page. */
static void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static pid_t spawn_threads(int n)
{
	pthread_t t;
	pid_t pid = fork();

	if (pid == 0) {
		while (n--)
			if (pthread_create(&t, NULL, idle_thread, NULL))
				_exit(1);
		for (;;)
			pause();
	}
	return pid;
}

/* Write @state ("online" or "offline") to memory block @blk; 0 or -1. */
static int block_state(int blk, const char *state)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%d/state", blk);
	return write_file(path, state);
}

FIXTURE(fault) {
	char saved[6][16];
	char ring_pages[16];
	pid_t target;
	int block;	/* a memory block a test left offline, or -1 */
};

FIXTURE_SETUP(fault)
{
	unsigned int i;

	self->target = -1;
	self->block = -1;
	if (embm_end(EMBM_PID_SYSTEM) && errno == ENOSYS)
		SKIP(return, "embm syscalls not available (CONFIG_EMBM=n)");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (access(DEBUGFS "/failslab", F_OK))
		mount("debugfs", DEBUGFS, "debugfs", 0, NULL);
	if (access(DEBUGFS "/failslab", F_OK) || access(DEBUGFS "/fail_page_alloc", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK))
		SKIP(return, "no failslab, fail_page_alloc or fail-nth in this kernel");
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		int fd = open(attrs[i][0], O_RDONLY);
		ssize_t n;

		ASSERT_LE(0, fd);
		n = read(fd, self->saved[i], sizeof(self->saved[i]) - 1);
		close(fd);
		ASSERT_LT(0, n);
		self->saved[i][n] = 0;
		ASSERT_EQ(0, write_file(attrs[i][0], attrs[i][1]));
	}
	ASSERT_EQ(0, embm_get_knob("ring_pages", self->ring_pages, sizeof(self->ring_pages)));
	ASSERT_EQ(0, embm_set_knob("ring_pages", "1"));
	ASSERT_EQ(0, embm_set_knob("source", "swfault"));
	ASSERT_NE(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	embm_end(EMBM_PID_SELF);
}

FIXTURE_TEARDOWN(fault)
{
	unsigned int i;

	write_file("/proc/thread-self/fail-nth", "0");
	if (self->block > 0)
		block_state(self->block, "online");
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (self->saved[i][0])
			write_file(attrs[i][0], self->saved[i]);
	if (self->ring_pages[0])
		embm_set_knob("ring_pages", self->ring_pages);
	if (self->target > 0) {
		kill(self->target, SIGKILL);
		waitpid(self->target, NULL, 0);
	}
}

/*
 * Fail the nth allocation of embm_start(@pid) for n = 1, 2, ... until a
 * start makes fewer than n.  Return how many were failed.
 */
static int sweep(struct __test_metadata *_metadata, pid_t pid)
{
	char nth[16];
	int n, err, left, ok = 0, nomem = 0;

	for (n = 1; n < MAX_NTH; n++) {
		snprintf(nth, sizeof(nth), "%d", n);
		if (write_file("/proc/thread-self/fail-nth", nth))
			return -1;
		err = ERRNO_OF(embm_start(pid, EMBM_NODE_NONE));
		left = read_long("/proc/thread-self/fail-nth");
		write_file("/proc/thread-self/fail-nth", "0");
		if (!err) {
			ok++;
			EXPECT_EQ(0, embm_end(pid)) TH_LOG("nth %d", n);
		} else {
			nomem++;
			EXPECT_EQ(ENOMEM, err) TH_LOG("nth %d: %s", n, strerror(err));
		}
		/* After a failed start, the next one, with nothing failing, works. */
		if (err) {
			ASSERT_EQ(0, embm_start(pid, EMBM_NODE_NONE)) TH_LOG("after nth %d: %m", n);
			ASSERT_EQ(0, embm_end(pid));
		}
		if (left > 0)		/* no nth allocation happened: all covered */
			break;
	}
	TH_LOG("pid %d: %d allocations failed in turn: %d starts gave ENOMEM, %d worked",
	       pid, n - 1, nomem, ok);
	EXPECT_LT(0, nomem);
	return n - 1;
}

TEST_F_TIMEOUT(fault, start_system_wide_under_failing_allocations, 900)
{
	EXPECT_LT(0, sweep(_metadata, EMBM_PID_SYSTEM));
}

TEST_F_TIMEOUT(fault, start_on_threads_under_failing_allocations, 900)
{
	self->target = spawn_threads(16);
	ASSERT_LT(0, self->target);
	usleep(200000);
	EXPECT_LT(0, sweep(_metadata, self->target));
}

/* Wait up to 10 s for the session to have @want events open. */
static void wait_events(long long want)
{
	int i;

	for (i = 0; i < 1000 && embm_status_ll("events") != want; i++)
		sleep_ms(10);
}

/*
 * Fail the nth allocation ksamplingd makes once a CPU came online (its
 * events, perf's allocations for them among them, its buffer, its queue,
 * the arrays that grow), for n = 1, 2, ... until it makes fewer than n.
 */
TEST_F_TIMEOUT(fault, ksamplingd_under_failing_allocations, 900)
{
	int cpu = online_cpus() - 1, n, left = 0, skipped = 0, handled = 0;
	long long events, now;
	char path[64], nth[16], state[32];
	pid_t kd;

	if (cpu < 1)
		SKIP(return, "needs two CPUs");
	/* System-wide: a CPU that goes offline loses its events and buffer. */
	ASSERT_EQ(0, set_online(cpu, 0));
	ASSERT_EQ(0, embm_start(EMBM_PID_SYSTEM, EMBM_NODE_NONE));
	events = embm_status_ll("events");
	kd = embm_ksamplingd_pid();
	ASSERT_LT(0, kd);
	snprintf(path, sizeof(path), "/proc/%d/fail-nth", kd);
	for (n = 1; n < MAX_NTH; n++) {
		long long skip0 = embm_status_ll("cpus_skipped");

		snprintf(nth, sizeof(nth), "%d", n);
		ASSERT_EQ(0, write_file(path, nth));
		ASSERT_EQ(0, set_online(cpu, 1));
		/* Handled: events made, or the CPU skipped. */
		for (now = 0; now < 1000; now++) {
			if (embm_status_ll("events") != events ||
			    embm_status_ll("cpus_skipped") != skip0)
				break;
			sleep_ms(10);
		}
		left = read_long(path);
		write_file(path, "0");
		handled += now < 1000;
		skipped += embm_status_ll("cpus_skipped") != skip0;
		ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
		ASSERT_STREQ("running", state) TH_LOG("nth %d", n);
		ASSERT_EQ(0, set_online(cpu, 0));
		wait_events(events);
		EXPECT_EQ(events, embm_status_ll("events")) TH_LOG("nth %d", n);
		if (left > 0)		/* no nth allocation happened: all covered */
			break;
	}
	ASSERT_EQ(0, set_online(cpu, 1));
	TH_LOG("ksamplingd: %d allocations failed in turn; CPU skipped %d, handled %d times",
	       n - 1, skipped, handled);
	EXPECT_LT(0, left);
	EXPECT_LT(0, skipped);
	EXPECT_EQ(n, handled);
	EXPECT_EQ(0, embm_end(EMBM_PID_SYSTEM));
	ASSERT_EQ(0, embm_start(EMBM_PID_SYSTEM, EMBM_NODE_NONE));
	EXPECT_EQ(0, embm_end(EMBM_PID_SYSTEM));
}

/*
 * A memory block that goes offline (and is left offline), or -1; the
 * last first (the memory-only node's, away from the kernel's own).
 */
static int offline_some_block(void)
{
	char path[96], state[32];
	int blk;

	for (blk = 4095; blk > 0; blk--) {
		snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%d/state", blk);
		if (read_line(path, state, sizeof(state)) || strcmp(state, "online\n"))
			continue;
		if (!block_state(blk, "offline"))
			return blk;
	}
	return -1;
}

/*
 * Fail the nth allocation ksamplingd makes after memory went online or
 * offline (the CXL windows' rescan at the next sample, and what else it
 * allocates then), for n = 1, 2, ... until it makes fewer than n: a
 * memory block of this guest goes online, a page is touched so that a
 * sample comes, the block goes offline again.  The session goes on and
 * ends; kmemleak and KASAN watch the failed rescans (a smoke test: the
 * rescan's own outcome is checked by KUnit's embm_rescan_retiers_test).
 */
TEST_F_TIMEOUT(fault, ksamplingd_rescan_under_failing_allocations, 900)
{
	char path[64], nth[16], state[32];
	int blk, n, left = 0;
	char *p;
	pid_t kd;

	blk = offline_some_block();
	if (blk < 0)
		SKIP(return, "no memory block goes offline here");
	self->block = blk;
	ASSERT_EQ(0, embm_start(EMBM_PID_SYSTEM, EMBM_NODE_NONE));
	kd = embm_ksamplingd_pid();
	ASSERT_LT(0, kd);
	snprintf(path, sizeof(path), "/proc/%d/fail-nth", kd);
	for (n = 1; n < MAX_NTH; n++) {
		snprintf(nth, sizeof(nth), "%d", n);
		ASSERT_EQ(0, write_file(path, nth));
		ASSERT_EQ(0, block_state(blk, "online"));
		/* A fresh mapping's first touches: samples. */
		p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
		ASSERT_NE(MAP_FAILED, p);
		embm_touch(p, (1 << 20) / 4096);
		munmap(p, 1 << 20);
		sleep_ms(300);
		left = read_long(path);
		write_file(path, "0");
		ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
		ASSERT_STREQ("running", state) TH_LOG("nth %d", n);
		if (block_state(blk, "offline"))
			break;		/* in use now: the sweep ends here */
		if (left > 0)
			break;
	}
	block_state(blk, "online");
	self->block = -1;
	TH_LOG("memory block %d: %d allocations of ksamplingd failed in turn", blk, n - 1);
	EXPECT_LT(1, n);
	EXPECT_EQ(0, embm_end(EMBM_PID_SYSTEM));
}

/* Fail the nth allocation of embm_end(): the session ends all the same. */
TEST_F_TIMEOUT(fault, end_under_failing_allocations, 900)
{
	char nth[16], state[32];
	int n, err, left = 0;

	self->target = spawn_threads(4);
	ASSERT_LT(0, self->target);
	usleep(200000);
	for (n = 1; n < MAX_NTH; n++) {
		ASSERT_EQ(0, embm_start(self->target, EMBM_NODE_NONE));
		snprintf(nth, sizeof(nth), "%d", n);
		ASSERT_EQ(0, write_file("/proc/thread-self/fail-nth", nth));
		err = ERRNO_OF(embm_end(self->target));
		left = read_long("/proc/thread-self/fail-nth");
		write_file("/proc/thread-self/fail-nth", "0");
		EXPECT_EQ(0, err) TH_LOG("nth %d: %s", n, strerror(err));
		ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
		ASSERT_STREQ("done", state) TH_LOG("nth %d", n);
		if (left > 0)
			break;
	}
	TH_LOG("embm_end: %d allocations failed in turn", n - 1);
	EXPECT_LT(0, left);
	EXPECT_LT(1, n);
}

/* Fail the nth allocation of a read of each /proc/embm file. */
TEST_F_TIMEOUT(fault, proc_reads_under_failing_allocations, 900)
{
	static const char *const files[] = {
		"status", "nodes", "matrix", "hotpages", "latency", "windows",
	};
	char path[64], nth[16], buf[4096];
	int n, f, fd, err, left, nomem = 0, total = 0;
	ssize_t r;

	self->target = spawn_threads(4);
	ASSERT_LT(0, self->target);
	ASSERT_EQ(0, embm_start(self->target, EMBM_NODE_NONE));
	usleep(300000);
	for (f = 0; f < (int)ARRAY_SIZE(files); f++) {
		snprintf(path, sizeof(path), "/proc/embm/%s", files[f]);
		if (access(path, R_OK))
			continue;
		for (n = 1; n < MAX_NTH; n++) {
			snprintf(nth, sizeof(nth), "%d", n);
			ASSERT_EQ(0, write_file("/proc/thread-self/fail-nth", nth));
			err = 0;
			fd = open(path, O_RDONLY);
			if (fd < 0) {
				err = errno;
			} else {
				while ((r = read(fd, buf, sizeof(buf))) > 0)
					;
				if (r < 0)
					err = errno;
				close(fd);
			}
			left = read_long("/proc/thread-self/fail-nth");
			write_file("/proc/thread-self/fail-nth", "0");
			EXPECT_TRUE(err == 0 || err == ENOMEM)
				TH_LOG("%s, nth %d: %s", path, n, strerror(err));
			nomem += err == ENOMEM;
			total++;
			if (left > 0)
				break;
		}
	}
	TH_LOG("%d reads with one allocation failing, %d gave ENOMEM", total, nomem);
	EXPECT_LT(0, nomem);
	EXPECT_EQ(0, embm_end(self->target));
}

TEST_HARNESS_MAIN
