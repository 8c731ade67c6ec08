// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the node of a physical address, and the tier of a node
 *
 * A sample's physical address gives its pfn, the pfn its node
 * (embm_pfn_nid()), the node a tier decided at session start, or when
 * memory comes to a node that had none or goes (embm_node_tier()).  The
 * tier rule looks at the node's CPUs, its memory tier, and how much of its
 * System RAM lies in the CXL windows (IORES_DESC_CXL), which a session
 * scans at start and again after memory went online or offline anywhere.
 *
 * Everything that looks at memory hotplug is here: the memory notifier,
 * and the rules for mem_hotplug_lock (which this file takes for reading,
 * never waiting for it in ksamplingd).  The windows, the tiers and the
 * CXL nodes of a session are in its struct embm_stats, under its lock.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/ioport.h>
#include <linux/lockdep.h>
#include <linux/memory.h>
#include <linux/memory-tiers.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/slab.h>

#include "stats.h"
#include "tier.h"

/*
 * Bumped by every memory block that goes online or offline: a session
 * rescans its CXL windows when it sees a new value.  The notifier runs
 * with mem_hotplug_lock held and takes nothing else.
 */
static atomic_t embm_mem_gen = ATOMIC_INIT(0);

static int embm_mem_notify(struct notifier_block *nb, unsigned long action, void *arg)
{
	if (action == MEM_ONLINE || action == MEM_OFFLINE)
		atomic_inc(&embm_mem_gen);
	return NOTIFY_OK;
}

static struct notifier_block embm_mem_nb = {
	.notifier_call = embm_mem_notify,
};

static int __init embm_tier_init(void)
{
	return register_memory_notifier(&embm_mem_nb);
}
late_initcall(embm_tier_init);

static const char *const embm_tier_names[EMBM_NR_TIERS] = {
	[EMBM_TIER_DRAM] = "dram",
	[EMBM_TIER_FAR]  = "far",
	[EMBM_TIER_CXL]  = "cxl",
};

/**
 * embm_tier_name() - the name of a tier, as the reports show it
 * @tier: the tier
 *
 * Context: any.
 * Return: "dram", "far", "cxl", or "?".
 */
const char *embm_tier_name(enum embm_tier tier)
{
	return tier < EMBM_NR_TIERS ? embm_tier_names[tier] : "?";
}

/**
 * embm_tier_of() - the tier rule
 * @has_cpu:	   the node has CPUs
 * @top_tier:	   the node is in the top memory tier
 * @in_cxl_window: some of the node's online System RAM lies in a CXL
 *		   window (IORES_DESC_CXL)
 *
 * A CXL window makes a node ``cxl``.  Without one, a node with memory but
 * no CPUs, or below the top memory tier, is ``far``: how a CXL expander
 * looks when firmware does not describe it as CXL, and how QEMU's
 * memory-only nodes look.  Everything else is ``dram``.
 *
 * Return: the node's tier.
 */
static enum embm_tier embm_tier_of(bool has_cpu, bool top_tier, bool in_cxl_window)
{
	if (in_cxl_window)
		return EMBM_TIER_CXL;
	if (!has_cpu || !top_tier)
		return EMBM_TIER_FAR;
	return EMBM_TIER_DRAM;
}

/*
 * Online System RAM in a CXL window: add its pages to the node of the
 * first online page of each memory section they are in (sections do not
 * straddle nodes in practice: windows are 256 MiB aligned).  Pages of a
 * ZONE_DEVICE namespace (devdax, fsdax) are not System RAM and never
 * count, however far the span of the node they are given to reaches.
 * Called with memory hot-remove held off (embm_cxl_scan()).
 */
static int embm_cxl_ram(unsigned long pfn, unsigned long nr_pages, void *arg)
{
	unsigned long end = pfn + nr_pages, next, *pages = arg;
	struct page *page;
	int nid;

	for (; pfn < end; pfn = next) {
		next = min(ALIGN(pfn + 1, PAGES_PER_SECTION), end);
		page = pfn_to_online_page(pfn);
		if (!page)
			continue;
		nid = page_to_nid(page);
		if (nid < nr_node_ids)
			pages[nid] += next - pfn;
	}
	return 0;
}

/* What one scan of the CXL windows gathers, per node. */
struct embm_cxl_scan {
	struct embm_stats *st;
	unsigned long *pages;		/* System RAM in any window */
	unsigned long *win_pages;	/* System RAM in the window walked */
	unsigned int over;		/* windows beyond EMBM_MAX_WINDOWS */
};

/*
 * The window of @st from @start to @end, added after the others if new;
 * NULL when EMBM_MAX_WINDOWS are already followed.  A window keeps its
 * index, and its counts, for the rest of the session.  Caller holds
 * st->lock, or is the only user of @st.
 */
static struct embm_window *embm_window_get(struct embm_stats *st, u64 start, u64 end)
{
	struct embm_window *w;
	int i;

	for (i = 0; i < st->nr_win; i++) {
		w = &st->win[i];
		if (w->start == start && w->end == end)
			return w;
	}
	if (st->nr_win == EMBM_MAX_WINDOWS)
		return NULL;
	w = &st->win[st->nr_win++];
	*w = (struct embm_window){ .start = start, .end = end, .nid = NUMA_NO_NODE };
	return w;
}

/* One CXL window: its System RAM by node, and the node of most of it. */
static int embm_cxl_window(struct resource *res, void *arg)
{
	struct embm_cxl_scan *sc = arg;
	unsigned long start = PHYS_PFN(res->start), most = 0;
	struct embm_window *w;
	int nid;

	memset(sc->win_pages, 0, nr_node_ids * sizeof(*sc->win_pages));
	walk_system_ram_range(start, PHYS_PFN(res->end + 1) - start, sc->win_pages,
			      embm_cxl_ram);
	w = embm_window_get(sc->st, res->start, res->end);
	if (!w)
		sc->over++;
	for (nid = 0; nid < nr_node_ids; nid++) {
		sc->pages[nid] += sc->win_pages[nid];
		if (w && sc->win_pages[nid] > most) {
			most = sc->win_pages[nid];
			w->nid = nid;
		}
	}
	return 0;
}

/*
 * The nodes whose online System RAM lies mostly in the windows scanned
 * (@sc->pages): more than half of their present pages.  A node with some
 * of both is logged.
 */
static void embm_cxl_nodes(struct embm_cxl_scan *sc, nodemask_t *nodes)
{
	unsigned long present;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		if (!sc->pages[nid])
			continue;
		present = node_present_pages(nid);
		if (sc->pages[nid] > present / 2)
			node_set(nid, *nodes);
		if (sc->pages[nid] < present)
			pr_info_ratelimited("node %d: %lu of %lu MiB in CXL windows: tier %s\n",
					    nid, sc->pages[nid] >> (20 - PAGE_SHIFT),
					    present >> (20 - PAGE_SHIFT),
					    node_isset(nid, *nodes) ? "cxl" : "of the rest");
	}
}

/*
 * Scan the CXL windows into @st->win, and find the nodes whose online
 * System RAM lies mostly in them (@st->cxl_nodes), as the CXL drivers and
 * kmem (or firmware) placed it: more than half of the node's present
 * pages.  A window that firmware let grow over DRAM (its System RAM not
 * split at the window's edge), or a node that holds both DRAM and CXL
 * memory, then keeps the tier of most of its memory; a node with some of
 * both is logged.  Without memory for the counts, no node is cxl (and that is
 * logged).  A window no longer there keeps its counts, with no node.
 *
 * Process context: may sleep.  Caller holds st->lock, or is the only user
 * of @st.  Holds off memory hot-remove (get_online_mems()) while it reads
 * the pages' nodes: nothing takes st->lock under mem_hotplug_lock (the
 * memory notifier above takes no lock).  Unless @wait, it does not wait
 * for a memory hotplug operation under way (ksamplingd must not: an
 * offline may take long, and the end waits for ksamplingd), and without
 * memory for its counts it keeps the last scan: it then changes nothing
 * and returns false, and the next sample tries again.  Return: whether
 * @st now holds a new scan.
 * Takes resource_lock for reading, once per resource looked up.
 */
static bool embm_cxl_scan(struct embm_stats *st, bool wait)
{
	struct embm_cxl_scan sc = { .st = st };
	int i;

	if (wait)
		get_online_mems();
	else if (!try_get_online_mems())
		return false;
	sc.pages = kcalloc(nr_node_ids, sizeof(*sc.pages), GFP_KERNEL);
	if (!sc.pages)
		goto out_put_mems;
	sc.win_pages = kcalloc(nr_node_ids, sizeof(*sc.win_pages), GFP_KERNEL);
	if (!sc.win_pages)
		goto out_free_pages;
	nodes_clear(st->cxl_nodes);
	st->mem_gen = atomic_read(&embm_mem_gen);
	for (i = 0; i < st->nr_win; i++)
		st->win[i].nid = NUMA_NO_NODE;
	walk_iomem_res_desc(IORES_DESC_CXL, IORESOURCE_MEM, 0, U64_MAX, &sc,
			    embm_cxl_window);
	put_online_mems();
	if (sc.over > st->win_over) {
		pr_warn_ratelimited("%u CXL windows beyond the first %d not followed\n",
				    sc.over, EMBM_MAX_WINDOWS);
		st->win_over = sc.over;
	}
	embm_cxl_nodes(&sc, &st->cxl_nodes);
	kfree(sc.win_pages);
	kfree(sc.pages);
	return true;

out_free_pages:
	kfree(sc.pages);
out_put_mems:
	put_online_mems();
	/* In a session: keep the last scan, and try at the next sample. */
	if (!wait) {
		pr_warn_ratelimited("no memory to scan the CXL windows again\n");
		return false;
	}
	nodes_clear(st->cxl_nodes);
	st->mem_gen = atomic_read(&embm_mem_gen);
	pr_warn_ratelimited("no memory to find the CXL nodes: none is called cxl\n");
	return true;
}

/**
 * embm_node_tier() - a node's tier, by the last scan of the CXL windows
 * @st:	 the statistics; caller holds st->lock, or is their only user
 * @nid: a node with memory
 *
 * Context: any.
 * Return: the tier embm_tier_of() gives the node.
 */
enum embm_tier embm_node_tier(const struct embm_stats *st, int nid)
{
	return embm_tier_of(node_state(nid, N_CPU), node_is_toptier(nid),
			    node_isset(nid, st->cxl_nodes));
}

/**
 * embm_stats_classify_nodes() - decide each node's tier and each CPU's node
 * @st: the statistics of the starting session
 *
 * Nodes with memory now are present in the reports; the others get a tier
 * when their first sample comes (memory added during the session).  The
 * CXL windows are found, and numbered, here.
 *
 * Context: process, before ksamplingd and readers see @st.
 */
void embm_stats_classify_nodes(struct embm_stats *st)
{
	int nid, cpu;

	embm_cxl_scan(st, true);
	for (nid = 0; nid < st->nr_nodes; nid++) {
		st->node[nid].present = node_state(nid, N_MEMORY);
		st->tier[nid] = st->node[nid].present ? embm_node_tier(st, nid) :
			EMBM_TIER_DRAM;
	}
	for_each_possible_cpu(cpu)
		st->cpu_node[cpu] = cpu_to_node(cpu);
}

/**
 * __embm_tier_update() - scan the windows again if memory came or went
 * @st: the statistics of a running session; caller holds st->lock
 *
 * After memory went online or offline anywhere, a window's memory may be
 * on another node, and a node that had memory may be of another tier (its
 * CXL part grew past half, or went).  Nodes with no memory now keep the
 * tier their samples had.  Not while a memory hotplug operation is under
 * way: the next call looks again.
 *
 * Context: ksamplingd (process), st->lock held, mem_hotplug_lock not held;
 * may sleep when it scans.
 */
void __embm_tier_update(struct embm_stats *st)
{
	enum embm_tier tier;
	int nid;

	lockdep_assert_held(&st->lock);
	if (likely(st->mem_gen == atomic_read(&embm_mem_gen)))
		return;
	if (!embm_cxl_scan(st, false))
		return;
	for (nid = 0; nid < st->nr_nodes; nid++) {
		if (!st->node[nid].present || !node_state(nid, N_MEMORY))
			continue;
		tier = embm_node_tier(st, nid);
		if (tier != st->tier[nid])
			pr_info_ratelimited("node %d: tier %s, was %s (memory came or went)\n",
					    nid, embm_tier_name(tier),
					    embm_tier_name(st->tier[nid]));
		st->tier[nid] = tier;
	}
}

/**
 * embm_window_find() - the CXL window of a session that holds an address
 * @st:	  the statistics; caller holds st->lock
 * @phys: a physical address
 *
 * Context: any.
 * Return: the window, or NULL.
 */
struct embm_window *embm_window_find(struct embm_stats *st, u64 phys)
{
	int i;

	for (i = 0; i < st->nr_win; i++) {
		if (phys >= st->win[i].start && phys <= st->win[i].end)
			return &st->win[i];
	}
	return NULL;
}

/**
 * embm_pfn_nid_locked() - the node of an online page, hot-remove held off
 * @pfn: a page frame number, from a sample (anything at all)
 *
 * Offlined memory keeps valid pfns whose struct pages are poisoned, and
 * pfn_to_online_page() is only a snapshot: memory hot-remove could free
 * the memmap before page_to_nid() reads it.  So the caller holds off
 * hot-remove (get_online_mems() or try_get_online_mems()).
 *
 * Context: any; caller holds mem_hotplug_lock for reading.
 * Return: the node, or NUMA_NO_NODE if @pfn is not online memory.
 */
int embm_pfn_nid_locked(unsigned long pfn)
{
	struct page *page = pfn_to_online_page(pfn);

	return page ? page_to_nid(page) : NUMA_NO_NODE;
}

/**
 * embm_pfn_nid() - the node of an online page, unless memory hotplug runs
 * @pfn: a page frame number, from a sample (anything at all)
 *
 * embm_pfn_nid_locked() with hot-remove held off, without waiting for a
 * memory hotplug operation under way (an offline may take long:
 * ksamplingd, which the end waits for, must not wait for it).
 *
 * Context: process or atomic, never sleeps; the caller holds no
 * mem_hotplug_lock (a percpu rwsem is not recursive).
 * Return: the node; NUMA_NO_NODE if @pfn is not online memory; -EBUSY if
 * a memory hotplug operation holds or waits for mem_hotplug_lock.
 */
int embm_pfn_nid(unsigned long pfn)
{
	int nid;

	if (!try_get_online_mems())
		return -EBUSY;
	nid = embm_pfn_nid_locked(pfn);
	put_online_mems();
	return nid;
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/tier-kunit.h"
#endif
