// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' uncore tables and arithmetic (tools/embm/uncore.c), with known
 * counts and a fake event-source tree: no VM has uncore PMUs, so this is
 * all of it that runs here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest_harness.h"
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

static int find_event(const struct embm_unc_model *m, const char *name)
{
	for (int e = 0; e < m->nr_events; e++)
		if (!strcmp(m->events[e].name, name))
			return e;
	return -1;
}

/* Each supported model has a table; the others say why they have none. */
TEST(models_and_encodings)
{
	const struct embm_unc_model *spr = embm_unc_model("GenuineIntel", 6, 0x8f);
	const struct embm_unc_model *emr = embm_unc_model("GenuineIntel", 6, 0xcf);
	const struct embm_unc_model *gnr = embm_unc_model("GenuineIntel", 6, 0xad);
	const struct embm_unc_model *m;
	char path[] = "/tmp/embm-cpuinfo-XXXXXX";
	int fd, e;

	ASSERT_NE(NULL, spr->events);
	ASSERT_NE(NULL, emr->events);
	ASSERT_NE(NULL, gnr->events);
	EXPECT_STREQ("Sapphire Rapids", spr->name);
	EXPECT_STREQ("Granite Rapids", embm_unc_model("GenuineIntel", 6, 0xae)->name);
	m = embm_unc_model("AuthenticAMD", 0x19, 0x11);
	EXPECT_EQ(NULL, m->events);
	EXPECT_NE(NULL, strstr(m->absent, "amd_umc"));
	EXPECT_EQ(NULL, embm_unc_model("GenuineIntel", 6, 0x55)->events);
	/* event | umask << 8 | umask_ext << 32, as perfmon lists them */
	e = find_event(spr, "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC");
	ASSERT_LE(0, e);
	EXPECT_EQ(0x35 | 0x01 << 8 | 0x10C81782ULL << 32, spr->events[e].config);
	e = find_event(spr, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_DDR");
	ASSERT_LE(0, e);
	EXPECT_EQ(0x36 | 0x01 << 8 | 0xC81786ULL << 32, spr->events[e].config);
	e = find_event(spr, "UNC_M_CAS_COUNT.RD");
	ASSERT_LE(0, e);
	EXPECT_EQ(0x05 | 0xcf << 8, spr->events[e].config);
	for (e = 0; e < gnr->nr_events; e++) {
		EXPECT_TRUE(!strcmp(gnr->events[e].unit, "cha") ||
			    !strcmp(gnr->events[e].unit, "imc") ||
			    !strcmp(gnr->events[e].unit, "cxlcm") ||
			    !strcmp(gnr->events[e].unit, "cxldp"));
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

/* PMUs found by name, in box order, with a CPU per socket; others ignored. */
TEST(pmus_found_by_name)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX";
	struct embm_unc_pmu p[8];
	char cmd[600];
	int n;

	ASSERT_NE(NULL, mkdtemp(root));
	pmu(root, "uncore_cha_10", "40", "0,56");
	pmu(root, "uncore_cha_2", "32", "0,56");
	pmu(root, "uncore_cha_0", "30", "0,56");
	pmu(root, "uncore_imc_0", "50", "0-1");
	pmu(root, "uncore_imc_free_running_0", "60", "0,56");
	pmu(root, "uncore_chax", "61", "0");
	pmu(root, "uncore_cha_", "62", "0");
	pmu(root, "cpu", "4", NULL);
	n = embm_unc_find(root, "cha", p, 8);
	ASSERT_EQ(3, n);
	EXPECT_STREQ("uncore_cha_0", p[0].name);
	EXPECT_STREQ("uncore_cha_2", p[1].name);
	EXPECT_STREQ("uncore_cha_10", p[2].name);
	EXPECT_EQ(40, p[2].type);
	ASSERT_EQ(2, p[0].nr_cpus);
	EXPECT_EQ(0, p[0].cpus[0]);
	EXPECT_EQ(56, p[0].cpus[1]);
	n = embm_unc_find(root, "imc", p, 8);
	ASSERT_EQ(1, n);
	EXPECT_EQ(50, p[0].type);
	EXPECT_EQ(2, p[0].nr_cpus);
	EXPECT_EQ(0, embm_unc_find(root, "cxlcm", p, 8));
	EXPECT_EQ(0, embm_unc_find("/nonexistent", "cha", p, 8));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	EXPECT_EQ(0, system(cmd));
}

/*
 * Why a session has no bandwidth: no PMU, a model without a table, or
 * perf refusing an event (here a PMU type no driver has registered); then
 * nothing stays open.
 */
TEST(open_says_why_not)
{
	char root[] = "/tmp/embm-evsrc-XXXXXX", spr[] = "/tmp/embm-cpuinfo-XXXXXX";
	char amd[] = "/tmp/embm-cpuinfo-XXXXXX", cmd[600];
	struct embm_unc_session u;
	int fd;

	ASSERT_NE(NULL, mkdtemp(root));
	fd = mkstemp(spr);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n");
	close(fd);
	fd = mkstemp(amd);
	ASSERT_LE(0, fd);
	dprintf(fd, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n");
	close(fd);

	EXPECT_EQ(-1, embm_unc_open(&u, root, spr));
	EXPECT_NE(NULL, strstr(u.why, "no uncore PMU"));
	/* AMD has no uncore_cha: its own reason, not the PMUs' absence. */
	EXPECT_EQ(-1, embm_unc_open(&u, root, amd));
	EXPECT_NE(NULL, strstr(u.why, "AMD Zen 4/5: amd_df and amd_umc"));
	pmu(root, "uncore_cha_0", "2000000000", "0");
	pmu(root, "uncore_imc_0", "2000000001", "0");
	EXPECT_EQ(-1, embm_unc_open(&u, root, spr));
	EXPECT_NE(NULL, strstr(u.why, "cannot count UNC_M_CAS_COUNT.RD on uncore_imc_0, CPU 0"))
		TH_LOG("%s", u.why);
	EXPECT_EQ(NULL, u.fds);
	unlink(spr);
	unlink(amd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	EXPECT_EQ(0, system(cmd));
}

TEST(scaling_by_time_running)
{
	struct embm_unc_count c = { 100, 2000, 1000 }, never = { 0, 2000, 0 };
	double ratio;

	EXPECT_EQ(200, embm_unc_scaled(&c, &ratio));
	EXPECT_EQ(0.5, ratio);
	EXPECT_EQ(0, embm_unc_scaled(&never, &ratio));
	EXPECT_EQ(0, ratio);
}

static bool near(double want, double got)
{
	return got > want * 0.999 && got < want * 1.001;
}

#define NEAR(want, got)	EXPECT_TRUE(near(want, got))

/*
 * A 2-socket Sapphire Rapids with one CXL expander on socket 0, 2 s of
 * known counts: 4 IMCs and 2 CHAs a socket, one CXLCM.  Per box: a
 * count, whether only socket 0 has it (the expander's traffic), whether
 * it ran half its time (multiplexed).
 */
static const struct known {
	const char *name;
	uint64_t value;
	bool socket0, half;
} known[] = {
	{ "UNC_M_CAS_COUNT.RD", 500000000 },		/* 2e9 a socket: 64 GB/s */
	{ "UNC_M_CAS_COUNT.WR", 250000000 },		/* 32 GB/s */
	{ "UNC_CHA_CLOCKTICKS", 4000000000ULL },	/* 2 GHz */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_DDR", 1000000000 },
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_DDR", 120000000000ULL }, /* 120 cycles: 60 ns */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_CXL_ACC", 150000000, true },
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_RFO_CXL_ACC", 50000000, true },
	/* 5e8 CXL reads x 64 B / 2 s = 16 GB/s */
	{ "UNC_CHA_TOR_INSERTS.IA_MISS_LLCPREFRFO_CXL_ACC", 50000000, true },
	/* x 2 (half the time) = 1.5e11 a box: 1000 cycles, 500 ns */
	{ "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC", 75000000000ULL, true, true },
	{ "UNC_CXLCM_TxC_PACK_BUF_INSERTS.MEM_DATA", 400000000, true }, /* x 32 B: 6.4 GB/s */
};

static void fill(const struct embm_unc_event *ev, int socket, struct embm_unc_count *c)
{
	c->enabled = 2000000000;
	c->running = c->enabled;
	c->value = 0;
	for (size_t k = 0; k < ARRAY_SIZE(known); k++) {
		if (strcmp(ev->name, known[k].name) || (known[k].socket0 && socket))
			continue;
		c->value = known[k].value;
		if (known[k].half)
			c->running /= 2;
	}
}

TEST(two_socket_spr_with_one_expander)
{
	const struct embm_unc_model *m = embm_unc_model("GenuineIntel", 6, 0x8f);
	static struct embm_unc_count counts[2 * 16 * EMBM_UNC_MAX_BOXES];
	int boxes[16], e, b, s;
	struct embm_unc_result r;
	char *text = NULL, *line;
	size_t len = 0;
	FILE *out;

	ASSERT_GE(16, m->nr_events);
	for (e = 0; e < m->nr_events; e++) {
		const struct embm_unc_event *ev = &m->events[e];

		boxes[e] = !strcmp(ev->unit, "imc") ? 4 : !strcmp(ev->unit, "cha") ? 2 : 1;
		for (s = 0; s < 2; s++) {
			struct embm_unc_count *c = &counts[(s * m->nr_events + e) *
							   EMBM_UNC_MAX_BOXES];

			for (b = 0; b < boxes[e]; b++)
				fill(ev, s, &c[b]);
		}
	}
	embm_unc_compute(m, 2, boxes, counts, &r);
	ASSERT_EQ(2, r.nr_sockets);
	NEAR(64.0, r.tier[0][EMBM_UNC_DRAM].rd_gbps);
	NEAR(32.0, r.tier[0][EMBM_UNC_DRAM].wr_gbps);
	NEAR(60.0, r.tier[0][EMBM_UNC_DRAM].lat_ns);
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
	 * Granite Rapids, 1 s: one event that never ran (multiplexed out)
	 * makes its figure unavailable, not 0; the others stand.
	 */
	m = embm_unc_model("GenuineIntel", 6, 0xad);
	memset(counts, 0, sizeof(counts));
	for (e = 0; e < m->nr_events; e++) {
		boxes[e] = 1;
		counts[e * EMBM_UNC_MAX_BOXES].enabled = 1000000000;
		counts[e * EMBM_UNC_MAX_BOXES].running = 1000000000;
		counts[e * EMBM_UNC_MAX_BOXES].value = 1000000;
		if (!strcmp(m->events[e].name, "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD_CXL_ACC"))
			counts[e * EMBM_UNC_MAX_BOXES].running = 0;
	}
	embm_unc_compute(m, 1, boxes, counts, &r);
	EXPECT_EQ(-1, r.tier[0][EMBM_UNC_CXL].lat_ns);
	EXPECT_EQ(0, r.tier[0][EMBM_UNC_CXL].running);
	NEAR(0.064, r.tier[0][EMBM_UNC_CXL].rd_gbps);	/* 1e6 x 64 B in 1 s */
	NEAR(0.064, r.tier[0][EMBM_UNC_CXL].wr_gbps);
	NEAR(0.128, r.tier[0][EMBM_UNC_DRAM].rd_gbps);	/* two schedulers */
	/* 1e6 cycles x requests / 1e6 requests = 1 cycle at 1 MHz: 1000 ns */
	NEAR(1000.0, r.tier[0][EMBM_UNC_DRAM].lat_ns);
}

TEST_HARNESS_MAIN
