// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "ibs": AMD Instruction-Based Sampling of ops
 *
 * A precise PERF_TYPE_RAW 0xC1 event is forwarded by the AMD core PMU to
 * the ibs_op PMU in op-counting mode (IbsOpCntCtl; forward_event_to_ibs()),
 * the one way a kernel counter reaches IBS without knowing ibs_op's
 * dynamic type: every period-th dispatched op is tagged, whatever it is.
 * (0x76 would count cycles instead, and samples would not stand for ops.)
 * ibs_op takes no exclude_* bit (any one: -EINVAL), so kernel-mode ops are
 * sampled too, and a period that is a multiple of 16.  The driver fills in
 * the physical address (IbsDcPhysAd) when it is valid, the data source
 * (DRAM, PMEM, CXL on Zen 4 and later, local or remote, or a cache) and
 * the miss latency.  The raw IBS registers say whether the op loaded,
 * stored or both: an op that does both counts as both.
 *
 * Not run here: no machine this was developed on has IBS.  The attribute
 * builder and the decoding are unit-tested with faked capabilities and
 * register values.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/cpufeature.h>
#include <linux/embm.h>
#include <linux/perf_event.h>
#include <linux/unaligned.h>
#include <asm/amd-ibs.h>
#include <asm/msr-index.h>

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
 * embm_ibs_setup_caps() - the ibs event for a CPU with or without IBS
 * @has_ibs: X86_FEATURE_IBS
 * @args:    what the session asks for (period)
 * @descs:   filled in
 * @why:     set to the reason
 *
 * Return: 1, or -EOPNOTSUPP without IBS, -EINVAL for a period below 16.
 */
static int embm_ibs_setup_caps(bool has_ibs, const struct embm_source_args *args,
			       struct embm_event_desc *descs, const char **why)
{
	if (!has_ibs) {
		*why = "CPU has no IBS";
		return -EOPNOTSUPP;
	}
	if (args->period && args->period < 16) {
		*why = "ibs needs a period of 16 or more";
		return -EINVAL;
	}
	descs[0] = (struct embm_event_desc){
		.name = "ibs-op",
		.op = EMBM_OP_ANY,	/* per sample: embm_ibs_op_of() */
		.attr = {
			.type = PERF_TYPE_RAW,
			.config = 0xc1,	/* ops, not cycles (0x76) */
			.precise_ip = 1,
			.sample_type = EMBM_SAMPLE_TYPE | PERF_SAMPLE_DATA_SRC |
				       PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_RAW,
		},
	};
	*why = "AMD IBS op sampling";
	return 1;
}

static int embm_ibs_setup(const struct embm_source_args *args,
			  struct embm_event_desc *descs, const char **why)
{
	return embm_ibs_setup_caps(boot_cpu_has(X86_FEATURE_IBS), args, descs, why);
}

const struct embm_source embm_src_ibs = {
	.name		= "ibs",
	.period		= 100000,	/* ops; a multiple of 16 */
	.store_period	= 100000,
	.period_align	= 16,
	.setup		= embm_ibs_setup,
	.op_of		= embm_ibs_op_of,
	.semantics	=
		"samples: every period-th op, kernel mode and cache hits included; share: of ops served by memory; accesses: ops not served by a cache; latency: loads served by DRAM, PMEM or CXL",
	.share_mem	= true,
	.fields		= EMBM_FIELD_OP | EMBM_FIELD_LATENCY | EMBM_FIELD_DATA_SRC,
	.unit		= "accesses",
	.blind		=
		"the latency of stores and of uncached ops; memory touched by no tagged op (hardware prefetches, page walks)",
};

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "embm_ibs_kunit.h"
#endif
