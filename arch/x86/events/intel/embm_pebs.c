// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "pebs": Intel Processor Event-Based Sampling
 *
 * P-core servers, Skylake-SP to Granite Rapids, all take the same precise
 * events with the data address (Documentation/admin-guide/mm/embm-events.rst
 * has the tables and their sources):
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
 *
 * The E-core servers Sierra Forest and Grand Ridge (Crestmont) have no
 * load event for L3 misses with a data address: their
 * MEM_LOAD_UOPS_L3_MISS_RETIRED.* (0xd3) have "Data_LA": "0" in perfmon
 * (SRF v1.18, GRR v1.13), and 0x20d1 is MEM_LOAD_UOPS_RETIRED.WCB_HIT
 * there.  So loads are the load-latency event MEM_UOPS_RETIRED.
 * LOAD_LATENCY (0x5d0, counters 0 and 1, threshold in config1), with data
 * source and latency: Linux 6.12 gives it the ldlat register
 * (intel_cmt_extra_regs), INTEL_HYBRID_LDLAT_CONSTRAINT(0x5d0, 0x3)
 * (intel_grt_pebs_event_constraints) and cmt_latency_data().  It counts
 * only loads the hardware tagged (one at a time, SDM Vol. 3B, "Load
 * Latency Performance Monitoring Facility"; perfmon: "tagged load uops")
 * that took more than ldlat cycles: loads below the threshold are never
 * seen, and the estimated loads are tagged loads, not all of them.
 * Stores are MEM_UOPS_RETIRED.ALL_STORES (0x82d0, "Data_LA": "1").
 *
 * Refused, each with its reason: Clearwater Forest and Diamond Rapids
 * (Linux 6.12 has no PMU support for them), any CPU with architectural
 * PEBS (6.12 turns PEBS off there), hybrid CPUs, and models not in the
 * table.
 *
 * The load-latency threshold (ldlat) may be 3 to 65535 cycles on every
 * model: MSR_PEBS_LD_LAT_THRESHOLD bits 15:0, at least 3 (below).
 *
 * The attributes keep large PEBS: fixed periods, no wakeup_events,
 * sample_type within the large-PEBS flags.  perf_prepare_sample() turns
 * the data address into a physical address (perf_virt_to_phys()) when the
 * PEBS buffer is drained (__intel_pmu_pebs_event()), not when the access
 * retired: a page migrated in between counts on its new node, one
 * unmapped in between has no physical address.
 *
 * Not run here: no machine this was developed on has a PMU (nor has QEMU
 * under TCG).  The table and the attribute builder are unit-tested with
 * faked model ids and capabilities.
 */

#include <linux/bitfield.h>
#include <linux/embm.h>
#include <linux/init.h>
#include <linux/perf_event.h>
#include <linux/processor.h>
#include <asm/cpu_device_id.h>
#include <asm/intel-family.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

/*
 * The events, spelled as arch/x86/events/intel/ spells them; perfmon's
 * names and codes (Documentation/admin-guide/mm/embm-events.rst has the
 * table and its sources).
 */
/* MEM_LOAD_RETIRED.L3_MISS (0x20d1) */
#define EMBM_PEBS_L3_MISS_LOADS	X86_CONFIG(.event = 0xd1, .umask = 0x20)
/* MEM_INST_RETIRED.ALL_STORES; on E-cores MEM_UOPS_RETIRED.ALL_STORES (0x82d0) */
#define EMBM_PEBS_ALL_STORES	X86_CONFIG(.event = 0xd0, .umask = 0x82)
/* MEM_TRANS_RETIRED.LOAD_LATENCY (0x1cd), threshold in config1 */
#define EMBM_PEBS_LOAD_LATENCY	X86_CONFIG(.event = 0xcd, .umask = 0x01)
/* MEM_UOPS_RETIRED.LOAD_LATENCY on Crestmont (0x5d0) */
#define EMBM_PEBS_ECORE_LATENCY	X86_CONFIG(.event = 0xd0, .umask = 0x05)
/* mem-loads-aux (0x8203), the leader Sapphire Rapids' 0x1cd needs */
#define EMBM_PEBS_LOADS_AUX	X86_CONFIG(.event = 0x03, .umask = 0x82)

/*
 * The load-latency threshold: MSR_PEBS_LD_LAT_THRESHOLD (0x3f6) bits 15:0,
 * "The minimum value that may be programmed in this field is 3" (Intel
 * SDM Vol. 3B, load latency facility).  Linux 6.12 takes config1 up to
 * 0xffff for it (INTEL_UEVENT_PEBS_LDLAT_EXTRA_REG(), valid mask 0xffff,
 * arch/x86/events/perf_event.h) and refuses a larger one with -EINVAL
 * (x86_pmu_extra_regs()).  perfmon's LOAD_LATENCY_GT_4 to _GT_2048 names
 * are sample thresholds, not limits.
 */
#define EMBM_LDLAT_MIN		3
#define EMBM_LDLAT_MAX		0xffff

/*
 * E-core loads when the session sets no ldlat: Intel's numatop samples
 * Sierra Forest's memory accesses with 0x5d0 at 128 cycles (LL_THRESH in
 * common/include/types.h, x86/srf.c).  Whether 128 cycles leaves out every
 * L3 hit there is not established by any source here.
 */
#define EMBM_LDLAT_ECORE	128

/* CPUID.23H:EAX bits 4 and 5: the arch-PEBS sub-leaves (Linux 6.19). */
#define EMBM_ARCH_PEBS_LEAVES	(BIT(4) | BIT(5))

/**
 * enum embm_pebs_kind - which events a model takes
 * @EMBM_PEBS_PCORE:   0x20d1 loads, 0x82d0 stores, 0x1cd for latency.
 * @EMBM_PEBS_ECORE:   0x5d0 loads over ldlat, 0x82d0 stores.
 * @EMBM_PEBS_REFUSED: none; the entry says why.
 */
enum embm_pebs_kind {
	EMBM_PEBS_PCORE,
	EMBM_PEBS_ECORE,
	EMBM_PEBS_REFUSED,
};

/**
 * struct embm_pebs_model - what embm uses on one Intel core model
 * @vfm:       vendor/family/model, as boot_cpu_data.x86_vfm.
 * @name:      for reports.
 * @kind:      the events it takes.
 * @ldlat_aux: 0x1cd needs mem-loads-aux in front of it (the kernel's
 *	       PMU_FL_MEM_LOADS_AUX: Sapphire and Emerald Rapids).
 * @why:       the reason shown in status: why it is refused, or what its
 *	       loads are when they are not @name's usual ones; NULL: @name.
 */
struct embm_pebs_model {
	u32 vfm;
	const char *name;
	enum embm_pebs_kind kind;
	bool ldlat_aux;
	const char *why;
};

static const struct embm_pebs_model embm_pebs_models[] = {
	/* Skylake-SP, Cascade Lake and Cooper Lake share the model. */
	{ INTEL_SKYLAKE_X,	  "skylake-sp/cascade-lake/cooper-lake", EMBM_PEBS_PCORE },
	{ INTEL_ICELAKE_X,	  "icelake-sp",		EMBM_PEBS_PCORE },
	{ INTEL_ICELAKE_D,	  "icelake-d",		EMBM_PEBS_PCORE },
	{ INTEL_SAPPHIRERAPIDS_X, "sapphire-rapids",	EMBM_PEBS_PCORE, true },
	{ INTEL_EMERALDRAPIDS_X,  "emerald-rapids",	EMBM_PEBS_PCORE, true },
	{ INTEL_GRANITERAPIDS_X,  "granite-rapids",	EMBM_PEBS_PCORE },
	{ INTEL_GRANITERAPIDS_D,  "granite-rapids-d",	EMBM_PEBS_PCORE },
	/* Crestmont: 6.12's "Crestmont events" case in intel_pmu_init(). */
	{ INTEL_ATOM_CRESTMONT_X, "sierra-forest",	EMBM_PEBS_ECORE, false,
	  "sierra-forest: E-core, loads = tagged loads over ldlat (0x5d0)" },
	{ INTEL_ATOM_CRESTMONT,	  "grand-ridge",	EMBM_PEBS_ECORE, false,
	  "grand-ridge: E-core, loads = tagged loads over ldlat (0x5d0)" },
	/*
	 * Darkmont, 06_DD.  6.12 defines the model but runs it as "generic
	 * architected perfmon": no ldlat register, no data source.  Its case
	 * came in 6.16 ("perf/x86/intel: Add PMU support for Clearwater
	 * Forest", 48d66c89dce1), its PEBS is architectural (6.19, below).
	 * Stores would be MEM_UOPS_RETIRED.STORE_LATENCY (0x6d0): its 0x82d0
	 * has "Data_LA": "0" (perfmon CWF v1.04).
	 */
	{ INTEL_ATOM_DARKMONT_X,  "clearwater-forest",	EMBM_PEBS_REFUSED, false,
	  "clearwater-forest: needs Linux 6.16 (PMU) and 6.19 (arch PEBS)" },
	/*
	 * Panther Cove, family 19 model 1: INTEL_PANTHERCOVE_X in 6.12,
	 * INTEL_DIAMONDRAPIDS_X from 6.18 ("x86/cpu: Rename and move CPU model
	 * entry for Diamond Rapids", 70d1d98934e7).  Its PMU case, with 0x1cd
	 * and the OMR memory-region data source (pnc_latency_data()), came in
	 * 7.0 ("perf/x86/intel: Add core PMU support for DMR", d345b6bb8860).
	 */
	{ INTEL_PANTHERCOVE_X,	  "diamond-rapids",	EMBM_PEBS_REFUSED, false,
	  "diamond-rapids: needs Linux 7.0 (Panther Cove PMU, OMR data source)" },
};

/**
 * struct embm_pebs_caps - what the setup needs to know of the CPU
 * @vfm:       boot_cpu_data.x86_vfm of an Intel CPU, 0 for another vendor.
 * @hybrid:    X86_FEATURE_HYBRID_CPU: P- and E-cores with different PMUs.
 * @arch_pebs: the CPU has architectural PEBS (embm_pebs_arch_pebs()).
 */
struct embm_pebs_caps {
	u32 vfm;
	bool hybrid;
	bool arch_pebs;
};

static const struct embm_pebs_model *embm_pebs_model(u32 vfm)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(embm_pebs_models); i++) {
		if (embm_pebs_models[i].vfm == vfm)
			return &embm_pebs_models[i];
	}
	return NULL;
}

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

/* A load-latency event: its threshold, its data source and weight. */
static struct embm_event_desc embm_pebs_ldlat_desc(const char *name, u64 config,
						   u64 ldlat)
{
	struct embm_event_desc d = embm_pebs_desc(name, config, EMBM_OP_LOAD);

	d.attr.config1 = ldlat;
	d.attr.sample_type |= PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	return d;
}

/*
 * Why there is no pebs here, in *@why, with model @m (NULL: not in the
 * table): a refused model's own reason first, then architectural PEBS,
 * then hybrid CPUs, then models not in the table; or an ldlat not 0 and
 * outside 3 to 65535.  Return: 0 when pebs works, -EOPNOTSUPP or -EINVAL.
 */
static int embm_pebs_refuse(const struct embm_pebs_caps *caps,
			    const struct embm_pebs_model *m,
			    const struct embm_source_args *args, const char **why)
{
	if (m && m->kind == EMBM_PEBS_REFUSED) {
		*why = m->why;
		return -EOPNOTSUPP;
	}
	/*
	 * Linux 6.19 drives it ("perf/x86/intel: Initialize architectural
	 * PEBS", d243d0bb64af); 6.12's intel_ds_init() prints "no PEBS fmt15"
	 * and turns PEBS off.
	 */
	if (caps->arch_pebs) {
		*why = "architectural PEBS (CPUID 0x23): needs Linux 6.19";
		return -EOPNOTSUPP;
	}
	if (caps->hybrid) {
		*why = "hybrid CPU: P- and E-cores have their own PMUs and events";
		return -EOPNOTSUPP;
	}
	if (!m) {
		*why = "not an Intel server core in embm's table";
		return -EOPNOTSUPP;
	}
	if (args->ldlat && (args->ldlat < EMBM_LDLAT_MIN || args->ldlat > EMBM_LDLAT_MAX)) {
		*why = "ldlat out of range: 3 to 65535 cycles";
		return -EINVAL;
	}
	return 0;
}

/*
 * A P-core's load-latency event at @ldlat cycles, for latency only, led by
 * mem-loads-aux where model @m needs it, into @descs.  Return: how many
 * descriptors, 1 or 2.
 */
static int embm_pebs_ldlat_descs(const struct embm_pebs_model *m, u64 ldlat,
				 struct embm_event_desc *descs)
{
	int n = 0;

	if (m->ldlat_aux) {
		/* Counts, never samples: precise_ip needs a period. */
		descs[n++] = (struct embm_event_desc){
			.name = "mem-loads-aux",
			.lead = true,
			.attr = {
				.type = PERF_TYPE_RAW,
				.config = EMBM_PEBS_LOADS_AUX,
				.exclude_kernel = 1,
				.exclude_hv = 1,
			},
		};
	}
	descs[n] = embm_pebs_ldlat_desc("loads-latency", EMBM_PEBS_LOAD_LATENCY, ldlat);
	descs[n].latency_only = true;
	return n + 1;
}

/**
 * embm_pebs_setup_caps() - the pebs events of a CPU
 * @caps:   the CPU's model and PEBS capabilities
 * @args:   what the session asks for (ldlat)
 * @descs:  filled in
 * @why:    set to the model's name (or what its loads are), or why there
 *	    is no pebs here
 *
 * A refused model's own reason comes first, then architectural PEBS, then
 * hybrid CPUs, then models not in the table.  An ldlat of 0 means no
 * load-latency event on P-cores; on E-cores, whose loads are the
 * load-latency event, it means EMBM_LDLAT_ECORE cycles.
 *
 * Context: any; reads only its arguments.
 * Return: the number of events; -EOPNOTSUPP for a model refused or not in
 * the table, a hybrid CPU or architectural PEBS; -EINVAL for an ldlat not
 * 0 and outside 3 to 65535.
 */
static int embm_pebs_setup_caps(const struct embm_pebs_caps *caps,
				const struct embm_source_args *args,
				struct embm_event_desc *descs, const char **why)
{
	const struct embm_pebs_model *m = embm_pebs_model(caps->vfm);
	int n = 0, err;

	err = embm_pebs_refuse(caps, m, args, why);
	if (err)
		return err;

	if (m->kind == EMBM_PEBS_ECORE) {
		descs[n++] = embm_pebs_ldlat_desc("loads-latency", EMBM_PEBS_ECORE_LATENCY,
						  args->ldlat ?: EMBM_LDLAT_ECORE);
		/*
		 * PEBS through PMU_FL_PEBS_ALL, as the Crestmont table assumes
		 * ("Allow all events as PEBS with no flags"): no constraint
		 * flags, so no data source (get_data_src()).  perf's
		 * mem-stores there is 0x6d0, STORE_LATENCY, with one.
		 */
		descs[n++] = embm_pebs_desc("stores", EMBM_PEBS_ALL_STORES, EMBM_OP_STORE);
		*why = m->why;
		return n;
	}

	descs[n++] = embm_pebs_desc("loads-l3-miss", EMBM_PEBS_L3_MISS_LOADS, EMBM_OP_LOAD);
	/* No data source: it would only tell L1 hits from misses. */
	descs[n++] = embm_pebs_desc("stores", EMBM_PEBS_ALL_STORES, EMBM_OP_STORE);
	if (args->ldlat)
		n += embm_pebs_ldlat_descs(m, args->ldlat, &descs[n]);
	*why = m->why ?: m->name;
	return n;
}

/*
 * Architectural PEBS, as Linux 6.19 finds it: PEBS format 0xf in
 * IA32_PERF_CAPABILITIES (intel_pebs_init()), with the CPUID.23H sub-leaves
 * 4 and 5 (update_pmu_cap(): "Bits[5:4] should be set simultaneously if
 * arch-PEBS is supported").  Either one is enough to refuse.  Process
 * context.
 */
static bool embm_pebs_arch_pebs(void)
{
	u64 cap;

	if (boot_cpu_has(X86_FEATURE_PDCM) &&
	    !rdmsrl_safe(MSR_IA32_PERF_CAPABILITIES, &cap) &&
	    FIELD_GET(PERF_CAP_PEBS_FORMAT, cap) == 0xf)
		return true;
	return boot_cpu_has(X86_FEATURE_ARCH_PERFMON_EXT) &&
	       (cpuid_eax(ARCH_PERFMON_EXT_LEAF) & EMBM_ARCH_PEBS_LEAVES) ==
	       EMBM_ARCH_PEBS_LEAVES;
}

static int embm_pebs_setup(const struct embm_source_args *args,
			   struct embm_event_desc *descs, const char **why)
{
	struct embm_pebs_caps caps = {};

	if (boot_cpu_data.x86_vendor == X86_VENDOR_INTEL) {
		caps.vfm = boot_cpu_data.x86_vfm;
		caps.hybrid = boot_cpu_has(X86_FEATURE_HYBRID_CPU);
		caps.arch_pebs = embm_pebs_arch_pebs();
	}
	return embm_pebs_setup_caps(&caps, args, descs, why);
}

static const struct embm_source embm_src_pebs = {
	.name		= "pebs",
	.rank		= 10,	/* first: precise, and every L3 miss */
	.period		= 10007,	/* prime: no lock-step with loops */
	.store_period	= 100003,
	.setup		= embm_pebs_setup,
	.semantics	=
		"loads: retired loads that missed L3 (Sierra Forest, Grand Ridge: tagged loads slower than ldlat cycles); stores: every retired store, cache hits included; share and accesses: of both; latency: load-latency samples not served by a cache, I/O or uncached, on the node of their address",
	/* The counted events carry no data source: no cache, memory columns. */
	.fields		= EMBM_FIELD_OP | EMBM_FIELD_LATENCY,
	.unit		= "accesses",
	.blind		=
		"loads served by L1-L3 (only L3 misses are sampled; Sierra Forest, Grand Ridge: loads under ldlat cycles and untagged loads), kernel-mode stores, the latency of stores and of loads under ldlat cycles",
};

/*
 * Offer the source to embm on every kernel with Intel support: on another
 * CPU its setup() says why there is no pebs.  Process context, at boot.
 */
static int __init embm_pebs_init(void)
{
	return embm_register_source(&embm_src_pebs);
}
device_initcall(embm_pebs_init);

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "embm_pebs_kunit.h"
#endif
