// SPDX-License-Identifier: GPL-2.0
/*
 * embm_emu: the device of the sampling PMU that QEMU's TCG plugin emulates
 *
 * A guest that QEMU runs under TCG has no PMU.  embm's TCG plugin
 * (scripts/embm.d/plugin/) sees every load and store the guest executes,
 * with its physical address, and shares a memory file with the guest: BAR 2
 * of an ivshmem-plain PCI device, laid out as include/uapi/linux/embm_emu.h
 * says.  This driver takes that device when BAR 2 starts with the layout's
 * magic and version, and registers the perf PMU of embm_emu.c on it:
 *
 *  - the layout is checked once at probe and kept in the driver: every
 *    count bounded, every region after the header, aligned, within the
 *    BAR and apart from the others.  The plugin must take drv_want.
 *  - each CPU must be QEMU's vCPU of its number (its CPUID rings its own
 *    doorbell), when it comes online and at probe: the plugin counts and
 *    samples by vCPU, and the PMU takes a vCPU's slots and ring as its
 *    CPU's.
 *  - the guest tells the plugin what it needs (the header's "guest"
 *    fields: sampling wanted, in drv_want, the driver's own; the physical
 *    ranges of each node and their tier, the node of each CPU) and rings
 *    the doorbell, a CPUID instruction; it republishes the ranges when
 *    memory goes online or offline, so that a CXL region kmem onlines
 *    later is a range too.  Sampling is wanted while events exist
 *    (embm_emu_get()), and until EMBM_EMU_IDLE_MS after the last one
 *    went.  A tool in user space (embm-oracle) may drive the same header
 *    beside it: it has its own want, and the generation both bump is
 *    bumped atomically.
 *  - the device's sysfs files say what the drains did (embm_emu_stats/,
 *    summed over the CPUs) and the plugin's features.
 *
 * Contexts and locks: probe, removal, the CPU and memory hotplug
 * callbacks and the publishing run in process context and may sleep.
 * publish_lock serialises the driver's writes of the header's guest
 * fields and its waits for the plugin; probe and removal run one at a
 * time (device core), and the CPU hotplug callbacks one at a time.
 *
 * Removal (a hot unplug: unbinding is suppressed) undoes probe in reverse:
 * the PMU goes first (perf calls nothing of it after), with the
 * sched_switch probe, then the memory notifier and the idle work, then
 * each CPU's drain timer is cancelled and its pointers into the shared
 * memory cleared, and only then is the BAR unmapped.
 */

#define pr_fmt(fmt) "embm_emu: " fmt

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <uapi/linux/embm_emu.h>
#include <asm/cpuid.h>

#include "embm_emu.h"

/* Bounds the driver puts on the plugin's layout beyond the header's own. */
#define EMBM_EMU_MAX_RING	BIT(20)		/* records in a ring */
#define EMBM_EMU_MAX_WATCHED	BIT(20)		/* watched pages */

#define EMBM_EMU_PUBLISH_MS	1000	/* the plugin takes a change in this */

/*
 * The device, once probed; NULL otherwise.  Written by probe and remove
 * only (device core, one at a time), read by the CPU hotplug callbacks and
 * the type and features getters.
 */
struct embm_emu *embm_emu_dev;

/* The doorbell: the plugin takes every CPUID.  Any context. */
static void embm_emu_doorbell(void)
{
	unsigned int eax = 0, ebx, ecx = 0, edx;

	native_cpuid(&eax, &ebx, &ecx, &edx);
}

/*
 * Region @off of @n items of @each bytes within the shared memory of @size
 * bytes, after the header, 8-byte aligned; its end in *@end.  Pure.
 */
static bool embm_emu_region_ok(u64 off, u64 n, u64 each, u64 size, u64 *end)
{
	u64 len;

	if (check_mul_overflow(n, each, &len) || check_add_overflow(off, len, end))
		return false;
	return off >= sizeof(struct embm_emu_header) && IS_ALIGNED(off, 8) && *end <= size;
}

/**
 * embm_emu_magic_ok() - does the shared memory hold the layout of embm_emu?
 * @h:	     the start of BAR 2
 * @bar_len: its length
 *
 * Context: any.
 * Return: 0; -ENODEV if BAR 2 is too small or does not start with
 * EMBM_EMU_MAGIC (another user of ivshmem); -EPROTO for the magic with
 * another version.
 */
static int embm_emu_magic_ok(const struct embm_emu_header *h, u64 bar_len)
{
	if (bar_len < sizeof(*h) || READ_ONCE(h->magic) != EMBM_EMU_MAGIC)
		return -ENODEV;
	return READ_ONCE(h->version) == EMBM_EMU_VERSION ? 0 : -EPROTO;
}

/**
 * embm_emu_check_layout() - check the plugin's header against BAR 2
 * @h:	     the header (of the right magic and version)
 * @bar_len: BAR 2's length
 * @l:	     filled in with the header's values, each read once
 * @why:     set to what is wrong
 *
 * Every count is bounded, every offset of a region is after the header,
 * 8-byte aligned, ends within @l->size (itself at most @bar_len), and no
 * two regions overlap.  The plugin must take drv_want.
 *
 * Context: any.
 * Return: 0, or -EINVAL with *@why.
 */
static int embm_emu_check_layout(const struct embm_emu_header *h, u64 bar_len,
				 struct embm_emu_layout *l, const char **why)
{
	struct {
		u64 start, end;
	} r[6];
	u64 nr;
	int i, j;

	l->size = READ_ONCE(h->size);
	l->nr_cpus = READ_ONCE(h->nr_cpus);
	l->ring_records = READ_ONCE(h->ring_records);
	l->max_pages = READ_ONCE(h->max_pages);
	l->features = READ_ONCE(h->features);
	l->cpu_off = READ_ONCE(h->cpu_off);
	l->ring_off = READ_ONCE(h->ring_off);
	l->oracle_off = READ_ONCE(h->oracle_off);
	l->space_off = READ_ONCE(h->space_off);
	l->page_off = READ_ONCE(h->page_off);
	l->page_count_off = READ_ONCE(h->page_count_off);

	if (l->size < sizeof(*h) || l->size > bar_len) {
		*why = "size is not within BAR 2";
		return -EINVAL;
	}
	if (!l->nr_cpus || l->nr_cpus > EMBM_EMU_MAX_CPUS) {
		*why = "nr_cpus is 0 or above EMBM_EMU_MAX_CPUS";
		return -EINVAL;
	}
	if (!is_power_of_2(l->ring_records) || l->ring_records > EMBM_EMU_MAX_RING) {
		*why = "ring_records is not a power of two up to 2^20";
		return -EINVAL;
	}
	if (l->max_pages > EMBM_EMU_MAX_WATCHED) {
		*why = "max_pages is above 2^20";
		return -EINVAL;
	}
	/* Else it would take want alone, which is user space's. */
	if (!(l->features & EMBM_EMU_FEAT_DRV_WANT)) {
		*why = "the plugin does not take drv_want (EMBM_EMU_FEAT_DRV_WANT): rebuild it";
		return -EINVAL;
	}
	nr = l->nr_cpus;
	r[0].start = l->cpu_off;
	r[1].start = l->ring_off;
	r[2].start = l->oracle_off;
	r[3].start = l->space_off;
	r[4].start = l->page_off;
	r[5].start = l->page_count_off;
	if (!embm_emu_region_ok(l->cpu_off, nr, sizeof(struct embm_emu_cpu), l->size, &r[0].end) ||
	    !embm_emu_region_ok(l->ring_off, nr * l->ring_records,
				sizeof(struct embm_emu_record), l->size, &r[1].end) ||
	    !embm_emu_region_ok(l->oracle_off, nr, sizeof(struct embm_emu_oracle), l->size,
				&r[2].end) ||
	    !embm_emu_region_ok(l->space_off, nr, sizeof(struct embm_emu_space), l->size,
				&r[3].end) ||
	    !embm_emu_region_ok(l->page_off, l->max_pages, sizeof(u64), l->size, &r[4].end) ||
	    !embm_emu_region_ok(l->page_count_off, nr * l->max_pages, 2 * sizeof(u64), l->size,
				&r[5].end)) {
		*why = "a region is misaligned, overlaps the header or ends past size";
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		for (j = i + 1; j < ARRAY_SIZE(r); j++) {
			if (r[i].start < r[i].end && r[j].start < r[j].end &&
			    r[i].start < r[j].end && r[j].start < r[i].end) {
				*why = "two regions overlap";
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Check the header's guest fields were taken.  Caller holds publish_lock. */
static int embm_emu_wait(struct embm_emu *emu, u64 gen)
{
	struct embm_emu_header *h = emu->hdr;
	unsigned long deadline = jiffies + msecs_to_jiffies(EMBM_EMU_PUBLISH_MS);
	unsigned int tries = 0;
	u32 err, mode;

	embm_emu_doorbell();
	while ((s64)(READ_ONCE(h->gen_seen) - gen) < 0) {
		if (time_after(jiffies, deadline)) {
			dev_err(&emu->pdev->dev,
				"the plugin did not take generation %llu in %d ms (it took %llu)\n",
				gen, EMBM_EMU_PUBLISH_MS, READ_ONCE(h->gen_seen));
			return -ETIMEDOUT;
		}
		usleep_range(200, 1000);
		/* In case the plugin missed it; each CPUID is a doorbell. */
		if (!(++tries % 64))
			embm_emu_doorbell();
	}
	err = READ_ONCE(h->error);
	if (err) {
		dev_err(&emu->pdev->dev, "the plugin refused generation %llu: EMBM_EMU_ERR_ %u\n",
			gen, err);
		return -EINVAL;
	}
	mode = READ_ONCE(h->mode);
	if ((mode & emu->want) != emu->want)
		dev_warn(&emu->pdev->dev, "the plugin instruments for mode %#x, wanted %#x\n",
			 mode, emu->want);
	return 0;
}

/**
 * embm_emu_bump_gen() - bump the header's generation, atomically
 * @h: the header
 *
 * The generation has two writers, this driver and a tool that maps the
 * BAR from user space: a load and a store could lose the other's bump (and
 * then neither would know the plugin took its fields).  A locked add
 * cannot (and, unlike a compare-and-exchange loop, cannot be kept
 * spinning by the other writer); it is also the full barrier that orders
 * the fields before it.  The BAR is RAM to QEMU, whose TCG runs locked
 * instructions atomically across vCPUs.
 *
 * Context: any; the caller holds publish_lock (the driver's own order).
 * Return: the generation this bump made.
 */
static u64 embm_emu_bump_gen(struct embm_emu_header *h)
{
	/* LOCK XADD: bounded, whatever the other writer does meanwhile. */
	return xadd(&h->gen, 1) + 1;
}

/**
 * embm_emu_publish() - tell the plugin the guest's fields, and wait
 * @emu: the device; caller holds publish_lock
 *
 * Writes the ranges, the CPUs' nodes and what the driver wants (its own
 * drv_want: a tool's want is another field), bumps the generation, rings
 * the doorbell and waits for the plugin to take it.
 *
 * Context: process, may sleep (up to EMBM_EMU_PUBLISH_MS).
 * Return: 0; -ETIMEDOUT if the plugin did not take it in time, -EINVAL if
 * it refused it.
 */
static int embm_emu_publish(struct embm_emu *emu)
{
	struct embm_emu_header *h = emu->hdr;
	struct embm_emu_topo *t = &emu->topo;
	u32 i;

	lockdep_assert_held(&emu->publish_lock);
	for (i = 0; i < t->nr_ranges; i++) {
		WRITE_ONCE(h->range[i].start, t->range[i].start);
		WRITE_ONCE(h->range[i].end, t->range[i].end);
		WRITE_ONCE(h->range[i].node, t->range[i].node);
		WRITE_ONCE(h->range[i].kind, t->range[i].kind);
	}
	WRITE_ONCE(h->nr_ranges, t->nr_ranges);
	for (i = 0; i < EMBM_EMU_MAX_CPUS; i++)
		WRITE_ONCE(h->cpu_node[i], t->cpu_node[i]);
	WRITE_ONCE(h->drv_want, emu->want);
	return embm_emu_wait(emu, embm_emu_bump_gen(h));
}

/*
 * Add [@start, @end) of @node and @kind to @t: it extends the last range
 * if it follows it with the same node and kind.  When the table is full,
 * the last range of the same node and kind grows over the gap (counted in
 * @t->merged).  Pure.  Return: 0, or -ENOSPC.
 */
static int embm_emu_range_add(struct embm_emu_topo *t, u64 start, u64 end, u32 node, u32 kind)
{
	struct embm_emu_range *last = t->nr_ranges ? &t->range[t->nr_ranges - 1] : NULL;

	if (start >= end)
		return 0;
	if (last && last->node == node && last->kind == kind && last->end <= start &&
	    (last->end == start || t->nr_ranges == EMBM_EMU_MAX_RANGES)) {
		t->merged += last->end != start;
		last->end = end;
		return 0;
	}
	if (t->nr_ranges == EMBM_EMU_MAX_RANGES)
		return -ENOSPC;
	t->range[t->nr_ranges++] = (struct embm_emu_range){
		.start = start, .end = end, .node = node, .kind = kind,
	};
	return 0;
}

/* A CXL fixed memory window (IORES_DESC_CXL).  Resource walk, may sleep. */
static int embm_emu_cxl_window(struct resource *res, void *arg)
{
	struct embm_emu_topo *t = arg;

	if (t->nr_cxl == EMBM_EMU_MAX_CXL)
		return 0;
	t->cxl[t->nr_cxl].start = res->start;
	t->cxl[t->nr_cxl].end = res->end + 1;
	t->nr_cxl++;
	return 0;
}

/* The kind of the memory at @addr on @nid. */
static u32 embm_emu_kind(const struct embm_emu_topo *t, u64 addr, int nid)
{
	u32 i;

	for (i = 0; i < t->nr_cxl; i++) {
		if (addr >= t->cxl[i].start && addr < t->cxl[i].end)
			return EMBM_EMU_KIND_CXL;
	}
	return node_state(nid, N_CPU) ? EMBM_EMU_KIND_DRAM : EMBM_EMU_KIND_FAR;
}

/*
 * One System RAM resource: its online sections, each by its node (sections
 * do not straddle nodes), as ranges.  Resource walk, memory hotplug held
 * off by the caller.
 */
static int embm_emu_ram(struct resource *res, void *arg)
{
	struct embm_emu_topo *t = arg;
	unsigned long pfn = PFN_UP(res->start), end = PFN_DOWN(res->end + 1), next;
	struct page *page;
	int nid, err;

	for (; pfn < end; pfn = next) {
		next = min(ALIGN(pfn + 1, PAGES_PER_SECTION), end);
		page = pfn_to_online_page(pfn);
		if (!page)
			continue;
		nid = page_to_nid(page);
		err = embm_emu_range_add(t, PFN_PHYS(pfn), PFN_PHYS(next), nid,
					 embm_emu_kind(t, PFN_PHYS(pfn), nid));
		if (err)
			return err;
	}
	return 0;
}

/*
 * The topology now, into @emu->topo.  Process context; the caller holds
 * publish_lock and memory hotplug off (get_online_mems(), or the memory
 * notifier's mem_hotplug_lock).  Return: 0, or -ENOSPC with the ranges
 * found so far.
 */
static int embm_emu_topology(struct embm_emu *emu)
{
	struct embm_emu_topo *t = &emu->topo;
	int cpu, nid, err;

	lockdep_assert_held(&emu->publish_lock);
	memset(t, 0, sizeof(*t));
	walk_iomem_res_desc(IORES_DESC_CXL, IORESOURCE_MEM, 0, U64_MAX, t, embm_emu_cxl_window);
	err = walk_system_ram_res(0, U64_MAX, t, embm_emu_ram);
	if (err == -ENOSPC)
		dev_err(&emu->pdev->dev, "more than %d physical ranges: the rest is in none\n",
			EMBM_EMU_MAX_RANGES);
	else if (t->merged)
		dev_info(&emu->pdev->dev, "%u gaps between ranges merged (%d ranges at most)\n",
			 t->merged, EMBM_EMU_MAX_RANGES);
	for (cpu = 0; cpu < EMBM_EMU_MAX_CPUS && cpu < nr_cpu_ids; cpu++) {
		nid = cpu_possible(cpu) ? cpu_to_node(cpu) : 0;
		t->cpu_node[cpu] = nid >= 0 ? nid : 0;
	}
	return err == -ENOSPC ? err : 0;
}

/*
 * Memory went online or offline: publish the ranges again, so that the
 * plugin places accesses to memory kmem onlined (a CXL region) in it.
 * Process context, mem_hotplug_lock held for writing by the caller.
 */
static int embm_emu_mem_notify(struct notifier_block *nb, unsigned long action, void *arg)
{
	struct embm_emu *emu = container_of(nb, struct embm_emu, mem_nb);

	if (action != MEM_ONLINE && action != MEM_OFFLINE)
		return NOTIFY_OK;
	mutex_lock(&emu->publish_lock);
	embm_emu_topology(emu);
	if (embm_emu_publish(emu))
		dev_warn(&emu->pdev->dev, "memory %s: ranges not published\n",
			 action == MEM_ONLINE ? "online" : "offline");
	mutex_unlock(&emu->publish_lock);
	return NOTIFY_OK;
}

/**
 * embm_emu_get() - an event is created: sampling must be on in the plugin
 * @emu: the device
 *
 * The first event turns it on and waits for the plugin; the others find
 * it on.  Each event counts in @emu->users; its destroy drops it, and the
 * last one queues @emu->idle_work, which turns sampling off.
 *
 * Context: process (the PMU's event_init), may sleep; takes publish_lock.
 * Return: 0 or embm_emu_publish()'s error.
 */
int embm_emu_get(struct embm_emu *emu)
{
	int err = 0;

	if (atomic_inc_not_zero(&emu->users))
		return 0;
	mutex_lock(&emu->publish_lock);
	if (!(emu->want & EMBM_EMU_MODE_SAMPLE)) {
		emu->want |= EMBM_EMU_MODE_SAMPLE;
		err = embm_emu_publish(emu);
		if (err)
			emu->want &= ~EMBM_EMU_MODE_SAMPLE;
	}
	if (!err)
		atomic_inc(&emu->users);
	mutex_unlock(&emu->publish_lock);
	return err;
}

/*
 * No event for EMBM_EMU_IDLE_MS: turn sampling off, so that the plugin
 * instruments only CPUID again.  Workqueue, process context.
 */
static void embm_emu_idle(struct work_struct *work)
{
	struct embm_emu *emu = container_of(to_delayed_work(work), struct embm_emu, idle_work);

	mutex_lock(&emu->publish_lock);
	if (!atomic_read(&emu->users) && (emu->want & EMBM_EMU_MODE_SAMPLE)) {
		emu->want &= ~EMBM_EMU_MODE_SAMPLE;
		embm_emu_publish(emu);
	}
	mutex_unlock(&emu->publish_lock);
}

static ssize_t embm_emu_stat_show(struct device *dev, struct device_attribute *attr,
				  char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);

	return sysfs_emit(buf, "%llu\n", embm_emu_stat((uintptr_t)ea->var));
}

/* The plugin's EMBM_EMU_FEAT_*, as the header said at probe. */
static ssize_t features_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct embm_emu *emu = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%#x\n", emu ? emu->layout.features : 0);
}
static DEVICE_ATTR_RO(features);

/* Each a sum of struct embm_emu_stats over the CPUs: at var, its offset. */
static struct dev_ext_attribute embm_emu_stat_attrs[] = {
	{ __ATTR(samples, 0444, embm_emu_stat_show, NULL),
	  (void *)offsetof(struct embm_emu_stats, samples) },
	{ __ATTR(lost, 0444, embm_emu_stat_show, NULL),
	  (void *)offsetof(struct embm_emu_stats, lost) },
	{ __ATTR(bad, 0444, embm_emu_stat_show, NULL),
	  (void *)offsetof(struct embm_emu_stats, bad) },
	{ __ATTR(stale, 0444, embm_emu_stat_show, NULL),
	  (void *)offsetof(struct embm_emu_stats, stale) },
	{ __ATTR(resyncs, 0444, embm_emu_stat_show, NULL),
	  (void *)offsetof(struct embm_emu_stats, resyncs) },
};

static struct attribute *embm_emu_dev_attrs[] = {
	&embm_emu_stat_attrs[0].attr.attr,
	&embm_emu_stat_attrs[1].attr.attr,
	&embm_emu_stat_attrs[2].attr.attr,
	&embm_emu_stat_attrs[3].attr.attr,
	&embm_emu_stat_attrs[4].attr.attr,
	&dev_attr_features.attr,
	NULL,
};

/* Not "embm_emu": the PMU's device, a child of this one, has that name. */
static const struct attribute_group embm_emu_dev_group = {
	.name = "embm_emu_stats",
	.attrs = embm_emu_dev_attrs,
};

static const struct attribute_group *embm_emu_dev_groups[] = {
	&embm_emu_dev_group,
	NULL,
};

/*
 * Is @cpu QEMU's vCPU @cpu?  Its CPUID must ring its own doorbell once.
 * Interrupts off around the CPUID, so that nothing else rings it.  On
 * @cpu (CPU hotplug callback, its per-CPU thread).  Return: @cpu if so,
 * else the first vCPU whose bell moved, or -1.
 */
static int embm_emu_vcpu_of(struct embm_emu *emu, unsigned int cpu)
{
	struct embm_emu_cpu *c = emu->base + emu->layout.cpu_off;
	unsigned long flags;
	u32 i, nr = emu->layout.nr_cpus;

	local_irq_save(flags);
	for (i = 0; i < nr; i++)
		emu->bells[i] = READ_ONCE(c[i].bell);
	embm_emu_doorbell();
	for (i = 0; i < nr; i++)
		emu->bells[i] = READ_ONCE(c[i].bell) - emu->bells[i];
	local_irq_restore(flags);
	if (emu->bells[cpu] == 1)
		return cpu;
	for (i = 0; i < nr; i++) {
		if (emu->bells[i])
			return i;
	}
	return -1;
}

/*
 * A CPU comes online (or is online at probe): check that it is the vCPU of
 * its number, and take it.  A CPU that fails is left out (no slots),
 * and fails the probe if it is online then.  CPU hotplug callback, on
 * @cpu, process context.
 */
static int embm_emu_cpu_online(unsigned int cpu)
{
	struct embm_emu *emu = embm_emu_dev;
	int vcpu;

	if (cpu >= emu->layout.nr_cpus) {
		pr_err("CPU %u: the plugin has %u vCPUs\n", cpu, emu->layout.nr_cpus);
		return emu->probing ? -ENODEV : 0;
	}
	vcpu = embm_emu_vcpu_of(emu, cpu);
	if (vcpu != cpu) {
		if (vcpu < 0)
			pr_err("CPU %u rang no vCPU's doorbell: is the plugin's CPUID callback there?\n",
			       cpu);
		else
			pr_err("CPU %u is QEMU's vCPU %d: the guest's CPU numbers must be QEMU's vCPU indexes\n",
			       cpu, vcpu);
		return emu->probing ? -ENODEV : 0;
	}
	cpumask_set_cpu(cpu, &emu->usable);
	return 0;
}

/* A CPU goes offline: perf removed its events already.  On @cpu. */
static int embm_emu_cpu_offline(unsigned int cpu)
{
	cpumask_clear_cpu(cpu, &embm_emu_dev->usable);
	return 0;
}

/*
 * Map BAR 2 and check it is embm_emu's.  Probe, process context.  Return:
 * 0; -ENODEV for another user of ivshmem, -EPROTO for another version,
 * -EINVAL for a bad layout, -ENOMEM.
 */
static int embm_emu_map(struct embm_emu *emu)
{
	struct pci_dev *pdev = emu->pdev;
	resource_size_t start = pci_resource_start(pdev, EMBM_EMU_BAR);
	resource_size_t len = pci_resource_len(pdev, EMBM_EMU_BAR);
	const char *why;
	int err;

	if (len < sizeof(struct embm_emu_header))
		return -ENODEV;
	/*
	 * Write-combining, not write-back though it is RAM on the host: user
	 * space (embm-oracle) maps the BAR through sysfs's resource2, which is
	 * uncached, and x86's PAT refuses that beside a write-back mapping
	 * but takes it beside a write-combining one (is_new_memtype_allowed()).
	 * Under TCG, which the plugin needs, the memory type changes nothing:
	 * QEMU runs a vCPU's accesses in program order on its thread, and a
	 * BAR below 4 GiB is uncached by the MTRRs anyway.
	 */
	emu->base = memremap(start, len, MEMREMAP_WC);
	if (!emu->base)
		return -ENOMEM;
	emu->hdr = emu->base;
	err = embm_emu_magic_ok(emu->hdr, len);
	if (err == -EPROTO)
		dev_err(&pdev->dev, "layout version %u, this kernel's is %u\n",
			READ_ONCE(emu->hdr->version), EMBM_EMU_VERSION);
	if (!err) {
		err = embm_emu_check_layout(emu->hdr, len, &emu->layout, &why);
		if (err)
			dev_err(&pdev->dev, "bad layout: %s\n", why);
	}
	if (err) {
		memunmap(emu->base);
		emu->base = NULL;
	}
	return err;
}

/* Topology and the want bits to the plugin, at probe.  Process context. */
static int embm_emu_first_publish(struct embm_emu *emu)
{
	int err;

	get_online_mems();
	mutex_lock(&emu->publish_lock);
	embm_emu_topology(emu);
	err = embm_emu_publish(emu);
	mutex_unlock(&emu->publish_lock);
	put_online_mems();
	return err;
}

static int embm_emu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct embm_emu *emu;
	int err;

	if (embm_emu_dev)
		return -EBUSY;
	emu = kzalloc(sizeof(*emu), GFP_KERNEL);
	if (!emu)
		return -ENOMEM;
	emu->pdev = pdev;
	emu->mem_nb.notifier_call = embm_emu_mem_notify;
	mutex_init(&emu->publish_lock);
	INIT_DELAYED_WORK(&emu->idle_work, embm_emu_idle);

	err = pci_enable_device_mem(pdev);
	if (err)
		goto out_free;
	err = pci_request_region(pdev, EMBM_EMU_BAR, "embm_emu");
	if (err)
		goto out_disable;
	err = embm_emu_map(emu);
	if (err)
		goto out_release;
	embm_emu_init_pcpu(emu);

	/* Each online CPU's numbering, on the CPU, one at a time. */
	embm_emu_dev = emu;
	cpus_read_lock();
	emu->probing = true;
	err = cpuhp_setup_state_cpuslocked(CPUHP_AP_ONLINE_DYN, "perf/x86/embm_emu:online",
					   embm_emu_cpu_online, embm_emu_cpu_offline);
	emu->probing = false;
	cpus_read_unlock();
	if (err < 0) {
		dev_err(&pdev->dev, "vCPU numbering check failed: not taking the device\n");
		goto out_unmap;
	}
	emu->hp_state = err;

	err = register_memory_notifier(&emu->mem_nb);
	if (err)
		goto out_cpuhp;
	err = embm_emu_first_publish(emu);
	if (err)
		goto out_mem;
	err = embm_emu_pmu_register(emu);
	if (err)
		goto out_mem;
	pci_set_drvdata(pdev, emu);
	dev_info(&pdev->dev,
		 "perf PMU embm_emu (type %d): %u vCPUs, rings of %u records, %u ranges, features %#x\n",
		 emu->pmu.type, emu->layout.nr_cpus, emu->layout.ring_records,
		 emu->topo.nr_ranges, emu->layout.features);
	return 0;

out_mem:
	unregister_memory_notifier(&emu->mem_nb);
out_cpuhp:
	cpuhp_remove_state(emu->hp_state);
out_unmap:
	embm_emu_release_pcpus();
	embm_emu_dev = NULL;
	memunmap(emu->base);
out_release:
	pci_release_region(pdev, EMBM_EMU_BAR);
out_disable:
	pci_disable_device(pdev);
out_free:
	kfree(emu);
	return err;
}

/*
 * The device goes (unbinding is suppressed: a hot unplug, or the PCI
 * device's sysfs remove).  perf cannot take a PMU away from events that
 * use it: unplugging the device with events open is not supported.
 * Everything that reaches the BAR stops before it is unmapped: the PMU's
 * callbacks and the sched_switch probe (embm_emu_pmu_unregister()), the
 * memory notifier and the idle work (both publish), the drain timers; the
 * CPU hotplug callbacks (which ring the doorbells) last.  Process context.
 */
static void embm_emu_remove(struct pci_dev *pdev)
{
	struct embm_emu *emu = pci_get_drvdata(pdev);

	embm_emu_pmu_unregister(emu);
	unregister_memory_notifier(&emu->mem_nb);
	cancel_delayed_work_sync(&emu->idle_work);
	embm_emu_release_pcpus();
	cpuhp_remove_state(emu->hp_state);
	embm_emu_dev = NULL;
	memunmap(emu->base);
	pci_release_region(pdev, EMBM_EMU_BAR);
	pci_disable_device(pdev);
	kfree(emu);
}

static const struct pci_device_id embm_emu_ids[] = {
	{ PCI_DEVICE(EMBM_EMU_PCI_VENDOR, EMBM_EMU_PCI_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, embm_emu_ids);

static struct pci_driver embm_emu_driver = {
	.name		= "embm_emu",
	.id_table	= embm_emu_ids,
	.probe		= embm_emu_probe,
	.remove		= embm_emu_remove,
	.dev_groups	= embm_emu_dev_groups,
	.driver		= {
		.suppress_bind_attrs = true,
	},
};
builtin_pci_driver(embm_emu_driver);

#ifdef CONFIG_PERF_EVENTS_EMBM_EMU_KUNIT_TEST
#include "embm_emu_dev_kunit.h"
#endif
