/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: fail-fast checks of the command line
 */
#ifndef __EMBM_TOOLS_CMDLINE_H
#define __EMBM_TOOLS_CMDLINE_H

#include <stdio.h>

/* The tool's name, "embm-run": each tool defines it, for the messages. */
extern const char *prog_name;

void see_help(void);

/*
 * Say what is wrong with the command line, and exit with 2 (see_help()).
 * @fmt is a string literal, checked by the compiler as fprintf()'s is.
 */
#define usage_error(fmt, ...)						\
	do {								\
		fprintf(stderr, "%s: " fmt "\n", prog_name, ##__VA_ARGS__);	\
		see_help();						\
	} while (0)

long parse_long(const char *opt, const char *s, long min, long max);
double parse_seconds(const char *opt, const char *s);
FILE *open_output(const char *path);

#endif /* __EMBM_TOOLS_CMDLINE_H */
