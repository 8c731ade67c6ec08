// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: the options the tools share, and the usage text
 *
 * Each tool lists its own options and picks the shared ones; one
 * getopt_long() loop takes both, checks the values of the shared ones and
 * prints the usage, so that -j, -o, -d, -i, -t and the others mean the
 * same in every tool.  Bad usage says what is wrong and where the usage
 * is, and exits with 2; --help prints the usage and exits with 0.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"
#include "procfs.h"

#define MAX_OPTS	32

static const struct embm_tool_opt shared_opts[EMBM_NR_OPTS] = {
	[EMBM_OPT_DURATION] = { "duration", required_argument, 'd', "S",
				"stop after S seconds" },
	[EMBM_OPT_SOURCE]   = { "source", required_argument, 'S', "NAME",
				"auto, pebs, ibs or swfault for this session" },
	[EMBM_OPT_PERIOD]   = { "period", required_argument, 'P', "N",
				"sample period for this session (0: the source's)" },
	[EMBM_OPT_INTERVAL] = { "interval", required_argument, 'i', "S",
				"print a snapshot every S seconds" },
	[EMBM_OPT_TOP]      = { "top", required_argument, 't', "N",
				"hot pages to show (default 10)" },
	[EMBM_OPT_JSON]     = { "json", no_argument, 'j', NULL,
				"print the report as JSON" },
	[EMBM_OPT_OUTPUT]   = { "output", required_argument, 'o', "FILE",
				"write the report to FILE, not stdout" },
	[EMBM_OPT_DIR]      = { "dir", required_argument, 'D', "DIR",
				"read DIR instead of " EMBM_PROC_DIR },
};

static const struct embm_tool_opt help_opt = {
	"help", no_argument, 'h', NULL, "this text"
};

/* The options of @t in usage order: its own, the shared ones, --help. */
static int tool_opts(const struct embm_tool *t, const struct embm_tool_opt **o,
		     const char **help)
{
	const struct embm_tool_opt *own;
	int n = 0, i;

	for (own = t->opts; own && own->name && n < MAX_OPTS - EMBM_NR_OPTS - 1; own++) {
		help[n] = own->help;
		o[n++] = own;
	}
	for (i = 0; i < EMBM_NR_OPTS; i++) {
		if (!(t->shared & (1U << i)))
			continue;
		help[n] = t->help[i] ?: shared_opts[i].help;
		o[n++] = &shared_opts[i];
	}
	help[n] = help_opt.help;
	o[n++] = &help_opt;
	return n;
}

/**
 * embm_opts_usage() - print the usage of a tool
 * @t: the tool
 * @f: stdout for --help, stderr for bad usage
 */
void embm_opts_usage(const struct embm_tool *t, FILE *f)
{
	const struct embm_tool_opt *o[MAX_OPTS];
	const char *help[MAX_OPTS];
	char left[MAX_OPTS][64];
	int n, i, width = 0, len;

	n = tool_opts(t, o, help);
	for (i = 0; i < n; i++) {
		len = snprintf(left[i], sizeof(left[i]), "-%c, --%s%s%s", o[i]->val,
			       o[i]->name, o[i]->arg ? " " : "", o[i]->arg ?: "");
		if (len > width)
			width = len;
	}
	fprintf(f, "%s\n", t->usage);
	for (i = 0; i < n; i++)
		fprintf(f, "  %-*s  %s\n", width, left[i], help[i]);
	if (t->notes)
		fprintf(f, "\n%s", t->notes);
	if (t->legend)
		fprintf(f, "\n%s", t->legend);
}

/**
 * embm_opts_hint() - after bad usage was said: where to read more, and exit
 * @t: the tool
 *
 * Prints "see TOOL --help" on stderr and exits with 2; after getopt_long()'s
 * message, or embm_opts_bad_usage()'s "TOOL: what is wrong".
 */
void embm_opts_hint(const struct embm_tool *t)
{
	fprintf(stderr, "see %s --help\n", t->name);
	exit(2);
}

/**
 * embm_opts_num() - a whole number option value, or exit with bad usage
 * @t:   the tool, for the message
 * @opt: the option, for the message
 * @s:   the value
 * @min: the smallest allowed
 * @max: the largest allowed
 *
 * Return: the number.
 */
long embm_opts_num(const struct embm_tool *t, const char *opt, const char *s,
		   long min, long max)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		embm_opts_bad_usage(t, "%s: not a number from %ld to %ld: '%s'", opt, min, max, s);
	return v;
}

/* Seconds, >= 0, with a fraction; exit with bad usage if not. */
static double parse_seconds(const struct embm_tool *t, const char *opt, const char *s)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (!*s || *end || !(v >= 0) || v > 1e9)
		embm_opts_bad_usage(t, "%s: not seconds >= 0: '%s'", opt, s);
	return v;
}

static void take_shared(const struct embm_tool *t, struct embm_opts *o, int i,
			const char *arg)
{
	switch (i) {
	case EMBM_OPT_DURATION:
		o->duration = parse_seconds(t, "--duration", arg);
		break;
	case EMBM_OPT_INTERVAL:
		o->interval = parse_seconds(t, "--interval", arg);
		break;
	case EMBM_OPT_SOURCE:
		o->source = arg;
		break;
	case EMBM_OPT_PERIOD:
		o->period = arg;
		break;
	case EMBM_OPT_TOP:
		o->top = embm_opts_num(t, "--top", arg, 0, 1000000000);
		break;
	case EMBM_OPT_JSON:
		o->json = true;
		break;
	case EMBM_OPT_OUTPUT:
		o->output = arg;
		break;
	case EMBM_OPT_DIR:
		o->dir = arg;
		break;
	}
	o->given |= 1U << i;
}

/**
 * embm_opts_parse() - take the options of a tool's command line
 * @t:    the tool
 * @o:    the shared options, with their defaults set
 * @argc: main()'s
 * @argv: main()'s
 * @data: given to @t->parse with each of the tool's own options
 *
 * Exits with 0 after printing the usage for --help; with 2 for bad usage,
 * after getopt_long()'s message or the tool's own.
 *
 * Return: the index in @argv of the first operand (optind).
 */
int embm_opts_parse(const struct embm_tool *t, struct embm_opts *o, int argc,
		    char **argv, void *data)
{
	const struct embm_tool_opt *to[MAX_OPTS];
	struct option lo[MAX_OPTS + 1] = { };
	char so[3 * MAX_OPTS + 2], *p = so;
	const char *help[MAX_OPTS];
	int n, i, opt;

	n = tool_opts(t, to, help);
	if (t->stop_at_operand)
		*p++ = '+';
	for (i = 0; i < n; i++) {
		lo[i].name = to[i]->name;
		lo[i].has_arg = to[i]->has_arg;
		lo[i].val = to[i]->val;
		*p++ = to[i]->val;
		if (to[i]->has_arg == required_argument)
			*p++ = ':';
	}
	*p = 0;
	while ((opt = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (opt == 'h') {
			embm_opts_usage(t, stdout);
			exit(0);
		}
		for (i = 0; i < EMBM_NR_OPTS; i++)
			if ((t->shared & (1U << i)) && opt == shared_opts[i].val)
				break;
		if (i < EMBM_NR_OPTS)
			take_shared(t, o, i, optarg);
		else if (opt == '?' || !t->parse || t->parse(opt, optarg, data))
			embm_opts_hint(t);
	}
	return optind;
}

/**
 * embm_opts_output() - where the report goes: --output FILE, or stdout
 * @t: the tool, for the message
 * @o: the options
 *
 * Return: the stream; exits with 1 when FILE cannot be written.
 */
FILE *embm_opts_output(const struct embm_tool *t, const struct embm_opts *o)
{
	FILE *f;

	if (!o->output)
		return stdout;
	f = fopen(o->output, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s: %m\n", t->name, o->output);
		exit(1);
	}
	return f;
}
