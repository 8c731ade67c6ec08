// SPDX-License-Identifier: GPL-2.0
/*
 * embm-run: run a command under embm and print where its memory accesses
 * went, per node and tier
 *
 *   embm-run [options] -- cmd [args]
 *   embm-run --pid P [--duration S]
 *   embm-run --system [--duration S] [-- cmd [args]]
 *
 * For a command, sampling is on before its first instruction: the child
 * waits until embm_start(child, node) succeeded, then execs.  Signals are
 * passed on through a pidfd, which cannot reach another process once the
 * child has been reaped and its pid reused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/embm.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "opts.h"
#include "report.h"
#include "uncore.h"

static const char *proc_dir = EMBM_PROC_DIR;
static sig_atomic_t got_signal;	/* __atomic_*_n(): set by on_signal() */
static int child_pidfd = -1;	/* the command, for signals */

static const struct embm_tool_opt run_opts[] = {
	{ "node", required_argument, 'n', "N",
	  "node under study (usually the CXL node): shown first" },
	{ "system", no_argument, 's', NULL,
	  "every process, while cmd runs or for --duration" },
	{ "pid", required_argument, 'p', "P",
	  "a running process, until Ctrl-C, --duration or its exit" },
	{ "cgroup", required_argument, 'c', "DIR",
	  "the tasks of a cgroup v2 directory (a command is put into it)" },
	{ }
};

static int run_opt(int opt, const char *arg, void *data);

static const struct embm_tool tool = {
	.name = "embm-run",
	.usage =
		"usage: embm-run [options] -- cmd [args]\n"
		"       embm-run [options] --pid P\n"
		"       embm-run [options] --system [-- cmd [args]]\n"
		"       embm-run [options] --cgroup DIR [-- cmd [args]]\n"
		"\n"
		"Samples where the memory accesses of a command (or a running process, or\n"
		"the whole system) go, and prints them per NUMA node and tier.\n",
	.opts = run_opts,
	.shared = EMBM_OPT(DURATION) | EMBM_OPT(SOURCE) | EMBM_OPT(PERIOD) |
		  EMBM_OPT(INTERVAL) | EMBM_OPT(TOP) | EMBM_OPT(JSON) | EMBM_OPT(OUTPUT),
	.help = {
		[EMBM_OPT_DURATION] = "stop after S seconds (--pid, --system, --cgroup)",
		[EMBM_OPT_INTERVAL] = "print a snapshot every S seconds while running",
	},
	.notes =
		"With a command, SIGINT and SIGTERM sent to embm-run alone (kill PID) are\n"
		"passed on to it once; those the terminal sends to its whole foreground\n"
		"process group (Ctrl-C) reach the command by themselves and are not sent\n"
		"again.\n"
		"\n"
		"Exits with the command's status (128 + signal if it was killed), or 1 when\n"
		"embm could not sample, 2 for bad usage; the reason is printed.\n",
	.stop_at_operand = true,
	.parse = run_opt,
};

/* After fatal()'s message: stop the command, if there is one, and exit. */
static void die(void)
{
	if (child_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, child_pidfd, SIGKILL, NULL, 0);
	exit(1);
}

/* @fmt is a string literal, checked by the compiler as fprintf()'s is. */
#define fatal(fmt, ...)							\
	do {								\
		fprintf(stderr, "embm-run: " fmt "\n", ##__VA_ARGS__);	\
		die();							\
	} while (0)

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	__atomic_store_n(&got_signal, sig, __ATOMIC_RELAXED);
	/*
	 * Forward to the command, which decides whether to stop; but not
	 * what the kernel sent (SI_KERNEL): the terminal's Ctrl-C goes to
	 * its whole foreground process group, the command's too.
	 */
	if (child_pidfd >= 0 && si->si_code != SI_KERNEL)
		syscall(SYS_pidfd_send_signal, child_pidfd, sig, NULL, 0);
}

/* Write a knob, returning its old value in @old (for restoring). */
static int set_knob(const char *knob, const char *val, char *old, size_t size)
{
	char path[256], line[256], *s, *e;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/sys/kernel/mm/embm/%s", knob);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	line[strcspn(line, "\n")] = 0;
	s = strchr(line, '[');
	e = s ? strchr(++s, ']') : NULL;
	if (e)
		*e = 0;
	else
		s = line;
	snprintf(old, size, "%s", s);

	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fputs(val, f) < 0)
		err = -1;
	if (fclose(f))
		err = -1;
	return err;
}

struct knob {
	const char *name;
	const char *val;
	char old[64];
	bool set;
};

static void knobs_set(struct knob *k, int n)
{
	for (int i = 0; i < n; i++) {
		if (!k[i].val)
			continue;
		if (set_knob(k[i].name, k[i].val, k[i].old, sizeof(k[i].old)))
			fatal("cannot set /sys/kernel/mm/embm/%s to '%s': %m", k[i].name, k[i].val);
		k[i].set = true;
	}
}

/* Sessions copy the knobs when they start: put them back right after. */
static void knobs_restore(struct knob *k, int n)
{
	char dummy[64];

	for (int i = 0; i < n; i++) {
		if (k[i].set)
			set_knob(k[i].name, k[i].old, dummy, sizeof(dummy));
		k[i].set = false;
	}
}

static void start_or_die(pid_t pid, int node, unsigned int flags, const char *who)
{
	struct embm_report r;
	int err;

	if (!syscall(__NR_embm_start, pid, node, flags))
		return;
	err = errno;
	/* The numbers belong to other calls on kernels without embm. */
	if (access(proc_dir, F_OK))
		fatal("cannot sample %s: this kernel has no embm (no %s)", who, proc_dir);
	if (err == EBUSY && !embm_report_read(&r, proc_dir)) {
		embm_report_free(&r);
		fatal("cannot sample %s: %s (for target %d, see %s/status)", who,
		      embm_strerror_start(err), r.target, proc_dir);
	}
	fatal("cannot sample %s: %s", who, embm_strerror_start(err));
}

/* Put @pid into the cgroup of directory @dir, before it runs the command. */
static void join_cgroup(const char *dir, pid_t pid)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", pid) < 0 || fclose(f))
		fatal("cannot move the command into %s: %m", dir);
}

/*
 * The uncore bandwidth of the session: counted beside the samples, from
 * right before the command may exec (or the session's start) to right
 * after it exited (or the session's end), before embm_end().
 */
static struct embm_unc_session uncore;
static struct embm_unc_result uncore_result;

static void uncore_start(bool enable)
{
	if (!embm_unc_open(&uncore, &embm_unc_system) && enable)
		embm_unc_enable(&uncore);
}

static void uncore_final(void)
{
	embm_unc_read(&uncore, &uncore_result, false);
	embm_unc_close(&uncore);
}

static void uncore_json(FILE *f, void *arg)
{
	(void)arg;
	embm_unc_report(f, &uncore, &uncore_result, true);
}

/*
 * The report, with the uncore figures: an interim one's since the last
 * report, the final one's those uncore_final() read.
 */
static void report(FILE *out, const char *what, bool json, unsigned int top, bool final)
{
	struct embm_report r;

	if (!final)
		embm_unc_read(&uncore, &uncore_result, true);
	if (embm_report_read(&r, proc_dir)) {
		fprintf(stderr, "embm-run: cannot read %s: %m\n", proc_dir);
		return;
	}
	if (json) {
		embm_report_json(out, &r, "embm-run", what, top, uncore_json, NULL);
	} else {
		embm_report_print(out, &r, what, top);
		embm_unc_report(out, &uncore, &uncore_result, false);
	}
	embm_report_free(&r);
	fflush(out);
}

static bool session_running(void)
{
	struct embm_report r;
	bool running;

	if (embm_report_read(&r, proc_dir))
		return false;
	running = !strcmp(r.state, "running");
	embm_report_free(&r);
	return running;
}

/* Wait for @pidfd (or, with -1, a signal, the deadline or the session's end). */
static int wait_loop(int pidfd, double duration, double interval, FILE *out,
		     const char *what, bool json, unsigned int top)
{
	struct timespec t0, now;
	double next = interval, elapsed;
	int timeout;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };

		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (interval > 0 && elapsed >= next) {
			report(out, what, json, top, false);
			next += interval;
		}
		if (duration > 0 && elapsed >= duration)
			return 0;
		if (pidfd < 0 && (__atomic_load_n(&got_signal, __ATOMIC_RELAXED) ||
				  !session_running()))
			return 0;
		timeout = 200;
		if (pidfd >= 0) {
			if (poll(&p, 1, timeout) > 0)
				return 1;
		} else {
			struct timespec ts = { 0, timeout * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
}

/* What embm-run's own options choose. */
struct run_args {
	int node;
	bool system_wide;
	pid_t pid;
	const char *cgroup;
};

static int run_opt(int opt, const char *arg, void *data)
{
	struct run_args *a = data;

	switch (opt) {
	case 'n':
		a->node = embm_opts_num(&tool, "--node", arg, -1, 1000000000);
		return 0;
	case 's':
		a->system_wide = true;
		return 0;
	case 'p':
		a->pid = embm_opts_num(&tool, "--pid", arg, 1, 1000000000);
		return 0;
	case 'c':
		a->cgroup = arg;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct embm_opts o = { .top = 10, .dir = EMBM_PROC_DIR };
	struct run_args a = { .node = EMBM_NODE_NONE };
	struct knob knobs[] = { { .name = "source" }, { .name = "period" } };
	int node, go[2], status = 0, rc = 0, pidfd;
	double duration, interval;
	unsigned int top;
	bool json, system_wide;
	pid_t pid, target, child;
	const char *cgroup;
	unsigned int flags = 0;
	int cgfd = -1;
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	char what[512] = "";
	FILE *out;

	embm_opts_parse(&tool, &o, argc, argv, &a);
	node = a.node;
	system_wide = a.system_wide;
	pid = a.pid;
	cgroup = a.cgroup;
	duration = o.duration;
	interval = o.interval;
	top = o.top;
	json = o.json;
	knobs[0].val = o.source;
	knobs[1].val = o.period;
	argv += optind;
	argc -= optind;
	if ((pid && (system_wide || argc || cgroup)) || (cgroup && system_wide) ||
	    (!pid && !system_wide && !cgroup && !argc)) {
		embm_opts_usage(&tool, stderr);
		return 2;
	}
	if (cgroup) {
		cgfd = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgfd < 0)
			fatal("cannot open cgroup %s: %m", cgroup);
		flags = EMBM_FLAG_CGROUP;
	}
	out = embm_opts_output(&tool, &o);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!argc) {
		/* An existing process, a cgroup or the system, until told to stop. */
		target = cgroup ? cgfd : system_wide ? EMBM_PID_SYSTEM : pid;
		if (cgroup)
			snprintf(what, sizeof(what), "cgroup %s", cgroup);
		else
			snprintf(what, sizeof(what),
				 system_wide ? "system-wide" : "process %d", pid);
		knobs_set(knobs, 2);
		start_or_die(target, node, flags, what);
		knobs_restore(knobs, 2);
		uncore_start(true);
		wait_loop(-1, duration, interval, out, what, json, top);
		uncore_final();
		if (syscall(__NR_embm_end, target, flags) && errno != ENOENT)
			fprintf(stderr, "embm-run: embm_end: %m\n");
		report(out, what, json, top, true);
		return 0;
	}

	for (int i = 0; i < argc; i++)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
			 i ? " " : "", argv[i]);
	if (pipe(go))
		fatal("pipe: %m");
	child = fork();
	if (child < 0)
		fatal("fork: %m");
	if (child == 0) {
		char c;

		close(go[1]);
		/* EOF instead of a byte: the parent could not start sampling. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		close(go[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "embm-run: cannot run %s: %m\n", argv[0]);
		_exit(127);
	}
	close(go[0]);
	if (cgroup)
		join_cgroup(cgroup, child);
	target = cgroup ? cgfd : system_wide ? EMBM_PID_SYSTEM : child;
	knobs_set(knobs, 2);
	start_or_die(target, node, flags, cgroup ? cgroup : system_wide ? "the system" : what);
	knobs_restore(knobs, 2);
	uncore_start(false);
	/* The child waits for go[] and cannot have been reaped yet. */
	pidfd = syscall(SYS_pidfd_open, child, 0);
	if (pidfd < 0)
		fatal("pidfd_open: %m");
	child_pidfd = pidfd;
	embm_unc_enable(&uncore);
	if (write(go[1], "g", 1) != 1)
		fatal("cannot start the command: %m");
	close(go[1]);

	wait_loop(pidfd, 0, interval, out, what, json, top);
	uncore_final();
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			fatal("waitpid: %m");
	}
	/* After its exit the session has ended by itself; this collects it. */
	if (syscall(__NR_embm_end, target, flags) && errno != ENOENT)
		fprintf(stderr, "embm-run: embm_end: %m\n");
	report(out, what, json, top, true);
	if (out != stdout)
		fclose(out);

	if (WIFEXITED(status))
		rc = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		rc = 128 + WTERMSIG(status);
	return rc;
}
