// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: uncore bandwidth and latency per tier (see uncore.h)
 *
 * Sources of the tables, as checked for embm: Intel perfmon (github
 * intel/perfmon @6dadedf3: SPR/events/sapphirerapids_uncore*.json,
 * EMR/events/emeraldrapids_uncore*.json, GNR/events/graniterapids_uncore*.json),
 * PCM (github intel/pcm @0fae0de1: src/pcm-memory.cpp, src/cpucounters.cpp)
 * and Linux 6.12 arch/x86/events/intel/uncore_snbep.c.  Raw config for the
 * Linux uncore PMU: event | umask << 8 | umask_ext << 32.  None of it has
 * run here: no VM exposes uncore PMUs.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "uncore.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Sapphire Rapids and Emerald Rapids.  DRAM bandwidth: IMC CAS counts
 * (uncore_snbep.c spr cas_count_read/write aliases).  CXL reads: the
 * CHAs' TOR inserts of LLC misses to CXL memory, the four pcm-memory sums
 * (pcm-memory.cpp:1269-1282), 64 bytes each.  CXL writes: the CXLCM
 * packing-buffer inserts of memory data, 0.5 x 64 bytes each (PCM's
 * CXLBWWrScalingFactor, cpucounters.cpp:11012-11021).  Latency: TOR
 * occupancy / inserts of demand reads to DDR and to CXL (perfmon
 * uncore-cache; the _CXL_ACC ones are experimental there), over the CHA
 * clock.  TOR occupancy counts on counter 0 only: the two occupancy
 * events share it, and perf multiplexes them.
 */
static const struct embm_unc_event spr_events[] = {
	{ "imc", "UNC_M_CAS_COUNT.RD", 0xcf05, EMBM_UNC_DRAM, EMBM_UNC_RD, 64 },
	{ "imc", "UNC_M_CAS_COUNT.WR", 0xf005, EMBM_UNC_DRAM, EMBM_UNC_WR, 64 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 0x10c8178200000135ULL,
	  EMBM_UNC_CXL, EMBM_UNC_RD_LAT, 64 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_ACC", 0x10c8078200000135ULL,
	  EMBM_UNC_CXL, EMBM_UNC_RD, 64 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_CRDMORPH_CXL_ACC", 0x10c80b8200000135ULL,
	  EMBM_UNC_CXL, EMBM_UNC_RD, 64 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_ACC", 0x10c8878200000135ULL,
	  EMBM_UNC_CXL, EMBM_UNC_RD, 64 },
	{ "cha", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 0x10c8178200000136ULL,
	  EMBM_UNC_CXL, EMBM_UNC_OCC, 0 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_DDR", 0x00c8178600000135ULL,
	  EMBM_UNC_DRAM, EMBM_UNC_INS, 0 },
	{ "cha", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_DDR", 0x00c8178600000136ULL,
	  EMBM_UNC_DRAM, EMBM_UNC_OCC, 0 },
	{ "cha", "UNC_CHA_CLOCKTICKS", 0x01, EMBM_UNC_TIERS, EMBM_UNC_CLK, 0 },
	{ "cxlcm", "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA", 0x1002, EMBM_UNC_CXL,
	  EMBM_UNC_WR, 32 },
};

/*
 * Granite Rapids.  DRAM: the IMC's two schedulers, each with its CAS
 * counts (uncore_snbep.c gnr cas_count_*_sch0/1).  CXL reads: the CXLCM
 * packing-buffer inserts of received memory data (pcm-memory.cpp:1146-1151),
 * 64 bytes each.  CXL writes: the CXLDP's M2S data inserts
 * (cpucounters.cpp:11025-11031), taken as 64 bytes each (PCM's factor for
 * them not checked).  Latency as on SPR (the _CXL_ACC events are not
 * experimental on GNR).
 */
static const struct embm_unc_event gnr_events[] = {
	{ "imc", "UNC_M_CAS_COUNT_SCH0.RD", 0xcf05, EMBM_UNC_DRAM, EMBM_UNC_RD, 64 },
	{ "imc", "UNC_M_CAS_COUNT_SCH1.RD", 0xcf06, EMBM_UNC_DRAM, EMBM_UNC_RD, 64 },
	{ "imc", "UNC_M_CAS_COUNT_SCH0.WR", 0xf005, EMBM_UNC_DRAM, EMBM_UNC_WR, 64 },
	{ "imc", "UNC_M_CAS_COUNT_SCH1.WR", 0xf006, EMBM_UNC_DRAM, EMBM_UNC_WR, 64 },
	{ "cxlcm", "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA", 0x1041, EMBM_UNC_CXL,
	  EMBM_UNC_RD, 64 },
	{ "cxldp", "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", 0x2002, EMBM_UNC_CXL,
	  EMBM_UNC_WR, 64 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 0x10c8178200000135ULL,
	  EMBM_UNC_CXL, EMBM_UNC_INS, 0 },
	{ "cha", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 0x10c8178200000136ULL,
	  EMBM_UNC_CXL, EMBM_UNC_OCC, 0 },
	{ "cha", "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_DDR", 0x00c8178600000135ULL,
	  EMBM_UNC_DRAM, EMBM_UNC_INS, 0 },
	{ "cha", "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_DDR", 0x00c8178600000136ULL,
	  EMBM_UNC_DRAM, EMBM_UNC_OCC, 0 },
	{ "cha", "UNC_CHA_CLOCKTICKS", 0x01, EMBM_UNC_TIERS, EMBM_UNC_CLK, 0 },
};

static const struct embm_unc_model models[] = {
	{ "Sapphire Rapids", spr_events, ARRAY_SIZE(spr_events), NULL },
	{ "Emerald Rapids", spr_events, ARRAY_SIZE(spr_events), NULL },
	{ "Granite Rapids", gnr_events, ARRAY_SIZE(gnr_events), NULL },
	{ "AMD Zen 4/5", NULL, 0,
	  "amd_df and amd_umc PMUs exist; no per-tier events are checked for them" },
	{ "this CPU", NULL, 0, "embm has no uncore event table for this CPU model" },
};

/**
 * embm_unc_model() - the event table of a CPU
 * @vendor: /proc/cpuinfo's vendor_id
 * @family: its cpu family
 * @model:  its model
 *
 * Return: the model's table, or one whose events are NULL and whose
 * absent says why.
 */
const struct embm_unc_model *embm_unc_model(const char *vendor, int family, int model)
{
	if (!strcmp(vendor, "GenuineIntel") && family == 6) {
		switch (model) {
		case 0x8f:
			return &models[0];
		case 0xcf:
			return &models[1];
		case 0xad:
		case 0xae:
			return &models[2];
		}
	}
	if (!strcmp(vendor, "AuthenticAMD") && (family == 0x19 || family == 0x1a))
		return &models[3];
	return &models[4];
}

/* The model of the CPU described by @path (/proc/cpuinfo's format). */
const struct embm_unc_model *embm_unc_model_cpuinfo(const char *path)
{
	char line[256], vendor[32] = "";
	int family = -1, model = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return &models[4];
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

/**
 * embm_unc_find() - the PMUs of one unit type, by the names the kernel gives
 * @root: the event-source directory (EMBM_UNC_SYSFS, or a test's tree)
 * @unit: "cha", "imc", "cxlcm": PMUs named uncore_<unit> or uncore_<unit>_<N>
 * @pmus: filled with each one's type and the CPUs of its cpumask, one per
 *	  socket (die), in order
 * @max:  room in @pmus
 *
 * Return: how many were found (0: none, e.g. in a VM), in box order.
 */
int embm_unc_find(const char *root, const char *unit, struct embm_unc_pmu *pmus, int max)
{
	char prefix[32], dir[512], buf[256];
	size_t plen;
	struct dirent *d;
	DIR *dp = opendir(root);
	int n = 0;

	if (!dp)
		return 0;
	plen = snprintf(prefix, sizeof(prefix), "uncore_%s", unit);
	while (n < max && (d = readdir(dp))) {
		const char *rest = d->d_name + plen;

		if (strncmp(d->d_name, prefix, plen) ||
		    (*rest && (*rest != '_' || !rest[1] || strspn(rest + 1, "0123456789") !=
							   strlen(rest + 1))))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, d->d_name);
		if (read_line(dir, "type", buf, sizeof(buf)))
			continue;
		snprintf(pmus[n].name, sizeof(pmus[n].name), "%s", d->d_name);
		pmus[n].type = atoi(buf);
		pmus[n].nr_cpus = read_line(dir, "cpumask", buf, sizeof(buf)) ? 0 :
			parse_cpulist(buf, pmus[n].cpus, EMBM_UNC_MAX_SOCKETS);
		n++;
	}
	closedir(dp);
	qsort(pmus, n, sizeof(*pmus), cmp_pmu);
	return n;
}

/**
 * embm_unc_scaled() - a count scaled to its whole time enabled
 * @c:     the count and its times
 * @ratio: if not NULL, set to time running / time enabled (1: never
 *	   multiplexed; 0: never ran)
 *
 * Return: value x enabled / running, or 0 if it never ran.
 */
double embm_unc_scaled(const struct embm_unc_count *c, double *ratio)
{
	double r = c->enabled ? (double)c->running / c->enabled : 0;

	if (ratio)
		*ratio = r;
	return r > 0 ? c->value / r : 0;
}

const char *embm_unc_tier_name(enum embm_unc_tier t)
{
	return t == EMBM_UNC_DRAM ? "DRAM" : t == EMBM_UNC_CXL ? "CXL" : "-";
}

/* Per tier: sums of rates (a second), and whether each could be had. */
struct unc_sums {
	double rd, wr, occ, ins;
	bool has_rd, has_wr, has_occ, has_ins;
	bool lost_rd, lost_wr, lost_lat;	/* an event never ran */
	bool any;
	double least;
};

/*
 * Add one box's count of @ev to @t (or to the clock): its rate while it
 * ran, value / time running, which is the multiplexing scale and its own
 * time base at once (each count runs from its own open to its own read).
 */
static void unc_add(const struct embm_unc_event *ev, const struct embm_unc_count *c,
		    struct unc_sums *t, double *clk_hz, int *clk_boxes)
{
	double ratio = c->enabled ? (double)c->running / c->enabled : 0;
	bool ran = c->running > 0;
	double rate = ran ? c->value / (c->running / 1e9) : 0;

	if (ev->role == EMBM_UNC_CLK) {
		if (ran) {
			*clk_hz += rate;
			(*clk_boxes)++;
		}
		return;
	}
	t->any = true;
	if (ratio < t->least)
		t->least = ratio;
	switch (ev->role) {
	case EMBM_UNC_RD_LAT:
		t->ins += rate;
		t->has_ins = true;
		t->lost_lat |= !ran;
		__attribute__((fallthrough));
	case EMBM_UNC_RD:
		t->rd += rate * ev->bytes;
		t->has_rd = true;
		t->lost_rd |= !ran;
		break;
	case EMBM_UNC_WR:
		t->wr += rate * ev->bytes;
		t->has_wr = true;
		t->lost_wr |= !ran;
		break;
	case EMBM_UNC_INS:
		t->ins += rate;
		t->has_ins = true;
		t->lost_lat |= !ran;
		break;
	case EMBM_UNC_OCC:
		t->occ += rate;
		t->has_occ = true;
		t->lost_lat |= !ran;
		break;
	default:
		break;
	}
}

/**
 * embm_unc_compute() - bandwidth and latency per socket and tier
 * @m:          the model whose events were counted
 * @nr_sockets: sockets counted
 * @nr_boxes:   per event of @m, the boxes (PMUs of its unit) counted
 * @counts:     [socket][event][box], EMBM_UNC_MAX_BOXES boxes an event;
 *		times in ns, as perf gives them
 * @r:          the result: GB/s read and written, and the mean time a
 *		demand read spent in the TOR, in ns, from Little's law:
 *		occupancy / inserts, in CHA cycles, over the CHAs' mean clock
 *		rate.  Each count is taken as a rate while it ran (value / time
 *		running): scaled for multiplexing, on its own time base.  -1
 *		where the table has no event, or one of them never ran.
 */
void embm_unc_compute(const struct embm_unc_model *m, int nr_sockets, int nr_boxes[],
		      const struct embm_unc_count *counts, struct embm_unc_result *r)
{
	int s, e, b, t;

	memset(r, 0, sizeof(*r));
	r->nr_sockets = nr_sockets;
	for (s = 0; s < nr_sockets && s < EMBM_UNC_MAX_SOCKETS; s++) {
		struct unc_sums sum[EMBM_UNC_TIERS] = { { .least = 1 }, { .least = 1 } };
		double clk_hz = 0, hz;
		int clk_boxes = 0;

		for (e = 0; e < m->nr_events; e++) {
			const struct embm_unc_event *ev = &m->events[e];
			const struct embm_unc_count *c =
				&counts[(s * m->nr_events + e) * EMBM_UNC_MAX_BOXES];
			struct unc_sums *u = &sum[ev->tier < EMBM_UNC_TIERS ? ev->tier : 0];

			for (b = 0; b < nr_boxes[e] && b < EMBM_UNC_MAX_BOXES; b++)
				unc_add(ev, &c[b], u, &clk_hz, &clk_boxes);
		}
		hz = clk_boxes ? clk_hz / clk_boxes : 0;
		for (t = 0; t < EMBM_UNC_TIERS; t++) {
			struct embm_unc_tier_result *tr = &r->tier[s][t];
			const struct unc_sums *u = &sum[t];
			bool lat = u->has_occ && u->has_ins && !u->lost_lat && u->ins > 0;

			tr->rd_gbps = u->has_rd && !u->lost_rd ? u->rd / 1e9 : -1;
			tr->wr_gbps = u->has_wr && !u->lost_wr ? u->wr / 1e9 : -1;
			tr->lat_ns = lat && hz > 0 ? u->occ / u->ins / hz * 1e9 : -1;
			tr->running = u->any ? u->least : 0;
		}
	}
}

static void print_figure(FILE *f, double v, const char *fmt)
{
	if (v < 0)
		fprintf(f, " %9s", "-");
	else
		fprintf(f, fmt, v);
}

/**
 * embm_unc_print() - the bandwidth section of a report
 * @f: where to
 * @m: the model counted
 * @r: its figures; "-" for one unavailable, and the share of the time
 *     the tier's events ran when perf multiplexed them
 */
void embm_unc_print(FILE *f, const struct embm_unc_model *m, const struct embm_unc_result *r)
{
	int s, t;

	fprintf(f, "bandwidth (uncore, %s):\n", m->name);
	fprintf(f, "  %6s %5s %9s %9s %9s %8s\n", "socket", "tier", "rd_GB/s", "wr_GB/s",
		"rd_lat_ns", "running");
	for (s = 0; s < r->nr_sockets; s++) {
		for (t = 0; t < EMBM_UNC_TIERS; t++) {
			const struct embm_unc_tier_result *tr = &r->tier[s][t];

			fprintf(f, "  %6d %5s", s, embm_unc_tier_name(t));
			print_figure(f, tr->rd_gbps, " %9.2f");
			print_figure(f, tr->wr_gbps, " %9.2f");
			print_figure(f, tr->lat_ns, " %9.1f");
			fprintf(f, " %7.0f%%\n", tr->running * 100);
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int *fd_at(const struct embm_unc_session *u, int s, int e, int b)
{
	return &u->fds[(s * u->model->nr_events + e) * EMBM_UNC_MAX_BOXES + b];
}

/* Close every event opened; the session keeps @why. */
static void unc_close_fds(struct embm_unc_session *u)
{
	int i, n;

	if (!u->fds)
		return;
	n = u->nr_sockets * u->model->nr_events * EMBM_UNC_MAX_BOXES;
	for (i = 0; i < n; i++)
		if (u->fds[i] >= 0)
			close(u->fds[i]);
	free(u->fds);
	u->fds = NULL;
}

/* A counting event on @pmu's CPU of socket @s; -1 with @u->why set. */
static int unc_open_event(struct embm_unc_session *u, const struct embm_unc_event *ev,
			  const struct embm_unc_pmu *pmu, int s)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = pmu->type,
		.config = ev->config,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd = syscall(SYS_perf_event_open, &attr, -1, pmu->cpus[s], -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		snprintf(u->why, sizeof(u->why), "cannot count %.64s on %.64s, CPU %d: %s",
			 ev->name, pmu->name, pmu->cpus[s], strerror(errno));
	return fd;
}

/**
 * embm_unc_open() - open the model's uncore events on every socket
 * @u:       the session, filled in
 * @root:    the event-source directory (EMBM_UNC_SYSFS)
 * @cpuinfo: /proc/cpuinfo
 *
 * Counting events, one per box and socket, on the CPU the PMU's cpumask
 * gives for that socket: perf's rules for CPU-wide events apply
 * (perf_event_paranoid, CAP_PERFMON).
 *
 * Return: 0, or -1 with @u->why saying why there is no bandwidth.
 */
int embm_unc_open(struct embm_unc_session *u, const char *root, const char *cpuinfo)
{
	static struct embm_unc_pmu pmus[EMBM_UNC_MAX_BOXES];
	const struct embm_unc_model *m;
	int e, s, b, n, found = 0;

	memset(u, 0, sizeof(*u));
	/* A model known to have no table says so, PMUs or not (AMD has no uncore_cha). */
	m = embm_unc_model_cpuinfo(cpuinfo);
	if (!m->events && m != &models[ARRAY_SIZE(models) - 1]) {
		snprintf(u->why, sizeof(u->why), "%s: %s", m->name, m->absent);
		return -1;
	}
	for (e = 0; e < 3; e++)
		found += embm_unc_find(root, e == 0 ? "cha" : e == 1 ? "imc" : "cxlcm", pmus,
				       EMBM_UNC_MAX_BOXES);
	if (!found) {
		snprintf(u->why, sizeof(u->why),
			 "no uncore PMU (uncore_cha_*, uncore_imc_*, uncore_cxlcm_*) in %s: VMs and QEMU have none, or the intel_uncore module is not loaded",
			 root);
		return -1;
	}
	if (!m->events || m->nr_events > EMBM_UNC_MAX_EVENTS) {
		snprintf(u->why, sizeof(u->why), "%s: %s", m->name,
			 m->events ? "too many events" : m->absent);
		return -1;
	}
	u->model = m;
	for (e = 0; e < m->nr_events; e++) {
		n = embm_unc_find(root, m->events[e].unit, pmus, EMBM_UNC_MAX_BOXES);
		u->nr_boxes[e] = n;
		for (b = 0; b < n; b++)
			if (pmus[b].nr_cpus > u->nr_sockets)
				u->nr_sockets = pmus[b].nr_cpus;
	}
	if (!u->nr_sockets) {
		snprintf(u->why, sizeof(u->why), "the uncore PMUs in %s list no CPU", root);
		return -1;
	}
	u->fds = malloc(sizeof(int) * u->nr_sockets * m->nr_events * EMBM_UNC_MAX_BOXES);
	if (!u->fds) {
		snprintf(u->why, sizeof(u->why), "out of memory");
		return -1;
	}
	memset(u->fds, -1, sizeof(int) * u->nr_sockets * m->nr_events * EMBM_UNC_MAX_BOXES);
	for (e = 0; e < m->nr_events; e++) {
		n = embm_unc_find(root, m->events[e].unit, pmus, EMBM_UNC_MAX_BOXES);
		for (b = 0; b < n; b++) {
			for (s = 0; s < pmus[b].nr_cpus && s < u->nr_sockets; s++) {
				*fd_at(u, s, e, b) = unc_open_event(u, &m->events[e], &pmus[b], s);
				if (*fd_at(u, s, e, b) < 0) {
					unc_close_fds(u);
					return -1;
				}
			}
		}
	}
	u->t0 = now();
	return 0;
}

/**
 * embm_unc_close() - read and close a session's events
 * @u: a session embm_unc_open() opened
 * @r: its figures
 *
 * Return: 0, or -1 with @u->why set (a read failed).
 */
int embm_unc_close(struct embm_unc_session *u, struct embm_unc_result *r)
{
	static struct embm_unc_count counts[EMBM_UNC_MAX_SOCKETS * EMBM_UNC_MAX_EVENTS *
					    EMBM_UNC_MAX_BOXES];
	int s, e, b, err = 0;

	u->seconds = now() - u->t0;
	memset(counts, 0, sizeof(counts));
	for (s = 0; s < u->nr_sockets; s++) {
		for (e = 0; e < u->model->nr_events; e++) {
			for (b = 0; b < u->nr_boxes[e]; b++) {
				int fd = *fd_at(u, s, e, b);
				uint64_t v[3];

				if (fd < 0)
					continue;
				if (read(fd, v, sizeof(v)) != sizeof(v)) {
					snprintf(u->why, sizeof(u->why), "cannot read %s: %s",
						 u->model->events[e].name, strerror(errno));
					err = -1;
					continue;
				}
				counts[(s * u->model->nr_events + e) * EMBM_UNC_MAX_BOXES + b] =
					(struct embm_unc_count){ v[0], v[1], v[2] };
			}
		}
	}
	unc_close_fds(u);
	if (!err)
		embm_unc_compute(u->model, u->nr_sockets, u->nr_boxes, counts, r);
	return err;
}

static void json_figure(FILE *f, const char *name, double v)
{
	if (v < 0)
		fprintf(f, "\"%s\": null", name);
	else
		fprintf(f, "\"%s\": %.3f", name, v);
}

/**
 * embm_unc_report() - the bandwidth part of embm-run's report
 * @f:    where to
 * @u:    the session; no model: unavailable, and why
 * @r:    its figures, when it has a model
 * @json: as JSON members ("bandwidth" and "bandwidth_unavailable", with a
 *	  leading comma) rather than text
 */
void embm_unc_report(FILE *f, const struct embm_unc_session *u, const struct embm_unc_result *r,
		     bool json)
{
	const char *q;
	int s, t;

	if (!u->model || *u->why) {
		if (!json) {
			fprintf(f, "bandwidth: unavailable: %s\n", u->why);
			return;
		}
		fprintf(f, ",\n \"bandwidth\": null, \"bandwidth_unavailable\": \"");
		for (q = u->why; *q; q++)
			fprintf(f, *q == '"' || *q == '\\' ? "\\%c" : "%c", *q);
		fprintf(f, "\"");
		return;
	}
	if (!json) {
		embm_unc_print(f, u->model, r);
		return;
	}
	fprintf(f, ",\n \"bandwidth\": {\"model\": \"%s\", \"seconds\": %.3f, \"sockets\": [",
		u->model->name, u->seconds);
	for (s = 0; s < r->nr_sockets; s++) {
		for (t = 0; t < EMBM_UNC_TIERS; t++) {
			const struct embm_unc_tier_result *tr = &r->tier[s][t];

			fprintf(f, "%s\n  {\"socket\": %d, \"tier\": \"%s\", ", s || t ? "," : "",
				s, embm_unc_tier_name(t));
			json_figure(f, "rd_gbps", tr->rd_gbps);
			fprintf(f, ", ");
			json_figure(f, "wr_gbps", tr->wr_gbps);
			fprintf(f, ", ");
			json_figure(f, "rd_lat_ns", tr->lat_ns);
			fprintf(f, ", \"running\": %.3f}", tr->running);
		}
	}
	fprintf(f, " ]}, \"bandwidth_unavailable\": null");
}
