/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: memory bandwidth and queueing latency per tier from the
 * uncore PMUs (Intel CHA, IMC, CXLCM, CXLDP; AMD L3 and UMC), beside the
 * samples
 *
 * The events come from a per-model table (uncore.c, each one citing
 * Intel's perfmon event files, PCM or the kernel's own event lists); the
 * PMUs are found by the names the kernel registers them under in
 * /sys/bus/event_source/devices (uncore_cha_0, uncore_imc_3,
 * uncore_cxlcm_1, amd_l3, amd_umc_5, ...), never by type number, and each
 * CPU of a PMU's cpumask is put in its socket by
 * /sys/devices/system/cpu/cpuN/topology/physical_package_id.  Counts are
 * taken as rates while they ran (value / time running), which scales
 * them for multiplexing.  Intel's latency is Little's law over the CHAs'
 * TOR: the mean number of reads in it (occupancy / CHA clock ticks) over
 * the reads entering it a ns (inserts / time running), with the
 * occupancy, the inserts and the CHA clock counted as one perf group, so
 * that all three cover the same time.  AMD's L3 adds up the latency of
 * sampled L3 misses and counts them: their quotient is the mean latency
 * directly, taken the same way (the latency summed a ns is the mean
 * number of sampled misses in flight).
 */
#ifndef __EMBM_TOOLS_UNCORE_H
#define __EMBM_TOOLS_UNCORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define EMBM_UNC_SYSFS		"/sys/bus/event_source/devices"
#define EMBM_UNC_CPUS		"/sys/devices/system/cpu"
#define EMBM_UNC_MAX_SOCKETS	16
#define EMBM_UNC_MAX_DIES	128	/* CPUs of one PMU's cpumask: a die's or an L3's */
#define EMBM_UNC_MAX_EVENTS	24	/* events of a model's table */
#define EMBM_UNC_GROUP_MAX	4	/* events of one perf group */

/*
 * What a figure is about.  EMBM_UNC_RDRAM is the latency of reads from a
 * socket's cores to other sockets' DRAM; its bandwidth is in those
 * sockets' DRAM rows (the IMC counts where the memory is).
 */
enum embm_unc_tier { EMBM_UNC_DRAM, EMBM_UNC_CXL, EMBM_UNC_RDRAM, EMBM_UNC_TIERS };

/* What an event's count is. */
enum embm_unc_role {
	EMBM_UNC_RD,		/* read bytes: count x bytes */
	EMBM_UNC_WR,		/* write bytes: count x bytes */
	EMBM_UNC_RD_INS,	/* read bytes, and the inserts of its group's latency */
	EMBM_UNC_INS,		/* the inserts of its group's latency only */
	EMBM_UNC_OCC,		/* TOR occupancy of reads: cycles x requests */
	EMBM_UNC_CLK,		/* the unit's clock ticks, for its group's latency */
	EMBM_UNC_LAT_SUM,	/* latency summed over sampled requests: count x scale ns */
	EMBM_UNC_LAT_REQ,	/* requests sampled: its group's LAT_SUM / these is the latency */
};

/**
 * struct embm_unc_event - one event of a model's table
 * @unit:   the unit, as in the PMU's name: Intel's "cha", "imc", "cxlcm",
 *	    "cxldp" for the PMUs uncore_<unit> and uncore_<unit>_<N>; a unit
 *	    that starts with "amd_" ("amd_l3", "amd_umc") for the PMUs
 *	    <unit> and <unit>_<N>.
 * @name:   the event's name in perfmon or in the kernel's event lists.
 * @config: perf_event_attr.config for the PMU.
 * @tier:   the tier it measures (for a clock, its group's).
 * @role:   what its count is.
 * @scale:  what a count stands for: bytes (read and write roles), ns
 *	    (EMBM_UNC_LAT_SUM).
 * @group:  0: counted alone; n > 0: counted in one perf group, on each box,
 *	    with the events of the same unit and @group that follow it in
 *	    the table (the first is the leader): a latency's occupancy,
 *	    inserts and clock, a sampled latency's sums and requests, or up
 *	    to EMBM_UNC_GROUP_MAX counts summed.
 */
struct embm_unc_event {
	const char *unit;
	const char *name;
	uint64_t config;
	enum embm_unc_tier tier;
	enum embm_unc_role role;
	double scale;
	int group;
};

/*
 * A CPU model's events, or why there are none; @note, what its figures
 * mean where they differ from the column's name (printed with them).
 */
struct embm_unc_model {
	const char *name;
	const struct embm_unc_event *events;
	int nr_events;
	const char *absent;	/* events == NULL: why */
	const char *note;
};

/* One PMU instance found in sysfs: its type and the CPUs of its cpumask. */
struct embm_unc_pmu {
	char name[256];
	int type;
	int cpus[EMBM_UNC_MAX_DIES];
	int pkgs[EMBM_UNC_MAX_DIES];	/* their sockets, filled by embm_unc_open() */
	int nr_cpus;
};

/*
 * A group's counts (or, between two reads, what they grew by), as perf
 * gives them with PERF_FORMAT_GROUP and the times, in ns.  A group that
 * could not be opened never runs.
 */
struct embm_unc_count {
	int event;		/* the group's first event in the model's table */
	int nr;			/* its events */
	int socket;		/* index in the session's sockets */
	uint64_t enabled, running;
	uint64_t value[EMBM_UNC_GROUP_MAX];
};

/* One socket's figures per tier; a figure < 0 is unavailable. */
struct embm_unc_tier_result {
	double rd_gbps, wr_gbps, lat_ns;
	double running;		/* least time running / enabled of its bandwidth events */
	double lat_running;	/* time running / enabled of its latency groups */
};

struct embm_unc_result {
	int nr_sockets;
	int socket_id[EMBM_UNC_MAX_SOCKETS];	/* physical_package_id */
	struct embm_unc_tier_result tier[EMBM_UNC_MAX_SOCKETS][EMBM_UNC_TIERS];
};

struct perf_event_attr;

/*
 * Where a session looks: the real system, or a test's trees and model.
 * A test may also stand in for the PMUs: @perf_open for
 * perf_event_open(2) (returning an fd close(2) takes, or -1 with errno)
 * and @perf_read for read(2) of a group's leader; NULL: the system calls.
 * It must outlive the sessions opened with it.
 */
struct embm_unc_sys {
	const char *evsrc;		/* EMBM_UNC_SYSFS */
	const char *cpus;		/* EMBM_UNC_CPUS */
	const char *cpuinfo;		/* /proc/cpuinfo */
	const struct embm_unc_model *model;	/* NULL: from cpuinfo */
	int (*perf_open)(const struct perf_event_attr *attr, int cpu, int group_fd);
	ssize_t (*perf_read)(int fd, void *buf, size_t size);
};

/* An opened group: its fds (leader first) and what it read last. */
struct embm_unc_counter {
	int fd[EMBM_UNC_GROUP_MAX];
	int cpu;
	struct embm_unc_count last;
};

/*
 * The uncore events of a session: opened and enabled before the command
 * runs, read for each report.  @why says why there are none; @note and
 * @read_note, what could not be counted when the rest could.
 */
struct embm_unc_session {
	const struct embm_unc_model *model;
	const struct embm_unc_sys *sys;	/* as given to embm_unc_open() */
	int nr_sockets;
	int socket_id[EMBM_UNC_MAX_SOCKETS];
	struct embm_unc_counter *c;
	int nr;
	double t0, t_last, seconds;
	char why[256];
	char note[256];		/* at the open */
	char read_note[256];	/* at the last read */
};

extern const struct embm_unc_sys embm_unc_system;

int embm_unc_open(struct embm_unc_session *u, const struct embm_unc_sys *sys);
void embm_unc_enable(struct embm_unc_session *u);
int embm_unc_read(struct embm_unc_session *u, struct embm_unc_result *r, bool since_last);
void embm_unc_close(struct embm_unc_session *u);
void embm_unc_report(FILE *f, const struct embm_unc_session *u, const struct embm_unc_result *r,
		     bool json);

const struct embm_unc_model *embm_unc_model(const char *vendor, int family, int model);
const struct embm_unc_model *embm_unc_model_cpuinfo(const char *path);
int embm_unc_find(const char *root, const char *unit, struct embm_unc_pmu **pmus);
int embm_unc_group_size(const struct embm_unc_model *m, int e);
int embm_unc_socket_of(const char *cpus, int cpu);
void embm_unc_compute(const struct embm_unc_model *m, int nr_sockets,
		      const struct embm_unc_count *counts, int nr, struct embm_unc_result *r);
const char *embm_unc_tier_name(enum embm_unc_tier t);
void embm_unc_print(FILE *f, const struct embm_unc_model *m, const struct embm_unc_result *r);

#endif /* __EMBM_TOOLS_UNCORE_H */
