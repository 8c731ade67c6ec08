// SPDX-License-Identifier: GPL-2.0
/*
 * embm: the sources of samples, in the order the automatic choice tries
 * them: the precise hardware sources first, the page-fault source last, as
 * it works everywhere but sees only first touches.  Each source is in its
 * own file: PEBS and IBS in arch/x86/events/embm_{pebs,ibs}.c, swfault in
 * swfault.c.  Read-only data, any context.
 */

#include "embm.h"

const struct embm_source *const embm_sources[EMBM_NR_SOURCES] = {
	[EMBM_SRC_PEBS]		= &embm_src_pebs,
	[EMBM_SRC_IBS]		= &embm_src_ibs,
	[EMBM_SRC_SWFAULT]	= &embm_src_swfault,
};
