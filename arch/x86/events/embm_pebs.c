// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "pebs": Intel Processor Event-Based Sampling
 *
 * On every claimed server core the same precise events, with the data
 * address, serve (Documentation/admin-guide/mm/embm-events.rst has the
 * table and its sources):
 *  - loads: MEM_LOAD_RETIRED.L3_MISS (0x20d1), every retired load that
 *    missed L3: served by local or remote DRAM, CXL memory, PMEM or a
 *    remote cache.  The physical address, not the event, says which node,
 *    so CXL memory is seen whether or not a model has an event for it
 *    (Sapphire and Emerald Rapids have none; Granite Rapids' remote CXL
 *    event has no data address).
 *  - stores: MEM_INST_RETIRED.ALL_STORES (0x82d0), every retired store,
 *    cache hits included, as the event cannot tell more than L1 hit or
 *    miss (precise_datala_hsw()).
 *  - load latency, when the ldlat knob is set: MEM_TRANS_RETIRED.
 *    LOAD_LATENCY (0x1cd, threshold in config1) with its data source, for
 *    latency only.  On Sapphire and Emerald Rapids it works right only
 *    beside mem-loads-aux (0x8203), which must lead its group
 *    (intel_pmu_hw_config()): embm opens that as a counting leader.
 * The attributes keep large PEBS: fixed periods, no wakeup_events,
 * sample_type within the large-PEBS flags.  perf_prepare_sample() turns
 * the data address into a physical address.
 *
 * Not run here: no machine this was developed on has a PMU.  The table and
 * attribute builder are unit-tested with faked model ids.
 */

#define pr_fmt(fmt) "embm: " fmt

#include <linux/embm.h>
#include <linux/perf_event.h>
#include <linux/processor.h>
#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>

/**
 * struct embm_pebs_model - what embm uses on one Intel core model
 * @vfm:	   vendor/family/model, as boot_cpu_data.x86_vfm.
 * @name:	   for reports.
 * @ldlat_max:	   highest load-latency threshold (perfmon's LOAD_LATENCY_GT
 *		   events); 0: the model is refused.
 * @ldlat_aux:	   0x1cd needs mem-loads-aux in front of it (the kernel's
 *		   PMU_FL_MEM_LOADS_AUX: Sapphire and Emerald Rapids).
 * @refused:	   why a known model is not supported, or NULL.
 */
struct embm_pebs_model {
	u32 vfm;
	const char *name;
	u16 ldlat_max;
	bool ldlat_aux;
	const char *refused;
};

static const struct embm_pebs_model embm_pebs_models[] = {
	/* Skylake-SP, Cascade Lake and Cooper Lake share the model. */
	{ INTEL_SKYLAKE_X,	  "skylake-sp/cascade-lake/cooper-lake", 512, false },
	{ INTEL_ICELAKE_X,	  "icelake-sp",		512,  false },
	{ INTEL_ICELAKE_D,	  "icelake-d",		512,  false },
	{ INTEL_SAPPHIRERAPIDS_X, "sapphire-rapids",	1024, true },
	{ INTEL_EMERALDRAPIDS_X,  "emerald-rapids",	1024, true },
	{ INTEL_GRANITERAPIDS_X,  "granite-rapids",	2048, false },
	{ INTEL_GRANITERAPIDS_D,  "granite-rapids-d",	2048, false },
	{ INTEL_ATOM_CRESTMONT_X, "sierra-forest", 0, false,
	  "sierra-forest: E-core memory events (MEM_UOPS_RETIRED) not in embm's table" },
	{ INTEL_ATOM_CRESTMONT,	  "grand-ridge", 0, false,
	  "grand-ridge: E-core memory events (MEM_UOPS_RETIRED) not in embm's table" },
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
 * @vfm:    boot_cpu_data.x86_vfm of an Intel CPU, or 0 for any other vendor
 * @hybrid: X86_FEATURE_HYBRID_CPU: P- and E-cores with different PMUs
 * @args:   what the session asks for (ldlat)
 * @descs:  filled in
 * @why:    set to the model's name, or why there is no pebs here
 *
 * Return: the number of events; -EOPNOTSUPP for a hybrid CPU or a model
 * not in the table, or refused by it; -EINVAL for an ldlat the model does
 * not take.
 */
static int embm_pebs_setup_vfm(u32 vfm, bool hybrid,
			       const struct embm_source_args *args,
			       struct embm_event_desc *descs, const char **why)
{
	const struct embm_pebs_model *m = NULL;
	int i, n = 0;

	if (hybrid) {
		*why = "hybrid CPU: P- and E-cores have their own PMUs and events";
		return -EOPNOTSUPP;
	}
	for (i = 0; i < ARRAY_SIZE(embm_pebs_models); i++) {
		if (embm_pebs_models[i].vfm == vfm)
			m = &embm_pebs_models[i];
	}
	if (!m) {
		*why = "not an Intel server core in embm's table";
		return -EOPNOTSUPP;
	}
	if (m->refused) {
		*why = m->refused;
		return -EOPNOTSUPP;
	}
	if (args->ldlat && (args->ldlat < EMBM_LDLAT_MIN || args->ldlat > m->ldlat_max)) {
		*why = "ldlat out of the model's range";
		return -EINVAL;
	}

	descs[n++] = embm_pebs_desc("loads-l3-miss", 0x20d1, EMBM_OP_LOAD);
	/* No data source: it would only tell L1 hits from misses. */
	descs[n++] = embm_pebs_desc("stores", 0x82d0, EMBM_OP_STORE);
	if (args->ldlat) {
		if (m->ldlat_aux) {
			/* Counts, never samples: precise_ip needs a period. */
			descs[n] = (struct embm_event_desc){
				.name = "mem-loads-aux",
				.lead = true,
				.attr = {
					.type = PERF_TYPE_RAW,
					.config = 0x8203,
					.exclude_kernel = 1,
					.exclude_hv = 1,
				},
			};
			n++;
		}
		descs[n] = embm_pebs_desc("loads-latency", 0x1cd, EMBM_OP_LOAD);
		descs[n].latency_only = true;
		descs[n].attr.config1 = args->ldlat;
		descs[n].attr.sample_type |= PERF_SAMPLE_WEIGHT_STRUCT |
					     PERF_SAMPLE_DATA_SRC;
		n++;
	}
	*why = m->name;
	return n;
}

static int embm_pebs_setup(const struct embm_source_args *args,
			   struct embm_event_desc *descs, const char **why)
{
	u32 vfm = boot_cpu_data.x86_vendor == X86_VENDOR_INTEL ?
		  boot_cpu_data.x86_vfm : 0;

	return embm_pebs_setup_vfm(vfm, boot_cpu_has(X86_FEATURE_HYBRID_CPU),
				   args, descs, why);
}

const struct embm_source embm_src_pebs = {
	.name		= "pebs",
	.period		= 10007,	/* prime: no lock-step with loops */
	.store_period	= 100003,
	.setup		= embm_pebs_setup,
	.semantics	=
		"loads: retired loads that missed L3 (memory, CXL or a remote cache); stores: every retired store, cache hits included; share and accesses: of both; latency: load-latency samples served by DRAM, PMEM or CXL",
	/* The counted events carry no data source: no cache, memory columns. */
	.fields		= EMBM_FIELD_OP | EMBM_FIELD_LATENCY,
	.unit		= "accesses",
	.blind		=
		"loads served by L1-L3 (only L3 misses are sampled), kernel-mode stores, the latency of stores and of loads under ldlat cycles",
};

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "embm_pebs_kunit.h"
#endif
