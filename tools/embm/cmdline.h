/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: fail-fast checks of the command line
 */
#ifndef __EMBM_TOOLS_CMDLINE_H
#define __EMBM_TOOLS_CMDLINE_H

#include <stdio.h>

/* The tool's name, "embm-run": each tool defines it, for the messages. */
extern const char prog_name[];

void see_help(void) __attribute__((noreturn));
void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
long parse_long(const char *opt, const char *s, long min, long max);
double parse_seconds(const char *opt, const char *s);
FILE *open_output(const char *path);

#endif /* __EMBM_TOOLS_CMDLINE_H */
