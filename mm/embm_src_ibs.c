// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "ibs": AMD Instruction-Based Sampling of ops
 *
 * A precise PERF_TYPE_RAW 0x76 (cycles) event is forwarded by the AMD core
 * PMU to the ibs_op PMU (forward_event_to_ibs()), the one way a kernel
 * counter reaches IBS without knowing ibs_op's dynamic type.  ibs_op takes
 * no exclude_* bit and a period that is a multiple of 16.  The driver
 * fills in the physical address (IbsDcPhysAd) when it is valid, the data
 * source (DRAM, CXL on Zen 4 and later, remote) and the miss latency.
 *
 * Not run here: no machine this was developed on has IBS.  The attribute
 * builder is unit-tested with faked capabilities.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/perf_event.h>
#include <asm/cpufeature.h>

#include "embm.h"

/**
 * embm_op_from_data_src() - load or store, from perf_mem_data_src.mem_op
 * @data_src: the sample's data source bits
 */
enum embm_op embm_op_from_data_src(u64 data_src)
{
	union perf_mem_data_src d = { .val = data_src };

	if (d.mem_op & PERF_MEM_OP_LOAD)
		return EMBM_OP_LOAD;
	if (d.mem_op & PERF_MEM_OP_STORE)
		return EMBM_OP_STORE;
	return EMBM_OP_ANY;
}

/**
 * embm_ibs_setup_caps() - the ibs event for a CPU with or without IBS
 * @has_ibs: X86_FEATURE_IBS
 * @cfg:     the session's knobs
 * @descs:   filled in
 * @why:     set to the reason
 *
 * Return: 1, or -EOPNOTSUPP without IBS, -EINVAL for a period below 16.
 */
int embm_ibs_setup_caps(bool has_ibs, const struct embm_config *cfg,
			struct embm_event_desc *descs, const char **why)
{
	if (!has_ibs) {
		*why = "CPU has no IBS";
		return -EOPNOTSUPP;
	}
	if (cfg->period && cfg->period < 16) {
		*why = "ibs needs a period of 16 or more";
		return -EINVAL;
	}
	descs[0] = (struct embm_event_desc){
		.name = "ibs-op",
		.op = EMBM_OP_ANY,	/* from data_src, per sample */
		.attr = {
			.type = PERF_TYPE_RAW,
			.config = 0x76,
			.precise_ip = 1,
			.sample_type = EMBM_SAMPLE_TYPE | PERF_SAMPLE_DATA_SRC |
				       PERF_SAMPLE_WEIGHT_STRUCT,
		},
	};
	*why = "AMD IBS op sampling";
	return 1;
}

static enum embm_op embm_ibs_op_of(const struct embm_sample *s)
{
	return embm_op_from_data_src(s->data_src);
}

static int embm_ibs_setup(const struct embm_config *cfg,
			  struct embm_event_desc *descs, const char **why)
{
	return embm_ibs_setup_caps(boot_cpu_has(X86_FEATURE_IBS), cfg, descs, why);
}

const struct embm_source embm_src_ibs = {
	.name		= "ibs",
	.period		= 100000,	/* ops; a multiple of 16 */
	.store_period	= 100000,
	.period_align	= 16,
	.setup		= embm_ibs_setup,
	.op_of		= embm_ibs_op_of,
};
