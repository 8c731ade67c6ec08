// SPDX-License-Identifier: GPL-2.0
/*
 * embm-run passes SIGINT on to its command only when the command did not
 * get it already.  Ctrl-C on a terminal sends SIGINT to the terminal's
 * whole foreground process group, embm-run and its command alike: the
 * command must see it once, not once more from embm-run.  A SIGINT sent
 * to embm-run alone must reach the command once.  Either way embm-run
 * exits with the command's status.
 *
 * The command is this program again, see sigcount().  Needs root,
 * CONFIG_EMBM and embm-run on PATH; skips otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "embm_util.h"

#define SIGCOUNT_ENV	"EMBM_SIGCOUNT"
#define SIGCOUNT_STATUS	42

static int sigcount_fd = -1;

static void sigcount_on_int(int sig)
{
	if (write(sigcount_fd, "i", 1) != 1)
		_exit(1);
}

/*
 * The command: this program with EMBM_SIGCOUNT="OUT IN" in its
 * environment, before main().  It writes 'r' to fd OUT when it is ready
 * and 'i' for each SIGINT, and exits with SIGCOUNT_STATUS at EOF on fd IN.
 */
__attribute__((constructor)) static void sigcount(void)
{
	struct sigaction sa = { .sa_handler = sigcount_on_int };
	const char *env = getenv(SIGCOUNT_ENV);
	ssize_t n;
	char c;
	int in;

	if (!env || sscanf(env, "%d %d", &sigcount_fd, &in) != 2)
		return;
	if (sigaction(SIGINT, &sa, NULL) || write(sigcount_fd, "r", 1) != 1)
		_exit(1);
	do {
		n = read(in, &c, 1);
	} while (n > 0 || (n < 0 && errno == EINTR));
	_exit(n ? 1 : SIGCOUNT_STATUS);
}

static bool on_path(const char *prog)
{
	char path[PATH_MAX], *dirs, *dir, *save;
	bool found = false;

	dirs = strdup(getenv("PATH") ?: "/bin:/usr/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, prog);
		found = !access(path, X_OK);
	}
	free(dirs);
	return found;
}

/* The next byte from @fd, or -1 at EOF or after @ms milliseconds. */
static int next_byte(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned char c;

	if (poll(&p, 1, ms) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return c;
}

/* Whether @sig is pending for process @pid, per /proc/PID/status; -1 on error. */
static int pending(pid_t pid, int sig)
{
	unsigned long long mask;
	char path[64], line[256];
	int ret = 0, seen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SigPnd: %llx", &mask) == 1 ||
		    sscanf(line, "ShdPnd: %llx", &mask) == 1) {
			seen++;
			if (mask & (1ULL << (sig - 1)))
				ret = 1;
		}
	}
	fclose(f);
	return seen == 2 ? ret : -1;
}

struct run {
	char exe[PATH_MAX];	/* this program: the command */
	char pts[32];		/* our own devpts mount, or "" */
	int master, slave;	/* the pseudo-terminal */
	pid_t pid;		/* embm-run, or 0 */
	int out, in;		/* from the command, to the command */
	int sigints;		/* SIGINTs the command reported */
};

/*
 * A pseudo-terminal master.  Where /dev/pts has no devpts (the embm guest
 * mounts none), a devpts instance of our own, mounted in a mount namespace
 * of this test's own.
 */
static int open_master(char *dir, size_t size)
{
	char path[64];
	int fd;

	fd = posix_openpt(O_RDWR | O_NOCTTY);
	if (fd >= 0)
		return fd;
	snprintf(dir, size, "/tmp/embm-pts.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		return -1;
	}
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("devpts", dir, "devpts", 0, "newinstance,ptmxmode=0666"))
		return -1;
	snprintf(path, sizeof(path), "%s/ptmx", dir);
	return open(path, O_RDWR | O_NOCTTY);
}

/*
 * Start embm-run on the command as the leader of a new session with the
 * pseudo-terminal as controlling terminal and its process group, which
 * the command shares, in the foreground: as a shell runs it.  Returns
 * when the command is ready.
 */
static void start_run(struct __test_metadata *_metadata, struct run *r)
{
	int out[2], in[2];
	char env[32];

	ASSERT_EQ(0, pipe(out));
	ASSERT_EQ(0, pipe(in));
	r->pid = fork();
	ASSERT_LE(0, r->pid);
	if (r->pid == 0) {
		close(r->master);
		close(out[0]);
		close(in[1]);
		if (setsid() < 0 || ioctl(r->slave, TIOCSCTTY, 0) ||
		    dup2(r->slave, STDIN_FILENO) < 0 || tcsetpgrp(STDIN_FILENO, getpid()))
			_exit(126);
		snprintf(env, sizeof(env), "%d %d", out[1], in[0]);
		setenv(SIGCOUNT_ENV, env, 1);
		execlp("embm-run", "embm-run", "-o", "/dev/null", "--", r->exe, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	r->out = out[0];
	r->in = in[1];
	ASSERT_EQ('r', next_byte(r->out, 20000)) TH_LOG("the command is not ready");
}

/* Wait for the command to report a SIGINT. */
static void wait_sigint(struct __test_metadata *_metadata, struct run *r)
{
	ASSERT_EQ('i', next_byte(r->out, 20000)) TH_LOG("no SIGINT reached the command");
	r->sigints++;
}

/* Give a second SIGINT time to arrive, let the command exit, count. */
static void finish(struct __test_metadata *_metadata, struct run *r, int *status)
{
	int c;

	sleep_ms(500);
	close(r->in);
	r->in = -1;
	ASSERT_EQ(r->pid, waitpid(r->pid, status, 0));
	r->pid = 0;
	/* Both have exited: EOF after the last byte. */
	while ((c = next_byte(r->out, 0)) >= 0) {
		ASSERT_EQ('i', c);
		r->sigints++;
	}
}

FIXTURE(run) {
	struct run r;
};

FIXTURE_SETUP(run)
{
	struct run *r = &self->r;
	ssize_t n;

	r->master = -1;
	r->slave = -1;
	r->out = -1;
	r->in = -1;
	if (embm_end(EMBM_PID_SYSTEM) && errno == ENOSYS)
		SKIP(return, "embm syscalls not available (CONFIG_EMBM=n)");
	if (geteuid() != 0)
		SKIP(return, "needs root");
	if (!on_path("embm-run"))
		SKIP(return, "no embm-run on PATH");
	n = readlink("/proc/self/exe", r->exe, sizeof(r->exe) - 1);
	ASSERT_LT(0, n);
	r->exe[n] = 0;

	r->master = open_master(r->pts, sizeof(r->pts));
	ASSERT_LE(0, r->master) TH_LOG("no pseudo-terminal: %m");
	ASSERT_EQ(0, unlockpt(r->master));
	r->slave = ioctl(r->master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
	ASSERT_LE(0, r->slave) TH_LOG("TIOCGPTPEER: %m");
}

FIXTURE_TEARDOWN(run)
{
	struct run *r = &self->r;

	/* EOF lets the command, then embm-run, exit. */
	if (r->in >= 0)
		close(r->in);
	if (r->pid > 0) {
		kill(r->pid, SIGCONT);
		waitpid(r->pid, NULL, 0);
	}
	if (r->out >= 0)
		close(r->out);
	if (r->slave >= 0)
		close(r->slave);
	if (r->master >= 0)
		close(r->master);
	if (r->pts[0]) {
		umount2(r->pts, MNT_DETACH);
		rmdir(r->pts);
	}
}

/* Ctrl-C: the terminal sends SIGINT to embm-run and the command. */
TEST_F_TIMEOUT(run, ctrl_c_reaches_the_command_once, 90)
{
	struct run *r = &self->r;
	struct termios t;
	int status, i;

	ASSERT_EQ(0, tcgetattr(r->slave, &t));
	ASSERT_TRUE(t.c_lflag & ISIG);
	start_run(_metadata, r);
	/*
	 * Keep embm-run stopped until the command has taken its SIGINT: a
	 * second one sent while the first is still pending would merge with
	 * it and go unseen.
	 */
	ASSERT_EQ(0, kill(r->pid, SIGSTOP));
	ASSERT_EQ(r->pid, waitpid(r->pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(1, write(r->master, &t.c_cc[VINTR], 1));
	wait_sigint(_metadata, r);
	ASSERT_EQ(0, kill(r->pid, SIGCONT));
	/* Until embm-run has taken its own. */
	for (i = 0; i < 2000 && pending(r->pid, SIGINT) == 1; i++)
		sleep_ms(10);
	ASSERT_EQ(0, pending(r->pid, SIGINT));

	finish(_metadata, r, &status);
	EXPECT_EQ(1, r->sigints);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(SIGCOUNT_STATUS, WEXITSTATUS(status));
}

/* kill(): only embm-run gets SIGINT, and passes it on. */
TEST_F_TIMEOUT(run, kill_reaches_the_command_once, 90)
{
	struct run *r = &self->r;
	int status;

	start_run(_metadata, r);
	ASSERT_EQ(0, kill(r->pid, SIGINT));
	wait_sigint(_metadata, r);

	finish(_metadata, r, &status);
	EXPECT_EQ(1, r->sigints);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(SIGCOUNT_STATUS, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
