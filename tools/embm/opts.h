/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: the options the tools share, and the usage text
 */
#ifndef __EMBM_TOOLS_OPTS_H
#define __EMBM_TOOLS_OPTS_H

#include <stdbool.h>
#include <stdio.h>

/*
 * Options with one letter, name and meaning in every tool that takes
 * them; a tool picks its own with EMBM_OPT() bits.  --help is always on.
 */
enum embm_opt {
	EMBM_OPT_DURATION,	/* -d, --duration S */
	EMBM_OPT_SOURCE,	/* -S, --source NAME */
	EMBM_OPT_PERIOD,	/* -P, --period N */
	EMBM_OPT_INTERVAL,	/* -i, --interval S */
	EMBM_OPT_TOP,		/* -t, --top N */
	EMBM_OPT_JSON,		/* -j, --json */
	EMBM_OPT_OUTPUT,	/* -o, --output FILE */
	EMBM_OPT_DIR,		/* -D, --dir DIR */
	EMBM_NR_OPTS
};

#define EMBM_OPT(o)	(1U << EMBM_OPT_##o)

/* The values of the shared options; set the defaults before parsing. */
struct embm_opts {
	unsigned int given;		/* EMBM_OPT() bits seen on the command line */
	double duration, interval;	/* seconds, >= 0 */
	const char *source, *period;	/* knob values, or NULL */
	unsigned int top;
	bool json;
	const char *output;		/* or NULL: stdout */
	const char *dir;		/* normally EMBM_PROC_DIR */
};

/* An option of one tool only. */
struct embm_tool_opt {
	const char *name;
	int has_arg;		/* no_argument or required_argument */
	int val;		/* its letter */
	const char *arg;	/* the argument's name in the usage, or NULL */
	const char *help;
};

struct embm_tool {
	const char *name;		/* "embm-run": messages */
	const char *usage;		/* "usage: ..." and what it does */
	const char *notes;		/* after the options, or NULL */
	const char *legend;		/* after the notes (a report's columns), or NULL */
	const struct embm_tool_opt *opts;	/* its own, ending with { } */
	unsigned int shared;		/* EMBM_OPT() bits */
	const char *help[EMBM_NR_OPTS];	/* a shared option's help here, or NULL */
	bool stop_at_operand;		/* what follows the first operand is its own */
	/* Take one of its own options: 0, or -1 for bad usage (say why first). */
	int (*parse)(int opt, const char *arg, void *data);
};

void embm_opts_usage(const struct embm_tool *t, FILE *f);
void embm_opts_hint(const struct embm_tool *t);

/* Say what is wrong with the command line (@fmt a string literal), exit with 2. */
#define embm_opts_bad_usage(t, fmt, ...)					\
	do {									\
		const struct embm_tool *__tool = (t);				\
										\
		fprintf(stderr, "%s: " fmt "\n", __tool->name, ##__VA_ARGS__);	\
		embm_opts_hint(__tool);						\
	} while (0)
int embm_opts_parse(const struct embm_tool *t, struct embm_opts *o, int argc,
		    char **argv, void *data);
long embm_opts_num(const struct embm_tool *t, const char *opt, const char *s,
		   long min, long max);
FILE *embm_opts_output(const struct embm_tool *t, const struct embm_opts *o);

#endif /* __EMBM_TOOLS_OPTS_H */
