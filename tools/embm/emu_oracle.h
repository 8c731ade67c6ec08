/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: the embm-emu device (QEMU's TCG plugin, its ivshmem BAR) from
 * user space, without a kernel driver: map it, publish the topology, turn
 * the oracle on and off, watch pages, read the exact counts.
 *
 * The layout is include/uapi/linux/embm_emu.h.  Everything the device says
 * is checked before use (magic, version, offsets within the BAR).  Beside
 * the kernel's embm_emu driver, user space writes only its own fields:
 * want (the driver's is drv_want), the watched pages, and gen, which both
 * bump atomically; the ranges and CPUs' nodes only when no driver is
 * bound (emu_dev.driver_bound).  One tool at a time: two would share want.
 */
#ifndef __EMBM_TOOLS_EMU_ORACLE_H
#define __EMBM_TOOLS_EMU_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/embm_emu.h>

#define EMU_TIMEOUT_MS	5000	/* for a change to be taken */

struct emu_dev {
	int fd;
	void *map;
	size_t size;
	struct embm_emu_header *hdr;
	unsigned int nr_cpus;
	char pci[256];		/* the device's PCI address */
	int driver_bound;	/* a kernel driver has it */
};

/*
 * Exact counts summed over vCPUs: [range or EMBM_EMU_NO_RANGE][user 0,
 * kernel 1][load 0, store 1].
 */
typedef __u64 emu_acc_t[EMBM_EMU_MAX_RANGES + 1][2][2];

struct emu_snapshot {
	uint32_t mode;
	uint32_t nr_ranges;
	struct embm_emu_range range[EMBM_EMU_MAX_RANGES];
	emu_acc_t ranges;
	uint64_t space_key[EMBM_EMU_MAX_SPACES];
	emu_acc_t spaces[EMBM_EMU_MAX_SPACES];
	uint32_t nr_pages;
	uint64_t *pfn;		/* [nr_pages] */
	uint64_t (*page)[2];	/* [nr_pages]: loads, stores */
};

/* Why the last call failed, for a message. */
const char *emu_error(void);

int emu_open(struct emu_dev *d);
void emu_close(struct emu_dev *d);

static inline struct embm_emu_cpu *emu_cpu(struct emu_dev *d, unsigned int cpu)
{
	return (struct embm_emu_cpu *)((char *)d->map + d->hdr->cpu_off) + cpu;
}

static inline struct embm_emu_record *emu_ring(struct emu_dev *d, unsigned int cpu)
{
	return (struct embm_emu_record *)((char *)d->map + d->hdr->ring_off) +
	       (size_t)cpu * d->hdr->ring_records;
}

/* Execute CPUID: the doorbell. */
void emu_doorbell(void);

/*
 * Bump gen atomically after the fields were written, ring, and wait for
 * the plugin to take it (or a later gen, the driver's).  Return: 0,
 * EMBM_EMU_ERR_* (> 0) if it refused, or -1 (timeout).
 */
int emu_commit(struct emu_dev *d, int timeout_ms);

/* User space's want = @want (EMBM_EMU_MODE_*), then emu_commit(). */
int emu_set_want(struct emu_dev *d, uint32_t want, int timeout_ms);

/*
 * Ranges of each node's memory and each CPU's node, from sysfs, written
 * into the header (not committed).  Return: ranges, or -1.
 */
int emu_publish_topology(struct emu_dev *d);

/*
 * The watched page list (sorted and deduplicated here; not committed).
 * Return: the pages, or -1 if more than the device has room for.
 */
int emu_set_pages(struct emu_dev *d, const uint64_t *pfn, size_t n);

/*
 * The caller's address-space key: pinned to its CPU, it rings and reads
 * that vCPU's bell_as.  Return: 0 or -1.
 */
int emu_my_space(struct emu_dev *d, uint64_t *key);

/* The index of @key in the oracle's spaces, or -1. */
int emu_space_index(const struct emu_snapshot *s, uint64_t key);

int emu_snapshot(struct emu_dev *d, struct emu_snapshot *s);
void emu_snapshot_free(struct emu_snapshot *s);

/*
 * Page frame numbers of @len bytes at @addr of process @pid (0: the caller),
 * from /proc/PID/pagemap (root); 0 for a page not present.  Return: 0 or -1.
 */
int emu_pagemap(int pid, uint64_t addr, size_t len, uint64_t *pfn);

#endif /* __EMBM_TOOLS_EMU_ORACLE_H */
