// SPDX-License-Identifier: GPL-2.0
/*
 * embm-bench: a workload whose memory traffic per node is known
 *
 * Buffers of given sizes are bound to given nodes (libnuma, MPOL_BIND, no
 * transparent huge pages).  Each process first writes every page of its
 * buffers once (the first touches: one page fault a page), then runs the
 * access pattern over them for a number of passes or seconds.  It prints
 * what it did per node, in the names embm-run uses, so a test compares the
 * two directly: "pages" are first touches, "accesses" cache-line accesses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <linux/embm.h>
#include <numa.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "emu_oracle.h"

#define PAGE		4096UL
#define LINE		64UL
#define MAX_BUFFERS	64
#define MAX_NODES	1024

enum pattern { SEQ_READ, RAND_READ, CHASE, WRITE, RMW, HOT, NR_PATTERNS };
static const char *const pattern_names[] = {
	[SEQ_READ] = "seq-read", [RAND_READ] = "rand-read",
	[CHASE] = "chase", [WRITE] = "write", [RMW] = "rmw", [HOT] = "hot",
};

struct buffer {
	size_t size;
	int node;
};

/* Per-node counts, shared by every process and thread. */
struct counts {
	unsigned long long pages, loads, stores;
};

const char *prog_name = "embm-bench";
static struct buffer buffers[MAX_BUFFERS];
static int nr_buffers;
static enum pattern pattern = WRITE;
static int nr_threads = 1, nr_children;
static long passes = 1;
static int nr_sessions;
static bool huge, zero_read;
static long hot_pages = 32;		/* --hot-pages: the hot set of pattern hot */
static bool hot_pages_given;		/* --hot-pages given: not cut to a slice */
static bool hot_given;			/* --hot-pages or --hot-percent given */
static int hot_percent = 90;		/* --hot-percent: its share of the loads */
static double duration;
static struct counts *shared;		/* [MAX_NODES], MAP_SHARED */
static unsigned long long *touch_ns;	/* first touches' time, all threads; shared */
static pid_t *pids;			/* [1 + nr_children]: each process; shared */
static bool watch;			/* --watch: the oracle counts process 0's pages */

/* @fmt is a string literal, checked by the compiler as fprintf()'s is. */
#define fatal(fmt, ...)							\
	do {								\
		fprintf(stderr, "embm-bench: " fmt "\n", ##__VA_ARGS__);	\
		exit(1);						\
	} while (0)

/* A buffer: SIZE@NODE into @b, or exit with bad usage (2). */
static void parse_buffer(const char *s, struct buffer *b)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end, *at;
	long node;

	errno = 0;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	}
	if (end == s || *s == '-' || errno)
		usage_error("--buffer: not SIZE@NODE: '%s'", s);
	end += !!shift;
	/* Nor 0 after rounding up to whole pages. */
	if (!v || v > (~0ULL - PAGE + 1) >> shift)
		usage_error("--buffer: SIZE 0 or too large: '%s'", s);
	if (*end != '@')
		usage_error("--buffer: not SIZE@NODE: '%s'", s);
	at = end + 1;
	node = strtol(at, &end, 10);
	if (end == at || *end || node < 0 || node >= MAX_NODES)
		usage_error("--buffer: NODE from 0 to %d: '%s'", MAX_NODES - 1, s);
	b->size = ((v << shift) + PAGE - 1) & ~(PAGE - 1);
	b->node = node;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add(int node, unsigned long long pages, unsigned long long loads,
		unsigned long long stores)
{
	__atomic_add_fetch(&shared[node].pages, pages, __ATOMIC_RELAXED);
	__atomic_add_fetch(&shared[node].loads, loads, __ATOMIC_RELAXED);
	__atomic_add_fetch(&shared[node].stores, stores, __ATOMIC_RELAXED);
}

struct slice {
	char *base[MAX_BUFFERS];	/* this thread's part of each buffer */
	size_t len[MAX_BUFFERS];
	unsigned int seed;
	pthread_barrier_t *ready;
	pthread_barrier_t *touched;	/* --watch in process 0: pages mapped */
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Link the lines of [p, p + len) into one random cycle; returns the start. */
static void **make_chain(char *p, size_t len, uint64_t *rng)
{
	size_t n = len / LINE, i, j, t;
	size_t *order = malloc(n * sizeof(*order));

	if (!order)
		fatal("out of memory");
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = xorshift(rng) % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(p + order[i] * LINE) = p + order[(i + 1) % n] * LINE;
	free(order);
	return (void **)p;	/* every line is on the cycle */
}

/*
 * Pattern hot: as many loads as the slice has lines, each of a random line;
 * hot_percent of them fall in the hot set, the slice's pages whose index is
 * a multiple of pages / hot_pages (spread so that no two are neighbours),
 * the others anywhere in the slice.  A slice smaller than the default hot
 * set has all its pages hot.  Its divisors, nhot and lines, are not 0:
 * main() makes each slice a page at least, and hot_pages is 1 at least.
 */
static unsigned long long hot_pass(const char *p, size_t len, uint64_t *rng)
{
	size_t lines = len / LINE, pages = len / PAGE, i, line;
	size_t nhot = (size_t)hot_pages < pages ? (size_t)hot_pages : pages;
	size_t stride = pages / nhot;
	unsigned long long sink = 0;
	uint64_t r;

	for (i = 0; i < lines; i++) {
		r = xorshift(rng);
		if (r % 100 < (uint64_t)hot_percent)
			line = ((r >> 8) % nhot) * stride * (PAGE / LINE) +
			       (r >> 32) % (PAGE / LINE);
		else
			line = (r >> 8) % lines;
		sink += __atomic_load_n(&p[line * LINE], __ATOMIC_RELAXED);
	}
	return sink;
}

static void *worker(void *arg)
{
	struct slice *s = arg;
	uint64_t rng = s->seed * 2654435761u + 1;
	void **chain[MAX_BUFFERS] = { 0 };
	unsigned long long sink = 0;
	double end = duration > 0 ? now() + duration : 0;
	long pass;
	int b;

	double t0 = now();

	/* First touches: one write (or read) a page. */
	for (b = 0; b < nr_buffers; b++) {
		for (size_t off = 0; off < s->len[b]; off += PAGE) {
			if (zero_read)
				sink += __atomic_load_n(&s->base[b][off], __ATOMIC_RELAXED);
			else
				__atomic_store_n(&s->base[b][off], 1, __ATOMIC_RELAXED);
		}
		if (zero_read)
			add(buffers[b].node, s->len[b] / PAGE, s->len[b] / PAGE, 0);
		else
			add(buffers[b].node, s->len[b] / PAGE, 0, s->len[b] / PAGE);
		if (pattern == CHASE && s->len[b]) {
			chain[b] = make_chain(s->base[b], s->len[b], &rng);
			add(buffers[b].node, 0, 0, s->len[b] / LINE);
		}
	}
	__atomic_add_fetch(touch_ns, (unsigned long long)((now() - t0) * 1e9), __ATOMIC_RELAXED);
	if (s->touched) {
		pthread_barrier_wait(s->touched);	/* process 0 watches its pages */
		pthread_barrier_wait(s->touched);
	}
	pthread_barrier_wait(s->ready);

	for (pass = 0; end ? now() < end : pass < passes; pass++) {
		for (b = 0; b < nr_buffers; b++) {
			size_t lines = s->len[b] / LINE, i;
			char *p = s->base[b];
			void **q = chain[b];

			switch (pattern) {
			case WRITE:
				for (i = 0; i < lines; i++)
					__atomic_store_n(&p[i * LINE], (char)i, __ATOMIC_RELAXED);
				add(buffers[b].node, 0, 0, lines);
				break;
			case SEQ_READ:
				for (i = 0; i < lines; i++)
					sink += __atomic_load_n(&p[i * LINE], __ATOMIC_RELAXED);
				add(buffers[b].node, 0, lines, 0);
				break;
			case RAND_READ:
				for (i = 0; i < lines; i++)
					sink += __atomic_load_n(&p[(xorshift(&rng) % lines) * LINE],
								__ATOMIC_RELAXED);
				add(buffers[b].node, 0, lines, 0);
				break;
			case CHASE:
				for (i = 0; i < lines; i++)
					q = __atomic_load_n(q, __ATOMIC_RELAXED);
				chain[b] = q;
				add(buffers[b].node, 0, lines, 0);
				break;
			case RMW:
				/* A load and a store of each line (not one locked op). */
				for (i = 0; i < lines; i++) {
					char v = __atomic_load_n(&p[i * LINE], __ATOMIC_RELAXED);

					__atomic_store_n(&p[i * LINE], v + 1, __ATOMIC_RELAXED);
				}
				add(buffers[b].node, 0, lines, lines);
				break;
			case HOT:
				sink += hot_pass(p, s->len[b], &rng);
				add(buffers[b].node, 0, lines, 0);
				break;
			case NR_PATTERNS:
				break;
			}
		}
	}
	__atomic_store_n(&s->seed, (unsigned int)sink, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * --watch: the oracle of QEMU's embm-emu plugin counts the pages of these
 * buffers, mapped now, one by one (the pages of the first 16384 or what
 * the device has room for).
 */
static void watch_pages(char **base, int n)
{
	struct emu_dev dev;
	uint64_t *pfn;
	size_t total = 0, at = 0;
	int b, ret;

	for (b = 0; b < n; b++)
		total += buffers[b].size / PAGE;
	pfn = calloc(total, sizeof(*pfn));
	if (!pfn)
		fatal("out of memory");
	if (emu_open(&dev))
		fatal("--watch: %s", emu_error());
	for (b = 0; b < n; b++) {
		if (emu_pagemap(0, (uintptr_t)base[b], buffers[b].size, pfn + at))
			fatal("--watch: %s", emu_error());
		at += buffers[b].size / PAGE;
	}
	if (total > dev.hdr->max_pages)
		total = dev.hdr->max_pages;
	ret = emu_set_pages(&dev, pfn, total);
	if (ret < 0 || emu_commit(&dev, EMU_TIMEOUT_MS))
		fatal("--watch: %s", emu_error());
	emu_close(&dev);
	free(pfn);
}

/* One process: allocate, split among threads, run. */
static void run_process(unsigned int id)
{
	struct slice *slices = calloc(nr_threads, sizeof(*slices));
	pthread_t *threads = calloc(nr_threads, sizeof(*threads));
	char *base[MAX_BUFFERS];
	pthread_barrier_t ready, touched;
	int b, t;

	if (!slices || !threads)
		fatal("out of memory");
	pthread_barrier_init(&ready, NULL, nr_threads);
	pthread_barrier_init(&touched, NULL, nr_threads + 1);
	for (b = 0; b < nr_buffers; b++) {
		size_t pages = buffers[b].size / PAGE, per = pages / nr_threads;
		char *p = numa_alloc_onnode(buffers[b].size, buffers[b].node);

		if (!p)
			fatal("cannot allocate %zu bytes on node %d", buffers[b].size,
			      buffers[b].node);
		if (madvise(p, buffers[b].size, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
			fatal("madvise(%s): %m", huge ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE");
		base[b] = p;
		for (t = 0; t < nr_threads; t++) {
			slices[t].base[b] = p + t * per * PAGE;
			slices[t].len[b] = (t == nr_threads - 1 ? pages - t * per : per) * PAGE;
		}
	}
	for (t = 0; t < nr_threads; t++) {
		slices[t].seed = id * 1000 + t;
		slices[t].ready = &ready;
		slices[t].touched = watch && !id ? &touched : NULL;
		if (pthread_create(&threads[t], NULL, worker, &slices[t]))
			fatal("pthread_create failed");
	}
	if (watch && !id) {
		pthread_barrier_wait(&touched);
		watch_pages(base, nr_buffers);
		pthread_barrier_wait(&touched);
	}
	for (t = 0; t < nr_threads; t++)
		pthread_join(threads[t], NULL);
}

/* CPU time of this process and of its children waited for, in ms. */
static double cpu_ms(void)
{
	struct rusage self, children;

	if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &children))
		return 0;
	return (self.ru_utime.tv_sec + self.ru_stime.tv_sec +
		children.ru_utime.tv_sec + children.ru_stime.tv_sec) * 1e3 +
	       (self.ru_utime.tv_usec + self.ru_stime.tv_usec +
		children.ru_utime.tv_usec + children.ru_stime.tv_usec) / 1e3;
}

static void print(FILE *f, bool json, double secs)
{
	int n, first = 1;

	if (json) {
		fprintf(f, "{\"version\": 1, \"tool\": \"embm-bench\", \"pattern\": \"%s\", ",
			pattern_names[pattern]);
		fprintf(f, "\"processes\": %d, \"threads\": %d, \"elapsed_ms\": %.0f, ",
			nr_children + 1, nr_threads, secs * 1000);
		fprintf(f, "\"cpu_ms\": %.1f, \"touch_ms\": %.3f,\n", cpu_ms(), *touch_ns / 1e6);
		fprintf(f, " \"pids\": [");
		for (n = 0; n <= nr_children; n++)
			fprintf(f, "%s%d", n ? ", " : "", pids[n]);
		fprintf(f, "],\n");
		fprintf(f, " \"nodes\": [\n");
		for (n = 0; n < MAX_NODES; n++) {
			struct counts *c = &shared[n];

			if (!c->pages)
				continue;
			fprintf(f, "%s  {\"node\": %d, \"pages\": %llu, ", first ? "" : ",\n", n,
				c->pages);
			fprintf(f, "\"accesses\": %llu, \"loads\": %llu, \"stores\": %llu}",
				c->loads + c->stores, c->loads, c->stores);
			first = 0;
		}
		fprintf(f, "\n ]}\n");
		return;
	}
	fprintf(f, "embm-bench: %s, %d process(es) x %d thread(s), %.3f s; pids",
		pattern_names[pattern], nr_children + 1, nr_threads, secs);
	for (n = 0; n <= nr_children; n++)
		fprintf(f, " %d", pids[n]);
	fprintf(f, "\n");
	fprintf(f, "  node       pages     accesses        loads       stores\n");
	for (n = 0; n < MAX_NODES; n++) {
		struct counts *c = &shared[n];

		if (c->pages)
			fprintf(f, "  %4d %11llu %12llu %12llu %12llu\n", n, c->pages,
				c->loads + c->stores, c->loads, c->stores);
	}
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: embm-bench [options] -b SIZE@NODE [-b SIZE@NODE ...]\n"
		"       embm-bench [-j] [-o FILE] -s N\n"
		"\n"
		"Touches buffers bound to nodes and says what it did per node;\n"
		"or times sessions of embm on itself.\n"
		"\n"
		"  -b, --buffer SIZE@NODE  a buffer of SIZE bytes (K, M, G) bound to NODE\n"
		"  -p, --pattern P         write (default), seq-read, rand-read, chase, rmw\n"
		"                          (a load then a store of each line) or hot (random\n"
		"                          loads, --hot-percent of them in a hot set)\n"
		"      --hot-pages N       pattern hot: N pages of each slice, spread evenly\n"
		"                          over it (default 32, or every page of a smaller\n"
		"                          slice; a slice has a buffer's pages / --threads)\n"
		"      --hot-percent P     pattern hot: P%% of the loads in them (default 90)\n"
		"  -t, --threads N         threads per process, each on a slice (default 1)\n"
		"  -c, --children N        child processes, each with buffers of its own\n"
		"  -r, --passes N          passes of the pattern (default 1)\n"
		"  -H, --huge              transparent huge pages (MADV_HUGEPAGE) instead of 4 KiB pages\n"
		"  -F, --first-touch HOW   write (default) or read: never-written memory maps the zero page\n"
		"  -s, --sessions N        instead: time N embm_start() + embm_end() pairs on itself\n"
		"  -d, --duration S        run passes for S seconds instead\n"
		"  -w, --watch             the exact counts of QEMU's embm-emu plugin count the\n"
		"                          pages of the first process's buffers (embm-oracle\n"
		"                          show -P; root, in a guest booted with the plugin)\n"
		"  -j, --json              print JSON, in embm-run's names\n"
		"  -o, --output FILE       write to FILE, not stdout\n"
		"  -h, --help              this text\n"
		"\n"
		"Every page is first written once (pages: 4 KiB pages first touched, in huge\n"
		"pages too), then the pattern makes one access per 64-byte line a pass, two\n"
		"for rmw (accesses = loads + stores).  embm-run names its estimates alike: pages\n"
		"for the swfault source (first touches), accesses for pebs and ibs.\n");
}

static const struct option opts[] = {
	{ "buffer",	 required_argument,	NULL, 'b' },
	{ "pattern",	 required_argument,	NULL, 'p' },
	{ "threads",	 required_argument,	NULL, 't' },
	{ "children",	 required_argument,	NULL, 'c' },
	{ "passes",	 required_argument,	NULL, 'r' },
	{ "huge",	 no_argument,		NULL, 'H' },
	{ "first-touch", required_argument,	NULL, 'F' },
	{ "sessions",	 required_argument,	NULL, 's' },
	{ "duration",	 required_argument,	NULL, 'd' },
	{ "json",	 no_argument,		NULL, 'j' },
	{ "watch",	 no_argument,		NULL, 'w' },
	{ "output",	 required_argument,	NULL, 'o' },
	{ "help",	 no_argument,		NULL, 'h' },
	{ "hot-pages",	 required_argument,	NULL, 'P' },
	{ "hot-percent", required_argument,	NULL, 'Q' },
	{ }
};

/*
 * Take the options into the globals, and --json and --output into *@json
 * and *@output; exit with 0 for --help, with 2 for bad usage (a value out
 * of bounds too).
 */
static void parse_args(int argc, char **argv, bool *json, const char **output)
{
	int c, i;

	while ((c = getopt_long(argc, argv, "b:p:t:c:r:HF:s:d:jwo:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (nr_buffers == MAX_BUFFERS)
				usage_error("--buffer: at most %d buffers", MAX_BUFFERS);
			parse_buffer(optarg, &buffers[nr_buffers++]);
			break;
		case 'p':
			for (i = 0; i < NR_PATTERNS && strcmp(optarg, pattern_names[i]); i++)
				;
			if (i == NR_PATTERNS)
				usage_error("--pattern: %s",
					    "write, seq-read, rand-read, chase, rmw or hot");
			pattern = i;
			break;
		case 'P':
			hot_pages = parse_long("--hot-pages", optarg, 1, 1 << 20);
			hot_pages_given = true;
			hot_given = true;
			break;
		case 'Q':
			hot_percent = parse_long("--hot-percent", optarg, 0, 100);
			hot_given = true;
			break;
		case 't':
			nr_threads = parse_long("--threads", optarg, 1, 1024);
			break;
		case 'c':
			nr_children = parse_long("--children", optarg, 0, 1024);
			break;
		case 'r':
			passes = parse_long("--passes", optarg, 0, LONG_MAX);
			break;
		case 'H':
			huge = true;
			break;
		case 'F':
			if (strcmp(optarg, "write") && strcmp(optarg, "read"))
				usage_error("--first-touch: write or read");
			zero_read = !strcmp(optarg, "read");
			break;
		case 's':
			nr_sessions = parse_long("--sessions", optarg, 1, 100000);
			break;
		case 'd':
			duration = parse_seconds("--duration", optarg);
			break;
		case 'j':
			*json = true;
			break;
		case 'w':
			watch = true;
			break;
		case 'o':
			*output = optarg;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		default:
			see_help();
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sort @v and print its min, median and max (us) as "NAME": [...] or text. */
static void print_spread(FILE *f, bool json, const char *name, double *v, int n)
{
	double med;

	qsort(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (json)
		fprintf(f, "\"%s\": [%.1f, %.1f, %.1f]", name, v[0], med, v[n - 1]);
	else
		fprintf(f, "  %-16s %10.1f %10.1f %10.1f\n", name, v[0], med, v[n - 1]);
}

/* The parts of a session's start and end, as /proc/embm/status names them. */
static const char *const phase_keys[] = {
	"start_us", "start_stats_us", "start_threads_us", "start_kthread_us",
	"start_events_us", "start_enable_us", "start_clear_us", "end_us", "end_kthread_us",
	"end_close_us", "end_view_us", "end_report_us",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_PHASES	ARRAY_SIZE(phase_keys)

/* Read the phase_keys of /proc/embm/status into @v (-1 for one missing). */
static void read_phases(double *v)
{
	char line[256], key[64];
	unsigned long long x;
	FILE *f = fopen("/proc/embm/status", "r");
	size_t i;

	for (i = 0; i < NR_PHASES; i++)
		v[i] = -1;
	if (!f)
		fatal("/proc/embm/status: %m");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu", key, &x) != 2)
			continue;
		for (i = 0; i < NR_PHASES; i++)
			if (!strcmp(key, phase_keys[i]))
				v[i] = x;
	}
	fclose(f);
}

/*
 * Time nr_sessions sessions of embm on this process: embm_start() and
 * embm_end() each, and both, in microseconds, as this process sees them;
 * then the parts the kernel timed (/proc/embm/status, read after each
 * end).  Every CPU gets its events and buffer at start, so the times grow
 * with the number of CPUs.  A first session is not counted: it runs the
 * kernel's code for the first time, which under QEMU's TCG means
 * translating it (about 40 times the time of a session after it).
 */
static int time_sessions(FILE *f, bool json)
{
	double *start = calloc(nr_sessions, sizeof(*start));
	double *end = calloc(nr_sessions, sizeof(*end));
	double *pair = calloc(nr_sessions, sizeof(*pair));
	double *phase = calloc(nr_sessions * NR_PHASES, sizeof(*phase));
	double t0, t1, v[NR_PHASES];
	size_t p;
	int i;

	if (!start || !end || !pair || !phase)
		fatal("out of memory");
	if (syscall(__NR_embm_start, EMBM_PID_SELF, EMBM_NODE_NONE, 0) ||
	    syscall(__NR_embm_end, EMBM_PID_SELF, 0))
		fatal("embm_start/embm_end (the first, uncounted): %m");
	for (i = 0; i < nr_sessions; i++) {
		t0 = now();
		if (syscall(__NR_embm_start, EMBM_PID_SELF, EMBM_NODE_NONE, 0))
			fatal("embm_start: %m");
		t1 = now();
		if (syscall(__NR_embm_end, EMBM_PID_SELF, 0))
			fatal("embm_end: %m");
		start[i] = (t1 - t0) * 1e6;
		end[i] = (now() - t1) * 1e6;
		pair[i] = start[i] + end[i];
		read_phases(v);
		/* By part, then by session: each part's runs sort apart. */
		for (p = 0; p < NR_PHASES; p++)
			phase[p * nr_sessions + i] = v[p];
	}
	if (json) {
		fprintf(f, "{\"version\": 1, \"tool\": \"embm-bench\", \"sessions\": %d, ",
			nr_sessions);
		fprintf(f, "\"cpus\": %ld, ", sysconf(_SC_NPROCESSORS_ONLN));
		print_spread(f, json, "start_us", start, nr_sessions);
		fprintf(f, ", ");
		print_spread(f, json, "end_us", end, nr_sessions);
		fprintf(f, ", ");
		print_spread(f, json, "both_us", pair, nr_sessions);
		fprintf(f, ", \"kernel\": {");
		for (p = 0; p < NR_PHASES; p++) {
			fprintf(f, "%s", p ? ", " : "");
			print_spread(f, json, phase_keys[p], phase + p * nr_sessions, nr_sessions);
		}
		fprintf(f, "}}\n");
	} else {
		fprintf(f, "embm-bench: %d sessions on %ld CPUs, us\n", nr_sessions,
			sysconf(_SC_NPROCESSORS_ONLN));
		fprintf(f, "  %-16s %10s %10s %10s\n", "call", "min", "median", "max");
		print_spread(f, json, "embm_start", start, nr_sessions);
		print_spread(f, json, "embm_end", end, nr_sessions);
		print_spread(f, json, "both", pair, nr_sessions);
		fprintf(f, "  in the kernel (/proc/embm/status; -1: not there):\n");
		for (p = 0; p < NR_PHASES; p++)
			print_spread(f, json, phase_keys[p], phase + p * nr_sessions, nr_sessions);
	}
	free(start);
	free(end);
	free(pair);
	free(phase);
	return 0;
}

int main(int argc, char **argv)
{
	const char *output = NULL;
	bool json = false;
	FILE *out;
	double t0;
	int i, status, failed = 0;
	pid_t pid;

	parse_args(argc, argv, &json, &output);
	if (nr_sessions && !nr_buffers && optind == argc) {
		out = open_output(output);
		time_sessions(out, json);
		if (out != stdout)
			fclose(out);
		return 0;
	}
	if (!nr_buffers || optind != argc) {
		print_usage(stderr);
		return 2;
	}
	if (hot_given && pattern != HOT)
		usage_error("--hot-pages and --hot-percent are for --pattern hot");
	/* Each thread's slice: a page at least, and the hot set fits in it. */
	for (i = 0; i < nr_buffers; i++) {
		size_t pages = buffers[i].size / PAGE;

		if (pages < (size_t)nr_threads)
			usage_error("--threads %d: -b %zuK@%d has %zu page(s): too few",
				    nr_threads, buffers[i].size >> 10, buffers[i].node, pages);
		if (pattern == HOT && hot_pages_given && pages / nr_threads < (size_t)hot_pages)
			usage_error("--hot-pages %ld: more than a thread's %zu pages of -b %zuK@%d",
				    hot_pages, pages / nr_threads, buffers[i].size >> 10,
				    buffers[i].node);
	}
	if (numa_available() < 0)
		fatal("no NUMA support in this kernel");
	for (i = 0; i < nr_buffers; i++) {
		if (buffers[i].node > numa_max_node() ||
		    numa_node_size64(buffers[i].node, NULL) <= 0)
			fatal("node %d does not exist or has no memory", buffers[i].node);
	}
	out = open_output(output);
	shared = mmap(NULL, MAX_NODES * sizeof(*shared) + sizeof(*touch_ns) +
		      (nr_children + 1) * sizeof(*pids),
		      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		fatal("mmap: %m");
	touch_ns = (unsigned long long *)&shared[MAX_NODES];
	pids = (pid_t *)(touch_ns + 1);
	pids[0] = getpid();

	t0 = now();
	for (i = 0; i < nr_children; i++) {
		pid = fork();
		if (pid < 0)
			fatal("fork: %m");
		if (pid == 0) {
			run_process(i + 1);
			_exit(0);
		}
		pids[i + 1] = pid;
	}
	run_process(0);
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (failed)
		fatal("a child process failed");
	print(out, json, now() - t0);
	if (out != stdout)
		fclose(out);
	return 0;
}
