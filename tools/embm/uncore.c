// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: uncore bandwidth and latency per tier (see uncore.h)
 *
 * Sources of the tables, as checked for embm: Intel perfmon (github
 * intel/perfmon @6dadedf3: SPR/events/sapphirerapids_uncore*.json,
 * EMR/events/emeraldrapids_uncore*.json, GNR/events/graniterapids_uncore*.json
 * V1.20, SRF/events/sierraforest_uncore*.json V1.18,
 * GRR/events/grandridge_uncore*.json V1.13,
 * CWF/events/clearwaterforest_uncore*.json V1.04), PCM (github intel/pcm
 * @0fae0de1: src/pcm-memory.cpp, src/cpucounters.cpp, src/cpucounters.h),
 * Linux 6.12 (Debian linux-source-6.12, 6.12.117):
 * arch/x86/events/intel/uncore.c and uncore_snbep.c,
 * arch/x86/events/amd/uncore.c, arch/x86/kernel/cpu/amd.c and
 * tools/perf/pmu-events/arch/x86/amdzen{3,4,5}/ (JSON).  Raw config for the
 * Linux Intel uncore PMU: event | umask << 8 | umask_ext << 32; for amd_l3
 * and amd_umc_N, the fields of their sysfs format (below).  None of it
 * has run here: no VM exposes uncore PMUs.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "uncore.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Shorthands for the tables: an event counted alone, one of a CHA's group,
 * one of an AMD L3's group.
 */
#define ONE(unit, name, config, tier, role, scale) \
	{ unit, name, config, EMBM_UNC_##tier, EMBM_UNC_##role, scale, 0 }
#define GRP(group, name, config, tier, role, scale) \
	{ "cha", name, config, EMBM_UNC_##tier, EMBM_UNC_##role, scale, group }
#define L3(group, name, config, tier, role, scale) \
	{ "amd_l3", name, config, EMBM_UNC_##tier, EMBM_UNC_##role, scale, group }

/*
 * A latency: TOR occupancy, inserts and CHA clock of one kind of demand
 * read, one perf group a CHA.  Occupancy (event 0x36) counts on counter 0
 * only (perfmon "Counter": "0"; skx_uncore_chabox_constraints in
 * uncore_snbep.c), so a group has one and perf multiplexes the groups.
 * DDR (groups 1 and 2 of each table): demand reads of the socket's cores
 * to its own DRAM and to other sockets' (perfmon *_uncore.json, not
 * experimental).  The CXL read inserts are summed in groups of up to four
 * (the CHA's counters, none needing counter 0): each group's share is
 * measured over one time, and the fewer groups, the larger their shares.
 */
/*
 * Sapphire Rapids.  DRAM bandwidth: IMC CAS counts, 64 bytes each
 * (uncore_snbep.c spr cas_count_read/write aliases), where the memory is.
 * CXL reads: the CHAs' TOR inserts of the socket's cores' LLC misses to
 * CXL memory, the eight that pcm-memory sums (pcm-memory.cpp:1269-1283),
 * 64 bytes each, where the requests come from.  CXL writes: the CXLCM
 * packing-buffer inserts of memory data, 32 bytes each (PCM's
 * CXLBWWrScalingFactor 0.5 x 64, pcm-memory.cpp:593, cpucounters.cpp:11017),
 * at the socket's CXL ports.  Latency: DDR and the demand reads to CXL.
 * The CXL events are in perfmon's experimental file.
 */
static const struct embm_unc_event spr_events[] = {
	ONE("imc", "UNC_M_CAS_COUNT.RD", 0xcf05, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT.WR", 0xf005, DRAM, WR, 64),
	GRP(1, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR", 0x00c8168600000136, DRAM, OCC, 0),
	GRP(1, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR", 0x00c8168600000135, DRAM, INS, 0),
	GRP(1, "UNC_CHA_CLOCKTICKS", 0x01, DRAM, CLK, 0),
	GRP(2, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR", 0x00c8170600000136, RDRAM, OCC, 0),
	GRP(2, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR", 0x00c8170600000135, RDRAM, INS, 0),
	GRP(2, "UNC_CHA_CLOCKTICKS", 0x01, RDRAM, CLK, 0),
	GRP(3, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 0x10c8178200000136, CXL, OCC, 0),
	GRP(3, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 0x10c8178200000135, CXL, RD_INS, 64),
	GRP(3, "UNC_CHA_CLOCKTICKS", 0x01, CXL, CLK, 0),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_ACC", 0x10c8078200000135, CXL, RD, 64),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_CRDMORPH_CXL_ACC", 0x10c80b8200000135, CXL, RD, 64),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_ACC", 0x10c8878200000135, CXL, RD, 64),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_PREF_CXL_ACC", 0x10ccc78200000135, CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_CXL_ACC", 0x10c8978200000135, CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFDATA_CXL_ACC", 0x10ccd78200000135, CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFCODE_CXL_ACC", 0x10cccf8200000135, CXL, RD, 64),
	ONE("cxlcm", "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA", 0x1002, CXL, WR, 32),
};

/*
 * Emerald Rapids.  As Sapphire Rapids but for CXL reads: pcm-memory counts
 * the CHA TOR inserts to the socket's own CXL expanders, from its cores
 * (IA_MISS_*, umask 0x01) and from other sockets (RRQ_MISS_*, umask 0x40),
 * the eleven *_CXL_EXP_LOCAL events of pcm-memory.cpp:1285-1304, 64 bytes
 * each: where the memory is, as the IMC counts.  Latency: demand reads of
 * the socket's cores to its own expanders.  All in perfmon's experimental
 * file (EMR/events/emeraldrapids_uncore_experimental.json).
 */
static const struct embm_unc_event emr_events[] = {
	ONE("imc", "UNC_M_CAS_COUNT.RD", 0xcf05, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT.WR", 0xf005, DRAM, WR, 64),
	GRP(1, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR", 0x00c8168600000136, DRAM, OCC, 0),
	GRP(1, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR", 0x00c8168600000135, DRAM, INS, 0),
	GRP(1, "UNC_CHA_CLOCKTICKS", 0x01, DRAM, CLK, 0),
	GRP(2, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR", 0x00c8170600000136, RDRAM, OCC, 0),
	GRP(2, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR", 0x00c8170600000135, RDRAM, INS, 0),
	GRP(2, "UNC_CHA_CLOCKTICKS", 0x01, RDRAM, CLK, 0),
	GRP(3, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_EXP_LOCAL", 0x20c8168200000136, CXL, OCC,
	    0),
	GRP(3, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_EXP_LOCAL", 0x20c8168200000135, CXL, RD_INS,
	    64),
	GRP(3, "UNC_CHA_CLOCKTICKS", 0x01, CXL, CLK, 0),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_EXP_LOCAL", 0x20c8068200000135, CXL, RD, 64),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_EXP_LOCAL", 0x20c8868200000135,
	    CXL, RD, 64),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_PREF_CXL_EXP_LOCAL", 0x20ccc68200000135,
	    CXL, RD, 64),
	GRP(4, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_CXL_EXP_LOCAL", 0x20c8968200000135,
	    CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFDATA_CXL_EXP_LOCAL", 0x20ccd68200000135,
	    CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.RRQ_MISS_INVXTOM_CXL_EXP_LOCAL", 0x20e87e8200004035,
	    CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDCUR_CXL_EXP_LOCAL", 0x20e8068200004035, CXL, RD, 64),
	GRP(5, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDCODE_CXL_EXP_LOCAL", 0x20e80e8200004035,
	    CXL, RD, 64),
	GRP(6, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDDATA_CXL_EXP_LOCAL", 0x20e8168200004035,
	    CXL, RD, 64),
	GRP(6, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDINVOWN_OPT_CXL_EXP_LOCAL", 0x20e8268200004035,
	    CXL, RD, 64),
	ONE("cxlcm", "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA", 0x1002, CXL, WR, 32),
};

/*
 * Granite Rapids.  DRAM: the IMC's two schedulers, each with its CAS
 * counts (uncore_snbep.c gnr cas_count_*_sch0/1).  CXL reads: the CXLCM
 * packing-buffer inserts of received memory data (pcm-memory.cpp:1148,
 * cpucounters.cpp:11016), 64 bytes each.  CXL writes: the CXLDP's M2S
 * data inserts (pcm-memory.cpp:1149, cpucounters.cpp:11029), 64 bytes
 * each.  Both at the socket's CXL ports.  Latency as on Sapphire Rapids
 * (the _CXL_ACC events are not experimental on GNR).
 */
static const struct embm_unc_event gnr_events[] = {
	ONE("imc", "UNC_M_CAS_COUNT_SCH0.RD", 0xcf05, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH1.RD", 0xcf06, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH0.WR", 0xf005, DRAM, WR, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH1.WR", 0xf006, DRAM, WR, 64),
	GRP(1, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR", 0x00c8168600000136, DRAM, OCC, 0),
	GRP(1, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR", 0x00c8168600000135, DRAM, INS, 0),
	GRP(1, "UNC_CHA_CLOCKTICKS", 0x01, DRAM, CLK, 0),
	GRP(2, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR", 0x00c8170600000136, RDRAM, OCC, 0),
	GRP(2, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR", 0x00c8170600000135, RDRAM, INS, 0),
	GRP(2, "UNC_CHA_CLOCKTICKS", 0x01, RDRAM, CLK, 0),
	GRP(3, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 0x10c8178200000136, CXL, OCC, 0),
	GRP(3, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 0x10c8178200000135, CXL, INS, 0),
	GRP(3, "UNC_CHA_CLOCKTICKS", 0x01, CXL, CLK, 0),
	ONE("cxlcm", "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA", 0x1041, CXL, RD, 64),
	ONE("cxldp", "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", 0x2002, CXL, WR, 64),
};

/*
 * Sierra Forest and Clearwater Forest: Granite Rapids' IMC (two
 * schedulers) and CXL port events, the same encodings in perfmon
 * (SRF V1.18: all in sierraforest_uncore.json; CWF V1.04:
 * clearwaterforest_uncore.json, the CXLCM and CXLDP events in
 * clearwaterforest_uncore_experimental.json).  Linux matches both to
 * gnr_uncore_init (uncore.c: INTEL_ATOM_CRESTMONT_X since v6.8,
 * INTEL_ATOM_DARKMONT_X since v6.13 and in 6.12.117), so the PMUs and the
 * IMC's cas_count_*_sch0/1 aliases are GNR's.  PCM counts SRF's DRAM
 * (cpucounters.cpp:9458-9472) and CXL ports (pcm-memory.cpp:1146-1149,
 * BHS, cpucounters.h:2723-2729) as GNR's; it has no CWF, so 64 B a CXL
 * count there is GNR's and SRF's figure carried over.
 *
 * The DRAM latency is not GNR's: these E-core parts have no
 * IA_MISS_DRD_LOCAL_DDR or _REMOTE_DDR.  Their demand reads are DRd_Opt,
 * and perfmon has TOR occupancy only for all of them
 * (UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_OPT, umask_ext 0xc827fe); the inserts
 * split into _LOCAL (0xc826fe) and _REMOTE (0xc8277e), but occupancy of
 * all over inserts of some is no latency.  So the DRAM figure is the
 * latency of all the socket's cores' demand reads that missed L3,
 * wherever the memory (the model's note says so), from the matching
 * inserts (0xc827fe), and rmt_lat_ns is unavailable.  CXL latency as on
 * Granite Rapids (IA_MISS_DRD_CXL_ACC, not experimental in either file).
 */
static const struct embm_unc_event srf_events[] = {
	ONE("imc", "UNC_M_CAS_COUNT_SCH0.RD", 0xcf05, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH1.RD", 0xcf06, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH0.WR", 0xf005, DRAM, WR, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH1.WR", 0xf006, DRAM, WR, 64),
	GRP(1, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_OPT", 0x00c827fe00000136, DRAM, OCC, 0),
	GRP(1, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_OPT", 0x00c827fe00000135, DRAM, INS, 0),
	GRP(1, "UNC_CHA_CLOCKTICKS", 0x01, DRAM, CLK, 0),
	GRP(2, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 0x10c8178200000136, CXL, OCC, 0),
	GRP(2, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 0x10c8178200000135, CXL, INS, 0),
	GRP(2, "UNC_CHA_CLOCKTICKS", 0x01, CXL, CLK, 0),
	ONE("cxlcm", "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA", 0x1041, CXL, RD, 64),
	ONE("cxldp", "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", 0x2002, CXL, WR, 64),
};

/*
 * Grand Ridge: the IMC as on Sierra Forest (grandridge_uncore.json V1.13;
 * PCM's GRR case is SRF's, cpucounters.cpp:9458-9472) and its DRd_Opt
 * latency (the occupancy is in grandridge_uncore_experimental.json).  No
 * CXL: perfmon lists no CXLCM or CXLDP unit and no _CXL_ACC event for GRR,
 * and no _REMOTE inserts (one socket).
 */
static const struct embm_unc_event grr_events[] = {
	ONE("imc", "UNC_M_CAS_COUNT_SCH0.RD", 0xcf05, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH1.RD", 0xcf06, DRAM, RD, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH0.WR", 0xf005, DRAM, WR, 64),
	ONE("imc", "UNC_M_CAS_COUNT_SCH1.WR", 0xf006, DRAM, WR, 64),
	GRP(1, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_OPT", 0x00c827fe00000136, DRAM, OCC, 0),
	GRP(1, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_OPT", 0x00c827fe00000135, DRAM, INS, 0),
	GRP(1, "UNC_CHA_CLOCKTICKS", 0x01, DRAM, CLK, 0),
};

/*
 * AMD Zen 4 and Zen 5.  DRAM: each memory controller's CAS commands,
 * umc_cas_cmd.rd and .wr (event 0x0a, RdWrMask 1 and 2: config event
 * 0-7, rdwrmask 8-9 of amd_umc_N's format; amdzen4 and amdzen5
 * memory-controller.json), 64 bytes each (perf's umc_mem_read_bandwidth
 * and _write_bandwidth, recommended.json), where the memory is.  One
 * amd_umc_N PMU a UMC, since Linux 6.7, on PerfMonV2 parts only
 * (amd/uncore.c: pmu_version >= 2); its cpumask is one CPU of its node.
 *
 * Latency (Zen 5): amd_l3, one PMU whose cpumask has one CPU an L3 (a
 * CCX), counts l3_xi_sampled_latency (0xac) and its _requests (0xad) for
 * sampled L3 misses by where the data came from: umask 0x01 DRAM of the
 * same node, 0x02 DRAM of another, 0x10 and 0x20 "extension memory (CXL)"
 * near and far (amdzen5/l3-cache.json).  Their fields: EnAllCores 1
 * (config:47), EnAllSlices 1 (46), SliceId 3 (48-50), ThreadMask 3
 * (56-57) (amd/uncore.c f19h format); the kernel fills in all but SliceId
 * when ThreadMask is 0, and these events count nothing without SliceId 3
 * (Linux commit 498d3486376b), so all are given:
 * 0x0303c00000000000 | umask << 8 | event.  The latency is
 * 10 x latency / requests, in ns as perf prints its
 * l3_read_miss_latency_for_local_dram metric (amdzen5/recommended.json,
 * ScaleUnit "1ns", though its description says core clocks): 10 ns a
 * count.  A socket's CCXs are summed (latency and requests), so its
 * figure is the mean over its sampled misses.  CXL: near and far summed,
 * as Intel's CXL latency is of any expander.
 *
 * Zen 4 has the same L3 events (amdzen4/cache.json) but perf's only
 * metric of them, the same formula, is in core clocks
 * (amdzen4/recommended.json, ScaleUnit "1core clocks"), which embm
 * cannot turn into ns: no Zen 4 latency.  Neither has a CXL bandwidth
 * event in the kernel's lists (the Data Fabric's are DRAM channels, links
 * and I/O; the ext requests are sampled, not all of them).
 */
static const struct embm_unc_event zen4_events[] = {
	ONE("amd_umc", "umc_cas_cmd.rd", 0x10a, DRAM, RD, 64),
	ONE("amd_umc", "umc_cas_cmd.wr", 0x20a, DRAM, WR, 64),
};

static const struct embm_unc_event zen5_events[] = {
	ONE("amd_umc", "umc_cas_cmd.rd", 0x10a, DRAM, RD, 64),
	ONE("amd_umc", "umc_cas_cmd.wr", 0x20a, DRAM, WR, 64),
	L3(1, "l3_xi_sampled_latency.dram_near", 0x0303c000000001ac, DRAM, LAT_SUM, 10),
	L3(1, "l3_xi_sampled_latency_requests.dram_near", 0x0303c000000001ad, DRAM, LAT_REQ, 0),
	L3(2, "l3_xi_sampled_latency.dram_far", 0x0303c000000002ac, RDRAM, LAT_SUM, 10),
	L3(2, "l3_xi_sampled_latency_requests.dram_far", 0x0303c000000002ad, RDRAM, LAT_REQ, 0),
	L3(3, "l3_xi_sampled_latency.ext_near", 0x0303c000000010ac, CXL, LAT_SUM, 10),
	L3(3, "l3_xi_sampled_latency_requests.ext_near", 0x0303c000000010ad, CXL, LAT_REQ, 0),
	L3(3, "l3_xi_sampled_latency.ext_far", 0x0303c000000020ac, CXL, LAT_SUM, 10),
	L3(3, "l3_xi_sampled_latency_requests.ext_far", 0x0303c000000020ad, CXL, LAT_REQ, 0),
};

enum { SPR, EMR, GNR, SRF, GRR, CWF, ZEN4, ZEN5, AMD_OTHER, OTHER };

static const struct embm_unc_model models[] = {
	[SPR] = { "Sapphire Rapids", spr_events, ARRAY_SIZE(spr_events) },
	[EMR] = { "Emerald Rapids", emr_events, ARRAY_SIZE(emr_events) },
	[GNR] = { "Granite Rapids", gnr_events, ARRAY_SIZE(gnr_events) },
	[SRF] = { "Sierra Forest", srf_events, ARRAY_SIZE(srf_events), NULL,
		  "DRAM rd_lat_ns: all the socket's demand reads that missed L3, to any memory" },
	[GRR] = { "Grand Ridge", grr_events, ARRAY_SIZE(grr_events), NULL,
		  "DRAM rd_lat_ns: all the socket's demand reads that missed L3" },
	[CWF] = { "Clearwater Forest", srf_events, ARRAY_SIZE(srf_events), NULL,
		  "DRAM rd_lat_ns: all the socket's demand reads that missed L3, to any memory" },
	[ZEN4] = { "AMD Zen 4", zen4_events, ARRAY_SIZE(zen4_events), NULL,
		   "no latency: perf gives Zen 4's L3 sampled latency in core clocks, not ns" },
	[ZEN5] = { "AMD Zen 5", zen5_events, ARRAY_SIZE(zen5_events), NULL,
		   "latencies of the L3s' sampled misses; no CXL bandwidth event" },
	[AMD_OTHER] = { "AMD before Zen 4", NULL, 0,
			"no amd_umc PMU (PerfMonV2, Zen 4 on), no L3 latency by source (0xac)" },
	[OTHER] = { "this CPU", NULL, 0, "embm has no uncore event table for this CPU model" },
};

static bool between(int v, int lo, int hi)
{
	return v >= lo && v <= hi;
}

/**
 * embm_unc_model() - the event table of a CPU
 * @vendor: /proc/cpuinfo's vendor_id
 * @family: its cpu family
 * @model:  its model
 *
 * Zen 4 and Zen 5 are the models arch/x86/kernel/cpu/amd.c (6.12) gives
 * X86_FEATURE_ZEN4 and X86_FEATURE_ZEN5, and "before Zen 4" those of
 * family 0x17 and the Zen 3 ones of 0x19; perf's mapfile.csv agrees for
 * these (it also calls family 0x19 models 0x30-0x3f Zen 4, amd.c Zen 3:
 * they are left out).
 *
 * Return: the model's table, or one whose events are NULL and whose
 * absent says why.
 */
const struct embm_unc_model *embm_unc_model(const char *vendor, int family, int model)
{
	if (!strcmp(vendor, "GenuineIntel") && family == 6) {
		switch (model) {
		case 0x8f:
			return &models[SPR];
		case 0xcf:
			return &models[EMR];
		case 0xad:
		case 0xae:
			return &models[GNR];
		case 0xaf:
			return &models[SRF];
		case 0xb6:
			return &models[GRR];
		case 0xdd:
			return &models[CWF];
		}
	}
	if (strcmp(vendor, "AuthenticAMD"))
		return &models[OTHER];
	if (family == 0x19 && (between(model, 0x10, 0x1f) || between(model, 0x60, 0xaf)))
		return &models[ZEN4];
	if (family == 0x1a && (between(model, 0x00, 0x2f) || between(model, 0x40, 0x4f) ||
			       between(model, 0x60, 0x7f) || between(model, 0xd0, 0xd7)))
		return &models[ZEN5];
	if (family == 0x17 || (family == 0x19 && (between(model, 0x00, 0x0f) ||
						  between(model, 0x20, 0x5f))))
		return &models[AMD_OTHER];
	return &models[OTHER];
}

/* The model of the CPU described by @path (/proc/cpuinfo's format). */
const struct embm_unc_model *embm_unc_model_cpuinfo(const char *path)
{
	char line[256], vendor[32] = "";
	int family = -1, model = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return &models[OTHER];
	while (fgets(line, sizeof(line), f) && (family < 0 || model < 0 || !*vendor)) {
		/* A line that does not match leaves its figure unset. */
		if (!*vendor && sscanf(line, "vendor_id : %31s", vendor) != 1)
			*vendor = 0;
		if (family < 0 && sscanf(line, "cpu family : %d", &family) != 1)
			family = -1;
		if (model < 0 && !strncmp(line, "model\t", 6) &&
		    sscanf(line, "model : %d", &model) != 1)
			model = -1;
	}
	fclose(f);
	return embm_unc_model(vendor, family, model);
}

/* "0,56" or "0-1" -> CPUs; returns how many, at most @max. */
static int parse_cpulist(const char *s, int *cpus, int max)
{
	int n = 0, a, b, len;

	while (n < max && sscanf(s, "%d%n", &a, &len) == 1) {
		s += len;
		b = a;
		if (*s == '-' && sscanf(s + 1, "%d%n", &b, &len) == 1)
			s += 1 + len;
		for (; a <= b && n < max; a++)
			cpus[n++] = a;
		if (*s != ',')
			break;
		s++;
	}
	return n;
}

static int read_line(const char *dir, const char *name, char *buf, int size)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = !!fgets(buf, size, f);
	fclose(f);
	return ok ? 0 : -1;
}

static int cmp_pmu(const void *a, const void *b)
{
	const struct embm_unc_pmu *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	/* uncore_cha_2 before uncore_cha_10 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name, y->name);
}

/* The name of @unit's PMUs, before any _<N>: uncore_<unit>, or an "amd_" unit itself. */
static void unc_pmu_base(const char *unit, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", strncmp(unit, "amd_", 4) ? "uncore_" : "", unit);
}

/**
 * embm_unc_find() - the PMUs of one unit type, by the names the kernel gives
 * @root: the event-source directory (EMBM_UNC_SYSFS, or a test's tree)
 * @unit: "cha", "imc", "cxlcm", "cxldp": PMUs named uncore_<unit> or
 *	  uncore_<unit>_<N> (Intel); "amd_l3", "amd_umc": PMUs named <unit>
 *	  or <unit>_<N> (amd_l3 is one PMU, amd_umc_0.. one a memory
 *	  controller)
 * @pmus: set to an array, to be freed, of each one's type and the CPUs of
 *	  its cpumask (one a die that has the unit, or one an L3 for
 *	  amd_l3), in box order
 *
 * Return: how many were found (0: none, e.g. in a VM; @pmus is NULL then).
 */
int embm_unc_find(const char *root, const char *unit, struct embm_unc_pmu **pmus)
{
	char prefix[64], dir[512], buf[1024];
	struct embm_unc_pmu *p = NULL, *q;
	size_t plen;
	struct dirent *d;
	DIR *dp = opendir(root);
	int n = 0;

	*pmus = NULL;
	if (!dp)
		return 0;
	unc_pmu_base(unit, prefix, sizeof(prefix));
	plen = strlen(prefix);
	while ((d = readdir(dp))) {
		const char *rest = d->d_name + plen;

		if (strncmp(d->d_name, prefix, plen) ||
		    (*rest && (*rest != '_' || !rest[1] || strspn(rest + 1, "0123456789") !=
							   strlen(rest + 1))))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, d->d_name);
		if (read_line(dir, "type", buf, sizeof(buf)))
			continue;
		q = realloc(p, (n + 1) * sizeof(*p));
		if (!q)
			break;
		p = q;
		snprintf(p[n].name, sizeof(p[n].name), "%s", d->d_name);
		p[n].type = atoi(buf);
		p[n].nr_cpus = read_line(dir, "cpumask", buf, sizeof(buf)) ? 0 :
			parse_cpulist(buf, p[n].cpus, EMBM_UNC_MAX_DIES);
		n++;
	}
	closedir(dp);
	/* All of them, then in box order: readdir's order is none. */
	if (n)
		qsort(p, n, sizeof(*p), cmp_pmu);
	*pmus = p;
	return n;
}

/**
 * embm_unc_socket_of() - the socket (package) of a CPU
 * @cpus: EMBM_UNC_CPUS, or a test's tree
 * @cpu:  the CPU
 *
 * A PMU's cpumask has a CPU for each die that has the unit (per PMU
 * since Linux 6.11), so its k-th CPU is not socket k: each is put in its
 * package by its topology.
 *
 * Return: the CPU's physical_package_id, or -1 if unknown.
 */
int embm_unc_socket_of(const char *cpus, int cpu)
{
	char name[64], buf[32];

	snprintf(name, sizeof(name), "cpu%d/topology/physical_package_id", cpu);
	if (read_line(cpus, name, buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

const char *embm_unc_tier_name(enum embm_unc_tier t)
{
	return t == EMBM_UNC_DRAM ? "DRAM" : t == EMBM_UNC_CXL ? "CXL" : "rDRAM";
}

/* Per socket and tier: sums of rates, and whether each could be had. */
struct unc_sums {
	double rd, wr;		/* bytes a second */
	double in_tor, ins_ns;	/* sum of mean requests in flight; of requests a ns */
	double lat_run, lat_en;	/* time the latency groups ran, were enabled */
	bool has_rd, has_wr, has_lat;
	bool lost_rd, lost_wr;	/* a box's event never ran */
	bool any_bw;
	double least;		/* least share of time a bandwidth event ran */
};

/* Add @bps, read or written, to @t; a box's event that never ran loses the figure. */
static void unc_bytes(struct unc_sums *t, bool write, double bps, double ratio, bool ran)
{
	if (write) {
		t->wr += bps;
		t->has_wr = true;
		t->lost_wr |= !ran;
	} else {
		t->rd += bps;
		t->has_rd = true;
		t->lost_rd |= !ran;
	}
	t->any_bw = true;
	if (ratio < t->least)
		t->least = ratio;
}

/*
 * Add one group's counts to @sums[tier]: each count as its rate while it
 * ran (value / time running), which is the multiplexing scale and its own
 * time base at once.  A latency group adds its box's Little's-law terms,
 * the mean number of requests in flight and the requests a ns: a group of
 * occupancy, inserts and clock gives them as occupancy / clock and
 * inserts / time running; a group of sampled latency sums and requests
 * (any number of pairs, of one tier) as the sum in ns / time running and
 * requests / time running, whose quotient is the sum over the requests.
 */
static void unc_add(const struct embm_unc_model *m, const struct embm_unc_count *c,
		    struct unc_sums *sums)
{
	double ratio = c->enabled ? (double)c->running / c->enabled : 0;
	bool ran = c->running > 0;
	double occ = 0, ins = 0, clk = 0, lat_sum = 0, lat_req = 0;
	int k, nr_occ = 0, nr_ins = 0, nr_clk = 0, nr_sum = 0, nr_req = 0;
	struct unc_sums *lat = NULL;

	for (k = 0; k < c->nr && c->event + k < m->nr_events; k++) {
		const struct embm_unc_event *ev = &m->events[c->event + k];
		struct unc_sums *t = &sums[ev->tier];
		double rate = ran ? c->value[k] / (c->running / 1e9) : 0;

		if (ev->role == EMBM_UNC_RD || ev->role == EMBM_UNC_RD_INS)
			unc_bytes(t, false, rate * ev->scale, ratio, ran);
		else if (ev->role == EMBM_UNC_WR)
			unc_bytes(t, true, rate * ev->scale, ratio, ran);
		if (ev->role == EMBM_UNC_INS || ev->role == EMBM_UNC_RD_INS) {
			ins = c->value[k];
			nr_ins++;
		} else if (ev->role == EMBM_UNC_OCC) {
			occ = c->value[k];
			nr_occ++;
			lat = t;
		} else if (ev->role == EMBM_UNC_CLK) {
			clk = c->value[k];
			nr_clk++;
		} else if (ev->role == EMBM_UNC_LAT_SUM) {
			lat_sum += c->value[k] * ev->scale;
			nr_sum++;
			lat = t;
		} else if (ev->role == EMBM_UNC_LAT_REQ) {
			lat_req += c->value[k];
			nr_req++;
		}
	}
	if (!lat)
		return;
	if (nr_occ == 1 && nr_ins == 1 && nr_clk == 1 && !nr_sum && !nr_req) {
		/* The boxes that ran stand for all: the TOR is hashed over the CHAs. */
		if (ran && clk > 0) {
			lat->in_tor += occ / clk;
			lat->ins_ns += ins / c->running;
		}
	} else if (nr_sum && nr_sum == nr_req && !nr_occ && !nr_ins && !nr_clk) {
		/* Each L3 stands for its own cores: the socket's are summed. */
		if (ran) {
			lat->in_tor += lat_sum / c->running;
			lat->ins_ns += lat_req / c->running;
		}
	} else {
		return;
	}
	lat->has_lat = true;
	lat->lat_run += c->running;
	lat->lat_en += c->enabled;
}

/**
 * embm_unc_compute() - bandwidth and latency per socket and tier
 * @m:          the model whose events were counted
 * @nr_sockets: sockets counted
 * @counts:     the groups' counts (or what they grew by), times in ns
 * @nr:         how many
 * @r:          the result: GB/s read and written, and the mean time a
 *		demand read spent in the TOR, in ns, from Little's law over
 *		the socket's CHAs: the sum of their mean occupancies (requests)
 *		over the sum of their insert rates (requests a ns), each CHA's
 *		terms from one group; or (AMD) the mean latency of the
 *		socket's sampled L3 misses, the sum of its L3s' latency sums
 *		over the sum of their requests, each as a rate of its group.
 *		-1 where the table has no event, a
 *		bandwidth event of a box never ran, or no latency group ran
 *		or saw an insert.  The shares of time: the least of the
 *		bandwidth events', and that of the latency groups' time
 *		enabled they ran; -1 without such events.
 */
void embm_unc_compute(const struct embm_unc_model *m, int nr_sockets,
		      const struct embm_unc_count *counts, int nr, struct embm_unc_result *r)
{
	struct unc_sums sums[EMBM_UNC_MAX_SOCKETS][EMBM_UNC_TIERS] = { };
	int s, t, i;

	memset(r, 0, sizeof(*r));
	if (nr_sockets > EMBM_UNC_MAX_SOCKETS)
		nr_sockets = EMBM_UNC_MAX_SOCKETS;
	r->nr_sockets = nr_sockets;
	for (s = 0; s < nr_sockets; s++)
		for (t = 0; t < EMBM_UNC_TIERS; t++)
			sums[s][t].least = 1;
	for (i = 0; i < nr; i++)
		if (counts[i].socket >= 0 && counts[i].socket < nr_sockets)
			unc_add(m, &counts[i], sums[counts[i].socket]);
	for (s = 0; s < nr_sockets; s++) {
		r->socket_id[s] = s;
		for (t = 0; t < EMBM_UNC_TIERS; t++) {
			struct embm_unc_tier_result *tr = &r->tier[s][t];
			const struct unc_sums *u = &sums[s][t];

			tr->rd_gbps = u->has_rd && !u->lost_rd ? u->rd / 1e9 : -1;
			tr->wr_gbps = u->has_wr && !u->lost_wr ? u->wr / 1e9 : -1;
			tr->lat_ns = u->has_lat && u->ins_ns > 0 ? u->in_tor / u->ins_ns : -1;
			tr->running = u->any_bw ? u->least : -1;
			tr->lat_running = !u->has_lat ? -1 :
					  u->lat_en > 0 ? u->lat_run / u->lat_en : 0;
		}
	}
}

static void print_figure(FILE *f, double v, const char *fmt, int width)
{
	if (v < 0)
		fprintf(f, " %*s", width, "-");
	else
		fprintf(f, fmt, v);
}

/**
 * embm_unc_print() - the bandwidth section of a report
 * @f: where to
 * @m: the model counted
 * @r: its figures; "-" for one unavailable.  bw_run is the least share of
 *     the time a bandwidth event ran when perf multiplexed them, lat_run
 *     the share the latency's groups ran.  rmt_lat_ns is the latency of
 *     the socket's reads from other sockets' DRAM, whose bandwidth is in
 *     the DRAM rows of those sockets.  The model's note, if it has one,
 *     follows the header.
 */
void embm_unc_print(FILE *f, const struct embm_unc_model *m, const struct embm_unc_result *r)
{
	int s, t;

	fprintf(f, "bandwidth (uncore, %s):\n", m->name);
	if (m->note)
		fprintf(f, "  (%s)\n", m->note);
	fprintf(f, "  %6s %5s %9s %9s %7s %9s %7s %10s %7s\n", "socket", "tier", "rd_GB/s",
		"wr_GB/s", "bw_run", "rd_lat_ns", "lat_run", "rmt_lat_ns", "rmt_run");
	for (s = 0; s < r->nr_sockets; s++) {
		for (t = 0; t < EMBM_UNC_RDRAM; t++) {
			const struct embm_unc_tier_result *tr = &r->tier[s][t];
			const struct embm_unc_tier_result *rmt = &r->tier[s][EMBM_UNC_RDRAM];
			bool dram = t == EMBM_UNC_DRAM;

			fprintf(f, "  %6d %5s", r->socket_id[s], embm_unc_tier_name(t));
			print_figure(f, tr->rd_gbps, " %9.2f", 9);
			print_figure(f, tr->wr_gbps, " %9.2f", 9);
			print_figure(f, tr->running * 100, " %6.0f%%", 7);
			print_figure(f, tr->lat_ns, " %9.1f", 9);
			print_figure(f, tr->lat_running * 100, " %6.0f%%", 7);
			print_figure(f, dram ? rmt->lat_ns : -1, " %10.1f", 10);
			print_figure(f, dram ? rmt->lat_running * 100 : -1, " %6.0f%%", 7);
			fprintf(f, "\n");
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/**
 * embm_unc_close() - close a session's events
 * @u: a session embm_unc_open() filled in; keeps its model and reasons
 */
void embm_unc_close(struct embm_unc_session *u)
{
	int i, k;

	for (i = 0; i < u->nr; i++)
		for (k = 0; k < EMBM_UNC_GROUP_MAX; k++)
			if (u->c[i].fd[k] >= 0)
				close(u->c[i].fd[k]);
	free(u->c);
	u->c = NULL;
	u->nr = 0;
}

/* Keep the first reason (of those since @buf was cleared): it says what kind. */
static void note(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (*buf)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

#define NOTE(u, ...)	note((u)->note, sizeof((u)->note), __VA_ARGS__)

/*
 * Open one group of the model's events @e.. (@nr of them) on @pmu's @cpu,
 * for socket @s, disabled until embm_unc_enable().  A group perf refuses
 * is kept closed (its figures are unavailable and the note says why);
 * the others stand.
 */
static void unc_open_group(struct embm_unc_session *u, int e, int nr,
			   const struct embm_unc_pmu *pmu, int cpu, int s)
{
	const struct embm_unc_event *ev = &u->model->events[e];
	struct embm_unc_counter *c = &u->c[u->nr++];
	int k;

	memset(c, 0, sizeof(*c));
	c->last = (struct embm_unc_count){ .event = e, .nr = nr, .socket = s };
	c->cpu = cpu;
	for (k = 0; k < EMBM_UNC_GROUP_MAX; k++)
		c->fd[k] = -1;
	for (k = 0; k < nr; k++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = pmu->type,
			.config = ev[k].config,
			.disabled = !k,
			.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
		};

		if (u->sys->perf_open)
			c->fd[k] = u->sys->perf_open(&attr, cpu, k ? c->fd[0] : -1);
		else
			c->fd[k] = syscall(SYS_perf_event_open, &attr, -1, cpu, k ? c->fd[0] : -1,
					   PERF_FLAG_FD_CLOEXEC);
		if (c->fd[k] < 0) {
			/* @why: perf's first refusal, the reason if all are refused */
			note(u->why, sizeof(u->why), "cannot count %.64s on %.64s, CPU %d: %s",
			     ev[k].name, pmu->name, cpu, strerror(errno));
			NOTE(u, "%s", u->why);
			for (k--; k >= 0; k--) {
				close(c->fd[k]);
				c->fd[k] = -1;
			}
			return;
		}
	}
}

/* The index of @pkg in the session's sockets, added if new; -1 if full. */
static int socket_index(struct embm_unc_session *u, int pkg)
{
	int s;

	for (s = 0; s < u->nr_sockets; s++)
		if (u->socket_id[s] == pkg)
			return s;
	if (u->nr_sockets == EMBM_UNC_MAX_SOCKETS)
		return -1;
	u->socket_id[u->nr_sockets] = pkg;
	return u->nr_sockets++;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/**
 * embm_unc_group_size() - the events of one perf group of a model
 * @m: the model
 * @e: the group's first event
 *
 * Return: how many events, from @e, embm_unc_open() opens as one group:
 * @e and those of its unit and group that follow it, at most
 * EMBM_UNC_GROUP_MAX; 1 for an event counted alone.
 */
int embm_unc_group_size(const struct embm_unc_model *m, int e)
{
	const struct embm_unc_event *ev = m->events;
	int n = 1;

	while (ev[e].group && e + n < m->nr_events && n < EMBM_UNC_GROUP_MAX &&
	       ev[e + n].group == ev[e].group && !strcmp(ev[e + n].unit, ev[e].unit))
		n++;
	return n;
}

/*
 * Raise the soft limit of open files as perf does: a 2-socket server has
 * hundreds of boxes.  Say so if the hard limit is too low.
 */
static void unc_nofile(struct embm_unc_session *u, int fds)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)fds + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) || (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want))
		NOTE(u, "%d uncore events need more open files than RLIMIT_NOFILE's %llu", fds,
		     (unsigned long long)rl.rlim_max);
}

const struct embm_unc_sys embm_unc_system = {
	.evsrc = EMBM_UNC_SYSFS, .cpus = EMBM_UNC_CPUS, .cpuinfo = "/proc/cpuinfo",
};

/* The first group of @e's unit: it owns the unit's list of PMUs. */
static int unc_first_of_unit(const struct embm_unc_model *m, int e)
{
	int f;

	for (f = 0; f < e; f += embm_unc_group_size(m, f))
		if (!strcmp(m->events[f].unit, m->events[e].unit))
			return f;
	return e;
}

/*
 * The PMUs of each group's unit (@pmus[e], @nr_pmus[e] for a group that
 * starts at @e; the unit's first group owns them), with the socket of each
 * CPU in their cpumasks (-1: none); @u's sockets, in package order.  One
 * scan of sysfs a unit: what opens is what was counted here.  Return: how
 * many groups to open, and in @fds their events.
 */
static int unc_plan(struct embm_unc_session *u, const struct embm_unc_sys *sys,
		    struct embm_unc_pmu **pmus, int *nr_pmus, int *fds)
{
	const struct embm_unc_model *m = u->model;
	int e, n, b, i, pkg, groups = 0;

	for (e = 0; e < m->nr_events; e += n) {
		int first = unc_first_of_unit(m, e);

		n = embm_unc_group_size(m, e);
		if (first < e) {
			/* The unit's PMUs and sockets are known: count its groups. */
			pmus[e] = pmus[first];
			nr_pmus[e] = nr_pmus[first];
			for (b = 0; b < nr_pmus[e]; b++)
				for (i = 0; i < pmus[e][b].nr_cpus; i++)
					if (pmus[e][b].pkgs[i] >= 0) {
						*fds += n;
						groups++;
					}
			continue;
		}
		nr_pmus[e] = embm_unc_find(sys->evsrc, m->events[e].unit, &pmus[e]);
		for (b = 0; b < nr_pmus[e]; b++) {
			struct embm_unc_pmu *p = &pmus[e][b];

			for (i = 0; i < p->nr_cpus; i++) {
				pkg = embm_unc_socket_of(sys->cpus, p->cpus[i]);
				if (pkg < 0 || socket_index(u, pkg) < 0) {
					NOTE(u, "cannot tell the socket of %.64s's CPU %d: %s",
					     p->name, p->cpus[i], pkg < 0 ?
					     "no physical_package_id" : "too many sockets");
					p->pkgs[i] = -1;
					continue;
				}
				p->pkgs[i] = pkg;
				*fds += n;
				groups++;
			}
		}
	}
	qsort(u->socket_id, u->nr_sockets, sizeof(int), cmp_int);
	return groups;
}

/* The units embm looks for when a model has no table: whether it has uncore PMUs at all. */
static const char *const unc_known_units[] = { "cha", "imc", "cxlcm", "amd_l3", "amd_umc" };

/*
 * How many PMUs of the units of @m's table (or, without one, of any unit
 * embm knows of its vendor) @evsrc has; @names, their names as globs, and
 * in @why_not, what keeps them away if not a VM.
 */
static int unc_any_pmu(const struct embm_unc_model *m, const char *evsrc, char *names,
		       size_t size, const char **why_not)
{
	int e, nr = m->events ? m->nr_events : (int)ARRAY_SIZE(unc_known_units);
	bool intel = false, amd = false;
	struct embm_unc_pmu *p;
	size_t len = 0;
	char base[64];
	int found = 0;

	*names = 0;
	for (e = 0; e < nr; e++) {
		const char *unit = m->events ? m->events[e].unit : unc_known_units[e];
		bool is_amd = !strncmp(unit, "amd_", 4);

		if (m->events ? unc_first_of_unit(m, e) != e :
		    m == &models[AMD_OTHER] && !is_amd)
			continue;
		found += embm_unc_find(evsrc, unit, &p);
		free(p);
		amd |= is_amd;
		intel |= !is_amd;
		unc_pmu_base(unit, base, sizeof(base));
		if (len < size)
			len += snprintf(names + len, size - len, "%s%s*", len ? ", " : "", base);
	}
	*why_not = !amd ? "the intel_uncore module is not loaded" :
		   !intel ? "the kernel has no AMD uncore PMUs (amd_umc_*: 6.7 on)" :
		   "no uncore driver is loaded";
	return found;
}

/* Fail the open: @u says why and holds nothing. */
static int unc_fail(struct embm_unc_session *u)
{
	embm_unc_close(u);
	u->model = NULL;
	if (!*u->why)
		snprintf(u->why, sizeof(u->why), "no uncore event could be opened");
	return -1;
}

/**
 * embm_unc_open() - open the model's uncore events on every socket
 * @u:   the session, filled in
 * @sys: where to look: &embm_unc_system, or a test's trees
 *
 * Counting events, each group once per box and per CPU of the box's
 * cpumask, a perf group per box for each latency: perf's rules for
 * CPU-wide events apply (perf_event_paranoid, CAP_PERFMON).  A group perf
 * refuses costs its own figures only (@u->note says which and why).  They
 * count from embm_unc_enable() on.
 *
 * Return: 0, or -1 with @u->why saying why there is no bandwidth at all.
 */
int embm_unc_open(struct embm_unc_session *u, const struct embm_unc_sys *sys)
{
	struct embm_unc_pmu *pmus[EMBM_UNC_MAX_EVENTS] = { };
	int nr_pmus[EMBM_UNC_MAX_EVENTS] = { };
	const struct embm_unc_model *m;
	struct embm_unc_pmu *p;
	int e, n, b, i, fds = 0, groups, found, opened = 0;
	const char *why_not;
	char names[128];

	memset(u, 0, sizeof(*u));
	u->sys = sys;
	m = sys->model ? sys->model : embm_unc_model_cpuinfo(sys->cpuinfo);
	found = unc_any_pmu(m, sys->evsrc, names, sizeof(names), &why_not);
	if (!found) {
		snprintf(u->why, sizeof(u->why),
			 "no uncore PMU (%s) in %.64s: VMs and QEMU have none, or %s", names,
			 sys->evsrc, why_not);
		return -1;
	}
	if (!m->events || m->nr_events > EMBM_UNC_MAX_EVENTS) {
		snprintf(u->why, sizeof(u->why), "%s: %s", m->name,
			 m->events ? "too many events" : m->absent);
		return -1;
	}
	u->model = m;
	groups = unc_plan(u, sys, pmus, nr_pmus, &fds);
	if (!groups) {
		snprintf(u->why, sizeof(u->why),
			 "the uncore PMUs in %.64s list no CPU of a known socket%s%.128s",
			 sys->evsrc, *u->note ? ": " : "", u->note);
		goto out;
	}
	unc_nofile(u, fds);
	u->c = calloc(groups, sizeof(*u->c));
	if (!u->c) {
		snprintf(u->why, sizeof(u->why), "out of memory");
		goto out;
	}
	for (e = 0; e < m->nr_events; e += n) {
		n = embm_unc_group_size(m, e);
		for (b = 0; b < nr_pmus[e]; b++) {
			p = &pmus[e][b];
			for (i = 0; i < p->nr_cpus && u->nr < groups; i++)
				if (p->pkgs[i] >= 0)
					unc_open_group(u, e, n, p, p->cpus[i],
						       socket_index(u, p->pkgs[i]));
		}
	}
	for (i = 0; i < u->nr; i++)
		opened += u->c[i].fd[0] >= 0;
	if (opened)
		*u->why = 0;
out:
	for (e = 0; e < m->nr_events; e += embm_unc_group_size(m, e))
		if (unc_first_of_unit(m, e) == e)
			free(pmus[e]);
	if (!opened) {
		*u->note = 0;
		return unc_fail(u);
	}
	return 0;
}

/**
 * embm_unc_enable() - start counting
 * @u: a session embm_unc_open() opened
 *
 * Every group at once, as close as may be to the start of what is
 * measured: embm-run calls it right before the command may exec.
 */
void embm_unc_enable(struct embm_unc_session *u)
{
	int i;

	for (i = 0; i < u->nr; i++)
		if (u->c[i].fd[0] >= 0)
			ioctl(u->c[i].fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	u->t0 = now();
	u->t_last = u->t0;
}

/**
 * embm_unc_read() - the session's figures so far
 * @u:          a session embm_unc_open() opened
 * @r:          its figures
 * @since_last: over the time since the last read (live views), rather
 *		than since embm_unc_enable()
 *
 * A group that cannot be read counts as never having run;
 * @u->read_note says why, until the next read.
 *
 * Return: 0, or -1 if @u has no events.
 */
int embm_unc_read(struct embm_unc_session *u, struct embm_unc_result *r, bool since_last)
{
	struct embm_unc_count *d;
	double t = now();
	int i, k, s;

	memset(r, 0, sizeof(*r));
	if (!u->model || !u->c)
		return -1;
	d = calloc(u->nr, sizeof(*d));
	if (!d)
		return -1;
	*u->read_note = 0;
	u->seconds = t - (since_last ? u->t_last : u->t0);
	u->t_last = t;
	for (i = 0; i < u->nr; i++) {
		struct embm_unc_counter *c = &u->c[i];
		uint64_t v[3 + EMBM_UNC_GROUP_MAX];
		ssize_t want = (3 + c->last.nr) * sizeof(uint64_t);

		d[i] = (struct embm_unc_count){
			.event = c->last.event, .nr = c->last.nr, .socket = c->last.socket
		};
		if (c->fd[0] < 0)
			continue;
		errno = 0;
		if ((u->sys->perf_read ? u->sys->perf_read(c->fd[0], v, want) :
		     read(c->fd[0], v, want)) != want || v[0] != (uint64_t)c->last.nr) {
			note(u->read_note, sizeof(u->read_note), "cannot read %.64s on CPU %d: %s",
			     u->model->events[c->last.event].name, c->cpu,
			     strerror(errno ? errno : EIO));
			continue;
		}
		d[i].enabled = v[1] - (since_last ? c->last.enabled : 0);
		d[i].running = v[2] - (since_last ? c->last.running : 0);
		for (k = 0; k < c->last.nr; k++)
			d[i].value[k] = v[3 + k] - (since_last ? c->last.value[k] : 0);
		c->last.enabled = v[1];
		c->last.running = v[2];
		memcpy(c->last.value, v + 3, c->last.nr * sizeof(uint64_t));
	}
	embm_unc_compute(u->model, u->nr_sockets, d, u->nr, r);
	for (s = 0; s < u->nr_sockets; s++)
		r->socket_id[s] = u->socket_id[s];
	free(d);
	return 0;
}

static void json_figure(FILE *f, const char *name, double v)
{
	if (v < 0 || !isfinite(v))
		fprintf(f, ", \"%s\": null", name);
	else
		fprintf(f, ", \"%s\": %.3f", name, v);
}

/* What could not be counted, at the open and at the last read: "" if all. */
static const char *unc_notes(const struct embm_unc_session *u, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", u->note, *u->note && *u->read_note ? "; " : "",
		 u->read_note);
	return buf;
}

/**
 * embm_unc_report() - the bandwidth part of a report
 * @f:    where to
 * @u:    the session; no model: unavailable, and why
 * @r:    its figures, when it has a model (embm_unc_read())
 * @json: as JSON members ("bandwidth" and "bandwidth_unavailable", with a
 *	  leading comma) rather than text
 */
void embm_unc_report(FILE *f, const struct embm_unc_session *u, const struct embm_unc_result *r,
		     bool json)
{
	char notes[sizeof(u->note) + sizeof(u->read_note) + 2];
	int s, t;

	if (!u->model) {
		if (!json) {
			fprintf(f, "bandwidth: unavailable: %s\n", u->why);
			return;
		}
		fprintf(f, ",\n \"bandwidth\": null, \"bandwidth_unavailable\": ");
		embm_json_str(f, u->why);
		return;
	}
	unc_notes(u, notes, sizeof(notes));
	if (!json) {
		embm_unc_print(f, u->model, r);
		if (*notes)
			fprintf(f, "  some figures unavailable: %s\n", notes);
		return;
	}
	fprintf(f, ",\n \"bandwidth\": {\"model\": ");
	embm_json_str(f, u->model->name);
	fprintf(f, ", \"model_note\": ");
	if (u->model->note)
		embm_json_str(f, u->model->note);
	else
		fprintf(f, "null");
	fprintf(f, ", \"seconds\": %.3f, \"note\": ", u->seconds);
	if (*notes)
		embm_json_str(f, notes);
	else
		fprintf(f, "null");
	fprintf(f, ", \"sockets\": [");
	for (s = 0; s < r->nr_sockets; s++) {
		for (t = 0; t < EMBM_UNC_RDRAM; t++) {
			const struct embm_unc_tier_result *tr = &r->tier[s][t];
			const struct embm_unc_tier_result *rmt = &r->tier[s][EMBM_UNC_RDRAM];
			bool dram = t == EMBM_UNC_DRAM;

			fprintf(f, "%s\n  {\"socket\": %d, \"tier\": \"%s\"", s || t ? "," : "",
				r->socket_id[s], embm_unc_tier_name(t));
			json_figure(f, "rd_gbps", tr->rd_gbps);
			json_figure(f, "wr_gbps", tr->wr_gbps);
			json_figure(f, "running", tr->running);
			json_figure(f, "rd_lat_ns", tr->lat_ns);
			json_figure(f, "lat_running", tr->lat_running);
			json_figure(f, "rmt_lat_ns", dram ? rmt->lat_ns : -1);
			json_figure(f, "rmt_lat_running", dram ? rmt->lat_running : -1);
			fprintf(f, "}");
		}
	}
	fprintf(f, " ]}, \"bandwidth_unavailable\": null");
}
