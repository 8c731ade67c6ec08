// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "emu": loads and stores sampled by QEMU's TCG plugin
 *
 * In a guest that QEMU runs under TCG with embm's plugin, the embm_emu
 * PMU (embm_emu.c) samples every period-th load and every period-th store
 * the guest executes, user and kernel mode, with the virtual and physical
 * address.  The latency and the data source of a sample are the plugin's
 * model (a latency per tier, a cache model if it has one), not a
 * measurement: TCG has no caches and no timing.  The source ranks after
 * the hardware PMUs (pebs, ibs), which a real machine has, and before the
 * page faults, which see first touches only.
 *
 * The default periods: with the plugin counting, QEMU 10's TCG runs a
 * memory-bound loop at some 65 million loads a second on a vCPU of a
 * 2-core x86-64 host (embm-bench -p seq-read under perf stat), and a
 * sample costs the drain about 5 microseconds of guest time (the same
 * loop under perf record at periods 10007 to 100).  At 10007 a busy vCPU
 * takes some 6,500 load samples a second, 3% of it to drain and about as
 * much for ksamplingd, which embm's default cpu_budget allows; stores are
 * fewer, and 5003 takes about as many of them.  Primes, so that strided
 * loops do not alias with the period when the plugin cannot randomise it.
 *
 * The least period, EMBM_EMU_MIN_PERIOD, for loads and stores alike: the
 * drain timer takes at most EMBM_EMU_DRAIN_MAX (256) records a
 * millisecond from a CPU's ring, 256,000 a second, and a vCPU at that
 * 65 million accesses a second writes as many at a period of 254.  Below
 * it a busy vCPU outruns its drains for good: the ring stays full, the
 * plugin drops records (lost samples), and the vCPU spends its time
 * draining rather than running (a period of 1 is a record an access).
 * setup() refuses a smaller period at session start, as the ibs source
 * refuses one below 144; perf's own users of embm_emu are not bound by it.
 *
 * An access is one memory operation as TCG runs it: a string instruction
 * (rep stos, rep movs) is one per element, so the kernel's clear_page_erms
 * is 4096 stores a page, where a hardware store event counts a few.
 * The reports' semantics line is at most 255 characters (tools/embm).
 *
 * The events are direct (mm/embm/direct.c): embm_emu's drain calls the
 * overflow handler of each sample with IRQs off, never in NMI, and the
 * sample data holds all embm keeps (physical address, data source,
 * latency), so embm's handler queues those 20 bytes where perf would
 * prepare and write a record of 80: a sample costs the sampled CPU
 * and ksamplingd less.  perf's own users of the PMU get records as
 * usual.  The source "emu-ring" takes the same samples as records in
 * perf's ring buffers, as PEBS and IBS give theirs: the path those take,
 * run end to end in a guest, and what the direct one saves, measured
 * (scripts/embm bench).  The automatic choice never takes "emu-ring":
 * only the source knob does.
 */

#include <linux/embm.h>
#include <linux/init.h>
#include <linux/perf_event.h>
#include <linux/stringify.h>
#include <uapi/linux/embm_emu.h>
#include <kunit/static_stub.h>

#include "embm_emu.h"

#define EMBM_EMU_LOAD_PERIOD	10007
#define EMBM_EMU_STORE_PERIOD	5003
/* The least period of either event: see above.  A plain number for the reason. */
#define EMBM_EMU_MIN_PERIOD	256

#define EMBM_EMU_NO_DEVICE \
	"no embm_emu device: QEMU with embm's TCG plugin (scripts/embm run)"

/**
 * embm_emu_src_type() - the perf type of the embm_emu PMU
 *
 * Context: any.
 * Return: embm_emu_pmu_type(): the type, or -ENODEV without the device.
 */
static int embm_emu_src_type(void)
{
	KUNIT_STATIC_STUB_REDIRECT(embm_emu_src_type);
	return embm_emu_pmu_type();
}

/**
 * embm_emu_src_features() - what the plugin does
 *
 * Context: any.
 * Return: embm_emu_features(): EMBM_EMU_FEAT_*, 0 without the device.
 */
static u32 embm_emu_src_features(void)
{
	KUNIT_STATIC_STUB_REDIRECT(embm_emu_src_features);
	return embm_emu_features();
}

/**
 * embm_emu_src_pmu_ok() - is @type embm_emu's?
 * @type: a dynamic perf type
 *
 * embm_emu's event_init() checks no credentials of its own: perf's checks
 * (perf_event_paranoid for kernel samples, CAP_PERFMON for physical
 * addresses) are those embm makes (mm/embm/perm.c).
 *
 * Context: any.
 * Return: true if @type is embm_emu's registered type.
 */
static bool embm_emu_src_pmu_ok(u32 type)
{
	int emu = embm_emu_src_type();

	return emu >= PERF_TYPE_MAX && type == emu;
}

/**
 * embm_emu_src_descs() - the load and store events of the emulated PMU
 * @args:   the session's periods (set by embm on the events; ldlat unused)
 * @descs:  filled in
 * @why:    set to the reason
 * @direct: embm's overflow handler takes the samples (else perf's
 *	    records in the ring buffers)
 *
 * Randomised intervals ("rand") when the plugin has them.  A load or store
 * period below EMBM_EMU_MIN_PERIOD is refused.
 *
 * Context: process, at session start.
 * Return: 2, -EOPNOTSUPP without an embm_emu device, or -EINVAL for a
 * period below EMBM_EMU_MIN_PERIOD.
 */
static int embm_emu_src_descs(const struct embm_source_args *args,
			      struct embm_event_desc *descs, const char **why, bool direct)
{
	int type = embm_emu_src_type();
	u64 rand = embm_emu_src_features() & EMBM_EMU_FEAT_RANDOM ? EMBM_EMU_CFG_RAND : 0;
	u64 sample_type = EMBM_SAMPLE_TYPE | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;

	if (type < PERF_TYPE_MAX) {
		*why = EMBM_EMU_NO_DEVICE;
		return -EOPNOTSUPP;
	}
	if ((args->period && args->period < EMBM_EMU_MIN_PERIOD) ||
	    (args->store_period && args->store_period < EMBM_EMU_MIN_PERIOD)) {
		*why = "emu needs periods of " __stringify(EMBM_EMU_MIN_PERIOD)
		       " or more (the drains take 256 records a millisecond)";
		return -EINVAL;
	}
	descs[0] = (struct embm_event_desc){
		.name = "emu-loads",
		.op = EMBM_OP_LOAD,
		.direct = direct,
		.attr = {
			.type = type,
			.config = EMBM_EMU_CFG_LOAD | rand,
			.sample_type = sample_type,
			.precise_ip = 3,
		},
	};
	descs[1] = (struct embm_event_desc){
		.name = "emu-stores",
		.op = EMBM_OP_STORE,
		.store = true,
		.direct = direct,
		.attr = {
			.type = type,
			.config = EMBM_EMU_CFG_STORE | rand,
			.sample_type = sample_type,
			.precise_ip = 3,
		},
	};
	*why = rand ? "QEMU's TCG plugin samples every load and store (randomised periods)" :
		      "QEMU's TCG plugin samples every load and store";
	return 2;
}

/* Source "emu": the samples straight to embm (direct).  As embm_emu_src_descs(). */
static int embm_emu_src_setup(const struct embm_source_args *args,
			      struct embm_event_desc *descs, const char **why)
{
	return embm_emu_src_descs(args, descs, why, true);
}

/* Source "emu-ring": the samples as perf's records.  As embm_emu_src_descs(). */
static int embm_emu_ring_setup(const struct embm_source_args *args,
			       struct embm_event_desc *descs, const char **why)
{
	return embm_emu_src_descs(args, descs, why, false);
}

#define EMBM_EMU_SEMANTICS \
	"EMULATED: one load in period, one store in store_period, of those QEMU's TCG plugin runs (user and kernel); latency and data source are MODELLED by the plugin from the physical address's range, not measured; share: of accesses served by memory"
#define EMBM_EMU_BLIND \
	"real timing and caches: the latency and data source are a model; device DMA, page table walks and instruction fetches; samples reach perf up to a millisecond late (their time is when they were read)"

/* What emu and emu-ring share: the same events, periods and meaning. */
#define EMBM_EMU_SOURCE_COMMON						\
	.period		= EMBM_EMU_LOAD_PERIOD,				\
	.store_period	= EMBM_EMU_STORE_PERIOD,			\
	.min_period	= EMBM_EMU_MIN_PERIOD,				\
	.min_store_period = EMBM_EMU_MIN_PERIOD,			\
	.semantics	= EMBM_EMU_SEMANTICS,				\
	.share_mem	= true,						\
	.fields		= EMBM_FIELD_OP | EMBM_FIELD_LATENCY | EMBM_FIELD_DATA_SRC, \
	.unit		= "accesses",					\
	.blind		= EMBM_EMU_BLIND,				\
	.pmu_ok		= embm_emu_src_pmu_ok

static const struct embm_source embm_src_emu = {
	.name		= "emu",
	.rank		= 30,	/* after pebs and ibs, before page faults */
	.setup		= embm_emu_src_setup,
	.direct_irq	= true,
	EMBM_EMU_SOURCE_COMMON,
};

static const struct embm_source embm_src_emu_ring = {
	.name		= "emu-ring",
	.rank		= 31,	/* after emu: the same samples, the slower way */
	.forced_only	= true,	/* auto takes emu, or fails both alike */
	.setup		= embm_emu_ring_setup,
	EMBM_EMU_SOURCE_COMMON,
};

/*
 * Offer the source to embm whenever the driver is built: without the
 * device (no plugin), its setup() says so.  Process context, at boot.
 */
static int __init embm_emu_src_init(void)
{
	int err = embm_register_source(&embm_src_emu);

	return err ?: embm_register_source(&embm_src_emu_ring);
}
device_initcall(embm_emu_src_init);

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "embm_emu_source_kunit.h"
#endif
