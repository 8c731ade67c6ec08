// SPDX-License-Identifier: GPL-2.0
/*
 * embm-oracle: the exact counts of QEMU's embm-emu plugin, in a guest
 *
 * Under QEMU with the embm-emu TCG plugin (scripts/embm run does it), the
 * guest has an ivshmem device whose memory the plugin shares; this tool
 * maps it from user space (root), with no kernel driver, and turns the
 * plugin's oracle on and off, watches the pages of a process's buffer and
 * shows the exact loads and stores per node, address space and page.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "emu_oracle.h"

const char *prog_name = "embm-oracle";

struct oracle_args {
	const char *cmd;
	bool spaces, pages, no_topology;
	double delta;		/* seconds, or 0: the counts as they are */
	long pid;
	unsigned long long addr, len;
	bool addr_given, len_given;
	long timeout_ms;
	const char *output;
	int nr_tasks;		/* -k: show these tasks' counts only */
	long tasks[64];
};

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: embm-oracle [options] COMMAND\n"
		"\n"
		"Reads and drives the exact counts of QEMU's embm-emu plugin from the\n"
		"guest (root; its ivshmem device 1af4:1110, no kernel driver needed).\n"
		"\n"
		"Commands:\n"
		"  status             the device, the plugin's mode, the ranges and latency model\n"
		"  on                 publish the topology (ranges per node, each CPU's node)\n"
		"                     and count every access exactly, from zero\n"
		"  off                stop counting (the counts stay readable)\n"
		"  show               loads and stores per node and their shares, summed over\n"
		"                     CPUs; with -s per address space, with -P per watched page\n"
		"  watch              count the pages of -a ADDR -l LEN in process -p PID\n"
		"                     (present pages, from /proc/PID/pagemap)\n"
		"  unwatch            empty the watched page list\n"
		"\n"
		"Options:\n"
		"  -s, --spaces       show: per address space (CR3) too\n"
		"  -P, --pages        show: per watched page too\n"
		"  -k, --tasks PID,.. show: the counts of these processes only (where the\n"
		"                     embm_emu driver tags the running task)\n"
		"  -d, --delta S      show: the counts of the next S seconds, not since 'on'\n"
		"  -p, --pid PID      watch: the process (0: this one)\n"
		"  -a, --addr ADDR    watch: the buffer's first byte (0x... for hex)\n"
		"  -l, --len BYTES    watch: its length\n"
		"  -T, --no-topology  on: keep the ranges the guest published before\n"
		"  -t, --timeout MS   wait for the plugin at most MS ms (default %d)\n"
		"  -o, --output FILE  write to FILE, not stdout\n"
		"  -h, --help         this text\n"
		"\n"
		"Counts are exact (every guest load and store QEMU executes, user and\n"
		"kernel mode by CPL, or by the instruction's address half where the\n"
		"status line 'features' lacks cpl); nodes and kinds are what 'on'\n"
		"published from sysfs, or the embm_emu driver, when it is bound (what\n"
		"this tool wants and what the driver wants are separate fields).\n",
		EMU_TIMEOUT_MS);
}

static const struct option opts[] = {
	{ "spaces",	no_argument,		NULL, 's' },
	{ "pages",	no_argument,		NULL, 'P' },
	{ "tasks",	required_argument,	NULL, 'k' },
	{ "delta",	required_argument,	NULL, 'd' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "addr",	required_argument,	NULL, 'a' },
	{ "len",	required_argument,	NULL, 'l' },
	{ "no-topology", no_argument,		NULL, 'T' },
	{ "timeout",	required_argument,	NULL, 't' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "help",	no_argument,		NULL, 'h' },
	{ }
};

static unsigned long long parse_ull(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	v = strtoull(s, &end, 0);
	if (!*s || *end || *s == '-')
		usage_error("%s: not a number: '%s'", opt, s);
	return v;
}

static void parse_args(int argc, char **argv, struct oracle_args *a)
{
	int c;

	while ((c = getopt_long(argc, argv, "sPk:d:p:a:l:Tt:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			a->spaces = true;
			break;
		case 'P':
			a->pages = true;
			break;
		case 'k':
			for (char *t = strtok(optarg, ","); t; t = strtok(NULL, ",")) {
				if (a->nr_tasks == 64)
					usage_error("--tasks: at most 64");
				a->tasks[a->nr_tasks++] = parse_long("--tasks", t, 0, 1L << 30);
			}
			break;
		case 'd':
			a->delta = parse_seconds("--delta", optarg);
			break;
		case 'p':
			a->pid = parse_long("--pid", optarg, 0, 1L << 30);
			break;
		case 'a':
			a->addr = parse_ull("--addr", optarg);
			a->addr_given = true;
			break;
		case 'l':
			a->len = parse_ull("--len", optarg);
			a->len_given = true;
			break;
		case 'T':
			a->no_topology = true;
			break;
		case 't':
			a->timeout_ms = parse_long("--timeout", optarg, 1, 3600000);
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
	if (optind != argc - 1)
		usage_error("%s", optind >= argc ? "no command" : "one command only");
	a->cmd = argv[optind];
	if (strcmp(a->cmd, "status") && strcmp(a->cmd, "on") && strcmp(a->cmd, "off") &&
	    strcmp(a->cmd, "show") && strcmp(a->cmd, "watch") && strcmp(a->cmd, "unwatch"))
		usage_error("unknown command '%s'", a->cmd);
	if (!strcmp(a->cmd, "watch") && (!a->addr_given || !a->len_given || !a->len))
		usage_error("watch: needs -a ADDR and -l LEN (> 0)");
	if (strcmp(a->cmd, "watch") && (a->addr_given || a->len_given))
		usage_error("-a and -l are for watch");
}

static const char *kind_name(unsigned int kind)
{
	static const char *const names[] = { "dram", "far", "cxl" };

	return kind <= EMBM_EMU_KIND_CXL ? names[kind] : "?";
}

static void mode_name(char *buf, size_t len, uint32_t mode)
{
	snprintf(buf, len, "%s%s%s", mode & EMBM_EMU_MODE_ORACLE ? "oracle" : "",
		 (mode & EMBM_EMU_MODE_ORACLE) && (mode & EMBM_EMU_MODE_SAMPLE) ? "+" : "",
		 mode & EMBM_EMU_MODE_SAMPLE ? "sample" : "");
	if (!mode)
		snprintf(buf, len, "off");
}

static int cmd_status(struct emu_dev *d, FILE *f)
{
	static const char *const src[] = {
		"l1", "l2", "l3", "local", "remote", "far", "cxl", "other"
	};
	struct embm_emu_header *h = d->hdr;
	char m[32];
	unsigned int i;

	mode_name(m, sizeof(m), h->mode);
	fprintf(f, "device %s: %zu bytes, %u vCPUs, ring %u records, %u watched pages at most%s\n",
		d->pci, d->size, h->nr_cpus, h->ring_records, h->max_pages,
		d->driver_bound ? "; a kernel driver is bound" : "");
	fprintf(f,
		"plugin: mode %s, gen %llu (taken %llu, error %u), %llu doorbells, %llu resets\n",
		m, (unsigned long long)h->gen, (unsigned long long)h->gen_seen, h->error,
		(unsigned long long)h->bells, (unsigned long long)h->resets);
	fprintf(f, "features:%s%s%s%s%s%s%s\n",
		h->features & EMBM_EMU_FEAT_LATENCY ? " latency" : "",
		h->features & EMBM_EMU_FEAT_CACHE ? " cache" : "",
		h->features & EMBM_EMU_FEAT_ORACLE ? " oracle" : "",
		h->features & EMBM_EMU_FEAT_RANDOM ? " random" : "",
		h->features & EMBM_EMU_FEAT_CORRUPT ? " corrupt" : "",
		h->features & EMBM_EMU_FEAT_DRV_WANT ? " drv_want" : "",
		h->features & EMBM_EMU_FEAT_CPL ? " cpl" : "");
	fprintf(f, "wanted: by user space %#x, by the driver %#x\n", h->want, h->drv_want);
	fprintf(f, "latency model (cycles at %u MHz, mean/sd):", h->cpu_mhz);
	for (i = 0; i < EMBM_EMU_SRC_NR; i++)
		fprintf(f, " %s %u/%u", src[i], h->lat[i].mean, h->lat[i].sd);
	fprintf(f, "\nranges: %u\n", h->nr_ranges);
	for (i = 0; i < h->nr_ranges && i < EMBM_EMU_MAX_RANGES; i++)
		fprintf(f, "  %2u node %u %-4s 0x%llx-0x%llx\n", i, h->range[i].node,
			kind_name(h->range[i].kind), (unsigned long long)h->range[i].start,
			(unsigned long long)h->range[i].end);
	fprintf(f, "watched pages: %u\n", h->nr_pages);
	return 0;
}

static uint64_t acc_total(const __u64 a[2][2])
{
	return a[0][0] + a[0][1] + a[1][0] + a[1][1];
}

static void acc_sub(emu_acc_t out, const __u64 (*a)[2][2], const __u64 (*b)[2][2])
{
	int r, k, o;

	for (r = 0; r <= EMBM_EMU_MAX_RANGES; r++)
		for (k = 0; k < 2; k++)
			for (o = 0; o < 2; o++)
				out[r][k][o] = a[r][k][o] - b[r][k][o];
}

/* Per node (ranges summed) and "none", with shares of the total. */
static void print_nodes(FILE *f, const struct emu_snapshot *s, const __u64 (*acc)[2][2],
			const char *indent)
{
	unsigned int i, j, nodes[EMBM_EMU_MAX_RANGES], nn = 0;
	__u64 total = 0, a[2][2];

	for (i = 0; i <= EMBM_EMU_MAX_RANGES; i++)
		total += acc_total(acc[i]);
	for (i = 0; i < s->nr_ranges; i++) {
		for (j = 0; j < nn && nodes[j] != s->range[i].node; j++)
			;
		if (j == nn)
			nodes[nn++] = s->range[i].node;
	}
	fprintf(f, "%s%5s %-5s %14s %14s %14s %14s %8s\n", indent, "node", "kind",
		"user loads", "user stores", "kernel loads", "kernel stores", "share");
	for (j = 0; j <= nn; j++) {
		const char *kind = "-";

		memset(a, 0, sizeof(a));
		for (i = 0; i < (j < nn ? s->nr_ranges : 1); i++) {
			const __u64 (*x)[2] = j < nn ? acc[i] : acc[EMBM_EMU_NO_RANGE];

			if (j < nn && s->range[i].node != nodes[j])
				continue;
			if (j < nn)
				kind = kind_name(s->range[i].kind);
			a[0][0] += x[0][0];
			a[0][1] += x[0][1];
			a[1][0] += x[1][0];
			a[1][1] += x[1][1];
		}
		if (j < nn)
			fprintf(f, "%s%5u %-5s", indent, nodes[j], kind);
		else
			fprintf(f, "%s%5s %-5s", indent, "none", "-");
		fprintf(f, " %14llu %14llu %14llu %14llu %7.2f%%\n",
			(unsigned long long)a[0][0], (unsigned long long)a[0][1],
			(unsigned long long)a[1][0], (unsigned long long)a[1][1],
			total ? 100.0 * acc_total(a) / total : 0.0);
	}
}

static int cmd_show(struct emu_dev *d, const struct oracle_args *a, FILE *f)
{
	static struct emu_snapshot s0, s1;
	static emu_acc_t acc;
	char m[32];
	unsigned int i, sp;

	if (emu_snapshot(d, &s0))
		return -1;
	if (a->delta > 0) {
		usleep(a->delta * 1e6);
		if (emu_snapshot(d, &s1))
			return -1;
	} else {
		s1 = s0;
		memset(&s0.ranges, 0, sizeof(s0.ranges));
		memset(&s0.spaces, 0, sizeof(s0.spaces));
		s0.page = NULL;
		s0.pfn = NULL;
		s0.nr_pages = 0;
	}
	mode_name(m, sizeof(m), s1.mode);
	if (!(s1.mode & EMBM_EMU_MODE_ORACLE))
		fprintf(f, "the oracle is off (mode %s): the counts are those it left\n", m);
	if (a->delta > 0)
		fprintf(f, "exact accesses in %.3f s, all CPUs:\n", a->delta);
	else
		fprintf(f, "exact accesses since the oracle was turned on, all CPUs:\n");
	if (a->nr_tasks) {
		static emu_acc_t one;
		int k, found = 0;

		memset(acc, 0, sizeof(acc));
		for (k = 0; k < a->nr_tasks; k++) {
			int sp = emu_space_index(&s1, EMBM_EMU_TASK(a->tasks[k]));
			unsigned int r, u, o;

			if (sp < 0)
				continue;
			found++;
			acc_sub(one, (const __u64 (*)[2][2])s1.spaces[sp],
				(const __u64 (*)[2][2])s0.spaces[sp]);
			for (r = 0; r <= EMBM_EMU_MAX_RANGES; r++)
				for (u = 0; u < 2; u++)
					for (o = 0; o < 2; o++)
						acc[r][u][o] += one[r][u][o];
		}
		fprintf(f, "of %d task(s) of %d asked for (tasks the driver tagged):\n", found,
			a->nr_tasks);
	} else {
		acc_sub(acc, (const __u64 (*)[2][2])s1.ranges, (const __u64 (*)[2][2])s0.ranges);
	}
	print_nodes(f, &s1, (const __u64 (*)[2][2])acc, "");
	if (a->spaces) {
		for (sp = 0; sp < EMBM_EMU_MAX_SPACES; sp++) {
			uint64_t t = 0;

			acc_sub(acc, (const __u64 (*)[2][2])s1.spaces[sp],
				(const __u64 (*)[2][2])s0.spaces[sp]);
			for (i = 0; i <= EMBM_EMU_MAX_RANGES; i++)
				t += acc_total(acc[i]);
			if (!t)
				continue;
			if (sp == EMBM_EMU_OTHER_SPACE)
				fprintf(f, "\naddress space: the others (past %d)\n",
					EMBM_EMU_OTHER_SPACE);
			else
				fprintf(f, "\naddress space %u: CR3 0x%llx\n", sp,
					(unsigned long long)s1.space_key[sp]);
			print_nodes(f, &s1, (const __u64 (*)[2][2])acc, "  ");
		}
	}
	if (a->pages) {
		fprintf(f, "\nwatched pages: %u\n%18s %14s %14s\n", s1.nr_pages, "pfn", "loads",
			"stores");
		for (i = 0; i < s1.nr_pages; i++) {
			uint64_t ld = s1.page[i][0], st = s1.page[i][1];

			if (i < s0.nr_pages && s0.pfn[i] == s1.pfn[i]) {
				ld -= s0.page[i][0];
				st -= s0.page[i][1];
			}
			if (ld | st)
				fprintf(f, "%#18llx %14llu %14llu\n", (unsigned long long)s1.pfn[i],
					(unsigned long long)ld, (unsigned long long)st);
		}
	}
	emu_snapshot_free(&s1);
	if (a->delta > 0)
		emu_snapshot_free(&s0);
	return 0;
}

static int cmd_watch(struct emu_dev *d, const struct oracle_args *a, FILE *f)
{
	uint64_t first = a->addr & ~4095ULL;
	size_t n = (a->addr + a->len - first + 4095) / 4096, present = 0, i;
	uint64_t *pfn;
	int ret;

	if (n > d->hdr->max_pages) {
		fprintf(stderr, "%s: %zu pages: the device watches %u at most\n", prog_name, n,
			d->hdr->max_pages);
		return -2;
	}
	pfn = calloc(n ? n : 1, sizeof(*pfn));
	if (!pfn || emu_pagemap(a->pid, first, n * 4096, pfn))
		return -1;
	for (i = 0; i < n; i++)
		present += pfn[i] != 0;
	ret = emu_set_pages(d, pfn, n);
	free(pfn);
	if (ret < 0)
		return -1;
	ret = emu_commit(d, a->timeout_ms);
	if (ret)
		return -1;
	fprintf(f,
		"watching %d pages (%zu of %zu present) of pid %ld at 0x%llx\n", d->hdr->nr_pages,
		present, n, a->pid, (unsigned long long)a->addr);
	if (!present)
		fprintf(f, "no page is present yet: watch after the process touched them\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct oracle_args a = { .timeout_ms = EMU_TIMEOUT_MS };
	struct emu_dev d;
	FILE *f;
	int ret = 0;

	parse_args(argc, argv, &a);
	if (emu_open(&d)) {
		fprintf(stderr, "%s: %s\n", prog_name, emu_error());
		return 1;
	}
	f = open_output(a.output);
	if (!strcmp(a.cmd, "status")) {
		ret = cmd_status(&d, f);
	} else if (!strcmp(a.cmd, "show")) {
		ret = cmd_show(&d, &a, f);
	} else if (!strcmp(a.cmd, "watch")) {
		ret = cmd_watch(&d, &a, f);
	} else if (!strcmp(a.cmd, "unwatch")) {
		/* The page list is user space's alone, a bound driver's or not. */
		d.hdr->nr_pages = 0;
		ret = emu_commit(&d, a.timeout_ms) ? -1 : 0;
	} else if (!strcmp(a.cmd, "on")) {
		bool was_on = d.hdr->mode & EMBM_EMU_MODE_ORACLE;

		/* A bound driver publishes the topology itself. */
		ret = !a.no_topology && !d.driver_bound && emu_publish_topology(&d) < 0 ? -1 :
		      emu_set_want(&d, d.hdr->want | EMBM_EMU_MODE_ORACLE, a.timeout_ms) ? -1 : 0;
		if (!ret)
			fprintf(f, "oracle on: %u ranges, %s\n", d.hdr->nr_ranges,
				was_on ? "counting on (it was on)" : "counting from zero");
	} else if (!strcmp(a.cmd, "off")) {
		ret = emu_set_want(&d, d.hdr->want & ~EMBM_EMU_MODE_ORACLE, a.timeout_ms) ? -1 : 0;
	}
	if (ret == -1)
		fprintf(stderr, "%s: %s\n", prog_name, emu_error());
	emu_close(&d);
	if (f != stdout && fclose(f)) {
		fprintf(stderr, "%s: cannot write %s\n", prog_name, a.output);
		return 1;
	}
	return ret ? 1 : 0;
}
