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

#include "opts.h"
#include "report.h"
#include "uncore.h"

static sig_atomic_t stop;	/* __atomic_*_n(): set by on_signal() */

static const struct embm_tool_opt stat_opts[] = {
	{ "once", no_argument, '1', NULL,
	  "print once and exit (the default when not a terminal)" },
	{ "count", required_argument, 'c', "N", "stop after N refreshes" },
	{ }
};

/* What embm-stat's own options choose. */
struct stat_args {
	bool once;
	long count;
};

static int stat_opt(int opt, const char *arg, void *data);

static const struct embm_tool tool = {
	.name = "embm-stat",
	.usage =
		"usage: embm-stat [options]\n"
		"\n"
		"Shows the embm session: live while it runs, its results after it ended.\n"
		"Refreshed, it also shows the uncore bandwidth and latency per socket and\n"
		"tier over each interval (or why they are unavailable).\n",
	.opts = stat_opts,
	.shared = EMBM_OPT(INTERVAL) | EMBM_OPT(TOP) | EMBM_OPT(JSON) | EMBM_OPT(OUTPUT) |
		  EMBM_OPT(DIR),
	.help = {
		[EMBM_OPT_INTERVAL] = "refresh every S seconds (default 1)",
		[EMBM_OPT_JSON] = "print JSON (implies --once unless --count is given)",
	},
	.parse = stat_opt,
};

static int stat_opt(int opt, const char *arg, void *data)
{
	struct stat_args *a = data;

	switch (opt) {
	case '1':
		a->once = true;
		return 0;
	case 'c':
		a->count = embm_opts_num(&tool, "--count", arg, 0, 1000000000);
		a->once = false;
		return 0;
	}
	return -1;
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

int main(int argc, char **argv)
{
	struct embm_opts o = { .interval = 1, .top = 10, .dir = EMBM_PROC_DIR };
	struct stat_args a = { .once = !isatty(STDOUT_FILENO), .count = -1 };
	bool tty = isatty(STDOUT_FILENO), once, json;
	struct sigaction sa = { .sa_handler = on_signal };
	struct embm_report r;
	const char *dir;
	FILE *out;
	long count;

	embm_opts_parse(&tool, &o, argc, argv, &a);
	if (optind != argc) {
		embm_opts_usage(&tool, stderr);
		return 2;
	}
	if (o.interval <= 0) {
		fprintf(stderr, "embm-stat: --interval takes seconds > 0\n");
		return 2;
	}
	once = a.once && !(o.given & EMBM_OPT(INTERVAL));
	count = a.count;
	json = o.json;
	dir = o.dir;
	out = embm_opts_output(&tool, &o);
	if (json && count < 0)
		once = true;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A live view shows the uncore over each interval; one refresh has none. */
	if (!once && (count < 0 || count > 1) && !embm_unc_open(&uncore, &embm_unc_system))
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
		if (!json && tty && !once && out == stdout)
			printf("\033[H\033[2J");
		/* The first refresh has no interval behind it yet. */
		if (n)
			embm_unc_read(&uncore, &uncore_result, true);
		if (json)
			embm_report_json(out, &r, "embm-stat", NULL, o.top,
					 once ? NULL : uncore_json, &n);
		else
			embm_report_print(out, &r, NULL, o.top);
		if (!json && !once && (n || !uncore.model))
			embm_unc_report(out, &uncore, &uncore_result, false);
		else if (!json && !once)
			fprintf(out, "bandwidth: from the next refresh on\n");
		embm_report_free(&r);
		fflush(out);
		if (once || (count >= 0 && n + 1 >= count))
			break;
		struct timespec ts = { (time_t)o.interval,
				       (long)((o.interval - (time_t)o.interval) * 1e9) };
		nanosleep(&ts, NULL);
	}
	embm_unc_close(&uncore);
	if (out != stdout)
		fclose(out);
	return 0;
}
