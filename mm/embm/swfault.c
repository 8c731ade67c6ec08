// SPDX-License-Identifier: GPL-2.0
/*
 * embm source "swfault": minor and major page faults with their physical
 * addresses
 *
 * Works with no hardware PMU (QEMU under TCG, most VMs).  A sample is a
 * fault that completed: first touches, copy-on-write, and NUMA hinting
 * faults when kernel.numa_balancing is on, which is how it sees accesses
 * that recur.  The events are direct: embm's overflow handler takes the
 * physical address of the faulting page, mapped by then, where perf would
 * write a record (direct.c).  Samples say nothing of load or store,
 * and carry no latency, nor their period (see below): one sample every
 * period faults of each event, as for hardware events.
 */

#include <linux/embm.h>
#include <linux/init.h>
#include <linux/perf_event.h>

static int embm_swfault_setup(const struct embm_source_args *args,
			      struct embm_event_desc *descs, const char **why)
{
	static const u64 configs[] = {
		PERF_COUNT_SW_PAGE_FAULTS_MIN, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	};
	static const char *const names[] = { "minor-faults", "major-faults" };
	int i;

	for (i = 0; i < ARRAY_SIZE(configs); i++) {
		descs[i] = (struct embm_event_desc){
			.name = names[i],
			.op = EMBM_OP_ANY,
			.attr = {
				.type = PERF_TYPE_SOFTWARE,
				.config = configs[i],
				/*
				 * Not PERF_SAMPLE_PERIOD: with it, perf takes a
				 * sample of every software event whatever the
				 * period (perf_swevent_event()).  ksamplingd
				 * gives each sample the period in force.
				 */
				.sample_type = EMBM_SAMPLE_TYPE & ~PERF_SAMPLE_PERIOD,
				/* Faults taken in the kernel on user memory count too. */
				.exclude_hv = 1,
			},
			/* A sample is its page: no record (direct.c). */
			.direct = true,
			/* A 2 MiB fault maps 512 pages: it counts as 512. */
			.maps_pages = true,
		};
	}
	*why = "page faults need no PMU";
	return ARRAY_SIZE(configs);
}

static const struct embm_source embm_src_swfault = {
	.name		= "swfault",
	.rank		= 100,	/* last: everywhere, but first touches only */
	.period		= 1,
	.store_period	= 1,
	.setup		= embm_swfault_setup,
	.semantics	=
		"samples: completed page faults (first touches, copy-on-write, NUMA hinting), not loads or stores; pages: the 4 KiB pages they mapped (a 2 MiB fault is 512); no latency",
	.unit		= "pages",
	.blind		=
		"re-accesses of mapped pages; page cache read through read()/write(); memory populated by MAP_POPULATE, mlock() or the kernel (GUP); kernel memory; reads of never-written memory (the shared zero page: no address)",
};

/* Offer the source to embm.  Process context, at boot. */
static int __init embm_swfault_init(void)
{
	return embm_register_source(&embm_src_swfault);
}
device_initcall(embm_swfault_init);

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/swfault-kunit.h"
#endif
