// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: fail-fast checks of the command line
 *
 * Each tool parses its options with getopt_long() and prints its own
 * usage; these helpers check the values the tools share in kind (whole
 * numbers in a range, seconds, an output file), so that a bad value gets
 * the same message in every tool.  Bad usage says what is wrong and where
 * the usage is, and exits with 2; a file that cannot be written exits
 * with 1.
 */
#include <stdlib.h>

#include "cmdline.h"

/**
 * see_help() - after bad usage was said: where to read more, and exit
 *
 * Prints "see TOOL --help" on stderr and exits with 2; after getopt_long()'s
 * message, or usage_error()'s "TOOL: what is wrong".
 */
void see_help(void)
{
	fprintf(stderr, "see %s --help\n", prog_name);
	exit(2);
}

/**
 * parse_long() - a whole number option value, or exit with bad usage
 * @opt: the option, for the message
 * @s:   the value
 * @min: the smallest allowed
 * @max: the largest allowed
 *
 * Return: the number.
 */
long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	v = strtol(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		usage_error("%s: not a number from %ld to %ld: '%s'", opt, min, max, s);
	return v;
}

/**
 * parse_seconds() - seconds >= 0, with a fraction, or exit with bad usage
 * @opt: the option, for the message
 * @s:   the value
 *
 * Return: the seconds.
 */
double parse_seconds(const char *opt, const char *s)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (!*s || *end || !(v >= 0) || v > 1e9)
		usage_error("%s: not seconds >= 0: '%s'", opt, s);
	return v;
}

/**
 * open_output() - where the report goes: --output FILE, or stdout
 * @path: FILE, or NULL for stdout
 *
 * Return: the stream; exits with 1 when FILE cannot be written.
 */
FILE *open_output(const char *path)
{
	FILE *f;

	if (!path)
		return stdout;
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s: %m\n", prog_name, path);
		exit(1);
	}
	return f;
}
