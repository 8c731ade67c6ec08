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
 * waits until embm_start(child, node) succeeded, then execs, and tells
 * the parent through a close-on-exec pipe if the exec failed.  Signals are
 * passed on through a pidfd, which cannot reach another process once the
 * child has been reaped and its pid reused.
 *
 * The knobs -S and -P write stay for the whole session (period and
 * store_period written while a session runs apply to it) and are put
 * back when embm-run exits, after embm_end(), however it exits: the end
 * of the command or of --duration, fatal(), or a signal that ends it.
 * Not after SIGKILL, which no process can catch: then the knobs keep
 * embm-run's values (and the session ends as its starter exits).
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

#include "cmdline.h"
#include "errors.h"
#include "plot.h"
#include "report.h"
#include "residency.h"
#include "ticks.h"
#include "uncore.h"
#include "vmstat.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const char *prog_name = "embm-run";
static const char *proc_dir = EMBM_PROC_DIR;
static sig_atomic_t got_signal;	/* __atomic_*_n(): set by on_signal() */
static int child_pidfd = -1;	/* the command, for signals */
static bool per_task;		/* --per-task: the per-task table in the reports */

/* The session embm-run started, which any way out ends: session_end(). */
static struct {
	bool on;
	pid_t target;
	unsigned int flags;
} session;

/* A knob -S or -P sets; @old is put back at exit. */
struct knob {
	const char *name;
	const char *val;	/* or NULL: not set */
	char old[64];
	bool set;		/* written, not yet put back */
};

static struct knob knobs[] = { { .name = "source" }, { .name = "period" } };

/* End the session embm-run started, if it still runs; once. */
static void session_end(void)
{
	if (!session.on)
		return;
	session.on = false;
	/* A command's session has ended with the command: this collects it. */
	if (syscall(__NR_embm_end, session.target, session.flags) && errno != ENOENT)
		fprintf(stderr, "embm-run: embm_end: %m\n");
}

/* After fatal()'s message: stop the command and the session, and exit. */
static void die(void)
{
	if (child_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, child_pidfd, SIGKILL, NULL, 0);
	session_end();
	exit(1);	/* knobs_restore(), by atexit() */
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
	 * its whole foreground process group, the command's too.  SIGPIPE
	 * is about embm-run's own output: writes fail with EPIPE instead.
	 */
	if (child_pidfd >= 0 && si->si_code != SI_KERNEL && sig != SIGPIPE)
		syscall(SYS_pidfd_send_signal, child_pidfd, sig, NULL, 0);
}

/*
 * The signals that end embm-run, or with a command are passed on: caught,
 * so that embm-run ends the session and puts the knobs back.  The handlers
 * fall back to the defaults in the command when it execs.
 */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Write a knob, returning its old value in @old (for restoring). */
static int set_knob(const char *knob, const char *val, char *old, size_t size)
{
	char path[256], line[256];
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
	snprintf(old, size, "%s", embm_knob_choice(line));

	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fputs(val, f) < 0)
		err = -1;
	if (fclose(f))
		err = -1;
	return err;
}

/*
 * Put the knobs back; at exit (atexit()), and again harmlessly.  After
 * embm_end(): period and store_period would apply to a running session.
 */
static void knobs_restore(void)
{
	struct knob *k;
	char dummy[64];

	for (k = knobs; k < knobs + ARRAY_SIZE(knobs); k++) {
		if (!k->set)
			continue;
		k->set = false;
		if (set_knob(k->name, k->old, dummy, sizeof(dummy)))
			fprintf(stderr,
				"embm-run: cannot put /sys/kernel/mm/embm/%s back to '%s': %m\n",
				k->name, k->old);
	}
}

/* The knobs asked for, "source pebs, period 8", into @buf; NULL if none. */
static const char *knobs_wanted(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		if (knobs[i].val)
			len += snprintf(buf + len, size - len, "%s%s %s", len ? ", " : "",
					knobs[i].name, knobs[i].val);
		if (len >= size)
			break;
	}
	return buf[0] ? buf : NULL;
}

/*
 * Write the knobs asked for, for the session about to start on @who.
 * Not while another session runs: it would take period and store_period
 * as its own.
 */
static void knobs_set(const char *who)
{
	char msg[EMBM_EXPLAIN_SIZE];
	struct knob *k;

	if (!knobs_wanted(msg, sizeof(msg)))
		return;
	/*
	 * This races with a session started elsewhere between the check and
	 * embm_start(): the kernel's EBUSY still decides, and the knobs are
	 * put back at once then, but that session may have run with them
	 * for that while.
	 */
	if (embm_explain_busy("", msg, sizeof(msg)))
		fatal("cannot sample %s: %s", who, msg);
	atexit(knobs_restore);
	for (k = knobs; k < knobs + ARRAY_SIZE(knobs); k++) {
		if (!k->val)
			continue;
		if (set_knob(k->name, k->val, k->old, sizeof(k->old)))
			fatal("cannot set /sys/kernel/mm/embm/%s to '%s': %m", k->name, k->val);
		k->set = true;
	}
}

/* Start the session of @q on @target, or say why not and exit. */
static void start_or_die(pid_t target, unsigned int flags, const struct embm_start_req *q,
			 const char *who)
{
	char msg[EMBM_EXPLAIN_SIZE];
	int err;

	if (!syscall(__NR_embm_start, target, q->node, flags)) {
		session.on = true;
		session.target = target;
		session.flags = flags;
		return;
	}
	err = errno;
	/* The numbers belong to other calls on kernels without embm. */
	if (access(proc_dir, F_OK))
		fatal("cannot sample %s: this kernel has no embm (no %s)", who, proc_dir);
	fatal("cannot sample %s: %s", who, embm_explain_start(err, q, msg, sizeof(msg)));
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

/*
 * The kernel's tiering counters (promotions, demotions, NUMA balancing,
 * migrations, per node): snapshot right before embm_start() (and so
 * before the command may exec) and right after the command exited or
 * the sampling stopped, before embm_end().
 */
static struct embm_vmstat vmstat_start, vmstat_end;

static void vmstat_final(void)
{
	embm_vmstat_read(&vmstat_end, "");
}

/*
 * The target's resident pages per node (residency.c), read while it
 * lives: a command's at each reading until it exits (its memory is gone
 * before its parent can see it exited), a --pid's or a cgroup's also at
 * the end.  The last reading before a command exits is the one shown, so
 * they come often: every RESIDENCY_MIN seconds, but each reading walks
 * the target's page tables under its mmap lock, so no more often than
 * keeps that to 1/RESIDENCY_COST of the time (a process of 100 GiB, read
 * in about 0.1 s, every 5 s).  A system-wide session has none: pages
 * belong to processes.
 */
#define RESIDENCY_MIN	0.2
#define RESIDENCY_COST	50

static struct embm_residency residency;
static struct {
	pid_t pid;		/* a process: the command or --pid */
	const char *cgroup;	/* or the processes of a cgroup */
} res_target;
static struct timespec session_t0;	/* the session's start, for the readings' time */

static unsigned long long session_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - session_t0.tv_sec) * 1000ULL +
	       (now.tv_nsec - session_t0.tv_nsec) / 1000000;
}

/* Read the resident pages; the seconds until the next reading. */
static double residency_read(void)
{
	unsigned long long t0 = session_ms();
	int err;

	if (res_target.cgroup)
		err = embm_residency_read_cgroup(&residency, res_target.cgroup, "");
	else if (res_target.pid > 0)
		err = embm_residency_read_pid(&residency, res_target.pid, "");
	else
		return 1e9;
	if (!err)
		residency.elapsed_ms = session_ms();
	return (session_ms() - t0) * RESIDENCY_COST / 1000.0 + RESIDENCY_MIN;
}

/* The members embm-run adds to the JSON report: bandwidth, vmstat, residency. */
static void more_json(FILE *f, void *arg)
{
	embm_unc_report(f, &uncore, &uncore_result, true);
	embm_vmstat_json(f, &vmstat_start, arg);
	embm_residency_json(f, &residency);
}

/* What the options choose. */
struct run_args {
	int node;
	bool system_wide;
	pid_t pid;
	const char *cgroup;
	int cgfd;		/* @cgroup, open */
	double duration, interval;	/* seconds, >= 0 */
	bool duration_given;
	bool cumulative;	/* the ticks give the totals since the start */
	unsigned int top;
	bool json;
	const char *output;	/* or NULL: stdout */
	const char *plot;	/* --plot FILE.png, or NULL */
};

/*
 * The ticks (ticks.c): with --interval a line (or a JSON line) each, what
 * the session counted since the last; with --plot gathered for the
 * picture, every PLOT_TICK seconds without --interval.
 */
#define PLOT_TICK	1.0

static struct embm_tick_base tick_base;
static struct embm_plot plot;
static bool plotting;

static void plot_cleanup(void)
{
	embm_plot_abort(&plot);
}

/* The tick that ends with report @r: printed with --interval, kept with --plot. */
static void tick(FILE *out, const struct run_args *a, const struct embm_report *r, bool end)
{
	struct embm_tick k;

	if (embm_tick_take(&tick_base, r, a->cumulative, end, &k))
		fatal("out of memory");
	if (a->interval > 0) {
		if (a->json)
			embm_tick_json(out, &k);
		else
			embm_tick_print(out, &k);
		fflush(out);
	}
	if (plotting && embm_plot_add(&plot, &k, r))
		fatal("out of memory");
	embm_tick_free(&k);
}

/* A tick of the running session. */
static void tick_now(FILE *out, const struct run_args *a)
{
	struct embm_report r;

	if (embm_report_read(&r, proc_dir)) {
		fprintf(stderr, "embm-run: cannot read %s: %m\n", proc_dir);
		return;
	}
	tick(out, a, &r, false);
	embm_report_free(&r);
}

/*
 * The JSON report on one line, for JSON Lines (-j -i): written into
 * memory, its newlines dropped.  They stand only between members and
 * elements (embm_json_str() escapes those of strings), so the object is
 * the same.
 */
static void json_one_line(FILE *out, const struct embm_report *r, const char *what,
			  unsigned int top)
{
	char *buf = NULL;
	size_t len = 0, i, j;
	FILE *m;

	m = open_memstream(&buf, &len);
	if (!m)
		fatal("open_memstream: %m");
	embm_report_json(m, r, "embm-run", what, top, more_json, &vmstat_end);
	if (fclose(m))
		fatal("open_memstream: %m");
	for (i = j = 0; i < len; i++)
		if (buf[i] != '\n')
			buf[j++] = buf[i];
	fwrite(buf, 1, j, out);
	fputc('\n', out);
	free(buf);
}

/*
 * The final report, with the uncore figures, the tiering counters
 * uncore_final() and vmstat_final() read, and the resident pages; after
 * the last tick, taken from the same read so that the ticks add up to
 * the report's totals.  Then the picture.  Returns 0, or 1 when the
 * picture could not be drawn.
 */
static int report(FILE *out, const struct run_args *a, const char *what)
{
	struct embm_report r;
	char why[512];
	int err = 0;

	if (embm_report_read(&r, proc_dir)) {
		fprintf(stderr, "embm-run: cannot read %s: %m\n", proc_dir);
		return 1;
	}
	r.per_task = per_task;
	if (a->interval > 0 || plotting)
		tick(out, a, &r, true);
	if (a->json && a->interval > 0) {
		json_one_line(out, &r, what, a->top);
	} else if (a->json) {
		embm_report_json(out, &r, "embm-run", what, a->top, more_json, &vmstat_end);
	} else {
		embm_report_print(out, &r, what, a->top);
		embm_residency_print(out, &residency, &r);
		embm_unc_report(out, &uncore, &uncore_result, false);
		embm_vmstat_print(out, &vmstat_start, &vmstat_end);
	}
	fflush(out);
	if (plotting && embm_plot_write(&plot, &r, proc_dir, what, why, sizeof(why))) {
		fprintf(stderr, "embm-run: --plot: %s\n", why);
		err = 1;
	}
	embm_report_free(&r);
	return err;
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

/*
 * Wait for @pidfd (or, with -1, a signal, the deadline or the session's
 * end), taking the ticks and reading the resident pages meanwhile.
 */
static int wait_loop(int pidfd, double duration, FILE *out, const struct run_args *a)
{
	double every = a->interval > 0 ? a->interval : plotting ? PLOT_TICK : 0;
	double next = every, res_next = RESIDENCY_MIN, elapsed;
	struct timespec t0, now;
	int timeout;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = pidfd, .events = POLLIN };

		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9;
		if (elapsed >= res_next)
			res_next = elapsed + residency_read();
		if (every > 0 && elapsed >= next) {
			tick_now(out, a);
			next += every;
		}
		if (duration > 0 && elapsed >= duration)
			return 0;
		if (pidfd < 0 && (__atomic_load_n(&got_signal, __ATOMIC_RELAXED) ||
				  !session_running()))
			return 0;
		/* Up to the next tick or reading, or 200 ms: a check of the session. */
		timeout = 200;
		if (every > 0 && (next - elapsed) * 1000 < timeout)
			timeout = (next - elapsed) * 1000 + 1;
		if ((res_next - elapsed) * 1000 < timeout)
			timeout = (res_next - elapsed) * 1000 + 1;
		if (timeout < 0)	/* behind: a tick or reading took long */
			timeout = 0;
		if (pidfd >= 0) {
			if (poll(&p, 1, timeout) > 0)
				return 1;
		} else {
			struct timespec ts = { 0, timeout * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: embm-run [options] -- cmd [args]\n"
		"       embm-run [options] --pid P\n"
		"       embm-run [options] --system [-- cmd [args]]\n"
		"       embm-run [options] --cgroup DIR [-- cmd [args]]\n"
		"\n"
		"Samples where the memory accesses of a command (or a running process, or\n"
		"the whole system) go, and prints them per NUMA node and tier.\n"
		"\n"
		"  -n, --node N       node under study (usually the CXL node): shown first\n"
		"  -s, --system       every process, while cmd runs or for --duration\n"
		"  -p, --pid P        a running process, until Ctrl-C, --duration or its exit\n"
		"  -c, --cgroup DIR   the tasks of a cgroup v2 directory (a command is put into it)\n"
		"  -d, --duration S   stop after S seconds (--pid, --system, --cgroup)\n"
		"  -S, --source NAME  auto, pebs, ibs, emu, emu-ring or swfault for this session\n"
		"  -P, --period N     sample period for this session (0: the source's)\n"
		"  -i, --interval S   a line every S seconds: what the tick sampled (-j: a\n"
		"                     JSON object a line, the final report as the last)\n"
		"  -C, --cumulative   the ticks' lines give the totals since the start\n"
		"      --plot FILE    draw the shares over time and the latency per tier\n"
		"                     into FILE (PNG, with gnuplot), the figures into\n"
		"                     FILE's .dat; a tick every second without -i\n"
		"  -t, --top N        hot pages (and tasks) to show (default 10)\n"
		"  -T, --per-task     the tasks, by estimated accesses, and their nodes\n"
		"  -j, --json         print the report as JSON\n"
		"  -o, --output FILE  write the report to FILE, not stdout\n"
		"  -h, --help         this text\n"
		"\n"
		"With a command, SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to embm-run alone\n"
		"(kill PID) are passed on to it once; those the terminal sends to its whole\n"
		"foreground process group (Ctrl-C) reach the command by themselves and are\n"
		"not sent again.  Without a command they, and SIGPIPE, end the sampling.\n"
		"\n"
		"The report ends with the kernel's tiering counters that moved from right\n"
		"before the session to right after it, system-wide (other processes' too):\n"
		"/proc/vmstat's pgpromote_*, pgdemote_*, numa_*, pgmigrate_*, thp_migration_*,\n"
		"and per node numa_*, pgpromote_*, pgdemote_*, nr_free_pages, nr_anon_pages\n"
		"and nr_file_pages (-j: \"vmstat\", every one of them, zero or not).\n"
		"\n"
		"Beside the shares, the target's resident pages per node, anonymous and\n"
		"file (mapped page cache), from /proc/PID/numa_maps (a cgroup's processes\n"
		"summed; none system-wide): read while it runs (every 0.2 s, less often\n"
		"when a reading takes over 4 ms) and at the end for --pid and --cgroup; a\n"
		"command's last reading is from before it exited (-j: \"residency\").\n"
		"\n"
		"--source and --period stay set while the session runs and are put back\n"
		"when embm-run exits, whatever the way (not when it is killed with SIGKILL).\n"
		"\n"
		"Exits with the command's status (128 + signal if it was killed), 127 when\n"
		"the command is not found, 126 when it cannot be run, 1 when embm could not\n"
		"sample, 2 for bad usage; the reason is printed.\n"
		"\n");
	fputs(embm_report_legend, f);
}

enum { OPT_PLOT = 256 };	/* long options without a letter */

static const struct option opts[] = {
	{ "node",	required_argument,	NULL, 'n' },
	{ "system",	no_argument,		NULL, 's' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "cgroup",	required_argument,	NULL, 'c' },
	{ "duration",	required_argument,	NULL, 'd' },
	{ "source",	required_argument,	NULL, 'S' },
	{ "period",	required_argument,	NULL, 'P' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "cumulative",	no_argument,		NULL, 'C' },
	{ "plot",	required_argument,	NULL, OPT_PLOT },
	{ "top",	required_argument,	NULL, 't' },
	{ "per-task",	no_argument,		NULL, 'T' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "help",	no_argument,		NULL, 'h' },
	{ }
};

/*
 * Take the options into @a, and -S and -P into knobs[]; exit with 0 for
 * --help, with 2 for bad usage.  The first operand ends them: what
 * follows is the command's own ('+').
 */
static void parse_args(int argc, char **argv, struct run_args *a)
{
	int c;

	while ((c = getopt_long(argc, argv, "+n:sp:c:d:S:P:i:Ct:Tjo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			a->node = parse_long("--node", optarg, -1, 1000000000);
			break;
		case 's':
			a->system_wide = true;
			break;
		case 'p':
			a->pid = parse_long("--pid", optarg, 1, 1000000000);
			break;
		case 'c':
			a->cgroup = optarg;
			break;
		case 'd':
			a->duration = parse_seconds("--duration", optarg);
			a->duration_given = true;
			break;
		case 'S':
			knobs[0].val = optarg;
			break;
		case 'P':
			knobs[1].val = optarg;
			break;
		case 'i':
			a->interval = parse_seconds("--interval", optarg);
			break;
		case 'C':
			a->cumulative = true;
			break;
		case OPT_PLOT:
			a->plot = optarg;
			break;
		case 't':
			a->top = parse_long("--top", optarg, 0, 1000000000);
			break;
		case 'T':
			per_task = true;
			break;
		case 'j':
			a->json = true;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			see_help();
		}
	}
}

/* One target, and only one: or say what is wrong and exit with 2. */
static void check_target(const struct run_args *a, int argc)
{
	if (a->pid && argc)
		usage_error("--pid and a command cannot be combined");
	if (a->pid && a->system_wide)
		usage_error("--pid and --system cannot be combined");
	if (a->pid && a->cgroup)
		usage_error("--pid and --cgroup cannot be combined");
	if (a->cgroup && a->system_wide)
		usage_error("--cgroup and --system cannot be combined");
	if (!a->pid && !a->system_wide && !a->cgroup && !argc)
		usage_error("no target: give a command, --pid, --system or --cgroup");
	/* It used to be ignored there: the command's exit ends the session. */
	if (a->duration_given && argc)
		usage_error("--duration and a command cannot be combined: the command ends it");
	if (a->cumulative && !(a->interval > 0) && !a->plot)
		usage_error("--cumulative needs --interval S (S > 0) or --plot");
}

/* Sample a running process, a cgroup or the system until told to stop. */
static int run_attached(const struct run_args *a, const struct embm_start_req *q,
			FILE *out)
{
	unsigned int flags = a->cgroup ? EMBM_FLAG_CGROUP : 0;
	pid_t target;
	char what[512];

	target = a->cgroup ? a->cgfd : a->system_wide ? EMBM_PID_SYSTEM : a->pid;
	if (a->cgroup)
		snprintf(what, sizeof(what), "cgroup %s", a->cgroup);
	else
		snprintf(what, sizeof(what), a->system_wide ? "system-wide" : "process %d", a->pid);
	knobs_set(what);
	embm_vmstat_read(&vmstat_start, "");
	start_or_die(target, flags, q, what);
	clock_gettime(CLOCK_MONOTONIC, &session_t0);
	uncore_start(true);
	wait_loop(-1, a->duration, out, a);
	residency_read();
	uncore_final();
	vmstat_final();
	session_end();
	knobs_restore();
	return report(out, a, what);
}

/*
 * The child: wait for the go byte, then exec the command.  If the exec
 * fails, its errno goes to @ex, which a successful exec closes (O_CLOEXEC).
 */
static void child_exec(int go, int ex, char **argv)
{
	char c;
	int err;

	/* EOF instead of a byte: the parent could not start sampling. */
	if (read(go, &c, 1) != 1)
		_exit(127);
	close(go);
	execvp(argv[0], argv);
	err = errno;
	/* The parent says it, after the session's end; or here if it cannot know. */
	if (write(ex, &err, sizeof(err)) != sizeof(err))
		fprintf(stderr, "embm-run: cannot run %s: %s\n", argv[0], strerror(err));
	_exit(err == ENOENT ? 127 : 126);
}

/* 0 once the command runs: EOF on @ex; or the errno of its failed exec. */
static int exec_error(int ex)
{
	ssize_t n;
	int err;

	do
		n = read(ex, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(ex);
	return n == sizeof(err) ? err : 0;
}

/*
 * The command could not be run: no report, the session ended, the knobs
 * back; 127 if it was not found, 126 if it cannot be run, as a shell
 * (and env, nice, timeout) exits.
 */
static int exec_failed(pid_t child, const char *cmd, int err)
{
	int status;

	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	close(child_pidfd);
	child_pidfd = -1;
	embm_unc_close(&uncore);
	session_end();
	knobs_restore();
	fprintf(stderr, "embm-run: cannot run %s: %s\n", cmd, strerror(err));
	return err == ENOENT ? 127 : 126;
}

/* Run @argv under a session on it (or on its cgroup, or the system). */
static int run_command(const struct run_args *a, const struct embm_start_req *q,
		       FILE *out, char **argv, int argc)
{
	unsigned int flags = a->cgroup ? EMBM_FLAG_CGROUP : 0;
	int go[2], ex[2], status = 0, err;
	char what[512] = "";
	pid_t child, target;
	const char *who;

	for (int i = 0; i < argc; i++)
		snprintf(what + strlen(what), sizeof(what) - strlen(what), "%s%s",
			 i ? " " : "", argv[i]);
	who = a->cgroup ? a->cgroup : a->system_wide ? "the system" : what;
	knobs_set(who);
	if (pipe(go) || pipe2(ex, O_CLOEXEC))
		fatal("pipe: %m");
	child = fork();
	if (child < 0)
		fatal("fork: %m");
	if (child == 0) {
		close(go[1]);
		close(ex[0]);
		child_exec(go[0], ex[1], argv);
	}
	close(go[0]);
	close(ex[1]);
	if (a->cgroup)
		join_cgroup(a->cgroup, child);
	target = a->cgroup ? a->cgfd : a->system_wide ? EMBM_PID_SYSTEM : child;
	if (!a->cgroup && !a->system_wide)
		res_target.pid = child;
	embm_vmstat_read(&vmstat_start, "");
	start_or_die(target, flags, q, who);
	clock_gettime(CLOCK_MONOTONIC, &session_t0);
	uncore_start(false);
	/* The child waits for go[] and cannot have been reaped yet. */
	child_pidfd = syscall(SYS_pidfd_open, child, 0);
	if (child_pidfd < 0)
		fatal("pidfd_open: %m");
	embm_unc_enable(&uncore);
	if (write(go[1], "g", 1) != 1)
		fatal("cannot start the command: %m");
	close(go[1]);
	err = exec_error(ex[0]);
	if (err)
		return exec_failed(child, argv[0], err);

	wait_loop(child_pidfd, 0, out, a);
	uncore_final();
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			fatal("waitpid: %m");
	}
	vmstat_final();
	session_end();
	knobs_restore();
	err = report(out, a, what);
	if (out != stdout)
		fclose(out);

	/* The picture failed: the command's own failure says more. */
	if (err && WIFEXITED(status) && !WEXITSTATUS(status))
		return 1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

int main(int argc, char **argv)
{
	struct run_args a = { .node = EMBM_NODE_NONE, .cgfd = -1, .top = 10 };
	struct embm_start_req q = { .root = "" };
	char set[128];
	FILE *out;

	parse_args(argc, argv, &a);
	argv += optind;
	argc -= optind;
	check_target(&a, argc);
	if (a.cgroup) {
		a.cgfd = open(a.cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (a.cgfd < 0)
			fatal("cannot open cgroup %s: %m", a.cgroup);
	}
	/* Before anything runs or is written: a picture that cannot be drawn. */
	if (a.plot) {
		char why[512];

		if (embm_plot_check(&plot, a.plot, why, sizeof(why))) {
			fprintf(stderr, "embm-run: %s\n", why);
			exit(1);
		}
		plotting = true;
		atexit(plot_cleanup);
	}
	embm_ticks_init(&tick_base);
	res_target.pid = a.pid;
	res_target.cgroup = a.cgroup;
	if (a.system_wide)
		snprintf(residency.why, sizeof(residency.why),
			 "system-wide: resident pages are a process's (numa_maps)");
	else
		snprintf(residency.why, sizeof(residency.why),
			 "the target ended before its numa_maps was read (%.1f s in)",
			 RESIDENCY_MIN);
	out = open_output(a.output);
	catch_signals();

	q.pid = a.pid;
	q.cpu_wide = a.system_wide || a.cgroup;
	q.cgroup = a.cgroup;
	q.node = a.node;
	q.knobs = knobs_wanted(set, sizeof(set));
	if (!argc)
		return run_attached(&a, &q, out);
	return run_command(&a, &q, out, argv, argc);
}
