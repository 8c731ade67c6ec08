// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "ibs": AMD Instruction-Based Sampling of ops
 *
 * embm opens the ibs_op PMU itself, by the dynamic type that
 * get_ibs_op_pmu_type() returns, in op-counting mode (IbsOpCntCtl): every
 * period-th dispatched op is tagged, whatever it is.  Where the CPU has
 * IBS_CAPS_ZEN4 (CPUID 8000_001B EAX bit 11, IbsL3MissFiltering) it also
 * sets l3missonly (IbsOpL3MissOnly): the hardware still tags an op every
 * period but interrupts only for tagged ops that missed L3, and restarts
 * the count for the others (AMD64 APM vol. 2, 13.3.5).  A precise raw
 * 0xC1 event, which the core PMU forwards to ibs_op, could not set that
 * bit (forward_event_to_ibs()).  ibs_op takes no exclude_* bit (any one:
 * -EINVAL), so kernel-mode ops are sampled too, and a period that is a
 * multiple of 16.  The driver fills in the physical address (IbsDcPhysAd)
 * when it is valid, the data source (DRAM, PMEM, CXL on Zen 4 and later,
 * local or remote, or a cache) and the miss latency.  The raw IBS
 * registers say whether the op loaded, stored or both: an op that does
 * both counts as both.
 *
 * Not run here: no machine this was developed on has IBS.  The attribute
 * builder and the decoding are unit-tested with faked capabilities and
 * register values.
 */

#include <linux/cpufeature.h>
#include <linux/embm.h>
#include <linux/init.h>
#include <linux/perf_event.h>
#include <linux/stringify.h>
#include <linux/unaligned.h>
#include <asm/amd-ibs.h>
#include <asm/msr-index.h>
#include <kunit/static_stub.h>

/*
 * The least op period: IbsOpMaxCnt 9, as Linux 6.15 and later require
 * (b2fc7b282bf7, "perf/amd/ibs: Add PMU specific minimum period": "0x10
 * is the minimum sample period for IBS Fetch and 0x90 for IBS Op").
 * 6.12's perf_ibs_init() takes down to 16.  A plain number: it is in the
 * reason too.
 */
#define EMBM_IBS_MIN_PERIOD	144

#define EMBM_IBS_NOT_REGISTERED \
	"IBS present but ibs_op not registered (its driver failed: see dmesg; or not built)"

/*
 * The default period, in dispatched ops.  ibs_op interrupts (an NMI) at
 * most once per tagged op, so a busy CPU takes at most ops/s / period of
 * them.  A Zen 4 core dispatches at most 6 ops a cycle (its op queue's
 * output: AnandTech's Zen 4 review, Sep 2022) and runs at up to 5.7 GHz
 * (Ryzen 9 7950X, AMD at GDC 2024): 34.2e9 ops/s, so at most 34,200
 * NMIs/s at 1,000,000 (embm-events.rst, "Interrupt rate").  At an
 * assumed, not measured, 2 ops a cycle and 3.5 GHz, 7,000/s (100,000
 * gave 70,000).  Both are under perf's default perf_event_max_sample_rate,
 * 100,000/s, above which perf throttles an event.  With l3missonly
 * tagging still happens every period, but only tagged ops that missed L3
 * interrupt: the bound holds, the rate is the bound times the share of
 * ops that miss L3.  A multiple of 16 (IbsOpMaxCnt counts in 16s) and at
 * most IBS_OP_MAX_CNT << 4 = 1,048,560, the largest period without
 * IBS_CAPS_OPCNTEXT: above that perf splits a period in hardware periods
 * of that size, an NMI each.  With IBS_CAPS_RDWROPCNT perf_ibs_handle_irq()
 * starts each count from the random IbsOpCurCnt[6:0] the hardware left
 * (see get_ibs_op_count()), so intervals are period - 127 to period ops;
 * each sample stands for period.
 */
#define EMBM_IBS_PERIOD		1000000

/**
 * embm_ibs_op_type() - the perf type of the ibs_op PMU
 *
 * Context: any.
 * Return: get_ibs_op_pmu_type(): the type, or -ENODEV (also without
 * CONFIG_CPU_SUP_AMD).
 */
static int embm_ibs_op_type(void)
{
	KUNIT_STATIC_STUB_REDIRECT(embm_ibs_op_type);
	return get_ibs_op_pmu_type();
}

/**
 * embm_ibs_pmu_ok() - is @type ibs_op's?
 * @type: a dynamic perf type
 *
 * ibs_op is a dynamic type whose event_init(), perf_ibs_init(), checks no
 * credentials, and its one capability, PERF_PMU_CAP_NO_EXCLUDE, makes any
 * exclude_* bit -EINVAL: its events always sample the kernel and get
 * perf_allow_kernel(), as every embm event does (mm/embm/perm.c).  A
 * precise raw event on AMD is retyped to ibs_op by the core PMU anyway
 * (forward_event_to_ibs()).
 *
 * Context: any.
 * Return: true if @type is ibs_op's registered type.
 */
static bool embm_ibs_pmu_ok(u32 type)
{
	int ibs_op = embm_ibs_op_type();

	return ibs_op >= PERF_TYPE_MAX && type == ibs_op;
}

/**
 * embm_op_from_data_src() - load or store, from perf_mem_data_src.mem_op
 * @data_src: the sample's data source bits
 *
 * Return: the ops mem_op names; EMBM_OP_ANY if none.
 */
static enum embm_op embm_op_from_data_src(u64 data_src)
{
	union perf_mem_data_src d = { .val = data_src };
	enum embm_op op = EMBM_OP_ANY;

	if (d.mem_op & PERF_MEM_OP_LOAD)
		op |= EMBM_OP_LOAD;
	if (d.mem_op & PERF_MEM_OP_STORE)
		op |= EMBM_OP_STORE;
	return op;
}

/*
 * PERF_SAMPLE_RAW of an ibs_op sample: struct perf_ibs_data from its caps
 * on, a u32 then the registers from IbsOpCtl (perf_ibs_handle_irq()).
 */
#define EMBM_IBS_RAW_REG(msr)	(sizeof(u32) + sizeof(u64) * ((msr) - MSR_AMD64_IBSOPCTL))

/**
 * embm_ibs_op_of() - what an IBS op did: load, store or both
 * @s: an ibs_op sample
 *
 * perf's data source says load when an op both loads and stores (a
 * read-modify-write); IbsOpData3 in the raw registers has both bits.
 *
 * Return: from IbsOpData3 when the raw data holds it, else from the data
 * source.
 */
static enum embm_op embm_ibs_op_of(const struct embm_sample *s)
{
	union ibs_op_data3 d3;
	size_t off = EMBM_IBS_RAW_REG(MSR_AMD64_IBSOPDATA3);
	enum embm_op op = EMBM_OP_ANY;

	if (!s->raw || s->raw_size < off + sizeof(u64))
		return embm_op_from_data_src(s->data_src);
	d3.val = get_unaligned((const u64 *)(s->raw + off));
	if (d3.ld_op)
		op |= EMBM_OP_LOAD;
	if (d3.st_op)
		op |= EMBM_OP_STORE;
	return op;
}

/**
 * embm_ibs_setup_caps() - the ibs event for a CPU with these capabilities
 * @has_ibs: X86_FEATURE_IBS
 * @caps:    get_ibs_caps(): 0 unless amd_ibs_init() succeeded
 * @type:    get_ibs_op_pmu_type(): the ibs_op PMU's type, or < 0
 * @args:    what the session asks for (period; ibs has no store event,
 *	     so store_period is not used)
 * @descs:   filled in
 * @why:     set to the reason
 *
 * Return: 1, or -EOPNOTSUPP without a working ibs_op PMU that counts
 * ops, -EINVAL for a period below EMBM_IBS_MIN_PERIOD.
 */
static int embm_ibs_setup_caps(bool has_ibs, u32 caps, int type,
			       const struct embm_source_args *args,
			       struct embm_event_desc *descs, const char **why)
{
	u64 config = IBS_OP_CNT_CTL;

	if (!caps || type < 0) {
		/*
		 * get_ibs_caps() stays 0 when amd_ibs_init() fails, as on a
		 * firmware bug (FW_BUG: no IBS interrupt offset); ibs_op is
		 * missing when its registration failed after that.
		 */
		*why = has_ibs ? EMBM_IBS_NOT_REGISTERED : "CPU has no IBS";
		return -EOPNOTSUPP;
	}
	/* perf_ibs_op_init() takes IbsOpCntCtl only with IbsOpCnt. */
	if (!(caps & IBS_CAPS_OPCNT)) {
		*why = "IBS cannot count ops (no IbsOpCnt)";
		return -EOPNOTSUPP;
	}
	if (args->period && args->period < EMBM_IBS_MIN_PERIOD) {
		*why = "ibs needs a period of " __stringify(EMBM_IBS_MIN_PERIOD)
		       " or more (AMD: 0x90 is the least IBS op period)";
		return -EINVAL;
	}
	/* perf_ibs_op_init() takes l3missonly with IBS_CAPS_ZEN4 only. */
	if (caps & IBS_CAPS_ZEN4)
		config |= IBS_OP_L3MISSONLY;
	descs[0] = (struct embm_event_desc){
		.name = "ibs-op",
		.op = EMBM_OP_ANY,	/* per sample: embm_ibs_op_of() */
		.attr = {
			.type = type,
			.config = config,
			.sample_type = EMBM_SAMPLE_TYPE | PERF_SAMPLE_DATA_SRC |
				       PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_RAW,
		},
	};
	*why = caps & IBS_CAPS_ZEN4 ?
	       "AMD IBS op sampling, ops that missed L3 (L3MissOnly)" :
	       "AMD IBS op sampling, every op (no L3MissOnly before Zen 4)";
	return 1;
}

static int embm_ibs_setup(const struct embm_source_args *args,
			  struct embm_event_desc *descs, const char **why)
{
	return embm_ibs_setup_caps(boot_cpu_has(X86_FEATURE_IBS), get_ibs_caps(),
				   embm_ibs_op_type(), args, descs, why);
}

static const struct embm_source embm_src_ibs = {
	.name		= "ibs",
	.rank		= 20,	/* after pebs, before page faults */
	.period		= EMBM_IBS_PERIOD,
	.store_period	= EMBM_IBS_PERIOD,	/* no store event: unused */
	.period_align	= 16,
	.min_period	= EMBM_IBS_MIN_PERIOD,
	.setup		= embm_ibs_setup,
	.op_of		= embm_ibs_op_of,
	.semantics	=
		"samples: one op in period, kernel mode included; Zen 4 and later report only ops that missed L3 (L3MissOnly), each for period such ops, earlier parts cache hits too; share: of ops served by memory; accesses: ops not served by a cache; latency: loads served by DRAM, PMEM or CXL",
	.share_mem	= true,
	.fields		= EMBM_FIELD_OP | EMBM_FIELD_LATENCY | EMBM_FIELD_DATA_SRC,
	.unit		= "accesses",
	.blind		=
		"the latency of stores and of uncached ops; memory touched by no tagged op (hardware prefetches, page walks); with L3MissOnly, ops served by this CCX's caches",
	.pmu_ok		= embm_ibs_pmu_ok,
};

/*
 * Offer the source to embm on every x86 kernel, as arch/x86/events/amd/
 * is built on every one: on another CPU, or without CONFIG_CPU_SUP_AMD,
 * its setup() says why there is no ibs.  Process context, at boot.
 */
static int __init embm_ibs_init(void)
{
	return embm_register_source(&embm_src_ibs);
}
device_initcall(embm_ibs_init);

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "embm_ibs_kunit.h"
#endif
