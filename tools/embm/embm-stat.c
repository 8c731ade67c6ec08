// SPDX-License-Identifier: GPL-2.0
/*
 * embm-stat: show /proc/embm, once or refreshed like top
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "prom.h"
#include "report.h"
#include "uncore.h"

const char *prog_name = "embm-stat";
static sig_atomic_t stop;	/* __atomic_*_n(): set by on_signal() */

/* What the options choose. */
struct stat_args {
	bool once;
	bool once_given;	/* -1 said, not the default off a terminal */
	long count;		/* or -1: until stopped */
	double interval;	/* seconds, > 0 */
	bool interval_given;
	unsigned int top;
	bool json;
	const char *output;	/* or NULL: stdout */
	const char *dir;	/* normally EMBM_PROC_DIR */
	const char *prom;	/* --prometheus FILE, or NULL */
	const char *shaped;	/* the last of -t, -j, -o: they shape the printed report */
};

/* The value of --prometheus, which has no short option. */
#define OPT_PROMETHEUS	0x100

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: embm-stat [options]\n"
		"\n"
		"Shows the embm session: live while it runs, its results after it ended.\n"
		"Refreshed, it also shows the uncore bandwidth and latency per socket and\n"
		"tier over each interval (or why they are unavailable).\n"
		"\n"
		"  -1, --once         print once and exit (the default when not a terminal)\n"
		"  -c, --count N      stop after N refreshes\n"
		"  -i, --interval S   refresh every S seconds (default 1)\n"
		"  -t, --top N        hot pages to show (default 10)\n"
		"  -j, --json         print JSON (implies --once unless --count is given)\n"
		"  -o, --output FILE  write the report to FILE, not stdout\n"
		"  -D, --dir DIR      read DIR instead of " EMBM_PROC_DIR "\n"
		"      --prometheus FILE\n"
		"                     write FILE in Prometheus' text format (node_exporter's\n"
		"                     textfile collector) instead of printing the report, at\n"
		"                     each refresh until stopped (or -c, or -1: once); FILE\n"
		"                     is replaced atomically: a temporary file beside it,\n"
		"                     renamed over it; not with -j, -o or -t\n"
		"  -h, --help         this text\n"
		"\n"
		"Exits with 0; 1 when " EMBM_PROC_DIR " cannot be read or FILE cannot be written\n"
		"(checked before anything is read); 2 for bad usage.\n");
}

static const struct option opts[] = {
	{ "once",	no_argument,		NULL, '1' },
	{ "count",	required_argument,	NULL, 'c' },
	{ "interval",	required_argument,	NULL, 'i' },
	{ "top",	required_argument,	NULL, 't' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "dir",	required_argument,	NULL, 'D' },
	{ "prometheus",	required_argument,	NULL, OPT_PROMETHEUS },
	{ "help",	no_argument,		NULL, 'h' },
	{ }
};

/* Take the options into @a; exit with 0 for --help, with 2 for bad usage. */
static void parse_args(int argc, char **argv, struct stat_args *a)
{
	int c;

	while ((c = getopt_long(argc, argv, "1c:i:t:jo:D:h", opts, NULL)) != -1) {
		switch (c) {
		case '1':
			a->once = true;
			a->once_given = true;
			break;
		case 'c':
			a->count = parse_long("--count", optarg, 0, 1000000000);
			a->once = false;
			break;
		case 'i':
			a->interval = parse_seconds("--interval", optarg);
			a->interval_given = true;
			break;
		case 't':
			a->top = parse_long("--top", optarg, 0, 1000000000);
			a->shaped = "--top";
			break;
		case 'j':
			a->json = true;
			a->shaped = "--json";
			break;
		case 'o':
			a->output = optarg;
			a->shaped = "--output";
			break;
		case 'D':
			a->dir = optarg;
			break;
		case OPT_PROMETHEUS:
			a->prom = optarg;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			see_help();
		}
	}
	if (optind != argc)
		usage_error("unexpected argument '%s': embm-stat takes options only", argv[optind]);
	if (a->prom && a->shaped)
		usage_error("--prometheus and %s cannot be combined: it replaces the report",
			    a->shaped);
}

/* The uncore figures of a refreshed view: over each interval. */
static struct embm_unc_session uncore;
static struct embm_unc_result uncore_result;

/* The uncore members of refresh *@arg; the first has no interval yet. */
static void uncore_json(FILE *f, void *arg)
{
	if (*(long *)arg || !uncore.model) {
		embm_unc_report(f, &uncore, &uncore_result, true);
		return;
	}
	fprintf(f, ",\n \"bandwidth\": null, \"bandwidth_unavailable\": ");
	embm_json_str(f, "the first refresh has no interval to count over");
}

static void on_signal(int sig)
{
	__atomic_store_n(&stop, sig, __ATOMIC_RELAXED);
}

/* Write the metrics file, or say why not and exit with 1. */
static void prom_write_or_die(const char *path, const struct embm_report *r)
{
	char why[4200];

	if (embm_prom_write(path, r, why, sizeof(why))) {
		fprintf(stderr, "embm-stat: --prometheus: %s\n", why);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct stat_args a = {
		.once = !isatty(STDOUT_FILENO), .count = -1, .interval = 1, .top = 10,
		.dir = EMBM_PROC_DIR,
	};
	bool tty = isatty(STDOUT_FILENO), once, json;
	struct sigaction sa = { .sa_handler = on_signal };
	struct timespec every;
	struct embm_report r;
	char why[4200];
	const char *dir;
	FILE *out;
	long count;

	parse_args(argc, argv, &a);
	if (a.interval <= 0) {
		fprintf(stderr, "embm-stat: --interval takes seconds > 0\n");
		return 2;
	}
	/* A metrics file that cannot be written fails before anything is read. */
	if (a.prom && embm_prom_check(a.prom, why, sizeof(why))) {
		fprintf(stderr, "embm-stat: --prometheus: %s\n", why);
		return 1;
	}
	/* An exporter refreshes until stopped, terminal or not, unless told. */
	if (a.prom)
		a.once = a.once_given;
	once = a.once && !a.interval_given;
	count = a.count;
	json = a.json;
	dir = a.dir;
	out = a.prom ? NULL : open_output(a.output);
	if (json && count < 0)
		once = true;
	every.tv_sec = a.interval;
	every.tv_nsec = (a.interval - every.tv_sec) * 1e9;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A live view shows the uncore over each interval; one refresh has none. */
	if (a.prom)
		;	/* the metrics are /proc/embm's alone */
	else if (!once && (count < 0 || count > 1) && !embm_unc_open(&uncore, &embm_unc_system))
		embm_unc_enable(&uncore);
	else if (!once && count >= 0 && count <= 1)
		snprintf(uncore.why, sizeof(uncore.why),
			 "one refresh has no interval to count over");

	for (long n = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); n++) {
		if (embm_report_read(&r, dir)) {
			fprintf(stderr, "embm-stat: cannot read %s: %m%s\n", dir,
				access(dir, F_OK) ? " (kernel without CONFIG_EMBM?)" : "");
			return 1;
		}
		if (a.prom) {
			prom_write_or_die(a.prom, &r);
			goto next;
		}
		if (!json && tty && !once && out == stdout)
			printf("\033[H\033[2J");
		/* The first refresh has no interval behind it yet. */
		if (n)
			embm_unc_read(&uncore, &uncore_result, true);
		if (json)
			embm_report_json(out, &r, "embm-stat", NULL, a.top,
					 once ? NULL : uncore_json, &n);
		else
			embm_report_print(out, &r, NULL, a.top);
		if (!json && !once && (n || !uncore.model))
			embm_unc_report(out, &uncore, &uncore_result, false);
		else if (!json && !once)
			fprintf(out, "bandwidth: from the next refresh on\n");
		fflush(out);
next:
		embm_report_free(&r);
		if (once || (count >= 0 && n + 1 >= count))
			break;
		nanosleep(&every, NULL);
	}
	embm_unc_close(&uncore);
	if (out && out != stdout)
		fclose(out);
	return 0;
}
