// SPDX-License-Identifier: GPL-2.0
/*
 * embm: parsing of the perf records ksamplingd reads
 *
 * Pure functions on a record in memory: no locks, any context.
 */

#include <linux/perf_event.h>
#include <linux/unaligned.h>

#include "record.h"

/* Read the next u64 of a record, or fail when it runs past the end. */
static bool rec_u64(const u8 **p, const u8 *end, u64 *v)
{
	if (end - *p < (long)sizeof(u64))
		return false;
	*v = get_unaligned((const u64 *)*p);
	*p += sizeof(u64);
	return true;
}

/**
 * embm_record_id() - the event id of a PERF_RECORD_SAMPLE
 * @hdr: the record
 *
 * Every embm event samples PERF_SAMPLE_IDENTIFIER, which perf writes first
 * so that the id is found without knowing the event's sample_type.
 *
 * Return: the id, or 0 if @hdr is not a sample or too short.
 */
u64 embm_record_id(const struct perf_event_header *hdr)
{
	const u8 *p = (const u8 *)(hdr + 1), *end = (const u8 *)hdr + hdr->size;
	u64 id;

	if (hdr->type != PERF_RECORD_SAMPLE || !rec_u64(&p, end, &id))
		return 0;
	return id;
}

/**
 * embm_parse_sample() - decode a PERF_RECORD_SAMPLE
 * @hdr:	  the record, hdr->size bytes
 * @sample_type:  the sample_type of the event that wrote it; only the bits
 *		  of EMBM_SAMPLE_TYPE_MAX are understood, and IDENTIFIER
 *		  must be one of them
 * @s:		  filled in; fields the sample_type lacks are 0
 *
 * A record must be exactly what its sample_type says: a record shorter
 * or longer than its fields (a writer and a reader that disagree on the
 * sample_type, or perf's header sizes never computed) is refused rather
 * than read at the wrong offsets.
 *
 * Return: 0; -EINVAL for a record of another type or an unknown
 * sample_type bit; -EBADMSG if the record is not the size its sample_type
 * says.
 */
int embm_parse_sample(const struct perf_event_header *hdr, u64 sample_type,
		      struct embm_sample *s)
{
	const u8 *p = (const u8 *)(hdr + 1), *end = (const u8 *)hdr + hdr->size;
	u64 v;

	memset(s, 0, sizeof(*s));
	if (hdr->type != PERF_RECORD_SAMPLE || (sample_type & ~EMBM_SAMPLE_TYPE_MAX) ||
	    !(sample_type & PERF_SAMPLE_IDENTIFIER))
		return -EINVAL;

	s->user = (hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER;
	/* The order is perf_output_sample()'s. */
	if (!rec_u64(&p, end, &s->id))
		return -EBADMSG;
	if (sample_type & PERF_SAMPLE_TID) {
		if (!rec_u64(&p, end, &v))
			return -EBADMSG;
		s->pid = lower_32_bits(v);
		s->tid = upper_32_bits(v);
	}
	if ((sample_type & PERF_SAMPLE_TIME) && !rec_u64(&p, end, &s->time))
		return -EBADMSG;
	if ((sample_type & PERF_SAMPLE_ADDR) && !rec_u64(&p, end, &s->addr))
		return -EBADMSG;
	if (sample_type & PERF_SAMPLE_CPU) {
		if (!rec_u64(&p, end, &v))
			return -EBADMSG;
		s->cpu = lower_32_bits(v);
	}
	if ((sample_type & PERF_SAMPLE_PERIOD) && !rec_u64(&p, end, &s->period))
		return -EBADMSG;
	if (sample_type & PERF_SAMPLE_RAW) {
		u32 size;

		/* u32 size, then size bytes that end on a u64 boundary. */
		if (end - p < (long)sizeof(u32))
			return -EBADMSG;
		size = get_unaligned((const u32 *)p);
		p += sizeof(u32);
		if (end - p < (long)size || (sizeof(u32) + size) % sizeof(u64))
			return -EBADMSG;
		s->raw = size ? p : NULL;
		s->raw_size = size;
		p += size;
	}
	if (sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (!rec_u64(&p, end, &v))
			return -EBADMSG;
		/* union perf_sample_weight: var1_dw is the latency. */
		s->weight = ((union perf_sample_weight){ .full = v }).var1_dw;
	}
	if ((sample_type & PERF_SAMPLE_DATA_SRC) && !rec_u64(&p, end, &s->data_src))
		return -EBADMSG;
	if ((sample_type & PERF_SAMPLE_PHYS_ADDR) && !rec_u64(&p, end, &s->phys))
		return -EBADMSG;
	return p == end ? 0 : -EBADMSG;
}

/*
 * Fields of perf_mem_data_src that Linux 7.0 adds for Diamond Rapids'
 * off-module response (commit d2bdcde9626c, "perf/x86/intel: Add support
 * for PEBS memory auxiliary info field in DMR"): mem_region, bits 46-50,
 * in what 6.12 calls mem_rsvd, so read by shift; and level L0.  A 6.12
 * kernel never writes them (it refuses PEBS on DMR); a rebased one does.
 */
#define EMBM_MEM_REGION(d)	(((d) >> 46) & 0x1f)
#define EMBM_MEM_REGION_MMIO	0x07	/* PERF_MEM_REGION_MMIO */
#define EMBM_MEM_LVLNUM_L0	0x07	/* PERF_MEM_LVLNUM_L0 */

/**
 * embm_served_by() - what served an access, from its perf_mem_data_src
 * @data_src: the sample's data source; 0 when it has none
 *
 * The level number (mem_lvl_num) where the driver sets one: Intel's load
 * latency decoding and AMD IBS set it; then the older mem_lvl bits.  A
 * level that missed (an L3 miss of unknown destination) says nothing of
 * where the data came from.
 *
 * Diamond Rapids (Linux 7.0) says memory as LVLNUM_RAM with a memory
 * region 0-7 whose meaning the platform sets (none is named CXL: the
 * physical address decides the tier), and MMIO as LVLNUM_RAM with region
 * MMIO, which is not memory.
 *
 * Return: EMBM_SERVED_MEM for DRAM, PMEM or CXL, local or remote, and
 * for uncached accesses; EMBM_SERVED_CACHE for a cache hit anywhere (a
 * memory-side cache included); else EMBM_SERVED_UNKNOWN (I/O, MMIO, a
 * level that missed, no level).
 */
enum embm_served embm_served_by(u64 data_src)
{
	union perf_mem_data_src d = { .val = data_src };
	const u64 ram = PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1 |
			PERF_MEM_LVL_REM_RAM2;
	const u64 cache = PERF_MEM_LVL_L1 | PERF_MEM_LVL_LFB | PERF_MEM_LVL_L2 |
			  PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 |
			  PERF_MEM_LVL_REM_CCE2;

	if (!data_src || EMBM_MEM_REGION(data_src) == EMBM_MEM_REGION_MMIO)
		return EMBM_SERVED_UNKNOWN;
	switch (d.mem_lvl_num) {
	case PERF_MEM_LVLNUM_RAM:
	case PERF_MEM_LVLNUM_PMEM:
	case PERF_MEM_LVLNUM_CXL:
	case PERF_MEM_LVLNUM_UNC:	/* uncached: straight to memory */
		return EMBM_SERVED_MEM;
	case EMBM_MEM_LVLNUM_L0:
	case PERF_MEM_LVLNUM_L1:
	case PERF_MEM_LVLNUM_L2:
	case PERF_MEM_LVLNUM_L3:
	case PERF_MEM_LVLNUM_L4:
	case PERF_MEM_LVLNUM_L2_MHB:
	case PERF_MEM_LVLNUM_MSC:
	case PERF_MEM_LVLNUM_ANY_CACHE:
	case PERF_MEM_LVLNUM_LFB:
		return d.mem_lvl & PERF_MEM_LVL_MISS ? EMBM_SERVED_UNKNOWN :
						       EMBM_SERVED_CACHE;
	case 0:
	case PERF_MEM_LVLNUM_NA:
		break;
	default:		/* I/O */
		return EMBM_SERVED_UNKNOWN;
	}
	if (d.mem_lvl & PERF_MEM_LVL_MISS)
		return EMBM_SERVED_UNKNOWN;
	if (d.mem_lvl & (ram | PERF_MEM_LVL_UNC))
		return EMBM_SERVED_MEM;
	if ((d.mem_lvl & PERF_MEM_LVL_HIT) && (d.mem_lvl & cache))
		return EMBM_SERVED_CACHE;
	return EMBM_SERVED_UNKNOWN;
}

/**
 * embm_lat_drop() - whether a sample's latency counts, from its data source
 * @data_src: the sample's data source; 0 when it has none
 *
 * The latency figures are of the accesses memory served, and the node is
 * the physical address's: the data source must rule out a cache, I/O and
 * an uncached access, and say memory or an L3 miss, not name the memory.
 * A level that missed L3 with no destination (Intel's dse 0x0, perhaps
 * CXL) keeps its latency; a source that says nothing does not.
 *
 * Context: any.
 * Return: an enum embm_lat_drop reason, or -1 if the latency counts.
 */
int embm_lat_drop(u64 data_src)
{
	union perf_mem_data_src d = { .val = data_src };
	enum embm_served served = embm_served_by(data_src);

	if (!data_src)
		return EMBM_LAT_UNKNOWN;
	if (served == EMBM_SERVED_CACHE)
		return EMBM_LAT_CACHE;
	if (d.mem_lvl_num == PERF_MEM_LVLNUM_UNC || (d.mem_lvl & PERF_MEM_LVL_UNC))
		return EMBM_LAT_UNCACHED;
	if (d.mem_lvl_num == PERF_MEM_LVLNUM_IO || (d.mem_lvl & PERF_MEM_LVL_IO) ||
	    EMBM_MEM_REGION(data_src) == EMBM_MEM_REGION_MMIO)
		return EMBM_LAT_IO;
	if (served == EMBM_SERVED_MEM)
		return -1;
	/* Missed L3: memory, a remote cache being named apart (dse 0x8-0xd). */
	if ((d.mem_lvl & PERF_MEM_LVL_MISS) &&
	    (d.mem_lvl_num == PERF_MEM_LVLNUM_L3 || (d.mem_lvl & PERF_MEM_LVL_L3)))
		return -1;
	return EMBM_LAT_UNKNOWN;
}

/**
 * embm_parse_throttle() - decode a PERF_RECORD_THROTTLE or _UNTHROTTLE
 * @hdr:    the record
 * @time:   set to when perf throttled or unthrottled the event (its clock)
 * @id:	    set to the id of the event embm opened (its primary id)
 * @stream: set to the id of the event itself: an inherited child's own
 *
 * Return: 0, -EINVAL for a record of another type, -EBADMSG if short.
 */
int embm_parse_throttle(const struct perf_event_header *hdr, u64 *time, u64 *id, u64 *stream)
{
	const u8 *p = (const u8 *)(hdr + 1), *end = (const u8 *)hdr + hdr->size;

	if (hdr->type != PERF_RECORD_THROTTLE && hdr->type != PERF_RECORD_UNTHROTTLE)
		return -EINVAL;
	/* perf_log_throttle(): time, id, stream_id, then the sample id. */
	if (!rec_u64(&p, end, time) || !rec_u64(&p, end, id) || !rec_u64(&p, end, stream))
		return -EBADMSG;
	return 0;
}

/**
 * embm_parse_lost() - decode a PERF_RECORD_LOST or PERF_RECORD_LOST_SAMPLES
 * @hdr:  the record
 * @lost: set to the number of samples lost
 *
 * PERF_RECORD_LOST ({ id, lost }) says the buffer was full;
 * PERF_RECORD_LOST_SAMPLES ({ lost }) that the PMU dropped samples (PEBS).
 *
 * Return: 0, -EINVAL for a record of another type, -EBADMSG if short.
 */
int embm_parse_lost(const struct perf_event_header *hdr, u64 *lost)
{
	const u8 *p = (const u8 *)(hdr + 1), *end = (const u8 *)hdr + hdr->size;
	u64 id;

	switch (hdr->type) {
	case PERF_RECORD_LOST:
		if (!rec_u64(&p, end, &id) || !rec_u64(&p, end, lost))
			return -EBADMSG;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		return rec_u64(&p, end, lost) ? 0 : -EBADMSG;
	default:
		return -EINVAL;
	}
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/record-kunit.h"
#endif
