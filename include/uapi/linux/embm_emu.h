/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * embm_emu: the shared memory of an emulated precise-sampling PMU
 *
 * A TCG plugin of QEMU (embm's scripts/embm.d/plugin/) sees every guest load and store
 * with its guest physical address.  It shares a memory file with the guest,
 * which sees it as BAR 2 of an ivshmem-plain PCI device (1af4:1110); the
 * guest's embm_emu perf PMU (arch/x86/events/embm_emu.c) drives it.  This
 * header is the layout of that memory, for both sides, as virtio's headers
 * are for a device's two sides.
 *
 * All fields are little-endian; offsets are from the start of the BAR.
 *
 * Who writes what:
 *  - the plugin writes the header's "plugin" fields at start (magic last),
 *    each vCPU's ring and its slots' counts, and the oracle's counts;
 *  - the guest writes the header's "guest" fields, each CPU's slot
 *    controls, its ring's tail, and the watched page list.
 * Each side takes everything the other writes as untrusted: indexes,
 * counts and offsets are checked before use.
 *
 * Two writers share the guest's header fields: the kernel's embm_emu
 * driver and a user-space tool that maps the BAR (embm-oracle, as root).
 * Each field but one has a single writer: @drv_want is the driver's,
 * @want the tool's (the plugin instruments for the two ORed); the ranges
 * and cpu_node are the driver's while it is bound, else the tool's; the
 * watched pages are the tool's.  The one field both write is @gen, and
 * both bump it only with an atomic read-modify-write (LOCK XADD or
 * CMPXCHG: atomic under TCG, whose vCPUs share the host's memory), never
 * with a plain load and store, so that neither loses the other's bump.
 *
 * The doorbell: every CPUID instruction the guest executes.  The plugin
 * instruments CPUID (and nothing else while no slot is on and no oracle
 * counts), and on each one bumps the vCPU's embm_emu_cpu.bell, records the
 * address space in bell_as, and, when embm_emu_header.gen differs from
 * gen_seen, reads gen, then takes the guest's header fields as they are
 * then (want, drv_want, ranges, cpu_node, the watched pages): it
 * re-instruments QEMU's translated code for them while every vCPU is
 * stopped, then sets gen_seen to the gen it read.  A writer changes its
 * fields, bumps gen atomically to some G, executes CPUID and waits until
 * gen_seen is G or later (as a signed difference): a later G was read
 * after its fields were written, so they were taken too.
 *
 * Ring and slots of CPU n are written by vCPU n's thread and read by guest
 * CPU n only, which runs on that same thread: no barrier is needed between
 * them.  Anything else read across CPUs (the oracle) may be a little old.
 */
#ifndef _UAPI_LINUX_EMBM_EMU_H
#define _UAPI_LINUX_EMBM_EMU_H

#include <linux/types.h>

#define EMBM_EMU_MAGIC		0x31554d454d424d45ULL	/* "EMBMEMU1" */
#define EMBM_EMU_VERSION	1

#define EMBM_EMU_PCI_VENDOR	0x1af4	/* ivshmem-plain */
#define EMBM_EMU_PCI_DEVICE	0x1110
#define EMBM_EMU_BAR		2

#define EMBM_EMU_MAX_CPUS	64	/* vCPUs the layout has room for */
#define EMBM_EMU_MAX_RANGES	32	/* physical ranges the oracle counts */
#define EMBM_EMU_NO_RANGE	EMBM_EMU_MAX_RANGES	/* index: in no range */
#define EMBM_EMU_SLOTS		4	/* events a CPU runs at once */
#define EMBM_EMU_MAX_SPACES	64	/* address spaces the oracle tells apart */
#define EMBM_EMU_OTHER_SPACE	(EMBM_EMU_MAX_SPACES - 1) /* index: the rest */

/* embm_emu_header.want, .drv_want and .mode */
#define EMBM_EMU_MODE_SAMPLE	(1U << 0)	/* instrument for the slots */
#define EMBM_EMU_MODE_ORACLE	(1U << 1)	/* count every access exactly */

/* embm_emu_header.features: what the plugin does */
#define EMBM_EMU_FEAT_LATENCY	(1U << 0)	/* latency is modelled */
#define EMBM_EMU_FEAT_CACHE	(1U << 1)	/* a cache model says hits */
#define EMBM_EMU_FEAT_ORACLE	(1U << 2)	/* exact counts on request */
#define EMBM_EMU_FEAT_RANDOM	(1U << 3)	/* randomised periods */
#define EMBM_EMU_FEAT_CORRUPT	(1U << 4)	/* corrupts what it writes, for tests */
#define EMBM_EMU_FEAT_DRV_WANT	(1U << 5)	/* takes drv_want beside want */
#define EMBM_EMU_FEAT_CPL	(1U << 6)	/* user or kernel by CPL, not by the IP */

/* embm_emu_range.kind: what a range's memory is, as the guest sees it */
#define EMBM_EMU_KIND_DRAM	0	/* a node with CPUs */
#define EMBM_EMU_KIND_FAR	1	/* a node without CPUs, not CXL */
#define EMBM_EMU_KIND_CXL	2	/* in a CXL fixed memory window */

/* The tiers of the latency model and of embm_emu_record.src */
#define EMBM_EMU_SRC_L1		0	/* cache model: hit */
#define EMBM_EMU_SRC_L2		1
#define EMBM_EMU_SRC_L3		2
#define EMBM_EMU_SRC_LOCAL	3	/* DRAM of the accessing CPU's node */
#define EMBM_EMU_SRC_REMOTE	4	/* DRAM of another node with CPUs */
#define EMBM_EMU_SRC_FAR	5	/* a memory-only node, not CXL */
#define EMBM_EMU_SRC_CXL	6	/* CXL memory */
#define EMBM_EMU_SRC_OTHER	7	/* in no range (MMIO, unknown) */
#define EMBM_EMU_SRC_NR		8

/* embm_emu_header.error: why the plugin refused the guest's last change */
#define EMBM_EMU_ERR_NONE	0
#define EMBM_EMU_ERR_RANGES	1	/* nr_ranges too big, a range empty or overlapping */
#define EMBM_EMU_ERR_NODE	2	/* a cpu_node or range node out of bounds */
#define EMBM_EMU_ERR_PAGES	3	/* nr_pages too big or the list not sorted */
#define EMBM_EMU_ERR_WANT	4	/* unknown bits in want or drv_want */

/**
 * struct embm_emu_range - physical memory of one node, or part of it
 * @start: first byte
 * @end:   one past the last byte
 * @node:  the guest's NUMA node
 * @kind:  EMBM_EMU_KIND_*
 */
struct embm_emu_range {
	__u64 start;
	__u64 end;
	__u32 node;
	__u32 kind;
};

/**
 * struct embm_emu_lat - one tier's modelled latency, in core cycles
 * @mean: the mean
 * @sd:   the standard deviation (0: always the mean)
 */
struct embm_emu_lat {
	__u32 mean;
	__u32 sd;
};

/**
 * struct embm_emu_header - at offset 0
 * @magic:	EMBM_EMU_MAGIC, written last by the plugin when the rest is.
 * @version:	EMBM_EMU_VERSION.
 * @nr_cpus:	vCPUs QEMU runs (at most EMBM_EMU_MAX_CPUS).
 * @size:	bytes of the shared memory.
 * @ring_records: records in each vCPU's ring, a power of two.
 * @max_pages:	room in the watched page list.
 * @cpu_off:	offset of struct embm_emu_cpu[@nr_cpus].
 * @ring_off:	offset of the rings: @nr_cpus times @ring_records struct
 *		embm_emu_record, vCPU 0's first.
 * @oracle_off:	offset of struct embm_emu_oracle[@nr_cpus].
 * @space_off:	offset of struct embm_emu_space[@nr_cpus].
 * @page_off:	offset of the watched page list, __u64 page frame numbers
 *		[@max_pages], written by the guest.
 * @page_count_off: offset of the watched pages' counts: __u64
 *		[@nr_cpus][@max_pages][2], loads then stores.
 * @features:	EMBM_EMU_FEAT_*.
 * @mode:	EMBM_EMU_MODE_* the plugin instruments for now.
 * @gen_seen:	the last @gen the plugin took (or refused: see @error).
 * @error:	EMBM_EMU_ERR_* of the last @gen taken; its fields were
 *		not taken then.  With two writers it is of the fields as
 *		the plugin found them, whoever changed them last.
 * @bells:	doorbells seen, every vCPU.
 * @resets:	times the plugin re-instrumented the code.
 * @cpu_mhz:	the modelled clock, for cycles from nanoseconds.
 * @space_key:	the oracle's address spaces: the key of each (CR3 without
 *		the PCID and page table isolation bits, or an
 *		EMBM_EMU_TASK() where the guest tells tasks apart), 0 for a
 *		free one;
 *		the last, EMBM_EMU_OTHER_SPACE, counts all spaces past the
 *		others.
 * @lat:	the latency model, per EMBM_EMU_SRC_*.
 * @gen:	guest: bumped, atomically (see above), after a writer
 *		changes any field below.
 * @want:	guest, user space: EMBM_EMU_MODE_* a tool that maps the BAR
 *		needs (embm-oracle: ORACLE).
 * @nr_ranges:	guest: entries of @range.
 * @nr_pages:	guest, user space: entries of the watched page list,
 *		ascending.
 * @drv_want:	guest, the kernel's driver: EMBM_EMU_MODE_* it needs
 *		(SAMPLE while perf events exist).  The plugin instruments
 *		for @want | @drv_want.  Zero, and ignored, before plugins
 *		with EMBM_EMU_FEAT_DRV_WANT.
 * @range:	guest: the physical memory of each node.
 * @cpu_node:	guest: the NUMA node of each CPU.
 */
struct embm_emu_header {
	/* Written by the plugin */
	__u64 magic;
	__u32 version;
	__u32 nr_cpus;
	__u64 size;
	__u32 ring_records;
	__u32 max_pages;
	__u64 cpu_off;
	__u64 ring_off;
	__u64 oracle_off;
	__u64 space_off;
	__u64 page_off;
	__u64 page_count_off;
	__u32 features;
	__u32 mode;
	__u64 gen_seen;
	__u32 error;
	__u32 cpu_mhz;
	__u64 bells;
	__u64 resets;
	__u64 space_key[EMBM_EMU_MAX_SPACES];
	struct embm_emu_lat lat[EMBM_EMU_SRC_NR];

	/* Written by the guest */
	__u64 gen;
	__u32 want;
	__u32 nr_ranges;
	__u32 nr_pages;
	__u32 drv_want;
	struct embm_emu_range range[EMBM_EMU_MAX_RANGES];
	__u32 cpu_node[EMBM_EMU_MAX_CPUS];
};

/* embm_emu_slot.ctl */
#define EMBM_EMU_SLOT_ON	(1U << 0)	/* counts and samples */
#define EMBM_EMU_SLOT_LOAD	(1U << 1)	/* counts loads */
#define EMBM_EMU_SLOT_STORE	(1U << 2)	/* counts stores */
#define EMBM_EMU_SLOT_USER	(1U << 3)	/* counts user mode (EMBM_EMU_REC_USER) */
#define EMBM_EMU_SLOT_KERNEL	(1U << 4)	/* counts the rest */
/* Each interval is drawn from [period/2, 3*period/2). */
#define EMBM_EMU_SLOT_RANDOM	(1U << 5)

/**
 * struct embm_emu_slot - one event a CPU runs
 * @ctl:    guest: EMBM_EMU_SLOT_*.
 * @pad:    zero.
 * @period: guest: accesses a sample stands for, at least 1.
 * @left:   accesses until the next sample: the guest sets it before it
 *	    turns the slot on, the plugin counts it down and reloads it.
 * @count:  plugin: accesses counted while on (never reset).
 */
struct embm_emu_slot {
	__u32 ctl;
	__u32 pad;
	__u64 period;
	__s64 left;
	__u64 count;
};

/**
 * struct embm_emu_cpu - one vCPU: its doorbell, ring and slots
 * @bell:	plugin: doorbells on this vCPU.
 * @bell_as:	plugin: the address-space key at the last doorbell.
 * @head:	plugin: records written to the ring (never reset).
 * @tail:	guest: records taken from it.
 * @lost:	plugin: records dropped because the ring was full.
 * @active:	guest: the mask of slots that are on (a fast check).
 * @pad:	zero.
 * @slot:	the slots.
 * @task:	guest: the task running on this CPU, EMBM_EMU_TASK(tgid),
 *		written at every context switch by a guest that tells tasks
 *		apart (idle: EMBM_EMU_TASK(0)), else 0.  While it is not 0
 *		the oracle's spaces of this vCPU are keyed by it instead of
 *		by the address space: a kernel thread or the idle task that
 *		borrows the last process's page tables is not counted as
 *		that process.
 * @reserved:	zero; the struct is 256 bytes.
 */
struct embm_emu_cpu {
	__u64 bell;
	__u64 bell_as;
	__u64 head;
	__u64 tail;
	__u64 lost;
	__u32 active;
	__u32 pad;
	struct embm_emu_slot slot[EMBM_EMU_SLOTS];
	__u64 task;
	__u64 reserved[9];
};

/* embm_emu_cpu.task: an oracle key of a task group, never an address space's */
#define EMBM_EMU_TASK_BIT	(1ULL << 63)
#define EMBM_EMU_TASK(tgid)	(EMBM_EMU_TASK_BIT | (__u64)(tgid))

/* embm_emu_record.info */
#define EMBM_EMU_REC_SLOT_MASK	0x0003	/* the slot that sampled */
#define EMBM_EMU_REC_STORE	0x0004	/* a store; else a load */
/*
 * User mode: CPL 3 (the low bits of CS) where the plugin says
 * EMBM_EMU_FEAT_CPL, else an instruction pointer in the lower half
 * (below 2^47).  A reader checks @ip against it (and @vaddr too for user
 * mode): a record whose addresses contradict its mode is corrupted.
 */
#define EMBM_EMU_REC_USER	0x0008
#define EMBM_EMU_REC_IO		0x0010	/* QEMU did it as an I/O access */

/**
 * struct embm_emu_record - one sample
 * @phys:    guest physical address.
 * @vaddr:   virtual address.
 * @ip:      virtual address of the instruction, as QEMU translated it.
 * @as:      address-space key (CR3 without the PCID and PTI bits).
 * @count:   the slot's @count at this access.
 * @latency: modelled, in core cycles.
 * @info:    EMBM_EMU_REC_*.
 * @size_shift: log2 of the access's size in bytes.
 * @src:     EMBM_EMU_SRC_*: the modelled data source.
 * @node:    the node of the range @phys is in, or -1.
 * @pad:     zero.
 * @reserved: zero; the struct is 64 bytes.
 */
struct embm_emu_record {
	__u64 phys;
	__u64 vaddr;
	__u64 ip;
	__u64 as;
	__u64 count;
	__u32 latency;
	__u16 info;
	__u8 size_shift;
	__u8 src;
	__s32 node;
	__u32 pad;
	__u64 reserved;
};

/**
 * struct embm_emu_oracle - exact counts of one vCPU, while the oracle counts
 * @acc: accesses per range (EMBM_EMU_NO_RANGE: in none), [0] user and [1]
 *	 kernel mode (as EMBM_EMU_REC_USER tells them), [0] loads and [1]
 *	 stores.
 */
struct embm_emu_oracle {
	__u64 acc[EMBM_EMU_MAX_RANGES + 1][2][2];
};

/**
 * struct embm_emu_space - exact counts of one vCPU per address space
 * @acc: as embm_emu_oracle.acc, for each space of embm_emu_header.space_key.
 */
struct embm_emu_space {
	__u64 acc[EMBM_EMU_MAX_SPACES][EMBM_EMU_MAX_RANGES + 1][2][2];
};

#endif /* _UAPI_LINUX_EMBM_EMU_H */
