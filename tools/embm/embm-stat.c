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

#include "report.h"

static sig_atomic_t stop;	/* __atomic_*_n(): set by on_signal() */

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: embm-stat [options]\n"
		"\n"
		"Shows the embm session: live while it runs, its results after it ended.\n"
		"\n"
		"  -1, --once          print once and exit (the default when not a terminal)\n"
		"  -i, --interval S    refresh every S seconds (default 1)\n"
		"  -c, --count N       stop after N refreshes\n"
		"  -t, --top N         hot pages to show (default 10)\n"
		"  -j, --json          print JSON (implies --once unless --count is given)\n"
		"  -D, --dir DIR       read DIR instead of /proc/embm\n"
		"  -h, --help          this text\n");
}

static void on_signal(int sig)
{
	__atomic_store_n(&stop, sig, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once",	no_argument,	   NULL, '1' },
		{ "interval",	required_argument, NULL, 'i' },
		{ "count",	required_argument, NULL, 'c' },
		{ "top",	required_argument, NULL, 't' },
		{ "json",	no_argument,	   NULL, 'j' },
		{ "dir",	required_argument, NULL, 'D' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	bool once = !isatty(STDOUT_FILENO), json = false, tty = isatty(STDOUT_FILENO);
	const char *dir = "/proc/embm";
	double interval = 1;
	long count = -1, top = 10;
	struct sigaction sa = { .sa_handler = on_signal };
	struct embm_report r;
	int opt;

	while ((opt = getopt_long(argc, argv, "1i:c:t:jD:h", opts, NULL)) != -1) {
		switch (opt) {
		case '1':
			once = true;
			break;
		case 'i':
			interval = atof(optarg);
			once = false;
			break;
		case 'c':
			count = atol(optarg);
			once = false;
			break;
		case 't':
			top = atol(optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'D':
			dir = optarg;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (interval <= 0 || top < 0) {
		fprintf(stderr, "embm-stat: --interval takes seconds > 0, --top N >= 0\n");
		return 2;
	}
	if (json && count < 0)
		once = true;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	for (long n = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); n++) {
		if (embm_report_read(&r, dir)) {
			fprintf(stderr, "embm-stat: cannot read %s: %m%s\n", dir,
				access(dir, F_OK) ? " (kernel without CONFIG_EMBM?)" : "");
			return 1;
		}
		if (!json && tty && !once)
			printf("\033[H\033[2J");
		if (json)
			embm_report_json(stdout, &r, "embm-stat", NULL, top);
		else
			embm_report_print(stdout, &r, NULL, top);
		embm_report_free(&r);
		fflush(stdout);
		if (once || (count >= 0 && n + 1 >= count))
			break;
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (time_t)interval) * 1e9) };
		nanosleep(&ts, NULL);
	}
	return 0;
}
