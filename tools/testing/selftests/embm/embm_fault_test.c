// SPDX-License-Identifier: GPL-2.0
/*
 * embm_start() when allocations fail: every allocation it makes, one at a
 * time, through /proc/thread-self/fail-nth with failslab and
 * fail_page_alloc armed for sleeping allocations of every order.  Each
 * start either works (and ends) or fails with ENOMEM; the next start works;
 * the debug kernel's kmemleak scan after the run finds nothing left behind.
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

FIXTURE(fault) {
	char saved[6][16];
	char ring_pages[16];
	pid_t target;
};

FIXTURE_SETUP(fault)
{
	unsigned int i;

	self->target = -1;
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

TEST_HARNESS_MAIN
