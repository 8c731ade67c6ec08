/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: memory bandwidth and queueing latency per tier from the
 * uncore PMUs (Intel CHA, IMC, CXLCM, CXLDP), beside the samples
 *
 * The events come from a per-model table (uncore.c, each one citing
 * Intel's perfmon event files or PCM); the PMUs are found by the names
 * the kernel registers them under in /sys/bus/event_source/devices
 * (uncore_cha_0, uncore_imc_3, uncore_cxlcm_1, ...), never by type
 * number.  Counts are scaled by time enabled / time running; the latency
 * is Little's law over the CHAs' TOR: occupancy / inserts, in CHA clock
 * cycles, turned into ns by the CHA clock measured over the same time.
 */
#ifndef __EMBM_TOOLS_UNCORE_H
#define __EMBM_TOOLS_UNCORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define EMBM_UNC_SYSFS		"/sys/bus/event_source/devices"
#define EMBM_UNC_MAX_BOXES	64	/* instances of one unit type */
#define EMBM_UNC_MAX_SOCKETS	16

enum embm_unc_tier { EMBM_UNC_DRAM, EMBM_UNC_CXL, EMBM_UNC_TIERS };

/* What an event's count is. */
enum embm_unc_role {
	EMBM_UNC_RD,		/* read bytes: count x bytes */
	EMBM_UNC_WR,		/* write bytes: count x bytes */
	EMBM_UNC_RD_LAT,	/* read bytes, and the inserts of the latency */
	EMBM_UNC_INS,		/* the inserts of the latency only */
	EMBM_UNC_OCC,		/* TOR occupancy of reads: cycles x requests */
	EMBM_UNC_CLK,		/* the unit's clock ticks */
};

/**
 * struct embm_unc_event - one event of a model's table
 * @unit:   the unit type, as in the PMU's name: "cha", "imc", "cxlcm",
 *	    "cxldp".
 * @name:   the event's name in perfmon.
 * @config: perf_event_attr.config for the Linux uncore PMU.
 * @tier:   the tier it measures (EMBM_UNC_TIERS for a clock).
 * @role:   what its count is.
 * @bytes:  bytes a count stands for (read and write roles).
 */
struct embm_unc_event {
	const char *unit;
	const char *name;
	uint64_t config;
	enum embm_unc_tier tier;
	enum embm_unc_role role;
	double bytes;
};

/* A CPU model's events, or why there are none. */
struct embm_unc_model {
	const char *name;
	const struct embm_unc_event *events;
	int nr_events;
	const char *absent;	/* events == NULL: why */
};

/* One PMU instance found in sysfs: its type and a CPU per socket. */
struct embm_unc_pmu {
	char name[256];
	int type;
	int cpus[EMBM_UNC_MAX_SOCKETS];
	int nr_cpus;
};

/* A count read from perf with its times (PERF_FORMAT_TOTAL_TIME_*). */
struct embm_unc_count {
	uint64_t value, enabled, running;
};

/* One socket's figures per tier; a figure < 0 is unavailable. */
struct embm_unc_tier_result {
	double rd_gbps, wr_gbps, lat_ns;
	double running;		/* least time running / enabled of its events */
};

struct embm_unc_result {
	int nr_sockets;
	struct embm_unc_tier_result tier[EMBM_UNC_MAX_SOCKETS][EMBM_UNC_TIERS];
};

#define EMBM_UNC_MAX_EVENTS	16	/* events of a model's table */

/*
 * The uncore events of a session of embm-run: opened before the command
 * runs, read when it has exited.  @why says why there are none.
 */
struct embm_unc_session {
	const struct embm_unc_model *model;
	int nr_sockets;
	int nr_boxes[EMBM_UNC_MAX_EVENTS];
	int *fds;	/* [socket][event][box], -1 for none */
	double t0, seconds;
	char why[256];
};

int embm_unc_open(struct embm_unc_session *u, const char *root, const char *cpuinfo);
int embm_unc_close(struct embm_unc_session *u, struct embm_unc_result *r);
void embm_unc_report(FILE *f, const struct embm_unc_session *u, const struct embm_unc_result *r,
		     bool json);

const struct embm_unc_model *embm_unc_model(const char *vendor, int family, int model);
const struct embm_unc_model *embm_unc_model_cpuinfo(const char *path);
int embm_unc_find(const char *root, const char *unit, struct embm_unc_pmu *pmus, int max);
double embm_unc_scaled(const struct embm_unc_count *c, double *ratio);
void embm_unc_compute(const struct embm_unc_model *m, int nr_sockets, int nr_boxes[],
		      const struct embm_unc_count *counts, struct embm_unc_result *r);
const char *embm_unc_tier_name(enum embm_unc_tier t);
void embm_unc_print(FILE *f, const struct embm_unc_model *m, const struct embm_unc_result *r);

#endif /* __EMBM_TOOLS_UNCORE_H */
