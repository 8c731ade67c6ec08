// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the embm_start(2) and embm_end(2) system calls: every errno
 * they document, and the session life cycle they drive.
 *
 * Needs root and a kernel with CONFIG_EMBM; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <linux/embm.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

/* errno of a call that failed, 0 if it succeeded. */

/* A child that waits for a byte (or EOF) on @fd, then exits 0. */
static pid_t spawn_waiter(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

FIXTURE(embm) {
	pid_t started;		/* pid a test started a session for, or INT_MIN */
};

FIXTURE_SETUP(embm)
{
	self->started = INT_MIN;
	if (embm_end(EMBM_PID_SYSTEM) && errno == ENOSYS)
		SKIP(return, "embm syscalls not available (CONFIG_EMBM=n)");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	/* A session left running by someone else would fail every test. */
	ASSERT_NE(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	embm_end(EMBM_PID_SELF);
}

FIXTURE_TEARDOWN(embm)
{
	if (self->started != INT_MIN)
		embm_end(self->started);
}

TEST_F(embm, bad_pid_is_einval)
{
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(-2, EMBM_NODE_NONE)));
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(INT_MIN, EMBM_NODE_NONE)));
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_end(-2)));
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_end(INT_MIN)));
}

TEST_F(embm, bad_node_is_einval)
{
	bool possible[EMBM_MAX_NODES], memory[EMBM_MAX_NODES];
	int n, last = 0;

	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/possible", possible));
	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", memory));
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(EMBM_PID_SELF, -2)));
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(EMBM_PID_SELF, INT_MIN)));
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(EMBM_PID_SELF, INT_MAX)));
	for (n = 0; n < EMBM_MAX_NODES; n++) {
		if (possible[n])
			last = n;
		/* Possible but offline or memoryless nodes are refused too. */
		if (possible[n] && !memory[n])
			EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(EMBM_PID_SELF, n)));
	}
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(EMBM_PID_SELF, last + 1)));
	/* Nothing above may have started a session. */
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SELF)));
}

TEST_F(embm, every_node_with_memory_is_accepted)
{
	bool memory[EMBM_MAX_NODES];
	int n, seen = 0;

	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", memory));
	for (n = 0; n < EMBM_MAX_NODES; n++) {
		if (!memory[n])
			continue;
		seen++;
		ASSERT_EQ(0, embm_start(EMBM_PID_SELF, n)) TH_LOG("node %d: %m", n);
		ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
	}
	ASSERT_LE(1, seen);
}

TEST_F(embm, unknown_pid_is_esrch)
{
	long pid_max = read_long("/proc/sys/kernel/pid_max");
	pid_t child;

	ASSERT_LT(0, pid_max);
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_start(pid_max, EMBM_NODE_NONE)));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_start(INT_MAX, EMBM_NODE_NONE)));

	/* A zombie is exiting: refused like a process that is gone. */
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(0);
	ASSERT_EQ(0, waitid(P_PID, child, NULL, WEXITED | WNOWAIT));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_start(child, EMBM_NODE_NONE)));
	ASSERT_EQ(0, reap(child));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_start(child, EMBM_NODE_NONE)));
}

TEST_F(embm, kernel_thread_is_einval)
{
	char comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "r");

	if (!f || !fgets(comm, sizeof(comm), f) || strcmp(comm, "kthreadd\n")) {
		if (f)
			fclose(f);
		SKIP(return, "pid 2 is not kthreadd here");
	}
	fclose(f);
	EXPECT_EQ(EINVAL, ERRNO_OF(embm_start(2, EMBM_NODE_NONE)));
}

TEST_F(embm, self_session_life_cycle)
{
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	self->started = EMBM_PID_SELF;
	EXPECT_EQ(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	EXPECT_EQ(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SYSTEM, EMBM_NODE_NONE)));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_end(EMBM_PID_SYSTEM)));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_end(getppid())));
	/* The caller's own pid names the same session as 0. */
	ASSERT_EQ(0, embm_end(getpid()));
	self->started = INT_MIN;
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SELF)));
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SYSTEM)));
	/* An ended session does not block the next one. */
	ASSERT_EQ(0, embm_start(getpid(), EMBM_NODE_NONE));
	ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
}

TEST_F(embm, system_wide_session)
{
	ASSERT_EQ(0, embm_start(EMBM_PID_SYSTEM, EMBM_NODE_NONE));
	self->started = EMBM_PID_SYSTEM;
	EXPECT_EQ(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_end(EMBM_PID_SELF)));
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_end(getpid())));
	ASSERT_EQ(0, embm_end(EMBM_PID_SYSTEM));
	self->started = INT_MIN;
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SYSTEM)));
}

TEST_F(embm, other_process_session)
{
	int wfd;
	pid_t child = spawn_waiter(&wfd);

	ASSERT_LT(0, child);
	ASSERT_EQ(0, embm_start(child, EMBM_NODE_NONE));
	self->started = child;
	EXPECT_EQ(ESRCH, ERRNO_OF(embm_end(EMBM_PID_SELF)));
	EXPECT_EQ(0, embm_end(child));
	self->started = INT_MIN;
	close(wfd);
	EXPECT_EQ(0, reap(child));
}

TEST_F(embm, end_after_target_was_reaped)
{
	int wfd;
	pid_t child = spawn_waiter(&wfd);

	ASSERT_LT(0, child);
	ASSERT_EQ(0, embm_start(child, EMBM_NODE_NONE));
	self->started = child;
	close(wfd);
	ASSERT_EQ(0, reap(child));
	/* The launcher's order: wait for the command, then end by its pid. */
	EXPECT_EQ(0, embm_end(child));
	self->started = INT_MIN;
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(child)));
}

/* A thread id names its process: embm_end() takes it, and takes the pid. */
static void *wait_on_pipe(void *arg)
{
	int *p = arg;
	char c;

	p[2] = syscall(SYS_gettid);
	if (read(p[0], &c, 1) < 0)
		return (void *)1;
	return NULL;
}

TEST_F(embm, thread_id_names_its_process)
{
	pthread_t t;
	int p[3] = { -1, -1, 0 };

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, pthread_create(&t, NULL, wait_on_pipe, p));
	while (!__atomic_load_n(&p[2], __ATOMIC_ACQUIRE))
		usleep(1000);

	ASSERT_EQ(0, embm_start(p[2], EMBM_NODE_NONE));
	self->started = getpid();
	EXPECT_EQ(0, embm_end(p[2]));
	ASSERT_EQ(0, embm_start(p[2], EMBM_NODE_NONE));
	EXPECT_EQ(0, embm_end(getpid()));
	ASSERT_EQ(0, embm_start(getpid(), EMBM_NODE_NONE));
	EXPECT_EQ(0, embm_end(p[2]));
	self->started = INT_MIN;
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(p[2])));

	close(p[1]);
	pthread_join(t, NULL);
	close(p[0]);
}

/* A child whose main thread called pthread_exit(): one thread lives on. */
static pid_t spawn_headless(int *wfd)
{
	int p[3] = { -1, -1, 0 };
	pthread_t t;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (pthread_create(&t, NULL, wait_on_pipe, p))
			_exit(1);
		pthread_exit(NULL);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

/* The leader's state in /proc/PID/stat: 'Z' once it exited. */
static char leader_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' ? p[2] : 0;
}

TEST_F(embm, process_whose_leader_exited_is_accepted)
{
	pid_t child;
	int wfd, i;

	child = spawn_headless(&wfd);
	ASSERT_LT(0, child);
	for (i = 0; i < 1000 && leader_state(child) != 'Z'; i++)
		usleep(1000);
	ASSERT_EQ('Z', leader_state(child));

	EXPECT_EQ(0, embm_start(child, EMBM_NODE_NONE)) TH_LOG("%m");
	self->started = child;
	/* The thread that lives on has events. */
	EXPECT_LT(0, embm_status_ll("events"));
	EXPECT_EQ(0, embm_end(child));
	self->started = INT_MIN;
	close(wfd);
	EXPECT_EQ(0, reap(child));
}

TEST_HARNESS_MAIN
