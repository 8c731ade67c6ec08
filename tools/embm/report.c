// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: read /proc/embm and print it as a table or as JSON
 *
 * procfs.c reads the files; this gathers them into one report and prints it.
 */
#include <errno.h>
#include <linux/embm.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Status keys whose values are copied as they are, and those that are numbers. */
static void read_status(struct embm_report *r, const struct embm_proc_status *st)
{
	struct { const char *key; char *s; size_t size; } strs[] = {
		{ "state", r->state, sizeof(r->state) },
		{ "source", r->source, sizeof(r->source) },
		{ "source_reason", r->reason, sizeof(r->reason) },
		{ "source_semantics", r->semantics, sizeof(r->semantics) },
		{ "source_blind", r->blind, sizeof(r->blind) },
		{ "accesses_unit", r->unit, sizeof(r->unit) },
		{ "period_why", r->period_why, sizeof(r->period_why) },
		{ "cpus", r->cpus, sizeof(r->cpus) },
	};
	struct { const char *key; unsigned long long *v; } nums[] = {
		{ "period", &r->period }, { "store_period", &r->store_period },
		{ "period_start", &r->period_start }, { "period_max", &r->period_max },
		{ "period_changes", &r->period_changes }, { "elapsed_ms", &r->elapsed_ms },
		{ "cpu_budget", &r->cpu_budget }, { "budget_used_permille", &r->budget_used },
		{ "sample_cost_ns", &r->sample_cost_ns }, { "lost_events", &r->lost_events },
		{ "samples", &r->samples }, { "attributed", &r->attributed },
		{ "no_phys", &r->no_phys }, { "bad_pfn", &r->bad_pfn },
		{ "hotplug_busy", &r->hotplug_busy }, { "latency_only", &r->latency_only },
		{ "lat_dropped_cache", &r->lat_dropped_cache },
		{ "lat_dropped_uncached", &r->lat_dropped_uncached },
		{ "lat_dropped_io", &r->lat_dropped_io },
		{ "lat_dropped_unknown", &r->lat_dropped_unknown },
		{ "lost", &r->lost }, { "throttled", &r->throttled },
		{ "bad_records", &r->bad_records }, { "events", &r->events },
		{ "ksamplingd_cpu_ms", &r->cpu_ms },
		{ "ksamplingd_cpu_permille", &r->cpu_permille },
		{ "cache_served", &r->cache_served },
		{ "kinds_multiplexed", &r->kinds_multiplexed },
		{ "cxl_windows", &r->cxl_windows },
		{ "cxl_device_samples", &r->cxl_device },
		{ "accesses", &r->accesses }, { "accesses_lo", &r->accesses_lo },
		{ "accesses_hi", &r->accesses_hi },
		{ "tasks", &r->tasks_count }, { "tasks_max", &r->tasks_max },
		{ "tasks_other_samples", &r->tasks_other_samples },
	};
	const char *v;
	unsigned int i;
	int e;

	r->version = st->version;
	r->has_tasks = embm_proc_status_str(st, "tasks");
	for (i = 0; i < ARRAY_SIZE(strs); i++) {
		v = embm_proc_status_str(st, strs[i].key);
		snprintf(strs[i].s, strs[i].size, "%s", v ?: "");
	}
	for (i = 0; i < ARRAY_SIZE(nums); i++) {
		v = embm_proc_status_str(st, nums[i].key);
		*nums[i].v = v ? strtoull(v, NULL, 10) : 0;
	}
	if (!r->unit[0])
		snprintf(r->unit, sizeof(r->unit), "accesses");
	v = embm_proc_status_str(st, "source_fields");
	r->fields = v ? 0 : EMBM_HAS_OP | EMBM_HAS_LATENCY | EMBM_HAS_DATA_SRC;
	if (v && strstr(v, "loads"))
		r->fields |= EMBM_HAS_OP;
	if (v && strstr(v, "lat_samples"))
		r->fields |= EMBM_HAS_LATENCY;
	if (v && strstr(v, "cache"))
		r->fields |= EMBM_HAS_DATA_SRC;
	if (embm_proc_status_str(st, "target"))
		r->target = embm_proc_status_ll(st, "target");
	if (embm_proc_status_str(st, "node"))
		r->node = embm_proc_status_ll(st, "node");
	/* The "event" lines of kinds that ran less than their enabled time. */
	for (e = 0; e < st->nr_events; e++) {
		const struct embm_event *ev = &st->events[e];
		size_t len = strlen(r->multiplexed);
		char key[64];

		r->throttled_ms += ev->throttled_ms;
		if (ev->throttled_ms) {
			size_t tl = strlen(r->throttled_kinds);

			snprintf(r->throttled_kinds + tl, sizeof(r->throttled_kinds) - tl,
				 "  %s %llu ms of %llu ms running\n", ev->name, ev->throttled_ms,
				 ev->running_ms);
		}
		if (ev->running_ms >= ev->enabled_ms)
			continue;
		snprintf(key, sizeof(key), "event %s", ev->name);
		snprintf(r->multiplexed + len, sizeof(r->multiplexed) - len, "  %s %s\n",
			 ev->name, embm_proc_status_str(st, key) ?: "");
	}
}

/* A file only root may read (physical addresses), read by someone else. */
static bool for_root(int err)
{
	return err == EPERM || err == EACCES;
}

/**
 * embm_report_read() - read every file of an embm procfs directory
 * @r:   filled in; free with embm_report_free()
 * @dir: normally EMBM_PROC_DIR
 *
 * hotpages and windows, for root only, are left empty for others
 * (@r->hot_hidden, @r->nr_win -1).
 *
 * Return: 0; -1 with errno set when a file is missing or of another
 * version (ENOENT: no embm here; EPROTO: a layout this tool does not know).
 */
int embm_report_read(struct embm_report *r, const char *dir)
{
	struct embm_proc_status *st;
	int n;

	memset(r, 0, sizeof(*r));
	r->target = -1;
	r->node = -1;
	st = malloc(sizeof(*st));
	if (!st)
		return -1;
	if (embm_proc_read_status(dir, st)) {
		free(st);
		return -1;
	}
	read_status(r, st);
	free(st);
	if (!strcmp(r->state, "idle"))
		return 0;
	n = embm_proc_read_nodes(dir, r->nodes, EMBM_TOOLS_MAX_NODES);
	if (n < 0)
		return -1;
	r->nr_nodes = n;
	/* Without them, the dropped latencies read 0: the report stands. */
	embm_proc_read_lat_dropped(dir, r->nodes, n, EMBM_TOOLS_MAX_NODES);
	r->hot = calloc(EMBM_TOOLS_MAX_HOT, sizeof(*r->hot));
	if (!r->hot)
		return -1;
	n = embm_proc_read_hot(dir, r->hot, EMBM_TOOLS_MAX_HOT);
	r->hot_hidden = n < 0 && for_root(errno);
	if ((n < 0 && !r->hot_hidden) ||
	    embm_proc_read_matrix(dir, &r->matrix, EMBM_TOOLS_MAX_NODES))
		goto out_free;
	r->nr_hot = n > 0 ? n : 0;
	r->nr_win = embm_proc_read_windows(dir, r->win, EMBM_TOOLS_MAX_WINDOWS);
	if (r->nr_win < 0 && !for_root(errno))
		goto out_free;
	/* Optional, as hotpages is: a file that does not parse is left out. */
	if (embm_proc_read_tasks(dir, &r->tasks, EMBM_TOOLS_MAX_TASKS))
		r->tasks_errno = errno;
	r->nr_hint = embm_proc_read_hint(dir, r->hint, EMBM_TOOLS_MAX_HINT);
	if (r->nr_hint < 0) {
		r->hint_errno = errno;
		r->nr_hint = 0;
	}
	return 0;

out_free:
	embm_report_free(r);
	return -1;
}

void embm_report_free(struct embm_report *r)
{
	embm_proc_free_tasks(&r->tasks);
	embm_proc_free_matrix(&r->matrix);
	free(r->hot);
	r->hot = NULL;
}

/*
 * What the columns mean, for --help, the README and the admin guide: the
 * first thing a reader of a report needs.
 */
const char embm_report_legend[] =
	"The per-node table (a column the source cannot fill is left out):\n"
	"  samples    samples whose physical address is on the node (a count)\n"
	"  share      the node's part of the estimate: each sample weighs its period\n"
	"             (and, for page faults, the 4 KiB pages it mapped), so the\n"
	"             shares hold while the adaptive period moves\n"
	"  95% interval    the share's 95% interval under random sampling: sampling\n"
	"             error only (Wilson's, weighted by the periods; see embm.rst)\n"
	"  loads, stores   samples of loads, of stores (pebs, ibs)\n"
	"  accesses   estimated loads and stores (pebs, ibs): samples x period,\n"
	"             scaled when perf multiplexed the event\n"
	"  pages      estimated 4 KiB pages first touched (swfault): faults x period\n"
	"             x pages each mapped (a 2 MiB huge page counts 512)\n"
	"  +-95%      half the 95% interval of accesses (or pages), relative\n"
	"  kernel     the part of accesses (or pages) sampled in kernel mode: page\n"
	"             cache copies, slab, page tables; the rest is user mode\n"
	"  lat(cyc)   mean load latency in core cycles of samples served by memory,\n"
	"             each weighing its period (pebs, ibs)\n"
	"  distinct   distinct 4 KiB pages among the samples (an estimate, at most\n"
	"             the pages the samples covered)\n"
	"  cache, memory   samples served by a cache, by memory (pebs, ibs)\n"
	"  cxl, windows    samples in a CXL window, and the windows of the node\n"
	"Rows: '*' marks the node under study; tier is dram (a node with CPUs),\n"
	"far (memory without CPUs, or below the top tier) or cxl (in a CXL window).\n"
	"The matrix and the hot pages' counts are estimates too (samples x period).\n";

/* Is @v, of @r's columns, one the source fills? */
static bool has(const struct embm_report *r, unsigned int v)
{
	return r->fields & v;
}

static void print_lat(FILE *f, const struct embm_node *n)
{
	if (n->lat_samples)
		fprintf(f, " %9llu", n->lat_mean);
	else
		fprintf(f, " %9s", "-");
}

/* The CXL windows, their ranges if this reader may see them. */
static void print_windows(FILE *f, const struct embm_report *r)
{
	int i;

	if (!r->cxl_windows)
		return;
	if (r->nr_win < 0) {
		fprintf(f, "\nCXL windows: %llu, %llu samples on device pages",
			r->cxl_windows, r->cxl_device);
		fprintf(f, " (ranges: for root only)\n");
		return;
	}
	fprintf(f, "\nCXL windows:\n");
	for (i = 0; i < r->nr_win; i++) {
		const struct embm_cxl_window *w = &r->win[i];

		fprintf(f, "  %-4s %#llx-%#llx node %d: %llu samples, %llu on device pages\n",
			w->name, w->start, w->end, w->node, w->samples, w->device);
	}
}

/* "period 1 -> 16 (max 16, 2 changes, last: WHY)", or "period 16". */
static void print_period(FILE *f, const struct embm_report *r)
{
	if (!r->period_changes) {
		fprintf(f, "period %llu", r->period);
		return;
	}
	fprintf(f, "period %llu -> %llu (max %llu, %llu change%s; last: %s)", r->period_start,
		r->period, r->period_max, r->period_changes, r->period_changes == 1 ? "" : "s",
		r->period_why);
}

/*
 * What the reader should know before reading the table: nothing sampled,
 * most samples without an address, or most lost.
 */
static void print_hints(FILE *f, const struct embm_report *r)
{
	unsigned long long noaddr = r->no_phys + r->bad_pfn;

	if (!r->samples && !r->lost) {
		fprintf(f, "hint: no samples: nothing the target did was seen by %s",
			r->source[0] ? r->source : "the source");
		if (!strcmp(r->source, "swfault"))
			fprintf(f, ", which samples page faults: a process that touched its\n"
				"memory before the session makes none (see 'not seen' above)");
		fprintf(f, "\n");
	}
	if (noaddr && noaddr * 2 > r->samples)
		fprintf(f,
			"warning: %llu of %llu samples had no physical address%s: the shares are of the %llu others\n",
			noaddr, r->samples,
			!strcmp(r->source, "swfault") ?
			" (reads of never-written memory map the zero page; kernel threads')" : "",
			r->attributed);
	if (r->lost && r->lost * 2 > r->samples)
		fprintf(f,
			"warning: %llu samples lost, more than half: the shares are of the samples kept; raise /sys/kernel/mm/embm/ring_pages or the period\n",
			r->lost);
}

/* The estimate's column title: "accesses" or "pages". */
static const char *unit(const struct embm_report *r)
{
	return r->unit[0] ? r->unit : "accesses";
}

/* @frac as a percentage in @width columns, or "-" for none (< 0). */
static void print_pct(FILE *f, double frac, int width)
{
	if (frac < 0)
		fprintf(f, " %*s", width, "-");
	else
		fprintf(f, " %*.1f%%", width - 1, 100 * frac);
}

/* The tier of node @node in @r's per-node table, or "-". */
static const char *node_tier(const struct embm_report *r, int node)
{
	for (int i = 0; i < r->nr_nodes; i++)
		if (r->nodes[i].node == node)
			return r->nodes[i].tier;
	return "-";
}

/*
 * The per-task table, the top @top tasks by accesses: each one's samples,
 * share of all accesses, the part in the kernel and in CXL windows, and
 * how its accesses spread over the nodes.
 */
static void print_tasks(FILE *f, const struct embm_report *r, unsigned int top)
{
	const struct embm_tasks_table *t = &r->tasks;
	int i, c, shown = 0, tasks = 0;

	if (r->tasks_errno) {
		fprintf(f, "\ntasks: unreadable: %s\n", strerror(r->tasks_errno));
		return;
	}
	if (!r->has_tasks) {
		fprintf(f, "\ntasks: none kept (%s)\n",
			"a kernel without them, or a session started outside the initial pid namespace");
		return;
	}
	if (!t->nr_rows || (t->nr_rows == 1 && t->rows[0].pid < 0 && !t->rows[0].samples)) {
		fprintf(f, "\ntasks: none counted%s\n",
			r->tasks_max ? "" : " (max_tasks is 0: every task in other tasks)");
		return;
	}
	fprintf(f, "\ntasks by estimated %s (%llu with an entry, max_tasks %llu; %s %s by node):\n",
		unit(r), r->tasks_count, r->tasks_max, "% of each task's", unit(r));
	fprintf(f, "%8s %8s %-16s %9s %7s %7s %6s", "pid", "tid", "comm", "samples", "share",
		"kernel", "cxl");
	for (c = 0; c < t->nr_cols; c++) {
		char name[32];

		if (t->cols[c] < 0)
			snprintf(name, sizeof(name), "other");
		else
			snprintf(name, sizeof(name), "n%d %s", t->cols[c],
				 node_tier(r, t->cols[c]));
		fprintf(f, " %10s", name);
	}
	fprintf(f, "\n");
	for (i = 0; i < t->nr_rows; i++) {
		const struct embm_task_row *w = &t->rows[i];
		bool other = w->pid < 0;

		tasks += !other;
		/* The other tasks' row is last; shown only when it counted some. */
		if (other ? !w->samples : shown >= (int)top)
			continue;
		shown += !other;
		if (other)
			fprintf(f, "%8s %8s %-16s", "-", "-", "(other tasks)");
		else
			fprintf(f, "%8d %8d %-16s", w->pid, w->tid, w->comm);
		fprintf(f, " %9llu %6.2f%%", w->samples, w->share);
		print_pct(f, w->accesses ? (double)w->kernel / w->accesses : -1, 7);
		print_pct(f, w->accesses ? (double)w->cxl / w->accesses : -1, 6);
		for (c = 0; c < t->nr_cols; c++)
			print_pct(f, w->accesses ? (double)w->node_accesses[c] / w->accesses : -1,
				  10);
		fprintf(f, "\n");
	}
	if (shown < tasks)
		fprintf(f, "(%d more tasks: -t N, or /proc/embm/tasks)\n", tasks - shown);
}

/* @bytes as "256 KiB", "2 MiB". */
static const char *size_str(unsigned long long bytes, char *buf, size_t size)
{
	if (bytes >= (1ULL << 30) && !(bytes % (1ULL << 30)))
		snprintf(buf, size, "%llu GiB", bytes >> 30);
	else if (bytes >= (1ULL << 20) && !(bytes % (1ULL << 20)))
		snprintf(buf, size, "%llu MiB", bytes >> 20);
	else
		snprintf(buf, size, "%llu KiB", bytes >> 10);
	return buf;
}

/*
 * The promotion hint: for each far or CXL node, how much of its sampled
 * accesses its hottest 8, 64, 512 and 4096 pages carry (or all it kept,
 * where fewer), with their intervals; the whole curve is in
 * /proc/embm/hint and the JSON.
 */
static void print_hint(FILE *f, const struct embm_report *r)
{
	static const unsigned long long sizes[] = { 8, 64, 512, 4096 };
	int i = 0;

	if (!r->nr_hint)
		return;
	fprintf(f, "\npromotion hint: the part of each far or CXL node's sampled %s %s:\n",
		unit(r), "that its hottest pages carry");
	while (i < r->nr_hint) {
		int node = r->hint[i].node, end = i, k;
		unsigned long long last = 0;
		char size[32];

		while (end < r->nr_hint && r->hint[end].node == node)
			end++;
		fprintf(f, "  node %d %s:", node, r->hint[i].tier);
		for (k = 0; k < (int)ARRAY_SIZE(sizes); k++) {
			const struct embm_hint_row *h = NULL;

			/* The point of that many pages, or all kept where fewer. */
			for (int j = i; j < end; j++)
				if (r->hint[j].pages <= sizes[k])
					h = &r->hint[j];
			if (!h || h->pages <= last)
				continue;
			fprintf(f, "%s %llu pages (%s) %.1f%% [%.1f-%.1f]%s", last ? "," : "",
				h->pages, size_str(h->bytes, size, sizeof(size)), h->share,
				h->share_lo, h->share_hi,
				h->min_samples < 10 ? " (pages sampled < 10 times: runs high)" :
				"");
			last = h->pages;
		}
		fprintf(f, "\n");
		i = end;
	}
}

/*
 * Who drove each node: for a session of many processes (system-wide or a
 * cgroup), the processes with the most estimated accesses on each node,
 * their threads summed.
 */
static const struct embm_tasks_table *drivers_table;

/* By pid, then row (the busiest thread of a pid first). */
static int by_pid(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int px = drivers_table->rows[x].pid, py = drivers_table->rows[y].pid;

	return px != py ? (px < py ? -1 : 1) : x - y;
}

static void print_drivers(FILE *f, const struct embm_report *r)
{
	const struct embm_tasks_table *t = &r->tasks;
	int *order;

	if (r->target >= 0 || !t->nr_rows)
		return;
	/* Rows grouped by pid, once: each process's threads in a run. */
	order = malloc(t->nr_rows * sizeof(*order));
	if (!order)
		return;
	for (int i = 0; i < t->nr_rows; i++)
		order[i] = i;
	drivers_table = t;
	qsort(order, t->nr_rows, sizeof(*order), by_pid);
	fprintf(f, "\nprocesses with the most %s on each node (of all tasks' %s there; %s):\n",
		unit(r), unit(r), "named as their busiest thread");
	for (int c = 0; c < t->nr_cols; c++) {
		unsigned long long sum = 0, best[3] = { 0 };
		int pid[3] = { -1, -1, -1 }, row[3] = { -1, -1, -1 };

		for (int i = 0; i < t->nr_rows; i++)
			sum += t->rows[i].node_accesses[c];
		if (!sum)
			continue;
		for (int i = 0, j; i < t->nr_rows; i = j) {
			int p = t->rows[order[i]].pid, k;
			unsigned long long acc = 0;

			for (j = i; j < t->nr_rows && t->rows[order[j]].pid == p; j++)
				acc += t->rows[order[j]].node_accesses[c];
			/* Into the top three, in order. */
			for (k = 3; k > 0 && acc > best[k - 1]; k--)
				;
			if (k == 3)
				continue;
			for (int m = 2; m > k; m--) {
				best[m] = best[m - 1];
				pid[m] = pid[m - 1];
				row[m] = row[m - 1];
			}
			best[k] = acc;
			pid[k] = p;
			row[k] = order[i];
		}
		if (t->cols[c] < 0)
			fprintf(f, "  other nodes:");
		else
			fprintf(f, "  node %d %s:", t->cols[c], node_tier(r, t->cols[c]));
		for (int k = 0; k < 3 && row[k] >= 0 && best[k]; k++) {
			double pct = 100.0 * best[k] / sum;

			if (pid[k] < 0)
				fprintf(f, "%s other tasks %.1f%%", k ? "," : "", pct);
			else
				fprintf(f, "%s %s %d %.1f%%", k ? "," : "", t->rows[row[k]].comm,
					pid[k], pct);
		}
		fprintf(f, "\n");
	}
	free(order);
}

/* The whole estimate with its interval, and how much of it the kernel's. */
static void print_totals(FILE *f, const struct embm_report *r)
{
	unsigned long long user = 0, kernel = 0, us = 0, ks = 0;
	int i;

	for (i = 0; i < r->nr_nodes; i++) {
		user += r->nodes[i].user_accesses;
		kernel += r->nodes[i].kernel_accesses;
		us += r->nodes[i].user_samples;
		ks += r->nodes[i].kernel_samples;
	}
	if (!r->accesses)
		return;
	fprintf(f, "%s %llu, 95%% interval %llu-%llu (sampling error only); ", unit(r),
		r->accesses, r->accesses_lo, r->accesses_hi);
	fprintf(f, "user %llu (%.1f%%, %llu samples), kernel %llu (%.1f%%, %llu samples)\n",
		user, 100.0 * user / r->accesses, us, kernel, 100.0 * kernel / r->accesses, ks);
}

/**
 * embm_report_print() - the report as tables for a person
 * @f:    where to
 * @r:    the report
 * @what: a line saying what was measured, or NULL
 * @top:  how many hot pages to show
 */
void embm_report_print(FILE *f, const struct embm_report *r, const char *what,
		       unsigned int top)
{
	const struct embm_matrix *m = &r->matrix;
	int i, c;

	if (what)
		fprintf(f, "embm: %s\n", what);
	if (!strcmp(r->state, "idle")) {
		fprintf(f, "no session since boot\n");
		return;
	}
	fprintf(f, "session %s, target %d, node %d, %llu.%03llu s, source %s (%s)\n",
		r->state, r->target, r->node, r->elapsed_ms / 1000, r->elapsed_ms % 1000,
		r->source, r->reason);
	print_period(f, r);
	if (r->cpu_budget)
		fprintf(f, "; cpu_budget %llu permille, used %llu (%llu ns a sample)\n",
			r->cpu_budget, r->budget_used, r->sample_cost_ns);
	else
		fprintf(f, "; cpu_budget off\n");
	if (r->semantics[0] && strcmp(r->semantics, "-"))
		fprintf(f, "%s: %s\n", r->source, r->semantics);
	if (r->blind[0] && strcmp(r->blind, "-"))
		fprintf(f, "not seen by %s: %s\n", r->source, r->blind);
	/* Every sample is in one term (embm_stats_identity_ok()). */
	fprintf(f,
		"samples %llu = attributed %llu (cache-served %llu) + latency-only %llu + no address %llu + on CXL device pages %llu + during hotplug %llu; lost %llu (~%llu events, nodes unknown), throttled %llu; ksamplingd %llu ms CPU (%llu.%llu%%)\n",
		r->samples, r->attributed, r->cache_served, r->latency_only,
		r->no_phys + r->bad_pfn, r->cxl_device, r->hotplug_busy, r->lost,
		r->lost_events, r->throttled, r->cpu_ms, r->cpu_permille / 10,
		r->cpu_permille % 10);
	if (r->throttled_kinds[0])
		fprintf(f, "throttled by perf (accesses scaled up for the time):\n%s",
			r->throttled_kinds);
	if (r->lat_dropped_cache + r->lat_dropped_uncached + r->lat_dropped_io +
	    r->lat_dropped_unknown)
		fprintf(f,
			"latency left out: %llu served by a cache, %llu uncached, %llu I/O, %llu of unknown source\n",
			r->lat_dropped_cache, r->lat_dropped_uncached, r->lat_dropped_io,
			r->lat_dropped_unknown);
	if (r->hotplug_busy)
		fprintf(f, "not placed: %llu samples taken during memory or CPU hotplug\n",
			r->hotplug_busy);
	if (r->kinds_multiplexed)
		fprintf(f, "%s%s",
			"ran part of the time (other perf users, too few counters or CPUs\n"
			"without events; accesses scaled up):\n", r->multiplexed);
	print_hints(f, r);
	fprintf(f, "\n");

	fprintf(f, "  node tier    samples   share   95%% interval");
	if (has(r, EMBM_HAS_OP))
		fprintf(f, "    loads   stores");
	fprintf(f, " %12s   +-95%% kernel", unit(r));
	if (has(r, EMBM_HAS_LATENCY))
		fprintf(f, "  lat(cyc)");
	fprintf(f, "  distinct");
	if (has(r, EMBM_HAS_DATA_SRC))
		fprintf(f, "      cache     memory");
	fprintf(f, "        cxl windows\n");
	for (i = 0; i < r->nr_nodes; i++) {
		const struct embm_node *n = &r->nodes[i];

		fprintf(f, "%c %4d %-4s %10llu %6.2f%% [%5.2f-%6.2f]", n->study ? '*' : ' ',
			n->node, n->tier, n->samples, n->share, n->share_lo, n->share_hi);
		if (has(r, EMBM_HAS_OP))
			fprintf(f, " %8llu %8llu", n->loads, n->stores);
		fprintf(f, " %12llu ", n->accesses);
		print_pct(f, n->accesses ? (n->accesses_hi - n->accesses_lo) / 2.0 / n->accesses :
			  -1, 6);
		print_pct(f, n->accesses ? (double)n->kernel_accesses / n->accesses : -1, 6);
		if (has(r, EMBM_HAS_LATENCY))
			print_lat(f, n);
		fprintf(f, " %9llu", n->pages);
		if (has(r, EMBM_HAS_DATA_SRC))
			fprintf(f, " %10llu %10llu", n->cache, n->mem);
		fprintf(f, " %10llu %s\n", n->cxl, n->windows[0] ? n->windows : "-");
	}
	print_windows(f, r);
	print_totals(f, r);
	print_hint(f, r);
	print_drivers(f, r);
	if (r->per_task)
		print_tasks(f, r, top);
	if (m->nr_rows) {
		fprintf(f, "\n%s (estimated) by CPU node (rows) and memory node (columns):\n%8s",
			unit(r), "");
		for (c = 0; c < m->nr_cols; c++)
			fprintf(f, " %10s%d", "mem", m->cols[c]);
		fprintf(f, "\n");
		for (i = 0; i < m->nr_rows; i++) {
			fprintf(f, "  node%-3d", m->rows[i]);
			for (c = 0; c < m->nr_cols; c++)
				fprintf(f, " %11llu", m->samples[i * m->nr_cols + c]);
			fprintf(f, "\n");
		}
	}
	if (r->nr_hot && top) {
		int shown = 0;

		fprintf(f, "\nhot pages (count: estimated %s, at most error too high):\n",
			unit(r));
		for (i = 0; i < r->nr_hot && shown < (int)top; i++) {
			const struct embm_hot *h = &r->hot[i];

			/* Only pages sampled more than once for sure. */
			if (h->samples < 2)
				continue;
			if (!shown++)
				fprintf(f, "%s\n",
					"  rank         pfn  node tier       count     error   samples");
			fprintf(f, "%c %4u %#11llx %5d %-4s %11llu %9llu %9llu\n",
				h->study ? '*' : ' ', h->rank, h->pfn, h->node, h->tier, h->count,
				h->error, h->samples);
		}
		if (!shown)
			fprintf(f, "  none: no page was sampled more than once for sure%s\n",
				!strcmp(r->source, "swfault") ?
				" (swfault: a page faults once)" : "");
	}
	if (r->hot_hidden && top)
		fprintf(f, "\nhot pages: for root only (physical addresses)\n");
}

/**
 * embm_json_str() - a string as JSON: quoted, with its quotes, backslashes
 * and control characters escaped
 * @f: where to
 * @s: the string
 */
void embm_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* The promotion hint, each far or CXL node's curve, as "hint". */
static void json_hint(FILE *f, const struct embm_report *r)
{
	fprintf(f, ",\n \"hint\": [");
	for (int i = 0; i < r->nr_hint; i++) {
		const struct embm_hint_row *h = &r->hint[i];
		bool first = !i || r->hint[i - 1].node != h->node;
		bool last = i + 1 == r->nr_hint || r->hint[i + 1].node != h->node;

		if (first)
			fprintf(f, "%s\n  {\"node\": %d, \"tier\": \"%s\", \"curve\": [",
				i ? "," : "", h->node, h->tier);
		fprintf(f, "%s{\"pages\": %llu, \"bytes\": %llu, \"share_pct\": %.2f, ",
			first ? "" : ", ", h->pages, h->bytes, h->share);
		fprintf(f, "\"share_lo_pct\": %.2f, \"share_hi_pct\": %.2f, \"min_samples\": %llu}",
			h->share_lo, h->share_hi, h->min_samples);
		if (last)
			fprintf(f, "]}");
	}
	fprintf(f, "%s]", r->nr_hint ? "\n " : "");
}

/*
 * The per-task table, every row, as "tasks" (the other tasks' pid null):
 * with --per-task only, as a system-wide session may have thousands.
 */
static void json_tasks(FILE *f, const struct embm_report *r)
{
	const struct embm_tasks_table *t = &r->tasks;

	fprintf(f, ",\n \"tasks_max\": %llu, \"tasks\": [\n", r->tasks_max);
	for (int i = 0; i < t->nr_rows; i++) {
		const struct embm_task_row *w = &t->rows[i];

		if (w->pid < 0)
			fprintf(f, "  {\"pid\": null, \"tid\": null, \"comm\": %s, ",
				"\"(other tasks)\"");
		else
			fprintf(f, "  {\"pid\": %d, \"tid\": %d, \"comm\": ", w->pid, w->tid);
		if (w->pid >= 0) {
			embm_json_str(f, w->comm);
			fprintf(f, ", ");
		}
		fprintf(f, "\"samples\": %llu, \"%s\": %llu, \"share_pct\": %.2f, ", w->samples,
			unit(r), w->accesses, w->share);
		fprintf(f, "\"user_%s\": %llu, \"kernel_%s\": %llu, \"cxl_%s\": %llu, \"nodes\": [",
			unit(r), w->user, unit(r), w->kernel, unit(r), w->cxl);
		for (int c = 0; c < t->nr_cols; c++) {
			if (t->cols[c] < 0)
				fprintf(f, "%s{\"node\": null, ", c ? ", " : "");
			else
				fprintf(f, "%s{\"node\": %d, \"tier\": \"%s\", ", c ? ", " : "",
					t->cols[c], node_tier(r, t->cols[c]));
			fprintf(f, "\"samples\": %llu, \"%s\": %llu}", w->node_samples[c], unit(r),
				w->node_accesses[c]);
		}
		fprintf(f, "]}%s\n", i + 1 < t->nr_rows ? "," : "");
	}
	fprintf(f, " ]");
}

/**
 * embm_report_json() - the report as one JSON object
 * @f:    where to
 * @r:    the report
 * @tool: "embm-run" or "embm-stat"
 * @what: the command measured, or NULL
 * @top:  how many hot pages to include
 * @more: writes more members (embm-run's bandwidth), or NULL
 * @arg:  its argument
 *
 * One node object a line, so that simple tools can read it line by line.
 * embm-bench uses the same names for what it did.
 */
void embm_report_json(FILE *f, const struct embm_report *r, const char *tool,
		      const char *what, unsigned int top, embm_json_more_fn more, void *arg)
{
	const struct embm_matrix *m = &r->matrix;
	int i, c;

	fprintf(f, "{\"version\": %d, \"tool\": ", EMBM_PROC_VERSION);
	embm_json_str(f, tool);
	if (what) {
		fprintf(f, ", \"command\": ");
		embm_json_str(f, what);
	}
	fprintf(f, ", \"state\": ");
	embm_json_str(f, r->state);
	fprintf(f, ", \"target\": %d, \"node\": %d, \"source\": ", r->target, r->node);
	embm_json_str(f, r->source);
	fprintf(f, ", \"source_reason\": ");
	embm_json_str(f, r->reason);
	fprintf(f, ", \"source_semantics\": ");
	embm_json_str(f, r->semantics);
	fprintf(f, ", \"source_blind\": ");
	embm_json_str(f, r->blind);
	fprintf(f, ", \"unit\": ");
	embm_json_str(f, unit(r));
	fprintf(f, ", \"cache_served\": %llu, \"kinds_multiplexed\": %llu",
		r->cache_served, r->kinds_multiplexed);
	fprintf(f, ",\n \"period\": %llu, \"store_period\": %llu, \"period_start\": %llu, ",
		r->period, r->store_period, r->period_start);
	fprintf(f, "\"period_max\": %llu, \"period_changes\": %llu, \"period_why\": ",
		r->period_max, r->period_changes);
	embm_json_str(f, r->period_why);
	fprintf(f, ", \"cpu_budget\": %llu, \"budget_used_permille\": %llu, ",
		r->cpu_budget, r->budget_used);
	fprintf(f, "\"sample_cost_ns\": %llu, \"elapsed_ms\": %llu,\n ",
		r->sample_cost_ns, r->elapsed_ms);
	fprintf(f, "\"samples\": %llu, \"attributed\": %llu, \"no_phys\": %llu, \"lost\": %llu, ",
		r->samples, r->attributed, r->no_phys + r->bad_pfn, r->lost);
	fprintf(f, "\"hotplug_busy\": %llu, \"latency_only\": %llu, ", r->hotplug_busy,
		r->latency_only);
	/* Time perf kept the events throttled: the estimates are scaled for it. */
	fprintf(f, "\"throttled_ms\": %llu, ", r->throttled_ms);
	fprintf(f, "\"lost_events\": %llu, ", r->lost_events);
	fprintf(f, "\"throttled\": %llu, \"ksamplingd_cpu_ms\": %llu,\n ",
		r->throttled, r->cpu_ms);
	fprintf(f, "\"%s\": %llu, \"%s_lo\": %llu, \"%s_hi\": %llu, \"interval_pct\": 95,\n",
		unit(r), r->accesses, unit(r), r->accesses_lo, unit(r), r->accesses_hi);
	fprintf(f, " \"nodes\": [\n");
	for (i = 0; i < r->nr_nodes; i++) {
		const struct embm_node *n = &r->nodes[i];

		/* The estimate is named as embm-bench names what it did. */
		fprintf(f, "  {\"node\": %d, \"tier\": \"%s\", \"samples\": %llu, ",
			n->node, n->tier, n->samples);
		fprintf(f, "\"share_pct\": %.2f, \"share_lo_pct\": %.2f, \"share_hi_pct\": %.2f, ",
			n->share, n->share_lo, n->share_hi);
		fprintf(f, "\"%s\": %llu, \"%s_lo\": %llu, \"%s_hi\": %llu, ", unit(r),
			n->accesses, unit(r), n->accesses_lo, unit(r), n->accesses_hi);
		fprintf(f, "\"user_samples\": %llu, \"kernel_samples\": %llu, ",
			n->user_samples, n->kernel_samples);
		fprintf(f, "\"user_%s\": %llu, \"kernel_%s\": %llu, ", unit(r),
			n->user_accesses, unit(r), n->kernel_accesses);
		fprintf(f, "\"distinct_pages\": %llu, ", n->pages);
		if (has(r, EMBM_HAS_OP))
			fprintf(f, "\"loads\": %llu, \"stores\": %llu, ", n->loads, n->stores);
		if (has(r, EMBM_HAS_LATENCY)) {
			fprintf(f, "\"lat_samples\": %llu, \"lat_mean_cycles\": %llu, ",
				n->lat_samples, n->lat_mean);
			/* Samples whose latency was left out, by why. */
			fprintf(f, "\"lat_dropped\": {\"cache\": %llu, \"uncached\": %llu, ",
				n->lat_dropped_cache, n->lat_dropped_uncached);
			fprintf(f, "\"io\": %llu, \"unknown\": %llu}, ", n->lat_dropped_io,
				n->lat_dropped_unknown);
		}
		if (has(r, EMBM_HAS_DATA_SRC))
			fprintf(f, "\"cache\": %llu, \"memory\": %llu, ", n->cache, n->mem);
		fprintf(f, "\"cxl_samples\": %llu, \"windows\": ", n->cxl);
		embm_json_str(f, n->windows);
		fprintf(f, ", \"study\": %s}%s\n", n->study ? "true" : "false",
			i + 1 < r->nr_nodes ? "," : "");
	}
	fprintf(f, " ],\n \"cxl_windows\": %llu, \"cxl_device_samples\": %llu, \"windows\": ",
		r->cxl_windows, r->cxl_device);
	/* null: not readable by this user (for root only), [] none */
	fprintf(f, r->nr_win < 0 ? "null" : "[\n");
	for (i = 0; i < r->nr_win; i++) {
		const struct embm_cxl_window *w = &r->win[i];

		fprintf(f, "  {\"window\": ");
		embm_json_str(f, w->name);
		fprintf(f, ", \"start\": %llu, \"end\": %llu, \"node\": %d, ",
			w->start, w->end, w->node);
		fprintf(f, "\"samples\": %llu, \"device_samples\": %llu}%s\n",
			w->samples, w->device, i + 1 < r->nr_win ? "," : "");
	}
	fprintf(f, "%s,\n \"matrix\": [\n", r->nr_win < 0 ? "" : " ]");
	for (i = 0; i < m->nr_rows; i++) {
		for (c = 0; c < m->nr_cols; c++)
			fprintf(f, "  {\"cpu_node\": %d, \"mem_node\": %d, \"%s\": %llu}%s\n",
				m->rows[i], m->cols[c], unit(r), m->samples[i * m->nr_cols + c],
				i + 1 < m->nr_rows || c + 1 < m->nr_cols ? "," : "");
	}
	fprintf(f, " ],\n \"hot_pages\": %s\n", r->hot_hidden ? "null" : "[");
	for (i = 0; i < r->nr_hot && i < (int)top; i++) {
		const struct embm_hot *h = &r->hot[i];

		fprintf(f, "  {\"rank\": %u, \"pfn\": %llu, \"node\": %d, \"tier\": \"%s\", ",
			h->rank, h->pfn, h->node, h->tier);
		fprintf(f, "\"count\": %llu, \"error\": %llu, \"samples\": %llu}%s\n", h->count,
			h->error, h->samples, i + 1 < r->nr_hot && i + 1 < (int)top ? "," : "");
	}
	fprintf(f, "%s", r->hot_hidden ? "" : " ]");
	json_hint(f, r);
	if (r->per_task)
		json_tasks(f, r);
	if (more)
		more(f, arg);
	fprintf(f, "}\n");
}
