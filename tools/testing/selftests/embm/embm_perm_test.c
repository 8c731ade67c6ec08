// SPDX-License-Identifier: GPL-2.0
/*
 * embm follows perf_event_open()'s permission rules.
 *
 * For every kernel.perf_event_paranoid level from -1 to 4, every kind of
 * caller (root; a user with CAP_PERFMON only; the owner of the target; some
 * other user) and every target (the caller itself, another user's process,
 * the whole system), embm_start() must give what perf's rules say, and the
 * same errno as perf_event_open() for the events embm opens (a software
 * page-fault event sampling physical addresses), which the test opens
 * beside it as an oracle.  embm_end() and reading /proc/embm follow the
 * same rules for a session someone else started; hotpages also needs
 * CAP_SYS_ADMIN; ring buffers are charged like perf's mmap().
 *
 * Needs root and a kernel with CONFIG_EMBM; skips otherwise.  No LSM is
 * built into the test kernel, so the LSM hooks are not exercised here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/embm.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/klog.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define USER_OWNER	65534	/* owns the target process */
#define USER_OTHER	65533	/* another user */
#define USER_PERFMON	65532	/* a user with CAP_PERFMON only */

enum who { ROOT, PERFMON, OWNER, OTHER, NR_WHO };
enum what { SELF, OTHER_PROC, SYSTEM, NR_WHAT };

static const char *const who_name[NR_WHO] = { "root", "CAP_PERFMON only", "owner", "other user" };
static const char *const what_name[NR_WHAT] = { "self", "another process", "system-wide" };
static const int levels[] = { -1, 0, 1, 2, 3, 4 };
#define NR_LEVELS	ARRAY_SIZE(levels)

/*
 * perf_event_open()'s rules for embm's events: level 3 and up needs
 * CAP_SYS_ADMIN; physical addresses need CAP_PERFMON above level 1; a CPU
 * needs CAP_PERFMON above level 0; another process needs CAP_PERFMON or
 * ptrace access (here: being its owner).
 */
static int expected(int level, enum who who, enum what what)
{
	bool sys_admin = who == ROOT, perfmon = who == ROOT || who == PERFMON;
	bool ok;

	if (level > 2 && !sys_admin)
		ok = false;
	else if (level > 1 && !perfmon)
		ok = false;
	else if (what == OTHER_PROC)
		ok = perfmon || who == OWNER;
	else if (what == SYSTEM)
		ok = level <= 0 || perfmon;
	else
		ok = true;
	return ok ? 0 : EACCES;
}

static int set_paranoid(int level)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	int err = 0;

	if (!f)
		return -1;
	if (fprintf(f, "%d", level) < 0)
		err = -1;
	if (fclose(f))
		err = -1;
	return err;
}

static int get_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 2;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

static int become_who(enum who who)
{
	switch (who) {
	case ROOT:
		return 0;
	case PERFMON:
		return become(USER_PERFMON, 1ULL << CAP_PERFMON);
	case OWNER:
		return become(USER_OWNER, 0);
	case OTHER:
		return become(USER_OTHER, 0);
	default:
		return -1;
	}
}

/* The event embm's swfault source opens, through perf_event_open(). */
static int perf_open(pid_t pid, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS_MIN,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			       PERF_SAMPLE_PHYS_ADDR,
		.disabled = 1,
		.inherit = pid != -1,
		.exclude_hv = 1,
	};

	return syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* perf_event_open()'s errno for the target, 0 if it opened. */
static int perf_errno(enum what what, pid_t target)
{
	int fd;

	switch (what) {
	case SELF:
		fd = perf_open(0, -1);
		break;
	case OTHER_PROC:
		fd = perf_open(target, -1);
		break;
	default:
		fd = perf_open(-1, 0);
		break;
	}
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static pid_t embm_pid(enum what what, pid_t target)
{
	return what == SELF ? EMBM_PID_SELF : what == OTHER_PROC ? target : EMBM_PID_SYSTEM;
}

/* A process of USER_OWNER that waits for EOF on a pipe. */
static pid_t spawn_target(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (become(USER_OWNER, 0))
			_exit(1);
		if (read(p[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

/* Results of one caller at one level, filled in by a child. */
struct cell {
	int embm;	/* embm_start()'s errno */
	int end;	/* embm_end()'s errno after a start that worked */
	int perf;	/* perf_event_open()'s errno */
	int proc;	/* open("/proc/embm/nodes")'s errno */
};

FIXTURE(perm) {
	int paranoid;
	char ring_pages[32];
	pid_t target;
	int target_fd;
	struct cell *cells;	/* [NR_LEVELS][NR_WHO][NR_WHAT], shared */
};

FIXTURE_SETUP(perm)
{
	self->paranoid = INT32_MIN;
	self->target = -1;
	if (embm_end(EMBM_PID_SYSTEM) && errno == ENOSYS)
		SKIP(return, "embm syscalls not available (CONFIG_EMBM=n)");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	ASSERT_NE(EBUSY, ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)));
	embm_end(EMBM_PID_SELF);
	ASSERT_EQ(0, embm_get_knob("ring_pages", self->ring_pages, sizeof(self->ring_pages)));
	ASSERT_EQ(0, embm_set_knob("source", "swfault"));
	self->paranoid = get_paranoid();
	self->cells = mmap(NULL, NR_LEVELS * NR_WHO * NR_WHAT * sizeof(struct cell),
			   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->cells);
	self->target = spawn_target(&self->target_fd);
	ASSERT_LT(0, self->target);
}

FIXTURE_TEARDOWN(perm)
{
	embm_end(EMBM_PID_SYSTEM);
	if (self->target > 0) {
		embm_end(self->target);
		close(self->target_fd);
		kill(self->target, SIGKILL);
		reap(self->target);
	}
	if (self->paranoid != INT32_MIN)
		set_paranoid(self->paranoid);
	if (self->ring_pages[0])
		embm_set_knob("ring_pages", self->ring_pages);
}

static struct cell *cell_of(struct cell *cells, int l, int w, int t)
{
	return &cells[(l * NR_WHO + w) * NR_WHAT + t];
}

/* Run @fn(level, who) in a child that became @who; 0 if it exited 0. */
static int as_who(enum who who, void (*fn)(void *, int, enum who), void *arg, int l)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (become_who(who))
			_exit(2);
		fn(arg, l, who);
		_exit(0);
	}
	return reap(pid);
}

struct ctx {
	struct cell *cells;
	pid_t target;
	int go, done;	/* end_cells(): the parent's pipes */
};

static void start_cells(void *arg, int l, enum who who)
{
	struct ctx *c = arg;
	enum what what;

	for (what = 0; what < NR_WHAT; what++) {
		struct cell *x = cell_of(c->cells, l, who, what);
		pid_t pid = embm_pid(what, c->target);

		x->embm = ERRNO_OF(embm_start(pid, EMBM_NODE_NONE));
		x->end = x->embm ? -1 : ERRNO_OF(embm_end(pid));
		x->perf = perf_errno(what, c->target);
	}
}

TEST_F(perm, start_follows_perf_rules)
{
	struct ctx c = { self->cells, self->target };
	unsigned int l;
	int w, t;

	for (l = 0; l < NR_LEVELS; l++) {
		ASSERT_EQ(0, set_paranoid(levels[l]));
		for (w = 0; w < NR_WHO; w++)
			ASSERT_EQ(0, as_who(w, start_cells, &c, l)) TH_LOG("%s", who_name[w]);
	}
	ASSERT_EQ(0, set_paranoid(self->paranoid));

	for (l = 0; l < NR_LEVELS; l++) {
		for (w = 0; w < NR_WHO; w++) {
			for (t = 0; t < NR_WHAT; t++) {
				struct cell *x = cell_of(self->cells, l, w, t);
				int want = expected(levels[l], w, t);

				/* The oracle agrees with the rules as written... */
				EXPECT_EQ(want, x->perf)
					TH_LOG("perf_event_open, paranoid %d, %s, %s",
					       levels[l], who_name[w], what_name[t]);
				/* ...and embm with both. */
				EXPECT_EQ(x->perf, x->embm)
					TH_LOG("embm_start, paranoid %d, %s, %s: %s",
					       levels[l], who_name[w], what_name[t],
					       strerror(x->embm));
				/* Whoever started a session may end it. */
				if (!x->embm)
					EXPECT_EQ(0, x->end)
						TH_LOG("embm_end, paranoid %d, %s, %s",
						       levels[l], who_name[w], what_name[t]);
			}
		}
	}
}

/*
 * Another caller ends or reads the session root started: for each target,
 * wait for the parent's start, try, and tell the parent.
 */
static void end_cells(void *arg, int l, enum who who)
{
	struct ctx *c = arg;
	enum what what;
	char b;
	int fd;

	for (what = OTHER_PROC; what < NR_WHAT; what++) {
		struct cell *x = cell_of(c->cells, l, who, what);

		if (read(c->go, &b, 1) != 1)
			_exit(3);
		fd = open("/proc/embm/nodes", O_RDONLY);
		x->proc = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		x->end = ERRNO_OF(embm_end(embm_pid(what, c->target)));
		if (write(c->done, "", 1) != 1)
			_exit(4);
	}
}

TEST_F(perm, end_and_read_follow_perf_rules)
{
	struct ctx c = { self->cells, self->target };
	int go[2], done[2], w, t;
	unsigned int l;
	pid_t pid;
	char b;

	for (l = 0; l < NR_LEVELS; l++) {
		ASSERT_EQ(0, set_paranoid(levels[l]));
		for (w = 0; w < NR_WHO; w++) {
			ASSERT_EQ(0, pipe(go));
			ASSERT_EQ(0, pipe(done));
			c.go = go[0];
			c.done = done[1];
			pid = fork();
			ASSERT_LE(0, pid);
			if (pid == 0) {
				close(go[1]);
				close(done[0]);
				if (become_who(w))
					_exit(2);
				end_cells(&c, l, w);
				_exit(0);
			}
			close(go[0]);
			close(done[1]);
			for (t = OTHER_PROC; t < NR_WHAT; t++) {
				pid_t target = embm_pid(t, self->target);

				/* root may start at every level. */
				ASSERT_EQ(0, embm_start(target, EMBM_NODE_NONE));
				ASSERT_EQ(1, write(go[1], "", 1));
				ASSERT_EQ(1, read(done[0], &b, 1));
				if (cell_of(self->cells, l, w, t)->end)
					ASSERT_EQ(0, embm_end(target));
			}
			close(go[1]);
			close(done[0]);
			ASSERT_EQ(0, reap(pid)) TH_LOG("%s", who_name[w]);
		}
	}
	ASSERT_EQ(0, set_paranoid(self->paranoid));

	for (l = 0; l < NR_LEVELS; l++) {
		for (w = 0; w < NR_WHO; w++) {
			for (t = OTHER_PROC; t < NR_WHAT; t++) {
				struct cell *x = cell_of(self->cells, l, w, t);
				int want = expected(levels[l], w, t);

				EXPECT_EQ(want, x->end)
					TH_LOG("embm_end, paranoid %d, %s, %s: %s", levels[l],
					       who_name[w], what_name[t], strerror(x->end));
				EXPECT_EQ(want, x->proc)
					TH_LOG("open /proc/embm/nodes, paranoid %d, %s, %s: %s",
					       levels[l], who_name[w], what_name[t],
					       strerror(x->proc));
			}
		}
	}
}

/*
 * Physical addresses (hot pages, CXL windows) need CAP_SYS_ADMIN, as in
 * /proc/PID/pagemap.
 */
TEST_F(perm, hotpages_need_cap_sys_admin)
{
	static const char *const files[] = { "/proc/embm/hotpages", "/proc/embm/windows" };
	pid_t pid;
	int fd, i;

	/* CAP_PERFMON is enough for the other files at level 2, not at 3. */
	ASSERT_EQ(0, set_paranoid(2));
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	for (i = 0; i < 2; i++) {
		fd = open(files[i], O_RDONLY);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Still uid 0 (the file's owner), with CAP_PERFMON but not CAP_SYS_ADMIN. */
		if (set_caps(1ULL << CAP_PERFMON))
			_exit(2);
		for (i = 0; i < 2; i++) {
			fd = open(files[i], O_RDONLY);
			if (fd >= 0 || errno != EPERM)
				_exit(3 + i);
		}
		/* The other files follow perf's rules, which CAP_PERFMON meets. */
		fd = open("/proc/embm/nodes", O_RDONLY);
		_exit(fd < 0 ? 5 : 0);
	}
	EXPECT_EQ(0, reap(pid));
	EXPECT_EQ(0, embm_end(EMBM_PID_SELF));
}

/*
 * A caller perf lets sample its own processes, who may not end root's
 * session on root's process, learns nothing of its target from embm_end():
 * the same errno for the target's pid, its own pid and any other (before,
 * ESRCH for every pid but the target's told which one it was).
 */
TEST_F(perm, end_does_not_tell_the_target)
{
	pid_t pid;

	ASSERT_EQ(0, set_paranoid(1));
	ASSERT_EQ(0, embm_start(self->target, EMBM_NODE_NONE));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int t, o, s;

		/* Not the target's user: ptrace, and so ending, is refused. */
		if (become(USER_OTHER, 0))
			_exit(10);
		t = ERRNO_OF(embm_end(self->target));
		o = ERRNO_OF(embm_end(getpid()));
		s = ERRNO_OF(embm_end(1));
		if (t == EACCES && o == EACCES && s == EACCES)
			_exit(0);
		_exit(o == ESRCH || s == ESRCH ? 20 : 30);
	}
	EXPECT_EQ(0, reap(pid)) TH_LOG("20: ESRCH for a pid not the target's; 30: other");
	EXPECT_EQ(0, embm_end(self->target));
}

/* perf_event_open()'s errno for a software event on self with @attr's sample fields. */
static int open_errno(const struct perf_event_attr *fields)
{
	struct perf_event_attr attr = *fields;
	int fd;

	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS_MIN;
	attr.disabled = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * embm moved perf_event_open()'s checks of the attributes into a function
 * it shares; perf_event_open() must keep upstream's order and errnos.  At
 * paranoid 2, for a user without capabilities: a sample_freq over the
 * limit (or a period with bit 63) is refused with EINVAL before a
 * PHYS_ADDR that is refused with EACCES, while the kernel and namespaces
 * checks come before the frequency one.
 */
TEST_F(perm, perf_event_open_keeps_its_errnos)
{
	long rate = read_long("/proc/sys/kernel/perf_event_max_sample_rate");
	struct {
		const char *what;
		struct perf_event_attr attr;
		int want;
	} cases[] = {
		{ "freq too high, PHYS_ADDR", { .freq = 1, .sample_freq = rate + 1,
		  .sample_type = PERF_SAMPLE_PHYS_ADDR, .exclude_kernel = 1 }, EINVAL },
		{ "period bit 63, PHYS_ADDR", { .sample_period = 1ULL << 63,
		  .sample_type = PERF_SAMPLE_PHYS_ADDR, .exclude_kernel = 1 }, EINVAL },
		{ "PHYS_ADDR", { .sample_period = 1, .sample_type = PERF_SAMPLE_PHYS_ADDR,
		  .exclude_kernel = 1 }, EACCES },
		{ "kernel, freq too high", { .freq = 1, .sample_freq = rate + 1 }, EACCES },
		{ "namespaces, freq too high", { .freq = 1, .sample_freq = rate + 1,
		  .namespaces = 1, .exclude_kernel = 1 }, EACCES },
		{ "freq too high", { .freq = 1, .sample_freq = rate + 1,
		  .exclude_kernel = 1 }, EINVAL },
		{ "a good one", { .sample_period = 1, .sample_type = PERF_SAMPLE_ADDR,
		  .exclude_kernel = 1 }, 0 },
	};
	const char *what;
	unsigned int i;
	pid_t pid;

	ASSERT_LT(0, rate);
	ASSERT_EQ(0, set_paranoid(2));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (become(USER_OTHER, 0))
			_exit(100);
		for (i = 0; i < ARRAY_SIZE(cases); i++)
			if (open_errno(&cases[i].attr) != cases[i].want)
				_exit(1 + i);
		_exit(0);
	}
	i = reap(pid);
	what = "setup";
	if (i && i <= ARRAY_SIZE(cases))
		what = cases[i - 1].what;
	EXPECT_EQ(0, i) TH_LOG("case %u (%s): not upstream's errno", i - 1, what);
}

/* The kernel log from the last "embm: session " on, in @buf; 0 or -1. */
static int last_summary(char *buf, int size)
{
	char *all = malloc(1 << 20), *p, *last = NULL;
	int n = all ? klogctl(3 /* SYSLOG_ACTION_READ_ALL */, all, (1 << 20) - 1) : -1;

	if (n < 0) {
		free(all);
		return -1;
	}
	all[n] = 0;
	for (p = all; (p = strstr(p, "embm: session ")); p++)
		last = p;
	snprintf(buf, size, "%s", last ? last : "");
	free(all);
	return last ? 0 : -1;
}

/*
 * The summary of a session in the kernel log names its target and its
 * results only where the log is for CAP_SYSLOG (kernel.dmesg_restrict):
 * elsewhere anyone reads it, while /proc/embm asks perf's rights over the
 * target.
 */
TEST_F(perm, summary_in_the_log_only_where_restricted)
{
	char old[16] = "", buf[4096];

	ASSERT_EQ(0, read_line("/proc/sys/kernel/dmesg_restrict", old, sizeof(old)));
	ASSERT_EQ(0, write_file("/proc/sys/kernel/dmesg_restrict", "0"));
	sleep_ms(5100);	/* the summaries' rate limit (10 in 5 s): the tests before */
	ASSERT_EQ(0, embm_start(self->target, EMBM_NODE_NONE));
	ASSERT_EQ(0, embm_end(self->target));
	ASSERT_EQ(0, last_summary(buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "target")) TH_LOG("open log: %.200s", buf);
	EXPECT_EQ(NULL, strstr(buf, "node tier")) TH_LOG("open log: %.200s", buf);
	EXPECT_NE(NULL, strstr(buf, "results in /proc/embm")) TH_LOG("open log: %.200s", buf);

	ASSERT_EQ(0, write_file("/proc/sys/kernel/dmesg_restrict", "1"));
	sleep_ms(5100);
	ASSERT_EQ(0, embm_start(self->target, EMBM_NODE_NONE));
	ASSERT_EQ(0, embm_end(self->target));
	ASSERT_EQ(0, last_summary(buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "target")) TH_LOG("restricted log: %.200s", buf);
	EXPECT_NE(NULL, strstr(buf, "node tier")) TH_LOG("restricted log: %.200s", buf);
	write_file("/proc/sys/kernel/dmesg_restrict", old);
}

/* A file opened on one session does not show the next one. */
TEST_F(perm, file_is_bound_to_its_session)
{
	char buf[256];
	int fd;

	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	fd = open("/proc/embm/status", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_LT(0, read(fd, buf, sizeof(buf)));
	ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
	/* Ended is the same session: still readable. */
	EXPECT_LT(0, pread(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	EXPECT_EQ(-1, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(ESTALE, errno);
	close(fd);
	EXPECT_EQ(0, embm_end(EMBM_PID_SELF));
}

/*
 * perf_mmap()'s limit for a user without CAP_IPC_LOCK: perf_event_mlock_kb
 * per online CPU, then RLIMIT_MEMLOCK.  The oracle maps ring buffers of
 * @pages data pages on every CPU, as embm makes them.
 */
static int perf_mmap_errno(unsigned long pages)
{
	int cpu, fd, err = 0, n = online_cpus();
	int fds[EMBM_MAX_NODES];
	void *maps[EMBM_MAX_NODES];
	size_t len = (pages + 1) * EMBM_PAGE;

	for (cpu = 0; cpu < n && cpu < EMBM_MAX_NODES; cpu++) {
		fds[cpu] = -1;
		maps[cpu] = MAP_FAILED;
	}
	for (cpu = 0; cpu < n && cpu < EMBM_MAX_NODES && !err; cpu++) {
		fd = perf_open(0, cpu);
		if (fd < 0) {
			err = errno;
			break;
		}
		fds[cpu] = fd;
		maps[cpu] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (maps[cpu] == MAP_FAILED)
			err = errno;
	}
	for (cpu = 0; cpu < n && cpu < EMBM_MAX_NODES; cpu++) {
		if (maps[cpu] != MAP_FAILED)
			munmap(maps[cpu], len);
		if (fds[cpu] >= 0)
			close(fds[cpu]);
	}
	return err;
}

struct ring {
	unsigned long pages;
	int embm, perf;
};

static void ring_cell(void *arg, int l, enum who who)
{
	struct ring *r = arg;

	r->embm = ERRNO_OF(embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	if (!r->embm)
		embm_end(EMBM_PID_SELF);
	r->perf = perf_mmap_errno(r->pages);
}

/* Does perf_mmap()'s rule refuse @pages data pages on every online CPU? */
static bool over_mlock(unsigned long pages)
{
	unsigned long n = online_cpus(), want = (pages + 1) * n, per_user;
	struct rlimit rl;

	per_user = read_long("/proc/sys/kernel/perf_event_mlock_kb") / (EMBM_PAGE / 1024) * n;
	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return false;
	return want > per_user && want - per_user > rl.rlim_cur / EMBM_PAGE;
}

/*
 * A source with records in its rings: emu-ring in a guest with the
 * embm-emu plugin, else the automatic choice (pebs or ibs on hardware),
 * unless that is swfault or emu, whose samples go to queues and whose
 * rings are one page whatever ring_pages says (the next test).
 */
TEST_F(perm, ring_memory_is_charged_like_perf_mmap)
{
	unsigned long sizes[] = { 16, 8 };
	struct ring *r = (struct ring *)self->cells;
	char val[32], src[32];
	unsigned int i;

	if (embm_set_knob("source", "emu-ring") ||
	    embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)) {
		ASSERT_EQ(0, embm_set_knob("source", "auto"));
		ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
	}
	ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
	ASSERT_EQ(0, embm_status("source", src, sizeof(src)));
	if (!strcmp(src, "swfault") || !strcmp(src, "emu"))
		SKIP(return, "the only sources here are direct: no records in their rings");
	/* The smallest ring that passes the limits here, and one that does not. */
	while (sizes[0] < 1024 && !over_mlock(sizes[0]))
		sizes[0] *= 2;
	ASSERT_EQ(0, set_paranoid(1));
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(val, sizeof(val), "%lu", sizes[i]);
		ASSERT_EQ(0, embm_set_knob("ring_pages", val));
		r->pages = sizes[i];
		ASSERT_EQ(0, as_who(OWNER, ring_cell, r, 0));
		EXPECT_EQ(over_mlock(sizes[i]) ? EPERM : 0, r->perf)
			TH_LOG("perf mmap, %s pages", val);
		EXPECT_EQ(r->perf, r->embm) TH_LOG("ring_pages %s: %s", val, strerror(r->embm));
		/* root has CAP_IPC_LOCK; every page is charged. */
		ASSERT_EQ(0, embm_start(EMBM_PID_SELF, EMBM_NODE_NONE));
		EXPECT_EQ((long long)(sizes[i] + 1) * online_cpus(),
			  embm_status_ll("ring_pages_locked"));
		ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
		/* Freed at the end; the peak stays in the report. */
		EXPECT_EQ(0, embm_status_ll("ring_pages_locked"));
		EXPECT_EQ((long long)(sizes[i] + 1) * online_cpus(),
			  embm_status_ll("ring_pages_max"));
		EXPECT_LT(0, embm_status_ll("table_bytes"));
	}
	/* The test must cover a refusal (true unless RLIMIT_MEMLOCK is huge). */
	EXPECT_TRUE(over_mlock(sizes[0])) TH_LOG("no ring of up to 1024 pages passes the limits");
	EXPECT_FALSE(over_mlock(sizes[1]));
	ASSERT_EQ(0, set_paranoid(self->paranoid));
	ASSERT_EQ(0, embm_set_knob("source", "swfault"));
}

/*
 * The direct sources' samples go to their queues: swfault's, and emu's
 * where the embm-emu plugin is.  Their rings, which hold perf's throttle
 * and lost records only, are one data page and the control page a CPU,
 * whatever ring_pages says, and are charged as such.
 */
TEST_F(perm, direct_source_rings_are_one_page)
{
	static const char *const srcs[] = { "swfault", "emu" };
	char src[32];
	unsigned int i;

	ASSERT_EQ(0, embm_set_knob("ring_pages", "256"));
	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		if (embm_set_knob("source", srcs[i]) ||
		    embm_start(EMBM_PID_SELF, EMBM_NODE_NONE)) {
			ASSERT_NE(0, i) TH_LOG("swfault works everywhere");
			TH_LOG("%s: not here", srcs[i]);
			continue;
		}
		EXPECT_EQ(2LL * online_cpus(), embm_status_ll("ring_pages_locked"));
		ASSERT_EQ(0, embm_end(EMBM_PID_SELF));
		ASSERT_EQ(0, embm_status("source", src, sizeof(src)));
		EXPECT_STREQ(srcs[i], src);
		/* As many uncharged at the end. */
		EXPECT_EQ(0, embm_status_ll("ring_pages_locked"));
		EXPECT_EQ(2LL * online_cpus(), embm_status_ll("ring_pages_max"));
	}
	ASSERT_EQ(0, embm_set_knob("source", "swfault"));
}

#define SUID_PROG	"/tmp/embm-suid"

static int copy_file(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY), out, err = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -1;
	if (n < 0 || fchmod(out, mode))
		err = -1;
	close(in);
	close(out);
	return err;
}

static bool comm_is(pid_t pid, const char *want)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	return !strcmp(comm, want);
}

/*
 * A target that runs a set-user-ID program after the start: perf drops
 * its events on such an exec, and embm makes none for it afterwards: a
 * CPU that comes online gets no events for it (perf_event_open() by its
 * owner would now be refused).
 */
TEST_F_TIMEOUT(perm, no_new_events_after_setuid_exec, 120)
{
	int cpu = online_cpus() - 1, go[2], ready[2], i;
	char b, state[32] = "";
	pid_t starter;
	long long events;

	if (cpu < 1 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "no CPU to take offline");
	ASSERT_EQ(0, copy_file("/bin/busybox", SUID_PROG, 04755));
	ASSERT_EQ(0, set_paranoid(1));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	/* Replace the fixture's target: this one execs on "go". */
	close(self->target_fd);
	reap(self->target);
	self->target = fork();
	ASSERT_LE(0, self->target);
	if (self->target == 0) {
		close(go[1]);
		if (become(USER_OWNER, 0) || read(go[0], &b, 1) != 1)
			_exit(1);
		execl(SUID_PROG, "sleep", "60", (char *)NULL);
		_exit(2);
	}
	close(go[0]);
	self->target_fd = go[1];
	ASSERT_EQ(0, set_online(cpu, 0));

	/* Its owner starts a session on it, through ptrace access. */
	starter = fork();
	ASSERT_LE(0, starter);
	if (starter == 0) {
		if (become(USER_OWNER, 0) || embm_start(self->target, EMBM_NODE_NONE) ||
		    write(ready[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	ASSERT_EQ(1, read(ready[0], &b, 1));
	ASSERT_EQ(1, write(go[1], "", 1));
	for (i = 0; i < 200 && !comm_is(self->target, "embm-suid"); i++)
		usleep(10000);
	ASSERT_TRUE(comm_is(self->target, "embm-suid"));

	events = embm_status_ll("events");
	ASSERT_EQ(0, set_online(cpu, 1));
	for (i = 0; i < 200 && embm_status_ll("threads_skipped") <= 0; i++)
		usleep(10000);
	EXPECT_LT(0, embm_status_ll("threads_skipped"));
	EXPECT_EQ(events, embm_status_ll("events"));

	kill(starter, SIGKILL);
	reap(starter);
	kill(self->target, SIGKILL);
	reap(self->target);
	self->target = -1;
	close(ready[0]);
	close(ready[1]);
	unlink(SUID_PROG);
	/*
	 * The session ends with its starter, at ksamplingd's next round (up
	 * to 100 ms): the next test may start one only then.
	 */
	for (i = 0; i < 200; i++) {
		if (embm_status("state", state, sizeof(state)) || strcmp(state, "running"))
			break;
		usleep(10000);
	}
	EXPECT_STRNE("running", state);
}

TEST_HARNESS_MAIN
