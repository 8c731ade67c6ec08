// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' uncore tables and arithmetic (tools/embm/uncore.c), with known
 * counts and fake event-source and CPU trees; and the whole open, read and
 * close path, run on software events put under uncore PMU names: no VM
 * has uncore PMUs, so this is all of it that runs here.
 */
#include <errno.h>
#include <fcntl.h>
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
 * The fields of the kernel's JSON as amd_l3's format has them on family
 * 0x19 on (event config:0-7, umask 8-15, enallslices 46, enallcores 47,
 * sliceid 48-50, threadmask 56-57), and amd_umc's (event 0-7, rdwrmask 8-9).
 */
#define AMD_L3(event, umask, allcores, allslices, sliceid, threadmask)			\
	((event) | (umask) << 8 | (uint64_t)(allslices) << 46 |			\
	 (uint64_t)(allcores) << 47 | (uint64_t)(sliceid) << 48 | (uint64_t)(threadmask) << 56)
#define AMD_UMC(event, rdwrmask)	((event) | (rdwrmask) << 8)

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
		/* perfmon SRF V1.18, GRR V1.13, CWF V1.04 */
		{ 0xaf, "UNC_M_CAS_COUNT_SCH0.RD", PERFMON(0x05, 0xCF, 0x00000000) },
		{ 0xaf, "UNC_M_CAS_COUNT_SCH1.RD", PERFMON(0x06, 0xCF, 0x00000000) },
		{ 0xaf, "UNC_M_CAS_COUNT_SCH0.WR", PERFMON(0x05, 0xF0, 0x00000000) },
		{ 0xaf, "UNC_M_CAS_COUNT_SCH1.WR", PERFMON(0x06, 0xF0, 0x00000000) },
		{ 0xaf, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_OPT", PERFMON(0x36, 0x01, 0x00C827FE) },
		{ 0xaf, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_OPT", PERFMON(0x35, 0x01, 0x00C827FE) },
		{ 0xaf, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x36, 0x01, 0x10C81782) },
		{ 0xaf, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C81782) },
		{ 0xaf, "UNC_CHA_CLOCKTICKS", PERFMON(0x01, 0x00, 0x00000000) },
		{ 0xaf, "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA",
		  PERFMON(0x41, 0x10, 0x00000000) },
		{ 0xaf, "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", PERFMON(0x02, 0x20, 0x00000000) },
		{ 0xb6, "UNC_M_CAS_COUNT_SCH0.RD", PERFMON(0x05, 0xCF, 0x00000000) },
		{ 0xb6, "UNC_M_CAS_COUNT_SCH1.RD", PERFMON(0x06, 0xCF, 0x00000000) },
		{ 0xb6, "UNC_M_CAS_COUNT_SCH0.WR", PERFMON(0x05, 0xF0, 0x00000000) },
		{ 0xb6, "UNC_M_CAS_COUNT_SCH1.WR", PERFMON(0x06, 0xF0, 0x00000000) },
		{ 0xb6, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_OPT", PERFMON(0x36, 0x01, 0x00C827FE) },
		{ 0xb6, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_OPT", PERFMON(0x35, 0x01, 0x00C827FE) },
		{ 0xb6, "UNC_CHA_CLOCKTICKS", PERFMON(0x01, 0x00, 0x00000000) },
		{ 0xdd, "UNC_M_CAS_COUNT_SCH0.RD", PERFMON(0x05, 0xCF, 0x00000000) },
		{ 0xdd, "UNC_M_CAS_COUNT_SCH1.RD", PERFMON(0x06, 0xCF, 0x00000000) },
		{ 0xdd, "UNC_M_CAS_COUNT_SCH0.WR", PERFMON(0x05, 0xF0, 0x00000000) },
		{ 0xdd, "UNC_M_CAS_COUNT_SCH1.WR", PERFMON(0x06, 0xF0, 0x00000000) },
		{ 0xdd, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_OPT", PERFMON(0x36, 0x01, 0x00C827FE) },
		{ 0xdd, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_OPT", PERFMON(0x35, 0x01, 0x00C827FE) },
		{ 0xdd, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x36, 0x01, 0x10C81782) },
		{ 0xdd, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC",
		  PERFMON(0x35, 0x01, 0x10C81782) },
		{ 0xdd, "UNC_CHA_CLOCKTICKS", PERFMON(0x01, 0x00, 0x00000000) },
		{ 0xdd, "UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA",
		  PERFMON(0x41, 0x10, 0x00000000) },
		{ 0xdd, "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA", PERFMON(0x02, 0x20, 0x00000000) },
	};
	/* the kernel's amdzen4 and amdzen5 lists, in amd_l3's and amd_umc's formats */
	static const struct {
		int family, model;
		const char *name;
		uint64_t config;
	} amd_enc[] = {
		{ 0x19, 0x11, "umc_cas_cmd.rd", AMD_UMC(0x0a, 0x1) },
		{ 0x19, 0x11, "umc_cas_cmd.wr", AMD_UMC(0x0a, 0x2) },
		{ 0x1a, 0x02, "umc_cas_cmd.rd", AMD_UMC(0x0a, 0x1) },
		{ 0x1a, 0x02, "umc_cas_cmd.wr", AMD_UMC(0x0a, 0x2) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency.dram_near", AMD_L3(0xac, 0x01, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency.dram_far", AMD_L3(0xac, 0x02, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency.ext_near", AMD_L3(0xac, 0x10, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency.ext_far", AMD_L3(0xac, 0x20, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency_requests.dram_near",
		  AMD_L3(0xad, 0x01, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency_requests.dram_far",
		  AMD_L3(0xad, 0x02, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency_requests.ext_near",
		  AMD_L3(0xad, 0x10, 1, 1, 3, 3) },
		{ 0x1a, 0x02, "l3_xi_sampled_latency_requests.ext_far",
		  AMD_L3(0xad, 0x20, 1, 1, 3, 3) },
	};
	/* each table, and its latency groups */
	static const struct {
		const char *vendor;
		int family, model, lats;
	} tables[] = {
		{ "GenuineIntel", 6, 0x8f, 3 }, { "GenuineIntel", 6, 0xcf, 3 },
		{ "GenuineIntel", 6, 0xad, 3 }, { "GenuineIntel", 6, 0xaf, 2 },
		{ "GenuineIntel", 6, 0xb6, 1 }, { "GenuineIntel", 6, 0xdd, 2 },
		{ "AuthenticAMD", 0x19, 0x11, 0 }, { "AuthenticAMD", 0x1a, 0x02, 3 },
	};
	char path[] = "/tmp/embm-cpuinfo-XXXXXX";
	int fd, e;

	ASSERT_NE(NULL, spr->events);
	ASSERT_NE(NULL, emr->events);
	ASSERT_NE(NULL, gnr->events);
	EXPECT_STREQ("Sapphire Rapids", spr->name);
	EXPECT_STREQ("Emerald Rapids", emr->name);
	EXPECT_STREQ("Granite Rapids", embm_unc_model("GenuineIntel", 6, 0xae)->name);
	EXPECT_STREQ("Sierra Forest", embm_unc_model("GenuineIntel", 6, 0xaf)->name);
	EXPECT_STREQ("Grand Ridge", embm_unc_model("GenuineIntel", 6, 0xb6)->name);
	EXPECT_STREQ("Clearwater Forest", embm_unc_model("GenuineIntel", 6, 0xdd)->name);
	/* Zen 4 and Zen 5 as arch/x86/kernel/cpu/amd.c has them; no others claimed */
	EXPECT_STREQ("AMD Zen 4", embm_unc_model("AuthenticAMD", 0x19, 0x11)->name);
	EXPECT_STREQ("AMD Zen 4", embm_unc_model("AuthenticAMD", 0x19, 0xa0)->name);
	EXPECT_STREQ("AMD Zen 5", embm_unc_model("AuthenticAMD", 0x1a, 0x02)->name);
	EXPECT_STREQ("AMD Zen 5", embm_unc_model("AuthenticAMD", 0x1a, 0x44)->name);
	EXPECT_EQ(NULL, embm_unc_model("AuthenticAMD", 0x1a, 0x50)->events);
	EXPECT_EQ(NULL, embm_unc_model("AuthenticAMD", 0x19, 0x30)->events);
	m = embm_unc_model("AuthenticAMD", 0x19, 0x01);
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
	for (size_t i = 0; i < ARRAY_SIZE(amd_enc); i++) {
		m = embm_unc_model("AuthenticAMD", amd_enc[i].family, amd_enc[i].model);
		e = find_event(m, amd_enc[i].name);
		EXPECT_LE(0, e) TH_LOG("%s: no %s", m->name, amd_enc[i].name);
		if (e >= 0)
			EXPECT_EQ(amd_enc[i].config, m->events[e].config)
				TH_LOG("%s: %s", m->name, amd_enc[i].name);
	}
	/* no L3 latency on Zen 4: its unit is core clocks */
	EXPECT_EQ(-1, find_event(embm_unc_model("AuthenticAMD", 0x19, 0x11),
				 "l3_xi_sampled_latency.dram_near"));
	/*
	 * Every table: known units; an Intel latency is one group of its
	 * occupancy first (counter 0), inserts and clock on a CHA, an AMD one
	 * pairs of latency sums (10 ns a count) and requests on the L3, all
	 * of one tier; other groups only sum bytes.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		int first[EMBM_UNC_MAX_EVENTS], size[EMBM_UNC_MAX_EVENTS], g, n, lats = 0;
		const struct embm_unc_model *t;

		t = embm_unc_model(tables[i].vendor, tables[i].family, tables[i].model);
		ASSERT_NE(NULL, t->events) TH_LOG("%s", t->name);
		EXPECT_GE(EMBM_UNC_MAX_EVENTS, t->nr_events);
		for (e = 0; e < t->nr_events; e++) {
			const struct embm_unc_event *ev = &t->events[e];

			EXPECT_TRUE(!strcmp(ev->unit, "cha") || !strcmp(ev->unit, "imc") ||
				    !strcmp(ev->unit, "cxlcm") || !strcmp(ev->unit, "cxldp") ||
				    !strcmp(ev->unit, "amd_l3") || !strcmp(ev->unit, "amd_umc"));
		}
		n = groups_of(t, first, size);
		for (g = 0; g < n; g++) {
			const struct embm_unc_event *ev = &t->events[first[g]];
			int occ = 0, ins = 0, clk = 0, sum = 0, req = 0, k;

			for (k = 0; k < size[g]; k++) {
				occ += ev[k].role == EMBM_UNC_OCC;
				ins += ev[k].role == EMBM_UNC_INS || ev[k].role == EMBM_UNC_RD_INS;
				clk += ev[k].role == EMBM_UNC_CLK;
				sum += ev[k].role == EMBM_UNC_LAT_SUM;
				req += ev[k].role == EMBM_UNC_LAT_REQ;
				if (ev[k].role == EMBM_UNC_LAT_SUM)
					EXPECT_EQ(10, ev[k].scale);
				EXPECT_EQ(ev[0].tier, ev[k].tier) TH_LOG("%s", ev[k].name);
			}
			if (sum || req) {
				lats++;
				EXPECT_EQ(sum, req) TH_LOG("%s: %s", t->name, ev[0].name);
				EXPECT_EQ(2 * sum, size[g]);
				EXPECT_STREQ("amd_l3", ev[0].unit);
				continue;
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
		EXPECT_EQ(tables[i].lats, lats) TH_LOG("%s", t->name);
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
 * Rapids) in box order, with their cpumasks; others ignored.  AMD's under
 * their own names: one amd_l3 with a CPU an L3, amd_umc_0.. one a memory
 * controller.  Each CPU's socket from its topology.
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
	for (i = 0; i < 24; i++) {
		snprintf(name, sizeof(name), "amd_umc_%d", 23 - i);
		pmu(root, name, i == 0 ? "70" : "71", i < 12 ? "96" : "0");
	}
	pmu(root, "amd_l3", "80", "0,8,16-18,96,104");
	pmu(root, "amd_df", "81", "0,96");
	pmu(root, "amd_umcx", "82", "0");
	pmu(root, "amd_umc_", "83", "0");
	pmu(root, "amd_l3_x", "84", "0");
	n = embm_unc_find(root, "amd_umc", &p);
	ASSERT_EQ(24, n);
	EXPECT_STREQ("amd_umc_0", p[0].name);
	EXPECT_STREQ("amd_umc_10", p[10].name);
	EXPECT_EQ(70, p[23].type);
	EXPECT_EQ(96, p[23].cpus[0]);
	EXPECT_EQ(1, p[23].nr_cpus);
	free(p);
	n = embm_unc_find(root, "amd_l3", &p);
	ASSERT_EQ(1, n);
	EXPECT_STREQ("amd_l3", p[0].name);
	ASSERT_EQ(7, p[0].nr_cpus);
	EXPECT_EQ(17, p[0].cpus[3]);
	EXPECT_EQ(104, p[0].cpus[6]);
	free(p);
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
 * Why a session has no bandwidth: no PMU (of the model's table, or of any
 * kind embm knows for a model without one), a model without a table, or
 * perf refusing every event (here PMU types no driver has registered);
 * then nothing stays open.
 */
TEST(open_says_why_not)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", spr[] = "/tmp/embm-cpuinfo-XXXXXX";
	char amd[] = "/tmp/embm-cpuinfo-XXXXXX", cpus[] = "/tmp/embm-cpus-XXXXXX";
	char zen3[] = "/tmp/embm-cpuinfo-XXXXXX";
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
	fd = mkstemp(zen3);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n");
	close(fd);

	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "no uncore PMU (uncore_imc*, uncore_cha*, uncore_cxlcm*)"))
		TH_LOG("%s", u.why);
	EXPECT_NE(NULL, strstr(u.why, "intel_uncore"));
	EXPECT_EQ(NULL, u.model);
	EXPECT_EQ(-1, embm_unc_read(&u, &r, false));
	/* Zen 4 looks for its own PMUs, and says which. */
	sys.cpuinfo = amd;
	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "no uncore PMU (amd_umc*) in")) TH_LOG("%s", u.why);
	EXPECT_NE(NULL, strstr(u.why, "no AMD uncore PMUs")) TH_LOG("%s", u.why);
	/* A model without a table, whose PMUs are there, says why it has none. */
	sys.cpuinfo = zen3;
	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "no uncore PMU (amd_l3*, amd_umc*)")) TH_LOG("%s", u.why);
	pmu(root, "amd_l3", "2000000003", "0");
	EXPECT_EQ(-1, embm_unc_open(&u, &sys));
	EXPECT_NE(NULL, strstr(u.why, "AMD before Zen 4: no amd_umc PMU")) TH_LOG("%s", u.why);
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
	unlink(zen3);
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

/*
 * Stand-ins for the PMUs, through embm_unc_sys's hooks: perf_event_open(2)
 * records each event (PMU type, config, CPU, leader) on an fd of
 * /dev/null; read(2) of a leader gives its group's counts as perf would
 * (PERF_FORMAT_GROUP with both times), each from a table of known counts
 * by PMU type, CPU and config, 0 if none.  Each group ran the whole
 * second, or the share @fake.running gives a leader's config.
 */
struct fake_count {
	int type, cpu;
	uint64_t config, value;
};

static struct {
	struct { int fd, type, cpu, leader; uint64_t config; } ev[256];
	int nr;
	const struct fake_count *counts;
	size_t nr_counts;
	uint64_t part_config;	/* groups led by this config ran half the time */
} fake;

static int fake_open(const struct perf_event_attr *attr, int cpu, int group_fd)
{
	int fd;

	if (fake.nr == ARRAY_SIZE(fake.ev) || !(attr->read_format & PERF_FORMAT_GROUP) ||
	    attr->sample_period || cpu < 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	fake.ev[fake.nr].fd = fd;
	fake.ev[fake.nr].type = attr->type;
	fake.ev[fake.nr].cpu = cpu;
	fake.ev[fake.nr].config = attr->config;
	fake.ev[fake.nr++].leader = group_fd < 0 ? fd : group_fd;
	return fd;
}

static uint64_t fake_value(int type, int cpu, uint64_t config)
{
	for (size_t i = 0; i < fake.nr_counts; i++)
		if (fake.counts[i].type == type && fake.counts[i].cpu == cpu &&
		    fake.counts[i].config == config)
			return fake.counts[i].value;
	return 0;
}

static ssize_t fake_read(int fd, void *buf, size_t size)
{
	uint64_t *v = buf, n = 0;

	for (int i = 0; i < fake.nr; i++) {
		if (fake.ev[i].leader != fd)
			continue;
		if ((3 + n + 1) * sizeof(uint64_t) > size)
			return -1;
		if (!n) {
			v[1] = 1000000000;
			v[2] = fake.ev[i].config == fake.part_config ? v[1] / 2 : v[1];
		}
		v[3 + n++] = fake_value(fake.ev[i].type, fake.ev[i].cpu, fake.ev[i].config);
	}
	v[0] = n;
	return (3 + n) * sizeof(uint64_t);
}

static void fake_start(const struct fake_count *counts, size_t nr, uint64_t part_config)
{
	memset(&fake, 0, sizeof(fake));
	fake.counts = counts;
	fake.nr_counts = nr;
	fake.part_config = part_config;
}

/* The report as it would print, as TAP comments; and whether it has @want. */
static bool print_has(const struct embm_unc_model *m, const struct embm_unc_result *r,
		      const char *want)
{
	char *text = NULL, *line;
	size_t len = 0;
	bool has;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return false;
	embm_unc_print(out, m, r);
	fclose(out);
	has = strstr(text, want);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		printf("# %s\n", line);
	free(text);
	return has;
}

/*
 * Sierra Forest, two sockets (CPU 0 in package 0, CPU 64 in package 1),
 * 2 CHAs, 2 IMCs, a CXLCM and a CXLDP a socket, each PMU's cpumask a CPU
 * of each; the expander on socket 0.  Types: CHAs 10, 11; IMCs 20, 21;
 * CXLCM 30; CXLDP 31.  Configs typed from perfmon SRF V1.18 again.  1 s.
 */
#define SRF_SCH0_RD	PERFMON(0x05, 0xCF, 0)
#define SRF_SCH1_RD	PERFMON(0x06, 0xCF, 0)
#define SRF_SCH0_WR	PERFMON(0x05, 0xF0, 0)
#define SRF_SCH1_WR	PERFMON(0x06, 0xF0, 0)
#define SRF_CLK		PERFMON(0x01, 0x00, 0)
#define SRF_OPT_OCC	PERFMON(0x36, 0x01, 0x00C827FE)
#define SRF_OPT_INS	PERFMON(0x35, 0x01, 0x00C827FE)
#define SRF_CXL_OCC	PERFMON(0x36, 0x01, 0x10C81782)
#define SRF_CXL_INS	PERFMON(0x35, 0x01, 0x10C81782)
#define SRF_CXLCM_RD	PERFMON(0x41, 0x10, 0)
#define SRF_CXLDP_WR	PERFMON(0x02, 0x20, 0)

static const struct fake_count srf_counts[] = {
	/* socket 0: (1e8 + 5e7) x 2 IMCs x 64 B = 19.2 GB/s read; 5e7 x 2 x 64 B = 6.4 written */
	{ 20, 0, SRF_SCH0_RD, 100000000 }, { 20, 0, SRF_SCH1_RD, 50000000 },
	{ 21, 0, SRF_SCH0_RD, 100000000 }, { 21, 0, SRF_SCH1_RD, 50000000 },
	{ 20, 0, SRF_SCH0_WR, 25000000 }, { 20, 0, SRF_SCH1_WR, 25000000 },
	{ 21, 0, SRF_SCH0_WR, 25000000 }, { 21, 0, SRF_SCH1_WR, 25000000 },
	/* socket 1: 3e7 x 64 B = 1.92 GB/s read (one IMC, one scheduler), nothing written */
	{ 21, 64, SRF_SCH1_RD, 30000000 },
	/* CHAs at 2 GHz */
	{ 10, 0, SRF_CLK, 2000000000 }, { 11, 0, SRF_CLK, 2000000000 },
	{ 10, 64, SRF_CLK, 2000000000 }, { 11, 64, SRF_CLK, 2000000000 },
	/*
	 * DRd_Opt misses, socket 0: CHA 10 has 3e8 a second and 30 in the
	 * TOR (6e10 / 2e9), CHA 11 1e8 and 30: 60 / 0.3 + 0.1 a ns = 150 ns.
	 * Socket 1: 1e8 a second and 10 in the TOR on each: 100 ns.
	 */
	{ 10, 0, SRF_OPT_INS, 300000000 }, { 10, 0, SRF_OPT_OCC, 60000000000ULL },
	{ 11, 0, SRF_OPT_INS, 100000000 }, { 11, 0, SRF_OPT_OCC, 60000000000ULL },
	{ 10, 64, SRF_OPT_INS, 100000000 }, { 10, 64, SRF_OPT_OCC, 20000000000ULL },
	{ 11, 64, SRF_OPT_INS, 100000000 }, { 11, 64, SRF_OPT_OCC, 20000000000ULL },
	/* CXL reads, socket 0: 5e7 a second a CHA, 20 in the TOR each: 400 ns */
	{ 10, 0, SRF_CXL_INS, 50000000 }, { 10, 0, SRF_CXL_OCC, 40000000000ULL },
	{ 11, 0, SRF_CXL_INS, 50000000 }, { 11, 0, SRF_CXL_OCC, 40000000000ULL },
	/* the port: 1e8 x 64 B = 6.4 GB/s read, 5e7 x 64 B = 3.2 GB/s written */
	{ 30, 0, SRF_CXLCM_RD, 100000000 }, { 31, 0, SRF_CXLDP_WR, 50000000 },
};

TEST(sierra_forest_known_counts_through_its_pmus)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", cpus[] = "/tmp/embm-cpus-XXXXXX";
	char info[] = "/tmp/embm-cpuinfo-XXXXXX";
	struct embm_unc_sys sys = {
		.evsrc = root, .cpus = cpus, .cpuinfo = info,
		.perf_open = fake_open, .perf_read = fake_read,
	};
	const struct embm_unc_tier_result *d0, *c0, *d1, *c1;
	struct embm_unc_session u;
	struct embm_unc_result r;
	char *text = NULL;
	int fd, fds;

	ASSERT_NE(NULL, mkdtemp(root));
	ASSERT_NE(NULL, mkdtemp(cpus));
	fd = mkstemp(info);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 175\n");
	close(fd);
	pmu(root, "uncore_cha_0", "10", "0,64");
	pmu(root, "uncore_cha_1", "11", "0,64");
	pmu(root, "uncore_imc_0", "20", "0,64");
	pmu(root, "uncore_imc_1", "21", "0,64");
	pmu(root, "uncore_cxlcm_0", "30", "0,64");
	pmu(root, "uncore_cxldp_0", "31", "0,64");
	pmu(root, "uncore_b2cxl_0", "32", "0,64");
	cpu_in(cpus, 0, "0");
	cpu_in(cpus, 64, "1");
	fake_start(srf_counts, ARRAY_SIZE(srf_counts), 0);

	fds = open_fds();
	ASSERT_EQ(0, embm_unc_open(&u, &sys)) TH_LOG("%s", u.why);
	EXPECT_STREQ("Sierra Forest", u.model->name);
	EXPECT_STREQ("", u.note);
	/* (4 IMC events x 2 IMCs + 2 groups x 2 CHAs + 2 CXL events) x 2 sockets; 44 fds */
	EXPECT_EQ(28, u.nr);
	EXPECT_EQ(fds + 44, open_fds());
	embm_unc_enable(&u);
	ASSERT_EQ(0, embm_unc_read(&u, &r, false));
	EXPECT_STREQ("", u.read_note);
	ASSERT_EQ(2, r.nr_sockets);
	EXPECT_EQ(1, r.socket_id[1]);
	d0 = &r.tier[0][EMBM_UNC_DRAM];
	c0 = &r.tier[0][EMBM_UNC_CXL];
	d1 = &r.tier[1][EMBM_UNC_DRAM];
	c1 = &r.tier[1][EMBM_UNC_CXL];
	NEAR(19.2, d0->rd_gbps);
	NEAR(6.4, d0->wr_gbps);
	NEAR(150.0, d0->lat_ns);
	NEAR(6.4, c0->rd_gbps);
	NEAR(3.2, c0->wr_gbps);
	NEAR(400.0, c0->lat_ns);
	NEAR(1.92, d1->rd_gbps);
	EXPECT_EQ(0, d1->wr_gbps);
	NEAR(100.0, d1->lat_ns);
	EXPECT_EQ(0, c1->rd_gbps);
	EXPECT_EQ(-1, c1->lat_ns);
	/* no latency to other sockets' DRAM of its own */
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_RDRAM].lat_ns);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_RDRAM].lat_running);
	EXPECT_EQ(1.0, d0->running);
	EXPECT_EQ(1.0, d0->lat_running);
	EXPECT_TRUE(print_has(u.model, &r, "missed L3, to any memory"));
	EXPECT_TRUE(report_is_json(&u, &r, &text)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "\"model_note\": \"DRAM rd_lat_ns: all the socket's"))
		TH_LOG("%s", text);
	free(text);
	embm_unc_close(&u);
	EXPECT_EQ(fds, open_fds());
	unlink(info);
	rm_rf(root);
	rm_rf(cpus);
}

/*
 * AMD, two sockets: CPUs 0 and 8 (two L3s) in package 0, 16 and 24 in
 * package 1; one amd_l3 with a CPU of each L3 (type 40), two amd_umc a
 * socket (types 50-53, each with a CPU of its socket), an amd_df to be
 * left alone.  Configs typed from the kernel's amdzen5 and amdzen4 lists
 * again.  1 s; the CXL latency group ran half of it.
 */
#define ZEN_UMC_RD	AMD_UMC(0x0a, 1)
#define ZEN_UMC_WR	AMD_UMC(0x0a, 2)
#define ZEN_LAT(umask)	AMD_L3(0xac, umask, 1, 1, 3, 3)
#define ZEN_REQ(umask)	AMD_L3(0xad, umask, 1, 1, 3, 3)

static const struct fake_count zen_counts[] = {
	/* socket 0: (1e8 + 2e8) x 64 B = 19.2 GB/s read, (5e7 + 5e7) x 64 B = 6.4 written */
	{ 50, 0, ZEN_UMC_RD, 100000000 }, { 51, 0, ZEN_UMC_RD, 200000000 },
	{ 50, 0, ZEN_UMC_WR, 50000000 }, { 51, 0, ZEN_UMC_WR, 50000000 },
	/* socket 1: 1e8 x 64 B = 6.4 GB/s read, 5e7 x 64 B = 3.2 written */
	{ 52, 16, ZEN_UMC_RD, 50000000 }, { 53, 16, ZEN_UMC_RD, 50000000 },
	{ 52, 16, ZEN_UMC_WR, 25000000 }, { 53, 16, ZEN_UMC_WR, 25000000 },
	/*
	 * Near DRAM, socket 0: L3 0 samples 1e5 misses of 1e6 x 10 ns
	 * (100 ns), L3 8 2e4 of 6e5 x 10 ns (300 ns): 1.6e7 ns / 1.2e5 =
	 * 133.3 ns, the mean over the misses, not of the L3s (200).
	 * Socket 1: L3 16 1e5 of 1.2e6 x 10 ns: 120 ns; L3 24 none.
	 */
	{ 40, 0, ZEN_LAT(0x01), 1000000 }, { 40, 0, ZEN_REQ(0x01), 100000 },
	{ 40, 8, ZEN_LAT(0x01), 600000 }, { 40, 8, ZEN_REQ(0x01), 20000 },
	{ 40, 16, ZEN_LAT(0x01), 1200000 }, { 40, 16, ZEN_REQ(0x01), 100000 },
	/* far DRAM: socket 0, 1e4 of 2e5 x 10 ns: 200 ns; socket 1, 250 ns on both L3s */
	{ 40, 0, ZEN_LAT(0x02), 200000 }, { 40, 0, ZEN_REQ(0x02), 10000 },
	{ 40, 16, ZEN_LAT(0x02), 250000 }, { 40, 16, ZEN_REQ(0x02), 10000 },
	{ 40, 24, ZEN_LAT(0x02), 250000 }, { 40, 24, ZEN_REQ(0x02), 10000 },
	/* CXL, socket 0: near 1e4 of 3e5 x 10 ns, far 1e4 of 4e5 x 10 ns: 7e6 / 2e4 = 350 ns */
	{ 40, 0, ZEN_LAT(0x10), 300000 }, { 40, 0, ZEN_REQ(0x10), 10000 },
	{ 40, 0, ZEN_LAT(0x20), 400000 }, { 40, 0, ZEN_REQ(0x20), 10000 },
};

TEST(amd_zen_known_counts_through_its_pmus)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", cpus[] = "/tmp/embm-cpus-XXXXXX";
	char info[] = "/tmp/embm-cpuinfo-XXXXXX";
	struct embm_unc_sys sys = {
		.evsrc = root, .cpus = cpus, .cpuinfo = info,
		.perf_open = fake_open, .perf_read = fake_read,
	};
	const struct embm_unc_tier_result *d0, *c0, *d1, *c1;
	struct embm_unc_session u;
	struct embm_unc_result r;
	char *text = NULL;
	int fd, fds, t;

	ASSERT_NE(NULL, mkdtemp(root));
	ASSERT_NE(NULL, mkdtemp(cpus));
	fd = mkstemp(info);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n");
	close(fd);
	pmu(root, "amd_l3", "40", "0,8,16,24");
	pmu(root, "amd_umc_0", "50", "0");
	pmu(root, "amd_umc_1", "51", "0");
	pmu(root, "amd_umc_2", "52", "16");
	pmu(root, "amd_umc_3", "53", "16");
	pmu(root, "amd_df", "60", "0,16");
	cpu_in(cpus, 0, "0");
	cpu_in(cpus, 8, "0");
	cpu_in(cpus, 16, "1");
	cpu_in(cpus, 24, "1");
	fake_start(zen_counts, ARRAY_SIZE(zen_counts), ZEN_LAT(0x10));

	/* Zen 5: DRAM from the UMCs, latency from the L3s */
	fds = open_fds();
	ASSERT_EQ(0, embm_unc_open(&u, &sys)) TH_LOG("%s", u.why);
	EXPECT_STREQ("AMD Zen 5", u.model->name);
	/* 2 events x 4 UMCs + 3 groups x 4 L3s */
	EXPECT_EQ(20, u.nr);
	EXPECT_EQ(fds + 8 + 2 * 4 + 2 * 4 + 4 * 4, open_fds());
	embm_unc_enable(&u);
	ASSERT_EQ(0, embm_unc_read(&u, &r, false));
	EXPECT_STREQ("", u.read_note);
	ASSERT_EQ(2, r.nr_sockets);
	d0 = &r.tier[0][EMBM_UNC_DRAM];
	c0 = &r.tier[0][EMBM_UNC_CXL];
	d1 = &r.tier[1][EMBM_UNC_DRAM];
	c1 = &r.tier[1][EMBM_UNC_CXL];
	NEAR(19.2, d0->rd_gbps);
	NEAR(6.4, d0->wr_gbps);
	NEAR(6.4, d1->rd_gbps);
	NEAR(3.2, d1->wr_gbps);
	NEAR(133.333, d0->lat_ns);
	NEAR(120.0, d1->lat_ns);
	NEAR(200.0, r.tier[0][EMBM_UNC_RDRAM].lat_ns);
	NEAR(250.0, r.tier[1][EMBM_UNC_RDRAM].lat_ns);
	NEAR(350.0, c0->lat_ns);
	EXPECT_EQ(0.5, c0->lat_running);
	EXPECT_EQ(1.0, d0->lat_running);
	EXPECT_EQ(-1, c1->lat_ns);
	/* no CXL bandwidth event on AMD */
	EXPECT_EQ(-1, c0->rd_gbps);
	EXPECT_EQ(-1, c0->wr_gbps);
	EXPECT_EQ(-1, c0->running);
	EXPECT_TRUE(print_has(u.model, &r, "sampled misses; no CXL bandwidth"));
	EXPECT_TRUE(report_is_json(&u, &r, &text)) TH_LOG("%s", text);
	free(text);
	embm_unc_close(&u);
	EXPECT_EQ(fds, open_fds());

	/* Zen 4: the same UMC figures; no latency, so no L3 event opened */
	sys.model = embm_unc_model("AuthenticAMD", 0x19, 0x11);
	fake_start(zen_counts, ARRAY_SIZE(zen_counts), 0);
	ASSERT_EQ(0, embm_unc_open(&u, &sys)) TH_LOG("%s", u.why);
	EXPECT_EQ(8, u.nr);
	for (fd = 0; fd < fake.nr; fd++)
		EXPECT_NE(40, fake.ev[fd].type);
	embm_unc_enable(&u);
	ASSERT_EQ(0, embm_unc_read(&u, &r, false));
	NEAR(19.2, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(6.4, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(6.4, r.tier[1][EMBM_UNC_DRAM].rd_gbps);
	NEAR(3.2, r.tier[1][EMBM_UNC_DRAM].wr_gbps);
	for (t = 0; t < EMBM_UNC_TIERS; t++) {
		EXPECT_EQ(-1, r.tier[0][t].lat_ns);
		EXPECT_EQ(-1, r.tier[1][t].lat_ns);
	}
	EXPECT_TRUE(print_has(u.model, &r, "core clocks"));
	embm_unc_close(&u);
	EXPECT_EQ(fds, open_fds());
	unlink(info);
	rm_rf(root);
	rm_rf(cpus);
}

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
