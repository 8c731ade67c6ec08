// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the per-node table and the summary in the kernel log
 *
 * Both /proc/embm/nodes and the summary printed when a session ends
 * format the per-node table here, one line at a time, from a struct
 * embm_view: what the session was when the view was taken, and its
 * results under their own lock.  Nothing here takes the session's lock.
 * Process context.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/math64.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>

#include "report.h"
#include "sampler.h"
#include "session.h"
#include "stats.h"
#include "tasks.h"
#include "hot.h"
#include "tier.h"

static const char *const embm_state_names[] = {
	[EMBM_IDLE]	= "idle",
	[EMBM_RUNNING]	= "running",
	[EMBM_EXITED]	= "exited",
	[EMBM_DONE]	= "done",
};

/**
 * embm_state_name() - the name of a session state, as /proc/embm shows it
 * @state: the state
 *
 * Context: any.
 * Return: "idle", "running", "exited", "done", or "?".
 */
const char *embm_state_name(enum embm_state state)
{
	return state < ARRAY_SIZE(embm_state_names) ? embm_state_names[state] : "?";
}

/* Share of @part in @whole, in hundredths of a percent. */
static u64 embm_share(u64 part, u64 whole)
{
	return whole ? embm_mul_div_sat(part, 10000, whole) : 0;
}

static bool embm_view_share_mem(const struct embm_view *v)
{
	return v->status.source && v->status.source->share_mem;
}

/**
 * embm_report_fields() - what the samples of a view's source say
 * @v: a view
 *
 * Context: any.
 * Return: the source's EMBM_FIELD_* bits; all of them before a source was
 * chosen (nothing is then in the table).
 */
unsigned int embm_report_fields(const struct embm_view *v)
{
	return v->status.source ? v->status.source->fields :
		EMBM_FIELD_OP | EMBM_FIELD_LATENCY | EMBM_FIELD_DATA_SRC;
}

/* A node's accesses, scaled for multiplexing by the view's event kinds. */
static u64 embm_view_node_accesses(const struct embm_view *v, const struct embm_node_stats *ns)
{
	return embm_stats_node_accesses(ns, v->status.kind, v->status.nr_kinds);
}

/* The share part of node @nid and its variance, for the view's source and kinds. */
static void embm_view_share(const struct embm_view *v, int nid, u64 *part, u64 *var)
{
	const struct embm_node_stats *ns = &v->stats->node[nid];

	*part = embm_stats_share_part(ns, embm_view_share_mem(v), v->status.kind,
				      v->status.nr_kinds);
	*var = embm_stats_share_var(ns, embm_view_share_mem(v), v->status.kind,
				    v->status.nr_kinds);
}

/**
 * embm_report_basis() - what the node shares and intervals of a view are of
 * @v: a view with results; caller holds v->stats->lock
 * @b: filled in: the sums over the nodes
 *
 * Context: process.
 */
void embm_report_basis(const struct embm_view *v, struct embm_report_basis *b)
{
	const struct embm_stats *st = v->stats;
	u64 part, var;
	int nid;

	memset(b, 0, sizeof(*b));
	for (nid = 0; nid < st->nr_nodes; nid++) {
		const struct embm_node_stats *ns = &st->node[nid];

		embm_view_share(v, nid, &part, &var);
		b->share += part;
		b->share_var = embm_add_sat(b->share_var, var);
		b->accesses += embm_view_node_accesses(v, ns);
		var = embm_stats_accesses_var(ns, v->status.kind, v->status.nr_kinds);
		b->accesses_var = embm_add_sat(b->accesses_var, var);
	}
}

/**
 * embm_report_nodes_header() - the header line of the per-node table
 * @sb: where it goes
 * @fields: embm_report_fields() of the view: the columns of what the
 *	source cannot say are left out
 *
 * Context: any.
 */
void embm_report_nodes_header(struct seq_buf *sb, unsigned int fields)
{
	seq_buf_puts(sb, "node tier samples share_pct share_lo_pct share_hi_pct");
	if (fields & EMBM_FIELD_OP)
		seq_buf_puts(sb, " loads stores");
	seq_buf_puts(sb, " accesses accesses_lo accesses_hi");
	seq_buf_puts(sb, " user_samples kernel_samples user_accesses kernel_accesses");
	if (fields & EMBM_FIELD_LATENCY)
		seq_buf_puts(sb, " lat_samples lat_mean_cycles");
	seq_buf_puts(sb, " pages study");
	if (fields & EMBM_FIELD_DATA_SRC)
		seq_buf_puts(sb, " cache memory");
	seq_buf_puts(sb, " cxl_samples windows");
}

/*
 * The CXL windows whose online System RAM is mostly on @nid, as "w0,w2",
 * or "-".  The ranges are in /proc/embm/windows, for root.
 */
static void embm_report_windows(struct seq_buf *sb, const struct embm_stats *st, int nid)
{
	const char *sep = " ";
	int i;

	for (i = 0; i < st->nr_win; i++) {
		if (st->win[i].nid != nid)
			continue;
		seq_buf_printf(sb, "%sw%d", sep, i);
		sep = ",";
	}
	if (*sep == ' ')
		seq_buf_puts(sb, " -");
}

/* Hundredths of a percent of parts per 10^9, rounded down or up. */
static u64 embm_ppb_bp(u64 ppb, bool up)
{
	return div64_u64(ppb + (up ? 99999 : 0), 100000);
}

/* A percentage in hundredths, as "12.34". */
static void embm_report_pct(struct seq_buf *sb, u64 bp)
{
	seq_buf_printf(sb, " %llu.%02llu", bp / 100, bp % 100);
}

/**
 * embm_report_node() - one line of the per-node table
 * @sb:	 where it goes
 * @v:	 a view with results; caller holds v->stats->lock
 * @nid: a node of the results
 * @b:	 embm_report_basis() of the view, for the shares and intervals
 *
 * Fields as embm_report_nodes_header() names them for the view's source;
 * the node under study is marked "*" in the study column.  The share and
 * accesses are estimates that weigh each sample by its period (struct
 * embm_node_stats), each with its 95% interval (embm_stats_share_interval()
 * and embm_stats_count_interval()); then the samples and accesses taken
 * in user mode and in the kernel.
 *
 * Context: process.
 */
void embm_report_node(struct seq_buf *sb, const struct embm_view *v, int nid,
		      const struct embm_report_basis *b)
{
	const struct embm_stats *st = v->stats;
	const struct embm_node_stats *ns = &st->node[nid];
	unsigned int fields = embm_report_fields(v);
	u64 part, var, lo, hi, acc, user;

	embm_view_share(v, nid, &part, &var);
	seq_buf_printf(sb, "%d %s %llu", nid, embm_tier_name(st->tier[nid]), ns->samples);
	embm_report_pct(sb, embm_share(part, b->share));
	embm_stats_share_interval(part, var, b->share, b->share_var, &lo, &hi);
	embm_report_pct(sb, embm_ppb_bp(lo, false));
	embm_report_pct(sb, embm_ppb_bp(hi, true));
	if (fields & EMBM_FIELD_OP)
		seq_buf_printf(sb, " %llu %llu", ns->loads, ns->stores);
	acc = embm_view_node_accesses(v, ns);
	embm_stats_count_interval(acc, embm_stats_accesses_var(ns, v->status.kind,
							       v->status.nr_kinds),
				  b->accesses, b->accesses_var, &lo, &hi);
	user = min(embm_stats_user_accesses(ns, v->status.kind, v->status.nr_kinds), acc);
	seq_buf_printf(sb, " %llu %llu %llu %llu %llu %llu %llu", acc, lo, hi, ns->user_samples,
		       ns->samples - ns->user_samples, user, acc - user);
	if (fields & EMBM_FIELD_LATENCY)
		seq_buf_printf(sb, " %llu %llu", ns->lat_samples, embm_stats_lat_mean(ns));
	seq_buf_printf(sb, " %llu %s", embm_stats_distinct_pages(ns), nid == v->node ? "*" : "-");
	if (fields & EMBM_FIELD_DATA_SRC)
		seq_buf_printf(sb, " %llu %llu", ns->cache, ns->mem);
	seq_buf_printf(sb, " %llu", ns->cxl);
	embm_report_windows(sb, st, nid);
}

/**
 * embm_report_hint() - a far or CXL node's promotion hint, as a curve
 * @v:	 a view with results; caller holds v->stats->lock
 * @nid: a node of the results
 * @pt:	 room for EMBM_REPORT_HINT_POINTS points
 *
 * How much of the node's sampled accesses (the periods of its samples not
 * served by a cache) its hottest 1, 2, 4 ... pages carry, up to every
 * page its table kept: what promoting them to DRAM would move, at the
 * cost of that many 4 KiB pages.  Each share's interval treats the pages'
 * samples as draws of the node's mean weight (embm_stats_share_interval());
 * its lower bound also takes out the table's error, the counts the
 * space-saving table may have given pages that took over a counter.
 *
 * Context: process; may sleep.
 * Return: the points written (0 for a node without a hint), or -ENOMEM.
 */
int embm_report_hint(const struct embm_view *v, int nid, struct embm_report_hint *pt)
{
	const struct embm_node_stats *ns = &v->stats->node[nid];
	u64 x = 0, err = 0, w, t = ns->hint_weight, vt = ns->hint_sq, lo, hi, fewest = U64_MAX;
	struct embm_hot_page *top;
	unsigned int n, i, next = 1;
	int nr = 0;

	if (!ns->hint || !t)
		return 0;
	top = kvcalloc(EMBM_HINT_PAGES, sizeof(*top), GFP_KERNEL);
	if (!top)
		return -ENOMEM;
	n = embm_hot_top(ns->hint, top, EMBM_HINT_PAGES);
	w = max(div64_u64(vt, t), 1ULL);	/* the mean weight of a draw */
	for (i = 0; i < n && nr < EMBM_REPORT_HINT_POINTS; i++) {
		x += top[i].count;
		err += top[i].error;
		fewest = min(fewest, top[i].samples);
		/* Points at powers of two, and at every page kept. */
		if (i + 1 != next && i + 1 != n)
			continue;
		next *= 2;
		x = min(x, t);
		pt[nr].pages = i + 1;
		pt[nr].share = embm_mul_div_sat(x, EMBM_PPB, t);
		pt[nr].min_samples = fewest;
		embm_stats_share_interval(x - min(err, x), embm_mul_div_sat(x - min(err, x), w, 1),
					  t, vt, &lo, &hi);
		pt[nr].lo = lo;
		embm_stats_share_interval(x, embm_mul_div_sat(x, w, 1), t, vt, &lo, &hi);
		pt[nr].hi = hi;
		nr++;
	}
	kvfree(top);
	return nr;
}

/**
 * embm_report_tasks_scale() - how to scale a view's per-task weights
 * @v: a view with results; caller holds v->stats->lock
 *
 * A task's weights on a node are scaled as the node's accesses are
 * (embm_stats_node_accesses()): by the node's scaled estimate over its
 * weights, which assumes the task's mix of event kinds there is the
 * node's.  Its weights on nodes without a slot, in user mode and in CXL
 * windows are scaled as all nodes' are.
 *
 * Context: process; may sleep.
 * Return: kvfree() it; NULL without a per-task table or memory.
 */
struct embm_report_tasks *embm_report_tasks_scale(const struct embm_view *v)
{
	const struct embm_stats *st = v->stats;
	struct embm_report_tasks *rt;
	int n, i, nid, last;
	size_t size;

	if (!st->tasks)
		return NULL;
	n = embm_tasks_slots(st->tasks, NULL);
	size = sizeof(*rt) + n * (sizeof(*rt->nid) + 2 * sizeof(u64));
	rt = kvzalloc(size, GFP_KERNEL);
	if (!rt)
		return NULL;
	rt->bytes = size;
	rt->scaled = (u64 *)(rt + 1);
	rt->raw = rt->scaled + n;
	rt->nid = (int *)(rt->raw + n);
	rt->nr_slots = embm_tasks_slots(st->tasks, rt->nid);
	last = rt->nr_slots - 1;
	for (nid = 0; nid < st->nr_nodes; nid++) {
		const struct embm_node_stats *ns = &st->node[nid];
		u64 scaled = embm_view_node_accesses(v, ns);

		i = 0;
		while (i < last && rt->nid[i] != nid)
			i++;
		rt->scaled[i] += scaled;
		rt->raw[i] += ns->accesses;
		if (i != last) {
			/* The last slot also sums them all, for user and CXL. */
			rt->scaled[last] += scaled;
			rt->raw[last] += ns->accesses;
		}
	}
	return rt;
}

/* @w of slot @i's weights, scaled as its nodes' (embm_report_tasks_scale()). */
static u64 embm_report_task_scaled(const struct embm_report_tasks *rt, int i, u64 w)
{
	return rt->raw[i] ? embm_mul_div_sat(w, rt->scaled[i], rt->raw[i]) : w;
}

/**
 * embm_report_tasks_header() - the header line of the per-task table
 * @sb: where it goes
 * @rt: the view's embm_report_tasks_scale()
 *
 * Context: any.
 */
void embm_report_tasks_header(struct seq_buf *sb, const struct embm_report_tasks *rt)
{
	int i;

	seq_buf_puts(sb, "pid tid comm samples accesses share_pct");
	seq_buf_puts(sb, " user_accesses kernel_accesses cxl_accesses");
	for (i = 0; i < rt->nr_slots - 1; i++)
		seq_buf_printf(sb, " n%d_samples n%d_accesses", rt->nid[i], rt->nid[i]);
	seq_buf_puts(sb, " nother_samples nother_accesses");
}

/**
 * embm_report_task() - one line of the per-task table
 * @sb:	 where it goes
 * @rt:	 the view's embm_report_tasks_scale()
 * @t:	 an entry of the table; the "other tasks" one shows as pid and tid
 *	 -1, comm "(other)"
 * @all: every node's estimated accesses, for the share
 *
 * Its samples and estimated accesses, its share of all accesses, the
 * parts of them sampled in user mode, in the kernel and in CXL windows,
 * then its samples and accesses on each node that had memory at start,
 * and on every other node.
 *
 * Context: process; caller holds the results' lock.
 */
void embm_report_task(struct seq_buf *sb, const struct embm_report_tasks *rt,
		      const struct embm_task *t, u64 all)
{
	int last = rt->nr_slots - 1, i;
	u64 acc = 0, user;

	for (i = 0; i < rt->nr_slots; i++)
		acc += embm_report_task_scaled(rt, i, t->node[i].accesses);
	user = min(embm_report_task_scaled(rt, last, t->user), acc);
	if (t->pid == U32_MAX)
		seq_buf_puts(sb, "-1 -1");
	else
		seq_buf_printf(sb, "%u %u", t->pid, t->tid);
	seq_buf_printf(sb, " %s %llu %llu", t->comm, t->samples, acc);
	embm_report_pct(sb, embm_share(acc, all));
	seq_buf_printf(sb, " %llu %llu %llu", user, acc - user,
		       embm_report_task_scaled(rt, last, t->cxl));
	for (i = 0; i < rt->nr_slots; i++)
		seq_buf_printf(sb, " %llu %llu", t->node[i].samples,
			       embm_report_task_scaled(rt, i, t->node[i].accesses));
}

/*
 * How the load period went, in words: "period 16" if it never moved, else
 * "period 1 -> 16 (max 16, 2 changes, last: WHY)".
 */
static void embm_report_period(struct seq_buf *sb, const struct embm_sampler_status *ss)
{
	if (!ss->period_changes) {
		seq_buf_printf(sb, "period %llu", ss->period);
		return;
	}
	seq_buf_printf(sb, "period %llu -> %llu (max %llu, %llu change%s, last: %s)",
		       ss->period_start, ss->period, ss->period_max, ss->period_changes,
		       ss->period_changes == 1 ? "" : "s", ss->period_why);
}

/**
 * embm_report_lost_weight() - the events the lost samples stood for
 * @ss: the sampler's status
 *
 * Context: any.
 * Return: the sum over the kinds of their lost samples' periods.
 */
u64 embm_report_lost_weight(const struct embm_sampler_status *ss)
{
	u64 sum = 0;
	int k;

	for (k = 0; k < ss->nr_kinds && k < EMBM_MAX_EVENTS; k++)
		sum += ss->kind[k].lost_weight;
	return sum;
}

/*
 * CXL window @i of @st, for the kernel log.  Not its physical range: an
 * unprivileged user may start a session, and read the log.  Caller holds
 * st->lock.
 */
static void embm_report_window(struct seq_buf *sb, const struct embm_stats *st, int i)
{
	const struct embm_window *w = &st->win[i];

	seq_buf_printf(sb, "CXL window w%d: node %d, %llu samples, %llu on device pages",
		       i, w->nid, w->samples, w->device);
}

/* Sessions may be started by unprivileged users in a loop: whole tables, rate-limited. */
static DEFINE_RATELIMIT_STATE(embm_summary_rs, 5 * HZ, 10);

/* Print @sb's line and empty it. */
static void embm_report_line(struct seq_buf *sb)
{
	pr_info("%s\n", seq_buf_str(sb));
	seq_buf_clear(sb);
}

/* The event kinds multiplexed or throttled: their accesses were scaled up. */
static void embm_report_kinds(const struct embm_sampler_status *ss)
{
	int i;

	for (i = 0; i < ss->nr_kinds; i++) {
		const struct embm_kind_stats *ks = &ss->kind[i];
		u64 pm;

		if (!ks->enabled || ks->running >= ks->enabled)
			continue;
		pm = div64_u64(ks->running * 1000, ks->enabled);
		pr_info("event %s ran %llu.%llu%% of its enabled time, its accesses scaled up\n",
			ks->name, pm / 10, pm % 10);
	}
	for (i = 0; i < ss->nr_kinds; i++) {
		const struct embm_kind_stats *ks = &ss->kind[i];

		if (ks->throttled_ns)
			pr_info("event %s throttled %llu ms of its %llu ms running, its accesses scaled up\n",
				ks->name, div_u64(ks->throttled_ns, NSEC_PER_MSEC),
				div_u64(ks->running, NSEC_PER_MSEC));
	}
}

/*
 * The per-node table of /proc/embm/nodes, header included, a line at a
 * time through @sb, then the CXL windows by name.  @order has room for
 * v->stats->nr_nodes nodes.  Caller holds v->stats->lock.
 */
static void embm_report_table(struct seq_buf *sb, const struct embm_view *v, int *order)
{
	const struct embm_stats *st = v->stats;
	struct embm_report_basis b;
	int n, i;

	embm_report_nodes_header(sb, embm_report_fields(v));
	embm_report_line(sb);
	n = embm_stats_node_order(st, v->node, order);
	embm_report_basis(v, &b);
	for (i = 0; i < n; i++) {
		embm_report_node(sb, v, order[i], &b);
		embm_report_line(sb);
	}
	for (i = 0; i < st->nr_win; i++) {
		embm_report_window(sb, st, i);
		embm_report_line(sb);
	}
}

#define EMBM_REPORT_TOP_TASKS	5	/* tasks the summary names */

/*
 * The tasks with the most accesses, for the kernel log: "pid/tid comm
 * share" (ids of the initial pid namespace), and how many samples the
 * other tasks took.  Caller holds v->stats->lock; may sleep.
 */
static void embm_report_top_tasks(struct seq_buf *sb, const struct embm_view *v)
{
	struct embm_tasks *tt = v->stats->tasks;
	const struct embm_task *top[EMBM_REPORT_TOP_TASKS];
	struct embm_report_tasks *rt;
	struct embm_report_basis b;
	unsigned int n, i;

	if (!tt || !embm_tasks_count(tt))
		return;
	rt = embm_report_tasks_scale(v);
	if (!rt)
		return;
	n = embm_tasks_top(tt, top, EMBM_REPORT_TOP_TASKS);
	embm_report_basis(v, &b);
	seq_buf_printf(sb, "top tasks by accesses (of %u; /proc/embm/tasks):",
		       embm_tasks_count(tt));
	for (i = 0; i < n; i++) {
		u64 acc = 0;
		int k;

		for (k = 0; k < rt->nr_slots; k++)
			acc += embm_report_task_scaled(rt, k, top[i]->node[k].accesses);
		seq_buf_printf(sb, "%s %u/%u %s", i ? "," : "", top[i]->pid, top[i]->tid,
			       top[i]->comm);
		embm_report_pct(sb, embm_share(acc, b.accesses));
		seq_buf_puts(sb, "%");
	}
	if (embm_tasks_other(tt)->samples)
		seq_buf_printf(sb, "; %llu samples of other tasks (past max_tasks %u, or unnamed)",
			       embm_tasks_other(tt)->samples, embm_tasks_max(tt));
	embm_report_line(sb);
	kvfree(rt);
}

/**
 * embm_report_summary() - a session's results as a table in the kernel log
 * @v: a view of a session that just ended, with results
 *
 * The per-node table is /proc/embm/nodes's, header included, then the
 * CXL windows by name (their ranges are for root: /proc/embm/windows).
 * At most ten tables every five seconds.
 *
 * Only where the kernel log is for CAP_SYSLOG (kernel.dmesg_restrict, on
 * in most distributions' kernels): elsewhere anyone may read it, while
 * /proc/embm asks perf's rights over the target, and one line says that
 * the session ended and where its results are.
 *
 * Context: process; takes v->stats->lock.
 */
void embm_report_summary(const struct embm_view *v)
{
	const struct embm_sampler_status *ss = &v->status;
	struct embm_stats *st = v->stats;
	char line[EMBM_REPORT_LINE];
	struct seq_buf sb;
	int *order;

	if (!st || !__ratelimit(&embm_summary_rs))
		return;
	if (!READ_ONCE(dmesg_restrict)) {
		pr_info("session %lu %s: results in /proc/embm (kernel.dmesg_restrict=1 puts them here too)\n",
			v->gen, embm_state_name(v->state));
		return;
	}
	order = kvcalloc(st->nr_nodes, sizeof(*order), GFP_KERNEL);
	if (!order)
		return;
	seq_buf_init(&sb, line, sizeof(line));
	mutex_lock(&st->lock);
	embm_report_period(&sb, ss);
	pr_info("session %lu %s: target %d, node %d, %llu ms, source %s, %s\n",
		v->gen, embm_state_name(v->state), v->target_nr, v->node,
		div_u64(v->elapsed_ns, NSEC_PER_MSEC),
		ss->source ? ss->source->name : "-", seq_buf_str(&sb));
	seq_buf_clear(&sb);
	/* The terms of embm_stats_identity_ok(), in its order. */
	pr_info("samples %llu = attributed %llu (cache-served %llu) + latency-only %llu + no address %llu + not System RAM %llu + on CXL device pages %llu + during memory hotplug %llu; lost %llu (%llu events, nodes unknown), throttled %llu, ksamplingd %llu ms CPU\n",
		st->samples, embm_stats_attributed(st), st->cache, st->latency_only,
		st->no_phys, st->bad_pfn, embm_stats_device(st), st->hotplug_busy, ss->lost,
		embm_report_lost_weight(ss), ss->throttled,
		div_u64(ss->kthread_ns, NSEC_PER_MSEC));
	embm_report_kinds(ss);
	embm_report_table(&sb, v, order);
	embm_report_top_tasks(&sb, v);
	mutex_unlock(&st->lock);
	kvfree(order);
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/report-kunit.h"
#endif
