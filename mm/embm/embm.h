/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm internal interface, shared by the files of mm/embm/; what a
 * source of samples sees is <linux/embm.h>.
 *
 * Files, the state each owns, and what runs where:
 *   core.c       the session (private, under embm_lock), the
 *		       system calls, views for readers          process
 *   perm.c       perf's permission rules, ring memory      process
 *   sampler.c    the sampler's start, stop and status
 *		       (sampler.h); the rest of it is in choose.c,
 *		       evset.c, threads.c, drain.c, counts.c and
 *		       ksamplingd.c (sampler-internal.h)   process, kthread
 *   record.c     PERF_RECORD_* parsing                    any
 *   stats.c      struct embm_stats: attribution (pfn ->
 *		       node -> tier), counts                     kthread
 *   direct.c     direct samples: the overflow handler's
 *		       per-CPU queues                 any (writer: task, IRQs off)
 *   hot.c        hot pages: space-saving top-N            kthread
 *   source.c     the registered sources, in rank order    any
 *   swfault.c    the page-fault source; PEBS and IBS are in
 *		       arch/x86/events/{intel,amd}/embm_*.c      process
 *   report.c     the per-node table and the kernel-log
 *		       summary, from a struct embm_view          process
 *   proc.c       /proc/embm                               process
 *   sysfs.c      the knobs under /sys/kernel/mm/embm      process
 *
 * Calls between files go one way (scripts/embm test checks it, from the
 * objects' symbols):
 *   embm_proc    -> embm_core, embm_report, embm_stats, embm_hot
 *   embm_core    -> embm_sampler, embm_stats, embm_perm, embm_report,
 *		     embm_sysfs (the knobs)
 *   embm_sampler -> embm_choose, embm_threads, embm_evset,
 *		     embm_ksamplingd
 *   embm_ksamplingd -> embm_evset, embm_threads, embm_counts,
 *		     embm_drain, embm_sysfs (the period knobs)
 *   embm_choose  -> embm_evset -> embm_threads, embm_counts -> embm_drain
 *		     -> embm_record, embm_stats, embm_direct
 *   embm_sysfs   -> embm_source <- the sources
 *   embm_report  -> embm_stats -> embm_record, embm_hot
 * The sampler tells the core that a target exited through a callback
 * (embm_exit_fn); readers get a struct embm_view and never hold embm_lock
 * while they format.
 */
#ifndef __MM_EMBM_H
#define __MM_EMBM_H

#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/irq_work_types.h>
#include <linux/embm.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/seq_buf.h>
#include <linux/types.h>

#include "session.h"

/* ---- permissions (perm.c) ------------------------------------------ */

/**
 * struct embm_owner - the process that started a session, as it was then
 * @pid:     its thread-group pid, referenced.
 * @euid:    its effective uid then.
 * @exec_id: its self_exec_id then: it may end and read the session
 *	     without further checks only while both still hold.
 */
struct embm_owner {
	struct pid *pid;
	kuid_t euid;
	u32 exec_id;
};

/**
 * struct embm_mlock - ring-buffer pages charged to a session's starter
 * @user:	  the starter's user; its perf_mlock takes the charge up to
 *		  perf_event_mlock_kb per online CPU, as perf_mmap() does.
 * @mm:		  the starter's mm (grabbed); its pinned_vm takes the rest.
 * @user_pages:	  pages charged to @user.
 * @pinned_pages: pages charged to @mm.
 * @lock_limit:	  RLIMIT_MEMLOCK of the starter at start, in pages.
 * @unlimited:	  the starter had CAP_IPC_LOCK, or perf_event_paranoid was
 *		  -1: pinned_vm may pass @lock_limit.
 *
 * Charged and uncharged by whoever opens or closes buffers: the starter,
 * then ksamplingd, never both at once (the sampler's rule).
 */
struct embm_mlock {
	struct user_struct *user;
	struct mm_struct *mm;
	unsigned long user_pages;
	unsigned long pinned_pages;
	unsigned long lock_limit;
	bool unlimited;
};

void embm_perm_attr(struct perf_event_attr *attr);
struct task_struct *embm_live_thread(struct pid *tgid);
void embm_owner_init(struct embm_owner *o);
void embm_owner_release(struct embm_owner *o);
bool embm_owner_is_current(const struct embm_owner *o);
int embm_perm_may_access(const struct embm_owner *o, struct pid *target);
struct perf_event *embm_perm_read_event(void);
int embm_perm_may_read(struct perf_event *event);
void embm_mlock_init(struct embm_mlock *ml);
int embm_mlock_charge(struct embm_mlock *ml, unsigned long pages);
void embm_mlock_uncharge(struct embm_mlock *ml, unsigned long pages);
void embm_mlock_release(struct embm_mlock *ml);

/* Take a mutex for a system call or a read: -ERESTARTSYS on a signal. */
static inline int embm_lock_interruptible(struct mutex *lock)
{
	return mutex_lock_interruptible(lock) ? -ERESTARTSYS : 0;
}

/* ---- samples and records ---------------------------------------------- */

/**
 * enum embm_served - what served an access, from the sample's data source
 * @EMBM_SERVED_UNKNOWN: no data source, or one that does not say (an L3
 *			 miss of unknown destination, a store past L1).
 * @EMBM_SERVED_CACHE:	 a cache: L1, fill buffer, L2, L3, another core's
 *			 or socket's cache.  Counted apart from the traffic
 *			 to memory.
 * @EMBM_SERVED_MEM:	 memory: DRAM, PMEM or CXL, local or remote, or an
 *			 uncached access.
 */
enum embm_served {
	EMBM_SERVED_UNKNOWN,
	EMBM_SERVED_CACHE,
	EMBM_SERVED_MEM,
};

u64 embm_record_id(const struct perf_event_header *hdr);
int embm_parse_sample(const struct perf_event_header *hdr, u64 sample_type,
		      struct embm_sample *s);
int embm_parse_lost(const struct perf_event_header *hdr, u64 *lost);
int embm_parse_throttle(const struct perf_event_header *hdr, u64 *time, u64 *id, u64 *stream);
enum embm_served embm_served_by(u64 data_src);

/**
 * enum embm_lat_drop - why a sample's latency is left out of the figures
 * @EMBM_LAT_CACHE:	a cache served it: the figures are of memory.
 * @EMBM_LAT_UNCACHED:	an uncached access: AMD documents IbsDcMissLat as
 *			valid only for cacheable loads that missed the data
 *			cache; Intel's is of a path no DRAM load takes.
 * @EMBM_LAT_IO:	I/O served it (Intel dse 0xe).
 * @EMBM_LAT_UNKNOWN:	its data source says neither memory nor a miss of
 *			L3: none at all, "not available" (an IBS DataSrc of
 *			0 or unlisted, Zen 3's erratum 1293 L2 hits), or a
 *			reserved encoding.
 * @EMBM_LAT_NR:	how many reasons.
 *
 * Every other sample with a latency keeps it: its node comes from its
 * physical address, so a load that missed L3 to an unnamed destination
 * (Intel dse 0x0, "L3 miss, source unknown", which is what a CXL-served
 * load may report: no Intel driver names CXL) counts on its node.
 */
enum embm_lat_drop {
	EMBM_LAT_CACHE,
	EMBM_LAT_UNCACHED,
	EMBM_LAT_IO,
	EMBM_LAT_UNKNOWN,
	EMBM_LAT_NR,
};

int embm_lat_drop(u64 data_src);

/* ---- attribution and statistics -------------------------------------- */

enum embm_tier {
	EMBM_TIER_DRAM,		/* DRAM node with CPUs, in the top tier */
	EMBM_TIER_FAR,		/* memory without CPUs or below the top tier */
	EMBM_TIER_CXL,		/* memory in a CXL window */
	EMBM_NR_TIERS,
};

#define EMBM_LAT_BUCKETS	32	/* log2 buckets of latency in cycles */
#define EMBM_THROTTLE_MAX	8	/* the most throttling scales a kind by */
#define EMBM_PAGES_BITS		20	/* distinct-page bitmap: 2^20 bits a node */

/**
 * struct embm_node_stats - what landed on one memory node
 * @samples:	samples whose address is on this node.
 * @cache:	of which served by a cache, as the data source says; the
 *		figures below leave them out.
 * @mem:	of which served by memory (DRAM, PMEM, CXL, uncached), as the
 *		data source says.
 * @loads:	loads among the others.
 * @stores:	stores among the others (an op may be both; the rest are
 *		unknown).
 *
 * The figures above count samples.  Those below are estimates: each sample
 * stands for its period (the period it was taken with), the accesses ones
 * times the base pages it covers (struct embm_sample.pages), so that
 * samples taken while the adaptive period was low do not outweigh the
 * others.  The latency figures weigh the period only (a load is one
 * access), @page_samples the pages only.
 *
 * @accesses:	estimated accesses of the samples not served by a cache,
 *		not yet scaled for multiplexing.
 * @kind_accesses: @accesses by event kind, to scale each by its own
 *		enabled/running ratio (embm_stats_node_accesses()).
 * @kind_mem:	likewise of the samples served by memory: the node shares
 *		of a source with share_mem.
 * @lat_samples: samples with a latency that no cache, I/O or uncached
 *		access served (embm_lat_drop()): a count.
 * @lat_dropped: samples with a latency left out, by enum embm_lat_drop.
 * @lat_weight:	their estimated accesses.
 * @lat_sum:	their latencies times their periods, in cycles.
 * @lat_hist:	latency histogram of estimated accesses, bucket i for
 *		[2^i, 2^(i+1)) cycles.
 * @pages:	linear-counting bitmap of the base pages seen; NULL when it
 *		could not be allocated.
 * @page_samples: base pages the samples covered, repeats counted: the
 *		distinct pages are at most this.
 * @cxl:	of @samples, those whose physical address lies in a CXL
 *		window: each sample classified by its own address, so that
 *		a node holding DRAM and CXL memory shows how much is which.
 * @present:	the node had memory at start, or got a sample since: it is
 *		in the reports.
 */
struct embm_node_stats {
	u64 samples;
	u64 cache;
	u64 mem;
	u64 loads;
	u64 stores;
	u64 accesses;
	u64 kind_accesses[EMBM_MAX_EVENTS];
	u64 kind_mem[EMBM_MAX_EVENTS];
	u64 lat_samples;
	u64 lat_dropped[EMBM_LAT_NR];
	u64 lat_weight;
	u64 lat_sum;
	u64 lat_hist[EMBM_LAT_BUCKETS];
	unsigned long *pages;
	u64 page_samples;
	u64 cxl;
	bool present;
};

#define EMBM_MAX_WINDOWS	16	/* CXL windows a session follows */

/**
 * struct embm_window - a CXL window (IORES_DESC_CXL) as a session saw it
 * @start:	its first physical address.
 * @end:	its last.
 * @nid:	the node of most of its online System RAM (NUMA_NO_NODE
 *		without any), as of the last scan.
 * @samples:	samples whose physical address lay in it.
 * @device:	of which on pages that are not online System RAM (a devdax
 *		or fsdax namespace, memory being offlined): they count here,
 *		on no node.
 *
 * Windows are named in the reports by their index, "w0" on, in the order
 * the session first saw them (address order at its start).
 */
struct embm_window {
	u64 start;
	u64 end;
	int nid;
	u64 samples;
	u64 device;
};

/**
 * struct embm_kind_stats - what perf says of one kind of event
 * @name:	the descriptor's name; NULL for an unused slot.
 * @count:	events counted, on every CPU and thread, children included.
 * @enabled:	time enabled, in ns: for per-thread events, the largest
 *		over the CPUs of each thread, summed over the threads.
 * @running:	time on the PMU, likewise: below @enabled when another
 *		perf user or other events left no counter.
 * @lead:	a counting group leader (no samples of its own).
 * @by_count:	its samples carry no period (software events): its accesses
 *		are calibrated to @count (embm_stats_node_accesses()).
 * @weight:	the sum of its samples' periods when @count was read.
 * @lost:	its samples lost (a full buffer or queue), as far as known.
 * @lost_weight: the events they stood for: each the period in force when
 *		its loss was read.  Calibration leaves them out: where they
 *		landed is not known.
 * @lost_read:	@lost_weight when @count was read: what the calibration
 *		takes, of the same moment as @count and @weight.
 * @throttled_ns: time its events spent throttled while running, as
 *		perf's THROTTLE and UNTHROTTLE records tell (each interval
 *		capped at a tick: see ksamplingd_throttle()).  perf leaves a
 *		throttled event active, so @running includes this time
 *		although the event took no samples: embm_stats_scale()
 *		takes it out.
 */
struct embm_kind_stats {
	const char *name;
	u64 count;
	u64 enabled;
	u64 running;
	bool lead;
	bool by_count;
	u64 weight;
	u64 lost;
	u64 lost_weight;
	u64 lost_read;
	u64 throttled_ns;
};

struct embm_hot;

/**
 * struct embm_stats - the results of a session: where its samples landed
 * @ref:	the session holds one reference, and each reader of /proc/embm
 *		or the kernel-log summary one while it formats them.
 * @lock:	held by ksamplingd while it adds a batch and by readers.
 * @nr_nodes:	nr_node_ids when the session started.
 * @tier:	tier of each node, decided at start, or when a node that had
 *		no memory then gets its first sample.
 * @cpu_node:	the node of each possible CPU, at start.
 * @node:	per memory node.
 * @matrix:	estimated accesses by CPU node (row) x memory node (column):
 *		the weights of @node's @accesses, not scaled by kind as the
 *		nodes' estimates are (embm_stats_scale()).
 * @hot:	hot pages.
 * @samples:	every sample added: the sum of embm_stats_attributed(),
 *		@latency_only, @no_phys, @bad_pfn, @hotplug_busy and
 *		embm_stats_device() (embm_stats_identity_ok()).
 * @latency_only: samples of latency-only kinds: another event counts
 *		their accesses, they add to the latency figures alone, and
 *		none of the counts below includes them.
 * @no_phys:	samples without a physical address.
 * @bad_pfn:	samples whose pfn is not online System RAM of a node of
 *		@node, outside the CXL windows (device pages in one count
 *		in its @device).
 * @hotplug_busy: samples not placed because a memory hotplug operation
 *		was under way (embm_pfn_nid()): their page might be going.
 * @cache:	samples a data source said a cache served.
 * @kind_samples: samples by the event kind that took them.
 * @kind_weight: the sum of their periods, latency-only samples aside.
 * @win:	the CXL windows, as scanned at start and whenever a node
 *		gets memory during the session.
 * @nr_win:	how many of @win are in use.
 * @win_over:	windows seen beyond EMBM_MAX_WINDOWS, not followed.
 * @mem_gen:	the memory hotplug generation of the last scan of @win.
 * @cxl_nodes:	the nodes whose System RAM that scan found mostly in @win.
 * @bytes:	the memory these statistics take, page bitmaps and hot-page
 *		table included.
 *
 * Written by stats.c alone (embm_stats_add()), under @lock; what the
 * sampler knows of itself is in struct embm_sampler_status.
 */
struct embm_stats {
	struct kref ref;
	struct mutex lock;	/* see above: ksamplingd vs readers */
	int nr_nodes;
	u8 *tier;
	int *cpu_node;
	struct embm_node_stats *node;
	u64 *matrix;
	struct embm_hot *hot;
	u64 samples;
	u64 latency_only;
	u64 no_phys;
	u64 bad_pfn;
	u64 hotplug_busy;
	u64 cache;
	u64 kind_samples[EMBM_MAX_EVENTS];
	u64 kind_weight[EMBM_MAX_EVENTS];
	struct embm_window win[EMBM_MAX_WINDOWS];
	int nr_win;
	unsigned int win_over;
	int mem_gen;
	nodemask_t cxl_nodes;
	size_t bytes;
};

struct embm_stats *embm_stats_alloc(unsigned int hot_pages);
void embm_stats_get(struct embm_stats *st);
void embm_stats_put(struct embm_stats *st);
void embm_stats_classify_nodes(struct embm_stats *st);
const char *embm_tier_name(enum embm_tier tier);
void embm_stats_add(struct embm_stats *st, const struct embm_sample *s,
		    int kind, enum embm_op op, bool latency_only);
u64 embm_stats_scale(u64 est, const struct embm_kind_stats *ks);
u64 embm_stats_node_accesses(const struct embm_node_stats *ns,
			     const struct embm_kind_stats *kinds, int nr_kinds);
void embm_stats_kind_weights(struct embm_stats *st, u64 *weight, int nr_kinds);
u64 embm_stats_share_part(const struct embm_node_stats *ns, bool share_mem,
			  const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_share_basis(const struct embm_stats *st, bool share_mem,
			   const struct embm_kind_stats *kinds, int nr_kinds);
u64 embm_stats_lat_mean(const struct embm_node_stats *ns);
u64 embm_stats_distinct_pages(const struct embm_node_stats *ns);
u64 embm_stats_attributed(const struct embm_stats *st);
bool embm_stats_identity_ok(const struct embm_stats *st);
int __embm_pfn_nid(unsigned long pfn);
int embm_pfn_nid(unsigned long pfn);
u64 embm_stats_device(const struct embm_stats *st);
int embm_stats_node_order(const struct embm_stats *st, int study, int *order);

/* ---- hot pages ------------------------------------------------------- */

/**
 * struct embm_hot_page - one entry of the hot-page table
 * @pfn:	the page.
 * @count:	its count, the periods of its samples (not times the pages
 *		of a huge mapping: the sample's own page), an overestimate by
 *		at most @error.
 * @error:	the count of the entry it replaced.
 * @samples:	samples of the page since it took its entry: exact, and
 *		at least 2 only for a page sampled more than once.
 */
struct embm_hot_page {
	u64 pfn;
	u64 count;
	u64 error;
	u64 samples;
};

struct embm_hot *embm_hot_alloc(unsigned int capacity);
size_t embm_hot_bytes(const struct embm_hot *hot);
void embm_hot_free(struct embm_hot *hot);
void embm_hot_add(struct embm_hot *hot, u64 pfn, u64 weight);
unsigned int embm_hot_top(const struct embm_hot *hot, struct embm_hot_page *out,
			  unsigned int max);

/* ---- direct samples (direct.c) --------------------------------------- */

struct embm_direct;

/* An overflow handler's context: the queue and the event's kind. */
struct embm_direct_ctx {
	struct embm_direct *dq;
	int kind;
};

/**
 * struct embm_direct - the direct samples of one CPU, a single-writer queue
 * @head:	next entry to write; written by the writer only.
 * @lost:	samples dropped on a full queue, by kind; written by the
 *		writer only.
 * @period:	the period of each kind's samples as last queued (a mark);
 *		written by the writer only.
 * @tail:	next entry to read; written by the reader only.
 * @lost_read:	@lost as the reader last took it.
 * @rd_period:	the period of each kind's samples as last read.
 * @lost_elsewhere: samples dropped because they were not taken in a task.
 * @mask:	entries - 1, a power of two - 1.
 * @reader:	woken when the queue fills to half; NULL: nobody.
 * @wake:	wakes @reader from the writer's context.
 * @ctx:	the handler's context for each kind.
 * @rcu:	frees the queue after a grace period, as perf frees events.
 * @ent:	physical page address | mapping order | kind; 0 | kind for
 *		no address; or a period mark (direct.c).
 */
struct embm_direct {
	u64 head;
	u64 lost[EMBM_MAX_EVENTS];
	u64 period[EMBM_MAX_EVENTS];
	u64 tail ____cacheline_aligned;
	u64 lost_read[EMBM_MAX_EVENTS];
	u64 rd_period[EMBM_MAX_EVENTS];
	atomic64_t lost_elsewhere[EMBM_MAX_EVENTS];
	unsigned int mask;
	struct task_struct *reader;
	struct irq_work wake;
	struct embm_direct_ctx ctx[EMBM_MAX_EVENTS];
	struct rcu_head rcu;
	u64 ent[];
};

/* A sample read from a queue: address, mapping order, kind, period, argument. */
typedef void (*embm_direct_fn)(u64 phys, unsigned int order, int kind, u64 period,
			       void *arg);

struct embm_direct *embm_direct_alloc(unsigned int nr_entries, int cpu);
size_t embm_direct_bytes(const struct embm_direct *dq);
void embm_direct_set_reader(struct embm_direct *dq, struct task_struct *reader);
void embm_direct_free(struct embm_direct *dq);
void *embm_direct_context(struct embm_direct *dq, int kind);
bool embm_direct_push(struct embm_direct *dq, u64 phys, unsigned int order, int kind);
bool embm_direct_push_period(struct embm_direct *dq, u64 phys, unsigned int order, int kind,
			     u64 period);
void embm_direct_overflow(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs);
unsigned int embm_direct_read(struct embm_direct *dq, embm_direct_fn fn, void *arg);
bool embm_direct_half_full(struct embm_direct *dq);
u64 embm_direct_lost(struct embm_direct *dq, u64 *by_kind);

#include "sampler.h"
#include "knobs.h"

/* ---- reports (report.c) --------------------------------------------- */

/**
 * struct embm_view - a session as readers see it, taken at one moment
 * @gen:	the session's generation.
 * @state:	see enum embm_state.
 * @ended_by:	"-" while running, then "embm_end", "target_exit" or
 *		"starter_exit".
 * @target:	thread-group pid of the target, referenced; NULL for a
 *		system-wide or cgroup session.
 * @target_nr:	the target's pid as the starter saw it; -1 system-wide.
 * @cgroup:	the cgroup of a cgroup session, referenced; else NULL.
 * @node:	the node under study, or NUMA_NO_NODE.
 * @elapsed_ns:	how long it ran, or has run until now.
 * @config:	the knobs it started with.
 * @status:	the sampler's status, as it was then or at the end.
 * @stats:	the results, referenced (the live ones while it runs: take
 *		their lock to read them); NULL before the first session.
 *
 * Made by embm_session_view() (or by the core for the summary at the end)
 * and freed by embm_view_free(); nothing in it needs the session's lock.
 */
struct embm_view {
	unsigned long gen;
	enum embm_state state;
	const char *ended_by;
	struct pid *target;
	pid_t target_nr;
	struct cgroup_subsys_state *cgroup;
	int node;
	u64 elapsed_ns;
	struct embm_config config;
	struct embm_sampler_status status;
	struct embm_stats *stats;
};

int embm_session_may_read(unsigned long *gen);
struct embm_view *embm_session_view(unsigned long gen);

void embm_view_free(struct embm_view *v);

const char *embm_state_name(enum embm_state state);
/*
 * Room for a line of the per-node table: 14 numbers of up to 20 digits
 * and up to EMBM_MAX_WINDOWS window names.
 */
#define EMBM_REPORT_LINE	400

unsigned int embm_report_fields(const struct embm_view *v);
u64 embm_report_share_basis(const struct embm_view *v);
void embm_report_nodes_header(struct seq_buf *sb, unsigned int fields);
void embm_report_node(struct seq_buf *sb, const struct embm_view *v, int nid, u64 basis);
void embm_report_period(struct seq_buf *sb, const struct embm_sampler_status *ss);
u64 embm_report_lost_weight(const struct embm_sampler_status *ss);
void embm_report_summary(const struct embm_view *v);

#endif /* __MM_EMBM_H */
