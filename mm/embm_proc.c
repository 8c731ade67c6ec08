// SPDX-License-Identifier: GPL-2.0
/*
 * embm: /proc/embm/ and the summary in the kernel log
 *
 * Every file starts with "version N" (EMBM_PROC_VERSION, bumped when a
 * layout changes), then one record a line, fields separated by spaces, a
 * header line naming them.  The node under study comes first and is
 * marked "*".  Readers take embm_lock, then embm_stats.lock, both
 * interruptibly, so that what they print is one consistent snapshot;
 * process context.  Who may read: see embm_proc_open().
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/memory_hotplug.h>
#include <linux/nodemask.h>
#include <linux/pid_namespace.h>
#include <linux/proc_fs.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <uapi/linux/embm.h>

#include "embm.h"

/* Share of @part in @whole, in hundredths of a percent. */
static u64 embm_share(u64 part, u64 whole)
{
	return whole ? div64_u64(part * 10000, whole) : 0;
}

static u64 embm_elapsed_ms(const struct embm_session *se)
{
	u64 end = se->stop_ns ?: ktime_get_ns();

	return se->start_ns ? div_u64(end - se->start_ns, NSEC_PER_MSEC) : 0;
}

/*
 * Each file is bound, when it is opened, to the session of that moment,
 * as /proc/PID/pagemap is bound to its mm: the opener's right to read it
 * is checked then (__embm_session_permitted()), and a read after another
 * session started fails with -ESTALE.  The session's generation is kept
 * in seq_file->private.
 */
static unsigned long embm_proc_gen(const struct seq_file *m)
{
	return (unsigned long)m->private;
}

/*
 * Lock the session and its stats for a read: 1; 0 when there is no
 * session (only "version" and "state" are printed, nothing stays
 * locked); -EINTR when a signal came while a start or end held the lock;
 * -ESTALE when another session started since the open.  Readers never
 * wait uninterruptibly behind a start or an end.
 */
static int embm_proc_lock(struct seq_file *m)
{
	int err;

	err = embm_lock_interruptible(&embm_lock);
	if (err)
		return err;
	if (embm_session.gen != embm_proc_gen(m)) {
		mutex_unlock(&embm_lock);
		return -ESTALE;
	}
	seq_printf(m, "version %d\n", EMBM_PROC_VERSION);
	if (!embm_session.stats) {
		seq_printf(m, "state %s\n", embm_state_name(embm_session.state));
		mutex_unlock(&embm_lock);
		return 0;
	}
	err = embm_lock_interruptible(&embm_session.stats->lock);
	if (err) {
		mutex_unlock(&embm_lock);
		return err;
	}
	return 1;
}

static void embm_proc_unlock(void)
{
	mutex_unlock(&embm_session.stats->lock);
	mutex_unlock(&embm_lock);
}

/*
 * Start a per-node file: lock, "version", and the memory nodes in report
 * order in *@n entries.  Return: the order, to give to embm_proc_end();
 * NULL, nothing locked, when there are no results; or an ERR_PTR().
 */
static int *embm_proc_begin(struct seq_file *m, int *n)
{
	int *order, ret;

	ret = embm_proc_lock(m);
	if (ret <= 0)
		return ret ? ERR_PTR(ret) : NULL;
	order = kvcalloc(embm_session.stats->nr_nodes, sizeof(*order), GFP_KERNEL);
	if (!order) {
		embm_proc_unlock();
		return ERR_PTR(-ENOMEM);
	}
	*n = embm_stats_node_order(embm_session.stats, embm_session.node, order);
	return order;
}

static void embm_proc_end(int *order)
{
	kvfree(order);
	embm_proc_unlock();
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
static void embm_show_kinds(struct seq_file *m, const struct embm_stats *st)
{
	unsigned int starved = 0;
	int k;

	for (k = 0; k < st->nr_kinds; k++) {
		const struct embm_kind_stats *ks = &st->kind[k];
		u64 pm = embm_running_permille(ks);

		seq_printf(m, "event %s count %llu enabled_ms %llu running_ms %llu running_pct %llu.%llu samples %llu leader %d\n",
			   ks->name, ks->count, div_u64(ks->enabled, NSEC_PER_MSEC),
			   div_u64(ks->running, NSEC_PER_MSEC), pm / 10, pm % 10,
			   ks->samples, ks->lead);
		starved += ks->running < ks->enabled;
	}
	seq_printf(m, "kinds_multiplexed %u\n", starved);
}

/*
 * "cgroup ID PATH" of a cgroup session (the path as the reader's cgroup
 * namespace sees it), or "cgroup -".
 */
static void embm_show_cgroup(struct seq_file *m, const struct embm_session *se)
{
#ifdef CONFIG_CGROUPS
	char path[256];

	if (se->cgroup) {
		if (cgroup_path(se->cgroup->cgroup, path, sizeof(path)) < 0)
			strscpy(path, "?", sizeof(path));
		seq_printf(m, "cgroup %llu %s\n", cgroup_id(se->cgroup->cgroup), path);
		return;
	}
#endif
	seq_puts(m, "cgroup -\n");
}

static int embm_status_show(struct seq_file *m, void *v)
{
	const struct embm_session *se = &embm_session;
	const struct embm_stats *st;
	int ret;
	u64 ms;

	ret = embm_proc_lock(m);
	if (ret <= 0)
		return ret;
	st = se->stats;
	ms = embm_elapsed_ms(se);
	seq_printf(m, "state %s\n", embm_state_name(se->state));
	seq_printf(m, "ended_by %s\n", se->ended_by);
	/* The target's pid as the reader sees it (0: not in its namespace). */
	seq_printf(m, "target %d\n", se->target ?
		   pid_nr_ns(se->target, task_active_pid_ns(current)) : EMBM_PID_SYSTEM);
	embm_show_cgroup(m, se);
	seq_printf(m, "node %d\n", se->node);
	seq_printf(m, "source %s\n", st->source ? st->source->name : "-");
	seq_printf(m, "source_reason %s\n", st->why);
	seq_printf(m, "source_semantics %s\n",
		   st->source && st->source->semantics ? st->source->semantics : "-");
	seq_printf(m, "period %llu\n", st->period);
	seq_printf(m, "store_period %llu\n", st->store_period);
	seq_printf(m, "period_changes %llu\n", st->period_changes);
	seq_printf(m, "ldlat %llu\n", se->config.ldlat);
	seq_printf(m, "cpus %*pbl\n", cpumask_pr_args(st->cpus));
	seq_printf(m, "events %u\n", st->nr_events);
	seq_printf(m, "max_events %llu\n", se->config.max_events);
	seq_printf(m, "cpus_skipped %llu\n", st->cpus_skipped);
	seq_printf(m, "thread_scan_gave_up %llu\n", st->scan_gave_up);
	seq_printf(m, "threads_skipped %llu\n", st->threads_skipped);
	seq_printf(m, "period_errors %llu\n", st->period_errors);
	seq_printf(m, "ring_pages_locked %llu\n", st->ring_pages_locked);
	seq_printf(m, "elapsed_ms %llu\n", ms);
	seq_printf(m, "samples %llu\n", st->samples);
	seq_printf(m, "attributed %llu\n", embm_stats_attributed(st));
	seq_printf(m, "no_phys %llu\n", st->no_phys);
	seq_printf(m, "bad_pfn %llu\n", st->bad_pfn);
	seq_printf(m, "lost %llu\n", st->lost);
	seq_printf(m, "throttled %llu\n", st->throttled);
	seq_printf(m, "unthrottled %llu\n", st->unthrottled);
	seq_printf(m, "bad_records %llu\n", st->bad_records);
	seq_printf(m, "other_records %llu\n", st->other);
	seq_printf(m, "ksamplingd_cpu_ms %llu\n", div_u64(st->kthread_ns, NSEC_PER_MSEC));
	seq_printf(m, "ksamplingd_cpu_permille %llu\n",
		   ms ? div64_u64(st->kthread_ns, ms * 1000) : 0);
	seq_printf(m, "cache_served %llu\n", st->cache);
	seq_printf(m, "share_basis %llu\n", embm_stats_share_basis(st));
	embm_show_kinds(m, st);
	embm_proc_unlock();
	return 0;
}

static int embm_nodes_show(struct seq_file *m, void *v)
{
	const struct embm_session *se = &embm_session;
	const struct embm_stats *st;
	int *order, n, i;
	u64 total;

	order = embm_proc_begin(m, &n);
	if (IS_ERR_OR_NULL(order))
		return PTR_ERR_OR_ZERO(order);
	st = se->stats;
	total = embm_stats_share_basis(st);
	seq_puts(m, "node tier samples share_pct loads stores accesses lat_samples lat_mean_cycles pages study cache memory\n");
	for (i = 0; i < n; i++) {
		const struct embm_node_stats *ns = &st->node[order[i]];
		u64 share = embm_share(embm_stats_share_part(st, ns), total);

		seq_printf(m, "%d %s %llu %llu.%02llu %llu %llu %llu %llu %llu %llu %s %llu %llu\n",
			   order[i], embm_tier_name(st->tier[order[i]]), ns->samples,
			   share / 100, share % 100, ns->loads, ns->stores,
			   embm_stats_node_accesses(st, ns), ns->lat_samples,
			   ns->lat_samples ? div64_u64(ns->lat_sum, ns->lat_samples) : 0,
			   embm_stats_distinct_pages(ns),
			   order[i] == se->node ? "*" : "-", ns->cache, ns->mem);
	}
	embm_proc_end(order);
	return 0;
}

static int embm_latency_show(struct seq_file *m, void *v)
{
	const struct embm_session *se = &embm_session;
	const struct embm_stats *st;
	int *order, n, i, b;

	order = embm_proc_begin(m, &n);
	if (IS_ERR_OR_NULL(order))
		return PTR_ERR_OR_ZERO(order);
	st = se->stats;
	seq_puts(m, "node lat_samples");
	for (b = 0; b < EMBM_LAT_BUCKETS; b++)
		seq_printf(m, " lt%llu", 2ULL << b);
	seq_puts(m, "\n");
	for (i = 0; i < n; i++) {
		const struct embm_node_stats *ns = &st->node[order[i]];

		seq_printf(m, "%d %llu", order[i], ns->lat_samples);
		for (b = 0; b < EMBM_LAT_BUCKETS; b++)
			seq_printf(m, " %llu", ns->lat_hist[b]);
		seq_puts(m, "\n");
	}
	embm_proc_end(order);
	return 0;
}

static int embm_matrix_show(struct seq_file *m, void *v)
{
	const struct embm_session *se = &embm_session;
	const struct embm_stats *st;
	int *order, n, i, row;

	order = embm_proc_begin(m, &n);
	if (IS_ERR_OR_NULL(order))
		return PTR_ERR_OR_ZERO(order);
	st = se->stats;
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
	embm_proc_end(order);
	return 0;
}

static int embm_hotpages_show(struct seq_file *m, void *v)
{
	const struct embm_session *se = &embm_session;
	struct embm_hot_page *top;
	const struct embm_stats *st;
	unsigned int n, i, rank = 0;
	int pass, ret;

	ret = embm_proc_lock(m);
	if (ret <= 0)
		return ret;
	st = se->stats;
	top = kvcalloc(se->config.hot_pages, sizeof(*top), GFP_KERNEL);
	if (!top) {
		embm_proc_unlock();
		return -ENOMEM;
	}
	n = embm_hot_top(st->hot, top, se->config.hot_pages);
	seq_puts(m, "rank pfn node tier count error study\n");
	/* The node under study's pages first, then the others. */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			struct page *page = pfn_to_online_page(top[i].pfn);
			int nid = page ? page_to_nid(page) : -1;
			bool study = nid >= 0 && nid == se->node;

			if (study != !pass)
				continue;
			seq_printf(m, "%u %#llx %d %s %llu %llu %s\n", ++rank, top[i].pfn, nid,
				   nid >= 0 && nid < st->nr_nodes ?
				   embm_tier_name(st->tier[nid]) : "?",
				   top[i].count, top[i].error, study ? "*" : "-");
		}
	}
	kvfree(top);
	embm_proc_unlock();
	return 0;
}

/* Sessions may be started by unprivileged users in a loop: whole tables, rate-limited. */
static DEFINE_RATELIMIT_STATE(embm_summary_rs, 5 * HZ, 10);

/**
 * embm_print_summary() - the session's results as a table in the kernel log
 * @se: a session that just ended
 *
 * At most ten tables every five seconds.
 *
 * Context: process; embm_lock held.
 */
void embm_print_summary(const struct embm_session *se)
{
	struct embm_stats *st = se->stats;
	int *order, n, i;
	u64 total;

	lockdep_assert_held(&embm_lock);
	if (!__ratelimit(&embm_summary_rs))
		return;
	order = kvcalloc(st->nr_nodes, sizeof(*order), GFP_KERNEL);
	if (!order)
		return;
	mutex_lock(&st->lock);
	total = embm_stats_share_basis(st);
	pr_info("session %s: target %d, node %d, %llu ms, source %s, period %llu\n",
		embm_state_name(se->state), se->target_nr, se->node,
		embm_elapsed_ms(se), st->source->name, st->period);
	pr_info("samples %llu, attributed %llu, cache-served %llu, no address %llu, lost %llu, throttled %llu, ksamplingd %llu ms CPU\n",
		st->samples, embm_stats_attributed(st), st->cache,
		st->no_phys + st->bad_pfn, st->lost, st->throttled,
		div_u64(st->kthread_ns, NSEC_PER_MSEC));
	for (i = 0; i < st->nr_kinds; i++) {
		u64 pm = embm_running_permille(&st->kind[i]);

		if (pm < 1000)
			pr_info("event %s ran %llu.%llu%% of its enabled time, its accesses scaled up\n",
				st->kind[i].name, pm / 10, pm % 10);
	}
	pr_info("  node tier    samples   share    accesses  lat(cyc)     pages      cache\n");
	n = embm_stats_node_order(st, se->node, order);
	for (i = 0; i < n; i++) {
		const struct embm_node_stats *ns = &st->node[order[i]];
		u64 share = embm_share(embm_stats_share_part(st, ns), total);
		char lat[24] = "-";

		if (ns->lat_samples)
			snprintf(lat, sizeof(lat), "%llu", div64_u64(ns->lat_sum, ns->lat_samples));
		pr_info("%c %4d %-4s %10llu %3llu.%02llu%% %11llu %9s %9llu %10llu\n",
			order[i] == se->node ? '*' : ' ', order[i],
			embm_tier_name(st->tier[order[i]]), ns->samples,
			share / 100, share % 100, embm_stats_node_accesses(st, ns), lat,
			embm_stats_distinct_pages(ns), ns->cache);
	}
	mutex_unlock(&st->lock);
	kvfree(order);
}

/*
 * Open: may the opener read the session of now?  Those who may end it
 * (__embm_session_permitted()) may read it; hotpages shows physical page
 * numbers, which also take CAP_SYS_ADMIN as in /proc/PID/pagemap.  With
 * no session there is nothing to hide.
 */
static int embm_proc_open(struct inode *inode, struct file *file)
{
	int (*show)(struct seq_file *m, void *v) = pde_data(inode);
	unsigned long gen;
	int err;

	if (show == embm_hotpages_show &&
	    !file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	err = embm_lock_interruptible(&embm_lock);
	if (err)
		return err;
	gen = embm_session.gen;
	if (embm_session.stats)
		err = __embm_session_permitted(&embm_session);
	/* While events exist, the LSMs may also say whether samples are read. */
	if (!err && embm_session.sampler)
		err = embm_sampler_perm_read(embm_session.sampler);
	mutex_unlock(&embm_lock);
	if (err)
		return err;
	return single_open(file, show, (void *)gen);
}

static const struct proc_ops embm_proc_ops = {
	.proc_open	= embm_proc_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

/**
 * embm_proc_init() - create /proc/embm
 *
 * Context: process, at boot.
 * Return: 0 or -ENOMEM.
 */
int embm_proc_init(void)
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
		/* Physical page numbers: for root only, as in /proc/PID/pagemap. */
		{ "hotpages",	0400, embm_hotpages_show },
	};
	struct proc_dir_entry *dir;
	int i;

	dir = proc_mkdir("embm", NULL);
	if (!dir)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (!proc_create_data(files[i].name, files[i].mode, dir, &embm_proc_ops,
				      files[i].show)) {
			proc_remove(dir);
			return -ENOMEM;
		}
	}
	return 0;
}
