/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm records (record.c): what perf records say, and what served an
 * access, from its data source
 */
#ifndef __MM_EMBM_RECORD_H
#define __MM_EMBM_RECORD_H

#include <linux/embm.h>
#include <linux/perf_event.h>
#include <linux/types.h>

/**
 * enum embm_served - what served an access, from the sample's data source
 * @EMBM_SERVED_UNKNOWN: no data source, or one that does not say (an L3
 *			 miss of unknown destination, a store past L1).
 * @EMBM_SERVED_CACHE:	 a cache: L1, fill buffer, L2, L3, another core's
 *			 or socket's cache.  Counted apart from the traffic
 *			 to memory.
 * @EMBM_SERVED_MEM:	 memory: DRAM, PMEM or CXL, local or remote, or an
 *			 uncached access.
 */
enum embm_served {
	EMBM_SERVED_UNKNOWN,
	EMBM_SERVED_CACHE,
	EMBM_SERVED_MEM,
};

u64 embm_record_id(const struct perf_event_header *hdr);
int embm_parse_sample(const struct perf_event_header *hdr, u64 sample_type,
		      struct embm_sample *s);
int embm_parse_lost(const struct perf_event_header *hdr, u64 *lost);
int embm_parse_throttle(const struct perf_event_header *hdr, u64 *time, u64 *id, u64 *stream);
enum embm_served embm_served_by(u64 data_src);

/**
 * enum embm_lat_drop - why a sample's latency is left out of the figures
 * @EMBM_LAT_CACHE:	a cache served it: the figures are of memory.
 * @EMBM_LAT_UNCACHED:	an uncached access: AMD documents IbsDcMissLat as
 *			valid only for cacheable loads that missed the data
 *			cache; Intel's is of a path no DRAM load takes.
 * @EMBM_LAT_IO:	I/O served it (Intel dse 0xe).
 * @EMBM_LAT_UNKNOWN:	its data source says neither memory nor a miss of
 *			L3: none at all, "not available" (an IBS DataSrc of
 *			0 or unlisted, Zen 3's erratum 1293 L2 hits), or a
 *			reserved encoding.
 * @EMBM_LAT_NR:	how many reasons.
 *
 * Every other sample with a latency keeps it: its node comes from its
 * physical address, so a load that missed L3 to an unnamed destination
 * (Intel dse 0x0, "L3 miss, source unknown", which is what a CXL-served
 * load may report: no Intel driver names CXL) counts on its node.
 */
enum embm_lat_drop {
	EMBM_LAT_CACHE,
	EMBM_LAT_UNCACHED,
	EMBM_LAT_IO,
	EMBM_LAT_UNKNOWN,
	EMBM_LAT_NR,
};

int embm_lat_drop(u64 data_src);

#endif /* __MM_EMBM_RECORD_H */
