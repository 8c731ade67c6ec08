// SPDX-License-Identifier: GPL-2.0
/*
 * embm_emu: a precise memory-access sampling PMU that QEMU's TCG plugin
 * emulates
 *
 * A guest that QEMU runs under TCG has no PMU.  embm's TCG plugin
 * (scripts/embm.d/plugin/) sees every load and store the guest executes,
 * with its physical address, and shares a memory file with the guest: BAR 2
 * of an ivshmem-plain PCI device, laid out as include/uapi/linux/embm_emu.h
 * says.  embm_emu_dev.c takes that device, checks its layout and tells the
 * plugin the guest's memory; this file is the perf PMU, "embm_emu", that
 * its probe registers on it (embm_emu_pmu_register()):
 *
 *  - each event takes one of EMBM_EMU_SLOTS slots of its CPU's struct
 *    embm_emu_cpu while it runs (pmu->add; none free: -EAGAIN, and perf
 *    multiplexes).  The slot says what to count (loads, stores, user and
 *    kernel mode) and the period; the plugin counts the slot down on the
 *    vCPU that is this CPU, and writes a record to the CPU's ring when it
 *    reaches 0.  The slot's count gives the event's count (pmu->read).
 *  - the records are read on their own CPU, which runs on the vCPU thread
 *    that wrote them: from a per-CPU hrtimer every EMBM_EMU_DRAIN_NS while
 *    a sampling slot is on, from pmu->stop (and so pmu->del) and from
 *    pmu->sched_task when a task is switched out, so that a record goes to
 *    the task that ran when the access happened.  Each becomes a sample of
 *    its slot's event (perf_event_overflow()) with the virtual and
 *    physical address, the modelled data source and latency, and the
 *    instruction pointer and privilege level of the access.  Because
 *    samples reach perf in batches, frequency mode is refused (as by
 *    ARM's SPE): perf would time the batch, not the accesses.
 *  - sampling is on in the plugin while events exist: event_init takes
 *    the device (embm_emu_get(): the first event turns it on), an
 *    event's destroy lets the device's idle work turn it off
 *    EMBM_EMU_IDLE_MS after the last.
 *  - it tags each CPU with the task group that runs (embm_emu_cpu.task),
 *    so that the plugin's exact counts, when a tool turns them on, are
 *    per process as a perf event's are: at every context switch where
 *    the kernel has tracepoints (sched_switch), else at the switches of
 *    the tasks that have embm_emu events and on the CPUs that have
 *    per-CPU ones (pmu->sched_task), the others untagged (0).
 *
 * Everything in the shared memory is taken as untrusted device memory:
 * every field is read once (READ_ONCE()) before it is checked, a ring
 * whose head is more than a ring ahead of its tail is resynchronised and
 * counted as lost, and a record is used only if its slot holds a running
 * event of this CPU, its data source and node are in bounds, its
 * instruction and data addresses are canonical and in the half its mode
 * says, and it matches what the slot counts.  A corrupted ring costs
 * samples, never more.
 *
 * Contexts: pmu->add, del, start, stop, read and sched_task run with
 * interrupts off on the event's CPU; the drain timer runs in hardirq
 * context on its CPU; only pmu->read may run in NMI context (a BPF
 * program's perf_event_read_local()), and it folds the count with a
 * compare and exchange as x86's own PMU does.  A CPU's
 * struct embm_emu_pcpu is touched only there, so it needs no lock.  The
 * creation of the first event (which turns sampling on in the plugin)
 * runs in process context and may sleep.
 */

#define pr_fmt(fmt) "embm_emu: " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/pci.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>
#include <uapi/linux/embm_emu.h>
#include <asm/page.h>
#include <asm/perf_event.h>
#include <asm/segment.h>

#include "embm_emu.h"

/* A counting event's period: the plugin never reaches it. */
#define EMBM_EMU_COUNT_PERIOD	BIT_ULL(62)

/*
 * The drain timer's interval while a sampling slot is on.  A record
 * reaches perf at most this late (its time is the drain's); the ring
 * must hold what a CPU samples meanwhile, else the plugin counts the rest
 * as lost.
 */
#define EMBM_EMU_DRAIN_NS	(1 * NSEC_PER_MSEC)

/*
 * Records one drain takes at most, whatever calls it: a sample costs a few
 * microseconds under TCG, so a drain is bounded to about a millisecond and
 * a guest sampling at period 1 stays responsive (perf throttles each event
 * past perf_event_max_sample_rate too).  What a drain leaves is the next
 * one's; what a full ring cannot take the plugin counts as lost.
 */
#define EMBM_EMU_DRAIN_MAX	256

/* Bounds the driver puts on what the plugin writes to a ring and a slot. */
#define EMBM_EMU_MAX_LOST	BIT_ULL(32)	/* a larger jump of lost is corruption */
#define EMBM_EMU_MAX_DELTA	BIT_ULL(48)	/* so is one of a slot's count */

/* Sample types a record cannot fill. */
#define EMBM_EMU_SAMPLE_UNSUPPORTED	(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
					 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | \
					 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | \
					 PERF_SAMPLE_AUX)

/*
 * A record as read from a ring, each field once, before it is checked.
 * The guest never reads the shared record again.
 */
struct embm_emu_rec {
	u64 phys;
	u64 vaddr;
	u64 ip;
	u64 count;
	u32 latency;
	u16 info;
	u8 src;
	s32 node;
};

/**
 * struct embm_emu_pcpu - one CPU's slots, ring and drain
 * @shm:	its struct embm_emu_cpu in the shared memory; NULL if the
 *		layout has none for it
 * @ring:	its ring
 * @ring_mask:	records in the ring, minus 1
 * @cpu:	the CPU
 * @event:	the event in each slot, NULL if free
 * @base:	each slot's count when its event last started: a record of
 *		the slot with a count not above it is of an earlier event
 * @period:	each slot's period as last written
 * @active:	slots on (mirrored in @shm->active)
 * @sampling:	slots whose event samples (not only counts)
 * @task:	the task tag (EMBM_EMU_TASK()) of the task that runs, 0 if
 *		none (mirrored in @shm->task but while draining)
 * @tail:	records taken from the ring (mirrored in @shm->tail)
 * @lost:	@shm->lost when last read
 * @draining:	a drain runs: pmu->stop called from within
 *		perf_event_overflow() (throttling) must not drain
 * @timer:	the drain timer, pinned to @cpu
 * @stats:	what the drains did
 *
 * Only @cpu touches it once the PMU is registered, always with interrupts
 * off (the PMU's callbacks) or in hardirq context (@timer): it needs no
 * lock.  @stats is read from any CPU, for sysfs, without one.  Probe
 * sets it up, and removal tears it down (embm_emu_release_pcpu()), when
 * no PMU callback, timer or probe can run on it.
 */
struct embm_emu_pcpu {
	struct embm_emu_cpu *shm;
	struct embm_emu_record *ring;
	u64 ring_mask;
	int cpu;
	struct perf_event *event[EMBM_EMU_SLOTS];
	u64 base[EMBM_EMU_SLOTS];
	u64 period[EMBM_EMU_SLOTS];
	u32 active;
	u32 sampling;
	u64 task;
	u64 tail;
	u64 lost;
	bool draining;
	struct hrtimer timer;
	struct embm_emu_stats stats;
};

static DEFINE_PER_CPU(struct embm_emu_pcpu, embm_emu_pcpu);
/* The PMU's type once registered: embm_emu_pmu_register() and _unregister(). */
static int embm_emu_type = -ENODEV;

/**
 * embm_emu_pmu_type() - the perf type of the embm_emu PMU
 *
 * The PMU is registered with a dynamic type, which user space reads from
 * /sys/bus/event_source/devices/embm_emu/type; embm's "emu" source opens
 * its events with this.
 *
 * Context: any.
 * Return: the type for perf_event_attr.type, or -ENODEV if there is no
 * embm_emu device (no QEMU plugin, or its probe failed).
 */
int embm_emu_pmu_type(void)
{
	return READ_ONCE(embm_emu_type);
}

/**
 * embm_emu_features() - what the plugin does
 *
 * Context: any.
 * Return: EMBM_EMU_FEAT_* of the device's plugin, 0 without a device.
 */
u32 embm_emu_features(void)
{
	struct embm_emu *emu = READ_ONCE(embm_emu_dev);

	return emu && embm_emu_pmu_type() >= 0 ? emu->layout.features : 0;
}

/**
 * embm_emu_data_src() - the perf_mem_data_src of a record
 * @src:   EMBM_EMU_SRC_*, below EMBM_EMU_SRC_NR
 * @store: a store; else a load
 * @io:	   QEMU did the access as I/O (EMBM_EMU_REC_IO)
 *
 * As AMD IBS says them (arch/x86/events/amd/ibs.c): a cache level hit,
 * local DRAM, remote DRAM (REMOTE, one hop) for another node with CPUs and
 * for a node without any, CXL by its level number; I/O, or not available,
 * for an access in no range.  embm's embm_served_by() takes the first
 * three as cache, RAM and CXL as memory, the rest as unknown.
 *
 * Context: any.
 * Return: the data source bits.
 */
static u64 embm_emu_data_src(unsigned int src, bool store, bool io)
{
#define EMBM_EMU_L(x)	(PERF_MEM_S(LVL, x) | PERF_MEM_S(LVL, HIT))
#define EMBM_EMU_LN(x)	PERF_MEM_S(LVLNUM, x)
#define EMBM_EMU_REM	(PERF_MEM_S(REMOTE, REMOTE) | PERF_MEM_S(HOPS, 1))
	static const u64 lvl[EMBM_EMU_SRC_NR] = {
		[EMBM_EMU_SRC_L1]	= EMBM_EMU_L(L1) | EMBM_EMU_LN(L1),
		[EMBM_EMU_SRC_L2]	= EMBM_EMU_L(L2) | EMBM_EMU_LN(L2),
		[EMBM_EMU_SRC_L3]	= EMBM_EMU_L(L3) | EMBM_EMU_LN(L3),
		[EMBM_EMU_SRC_LOCAL]	= EMBM_EMU_L(LOC_RAM) | EMBM_EMU_LN(RAM),
		[EMBM_EMU_SRC_REMOTE]	= EMBM_EMU_L(REM_RAM1) | EMBM_EMU_LN(RAM) | EMBM_EMU_REM,
		[EMBM_EMU_SRC_FAR]	= EMBM_EMU_L(REM_RAM1) | EMBM_EMU_LN(RAM) | EMBM_EMU_REM,
		[EMBM_EMU_SRC_CXL]	= EMBM_EMU_LN(CXL),
		[EMBM_EMU_SRC_OTHER]	= PERF_MEM_S(LVL, NA) | EMBM_EMU_LN(NA),
	};
	u64 val;

	if (src >= EMBM_EMU_SRC_NR)
		return PERF_MEM_NA;
	val = lvl[src];
	if (src == EMBM_EMU_SRC_OTHER && io)
		val = EMBM_EMU_L(IO) | EMBM_EMU_LN(IO);
	return val | (store ? PERF_MEM_S(OP, STORE) : PERF_MEM_S(OP, LOAD)) |
	       PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
#undef EMBM_EMU_L
#undef EMBM_EMU_LN
#undef EMBM_EMU_REM
}

/*
 * Read record @r of a ring, each field once: the plugin may be writing it
 * again if it is corrupted.  Any context.
 */
static void embm_emu_read_record(const struct embm_emu_record *r, struct embm_emu_rec *rec)
{
	rec->phys = READ_ONCE(r->phys);
	rec->vaddr = READ_ONCE(r->vaddr);
	rec->ip = READ_ONCE(r->ip);
	rec->count = READ_ONCE(r->count);
	rec->latency = READ_ONCE(r->latency);
	rec->info = READ_ONCE(r->info);
	rec->src = READ_ONCE(r->src);
	rec->node = READ_ONCE(r->node);
}

/**
 * embm_emu_ring_avail() - how many records to take from a ring
 * @head:	  the plugin's head, read once
 * @tail:	  the records taken so far (the guest's own count)
 * @ring_records: the ring's size
 * @skipped:	  set to the records a resync drops, 0 if none
 *
 * A head more than a ring ahead of the tail (or behind it) cannot be: the
 * plugin drops records when the ring is full.  The ring is then taken as
 * corrupted and the tail jumps to the head: what the ring held, at most
 * @ring_records, is lost; the rest of a jump ahead was never written
 * (none is counted for a jump of EMBM_EMU_MAX_LOST or more, or back).
 *
 * Context: any.
 * Return: the records between @tail and @head, or 0 after a resync
 * (@head is not @tail then: the caller sets the tail to it).
 */
static u64 embm_emu_ring_avail(u64 head, u64 tail, u32 ring_records, u64 *skipped)
{
	u64 n = head - tail;

	*skipped = 0;
	if (n <= ring_records)
		return n;
	if (n < EMBM_EMU_MAX_LOST)
		*skipped = ring_records;
	return 0;
}

/*
 * Is @addr canonical for the paging mode that runs (48 bits, or 57 with
 * LA57 on), not the CPU's widest (boot_cpu_data.x86_virt_bits says 57 on
 * a CPU with LA57 that runs 4-level paging)?  Any context.
 */
static bool embm_emu_canonical(u64 addr)
{
	return __is_canonical_address(addr, __VIRTUAL_MASK_SHIFT + 1);
}

/* Is @addr in the user half (and so canonical)?  Any context. */
static bool embm_emu_user_addr(u64 addr)
{
	return addr < TASK_SIZE_MAX;
}

/* Is @addr canonical and in the kernel half?  Any context. */
static bool embm_emu_kernel_addr(u64 addr)
{
	return addr >= TASK_SIZE_MAX && embm_emu_canonical(addr);
}

/**
 * embm_emu_addrs_ok() - do a record's addresses agree with its mode?
 * @ip:	   the instruction's address
 * @vaddr: the data's address
 * @user:  the record says user mode (EMBM_EMU_REC_USER)
 *
 * perf takes a sample's mode from the registers the driver hands it (CS),
 * and reports its IP and data address as they are: an event that excludes
 * the kernel, which an unprivileged user may open, would be given a kernel
 * address as a user one (and a symbol lookup in the task's maps) if a
 * record said user mode with a kernel address.  As PEBS's consumers
 * expect, a user-mode record's IP and data address must be in the user
 * half; a kernel-mode record's IP in the kernel half (code the kernel runs
 * from the user half, EFI runtime services in efi_mm, is counted as bad),
 * and its data address canonical, in either half (copy_to_user() and the
 * like access user memory in kernel mode).  TASK_SIZE_MAX and the virtual
 * address width follow the paging mode (LA57).
 *
 * Context: any.
 * Return: true if they agree.
 */
static bool embm_emu_addrs_ok(u64 ip, u64 vaddr, bool user)
{
	if (user)
		return embm_emu_user_addr(ip) && embm_emu_user_addr(vaddr);
	return embm_emu_kernel_addr(ip) && embm_emu_canonical(vaddr);
}

/* Why a record is not a sample; EMBM_EMU_REC_OK if it is one. */
enum embm_emu_rec_check {
	EMBM_EMU_REC_OK,
	EMBM_EMU_REC_BAD,	/* fails a check: corrupted */
	EMBM_EMU_REC_STALE,	/* of an event gone, or earlier in the slot */
	EMBM_EMU_REC_STOPPED,	/* of the slot's event, stopped: throttled, say */
};

/**
 * embm_emu_check_record() - may a record be a sample of its slot's event?
 * @pc:	 the CPU whose ring holds the record
 * @rec: the record, read once
 *
 * The slot must hold an event that runs on @pc, the record's count must be
 * above the slot's count when the event started (else the record is of an
 * earlier event, or of this one before a stop), its data source and node
 * in bounds, its addresses in the half its mode says (embm_emu_addrs_ok()),
 * and its kind (load or store, user or kernel) one the event counts.
 *
 * Context: @pc's CPU with interrupts off, or a test's own @pc.
 * Return: an enum embm_emu_rec_check.
 */
static enum embm_emu_rec_check embm_emu_check_record(const struct embm_emu_pcpu *pc,
						     const struct embm_emu_rec *rec)
{
	unsigned int slot = rec->info & EMBM_EMU_REC_SLOT_MASK;
	struct perf_event *event = pc->event[slot];
	u32 ctl, want;

	if (rec->src >= EMBM_EMU_SRC_NR || rec->node < NUMA_NO_NODE ||
	    rec->node >= (s32)nr_node_ids ||
	    !embm_emu_addrs_ok(rec->ip, rec->vaddr, rec->info & EMBM_EMU_REC_USER))
		return EMBM_EMU_REC_BAD;
	if (!event || (s64)(rec->count - pc->base[slot]) <= 0)
		return EMBM_EMU_REC_STALE;
	/* A counting event's slot has no sample to give. */
	if (!is_sampling_event(event))
		return EMBM_EMU_REC_BAD;
	ctl = event->hw.config;
	want = rec->info & EMBM_EMU_REC_STORE ? EMBM_EMU_SLOT_STORE : EMBM_EMU_SLOT_LOAD;
	want |= rec->info & EMBM_EMU_REC_USER ? EMBM_EMU_SLOT_USER : EMBM_EMU_SLOT_KERNEL;
	if ((ctl & want) != want)
		return EMBM_EMU_REC_BAD;
	if (!(pc->active & BIT(slot)) || (event->hw.state & PERF_HES_STOPPED))
		return EMBM_EMU_REC_STOPPED;
	return EMBM_EMU_REC_OK;
}

static void embm_emu_stop(struct perf_event *event, int flags);

/*
 * Tell the plugin which slots are on, and which task runs: no slot and no
 * task while a drain runs, as a PMU frozen in its interrupt handler, so
 * that the drain's own accesses (perf writing the samples) are neither
 * counted nor sampled, nor counted by the plugin's oracle as the task's
 * (0: keyed by the address space).  @pc's CPU, interrupts off.
 */
static void embm_emu_sync(struct embm_emu_pcpu *pc)
{
	WRITE_ONCE(pc->shm->active, pc->draining ? 0 : pc->active);
	WRITE_ONCE(pc->shm->task, pc->draining ? 0 : pc->task);
}

/* Tag @pc's CPU with @task's group, NULL: untagged.  @pc's CPU, atomic. */
static void embm_emu_tag(struct embm_emu_pcpu *pc, struct task_struct *task)
{
	if (!pc->shm)
		return;
	pc->task = task ? EMBM_EMU_TASK(task->tgid) : 0;
	embm_emu_sync(pc);
}

/*
 * The sched_switch tracepoint, where the kernel has tracepoints: tag this
 * CPU with the task group that runs next, idle as EMBM_EMU_TASK(0).  The
 * scheduler's context: interrupts off, the runqueue locked.
 */
static void embm_emu_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	embm_emu_tag(this_cpu_ptr(&embm_emu_pcpu), next);
}

/*
 * Write a new period of @slot's running event if hwc->sample_period
 * changed within perf_event_overflow() (by an overflow handler: with
 * frequency mode refused, perf itself does not; perf_event_period() stops
 * and starts the event, and embm_emu_start() writes the period).  The
 * plugin takes it at its next reload.  @pc's CPU, interrupts off.
 */
static void embm_emu_set_period(struct embm_emu_pcpu *pc, unsigned int slot, u64 period)
{
	period = clamp_val(period, 1, EMBM_EMU_COUNT_PERIOD);
	if (pc->period[slot] == period)
		return;
	pc->period[slot] = period;
	WRITE_ONCE(pc->shm->slot[slot].period, period);
}

/*
 * Make a checked record a sample of its slot's event.  @pc's CPU,
 * interrupts off, in a drain.  Return: whether perf took it.
 */
static bool embm_emu_sample(struct embm_emu_pcpu *pc, const struct embm_emu_rec *rec)
{
	unsigned int slot = rec->info & EMBM_EMU_REC_SLOT_MASK;
	struct perf_event *event = pc->event[slot];
	struct hw_perf_event *hwc = &event->hw;
	u64 period = pc->period[slot];
	struct perf_sample_data data;
	struct pt_regs regs;

	perf_sample_data_init(&data, rec->vaddr, period);
	data.phys_addr = rec->phys;
	data.data_src.val = embm_emu_data_src(rec->src, rec->info & EMBM_EMU_REC_STORE,
					      rec->info & EMBM_EMU_REC_IO);
	/* WEIGHT and WEIGHT_STRUCT: the latency is the low 32 bits (var1_dw). */
	data.weight.full = rec->latency;
	data.sample_flags |= PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_DATA_SRC |
			     PERF_SAMPLE_WEIGHT_TYPE;

	/*
	 * The access's own instruction and privilege level: perf takes the
	 * IP, and user or kernel for the record's misc bits, from regs.  QEMU
	 * gives the exact instruction (a 64-bit one: 32-bit code would need
	 * its segment base); embm_emu_check_record() checked that the IP is
	 * in the half of the mode.
	 */
	memset(&regs, 0, sizeof(regs));
	regs.ip = rec->ip;
	regs.cs = rec->info & EMBM_EMU_REC_USER ? __USER_CS : __KERNEL_CS;
	regs.flags = PERF_EFLAGS_EXACT;

	hwc->last_period = period;
	/* The plugin reloaded the slot with this period. */
	local64_set(&hwc->period_left, period);
	if (perf_event_overflow(event, &data, &regs)) {
		/* Throttled: perf starts it again at a tick (pmu->start). */
		embm_emu_stop(event, 0);
		return true;
	}
	if (!(hwc->state & PERF_HES_STOPPED) && pc->event[slot] == event)
		embm_emu_set_period(pc, slot, hwc->sample_period);
	return true;
}

/* The first running sampling event of @pc, for the lost records.  Any. */
static struct perf_event *embm_emu_lost_event(const struct embm_emu_pcpu *pc)
{
	unsigned int slot;

	for (slot = 0; slot < EMBM_EMU_SLOTS; slot++) {
		if ((pc->active & pc->sampling & BIT(slot)) && pc->event[slot])
			return pc->event[slot];
	}
	return NULL;
}

/**
 * embm_emu_drain() - make the records of a CPU's ring samples
 * @pc:	    the CPU's state
 * @budget: records to take at most
 *
 * Each record that passes embm_emu_check_record() becomes a sample of its
 * slot's event; the others are counted and dropped, and those of an event
 * stopped since the plugin wrote them (perf throttled it within this
 * drain, or a stop's drain ran out of budget) are logged to it as lost
 * samples: they were its samples, as a hardware PMU's records still in
 * its buffer when perf throttles the event.  Records the plugin
 * dropped (embm_emu_cpu.lost) and those a resync skipped are logged as
 * lost samples (PERF_RECORD_LOST_SAMPLES) on the first sampling event on,
 * as a PMU that drops records does: they do not say whose they were.
 * The slots are off while it runs (embm_emu_sync()).  Not
 * reentrant: pmu->stop called from within the samples (throttling) does
 * not drain.
 *
 * Context: @pc's CPU, interrupts off (a PMU callback or the drain timer);
 * the ring is written by that CPU's own vCPU thread, so no other CPU ever
 * drains it.
 */
static void embm_emu_drain(struct embm_emu_pcpu *pc, unsigned int budget)
{
	u32 stopped[EMBM_EMU_SLOTS] = { 0 };
	struct embm_emu_cpu *c = pc->shm;
	struct perf_event *event;
	struct embm_emu_rec rec;
	u64 head, n, i, skipped, lost;
	unsigned int slot;

	if (!c || pc->draining)
		return;
	pc->draining = true;
	embm_emu_sync(pc);

	head = READ_ONCE(c->head);
	n = embm_emu_ring_avail(head, pc->tail, pc->ring_mask + 1, &skipped);
	if (!n && head != pc->tail) {
		pr_warn_ratelimited("CPU %d: ring head %llu, tail %llu: corrupted, resynchronised\n",
				    pc->cpu, head, pc->tail);
		pc->stats.resyncs++;
		pc->tail = head;
	}
	/*
	 * The records after the head, which the plugin wrote before it: a
	 * full rmb(), as the BAR is mapped write-combining (weakly ordered
	 * loads on hardware; under TCG nothing reorders them).
	 */
	rmb();
	n = min_t(u64, n, budget);
	for (i = 0; i < n; i++) {
		embm_emu_read_record(&pc->ring[(pc->tail + i) & pc->ring_mask], &rec);
		switch (embm_emu_check_record(pc, &rec)) {
		case EMBM_EMU_REC_OK:
			if (embm_emu_sample(pc, &rec))
				pc->stats.samples++;
			break;
		case EMBM_EMU_REC_STOPPED:
			stopped[rec.info & EMBM_EMU_REC_SLOT_MASK]++;
			fallthrough;
		case EMBM_EMU_REC_STALE:
			pc->stats.stale++;
			break;
		default:
			pc->stats.bad++;
			break;
		}
	}
	pc->tail += n;
	WRITE_ONCE(c->tail, pc->tail);
	for (slot = 0; slot < EMBM_EMU_SLOTS; slot++) {
		if (stopped[slot] && pc->event[slot])
			perf_log_lost_samples(pc->event[slot], stopped[slot]);
	}

	lost = READ_ONCE(c->lost);
	n = lost - pc->lost;
	pc->lost = lost;
	if (n >= EMBM_EMU_MAX_LOST)
		n = 0;
	n += skipped;
	if (n) {
		pc->stats.lost += n;
		event = embm_emu_lost_event(pc);
		if (event)
			perf_log_lost_samples(event, n);
	}
	pc->draining = false;
	embm_emu_sync(pc);
}

/*
 * Take what a drain left in the ring when its budget ran out, before the
 * task that ran or the event goes: each record is logged as a lost sample
 * of its slot's event, if there is one (else counted stale), so that none
 * is dropped silently or made a sample of the next task.  Records the
 * plugin could not write and a corrupted ring are the next drain's.
 * Context: as embm_emu_drain().
 */
static void embm_emu_drop_rest(struct embm_emu_pcpu *pc)
{
	u32 rest[EMBM_EMU_SLOTS] = { 0 };
	struct embm_emu_cpu *c = pc->shm;
	u64 n, i, skipped;
	unsigned int slot;

	if (!c || pc->draining)
		return;
	n = embm_emu_ring_avail(READ_ONCE(c->head), pc->tail, pc->ring_mask + 1, &skipped);
	if (!n || skipped)
		return;
	/* The records before the head, as embm_emu_drain() reads them. */
	rmb();
	for (i = 0; i < n; i++)
		rest[READ_ONCE(pc->ring[(pc->tail + i) & pc->ring_mask].info) &
		     EMBM_EMU_REC_SLOT_MASK]++;
	pc->tail += n;
	WRITE_ONCE(c->tail, pc->tail);
	for (slot = 0; slot < EMBM_EMU_SLOTS; slot++) {
		if (!rest[slot])
			continue;
		pc->stats.stale += rest[slot];
		if (pc->event[slot])
			perf_log_lost_samples(pc->event[slot], rest[slot]);
	}
}

/* The drain timer of a CPU.  Hardirq context, on its CPU. */
static enum hrtimer_restart embm_emu_timer_fn(struct hrtimer *timer)
{
	struct embm_emu_pcpu *pc = container_of(timer, struct embm_emu_pcpu, timer);

	/* Migrated when its CPU went offline: nothing to do elsewhere. */
	if (pc->cpu != smp_processor_id())
		return HRTIMER_NORESTART;
	embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
	/* A start from within the drain may have queued it already. */
	if (!(pc->active & pc->sampling) || hrtimer_is_queued(timer))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(EMBM_EMU_DRAIN_NS));
	return HRTIMER_RESTART;
}

static struct embm_emu *embm_emu_of(struct pmu *pmu)
{
	return container_of(pmu, struct embm_emu, pmu);
}

/*
 * Fold the slot's count since the last read into the event's.  A count
 * that went backwards, or jumped further than any vCPU counts, is
 * corrupted: it adds nothing (backwards: until it passes the last good
 * value again).  @pc's CPU, interrupts off; the event holds its slot.
 */
static void embm_emu_update(struct embm_emu_pcpu *pc, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 prev = local64_read(&hwc->prev_count), now, delta;

	/* A read from an NMI (perf_event_read_local()) may come in between. */
	do {
		now = READ_ONCE(pc->shm->slot[hwc->idx].count);
		delta = now - prev;
		if ((s64)delta <= 0)
			return;
	} while (!local64_try_cmpxchg(&hwc->prev_count, &prev, now));
	if (delta < EMBM_EMU_MAX_DELTA)
		local64_add(delta, &event->count);
}

/*
 * The accesses until the event's next sample, as x86_perf_event_set_period()
 * computes them: what is left of the period, or a new period.
 */
static s64 embm_emu_left(struct hw_perf_event *hwc, u64 period)
{
	s64 left = local64_read(&hwc->period_left);

	if (left <= -(s64)period)
		left = period;
	else if (left <= 0)
		left += period;
	if (left > (s64)period)
		left = period;
	local64_set(&hwc->period_left, left);
	hwc->last_period = period;
	return left;
}

/**
 * embm_emu_start() - turn an event's slot on
 * @event: an event added on this CPU
 * @flags: PERF_EF_RELOAD: the count was saved (ignored: the slot count
 *	   is read anew, and the period left is always saved by stop)
 *
 * Writes the slot's period, what is left of it, and its controls, in
 * that order, then marks it active: the plugin reads them on the vCPU
 * that is this CPU, in program order.
 *
 * Context: the event's CPU, interrupts off (perf core).
 */
static void embm_emu_start(struct perf_event *event, int flags)
{
	struct embm_emu_pcpu *pc = this_cpu_ptr(&embm_emu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	struct embm_emu_slot *slot;
	int idx = hwc->idx;
	u64 period, count;
	s64 left;

	if (WARN_ON_ONCE(idx < 0 || pc->event[idx] != event) ||
	    !(hwc->state & PERF_HES_STOPPED))
		return;
	slot = &pc->shm->slot[idx];
	period = clamp_val(hwc->sample_period, 1, EMBM_EMU_COUNT_PERIOD);
	left = embm_emu_left(hwc, period);
	count = READ_ONCE(slot->count);
	local64_set(&hwc->prev_count, count);
	pc->base[idx] = count;
	pc->period[idx] = period;
	hwc->state = 0;

	WRITE_ONCE(slot->period, period);
	WRITE_ONCE(slot->left, left);
	WRITE_ONCE(slot->ctl, (u32)hwc->config | EMBM_EMU_SLOT_ON);
	pc->active |= BIT(idx);
	if (is_sampling_event(event))
		pc->sampling |= BIT(idx);
	else
		pc->sampling &= ~BIT(idx);
	embm_emu_sync(pc);

	if ((pc->sampling & BIT(idx)) && !hrtimer_is_queued(&pc->timer))
		hrtimer_start(&pc->timer, ns_to_ktime(EMBM_EMU_DRAIN_NS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	perf_event_update_userpage(event);
}

/**
 * embm_emu_stop() - turn an event's slot off
 * @event: an event added on this CPU
 * @flags: PERF_EF_UPDATE: fold the count (always done: it is cheap)
 *
 * The ring is drained first, so that the event's records are its samples,
 * unless this is called from within a drain (throttling).  The drain may
 * stop the event itself (throttled).  The slot is then turned
 * off, the count folded in, and what is left of the period saved.
 *
 * Context: the event's CPU, interrupts off (perf core, or a drain).
 */
static void embm_emu_stop(struct perf_event *event, int flags)
{
	struct embm_emu_pcpu *pc = this_cpu_ptr(&embm_emu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	struct embm_emu_slot *slot;
	int idx = hwc->idx;
	s64 left;

	if (WARN_ON_ONCE(idx < 0 || pc->event[idx] != event))
		return;
	slot = &pc->shm->slot[idx];
	if (!(hwc->state & PERF_HES_STOPPED)) {
		embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
		if (!(hwc->state & PERF_HES_STOPPED)) {
			WRITE_ONCE(slot->ctl, 0);
			pc->active &= ~BIT(idx);
			pc->sampling &= ~BIT(idx);
			embm_emu_sync(pc);
			hwc->state |= PERF_HES_STOPPED;
		}
	}
	if (!(hwc->state & PERF_HES_UPTODATE)) {
		embm_emu_update(pc, event);
		left = READ_ONCE(slot->left);
		if (left > (s64)pc->period[idx])
			left = pc->period[idx];
		local64_set(&hwc->period_left, left);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

/**
 * embm_emu_add() - give an event a slot of this CPU
 * @event: the event
 * @flags: PERF_EF_START: start it too
 *
 * Context: the event's CPU, interrupts off (perf core).
 * Return: 0; -EAGAIN when every slot is taken (perf multiplexes) or this
 * CPU has none (its numbering was not checked).
 */
static int embm_emu_add(struct perf_event *event, int flags)
{
	struct embm_emu_pcpu *pc = this_cpu_ptr(&embm_emu_pcpu);
	struct embm_emu *emu = embm_emu_of(event->pmu);
	struct hw_perf_event *hwc = &event->hw;
	int idx;

	if (!pc->shm || !cpumask_test_cpu(smp_processor_id(), &emu->usable))
		return -EAGAIN;
	for (idx = 0; idx < EMBM_EMU_SLOTS; idx++) {
		if (!pc->event[idx])
			break;
	}
	if (idx == EMBM_EMU_SLOTS)
		return -EAGAIN;
	pc->event[idx] = event;
	hwc->idx = idx;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	/* Drain when a task is switched out, so that records go to it. */
	perf_sched_cb_inc(event->pmu);
	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		embm_emu_tag(pc, current);
	if (flags & PERF_EF_START)
		embm_emu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

/**
 * embm_emu_del() - take an event's slot back
 * @event: the event
 * @flags: ignored
 *
 * Records of the event left in the ring past a drain's budget are stale
 * from now on: dropped, as those of an earlier event in the slot.
 *
 * Context: the event's CPU, interrupts off (perf core).
 */
static void embm_emu_del(struct perf_event *event, int flags)
{
	struct embm_emu_pcpu *pc = this_cpu_ptr(&embm_emu_pcpu);
	struct hw_perf_event *hwc = &event->hw;

	embm_emu_stop(event, PERF_EF_UPDATE);
	/* Past the stop's budget: lost samples of this event, not stale. */
	embm_emu_drop_rest(pc);
	if (hwc->idx >= 0 && pc->event[hwc->idx] == event)
		pc->event[hwc->idx] = NULL;
	hwc->idx = -1;
	perf_sched_cb_dec(event->pmu);
	/*
	 * Without tracepoints, no switch is seen once the last event goes
	 * (a task that exits): untag rather than leave the task's tag on
	 * whatever runs next.
	 */
	if (!IS_ENABLED(CONFIG_TRACEPOINTS) && !memchr_inv(pc->event, 0, sizeof(pc->event)))
		embm_emu_tag(pc, NULL);
	perf_event_update_userpage(event);
}

/**
 * embm_emu_read() - bring an event's count up to date
 * @event: an event that runs on this CPU
 *
 * Context: the event's CPU, interrupts off (perf core, also from within
 * a drain's sample for PERF_SAMPLE_READ).
 */
static void embm_emu_read(struct perf_event *event)
{
	struct embm_emu_pcpu *pc = this_cpu_ptr(&embm_emu_pcpu);
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->idx < 0 || pc->event[hwc->idx] != event || (hwc->state & PERF_HES_UPTODATE))
		return;
	embm_emu_update(pc, event);
}

/**
 * embm_emu_sched_task() - drain when a task is switched out
 * @pmu_ctx:  the PMU's context
 * @task:     the task switched out (@sched_in false) or in
 * @sched_in: switched in
 *
 * The records so far are of the task that is still current: they become
 * its samples before the next task runs.  Without tracepoints, the CPU's
 * task tag follows the switches seen here (embm_emu_tag()).
 *
 * Context: the scheduler's, interrupts off, perf's context locks held.
 */
static void embm_emu_sched_task(struct perf_event_pmu_context *pmu_ctx,
				struct task_struct *task, bool sched_in)
{
	struct embm_emu_pcpu *pc = this_cpu_ptr(&embm_emu_pcpu);

	if (!sched_in) {
		embm_emu_drain(pc, EMBM_EMU_DRAIN_MAX);
		/* The rest were the task's too: lost, not the next task's. */
		embm_emu_drop_rest(pc);
	}
	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		embm_emu_tag(pc, sched_in ? task : NULL);
}

/* An event is destroyed.  Any context perf frees events in. */
static void embm_emu_event_destroy(struct perf_event *event)
{
	struct embm_emu *emu = embm_emu_of(event->pmu);

	if (atomic_dec_and_test(&emu->users))
		mod_delayed_work(system_wq, &emu->idle_work, msecs_to_jiffies(EMBM_EMU_IDLE_MS));
}

/**
 * embm_emu_group_fits() - can an event's group ever be scheduled?
 * @event: the event, not yet among its leader's siblings
 *
 * Each embm_emu event of a group takes a slot of the CPU while the group
 * runs, and a group runs whole or not at all: a group with more than
 * EMBM_EMU_SLOTS of them would never run (as x86's validate_group() finds
 * for its counters).  Events of other PMUs take none.
 *
 * Context: event_init of a sibling: perf holds the leader's ctx->mutex
 * (perf_try_init_event()), which keeps the sibling list.
 * Return: true if it fits.
 */
static bool embm_emu_group_fits(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	unsigned int n = 1;

	if (leader == event)
		return true;
	if (leader->pmu == event->pmu)
		n++;
	for_each_sibling_event(sibling, leader) {
		if (sibling->pmu == event->pmu)
			n++;
	}
	return n <= EMBM_EMU_SLOTS;
}

/**
 * embm_emu_event_init() - check an event's attributes and take it
 * @event: the event
 *
 * config: "load", "store" (at least one) and "rand" (if the plugin has
 * EMBM_EMU_FEAT_RANDOM).  precise_ip up to 3: the IP is the access's.
 * exclude_user and exclude_kernel select the privilege levels counted;
 * the other exclude_* bits mean nothing in a TCG guest and are ignored.
 * A group with more embm_emu events than slots is refused.  Sample types
 * that need registers, a stack, a call chain or branch stack are refused,
 * as is sigtrap: samples come up to EMBM_EMU_DRAIN_NS late.  So is
 * frequency mode: perf adjusts a frequency event's period from the time
 * between two samples as they reach it, and records reach it in batches,
 * microseconds apart for accesses a drain interval apart (ARM's SPE
 * refuses it for its buffer alike); a period must be given.
 *
 * Context: process (perf_event_open(), a kernel counter's creation, or
 * fork's inheritance); may sleep when the first event turns sampling on.
 * Return: 0; -ENOENT for another PMU's event; -EINVAL for bad
 * attributes, frequency mode, or a group that cannot fit the slots;
 * -EOPNOTSUPP for what it cannot do; -ENODEV for a CPU that has no
 * slots; embm_emu_get()'s errors.
 */
static int embm_emu_event_init(struct perf_event *event)
{
	struct embm_emu *emu = embm_emu_of(event->pmu);
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u32 ctl = 0;
	int err;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	if ((attr->config & ~EMBM_EMU_CFG_MASK) || attr->config1 || attr->config2 ||
	    attr->config3 || !(attr->config & (EMBM_EMU_CFG_LOAD | EMBM_EMU_CFG_STORE)) ||
	    (attr->exclude_user && attr->exclude_kernel) || attr->freq)
		return -EINVAL;
	if (!embm_emu_group_fits(event))
		return -EINVAL;
	if ((attr->sample_type & EMBM_EMU_SAMPLE_UNSUPPORTED) || has_branch_stack(event) ||
	    attr->sigtrap || attr->precise_ip > 3)
		return -EOPNOTSUPP;
	if ((attr->config & EMBM_EMU_CFG_RAND) && !(emu->layout.features & EMBM_EMU_FEAT_RANDOM))
		return -EOPNOTSUPP;
	if (event->cpu >= 0 && !cpumask_test_cpu(event->cpu, &emu->usable))
		return -ENODEV;

	if (attr->config & EMBM_EMU_CFG_LOAD)
		ctl |= EMBM_EMU_SLOT_LOAD;
	if (attr->config & EMBM_EMU_CFG_STORE)
		ctl |= EMBM_EMU_SLOT_STORE;
	if (attr->config & EMBM_EMU_CFG_RAND)
		ctl |= EMBM_EMU_SLOT_RANDOM;
	if (!attr->exclude_user)
		ctl |= EMBM_EMU_SLOT_USER;
	if (!attr->exclude_kernel)
		ctl |= EMBM_EMU_SLOT_KERNEL;
	hwc->config = ctl;
	hwc->idx = -1;
	/*
	 * A per-CPU event needs pmu->sched_task too, to drain at each switch:
	 * it turns perf's context switch hooks on (a task's event does).
	 */
	if (!(event->attach_state & PERF_ATTACH_TASK))
		event->attach_state |= PERF_ATTACH_SCHED_CB;
	if (!is_sampling_event(event)) {
		hwc->sample_period = EMBM_EMU_COUNT_PERIOD;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}

	err = embm_emu_get(emu);
	if (err)
		return err;
	/* Only now: perf calls destroy when event_init fails too. */
	event->destroy = embm_emu_event_destroy;
	return 0;
}

PMU_FORMAT_ATTR(load, "config:0");
PMU_FORMAT_ATTR(store, "config:1");
PMU_FORMAT_ATTR(rand, "config:2");

static struct attribute *embm_emu_format_attrs[] = {
	&format_attr_load.attr,
	&format_attr_store.attr,
	&format_attr_rand.attr,
	NULL,
};

static const struct attribute_group embm_emu_format_group = {
	.name = "format",
	.attrs = embm_emu_format_attrs,
};

PMU_EVENT_ATTR_STRING(loads, embm_emu_ev_loads, "load=1");
PMU_EVENT_ATTR_STRING(stores, embm_emu_ev_stores, "store=1");
PMU_EVENT_ATTR_STRING(accesses, embm_emu_ev_accesses, "load=1,store=1");

static struct attribute *embm_emu_events_attrs[] = {
	&embm_emu_ev_loads.attr.attr,
	&embm_emu_ev_stores.attr.attr,
	&embm_emu_ev_accesses.attr.attr,
	NULL,
};

static const struct attribute_group embm_emu_events_group = {
	.name = "events",
	.attrs = embm_emu_events_attrs,
};

static const struct attribute_group *embm_emu_attr_groups[] = {
	&embm_emu_format_group,
	&embm_emu_events_group,
	NULL,
};

/**
 * embm_emu_stat() - one counter of the drains, summed over the CPUs
 * @off: the counter's offset in struct embm_emu_stats
 *
 * Each CPU's counters are written by its own drains; the sum is a
 * snapshot, read without a lock.
 *
 * Context: process (the device's sysfs files).
 * Return: the sum.
 */
u64 embm_emu_stat(size_t off)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*(u64 *)((void *)&per_cpu(embm_emu_pcpu, cpu).stats + off));
	return sum;
}

/**
 * embm_emu_init_pcpu() - point each CPU's state at its slots and ring
 * @emu: the device, its layout checked and its BAR mapped
 *
 * Each CPU's drain timer is set up; a CPU the layout has starts with an
 * empty ring (what is there is from before) and its slots off.
 *
 * Context: probe, process context, before the PMU is registered.
 */
void embm_emu_init_pcpu(struct embm_emu *emu)
{
	struct embm_emu_layout *l = &emu->layout;
	struct embm_emu_cpu *c = emu->base + l->cpu_off;
	struct embm_emu_record *rings = emu->base + l->ring_off;
	struct embm_emu_pcpu *pc;
	unsigned int i;
	int cpu;

	/* The layout's sizes, which the plugin and tools share. */
	BUILD_BUG_ON(sizeof(struct embm_emu_record) != 64);
	BUILD_BUG_ON(sizeof(struct embm_emu_cpu) != 256);
	BUILD_BUG_ON(EMBM_EMU_REC_SLOT_MASK + 1 != EMBM_EMU_SLOTS);
	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(&embm_emu_pcpu, cpu);
		memset(pc, 0, sizeof(*pc));
		pc->cpu = cpu;
		hrtimer_init(&pc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		pc->timer.function = embm_emu_timer_fn;
		if (cpu >= l->nr_cpus)
			continue;
		pc->shm = &c[cpu];
		pc->ring = &rings[(u64)cpu * l->ring_records];
		pc->ring_mask = l->ring_records - 1;
		/* What is there is from before: skip it. */
		pc->tail = READ_ONCE(c[cpu].head);
		WRITE_ONCE(c[cpu].tail, pc->tail);
		pc->lost = READ_ONCE(c[cpu].lost);
		/* Nothing on from an earlier driver's life, no task tagged. */
		WRITE_ONCE(c[cpu].active, 0);
		WRITE_ONCE(c[cpu].task, 0);
		for (i = 0; i < EMBM_EMU_SLOTS; i++)
			WRITE_ONCE(c[cpu].slot[i].ctl, 0);
	}
}

/**
 * embm_emu_release_pcpu() - stop a CPU's drains and forget the BAR
 * @pc: the CPU's state
 *
 * Cancels the drain timer (waiting for a run on another CPU to end) and
 * clears the pointers into the shared memory, so that nothing reads or
 * writes it through @pc after: embm_emu_drain() and embm_emu_tag() do
 * nothing without @pc->shm.
 *
 * Context: process (probe's unwinding, removal), may wait; no event uses
 * the CPU (the PMU is not registered), the sched_switch probe is gone.
 */
static void embm_emu_release_pcpu(struct embm_emu_pcpu *pc)
{
	hrtimer_cancel(&pc->timer);
	pc->active = 0;
	pc->sampling = 0;
	WRITE_ONCE(pc->ring, NULL);
	WRITE_ONCE(pc->shm, NULL);
}

/**
 * embm_emu_release_pcpus() - every CPU's embm_emu_release_pcpu()
 *
 * Called before the BAR is unmapped.
 *
 * Context: process (probe's unwinding, removal), may wait; the PMU is not
 * registered (any more) and the sched_switch probe is gone.
 */
void embm_emu_release_pcpus(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		embm_emu_release_pcpu(per_cpu_ptr(&embm_emu_pcpu, cpu));
}

/**
 * embm_emu_pmu_register() - register the embm_emu PMU on a device
 * @emu: the device, probed up to its first publish
 *
 * Hooks the sched_switch tracepoint (where the kernel has tracepoints)
 * for the CPUs' task tags, and registers the PMU
 * with a dynamic type, which embm_emu_pmu_type() returns from then on.
 *
 * Context: probe, process context, may sleep.
 * Return: 0, or the error of the tracepoint's or the PMU's registration
 * (with nothing left registered).
 */
int embm_emu_pmu_register(struct embm_emu *emu)
{
	int err;

	if (IS_ENABLED(CONFIG_TRACEPOINTS)) {
		err = register_trace_sched_switch(embm_emu_switch, NULL);
		if (err)
			return err;
	}

	emu->pmu = (struct pmu){
		.module		= THIS_MODULE,
		.parent		= &emu->pdev->dev,
		.task_ctx_nr	= perf_hw_context,
		.capabilities	= PERF_PMU_CAP_NO_NMI,
		.attr_groups	= embm_emu_attr_groups,
		.event_init	= embm_emu_event_init,
		.add		= embm_emu_add,
		.del		= embm_emu_del,
		.start		= embm_emu_start,
		.stop		= embm_emu_stop,
		.read		= embm_emu_read,
		.sched_task	= embm_emu_sched_task,
	};
	err = perf_pmu_register(&emu->pmu, "embm_emu", -1);
	if (err)
		goto out_switch;
	WRITE_ONCE(embm_emu_type, emu->pmu.type);
	return 0;

out_switch:
	if (IS_ENABLED(CONFIG_TRACEPOINTS)) {
		unregister_trace_sched_switch(embm_emu_switch, NULL);
		tracepoint_synchronize_unregister();
	}
	return err;
}

/**
 * embm_emu_pmu_unregister() - undo embm_emu_pmu_register()
 * @emu: the device
 *
 * The PMU goes first (perf calls nothing of it after), then the
 * sched_switch probe: after it, only the drain timers of this side still
 * reach the BAR (embm_emu_release_pcpus()); the device's idle work, which
 * events queue, still runs.
 *
 * Context: removal, process context, may sleep.
 */
void embm_emu_pmu_unregister(struct embm_emu *emu)
{
	WRITE_ONCE(embm_emu_type, -ENODEV);
	perf_pmu_unregister(&emu->pmu);
	if (IS_ENABLED(CONFIG_TRACEPOINTS)) {
		unregister_trace_sched_switch(embm_emu_switch, NULL);
		tracepoint_synchronize_unregister();
	}
}

#ifdef CONFIG_PERF_EVENTS_EMBM_EMU_KUNIT_TEST
#include "embm_emu_kunit.h"
#endif
