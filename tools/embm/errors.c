// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: what an error of embm_start() means, and its likely cause
 *
 * embm_start() gives one errno for several causes (EINVAL: a node without
 * memory, a kernel thread, a knob the forced source refuses; EACCES:
 * perf_event_paranoid, capabilities, ptrace access).  The kernel checks
 * them in a known order (embm_session_start()); this file looks at what
 * /proc and /sys say to name the one that applies, and falls back to what
 * the errno means in general when they do not tell.
 *
 * Every helper reads under a root directory, "" for this machine, so that
 * a test can point it at a tree of fake files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "procfs.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define EMBM_CAP_SYS_ADMIN	21
#define EMBM_CAP_PERFMON	38
#define EMBM_PF_KTHREAD		0x00200000	/* task->flags, /proc/PID/stat field 9 */

/* What an errno of embm_start() means, for a person; NULL: strerror()'s. */
static const char *const start_errors[] = {
	[ENOSYS]	= "this kernel has no embm system calls (built without CONFIG_EMBM)",
	[EACCES]	=
		"not allowed by perf's rules: kernel.perf_event_paranoid, CAP_PERFMON (CAP_SYS_ADMIN at level 3+), ptrace access to the target",
	[EPERM]		=
		"the ring buffers pass your mlock limit (perf_event_mlock_kb, RLIMIT_MEMLOCK); lower ring_pages, or use CAP_IPC_LOCK",
	[E2BIG]		=
		"more events than /sys/kernel/mm/embm/max_events (threads x CPUs x kinds)",
	[EAGAIN]	= "the target makes threads faster than they can be listed; try again",
	[EINTR]		= "interrupted while waiting for the target or another session",
	[ESRCH]		= "no such process, or all its threads have exited",
	[EINVAL]	=
		"invalid pid or node (the node must be online and have memory), or a knob the source refuses",
	[EBUSY]		= "a session is already running",
	[EBADF]		= "not an open cgroup v2 directory",
	[ENOENT]	=
		"the cgroup is being removed, or has no perf_event controller yet (enable any controller in the root's cgroup.subtree_control once)",
	[EOPNOTSUPP]	= "no sample source works here, or not the one forced (see dmesg)",
	[ENOMEM]	= "out of memory",
};

/**
 * embm_strerror_start() - what an errno of embm_start() means, for a person
 * @err: the errno
 *
 * Return: the meaning in general; embm_explain_start() names the cause.
 */
const char *embm_strerror_start(int err)
{
	if (err >= 0 && err < (int)ARRAY_SIZE(start_errors) && start_errors[err])
		return start_errors[err];
	return strerror(err);
}

/* The first line of @root followed by the path @fmt makes, without its newline. */
static int read_line(const char *root, char *buf, size_t size, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int len;
	FILE *f;

	len = snprintf(path, sizeof(path), "%s", root);
	va_start(ap, fmt);
	vsnprintf(path + len, sizeof(path) - len, fmt, ap);
	va_end(ap);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The value of line "@key\t..." of /proc/@who/status; -1 if there is none. */
static int status_field(const char *root, const char *who, const char *key, char *buf,
			size_t size)
{
	char path[PATH_MAX], line[256];
	size_t len = strlen(key);
	int err = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%s/status", root, who);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, len) || line[len] != ':')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(buf, size, "%s", line + len + 1 + strspn(line + len + 1, " \t"));
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

/* Whether the caller has capability @cap in effect (CapEff); false if unknown. */
static bool own_cap(const char *root, int cap)
{
	char v[64];

	if (status_field(root, "self", "CapEff", v, sizeof(v)))
		return false;
	return (strtoull(v, NULL, 16) >> cap) & 1;
}

/* The real, effective and saved ids of "Uid" or "Gid" in /proc/@who/status. */
static int status_ids(const char *root, const char *who, const char *key,
		      unsigned int ids[3])
{
	char v[128];

	if (status_field(root, who, key, v, sizeof(v)))
		return -1;
	return sscanf(v, "%u %u %u", &ids[0], &ids[1], &ids[2]) == 3 ? 0 : -1;
}

/* Whether node @n is in @list, a node list as sysfs prints it ("0-2,4"). */
static bool in_list(const char *list, int n)
{
	const char *p = list;
	char *end;
	long a, b;

	while (*p) {
		a = strtol(p, &end, 10);
		if (end == p)
			return false;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (n >= a && n <= b)
			return true;
		if (*end != ',')
			return false;
		p = end + 1;
	}
	return false;
}

/* The comm of @pid, or "" when it cannot be read. */
static void pid_comm(const char *root, pid_t pid, char *buf, size_t size)
{
	if (read_line(root, buf, size, "/proc/%d/comm", (int)pid))
		buf[0] = 0;
}

/* What /proc/@pid/stat says: its comm, state, parent and flags. */
struct pid_stat {
	char comm[64];
	char state;
	int ppid;
	unsigned int flags;
};

static int read_pid_stat(const char *root, pid_t pid, struct pid_stat *s)
{
	char line[1024], *open, *close;

	if (read_line(root, line, sizeof(line), "/proc/%d/stat", (int)pid))
		return -1;
	/* The comm may hold blanks and parentheses: it ends at the last ')'. */
	open = strchr(line, '(');
	close = strrchr(line, ')');
	if (!open || !close || close < open)
		return -1;
	snprintf(s->comm, sizeof(s->comm), "%.*s", (int)(close - open - 1), open + 1);
	/* Fields 3 on: state ppid pgrp session tty_nr tpgid flags. */
	if (sscanf(close + 1, " %c %d %*d %*d %*d %*d %u", &s->state, &s->ppid,
		   &s->flags) != 3)
		return -1;
	return 0;
}

/* What the running session of status @st samples, from its target and cgroup. */
static void busy_target(const char *root, const struct embm_proc_status *st, char *buf,
			size_t size)
{
	const char *cg = embm_proc_status_str(st, "cgroup");
	const char *t = embm_proc_status_str(st, "target");
	long target = t ? strtol(t, NULL, 10) : -2;
	const char *path;
	char comm[64];

	if (cg && strcmp(cg, "-")) {
		/* "ID PATH" */
		path = strchr(cg, ' ');
		if (path)
			snprintf(buf, size, "on cgroup %s (id %.*s)", path + 1,
				 (int)(path - cg), cg);
		else
			snprintf(buf, size, "on cgroup %s", cg);
	} else if (target == -1) {
		snprintf(buf, size, "system-wide");
	} else if (target == 0) {
		snprintf(buf, size, "on a process outside your pid namespace");
	} else if (target > 0) {
		pid_comm(root, target, comm, sizeof(comm));
		snprintf(buf, size, "on pid %ld%s%s%s", target, *comm ? " (" : "", comm,
			 *comm ? ")" : "");
	} else {
		snprintf(buf, size, "on a target status does not name");
	}
}

/**
 * embm_explain_busy() - whether a session runs, and on what
 * @root: "" or a fake tree
 * @buf:  the message, when one runs
 * @size: its size
 *
 * Names the target of the running session from its status (target -1 is
 * system-wide; a cgroup session has "cgroup ID PATH"), with the comm of a
 * process when it can be read.
 *
 * Return: true if status says a session is running; false if not, or if
 * status cannot be read.
 */
bool embm_explain_busy(const char *root, char *buf, size_t size)
{
	struct embm_proc_status *st;
	char dir[PATH_MAX], what[512];
	const char *state;
	bool running;

	snprintf(dir, sizeof(dir), "%s%s", root, EMBM_PROC_DIR);
	st = malloc(sizeof(*st));
	if (!st || embm_proc_read_status(dir, st)) {
		free(st);
		return false;
	}
	state = embm_proc_status_str(st, "state");
	running = state && !strcmp(state, "running");
	if (running) {
		busy_target(root, st, what, sizeof(what));
		snprintf(buf, size, "a session is already running, %s; see %s/status", what,
			 EMBM_PROC_DIR);
	}
	free(st);
	return running;
}

/**
 * embm_explain_node() - why embm_start() refuses a node, if it does
 * @root: "" or a fake tree
 * @node: the node asked for; negative is none
 * @buf:  the message
 * @size: its size
 *
 * The node must be online and have memory (N_MEMORY: sysfs's has_memory).
 *
 * Return: true if @node is not one of the nodes with memory.
 */
bool embm_explain_node(const char *root, int node, char *buf, size_t size)
{
	char mem[256], dir[PATH_MAX];

	if (node < 0 || read_line(root, mem, sizeof(mem), "/sys/devices/system/node/has_memory"))
		return false;
	if (in_list(mem, node))
		return false;
	snprintf(dir, sizeof(dir), "%s/sys/devices/system/node/node%d", root, node);
	if (!access(dir, F_OK))
		snprintf(buf, size, "node %d has no memory; nodes with memory: %s", node, mem);
	else
		snprintf(buf, size, "node %d: no such node with memory; nodes with memory: %s",
			 node, mem);
	return true;
}

/**
 * embm_explain_kthread() - whether a pid names a kernel thread
 * @root: "" or a fake tree
 * @pid:  the pid asked for
 * @buf:  the message
 * @size: its size
 *
 * PF_KTHREAD in the flags of /proc/PID/stat; kthreadd (pid 2) and its
 * children too, should the flags not tell.
 *
 * Return: true for a kernel thread.
 */
bool embm_explain_kthread(const char *root, pid_t pid, char *buf, size_t size)
{
	struct pid_stat s;

	if (pid <= 0 || read_pid_stat(root, pid, &s))
		return false;
	if (!(s.flags & EMBM_PF_KTHREAD) && pid != 2 && s.ppid != 2)
		return false;
	snprintf(buf, size, "pid %d (%s) is a kernel thread: it has no user memory to sample",
		 (int)pid, s.comm);
	return true;
}

#define KNOB_LEN	64

/**
 * embm_knob_choice() - the value of a knob as its file reads
 * @line: the file's line, without its newline; cut in place
 *
 * Return: the bracketed choice of a list ("auto [pebs] ibs": "pebs"), or
 * @line itself for a plain value.
 */
char *embm_knob_choice(char *line)
{
	char *s = strchr(line, '['), *e = s ? strchr(++s, ']') : NULL;

	if (!e)
		return line;
	*e = 0;
	return s;
}

/* The value of knob @name, as embm_knob_choice() gives it. */
static int knob_value(const char *root, const char *name, char buf[KNOB_LEN])
{
	char line[KNOB_LEN];

	if (read_line(root, line, sizeof(line), "/sys/kernel/mm/embm/%s", name))
		return -1;
	snprintf(buf, KNOB_LEN, "%s", embm_knob_choice(line));
	return 0;
}

/**
 * embm_explain_knobs() - the knobs a forced source may refuse
 * @root:  "" or a fake tree
 * @knobs: the knobs embm-run set ("source ibs, period 8"), or NULL
 * @buf:   the message
 * @size:  its size
 *
 * The sources check period and ldlat when the session starts: ibs takes
 * no period below 16, pebs no ldlat its CPU model lacks.  Which one it
 * was is in dmesg only ("session not started").
 *
 * Return: true if a source is forced (source is not auto).
 */
bool embm_explain_knobs(const char *root, const char *knobs, char *buf, size_t size)
{
	char src[KNOB_LEN], period[KNOB_LEN], store[KNOB_LEN], ldlat[KNOB_LEN];

	if (knob_value(root, "source", src) || !strcmp(src, "auto"))
		return false;
	if (knob_value(root, "period", period))
		snprintf(period, KNOB_LEN, "?");
	if (knob_value(root, "store_period", store))
		snprintf(store, KNOB_LEN, "?");
	if (knob_value(root, "ldlat", ldlat))
		snprintf(ldlat, KNOB_LEN, "?");
	snprintf(buf, size,
		 "source %s, forced, refuses a knob: /sys/kernel/mm/embm has period %s, store_period %s, ldlat %s%s%s%s; ibs takes periods from 144, emu from 256 (stores too), pebs the ldlat its CPU model allows; dmesg says which ('session not started')",
		 src, period, store, ldlat, knobs ? " (embm-run set " : "", knobs ?: "",
		 knobs ? ")" : "");
	return true;
}

/* What each perf_event_paranoid level, -1 to 3, lets users without capabilities do. */
static const char *const paranoid_text[] = {
	"allows every user every event",
	"allows every user CPU-wide events and physical addresses",
	[2] =
		"allows users without CAP_PERFMON samples of their own processes, with physical addresses, but not the CPU-wide events of a system-wide or cgroup session",
	[3] =
		"allows users without CAP_PERFMON only user-space samples, without the physical addresses embm samples",
	[4] = "allows perf events only with CAP_SYS_ADMIN",
};

static const char *paranoid_allows(int level)
{
	level = level < -1 ? -1 : level > 3 ? 3 : level;
	return paranoid_text[level + 1];
}

/* perf's ptrace check refused @q->pid (perf_event_paranoid did not). */
static void explain_ptrace(const struct embm_start_req *q, int level, char *buf, size_t size)
{
	unsigned int me[3], uid[3], my_gid[3], gid[3];
	char who[32], comm[64];
	bool same;

	snprintf(who, sizeof(who), "%d", (int)q->pid);
	pid_comm(q->root, q->pid, comm, sizeof(comm));
	if (status_ids(q->root, "self", "Uid", me) || status_ids(q->root, who, "Uid", uid) ||
	    status_ids(q->root, "self", "Gid", my_gid) || status_ids(q->root, who, "Gid", gid)) {
		snprintf(buf, size,
			 "not allowed: kernel.perf_event_paranoid is %d, which %s; but perf also needs ptrace access to pid %d%s%s%s: run embm-run as its user, or with CAP_PERFMON",
			 level, paranoid_allows(level), (int)q->pid, *comm ? " (" : "", comm,
			 *comm ? ")" : "");
		return;
	}
	/* ptrace's PTRACE_MODE_REALCREDS: my real ids against all three of its. */
	same = uid[0] == me[0] && uid[1] == me[0] && uid[2] == me[0] &&
	       gid[0] == my_gid[0] && gid[1] == my_gid[0] && gid[2] == my_gid[0];
	if (same)
		snprintf(buf, size,
			 "not allowed: kernel.perf_event_paranoid is %d, which allows samples of your own processes, and pid %d (%s) runs as you; but perf's ptrace access check refuses it: it is not dumpable (it runs a set-user-ID program, or made itself so), or a security module (LSM) refused",
			 level, (int)q->pid, comm);
	else
		snprintf(buf, size,
			 "not allowed: kernel.perf_event_paranoid is %d, which allows samples of processes you may ptrace; pid %d (%s) runs as uid %u (gid %u), you as uid %u (gid %u): run embm-run as its user, or with CAP_PERFMON",
			 level, (int)q->pid, comm, uid[1], gid[1], me[0], my_gid[0]);
}

/**
 * embm_explain_eacces() - which of perf's rules refused embm_start()
 * @q:    what was asked
 * @buf:  the message
 * @size: its size
 *
 * As perf_event_open() decides (see embm_perm_test): level 3 and up needs
 * CAP_SYS_ADMIN; physical addresses need CAP_PERFMON above level 1;
 * CPU-wide events (system-wide, cgroup) need CAP_PERFMON above level 0;
 * another process needs CAP_PERFMON or ptrace access to it, which is
 * named only when the level lets the call that far.
 *
 * Return: true if perf_event_paranoid could be read.
 */
bool embm_explain_eacces(const struct embm_start_req *q, char *buf, size_t size)
{
	bool sys_admin, perfmon;
	char v[32];
	int level;

	if (read_line(q->root, v, sizeof(v), "/proc/sys/kernel/perf_event_paranoid"))
		return false;
	level = atoi(v);
	sys_admin = own_cap(q->root, EMBM_CAP_SYS_ADMIN);
	perfmon = sys_admin || own_cap(q->root, EMBM_CAP_PERFMON);
	if ((level > 2 && !sys_admin) || (level > 1 && !perfmon) ||
	    (q->cpu_wide && level > 0 && !perfmon)) {
		snprintf(buf, size,
			 "not allowed: kernel.perf_event_paranoid is %d, which %s; to allow it, as root: sysctl kernel.perf_event_paranoid=%d, or run embm-run with %s",
			 level, paranoid_allows(level), q->cpu_wide ? 0 : 1,
			 level > 2 ? "CAP_SYS_ADMIN" : "CAP_PERFMON");
		return true;
	}
	if (q->pid > 0 && !perfmon) {
		explain_ptrace(q, level, buf, size);
		return true;
	}
	snprintf(buf, size,
		 "not allowed: kernel.perf_event_paranoid is %d, which allows this%s; a security module (LSM) refused it",
		 level, perfmon ? " with your capabilities" : "");
	return true;
}

/* Whether @word is one of the blank-separated words of @list. */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (!p[len] || p[len] == ' '))
			return true;
		p += len;
	}
	return false;
}

/*
 * The root of the cgroup v2 hierarchy that holds @dir: its highest
 * ancestor with a cgroup.controllers file; @root/sys/fs/cgroup if none.
 */
static void cgroup_root(const char *root, const char *dir, char *buf, size_t size)
{
	char path[PATH_MAX], file[PATH_MAX + 32], *slash;
	bool found = false;

	if (realpath(dir, path)) {
		for (;;) {
			snprintf(file, sizeof(file), "%s/cgroup.controllers", path);
			if (access(file, F_OK))
				break;
			snprintf(buf, size, "%s", path);
			found = true;
			slash = strrchr(path, '/');
			if (!slash || slash == path)
				break;
			*slash = 0;
		}
	}
	if (!found)
		snprintf(buf, size, "%s/sys/fs/cgroup", root);
}

/**
 * embm_explain_cgroup() - why a cgroup has no perf_event controller
 * @root: "" or a fake tree
 * @dir:  the cgroup directory asked for
 * @buf:  the message
 * @size: its size
 *
 * cgroup v2 enables perf_event implicitly, but only once the root's
 * cgroup.subtree_control has been written (systemd does it at boot, a
 * minimal init may not).  Lists the controllers there are and those
 * enabled, and which to enable.
 *
 * Return: true if the root's cgroup.controllers could be read.
 */
bool embm_explain_cgroup(const char *root, const char *dir, char *buf, size_t size)
{
	char top[PATH_MAX], avail[512], on[512];
	const char *pick;

	cgroup_root(root, dir, top, sizeof(top));
	if (read_line("", avail, sizeof(avail), "%s/cgroup.controllers", top))
		return false;
	if (read_line("", on, sizeof(on), "%s/cgroup.subtree_control", top))
		on[0] = 0;
	if (*on) {
		snprintf(buf, size,
			 "the cgroup is being removed: it has no perf_event controller, which cgroup v2 gives every cgroup since %s/cgroup.subtree_control was written (it enables: %s)",
			 top, on);
		return true;
	}
	if (!*avail) {
		snprintf(buf, size,
			 "the cgroup has no perf_event controller: cgroup v2 gives it to new cgroups only once %s/cgroup.subtree_control was written, and %s has no controller to enable there (are they all on cgroup v1 hierarchies?)",
			 top, top);
		return true;
	}
	/* Any one will do; pids costs least. */
	pick = has_word(avail, "pids") ? "pids" : avail;
	snprintf(buf, size,
		 "the cgroup has no perf_event controller (or is being removed): cgroup v2 gives it to new cgroups only once %s/cgroup.subtree_control was written, and it enables none now (controllers there: %s); enable one, as root: echo +%.*s > %s/cgroup.subtree_control",
		 top, avail, (int)strcspn(pick, " "), pick, top);
	return true;
}

/**
 * embm_explain_esrch() - why a pid names no live process
 * @root: "" or a fake tree
 * @pid:  the pid asked for
 * @buf:  the message
 * @size: its size
 *
 * Return: true if @pid is gone or a zombie.
 */
bool embm_explain_esrch(const char *root, pid_t pid, char *buf, size_t size)
{
	struct pid_stat s;

	if (pid <= 0)
		return false;
	if (read_pid_stat(root, pid, &s)) {
		snprintf(buf, size, "no process has pid %d", (int)pid);
		return true;
	}
	if (s.state != 'Z' && s.state != 'X')
		return false;
	snprintf(buf, size, "pid %d (%s) has exited: it is a zombie, its threads are gone",
		 (int)pid, s.comm);
	return true;
}

/**
 * embm_explain_start() - what an error of embm_start() means here
 * @err:  the errno
 * @q:    what was asked
 * @buf:  room for the message, EMBM_EXPLAIN_SIZE will do
 * @size: its size
 *
 * For EINVAL the causes are tried in the kernel's order: the node, a
 * kernel thread, then a knob of the forced source.
 *
 * Return: @buf with the cause, or embm_strerror_start()'s text.
 */
const char *embm_explain_start(int err, const struct embm_start_req *q, char *buf,
			       size_t size)
{
	bool found = false;

	switch (err) {
	case EINVAL:
		found = embm_explain_node(q->root, q->node, buf, size) ||
			embm_explain_kthread(q->root, q->pid, buf, size) ||
			embm_explain_knobs(q->root, q->knobs, buf, size);
		break;
	case EACCES:
		found = embm_explain_eacces(q, buf, size);
		break;
	case EBUSY:
		found = embm_explain_busy(q->root, buf, size);
		break;
	case ENOENT:
		found = q->cgroup && embm_explain_cgroup(q->root, q->cgroup, buf, size);
		break;
	case ESRCH:
		found = embm_explain_esrch(q->root, q->pid, buf, size);
		break;
	}
	return found ? buf : embm_strerror_start(err);
}
