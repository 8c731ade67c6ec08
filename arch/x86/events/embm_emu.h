/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm_emu: what the two halves of the driver of the emulated PMU share,
 * the device (embm_emu_dev.c) and the PMU (embm_emu.c), and what the embm
 * source "emu" (embm_emu_source.c) needs of them
 */
#ifndef _ARCH_X86_EVENTS_EMBM_EMU_H
#define _ARCH_X86_EVENTS_EMBM_EMU_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <uapi/linux/embm_emu.h>

/* perf_event_attr.config of an embm_emu event: its sysfs format */
#define EMBM_EMU_CFG_LOAD	BIT_ULL(0)	/* "load": counts loads */
#define EMBM_EMU_CFG_STORE	BIT_ULL(1)	/* "store": counts stores */
#define EMBM_EMU_CFG_RAND	BIT_ULL(2)	/* "rand": randomised intervals */
#define EMBM_EMU_CFG_MASK	(EMBM_EMU_CFG_LOAD | EMBM_EMU_CFG_STORE | EMBM_EMU_CFG_RAND)

int embm_emu_pmu_type(void);
u32 embm_emu_features(void);

#define EMBM_EMU_IDLE_MS	1000	/* sampling off this long after the last event */
#define EMBM_EMU_MAX_CXL	16	/* CXL windows told apart */

struct pci_dev;

/**
 * struct embm_emu_layout - the plugin's layout, checked once at probe
 * @size:	  bytes of the shared memory (at most BAR 2's length)
 * @nr_cpus:	  vCPUs; CPUs from this on have no slots
 * @ring_records: records in a ring, a power of two
 * @max_pages:	  room in the watched page list
 * @features:	  EMBM_EMU_FEAT_*
 * @cpu_off:	  offset of the struct embm_emu_cpu array
 * @ring_off:	  offset of the rings
 * @oracle_off:	  offset of the struct embm_emu_oracle array
 * @space_off:	  offset of the struct embm_emu_space array
 * @page_off:	  offset of the watched page list
 * @page_count_off: offset of the watched pages' counts
 */
struct embm_emu_layout {
	u64 size;
	u32 nr_cpus;
	u32 ring_records;
	u32 max_pages;
	u32 features;
	u64 cpu_off;
	u64 ring_off;
	u64 oracle_off;
	u64 space_off;
	u64 page_off;
	u64 page_count_off;
};

/* What the drains of a CPU did, for the device's sysfs files. */
struct embm_emu_stats {
	u64 samples;	/* records that became samples */
	u64 lost;	/* records the plugin dropped, or skipped by a resync */
	u64 bad;	/* records that failed a check */
	u64 stale;	/* records of an event stopped or gone */
	u64 resyncs;	/* rings found more than full */
};

/**
 * struct embm_emu_topo - what the guest tells the plugin of its memory
 * @range:	the physical ranges of System RAM online, by node and kind
 * @nr_ranges:	entries of @range
 * @cpu_node:	the node of each CPU the layout has
 * @cxl:	CXL fixed memory windows, [start, end)
 * @nr_cxl:	entries of @cxl
 * @merged:	ranges that had to be merged across a gap (more than
 *		EMBM_EMU_MAX_RANGES pieces)
 */
struct embm_emu_topo {
	struct embm_emu_range range[EMBM_EMU_MAX_RANGES];
	u32 nr_ranges;
	u32 cpu_node[EMBM_EMU_MAX_CPUS];
	struct {
		u64 start;
		u64 end;
	} cxl[EMBM_EMU_MAX_CXL];
	u32 nr_cxl;
	u32 merged;
};

/**
 * struct embm_emu - the device
 * @pdev:	the ivshmem-plain device
 * @base:	BAR 2, mapped write-combining (see embm_emu_map())
 * @hdr:	the header, at @base
 * @layout:	the plugin's layout as checked at probe
 * @pmu:	the embm_emu PMU
 * @mem_nb:	memory hotplug notifier: republish the ranges
 * @hp_state:	the dynamic CPU hotplug state of the numbering check
 * @probing:	the CPU hotplug callback runs for probe: a CPU that fails
 *		the check fails the probe
 * @usable:	CPUs whose numbering was checked: events run only there
 * @bells:	scratch for the numbering check (CPU hotplug callbacks, one
 *		at a time)
 * @publish_lock: serialises the driver's changes of the header's guest
 *		fields and the waits for the plugin; protects @want, @topo
 * @want:	EMBM_EMU_MODE_* the driver needs (SAMPLE while events exist),
 *		published as drv_want
 * @topo:	the last topology published
 * @users:	events that exist (created, not yet destroyed)
 * @idle_work:	turns sampling off a while after the last event went
 */
struct embm_emu {
	struct pci_dev *pdev;
	void *base;
	struct embm_emu_header *hdr;
	struct embm_emu_layout layout;
	struct pmu pmu;
	struct notifier_block mem_nb;
	int hp_state;
	bool probing;
	cpumask_t usable;
	u64 bells[EMBM_EMU_MAX_CPUS];
	struct mutex publish_lock;	/* the header's guest fields, @want, @topo */
	u32 want;
	struct embm_emu_topo topo;
	atomic_t users;
	struct delayed_work idle_work;
};

/* The device, once probed; NULL otherwise (embm_emu_dev.c). */
extern struct embm_emu *embm_emu_dev;

/* The device side, embm_emu_dev.c */
int embm_emu_get(struct embm_emu *emu);

/* The PMU side, embm_emu.c */
void embm_emu_init_pcpu(struct embm_emu *emu);
void embm_emu_release_pcpus(void);
int embm_emu_pmu_register(struct embm_emu *emu);
void embm_emu_pmu_unregister(struct embm_emu *emu);
u64 embm_emu_stat(size_t off);

#endif /* _ARCH_X86_EVENTS_EMBM_EMU_H */
