// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup sessions (EMBM_FLAG_CGROUP): the accesses of a cgroup's tasks
 * only.  Two cgroups run at once, each touching known pages bound to its
 * own node; a session on one counts that one's pages and not the other's.
 *
 * Needs root, cgroup v2 (mounted here if it is not), two memory nodes and
 * a kernel with CONFIG_CGROUP_PERF; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/embm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define PAGES_A		3000UL
#define PAGES_B		2000UL
/* Faults of a child's own beyond its pages: stack, libc, page tables. */
#define SLACK		128ULL

static long start_cg(int fd, int node, unsigned int flags)
{
	return syscall(__NR_embm_start, fd, node, flags);
}

static long end_cg(int fd, unsigned int flags)
{
	return syscall(__NR_embm_end, fd, flags);
}

/* A child in cgroup @dir: waits for @go, then touches @pages on @node. */
static pid_t spawn_in(const char *dir, int go, unsigned long pages, int node)
{
	char path[256];
	pid_t pid = fork();
	char c, *p;
	FILE *f;

	if (pid)
		return pid;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
		_exit(2);
	p = embm_node_pages(pages, node);
	if (!p || read(go, &c, 1) != 1)
		_exit(3);
	embm_touch(p, pages);
	_exit(0);
}

FIXTURE(cgroup) {
	int node_a, node_b;
	int fd_a, fd_b;
	struct embm_saved_knobs saved;
};

FIXTURE_SETUP(cgroup)
{
	bool memory[EMBM_MAX_NODES] = { false };
	FILE *f;
	int n;

	self->fd_a = -1;
	self->fd_b = -1;
	if (geteuid())
		SKIP(return, "needs root");
	if (access("/proc/embm", F_OK))
		SKIP(return, "no embm in this kernel");
	if (access(CG_ROOT "/cgroup.procs", F_OK) &&
	    ((mkdir(CG_ROOT, 0755) && errno != EEXIST) ||
	     mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL)))
		SKIP(return, "no cgroup v2: %s", strerror(errno));
	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", memory));
	self->node_a = -1;
	self->node_b = -1;
	/* The last two memory nodes: the CPU-less one first when there is one. */
	for (n = EMBM_MAX_NODES - 1; n >= 0; n--) {
		if (!memory[n])
			continue;
		if (self->node_a < 0)
			self->node_a = n;
		else if (self->node_b < 0)
			self->node_b = n;
	}
	if (self->node_b < 0)
		SKIP(return, "needs two memory nodes");
	/*
	 * The implicit perf_event controller reaches new children only once
	 * the root's subtree_control was written (cgroup_propagate_control());
	 * systemd does it at boot, this guest's init does not.
	 */
	f = fopen(CG_ROOT "/cgroup.subtree_control", "w");
	if (f) {
		fputs("+pids", f);
		fclose(f);
	}
	if ((mkdir(CG_ROOT "/embm-a", 0755) && errno != EEXIST) ||
	    (mkdir(CG_ROOT "/embm-b", 0755) && errno != EEXIST))
		SKIP(return, "cannot make cgroups: %s", strerror(errno));
	self->fd_a = open(CG_ROOT "/embm-a", O_RDONLY | O_DIRECTORY);
	self->fd_b = open(CG_ROOT "/embm-b", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, self->fd_a);
	ASSERT_LE(0, self->fd_b);
	ASSERT_EQ(0, embm_exact_sampling(&self->saved));
}

FIXTURE_TEARDOWN(cgroup)
{
	embm_restore_sampling(&self->saved);
	if (self->fd_a >= 0)
		close(self->fd_a);
	if (self->fd_b >= 0)
		close(self->fd_b);
	rmdir(CG_ROOT "/embm-a");
	rmdir(CG_ROOT "/embm-b");
}

/*
 * Ground truth: PAGES_A pages on node_a from cgroup a, PAGES_B on node_b
 * from cgroup b, at the same time; the session is on a.
 */
TEST_F(cgroup, counts_only_its_tasks)
{
	struct embm_node rows[EMBM_MAX_NODES];
	int go[2], status, i;
	char buf[256];
	pid_t a, b;

	ASSERT_EQ(0, pipe(go));
	a = spawn_in(CG_ROOT "/embm-a", go[0], PAGES_A, self->node_a);
	b = spawn_in(CG_ROOT "/embm-b", go[0], PAGES_B, self->node_b);
	ASSERT_LT(0, a);
	ASSERT_LT(0, b);
	if (start_cg(self->fd_a, self->node_a, EMBM_FLAG_CGROUP)) {
		kill(a, SIGKILL);
		kill(b, SIGKILL);
		ASSERT_EQ(0, errno) TH_LOG("embm_start(cgroup): %m");
	}
	ASSERT_EQ(0, embm_status("cgroup", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "/embm-a")) TH_LOG("status: cgroup %s", buf);
	/* The session is the cgroup's: not the process's, nor b's. */
	EXPECT_EQ(-1, end_cg(self->fd_b, EMBM_FLAG_CGROUP));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, end_cg(EMBM_PID_SYSTEM, 0));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(-1, start_cg(self->fd_b, EMBM_NODE_NONE, EMBM_FLAG_CGROUP));
	EXPECT_EQ(EBUSY, errno);

	ASSERT_EQ(2, write(go[1], "gg", 2));
	for (i = 0; i < 2; i++) {
		pid_t pid = wait(&status);

		EXPECT_TRUE(pid == a || pid == b);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("child %d: status %#x", pid, status);
	}
	ASSERT_EQ(0, end_cg(self->fd_a, EMBM_FLAG_CGROUP)) TH_LOG("embm_end: %m");
	ASSERT_LT(0, embm_read_nodes(rows));
	TH_LOG("node %d: %llu samples (truth %lu); node %d: %llu (b's %lu not ours)",
	       self->node_a, rows[self->node_a].samples, PAGES_A,
	       self->node_b, rows[self->node_b].samples, PAGES_B);
	EXPECT_GE(rows[self->node_a].samples, PAGES_A);
	EXPECT_LE(rows[self->node_a].samples, PAGES_A + SLACK);
	EXPECT_LE(rows[self->node_b].samples, SLACK);
	close(go[0]);
	close(go[1]);
}

/*
 * A session whose cgroup is removed (rmdir) stays endable: no descriptor
 * can name that cgroup any more (the open one now resolves to -ENOENT,
 * one made again at its path is another cgroup), so any cgroup descriptor
 * ends it.  Before, embm_end() gave ENOENT and the session ran until its
 * starter exited, refusing every other start with EBUSY.
 */
TEST_F(cgroup, ends_after_its_cgroup_is_removed)
{
	const char *dir = CG_ROOT "/embm-gone";
	char state[32];
	int fd, again;

	ASSERT_TRUE(mkdir(dir, 0755) == 0 || errno == EEXIST);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	/* Removed: ended with its own, stale, descriptor. */
	ASSERT_EQ(0, start_cg(fd, EMBM_NODE_NONE, EMBM_FLAG_CGROUP)) TH_LOG("%m");
	ASSERT_EQ(0, rmdir(dir));
	EXPECT_EQ(-1, start_cg(self->fd_a, EMBM_NODE_NONE, EMBM_FLAG_CGROUP));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, end_cg(fd, EMBM_FLAG_CGROUP)) TH_LOG("embm_end: %m");
	ASSERT_EQ(0, embm_status("state", state, sizeof(state)));
	EXPECT_STREQ("done", state);
	close(fd);

	/* Made again at the same path: the new cgroup's descriptor ends it. */
	ASSERT_EQ(0, mkdir(dir, 0755));
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, start_cg(fd, EMBM_NODE_NONE, EMBM_FLAG_CGROUP)) TH_LOG("%m");
	ASSERT_EQ(0, rmdir(dir));
	ASSERT_EQ(0, mkdir(dir, 0755));
	again = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, again);
	EXPECT_EQ(0, end_cg(again, EMBM_FLAG_CGROUP)) TH_LOG("embm_end: %m");
	close(again);
	close(fd);
	rmdir(dir);

	/* While a session's cgroup lives, another cgroup does not end it. */
	ASSERT_EQ(0, start_cg(self->fd_a, EMBM_NODE_NONE, EMBM_FLAG_CGROUP));
	EXPECT_EQ(-1, end_cg(self->fd_b, EMBM_FLAG_CGROUP));
	EXPECT_EQ(ESRCH, errno);
	EXPECT_EQ(0, end_cg(self->fd_a, EMBM_FLAG_CGROUP));
}

/*
 * status names a cgroup session's cgroup as the reader's cgroup namespace
 * sees it, as /proc/PID/cgroup does: "/" for a reader whose namespace is
 * rooted at that cgroup, not the host's "/embm-a".
 */
TEST_F(cgroup, status_path_is_the_readers)
{
	char buf[256];
	pid_t pid;

	ASSERT_EQ(0, start_cg(self->fd_a, EMBM_NODE_NONE, EMBM_FLAG_CGROUP)) TH_LOG("%m");
	ASSERT_EQ(0, embm_status("cgroup", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, " /embm-a")) TH_LOG("host: cgroup %s", buf);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		FILE *f = fopen(CG_ROOT "/embm-a/cgroup.procs", "w");

		if (!f || fprintf(f, "0\n") < 0 || fclose(f) || unshare(CLONE_NEWCGROUP))
			_exit(10);
		if (embm_status("cgroup", buf, sizeof(buf)))
			_exit(11);
		/* "ID /": the namespace's root, nothing of the host's path. */
		_exit(strstr(buf, "embm-a") || !strstr(buf, " /") ? 12 : 0);
	}
	EXPECT_EQ(0, reap(pid)) TH_LOG("12: the host's path shown in a cgroup namespace");
	EXPECT_EQ(0, end_cg(self->fd_a, EMBM_FLAG_CGROUP));
}

/* What a cgroup file descriptor must be, and the flags. */
TEST_F(cgroup, bad_descriptors_and_flags)
{
	int file = open("/proc/self/status", O_RDONLY);

	ASSERT_LE(0, file);
	EXPECT_EQ(-1, start_cg(-1, EMBM_NODE_NONE, EMBM_FLAG_CGROUP));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, start_cg(1000000, EMBM_NODE_NONE, EMBM_FLAG_CGROUP));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, start_cg(file, EMBM_NODE_NONE, EMBM_FLAG_CGROUP));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, start_cg(self->fd_a, EMBM_NODE_NONE, EMBM_FLAG_CGROUP << 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, end_cg(self->fd_a, ~0U));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, end_cg(file, EMBM_FLAG_CGROUP));
	EXPECT_EQ(EBADF, errno);
	close(file);
}

TEST_HARNESS_MAIN
