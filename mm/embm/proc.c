// SPDX-License-Identifier: GPL-2.0
/*
 * embm: /proc/embm/
 *
 * Every file starts with "version N" (EMBM_PROC_VERSION, bumped when a
 * layout changes), then one record a line, fields separated by spaces, a
 * header line naming them.  The node under study comes first and is
 * marked "*".  A read takes a view of the session (embm_session_view(),
 * which holds the session's lock only to copy it, with the status
 * ksamplingd last published), then the results' lock, interruptibly, so
 * that the results it prints are one consistent snapshot.  While a session
 * runs, the sampler's figures (lost, periods, event counts) may be one
 * round of ksamplingd (status's wake_us, at most 100 ms) older than the
 * results.
 * Process context.  Who may read: see embm_proc_open().
 */

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/delay.h>
#include <linux/memory_hotplug.h>
#include <linux/nodemask.h>
#include <linux/nsproxy.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <uapi/linux/embm.h>

#include "hot.h"
#include "record.h"
#include "report.h"
#include "sampler.h"
#include "session.h"
#include "stats.h"
#include "tasks.h"
#include "tier.h"

/*
 * Each file is bound, when it is opened, to the session of that moment,
 * as /proc/PID/pagemap is bound to its mm: the opener's right to read it
 * is checked then (embm_session_may_read()), and a read after another
 * session started fails with -ESTALE.  The session's generation is kept
 * in seq_file->private.
 */
static unsigned long embm_proc_gen(const struct seq_file *m)
{
	return (unsigned long)m->private;
}

/*
 * Begin a read: "version", then the view, its results locked.  *@v is
 * NULL when there are no results (only "state" is printed then, nothing
 * stays locked).  Return: 0; -ERESTARTSYS when a signal came while a start
 * or an end held a lock; -ESTALE when another session started since the open;
 * -ENOMEM.  Readers never wait uninterruptibly behind a start or an end.
 */
static int embm_proc_begin(struct seq_file *m, struct embm_view **v)
{
	struct embm_view *view;
	int err;

	*v = NULL;
	view = embm_session_view(embm_proc_gen(m));
	if (IS_ERR(view))
		return PTR_ERR(view);
	seq_printf(m, "version %d\n", EMBM_PROC_VERSION);
	if (!view->stats) {
		seq_printf(m, "state %s\n", embm_state_name(view->state));
		embm_view_free(view);
		return 0;
	}
	err = embm_lock_interruptible(&view->stats->lock);
	if (err)
		goto out_free_view;
	*v = view;
	return 0;

out_free_view:
	embm_view_free(view);
	return err;
}

static void embm_proc_end(struct embm_view *v)
{
	mutex_unlock(&v->stats->lock);
	embm_view_free(v);
}

/*
 * Begin a per-node file: embm_proc_begin(), and the memory nodes in report
 * order in *@n entries of *@order (to free with kvfree()).
 */
static int embm_proc_begin_nodes(struct seq_file *m, struct embm_view **v,
				 int **order, int *n)
{
	int err;

	err = embm_proc_begin(m, v);
	if (err || !*v)
		return err;
	*order = kvcalloc((*v)->stats->nr_nodes, sizeof(**order), GFP_KERNEL);
	if (!*order)
		goto out_end;
	*n = embm_stats_node_order((*v)->stats, (*v)->node, *order);
	return 0;

out_end:
	embm_proc_end(*v);
	*v = NULL;
	return -ENOMEM;
}

/* Permille of @enabled that an event kind ran; 1000 when never enabled. */
static u64 embm_running_permille(const struct embm_kind_stats *k)
{
	return k->enabled ? div64_u64(k->running * 1000, k->enabled) : 1000;
}

/*
 * One line per event kind: what perf counted, how long it was enabled and
 * on the PMU (another perf user or too many events multiplex it, and its
 * accesses are then scaled up), and the samples read.  Then how many
 * kinds ran less than all of their time.
 */
static void embm_show_kinds(struct seq_file *m, const struct embm_sampler_status *ss,
			    const struct embm_stats *st)
{
	unsigned int starved = 0;
	int k;

	for (k = 0; k < ss->nr_kinds; k++) {
		const struct embm_kind_stats *ks = &ss->kind[k];
		u64 pm = embm_running_permille(ks);

		seq_printf(m, "event %s count %llu enabled_ms %llu running_ms %llu running_pct %llu.%llu samples %llu leader %d lost %llu lost_events %llu throttled_ms %llu\n",
			   ks->name, ks->count, div_u64(ks->enabled, NSEC_PER_MSEC),
			   div_u64(ks->running, NSEC_PER_MSEC), pm / 10, pm % 10,
			   st->kind_samples[k], ks->lead, ks->lost, ks->lost_weight,
			   div_u64(ks->throttled_ns, NSEC_PER_MSEC));
		starved += ks->running < ks->enabled;
	}
	seq_printf(m, "kinds_multiplexed %u\n", starved);
}

/* The samples whose latency was left out, by reason, over the nodes. */
static void embm_show_lat_dropped(struct seq_file *m, const struct embm_stats *st)
{
	static const char *const names[EMBM_LAT_NR] = {
		[EMBM_LAT_CACHE]	= "cache",
		[EMBM_LAT_UNCACHED]	= "uncached",
		[EMBM_LAT_IO]		= "io",
		[EMBM_LAT_UNKNOWN]	= "unknown",
	};
	int r, nid;

	for (r = 0; r < EMBM_LAT_NR; r++) {
		u64 sum = 0;

		for (nid = 0; nid < st->nr_nodes; nid++)
			sum += st->node[nid].lat_dropped[r];
		seq_printf(m, "lat_dropped_%s %llu\n", names[r], sum);
	}
}

/* "source_fields loads stores ...": the nodes columns the source fills, or "-". */
static void embm_show_fields(struct seq_file *m, unsigned int fields)
{
	seq_puts(m, "source_fields");
	if (fields & EMBM_FIELD_OP)
		seq_puts(m, " loads stores");
	if (fields & EMBM_FIELD_LATENCY)
		seq_puts(m, " lat_samples lat_mean_cycles");
	if (fields & EMBM_FIELD_DATA_SRC)
		seq_puts(m, " cache memory");
	if (!fields)
		seq_puts(m, " -");
	seq_puts(m, "\n");
}

/*
 * "cgroup ID PATH" of a cgroup session (the path as the reader's cgroup
 * namespace sees it), or "cgroup -".
 */
static void embm_show_cgroup(struct seq_file *m, const struct embm_view *v)
{
#ifdef CONFIG_CGROUPS
	char path[256];

	if (v->cgroup) {
		/* As /proc/PID/cgroup shows it: from the reader's namespace. */
		if (cgroup_path_ns(v->cgroup->cgroup, path, sizeof(path),
				   current->nsproxy->cgroup_ns) < 0)
			strscpy(path, "?", sizeof(path));
		seq_printf(m, "cgroup %llu %s\n", cgroup_id(v->cgroup->cgroup), path);
		return;
	}
#endif
	seq_puts(m, "cgroup -\n");
}

/* Who and what the session studies: its state, target and node. */
static void embm_show_session(struct seq_file *m, const struct embm_view *v)
{
	seq_printf(m, "state %s\n", embm_state_name(v->state));
	seq_printf(m, "ended_by %s\n", v->ended_by);
	/* The target's pid as the reader sees it (0: not in its namespace). */
	seq_printf(m, "target %d\n", v->target ?
		   pid_nr_ns(v->target, task_active_pid_ns(current)) : EMBM_PID_SYSTEM);
	embm_show_cgroup(m, v);
	seq_printf(m, "node %d\n", v->node);
}

/* The source of samples, why it was chosen, and what its samples say. */
static void embm_show_source(struct seq_file *m, const struct embm_view *v)
{
	const struct embm_source *src = v->status.source;

	seq_printf(m, "source %s\n", src ? src->name : "-");
	seq_printf(m, "source_reason %s\n", v->status.why);
	seq_printf(m, "source_semantics %s\n", src && src->semantics ? src->semantics : "-");
	seq_printf(m, "source_blind %s\n", src && src->blind ? src->blind : "-");
	embm_show_fields(m, embm_report_fields(v));
	seq_printf(m, "accesses_unit %s\n", src && src->unit ? src->unit : "accesses");
}

/* What embm_start() and embm_end() took, in us, by part (enum embm_phase). */
static void embm_show_phases(struct seq_file *m, const struct embm_view *v)
{
	static const char *const names[EMBM_NR_PHASES] = {
		[EMBM_START_STATS]	= "start_stats_us",
		[EMBM_START_THREADS]	= "start_threads_us",
		[EMBM_START_KTHREAD]	= "start_kthread_us",
		[EMBM_START_EVENTS]	= "start_events_us",
		[EMBM_START_ENABLE]	= "start_enable_us",
		[EMBM_START_CLEAR]	= "start_clear_us",
		[EMBM_START]		= "start_us",
		[EMBM_END_KTHREAD]	= "end_kthread_us",
		[EMBM_END_CLOSE]	= "end_close_us",
		[EMBM_END_VIEW]		= "end_view_us",
		[EMBM_END_REPORT]	= "end_report_us",
		[EMBM_END]		= "end_us",
	};
	int i;

	for (i = 0; i < EMBM_NR_PHASES; i++)
		seq_printf(m, "%s %llu\n", names[i], div_u64(v->phase_ns[i], NSEC_PER_USEC));
}

/* The sampler: its periods, its CPU budget, its events and buffers. */
static void embm_show_sampler(struct seq_file *m, const struct embm_view *v)
{
	const struct embm_sampler_status *ss = &v->status;

	seq_printf(m, "period %llu\n", ss->period);
	seq_printf(m, "store_period %llu\n", ss->store_period);
	seq_printf(m, "period_start %llu\n", ss->period_start);
	seq_printf(m, "period_max %llu\n", ss->period_max);
	seq_printf(m, "period_changes %llu\n", ss->period_changes);
	seq_printf(m, "period_why %s\n", ss->period_why[0] ? ss->period_why : "-");
	seq_printf(m, "cpu_budget %llu\n", v->config.cpu_budget);
	seq_printf(m, "budget_used_permille %llu\n", ss->budget_used);
	seq_printf(m, "sample_cost_ns %llu\n", ss->sample_cost_ns);
	seq_printf(m, "count_reads %llu\n", ss->count_reads);
	seq_printf(m, "count_read_ns %llu\n", ss->count_read_ns);
	seq_printf(m, "count_read_every_ms %llu\n", ss->count_read_every_ms);
	seq_printf(m, "wake_us %llu\n", ss->wake_us);
	seq_printf(m, "wakeups %llu\n", ss->wakeups);
	seq_printf(m, "ldlat %llu\n", v->config.ldlat);
	seq_printf(m, "cpus %*pbl\n", cpumask_pr_args(&ss->cpus));
	seq_printf(m, "events %u\n", ss->nr_events);
	seq_printf(m, "max_events %llu\n", v->config.max_events);
	seq_printf(m, "cpus_skipped %llu\n", ss->cpus_skipped);
	seq_printf(m, "thread_scan_gave_up %llu\n", ss->scan_gave_up);
	seq_printf(m, "threads_skipped %llu\n", ss->threads_skipped);
	seq_printf(m, "period_errors %llu\n", ss->period_errors);
	seq_printf(m, "ring_pages_locked %llu\n", ss->ring_pages_locked);
	seq_printf(m, "ring_pages_max %llu\n", ss->ring_pages_max);
	seq_printf(m, "queue_bytes_max %llu\n", ss->queue_bytes_max);
	seq_printf(m, "direct_samples %llu\n", ss->direct_samples);
	embm_show_phases(m, v);
}

/*
 * Where the samples went, in the terms of the identity of struct
 * embm_stats, then what was lost, and what ksamplingd cost.  Caller holds
 * v->stats->lock.
 */
static void embm_show_samples(struct seq_file *m, const struct embm_view *v)
{
	const struct embm_sampler_status *ss = &v->status;
	const struct embm_stats *st = v->stats;
	u64 ms = div_u64(v->elapsed_ns, NSEC_PER_MSEC), lo, hi;
	struct embm_report_basis b;

	seq_printf(m, "table_bytes %zu\n", embm_stats_bytes(st));
	seq_printf(m, "elapsed_ms %llu\n", ms);
	seq_printf(m, "samples %llu\n", st->samples);
	seq_printf(m, "attributed %llu\n", embm_stats_attributed(st));
	seq_printf(m, "latency_only %llu\n", st->latency_only);
	seq_printf(m, "no_phys %llu\n", st->no_phys);
	seq_printf(m, "bad_pfn %llu\n", st->bad_pfn);
	seq_printf(m, "hotplug_busy %llu\n", st->hotplug_busy);
	embm_show_lat_dropped(m, st);
	seq_printf(m, "cxl_windows %d\n", st->nr_win);
	seq_printf(m, "cxl_windows_dropped %u\n", st->win_over);
	seq_printf(m, "cxl_device_samples %llu\n", embm_stats_device(st));
	seq_printf(m, "lost %llu\n", ss->lost);
	seq_printf(m, "lost_events %llu\n", embm_report_lost_weight(ss));
	seq_printf(m, "throttled %llu\n", ss->throttled);
	seq_printf(m, "unthrottled %llu\n", ss->unthrottled);
	seq_printf(m, "bad_records %llu\n", ss->bad_records);
	seq_printf(m, "other_records %llu\n", ss->other);
	seq_printf(m, "ksamplingd_cpu_ms %llu\n", div_u64(ss->kthread_ns, NSEC_PER_MSEC));
	seq_printf(m, "ksamplingd_cpu_permille %llu\n",
		   ms ? div64_u64(ss->kthread_ns, ms * 1000) : 0);
	seq_printf(m, "cache_served %llu\n", st->cache);
	embm_report_basis(v, &b);
	seq_printf(m, "share_basis %llu\n", b.share);
	embm_stats_count_interval(b.accesses, b.accesses_var, b.accesses, b.accesses_var,
				  &lo, &hi);
	seq_printf(m, "accesses %llu\n", b.accesses);
	seq_printf(m, "accesses_lo %llu\n", lo);
	seq_printf(m, "accesses_hi %llu\n", hi);
	seq_puts(m, "interval_pct 95\n");
	if (st->tasks) {
		seq_printf(m, "tasks %u\n", embm_tasks_count(st->tasks));
		seq_printf(m, "tasks_max %u\n", embm_tasks_max(st->tasks));
		seq_printf(m, "tasks_other_samples %llu\n", embm_tasks_other(st->tasks)->samples);
	}
}

static int embm_status_show(struct seq_file *m, void *p)
{
	struct embm_view *v;
	int err;

	err = embm_proc_begin(m, &v);
	if (err || !v)
		return err;
	embm_show_session(m, v);
	embm_show_source(m, v);
	embm_show_sampler(m, v);
	embm_show_samples(m, v);
	embm_show_kinds(m, &v->status, v->stats);
	embm_proc_end(v);
	return 0;
}

static int embm_nodes_show(struct seq_file *m, void *p)
{
	struct embm_view *v;
	char line[EMBM_REPORT_LINE];
	int *order, n, i, err;
	struct embm_report_basis b;
	struct seq_buf sb;

	err = embm_proc_begin_nodes(m, &v, &order, &n);
	if (err || !v)
		return err;
	seq_buf_init(&sb, line, sizeof(line));
	embm_report_nodes_header(&sb, embm_report_fields(v));
	seq_printf(m, "%s\n", seq_buf_str(&sb));
	embm_report_basis(v, &b);
	for (i = 0; i < n; i++) {
		seq_buf_clear(&sb);
		embm_report_node(&sb, v, order[i], &b);
		seq_printf(m, "%s\n", seq_buf_str(&sb));
	}
	kvfree(order);
	embm_proc_end(v);
	return 0;
}

static int embm_latency_show(struct seq_file *m, void *p)
{
	const struct embm_stats *st;
	struct embm_view *v;
	int *order, n, i, b, err;

	err = embm_proc_begin_nodes(m, &v, &order, &n);
	if (err || !v)
		return err;
	st = v->stats;
	/* Buckets of estimated accesses, as lat_accesses (struct embm_node_stats). */
	seq_puts(m, "node lat_samples lat_accesses dropped_cache dropped_uncached dropped_io dropped_unknown");
	for (b = 0; b < EMBM_LAT_BUCKETS; b++)
		seq_printf(m, " lt%llu", 2ULL << b);
	seq_puts(m, "\n");
	for (i = 0; i < n; i++) {
		const struct embm_node_stats *ns = &st->node[order[i]];

		seq_printf(m, "%d %llu %llu %llu %llu %llu %llu", order[i], ns->lat_samples,
			   ns->lat_weight, ns->lat_dropped[EMBM_LAT_CACHE],
			   ns->lat_dropped[EMBM_LAT_UNCACHED], ns->lat_dropped[EMBM_LAT_IO],
			   ns->lat_dropped[EMBM_LAT_UNKNOWN]);
		for (b = 0; b < EMBM_LAT_BUCKETS; b++)
			seq_printf(m, " %llu", ns->lat_hist[b]);
		seq_puts(m, "\n");
	}
	kvfree(order);
	embm_proc_end(v);
	return 0;
}

static int embm_matrix_show(struct seq_file *m, void *p)
{
	const struct embm_stats *st;
	struct embm_view *v;
	int *order, n, i, row, err;

	err = embm_proc_begin_nodes(m, &v, &order, &n);
	if (err || !v)
		return err;
	st = v->stats;
	seq_puts(m, "cpu_node");
	for (i = 0; i < n; i++)
		seq_printf(m, " mem%d", order[i]);
	seq_puts(m, "\n");
	for (row = 0; row < st->nr_nodes; row++) {
		u64 sum = 0;

		for (i = 0; i < n; i++)
			sum += st->matrix[row * st->nr_nodes + order[i]];
		if (!sum && !node_state(row, N_CPU))
			continue;
		seq_printf(m, "%d", row);
		for (i = 0; i < n; i++)
			seq_printf(m, " %llu", st->matrix[row * st->nr_nodes + order[i]]);
		seq_puts(m, "\n");
	}
	kvfree(order);
	embm_proc_end(v);
	return 0;
}

/*
 * The hot pages, with each page's node as it is now.  The table and the
 * tiers are copied under the results' lock, which is dropped before the
 * nodes are looked up: the lookups hold off memory hot-remove, waiting
 * for a hotplug operation under way (interruptibly), and ksamplingd must
 * not wait behind such a wait for the results' lock.
 */
static int embm_hotpages_show(struct seq_file *m, void *p)
{
	struct embm_hot_page *top;
	u8 *tier = NULL;
	unsigned int n, i, rank = 0;
	struct embm_view *v;
	int pass, err, nr;

	err = embm_proc_begin(m, &v);
	if (err || !v)
		return err;
	nr = v->stats->nr_nodes;
	top = kvcalloc(v->config.hot_pages, sizeof(*top), GFP_KERNEL);
	if (top)
		tier = kvmemdup(v->stats->tier, array_size(nr, sizeof(*tier)), GFP_KERNEL);
	n = top ? embm_hot_top(v->stats->hot, top, v->config.hot_pages) : 0;
	/* The view keeps its reference to the results. */
	mutex_unlock(&v->stats->lock);
	err = -ENOMEM;
	if (!top || !tier)
		goto out_free;
	err = -ERESTARTSYS;
	while (!try_get_online_mems()) {
		if (msleep_interruptible(10))
			goto out_free;
	}
	seq_puts(m, "rank pfn node tier count error samples study\n");
	/* The node under study's pages first, then the others. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			int nid = embm_pfn_nid_locked(top[i].pfn);
			bool study = nid >= 0 && nid == v->node;

			if (study != !pass)
				continue;
			seq_printf(m, "%u %#llx %d %s %llu %llu %llu %s\n", ++rank, top[i].pfn,
				   nid, nid >= 0 && nid < nr ? embm_tier_name(tier[nid]) : "?",
				   top[i].count, top[i].error, top[i].samples, study ? "*" : "-");
		}
	}
	put_online_mems();
	err = 0;
out_free:
	kvfree(tier);
	kvfree(top);
	embm_view_free(v);
	return err;
}

/*
 * The per-task table: every task with an entry, most accesses first, then
 * the "other tasks" one.  Formatted with the results locked (ksamplingd
 * waits meanwhile): the entries live as long as the results, and their
 * counts move while it runs.
 */
static int embm_tasks_show(struct seq_file *m, void *p)
{
	const struct embm_task **tasks = NULL;
	struct embm_report_tasks *rt = NULL;
	struct embm_report_basis b;
	struct embm_view *v;
	unsigned int n, i;
	struct seq_buf sb;
	char *line = NULL;
	int err;

	err = embm_proc_begin(m, &v);
	if (err || !v)
		return err;
	/* None for a session started outside the initial pid namespace. */
	if (!v->stats->tasks) {
		seq_puts(m, "pid tid comm samples accesses\n");
		goto out_end;
	}
	err = -ENOMEM;
	rt = embm_report_tasks_scale(v);
	n = embm_tasks_count(v->stats->tasks);
	tasks = kvcalloc(max(n, 1U), sizeof(*tasks), GFP_KERNEL);
	line = rt ? kmalloc(EMBM_REPORT_TASK_LINE(rt->nr_slots), GFP_KERNEL) : NULL;
	if (!rt || !tasks || !line)
		goto out_end;
	err = 0;
	embm_report_basis(v, &b);
	seq_buf_init(&sb, line, EMBM_REPORT_TASK_LINE(rt->nr_slots));
	embm_report_tasks_header(&sb, rt);
	seq_printf(m, "%s\n", seq_buf_str(&sb));
	n = embm_tasks_sorted(v->stats->tasks, tasks, n);
	for (i = 0; i <= n; i++) {
		seq_buf_clear(&sb);
		embm_report_task(&sb, rt, i < n ? tasks[i] : embm_tasks_other(v->stats->tasks),
				 b.accesses);
		seq_printf(m, "%s\n", seq_buf_str(&sb));
	}
out_end:
	kfree(line);
	kvfree(tasks);
	kvfree(rt);
	embm_proc_end(v);
	return err;
}

/*
 * The promotion hint of each far or CXL node: how much of its sampled
 * accesses its hottest pages carry, as a curve (embm_report_hint()).
 */
static int embm_hint_show(struct seq_file *m, void *p)
{
	struct embm_report_hint pt[EMBM_REPORT_HINT_POINTS];
	const struct embm_stats *st;
	struct embm_view *v;
	int *order, n, i, k, nr, err;

	err = embm_proc_begin_nodes(m, &v, &order, &n);
	if (err || !v)
		return err;
	st = v->stats;
	seq_puts(m, "node tier pages bytes share_pct share_lo_pct share_hi_pct min_samples\n");
	for (i = 0; i < n && !err; i++) {
		nr = embm_report_hint(v, order[i], pt);
		if (nr < 0)
			err = nr;
		for (k = 0; k < nr; k++) {
			/* In hundredths of a percent: the bounds rounded outward. */
			u64 share = pt[k].share / 100000, lo = pt[k].lo / 100000;
			u64 hi = DIV_ROUND_UP_ULL(pt[k].hi, 100000);

			seq_printf(m, "%d %s %llu %llu %llu.%02llu %llu.%02llu %llu.%02llu %llu\n",
				   order[i], embm_tier_name(st->tier[order[i]]), pt[k].pages,
				   pt[k].pages << PAGE_SHIFT, share / 100, share % 100, lo / 100,
				   lo % 100, hi / 100, hi % 100, pt[k].min_samples);
		}
	}
	kvfree(order);
	embm_proc_end(v);
	return err;
}

/* The CXL windows: their physical ranges, so for root as hotpages is. */
static int embm_windows_show(struct seq_file *m, void *p)
{
	const struct embm_stats *st;
	struct embm_view *v;
	int i, err;

	err = embm_proc_begin(m, &v);
	if (err || !v)
		return err;
	st = v->stats;
	seq_puts(m, "window start end node samples device_samples\n");
	for (i = 0; i < st->nr_win; i++) {
		const struct embm_window *w = &st->win[i];

		seq_printf(m, "w%d %#llx %#llx %d %llu %llu\n", i, w->start, w->end,
			   w->nid, w->samples, w->device);
	}
	embm_proc_end(v);
	return 0;
}

/*
 * Open: may the opener read the session of now?  Those who may end it
 * (embm_session_may_read()) may read it; hotpages and windows show
 * physical addresses, which also take CAP_SYS_ADMIN as in /proc/PID/pagemap
 * (and as /proc/iomem shows them); tasks shows ids of the initial pid
 * namespace, to readers in it only.  With no session there is nothing
 * to hide.
 */
static int embm_proc_open(struct inode *inode, struct file *file)
{
	int (*show)(struct seq_file *m, void *v) = pde_data(inode);
	unsigned long gen;
	int err;

	if ((show == embm_hotpages_show || show == embm_windows_show) &&
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	/* Its ids are of the initial pid namespace: for readers in it. */
	if (show == embm_tasks_show && task_active_pid_ns(current) != &init_pid_ns)
		return -EACCES;
	err = embm_session_may_read(&gen);
	if (err)
		return err;
	/* A line a task: room for a few thousand at once, not a page. */
	if (show == embm_tasks_show)
		return single_open_size(file, show, (void *)gen, SZ_256K);
	return single_open(file, show, (void *)gen);
}

static const struct proc_ops embm_proc_ops = {
	.proc_open	= embm_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

/* Create /proc/embm.  Process context, at boot. */
static int __init embm_proc_init(void)
{
	static const struct {
		const char *name;
		umode_t mode;
		int (*show)(struct seq_file *m, void *v);
	} files[] = {
		{ "status",	0444, embm_status_show },
		{ "nodes",	0444, embm_nodes_show },
		{ "matrix",	0444, embm_matrix_show },
		{ "latency",	0444, embm_latency_show },
		{ "tasks",	0444, embm_tasks_show },
		{ "hint",	0444, embm_hint_show },
		/* Physical addresses: for root only, as in /proc/PID/pagemap. */
		{ "hotpages",	0400, embm_hotpages_show },
		{ "windows",	0400, embm_windows_show },
	};
	struct proc_dir_entry *dir;
	int i;

	dir = proc_mkdir("embm", NULL);
	if (!dir)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (!proc_create_data(files[i].name, files[i].mode, dir, &embm_proc_ops,
				      files[i].show))
			goto out_remove_dir;
	}
	return 0;

out_remove_dir:
	proc_remove(dir);
	return -ENOMEM;
}
late_initcall(embm_proc_init);
