// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "pebs": Intel Processor Event-Based Sampling
 *
 * Per CPU model, precise events whose samples carry the data address:
 * loads that missed the LLC and were served by local DRAM (0x1d3) or remote
 * DRAM (0x2d3), on Granite Rapids loads served by local CXL memory
 * (MEM_LOAD_RETIRED.LOCAL_CXL_MEM, 0x80d1), all stores (0x82d0), and where
 * counters allow, load latency above ldlat cycles (0x1cd, threshold in
 * config1), counted for latency only.  The attributes keep large PEBS:
 * fixed periods, no wakeup_events, sample_type within the large-PEBS flags.
 * perf_prepare_sample() turns the data address into a physical address.
 *
 * Not run here: no machine this was developed on has a PMU.  The table and
 * attribute builder are unit-tested with faked model ids.
 * Codes: Intel perfmon event files and tools/perf/pmu-events; see
 * Documentation/admin-guide/mm/embm.rst.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/perf_event.h>
#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/processor.h>

#include "embm.h"

/**
 * struct embm_pebs_model - what embm uses on one Intel server core
 * @vfm:	   vendor/family/model, as boot_cpu_data.x86_vfm.
 * @name:	   for reports.
 * @ldlat_max:	   highest load-latency threshold; 0: no latency event
 *		   (too few counters to add it without multiplexing).
 * @ldlat_no_src:  0x1cd may not sample DATA_SRC: on Sapphire and Emerald
 *		   Rapids it then needs a group led by mem-loads-aux, which a
 *		   kernel counter cannot have (intel_pmu_hw_config: -ENODATA).
 * @cxl:	   has MEM_LOAD_RETIRED.LOCAL_CXL_MEM (0x80d1).
 */
struct embm_pebs_model {
	u32 vfm;
	const char *name;
	u16 ldlat_max;
	bool ldlat_no_src;
	bool cxl;
};

static const struct embm_pebs_model embm_pebs_models[] = {
	/* Skylake-SP and Cascade Lake share the model; 4 counters with HT. */
	{ INTEL_SKYLAKE_X,	  "skylake-sp/cascade-lake", 0,    false, false },
	{ INTEL_ICELAKE_X,	  "icelake-sp",		     512,  false, false },
	{ INTEL_ICELAKE_D,	  "icelake-d",		     512,  false, false },
	{ INTEL_SAPPHIRERAPIDS_X, "sapphire-rapids",	     1024, true,  false },
	{ INTEL_EMERALDRAPIDS_X,  "emerald-rapids",	     1024, true,  false },
	{ INTEL_GRANITERAPIDS_X,  "granite-rapids",	     2048, false, true },
	{ INTEL_GRANITERAPIDS_D,  "granite-rapids-d",	     2048, false, true },
};

#define EMBM_LDLAT_MIN	4

static struct embm_event_desc embm_pebs_desc(const char *name, u64 config,
					     enum embm_op op)
{
	return (struct embm_event_desc){
		.name = name,
		.op = op,
		.store = op == EMBM_OP_STORE,
		.attr = {
			.type = PERF_TYPE_RAW,
			.config = config,
			.precise_ip = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
			.sample_type = EMBM_SAMPLE_TYPE,
		},
	};
}

/**
 * embm_pebs_setup_vfm() - the pebs events of a CPU model
 * @vfm:   boot_cpu_data.x86_vfm of an Intel CPU, or 0 for any other vendor
 * @cfg:   the session's knobs (ldlat)
 * @descs: filled in
 * @why:   set to the model's name, or why there is no pebs here
 *
 * Return: the number of events; -EOPNOTSUPP for a model not in the table;
 * -EINVAL for an ldlat the model does not take.
 */
int embm_pebs_setup_vfm(u32 vfm, const struct embm_config *cfg,
			struct embm_event_desc *descs, const char **why)
{
	const struct embm_pebs_model *m = NULL;
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(embm_pebs_models); i++) {
		if (embm_pebs_models[i].vfm == vfm)
			m = &embm_pebs_models[i];
	}
	if (!m) {
		*why = "not an Intel server core in embm's table";
		return -EOPNOTSUPP;
	}
	if (cfg->ldlat && m->ldlat_max &&
	    (cfg->ldlat < EMBM_LDLAT_MIN || cfg->ldlat > m->ldlat_max)) {
		*why = "ldlat out of the model's range";
		return -EINVAL;
	}

	descs[n++] = embm_pebs_desc("loads-local-dram", 0x1d3, EMBM_OP_LOAD);
	descs[n++] = embm_pebs_desc("loads-remote-dram", 0x2d3, EMBM_OP_LOAD);
	if (m->cxl)
		descs[n++] = embm_pebs_desc("loads-local-cxl", 0x80d1, EMBM_OP_LOAD);
	descs[n++] = embm_pebs_desc("stores", 0x82d0, EMBM_OP_STORE);
	if (m->ldlat_max && cfg->ldlat) {
		descs[n] = embm_pebs_desc("loads-latency", 0x1cd, EMBM_OP_LOAD);
		descs[n].latency_only = true;
		descs[n].attr.config1 = cfg->ldlat;
		descs[n].attr.sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
		if (!m->ldlat_no_src)
			descs[n].attr.sample_type |= PERF_SAMPLE_DATA_SRC;
		n++;
	}
	*why = m->name;
	return n;
}

static int embm_pebs_setup(const struct embm_config *cfg,
			   struct embm_event_desc *descs, const char **why)
{
	u32 vfm = boot_cpu_data.x86_vendor == X86_VENDOR_INTEL ?
		  boot_cpu_data.x86_vfm : 0;

	return embm_pebs_setup_vfm(vfm, cfg, descs, why);
}

const struct embm_source embm_src_pebs = {
	.name		= "pebs",
	.period		= 10007,	/* prime: no lock-step with loops */
	.store_period	= 100003,
	.setup		= embm_pebs_setup,
};
