/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tiers (tier.c): the node of a physical address, the tier of a node,
 * and the CXL windows a session follows
 */
#ifndef __MM_EMBM_TIER_H
#define __MM_EMBM_TIER_H

#include <linux/types.h>

struct embm_stats;

/**
 * enum embm_tier - the tier of a memory node, as the reports name it
 * @EMBM_TIER_DRAM: a DRAM node with CPUs, in the top memory tier.
 * @EMBM_TIER_FAR:  memory without CPUs, or below the top tier.
 * @EMBM_TIER_CXL:  memory mostly in a CXL window.
 * @EMBM_NR_TIERS:  how many tiers.
 */
enum embm_tier {
	EMBM_TIER_DRAM,
	EMBM_TIER_FAR,
	EMBM_TIER_CXL,
	EMBM_NR_TIERS,
};

#define EMBM_MAX_WINDOWS	16	/* CXL windows a session follows */

/**
 * struct embm_window - a CXL window (IORES_DESC_CXL) as a session saw it
 * @start:	its first physical address.
 * @end:	its last.
 * @nid:	the node of most of its online System RAM (NUMA_NO_NODE
 *		without any), as of the last scan.
 * @samples:	samples whose physical address lay in it.
 * @device:	of which on pages that are not online System RAM (a devdax
 *		or fsdax namespace, memory being offlined): they count here,
 *		on no node.
 *
 * Windows are named in the reports by their index, "w0" on, in the order
 * the session first saw them (address order at its start).
 */
struct embm_window {
	u64 start;
	u64 end;
	int nid;
	u64 samples;
	u64 device;
};

const char *embm_tier_name(enum embm_tier tier);
void embm_stats_classify_nodes(struct embm_stats *st);
enum embm_tier embm_node_tier(const struct embm_stats *st, int nid);
void __embm_tier_update(struct embm_stats *st);
struct embm_window *embm_window_find(struct embm_stats *st, u64 phys);
int embm_pfn_nid_locked(unsigned long pfn);
int embm_pfn_nid(unsigned long pfn);

#endif /* __MM_EMBM_TIER_H */
