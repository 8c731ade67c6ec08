// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' uncore tables and arithmetic (tools/embm/uncore.c), with known
 * counts and fake event-source and CPU trees; and the whole open, read and
 * close path, run on software events put under uncore PMU names: no VM
 * has uncore PMUs, so this is all of it that runs here.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "report.h"
#include "uncore.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* A PMU directory in @root: @name with @type and @cpumask. */
static void pmu(const char *root, const char *name, const char *type, const char *cpumask)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", root, name);
	mkdir(dir, 0755);
	put(dir, "type", type);
	if (cpumask)
		put(dir, "cpumask", cpumask);
}

/* CPU @cpu of a fake CPU tree, in package @pkg. */
static void cpu_in(const char *root, int cpu, const char *pkg)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/cpu%d", root, cpu);
	mkdir(dir, 0755);
	strcat(dir, "/topology");
	mkdir(dir, 0755);
	put(dir, "physical_package_id", pkg);
}

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		perror(cmd);
}

static int find_event(const struct embm_unc_model *m, const char *name)
{
	for (int e = 0; e < m->nr_events; e++)
		if (!strcmp(m->events[e].name, name))
			return e;
	return -1;
}

static bool near(double want, double got, double tol)
{
	return got >= want * (1 - tol) && got <= want * (1 + tol);
}

/* within 0.1% */
static bool near3(double want, double got)
{
	if (near(want, got, 0.001))
		return true;
	printf("# %g, not %g\n", got, want);
	return false;
}

#define NEAR(want, got)	EXPECT_TRUE(near3(want, got))

/* perfmon's EventCode, UMask and UMaskExt as the Linux uncore PMU takes them */
#define PERFMON(event, umask, ext)	((event) | (umask) << 8 | (uint64_t)(ext) << 32)

/*
 * Each supported model has a table whose encodings are perfmon's
 * (intel/perfmon @6dadedf3, as checked for embm); the others say why they
 * have none.
 */
TEST(models_and_encodings)
{
	const struct embm_unc_model *spr = embm_unc_model("GenuineIntel", 6, 0x8f);
	const struct embm_unc_model *emr = embm_unc_model("GenuineIntel", 6, 0xcf);
	const struct embm_unc_model *gnr = embm_unc_model("GenuineIntel", 6, 0xad);
	const struct embm_unc_model *m;
	/* event | umask << 8 | umask_ext << 32, as perfmon lists them */
	static const struct {
		int model;
		const char *name;
		uint64_t config;
	} enc[] = {
		{ 0x8f, "UNC_M_CAS_COUNT.RD", PERFMON(0x05, 0xcf, 0x00000000) },
		{ 0x8f, "UNC_M_CAS_COUNT.WR", PERFMON(0x05, 0xf0, 0x00000000) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C81782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C80782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C88782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_PREF_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10CCC782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C89782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFDATA_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10CCD782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_CRDMORPH_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C80B82) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFCODE_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10CCCF82) },
		{ 0x8f, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x36, 0x01, 0x10C81782) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR",
		  PERFMON(0x35, 0x01, 0x00C81686) },
		{ 0x8f, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR",
		  PERFMON(0x35, 0x01, 0x00C81706) },
		{ 0x8f, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR",
		  PERFMON(0x36, 0x01, 0x00C81686) },
		{ 0x8f, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR",
		  PERFMON(0x36, 0x01, 0x00C81706) },
		{ 0x8f, "UNC_CHA_CLOCKTICKS", PERFMON(0x01, 0x00, 0x00000000) },
		{ 0x8f, "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA",
		  PERFMON(0x02, 0x10, 0x00000000) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x01, 0x20C81682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x01, 0x20C80682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFDATA_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x01, 0x20CCD682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x01, 0x20C88682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_PREF_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x01, 0x20CCC682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x01, 0x20C89682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDCUR_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x40, 0x20E80682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDCODE_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x40, 0x20E80E82) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDDATA_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x40, 0x20E81682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.RRQ_MISS_RDINVOWN_OPT_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x40, 0x20E82682) },
		{ 0xcf, "UNC_CHA_TOR_INSERTS.RRQ_MISS_INVXTOM_CXL_EXP_LOCAL",
		  PERFMON(0x35, 0x40, 0x20E87E82) },
		{ 0xcf, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_EXP_LOCAL",
		  PERFMON(0x36, 0x01, 0x20C81682) },
		{ 0xcf, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR",
		  PERFMON(0x36, 0x01, 0x00C81686) },
		{ 0xcf, "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA",
		  PERFMON(0x02, 0x10, 0x00000000) },
		{ 0xad, "UNC_M_CAS_COUNT_SCH0.RD", PERFMON(0x05, 0xcf, 0x00000000) },
		{ 0xad, "UNC_M_CAS_COUNT_SCH1.RD", PERFMON(0x06, 0xcf, 0x00000000) },
		{ 0xad, "UNC_M_CAS_COUNT_SCH0.WR", PERFMON(0x05, 0xf0, 0x00000000) },
		{ 0xad, "UNC_M_CAS_COUNT_SCH1.WR", PERFMON(0x06, 0xf0, 0x00000000) },
		{ 0xad, "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA",
		  PERFMON(0x41, 0x10, 0x00000000) },
		{ 0xad, "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", PERFMON(0x02, 0x20, 0x00000000) },
		{ 0xad, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C81782) },
		{ 0xad, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x36, 0x01, 0x10C81782) },
		{ 0xad, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR",
		  PERFMON(0x36, 0x01, 0x00C81706) },
	};
	char path[] = "/tmp/embm-cpuinfo-XXXXXX";
	int fd, e;

	ASSERT_NE(NULL, spr->events);
	ASSERT_NE(NULL, emr->events);
	ASSERT_NE(NULL, gnr->events);
	EXPECT_STREQ("Sapphire Rapids", spr->name);
	EXPECT_STREQ("Emerald Rapids", emr->name);
	EXPECT_STREQ("Granite Rapids", embm_unc_model("GenuineIntel", 6, 0xae)->name);
	m = embm_unc_model("AuthenticAMD", 0x19, 0x11);
	EXPECT_EQ(NULL, m->events);
	EXPECT_NE(NULL, strstr(m->absent, "amd_umc"));
	EXPECT_EQ(NULL, embm_unc_model("GenuineIntel", 6, 0x55)->events);
	for (size_t i = 0; i < ARRAY_SIZE(enc); i++) {
		m = embm_unc_model("GenuineIntel", 6, enc[i].model);
		e = find_event(m, enc[i].name);
		EXPECT_LE(0, e) TH_LOG("%s: no %s", m->name, enc[i].name);
		if (e >= 0)
			EXPECT_EQ(enc[i].config, m->events[e].config)
				TH_LOG("%s: %s", m->name, enc[i].name);
	}
	/* Every table: known units, groups of a latency each, within the limits. */
	for (const struct embm_unc_model *t = spr; t; t = t == spr ? emr : t == emr ? gnr : NULL) {
		int occ = 0, ins = 0, clk = 0;

		EXPECT_GE(EMBM_UNC_MAX_EVENTS, t->nr_events);
		for (e = 0; e < t->nr_events; e++) {
			const struct embm_unc_event *ev = &t->events[e];

			EXPECT_TRUE(!strcmp(ev->unit, "cha") || !strcmp(ev->unit, "imc") ||
				    !strcmp(ev->unit, "cxlcm") || !strcmp(ev->unit, "cxldp"));
			occ += ev->role == EMBM_UNC_OCC;
			ins += ev->role == EMBM_UNC_INS || ev->role == EMBM_UNC_RD_INS;
			clk += ev->role == EMBM_UNC_CLK;
			/* A latency's events are grouped, occupancy first (counter 0). */
			if (ev->role == EMBM_UNC_OCC || ev->role == EMBM_UNC_CLK)
				EXPECT_NE(0, ev->group) TH_LOG("%s: %s", t->name, ev->name);
		}
		EXPECT_EQ(3, occ) TH_LOG("%s", t->name);
		EXPECT_EQ(occ, clk);
		EXPECT_LE(occ, ins);
	}
	/* /proc/cpuinfo's format */
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	dprintf(fd, "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
		"model\t\t: 207\nmodel name\t: Intel(R) Xeon(R) Platinum 8580\n");
	close(fd);
	EXPECT_EQ(emr, embm_unc_model_cpuinfo(path));
	unlink(path);
	EXPECT_EQ(NULL, embm_unc_model_cpuinfo("/nonexistent")->events);
}

/*
 * PMUs found by name, all of them (more than 64 CHAs, as on Granite
 * Rapids) in box order, with their cpumasks; others ignored.  Each CPU's
 * socket from its topology.
 */
TEST(pmus_and_sockets_found_by_name)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", cpus[] = "/tmp/embm-cpus-XXXXXX";
	struct embm_unc_pmu *p;
	char name[64];
	int n, i;

	ASSERT_NE(NULL, mkdtemp(root));
	ASSERT_NE(NULL, mkdtemp(cpus));
	for (i = 0; i < 130; i++) {
		snprintf(name, sizeof(name), "uncore_cha_%d", 129 - i);
		pmu(root, name, i == 0 ? "40" : "41", "0,56");
	}
	pmu(root, "uncore_imc_0", "50", "0-1");
	pmu(root, "uncore_imc_free_running_0", "60", "0,56");
	pmu(root, "uncore_chax", "61", "0");
	pmu(root, "uncore_cha_", "62", "0");
	pmu(root, "cpu", "4", NULL);
	n = embm_unc_find(root, "cha", &p);
	ASSERT_EQ(130, n);
	EXPECT_STREQ("uncore_cha_0", p[0].name);
	EXPECT_STREQ("uncore_cha_2", p[2].name);
	EXPECT_STREQ("uncore_cha_10", p[10].name);
	EXPECT_STREQ("uncore_cha_129", p[129].name);
	EXPECT_EQ(40, p[129].type);
	ASSERT_EQ(2, p[0].nr_cpus);
	EXPECT_EQ(0, p[0].cpus[0]);
	EXPECT_EQ(56, p[0].cpus[1]);
	free(p);
	n = embm_unc_find(root, "imc", &p);
	ASSERT_EQ(1, n);
	EXPECT_EQ(50, p[0].type);
	EXPECT_EQ(2, p[0].nr_cpus);
	free(p);
	EXPECT_EQ(0, embm_unc_find(root, "cxlcm", &p));
	EXPECT_EQ(NULL, p);
	EXPECT_EQ(0, embm_unc_find("/nonexistent", "cha", &p));

	cpu_in(cpus, 0, "0\n");
	cpu_in(cpus, 56, "3\n");
	EXPECT_EQ(0, embm_unc_socket_of(cpus, 0));
	EXPECT_EQ(3, embm_unc_socket_of(cpus, 56));
	EXPECT_EQ(-1, embm_unc_socket_of(cpus, 1));
	rm_rf(root);
	rm_rf(cpus);
}

/*
 * Why a session has no bandwidth: no PMU, a model without a table, or
 * perf refusing every event (here PMU types no driver has registered);
 * then nothing stays open.
 */
TEST(open_says_why_not)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", spr[] = "/tmp/embm-cpuinfo-XXXXXX";
	char amd[] = "/tmp/embm-cpuinfo-XXXXXX", cpus[] = "/tmp/embm-cpus-XXXXXX";
	struct embm_unc_sys sys = { .evsrc = root, .cpus = cpus, .cpuinfo = spr };
	struct embm_unc_session u;
	struct embm_unc_result r;
	int fd;

	ASSERT_NE(NULL, mkdtemp(root));
	ASSERT_NE(NULL, mkdtemp(cpus));
	fd = mkstemp(spr);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n");
	close(fd);
	fd = mkstemp(amd);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n");
	close(fd);

	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "no uncore PMU"));
	EXPECT_EQ(NULL, u.model);
	EXPECT_EQ(-1, embm_unc_read(&u, &r, false));
	/* AMD has no uncore_cha: its own reason, not the PMUs' absence. */
	sys.cpuinfo = amd;
	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "AMD Zen 4/5: amd_df and amd_umc"));
	sys.cpuinfo = spr;
	pmu(root, "uncore_cha_0", "2000000000", "0");
	pmu(root, "uncore_imc_0", "2000000001", "0");
	/* CPU 0 in no known socket */
	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "no physical_package_id")) TH_LOG("%s", u.why);
	cpu_in(cpus, 0, "0");
	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "cannot count UNC_M_CAS_COUNT.RD on uncore_imc_0, CPU 0"))
		TH_LOG("%s", u.why);
	EXPECT_EQ(NULL, u.c);
	EXPECT_EQ(NULL, u.model);
	unlink(spr);
	unlink(amd);
	rm_rf(root);
	rm_rf(cpus);
}

/* The groups of @m, as embm_unc_open() makes them: a latency's events are one. */
static int groups_of(const struct embm_unc_model *m, int *first, int *size)
{
	int e, n, g = 0;

	for (e = 0; e < m->nr_events; e += n, g++) {
		for (n = 1; m->events[e].group && e + n < m->nr_events &&
		     m->events[e + n].group == m->events[e].group &&
		     !strcmp(m->events[e + n].unit, m->events[e].unit); n++)
			;
		first[g] = e;
		size[g] = n;
	}
	return g;
}

/*
 * A 2-socket Sapphire Rapids with one CXL expander on socket 0, 2 s of
 * known counts: 4 IMCs and 2 CHAs a socket, one CXLCM.  Per box: a
 * count, whether only socket 0 has it (the expander's traffic), whether
 * its group ran half its time (multiplexed).
 */
static const struct known {
	const char *name;
	uint64_t value;
	bool socket0, half;
} known[] = {
	{ "UNC_M_CAS_COUNT.RD", 500000000 },		/* 2e9 a socket: 64 GB/s */
	{ "UNC_M_CAS_COUNT.WR", 250000000 },		/* 32 GB/s */
	{ "UNC_CHA_CLOCKTICKS", 4000000000ULL },	/* 2 GHz */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR", 1000000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR", 120000000000ULL }, /* 120 cycles: 60 ns */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR", 100000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR", 26000000000ULL }, /* 130 ns */
	/* 5e8 CXL reads a socket x 64 B / 2 s = 16 GB/s; the inserts of a latency too */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 50000000, true, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_ACC", 50000000, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_ACC", 50000000, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_CXL_ACC", 50000000, true },
	/* in half the time: 5e7 inserts, 1000 cycles each at 2 GHz: 500 ns */
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 50000000000ULL, true, true },
	{ "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA", 400000000, true }, /* x 32 B: 6.4 GB/s */
};

static void fill(const struct embm_unc_model *m, struct embm_unc_count *c)
{
	c->enabled = 2000000000;
	c->running = c->enabled;
	for (int k = 0; k < c->nr; k++) {
		const struct embm_unc_event *ev = &m->events[c->event + k];

		c->value[k] = 0;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
			if (strcmp(ev->name, known[i].name) || (known[i].socket0 && c->socket))
				continue;
			c->value[k] = known[i].value;
			if (known[i].half)
				c->running = c->enabled / 2;
		}
	}
	/* The CXL latency's clock ran half the time too: its group's. */
	if (c->running != c->enabled)
		for (int k = 0; k < c->nr; k++)
			if (m->events[c->event + k].role == EMBM_UNC_CLK)
				c->value[k] /= 2;
}

TEST(two_socket_spr_with_one_expander)
{
	const struct embm_unc_model *m = embm_unc_model("GenuineIntel", 6, 0x8f);
	static struct embm_unc_count counts[1024];
	int first[EMBM_UNC_MAX_EVENTS], size[EMBM_UNC_MAX_EVENTS];
	int g, nr_groups, b, s, n = 0;
	struct embm_unc_result r;
	char *text = NULL, *line;
	size_t len = 0;
	FILE *out;

	nr_groups = groups_of(m, first, size);
	for (s = 0; s < 2; s++) {
		for (g = 0; g < nr_groups; g++) {
			const char *unit = m->events[first[g]].unit;
			int boxes = !strcmp(unit, "imc") ? 4 : !strcmp(unit, "cha") ? 2 : 1;

			for (b = 0; b < boxes; b++, n++) {
				counts[n] = (struct embm_unc_count){ first[g], size[g], s };
				fill(m, &counts[n]);
			}
		}
	}
	embm_unc_compute(m, 2, counts, n, &r);
	ASSERT_EQ(2, r.nr_sockets);
	NEAR(64.0, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(32.0, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(60.0, r.tier[0][EMBM_UNC_DRAM].lat_ns);
	NEAR(130.0, r.tier[0][EMBM_UNC_RDRAM].lat_ns);
	NEAR(16.0, r.tier[0][EMBM_UNC_CXL].rd_gbps);
	NEAR(6.4, r.tier[0][EMBM_UNC_CXL].wr_gbps);
	NEAR(500.0, r.tier[0][EMBM_UNC_CXL].lat_ns);
	EXPECT_EQ(0.5, r.tier[0][EMBM_UNC_CXL].running);
	EXPECT_EQ(1.0, r.tier[0][EMBM_UNC_DRAM].running);
	/* No expander on socket 1: no CXL traffic, no latency to give. */
	EXPECT_EQ(0, r.tier[1][EMBM_UNC_CXL].rd_gbps);
	EXPECT_EQ(-1, r.tier[1][EMBM_UNC_CXL].lat_ns);
	NEAR(64.0, r.tier[1][EMBM_UNC_DRAM].rd_gbps);
	/* The report as it would print, as TAP comments. */
	out = open_memstream(&text, &len);
	ASSERT_NE(NULL, out);
	embm_unc_print(out, m, &r);
	fclose(out);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		printf("# %s\n", line);
	free(text);

	/*
	 * A CHA whose CXL latency group never ran (multiplexed out): the
	 * other CHA's stands for the socket.  An IMC whose CAS read count
	 * never ran makes the socket's DRAM reads unavailable, not less.
	 */
	for (g = 0; g < n; g++) {
		const struct embm_unc_event *ev = &m->events[counts[g].event];

		if (counts[g].socket == 0 && !strcmp(ev->name,
						     "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC")) {
			counts[g].running = 0;
			break;
		}
	}
	for (g = 0; g < n; g++) {
		if (counts[g].socket == 0 &&
		    !strcmp(m->events[counts[g].event].name, "UNC_M_CAS_COUNT.RD")) {
			counts[g].running = 0;
			break;
		}
	}
	embm_unc_compute(m, 2, counts, n, &r);
	NEAR(500.0, r.tier[0][EMBM_UNC_CXL].lat_ns);
	EXPECT_EQ(0, r.tier[0][EMBM_UNC_CXL].running);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_CXL].rd_gbps);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(32.0, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(64.0, r.tier[1][EMBM_UNC_DRAM].rd_gbps);
}

/*
 * Granite Rapids, 1 s: DRAM reads from both schedulers' CAS counts; CXL
 * reads and writes at the CXL ports.
 */
TEST(granite_rapids_known_counts)
{
	const struct embm_unc_model *m = embm_unc_model("GenuineIntel", 6, 0xad);
	struct embm_unc_count counts[EMBM_UNC_MAX_EVENTS];
	int first[EMBM_UNC_MAX_EVENTS], size[EMBM_UNC_MAX_EVENTS];
	struct embm_unc_result r;
	int g, n = groups_of(m, first, size);

	for (g = 0; g < n; g++) {
		counts[g] = (struct embm_unc_count){ first[g], size[g], 0, 1000000000, 1000000000 };
		for (int k = 0; k < size[g]; k++)
			counts[g].value[k] = 1000000;
	}
	embm_unc_compute(m, 1, counts, n, &r);
	NEAR(0.128, r.tier[0][EMBM_UNC_DRAM].rd_gbps);	/* 2 x 1e6 x 64 B in 1 s */
	NEAR(0.128, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(0.064, r.tier[0][EMBM_UNC_CXL].rd_gbps);
	NEAR(0.064, r.tier[0][EMBM_UNC_CXL].wr_gbps);
	/* 1e6 cycles x requests / 1e6 requests = 1 cycle at 1 MHz: 1000 ns */
	NEAR(1000.0, r.tier[0][EMBM_UNC_DRAM].lat_ns);
	NEAR(1000.0, r.tier[0][EMBM_UNC_CXL].lat_ns);
}

/* A small JSON checker: value := object | array | string | number | literal. */
static const char *json_value(const char *p);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p && *p != '"'; p++)
		if (*p == '\\' && !*++p)
			return NULL;
		else if ((unsigned char)*p < 0x20)
			return NULL;
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_list(const char *p, char close, bool members)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (members) {
			p = json_string(json_ws(p));
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = json_value(p);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p)
{
	char *end;

	p = json_ws(p);
	if (*p == '{')
		return json_list(p, '}', true);
	if (*p == '[')
		return json_list(p, ']', false);
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "null", 4) || !strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	strtod(p, &end);
	return end > p ? end : NULL;
}

/* The members embm_unc_report() writes, in an object: valid JSON, or why not. */
static bool report_is_json(const struct embm_unc_session *u, const struct embm_unc_result *r,
			   char **text)
{
	size_t len = 0;
	const char *end;
	FILE *f = open_memstream(text, &len);

	fprintf(f, "{\"version\": 3");
	embm_unc_report(f, u, r, true);
	fprintf(f, "}");
	fclose(f);
	end = json_value(*text);
	return end && !*json_ws(end);
}

/*
 * The whole path, run: software events stand in for the uncore ones under
 * uncore PMU names of a fake tree (type 1, PERF_TYPE_SOFTWARE), on two
 * CPUs put in packages 0 and 1.  CPU-wide cpu-clock counts 1e9 a second
 * wherever it runs: as bytes, 1 GB/s a box; as occupancy, inserts and
 * clock of one group, a latency of 1 ns.  A dummy event counts 0.  The
 * CXLCM is on socket 1 only; the CXLDP's PMU type is refused, which costs
 * the CXL writes only.  The soft limit of open files is raised as needed.
 */
static const struct embm_unc_event soft_events[] = {
	{ "imc", "cpu-clock as reads", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_DRAM, EMBM_UNC_RD, 1 },
	{ "imc", "dummy as writes", PERF_COUNT_SW_DUMMY, EMBM_UNC_DRAM, EMBM_UNC_WR, 64 },
	{ "cha", "cpu-clock as occupancy", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_DRAM, EMBM_UNC_OCC,
	  0, 1 },
	{ "cha", "cpu-clock as inserts", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_DRAM, EMBM_UNC_INS,
	  0, 1 },
	{ "cha", "cpu-clock as clock", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_DRAM, EMBM_UNC_CLK, 0, 1 },
	{ "cha", "cpu-clock as CXL occupancy", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_CXL, EMBM_UNC_OCC,
	  0, 2 },
	{ "cha", "dummy as CXL reads", PERF_COUNT_SW_DUMMY, EMBM_UNC_CXL, EMBM_UNC_RD_INS, 64, 2 },
	{ "cha", "cpu-clock as CXL clock", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_CXL, EMBM_UNC_CLK,
	  0, 2 },
	{ "cxlcm", "cpu-clock as CXL reads", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_CXL, EMBM_UNC_RD,
	  2 },
	{ "cxldp", "refused as CXL writes", 0, EMBM_UNC_CXL, EMBM_UNC_WR, 64 },
};

static const struct embm_unc_model soft_model = {
	"software events", soft_events, ARRAY_SIZE(soft_events), NULL
};

TEST(open_read_close_on_software_events)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", cpus[] = "/tmp/embm-cpus-XXXXXX";
	struct embm_unc_sys sys = { .evsrc = root, .cpus = cpus, .model = &soft_model };
	struct timespec tenth = { 0, 100000000 };
	struct embm_unc_session u;
	struct embm_unc_result r;
	struct rlimit rl, low;
	char *text = NULL;
	int pass;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || access("/sys/devices/system/cpu/cpu1", F_OK))
		SKIP(return, "needs CPUs 0 and 1 online");
	ASSERT_NE(NULL, mkdtemp(root));
	ASSERT_NE(NULL, mkdtemp(cpus));
	pmu(root, "uncore_imc_0", "1", "0-1");
	pmu(root, "uncore_imc_1", "1", "0-1");
	pmu(root, "uncore_cha_0", "1", "0-1");
	pmu(root, "uncore_cxlcm_0", "1", "1");
	pmu(root, "uncore_cxldp_0", "2000000000", "0-1");
	cpu_in(cpus, 0, "0");
	cpu_in(cpus, 1, "1");
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	low = rl;
	low.rlim_cur = 16;	/* fewer than the 23 events and the fds open */
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &low));

	ASSERT_EQ(0, embm_unc_open(&u, &sys)) TH_LOG("%s", u.why);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &low));
	EXPECT_EQ(rl.rlim_max, low.rlim_cur);
	EXPECT_EQ(2, u.nr_sockets);
	/* (2 IMCs x 2 events + 2 CHA groups) x 2 CPUs + 1 CXLCM + 2 CXLDP */
	EXPECT_EQ(15, u.nr);
	EXPECT_NE(NULL, strstr(u.note, "cannot count refused as CXL writes on uncore_cxldp_0"))
		TH_LOG("%s", u.note);
	for (pass = 0; pass < 2; pass++) {
		nanosleep(&tenth, NULL);
		/* the whole time, then the time since */
		ASSERT_EQ(0, embm_unc_read(&u, &r, pass));
		EXPECT_TRUE(near(0.1, u.seconds, 0.5)) TH_LOG("%g s", u.seconds);
		ASSERT_EQ(2, r.nr_sockets);
		EXPECT_EQ(0, r.socket_id[0]);
		EXPECT_EQ(1, r.socket_id[1]);
		for (int s = 0; s < 2; s++) {
			const struct embm_unc_tier_result *d = &r.tier[s][EMBM_UNC_DRAM];
			const struct embm_unc_tier_result *c = &r.tier[s][EMBM_UNC_CXL];

			EXPECT_TRUE(near(2.0, d->rd_gbps, 0.02)) TH_LOG("%d: %g", s, d->rd_gbps);
			EXPECT_EQ(0, d->wr_gbps);
			EXPECT_TRUE(near(1.0, d->lat_ns, 0.02)) TH_LOG("%d: %g", s, d->lat_ns);
			EXPECT_EQ(1.0, d->running);
			EXPECT_EQ(-1, r.tier[s][EMBM_UNC_RDRAM].lat_ns);
			/* the CXLCM's reads on socket 1; no inserts, no latency */
			EXPECT_TRUE(s ? near(2.0, c->rd_gbps, 0.02) : c->rd_gbps == 0)
				TH_LOG("%d: %g", s, c->rd_gbps);
			EXPECT_EQ(-1, c->wr_gbps);
			EXPECT_EQ(-1, c->lat_ns);
		}
	}
	EXPECT_TRUE(report_is_json(&u, &r, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"bandwidth\": {\"model\": \"software events\""));
	EXPECT_NE(NULL, strstr(text, "{\"socket\": 1, \"tier\": \"CXL\", \"rd_gbps\": 2."));
	EXPECT_NE(NULL, strstr(text, "\"wr_gbps\": null"));
	EXPECT_NE(NULL, strstr(text, "\"note\": \"cannot count refused"));
	free(text);
	embm_unc_close(&u);
	EXPECT_EQ(NULL, u.c);
	EXPECT_EQ(0, embm_unc_read(&u, &r, false) + 1);	/* closed: -1 */

	/* Unavailable, as JSON: the reason escaped. */
	memset(&u, 0, sizeof(u));
	snprintf(u.why, sizeof(u.why), "a \"quoted\"\treason");
	EXPECT_TRUE(report_is_json(&u, &r, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "_unavailable\": \"a \\\"quoted\\\"\\u0009reason\""))
		TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"bandwidth\": null,")) TH_LOG("%s", text);
	free(text);
	setrlimit(RLIMIT_NOFILE, &rl);
	rm_rf(root);
	rm_rf(cpus);
}

TEST_HARNESS_MAIN
