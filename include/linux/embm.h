/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm: the interface between embm (mm/embm/) and its sources of
 * memory-access samples.  A source says which perf events to open on each
 * CPU for this machine (struct embm_source) and registers itself at boot
 * (embm_register_source()), as DAMON's operations sets do; the
 * architecture's sources and their per-model tables live under arch/
 * (Intel PEBS in arch/x86/events/intel/embm_pebs.c, AMD IBS in
 * arch/x86/events/amd/embm_ibs.c), the page-fault source in mm/embm/.
 * The sampler calls a source's setup() at session start and its op_of()
 * on samples; nothing else of embm is visible to a source.
 *
 * See Documentation/mm/embm.rst.
 */
#ifndef _LINUX_EMBM_H
#define _LINUX_EMBM_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <uapi/linux/embm.h>

/* What a sample says the access was: bits, as an op may load and store. */
enum embm_op {
	EMBM_OP_ANY		= 0,	/* unknown: a page fault, no data source */
	EMBM_OP_LOAD		= BIT(0),
	EMBM_OP_STORE		= BIT(1),
	EMBM_OP_LOAD_STORE	= EMBM_OP_LOAD | EMBM_OP_STORE,
};

/**
 * struct embm_sample - what embm keeps of a PERF_RECORD_SAMPLE
 * @id:		PERF_SAMPLE_IDENTIFIER: which event wrote it.
 * @pid:	process id, as perf writes it: in the pid namespace of the
 *		task that created the sample's event (of its parent, for an
 *		inherited event), that is of the embm_start() caller for the
 *		events opened before the session runs, the initial one for
 *		those ksamplingd opens once it runs (a CPU that came online,
 *		threads a rescan found); 0 for a task not visible there,
 *		(u32)-1 for one whose pid is gone.
 * @tid:	thread id, in the same pid namespace.
 * @time:	perf clock.
 * @addr:	virtual data address, 0 if none.
 * @cpu:	CPU that took the sample.
 * @period:	accesses the sample stands for.
 * @weight:	latency in core cycles, 0 if the source gives none.
 * @data_src:	perf_mem_data_src bits, 0 if none.
 * @phys:	physical data address, 0 if none.
 * @pages:	base pages the sample stands for at its address: 1 for an
 *		access; for a page fault, those of the page table leaf that
 *		maps the address once the fault is done (512 for a 2 MiB PMD
 *		on x86; 1 for a PTE, even of a multi-size THP folio mapped
 *		whole); 0 is taken as 1.
 * @raw:	PERF_SAMPLE_RAW's data, inside the record (valid while the
 *		record is); NULL if none.
 * @raw_size:	its size in bytes, the padding perf adds included.
 * @user:	taken in user mode (the record's cpumode, or the regs of a
 *		direct sample); else in the kernel, or not known.
 */
struct embm_sample {
	u64 id;
	u32 pid, tid;
	u64 time;
	u64 addr;
	u32 cpu;
	u64 period;
	u64 weight;
	u64 data_src;
	u64 phys;
	u32 pages;
	const void *raw;
	u32 raw_size;
	bool user;
};

/*
 * The sample_type every embm event uses; sources may add WEIGHT_STRUCT,
 * DATA_SRC and RAW (all within large PEBS's flags but RAW, which only IBS
 * asks for).
 */
#define EMBM_SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | \
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
				 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | \
				 PERF_SAMPLE_PHYS_ADDR)
#define EMBM_SAMPLE_TYPE_MAX	(EMBM_SAMPLE_TYPE | PERF_SAMPLE_WEIGHT_STRUCT | \
				 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_RAW)

#define EMBM_MAX_EVENTS	8	/* event kinds a source opens on each CPU */

/**
 * struct embm_event_desc - one kind of event a source opens on every CPU
 * @name:	for reports, e.g. "loads-local-dram".
 * @attr:	the attributes; embm fills in size, disabled, inherit and
 *		the period.
 * @op:		what its samples are, when the event itself says so.
 * @store:	takes the store period rather than the load period.
 * @latency_only: its samples add to latency, not to access counts (they
 *		are also counted by another event).
 * @lead:	counts without sampling and leads, on each CPU and thread,
 *		the group of the next descriptor's event (perf mem's
 *		mem-loads-aux in front of the load-latency event).
 * @direct:	embm's overflow handler takes its samples, their page and
 *		kind only (with their data source and weight, for a source
 *		that says &embm_source.direct_irq), instead of perf writing
 *		records: for software events, whose samples need nothing
 *		else, and for the events of a source that says direct_irq.
 *		Never for large PEBS, which does not call the handler.
 *		@attr.sample_type still says what the samples disclose, for
 *		the permission checks.
 * @maps_pages:	a sample is a mapping made (a page fault): it stands for
 *		every base page of that mapping (struct embm_sample.pages),
 *		not for one access.
 */
struct embm_event_desc {
	const char *name;
	struct perf_event_attr attr;
	enum embm_op op;
	bool store;
	bool latency_only;
	bool lead;
	bool direct;
	bool maps_pages;
};

/*
 * What a source's samples say, beyond their address (struct
 * embm_source.fields): the report leaves out the columns of the others.
 */
#define EMBM_FIELD_OP		BIT(0)	/* load or store: loads, stores */
#define EMBM_FIELD_LATENCY	BIT(1)	/* a latency: lat_samples, lat_mean */
#define EMBM_FIELD_DATA_SRC	BIT(2)	/* what served it: cache, memory */

/**
 * struct embm_source_args - what a session asks of a source
 * @period:	  sample period of loads (or of all samples); 0: the
 *		  source's default.
 * @store_period: sample period of stores; 0: the source's default.
 * @ldlat:	  load-latency threshold in cycles; 0: no load-latency event.
 */
struct embm_source_args {
	u64 period;
	u64 store_period;
	u64 ldlat;
};

/**
 * struct embm_source - a source of memory-access samples
 * @name:	  "pebs", "ibs", "swfault": what the source knob shows and
 *		  takes.
 * @rank:	  where the automatic choice tries it: from the lowest rank
 *		  up, each rank held by one source.  The precise PMU sources
 *		  rank below 100 (pebs 10, ibs 20); the page-fault source,
 *		  which works everywhere but sees only first touches, is 100.
 * @period:	  default load (or all-sample) period.
 * @store_period: default store period.
 * @period_align: periods are rounded up to a multiple of this (0, 1: any).
 * @min_period:	  the least load (or all-sample) period its events take;
 *		  0: any.  @setup refuses a smaller one at session start;
 *		  the sampler refuses a smaller one set during a session.
 * @min_store_period: the same for the store period, where the source has
 *		  store events of its own; 0: any.
 * @setup:	  fill @descs for this machine and @args; return how many or
 *		  a negative errno and set *@why to a reason that fits in a
 *		  line.  Called at session start, process context.
 * @op_of:	  classify a sample as load, store or both when the event
 *		  does not say (from its data_src or raw data); may be NULL.
 * @semantics:	  what a sample, "loads", "stores", "accesses" and the
 *		  latency mean for this source, in a line: for the reports.
 * @share_mem:	  every sample has a data source: node shares are of the
 *		  samples served by memory (else of those not served by a
 *		  cache).
 * @fields:	  EMBM_FIELD_* of what its samples say.
 * @unit:	  what its estimate per node counts, for the reports:
 *		  "accesses" (loads and stores) or "pages" (base pages
 *		  mapped by faults).
 * @blind:	  what it cannot see, in a line: for the reports.
 * @pmu_ok:	  may its events be of this dynamic PMU type (one above
 *		  PERF_TYPE_MAX)?  Only for a PMU whose event_init() checks
 *		  no credentials of its own (see embm_source_pmu_ok());
 *		  NULL: the generic types only.  Any context.
 * @direct_irq:	  its PMU's driver calls the overflow handler of every
 *		  sample, with IRQs off, on the event's CPU and never in NMI
 *		  (from a drain, as the emulated PMU's): its @direct events
 *		  may be of its PMU, and their queues keep each sample's
 *		  data source and weight too.
 * @forced_only:  the automatic choice skips it: it is taken only when the
 *		  source knob names it (another way to the samples of a
 *		  source that ranks before it).
 *
 * A source that cannot work here fails @setup, or its events fail to be
 * created; the automatic choice then moves to the next source.  Sources
 * are static tables, registered at boot (embm_register_source()) and
 * never unregistered.
 */
struct embm_source {
	const char *name;
	unsigned int rank;
	u64 period;
	u64 store_period;
	u32 period_align;
	u64 min_period;
	u64 min_store_period;
	int (*setup)(const struct embm_source_args *args,
		     struct embm_event_desc *descs, const char **why);
	enum embm_op (*op_of)(const struct embm_sample *s);
	const char *semantics;
	bool share_mem;
	unsigned int fields;
	const char *unit;
	const char *blind;
	bool (*pmu_ok)(u32 type);
	bool direct_irq;
	bool forced_only;
};

int __init embm_register_source(const struct embm_source *src);

/**
 * embm_source_pmu_ok() - may a source's event be of this type?
 * @src:  the source
 * @type: perf_event_attr.type of one of its events
 *
 * embm creates its events from the syscall's caller or from ksamplingd,
 * whose credentials are the kernel's, and checks the caller's permissions
 * itself.  A PMU whose event_init() checks credentials of its own (kprobe,
 * uprobe, and others of the dynamic types) would see ksamplingd's there:
 * only types known to check none are taken.  These are the generic
 * hardware, raw and software types, and the dynamic types a source vouches
 * for with its @pmu_ok hook.
 *
 * Context: any.
 * Return: true if embm's permission checks are perf's for @type.
 */
static inline bool embm_source_pmu_ok(const struct embm_source *src, u32 type)
{
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_RAW ||
	    type == PERF_TYPE_SOFTWARE)
		return true;
	return type >= PERF_TYPE_MAX && src->pmu_ok && src->pmu_ok(type);
}

/**
 * embm_source_attr_ok() - may a source's event have these attributes?
 * @src:  the source
 * @attr: attributes it asks for
 *
 * embm checks a session's permissions as perf_event_open() would for an
 * event that samples physical addresses and may sample the kernel
 * (mm/embm/perm.c).  perf checks more for namespaces, text_poke, sigtrap
 * and PERF_SAMPLE_REGS_INTR, and for tracepoint raw data, which embm never
 * needs; embm parses no sample type beyond EMBM_SAMPLE_TYPE_MAX.  A source
 * asks for events of the types embm_source_pmu_ok() takes within these
 * bounds only; the sampler refuses others (with a warning: a source's bug).
 *
 * Context: any.
 * Return: true if embm's checks are perf's for @attr.
 */
static inline bool embm_source_attr_ok(const struct embm_source *src,
				       const struct perf_event_attr *attr)
{
	return embm_source_pmu_ok(src, attr->type) &&
	       !(attr->sample_type & ~EMBM_SAMPLE_TYPE_MAX) &&
	       !attr->namespaces && !attr->text_poke && !attr->sigtrap;
}

#endif /* _LINUX_EMBM_H */
