// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to every embm interface gets the errno the documentation
 * gives (Documentation/admin-guide/mm/embm.rst), and changes nothing:
 * both system calls, every knob in /sys/kernel/mm/embm, every file in
 * /proc/embm.  One table, one case a line.
 *
 * Needs root and a kernel with CONFIG_EMBM; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/embm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define NOBODY		65534

enum kind { START, END, KNOB, PROC_WRITE, PROC_OPEN, PROC_SEEK };

/* Placeholders for values known only at run time. */
#define PID_MAX		(INT_MIN + 1)	/* /proc/sys/kernel/pid_max */
#define NODE_PAST	(INT_MIN + 2)	/* one past the last possible node */
#define NODE_NO_MEM	(INT_MIN + 3)	/* a possible node without memory, if any */

struct bad {
	enum kind kind;
	const char *name;	/* knob or /proc file */
	const char *value;	/* written to a knob */
	int pid, node;		/* system call arguments */
	int err;		/* expected errno */
	bool as_nobody;
};

static const struct bad cases[] = {
	/* embm_start(pid, node) */
	{ START, .pid = -2, .node = -1, .err = EINVAL },
	{ START, .pid = INT_MIN, .node = -1, .err = EINVAL },
	{ START, .pid = 0, .node = -2, .err = EINVAL },
	{ START, .pid = 0, .node = INT_MAX, .err = EINVAL },
	{ START, .pid = 0, .node = NODE_PAST, .err = EINVAL },
	{ START, .pid = 0, .node = NODE_NO_MEM, .err = EINVAL },
	{ START, .pid = -1, .node = -7, .err = EINVAL },
	{ START, .pid = PID_MAX, .node = -1, .err = ESRCH },
	{ START, .pid = INT_MAX, .node = -1, .err = ESRCH },
	{ START, .pid = 2, .node = -1, .err = EINVAL },		/* kthreadd */
	/* embm_end(pid), no session running */
	{ END, .pid = -2, .err = EINVAL },
	{ END, .pid = INT_MIN, .err = EINVAL },
	{ END, .pid = 0, .err = ENOENT },
	{ END, .pid = -1, .err = ENOENT },
	{ END, .pid = PID_MAX, .err = ENOENT },
	/* knobs */
	{ KNOB, "source", "\n", .err = EINVAL },
	{ KNOB, "source", "bogus", .err = EINVAL },
	{ KNOB, "source", "PEBS", .err = EINVAL },
	{ KNOB, "source", "swfault ibs", .err = EINVAL },
	{ KNOB, "period", "-1", .err = EINVAL },
	{ KNOB, "period", "abc", .err = EINVAL },
	{ KNOB, "period", "\n", .err = EINVAL },
	{ KNOB, "period", "1 2", .err = EINVAL },
	{ KNOB, "period", "1099511627777", .err = EINVAL },	/* 2^40 + 1 */
	{ KNOB, "period", "18446744073709551616", .err = ERANGE },	/* 2^64 */
	{ KNOB, "store_period", "0x", .err = EINVAL },
	{ KNOB, "store_period", "2199023255552", .err = EINVAL },	/* 2^41 */
	{ KNOB, "ldlat", "2", .err = EINVAL },
	{ KNOB, "ldlat", "65536", .err = EINVAL },
	{ KNOB, "ring_pages", "0", .err = EINVAL },
	{ KNOB, "ring_pages", "3", .err = EINVAL },
	{ KNOB, "ring_pages", "2048", .err = EINVAL },
	{ KNOB, "cpu_budget", "1001", .err = EINVAL },
	{ KNOB, "cpu_budget", "-5", .err = EINVAL },
	{ KNOB, "hot_pages", "0", .err = EINVAL },
	{ KNOB, "hot_pages", "65537", .err = EINVAL },
	{ KNOB, "max_events", "0", .err = EINVAL },
	{ KNOB, "max_events", "4194305", .err = EINVAL },	/* 2^22 + 1 */
	{ KNOB, "max_events", "1e3", .err = EINVAL },
	{ KNOB, "period", "8", .err = EACCES, .as_nobody = true },
	{ KNOB, "source", "auto", .err = EACCES, .as_nobody = true },
	/* /proc/embm files: read-only, seq_file */
	{ PROC_WRITE, "status", .err = EIO },
	{ PROC_WRITE, "nodes", .err = EIO },
	{ PROC_WRITE, "matrix", .err = EIO },
	{ PROC_WRITE, "latency", .err = EIO },
	{ PROC_WRITE, "hotpages", .err = EIO },
	{ PROC_WRITE, "windows", .err = EIO },
	{ PROC_OPEN, "status", .err = EACCES, .as_nobody = true },	/* for writing */
	{ PROC_OPEN, "hotpages", .err = EACCES, .as_nobody = true },	/* 0400 */
	{ PROC_OPEN, "windows", .err = EACCES, .as_nobody = true },	/* 0400 */
	{ PROC_OPEN, "nosuch", .err = ENOENT },
	{ PROC_SEEK, "status", .err = EINVAL },
	{ PROC_SEEK, "nodes", .err = EINVAL },
};

static int resolve(int v)
{
	bool possible[EMBM_MAX_NODES], memory[EMBM_MAX_NODES];
	int n, last = 0;

	if (v == PID_MAX)
		return read_long("/proc/sys/kernel/pid_max");
	if (v != NODE_PAST && v != NODE_NO_MEM)
		return v;
	if (embm_read_nodelist("/sys/devices/system/node/possible", possible) ||
	    embm_read_nodelist("/sys/devices/system/node/has_memory", memory))
		return -1;
	for (n = 0; n < EMBM_MAX_NODES; n++) {
		if (possible[n])
			last = n;
		if (v == NODE_NO_MEM && possible[n] && !memory[n])
			return n;
	}
	/* No memoryless node here: one past the last is memoryless too. */
	return last + 1;
}

/* The errno one case gets; run in a child for the nobody cases. */
static int try_case(const struct bad *b)
{
	char path[128];
	int fd, err;

	switch (b->kind) {
	case START:
		err = ERRNO_OF(embm_start(resolve(b->pid), resolve(b->node)));
		if (!err)
			embm_end(resolve(b->pid));
		return err;
	case END:
		return ERRNO_OF(embm_end(resolve(b->pid)));
	case KNOB:
		return embm_set_knob(b->name, b->value);
	case PROC_WRITE:
	case PROC_OPEN:
		snprintf(path, sizeof(path), "/proc/embm/%s", b->name);
		fd = open(path, b->kind == PROC_WRITE || b->as_nobody ? O_WRONLY : O_RDONLY);
		if (fd < 0)
			return errno;
		err = b->kind == PROC_WRITE ? ERRNO_OF(write(fd, "1\n", 2)) : 0;
		close(fd);
		return err;
	case PROC_SEEK:
		snprintf(path, sizeof(path), "/proc/embm/%s", b->name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return errno;
		err = ERRNO_OF(lseek(fd, 0, SEEK_END));
		close(fd);
		return err;
	}
	return -1;
}

static int try_as_nobody(const struct bad *b)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
			_exit(255);
		_exit(try_case(b));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static const char *describe(const struct bad *b, char *buf, size_t size)
{
	static const char *const kinds[] = {
		"embm_start", "embm_end", "knob", "write /proc/embm", "open /proc/embm",
		"lseek SEEK_END /proc/embm",
	};

	if (b->kind == START)
		snprintf(buf, size, "embm_start(%d, %d)", resolve(b->pid), resolve(b->node));
	else if (b->kind == END)
		snprintf(buf, size, "embm_end(%d)", resolve(b->pid));
	else
		snprintf(buf, size, "%s %s%s%s%s%s", kinds[b->kind], b->name,
			 b->value ? " <- \"" : "", b->value ?: "", b->value ? "\"" : "",
			 b->as_nobody ? " (as nobody)" : "");
	return buf;
}

TEST(bad_input_gets_documented_errno)
{
	char desc[160], before[64], after[64];
	unsigned int i;
	int err;

	if (embm_end(EMBM_PID_SYSTEM) && errno == ENOSYS)
		SKIP(return, "embm syscalls not available (CONFIG_EMBM=n)");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	ASSERT_NE(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	embm_end(EMBM_PID_SELF);

	ASSERT_LE(40, ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bad *b = &cases[i];

		before[0] = 0;
		after[0] = 0;
		if (b->kind == KNOB)
			ASSERT_EQ(0, embm_get_knob(b->name, before, sizeof(before)));
		err = b->as_nobody ? try_as_nobody(b) : try_case(b);
		describe(b, desc, sizeof(desc));
		EXPECT_EQ(b->err, err) TH_LOG("%s: got %s, want %s", desc, strerror(err),
					      strerror(b->err));
		/* A refused value changes nothing. */
		if (b->kind == KNOB) {
			ASSERT_EQ(0, embm_get_knob(b->name, after, sizeof(after)));
			EXPECT_STREQ(before, after) TH_LOG("%s", desc);
		}
	}
	/* Nothing above started a session. */
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SELF)));
	EXPECT_EQ(ENOENT, ERRNO_OF(embm_end(EMBM_PID_SYSTEM)));
}

TEST_HARNESS_MAIN
