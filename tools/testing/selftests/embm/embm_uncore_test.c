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

/* The groups of @m, as embm_unc_open() makes them: a latency's events are one. */
static int groups_of(const struct embm_unc_model *m, int *first, int *size)
{
	int e, g = 0;

	for (e = 0; e < m->nr_events; e += size[g++]) {
		first[g] = e;
		size[g] = embm_unc_group_size(m, e);
	}
	return g;
}

/* perfmon's EventCode, UMask and UMaskExt as the Linux uncore PMU takes them */
#define PERFMON(event, umask, ext)	((event) | (umask) << 8 | (uint64_t)(ext) << 32)

/*
 * Each supported model has a table whose encodings are those typed here
 * a second time from perfmon (intel/perfmon @6dadedf3) and PCM, and whose
 * groups are what the arithmetic needs; the others say why they have none.
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
	/*
	 * Every table: known units; a latency is one group of its
	 * occupancy first (counter 0), inserts and clock, all of one tier;
	 * other groups only sum bytes.  Three latencies a model.
	 */
	for (const struct embm_unc_model *t = spr; t; t = t == spr ? emr : t == emr ? gnr : NULL) {
		int first[EMBM_UNC_MAX_EVENTS], size[EMBM_UNC_MAX_EVENTS], g, n, lats = 0;

		EXPECT_GE(EMBM_UNC_MAX_EVENTS, t->nr_events);
		for (e = 0; e < t->nr_events; e++) {
			const struct embm_unc_event *ev = &t->events[e];

			EXPECT_TRUE(!strcmp(ev->unit, "cha") || !strcmp(ev->unit, "imc") ||
				    !strcmp(ev->unit, "cxlcm") || !strcmp(ev->unit, "cxldp"));
		}
		n = groups_of(t, first, size);
		for (g = 0; g < n; g++) {
			const struct embm_unc_event *ev = &t->events[first[g]];
			int occ = 0, ins = 0, clk = 0, k;

			for (k = 0; k < size[g]; k++) {
				occ += ev[k].role == EMBM_UNC_OCC;
				ins += ev[k].role == EMBM_UNC_INS || ev[k].role == EMBM_UNC_RD_INS;
				clk += ev[k].role == EMBM_UNC_CLK;
				EXPECT_EQ(ev[0].tier, ev[k].tier) TH_LOG("%s", ev[k].name);
			}
			if (!occ && !clk) {
				EXPECT_TRUE(ins == 0 || ev[0].role == EMBM_UNC_RD_INS);
				continue;
			}
			lats++;
			EXPECT_EQ(3, size[g]) TH_LOG("%s: %s", t->name, ev[0].name);
			EXPECT_EQ(EMBM_UNC_OCC, ev[0].role) TH_LOG("%s: %s", t->name, ev[0].name);
			EXPECT_EQ(1, occ);
			EXPECT_EQ(1, ins);
			EXPECT_EQ(1, clk);
			EXPECT_STREQ("cha", ev[0].unit);
		}
		EXPECT_EQ(3, lats) TH_LOG("%s", t->name);
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
	/* perf's refusal is the reason, not a CPU of unknown socket before it */
	pmu(root, "uncore_cxlcm_0", "2000000002", "7");
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

/*
 * A 2-socket Sapphire Rapids with one CXL expander on socket 0, 2 s of
 * known counts: 4 IMCs and 2 CHAs a socket, one CXLCM.  Per box: a
 * count (@box1 for the second CHA, if not 0), whether only socket 0 has
 * it (the expander's traffic), whether its group ran half its time
 * (multiplexed).
 */
static const struct known {
	const char *name;
	uint64_t value, box1;
	bool socket0, half;
} known[] = {
	{ "UNC_M_CAS_COUNT.RD", 500000000 },		/* 2e9 a socket: 64 GB/s */
	{ "UNC_M_CAS_COUNT.WR", 250000000 },		/* 32 GB/s */
	{ "UNC_CHA_CLOCKTICKS", 4000000000ULL },	/* 2 GHz */
	/*
	 * Local DDR: CHA 0 has 0.3 inserts a ns and 100 ns (30 in the TOR),
	 * CHA 1 0.1 a ns and 300 ns (30 too): Little's law over the socket,
	 * 60 / 0.4 = 150 ns, not the mean of the two (200).
	 */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR", 600000000, 200000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR", 120000000000ULL },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR", 100000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR", 26000000000ULL }, /* 130 ns */
	/* 5e8 CXL reads a socket x 64 B / 2 s = 16 GB/s; the inserts of a latency too */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 50000000, 0, true, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_ACC", 50000000, 0, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_ACC", 50000000, 0, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_CXL_ACC", 50000000, 0, true },
	/* in half the time: 5e7 inserts, 1000 cycles each at 2 GHz: 500 ns */
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 50000000000ULL, 0, true, true },
	{ "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA", 400000000, 0, true }, /* x 32 B: 6.4 GB/s */
};

static void fill(const struct embm_unc_model *m, struct embm_unc_count *c, int box)
{
	c->enabled = 2000000000;
	c->running = c->enabled;
	for (int k = 0; k < c->nr; k++) {
		const struct embm_unc_event *ev = &m->events[c->event + k];

		c->value[k] = 0;
		for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
			if (strcmp(ev->name, known[i].name) || (known[i].socket0 && c->socket))
				continue;
			c->value[k] = box && known[i].box1 ? known[i].box1 : known[i].value;
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
				fill(m, &counts[n], b);
			}
		}
	}
	embm_unc_compute(m, 2, counts, n, &r);
	ASSERT_EQ(2, r.nr_sockets);
	NEAR(64.0, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(32.0, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(150.0, r.tier[0][EMBM_UNC_DRAM].lat_ns);
	NEAR(130.0, r.tier[0][EMBM_UNC_RDRAM].lat_ns);
	NEAR(16.0, r.tier[0][EMBM_UNC_CXL].rd_gbps);
	NEAR(6.4, r.tier[0][EMBM_UNC_CXL].wr_gbps);
	NEAR(500.0, r.tier[0][EMBM_UNC_CXL].lat_ns);
	EXPECT_EQ(0.5, r.tier[0][EMBM_UNC_CXL].running);
	EXPECT_EQ(0.5, r.tier[0][EMBM_UNC_CXL].lat_running);
	EXPECT_EQ(1.0, r.tier[0][EMBM_UNC_DRAM].running);
	EXPECT_EQ(1.0, r.tier[0][EMBM_UNC_DRAM].lat_running);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_RDRAM].running);	/* no bandwidth events */
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
	 * other CHA's stands for the socket, and the share is half what it
	 * was.  An IMC whose CAS read count never ran makes the socket's
	 * DRAM reads unavailable, not less.
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
	EXPECT_EQ(0.25, r.tier[0][EMBM_UNC_CXL].lat_running);
	EXPECT_EQ(0, r.tier[0][EMBM_UNC_CXL].running);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_CXL].rd_gbps);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(32.0, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(64.0, r.tier[1][EMBM_UNC_DRAM].rd_gbps);
}

/*
 * Granite Rapids, 1 s, a count of its own for each event: DRAM reads from
 * both schedulers' CAS counts; CXL reads and writes at the CXL ports.
 */
static const struct known gnr_known[] = {
	{ "UNC_M_CAS_COUNT_SCH0.RD", 1000000 },
	{ "UNC_M_CAS_COUNT_SCH1.RD", 2000000 },		/* 3e6 x 64 B: 0.192 GB/s */
	{ "UNC_M_CAS_COUNT_SCH0.WR", 3000000 },
	{ "UNC_M_CAS_COUNT_SCH1.WR", 4000000 },		/* 7e6 x 64 B: 0.448 GB/s */
	{ "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA", 5000000 },	/* 0.32 GB/s */
	{ "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", 6000000 },	/* 0.384 GB/s */
	{ "UNC_CHA_CLOCKTICKS", 2000000000 },			/* 2 GHz */
	/* 1e7 inserts in 1 s, 0.5, 1 and 3 in the TOR: 50, 100 and 300 ns */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL_DDR", 10000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_LOCAL_DDR", 1000000000 },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE_DDR", 10000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_REMOTE_DDR", 2000000000 },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 10000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 6000000000ULL },
};

TEST(granite_rapids_known_counts)
{
	const struct embm_unc_model *m = embm_unc_model("GenuineIntel", 6, 0xad);
	struct embm_unc_count counts[EMBM_UNC_MAX_EVENTS];
	int first[EMBM_UNC_MAX_EVENTS], size[EMBM_UNC_MAX_EVENTS];
	struct embm_unc_result r;
	int g, k, n = groups_of(m, first, size);

	for (g = 0; g < n; g++) {
		counts[g] = (struct embm_unc_count){ first[g], size[g], 0, 1000000000, 1000000000 };
		for (k = 0; k < size[g]; k++) {
			const char *name = m->events[first[g] + k].name;
			size_t i;

			for (i = 0; i < ARRAY_SIZE(gnr_known); i++)
				if (!strcmp(name, gnr_known[i].name))
					break;
			ASSERT_GT(ARRAY_SIZE(gnr_known), i) TH_LOG("no count for %s", name);
			counts[g].value[k] = gnr_known[i].value;
		}
	}
	embm_unc_compute(m, 1, counts, n, &r);
	NEAR(0.192, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(0.448, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(0.32, r.tier[0][EMBM_UNC_CXL].rd_gbps);
	NEAR(0.384, r.tier[0][EMBM_UNC_CXL].wr_gbps);
	NEAR(50.0, r.tier[0][EMBM_UNC_DRAM].lat_ns);
	NEAR(100.0, r.tier[0][EMBM_UNC_RDRAM].lat_ns);
	NEAR(300.0, r.tier[0][EMBM_UNC_CXL].lat_ns);
}

/* A small JSON checker: value := object | array | string | number | literal. */
static const char *json_value(const char *p);

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		p += strspn(p, "0123456789");
	else
		return NULL;
	if (*p == '.') {
		if (!strspn(p + 1, "0123456789"))
			return NULL;
		p += 1 + strspn(p + 1, "0123456789");
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!strspn(p, "0123456789"))
			return NULL;
		p += strspn(p, "0123456789");
	}
	return p;
}

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
	return json_number(p);
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
 * CXLCM is on socket 1 only; the CXLDP's PMU type is refused, and so is
 * the second event of a group (a config no software event has), which
 * closes its first again: that costs the CXL writes only.  The soft limit
 * of open files is raised as needed, and every fd is closed at the end.
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
	{ "cha", "cpu-clock as CXL writes", PERF_COUNT_SW_CPU_CLOCK, EMBM_UNC_CXL, EMBM_UNC_WR,
	  1, 3 },
	{ "cha", "a refused sibling", 1000, EMBM_UNC_CXL, EMBM_UNC_WR, 1, 3 },
};

/* The fds this process has open. */
static int open_fds(void)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 4096; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += !access(path, F_OK);
	}
	return n;
}

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
	int pass, fds;

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

	fds = open_fds();
	ASSERT_EQ(0, embm_unc_open(&u, &sys)) TH_LOG("%s", u.why);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &low));
	EXPECT_EQ(rl.rlim_max, low.rlim_cur);
	EXPECT_EQ(2, u.nr_sockets);
	/* (2 IMCs x 2 events + 3 CHA groups) x 2 CPUs + 1 CXLCM + 2 CXLDP */
	EXPECT_EQ(17, u.nr);
	/* open: (2 x 2 + 3 + 3) x 2 + 1; the refused ones and their groups closed */
	EXPECT_EQ(fds + 21, open_fds());
	/* Nothing counts before embm_unc_enable(). */
	nanosleep(&tenth, NULL);
	ASSERT_EQ(0, embm_unc_read(&u, &r, false));
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	EXPECT_EQ(0, r.tier[0][EMBM_UNC_DRAM].running);
	embm_unc_enable(&u);
	EXPECT_NE(NULL, strstr(u.note, "cannot count refused as CXL writes on uncore_cxldp_0"))
		TH_LOG("%s", u.note);
	for (pass = 0; pass < 2; pass++) {
		nanosleep(&tenth, NULL);
		/* the whole time, then the time since; a read's note is its own */
		snprintf(u.read_note, sizeof(u.read_note), "an earlier read's");
		ASSERT_EQ(0, embm_unc_read(&u, &r, pass));
		EXPECT_STREQ("", u.read_note);
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
			EXPECT_EQ(1.0, d->lat_running);
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
	EXPECT_EQ(fds, open_fds());
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
