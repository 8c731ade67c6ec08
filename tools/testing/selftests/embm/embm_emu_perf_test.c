// SPDX-License-Identifier: GPL-2.0
/*
 * The embm_emu PMU under Debian's perf, and embm beside it, against the
 * exact oracle of QEMU's embm-emu TCG plugin (tools/embm/emu_oracle.c):
 *
 *  - stat_user_exact: perf stat's user-mode loads and stores of a workload
 *    equal the oracle's user-mode counts of its tasks (the driver counts
 *    what the plugin counts, for the right task);
 *  - record_beside_embm: perf record and an embm session on the same
 *    running workload, at the same periods, give the same share of
 *    accesses per node, and each the oracle's;
 *  - overload_period_1: at period 1 perf's samples are throttled or lost
 *    and said so, every record the plugin could not write is counted as
 *    lost by the driver, embm refuses period 1 and its session at its
 *    least period ends with its losses counted, and the guest stays
 *    responsive throughout.
 *
 * Skips without the plugin's device, without perf (the test boot puts
 * Debian's perf into the guest), without root or without CONFIG_EMBM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "embm_util.h"
#include "emu_oracle.h"
#include "embm_emu_util.h"

#define PMU_DIR		"/sys/bus/event_source/devices/embm_emu"
#define BENCH_JSON	"/tmp/embm-perf-bench.json"
#define PERF_DATA	"/tmp/embm-perf.data"
#define PERF_OUT	"/tmp/embm-perf.txt"
#define RUN_OUT		"/tmp/embm-perf-run.txt"
#define BEAT		"/tmp/embm-perf-beat"
#define MAX_PIDS	16
#define SHARE_PP	1.0	/* the bound: 1 percentage point */
#define LD_PERIOD	10007	/* the emu source's default periods */
#define ST_PERIOD	5003
#define MAX_GAP		20	/* seconds without a heartbeat, at most */

/* Counts per node: [node][0 loads, 1 stores], and all. */
struct acc {
	double n[EMBM_MAX_NODES][2];
	double all[2];
	unsigned long long samples;
	double eff;	/* what the samples are worth as equal draws */
};

/* The node of physical address @pa by the device's ranges, or -1. */
static int node_of(const struct emu_snapshot *s, unsigned long long pa)
{
	for (unsigned int r = 0; r < s->nr_ranges; r++)
		if (pa >= s->range[r].start && pa < s->range[r].end)
			return s->range[r].node < EMBM_MAX_NODES ? (int)s->range[r].node : -1;
	return -1;
}

/*
 * The oracle's counts of the tasks @pids per node, user mode only (@user)
 * or both modes, into @a.  Return: the tasks it has counts of.
 */
static int oracle_of(const struct emu_snapshot *s, const pid_t *pids, int n, bool user,
		     struct acc *a)
{
	int found = 0;

	memset(a, 0, sizeof(*a));
	for (int i = 0; i < n; i++) {
		int sp = emu_space_index(s, EMBM_EMU_TASK(pids[i]));

		if (sp < 0)
			continue;
		found++;
		for (unsigned int r = 0; r < s->nr_ranges; r++)
			for (int m = 0; m < (user ? 1 : 2); m++)
				for (int o = 0; o < 2; o++) {
					double c = s->spaces[sp][r][m][o];

					if (s->range[r].node < EMBM_MAX_NODES)
						a->n[s->range[r].node][o] += c;
					a->all[o] += c;
				}
	}
	return found;
}

/* @b -= @a: the counts (samples and eff are left, as the oracle has none). */
static void acc_sub(struct acc *b, const struct acc *a)
{
	for (int n = 0; n < EMBM_MAX_NODES; n++)
		for (int o = 0; o < 2; o++)
			b->n[n][o] -= a->n[n][o];
	for (int o = 0; o < 2; o++)
		b->all[o] -= a->all[o];
}

static double share(const struct acc *a, int node)
{
	double all = a->all[0] + a->all[1];

	return all > 0 ? 100.0 * (a->n[node][0] + a->n[node][1]) / all : 0;
}

/*
 * perf record's samples in PERF_DATA per node, each weighed by its
 * event's period (LD_PERIOD loads, ST_PERIOD stores), into @a.
 * Return: 0, or -1 if perf script failed.
 */
static int perf_acc(const struct emu_snapshot *s, struct acc *a)
{
	char line[512];
	double w2 = 0;
	FILE *f;

	memset(a, 0, sizeof(*a));
	if (emu_run("perf script -i %s -F event,phys_addr >%s 2>/dev/null", PERF_DATA, PERF_OUT))
		return -1;
	f = fopen(PERF_OUT, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *ev = strstr(line, "embm_emu/"), *last, *end;
		unsigned long long pa;
		int o, node;

		if (!ev)
			continue;
		o = strstr(ev, "store") && !strstr(ev, "load") ? 1 : 0;
		last = strrchr(line, ' ');
		if (!last)
			continue;
		pa = strtoull(last, &end, 16);
		if (end == last + 1)
			continue;
		a->samples++;
		node = node_of(s, pa);
		if (node >= 0)
			a->n[node][o] += o ? ST_PERIOD : LD_PERIOD;
		a->all[o] += o ? ST_PERIOD : LD_PERIOD;
		w2 += (o ? ST_PERIOD : LD_PERIOD) * (double)(o ? ST_PERIOD : LD_PERIOD);
	}
	fclose(f);
	/* Kish's effective number: (sum of weights)^2 / sum of their squares. */
	a->eff = w2 > 0 ? (a->all[0] + a->all[1]) * (a->all[0] + a->all[1]) / w2 : 0;
	return 0;
}

/* embm's last session per node (/proc/embm/nodes' estimated accesses). */
static int embm_acc(struct acc *a)
{
	static struct embm_node rows[EMBM_MAX_NODES];
	int nr = embm_proc_read_nodes(EMBM_PROC_DIR, rows, EMBM_MAX_NODES);
	double f;

	memset(a, 0, sizeof(*a));
	for (int i = 0; i < nr; i++) {
		if (rows[i].node < 0 || rows[i].node >= EMBM_MAX_NODES)
			continue;
		/* Loads and stores apart are sample counts: the share is of both. */
		a->n[rows[i].node][0] += rows[i].accesses;
		a->all[0] += rows[i].accesses;
		a->samples += rows[i].samples;
	}
	/* The samples' weights, by embm's own intervals (emu_weight_factor()). */
	f = emu_weight_factor();
	a->eff = a->samples / (f * f);
	return nr;
}

/*
 * The bound two share estimates worth @n1 and @n2 equal samples (struct
 * acc's eff; 0: exact) are held to: one percentage point, or four
 * standard errors of their difference where the samples cannot support a
 * point (as embm_emu_test's share_bound()).
 */
static double bound(double p, double n1, double n2)
{
	double v = p / 100 * (1 - p / 100), var = 0;

	if (n1 > 0)
		var += v / n1;
	if (n2 > 0)
		var += v / n2;
	return fmax(SHARE_PP, 4 * 100 * sqrt(var));
}

/* The plugin's count of records it could not write, all vCPUs. */
static unsigned long long plugin_lost(struct emu_dev *d)
{
	unsigned long long sum = 0;

	for (unsigned int c = 0; c < d->nr_cpus; c++)
		sum += __atomic_load_n(&emu_cpu(d, c)->lost, __ATOMIC_RELAXED);
	return sum;
}

/* The records the plugin wrote, all vCPUs. */
static unsigned long long plugin_written(struct emu_dev *d)
{
	unsigned long long sum = 0;

	for (unsigned int c = 0; c < d->nr_cpus; c++)
		sum += __atomic_load_n(&emu_cpu(d, c)->head, __ATOMIC_RELAXED);
	return sum;
}

/* "NAME events: N" of perf report --stats, or -1. */
static long long perf_stat_line(const char *name)
{
	char line[256], key[64];
	long long v = -1;
	FILE *f = fopen(PERF_OUT, "r");

	if (!f)
		return -1;
	snprintf(key, sizeof(key), " %s events:", name);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p && (p == line || p[-1] == ' ' || p[-1] == '\t'))
			v = atoll(p + strlen(key));
	}
	fclose(f);
	return v;
}

/* The longest gap in seconds between heartbeats in BEAT, or -1. */
static long beat_gap(void)
{
	long prev = -1, t, gap = -1;
	FILE *f = fopen(BEAT, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%ld", &t) == 1) {
		if (prev >= 0 && t - prev > gap)
			gap = t - prev;
		prev = t;
	}
	fclose(f);
	return gap;
}

FIXTURE(perf) {
	struct emu_dev dev;
	bool open;
	char source[64], period[64], store_period[64];
	int nodes[EMBM_MAX_NODES];
	int kind[EMBM_MAX_NODES];
	int nr_nodes;
	char bufs[512];		/* embm-bench's -b options, every node */
	pid_t bg;		/* a background workload, killed at teardown */
};

FIXTURE_SETUP(perf)
{
	struct emu_snapshot snap = { 0 };
	static bool set[EMBM_MAX_NODES];
	size_t at = 0;

	self->open = false;
	self->bg = 0;
	if (geteuid())
		SKIP(return, "needs root");
	if (access(EMBM_PROC_DIR, F_OK))
		SKIP(return, "no /proc/embm: a kernel without CONFIG_EMBM");
	if (emu_open(&self->dev))
		SKIP(return, "no embm-emu device (a guest without QEMU 10's plugin): %s",
		     emu_error());
	self->open = true;
	ASSERT_EQ(0, access(PMU_DIR "/type", F_OK));
	if (emu_run("perf --version >/dev/null 2>&1"))
		SKIP(return, "no perf in this guest (the test boot adds Debian's)");
	ASSERT_EQ(0, embm_get_knob("source", self->source, sizeof(self->source)));
	ASSERT_EQ(0, embm_get_knob("period", self->period, sizeof(self->period)));
	ASSERT_EQ(0, embm_get_knob("store_period", self->store_period,
				   sizeof(self->store_period)));
	ASSERT_EQ(0, embm_set_knob("source", "emu"));
	/* The oracle from zero. */
	ASSERT_EQ(0, emu_set_want(&self->dev, self->dev.hdr->want & ~EMBM_EMU_MODE_ORACLE,
				  EMU_TIMEOUT_MS));
	ASSERT_EQ(0, emu_set_want(&self->dev, self->dev.hdr->want | EMBM_EMU_MODE_ORACLE,
				  EMU_TIMEOUT_MS)) {
		TH_LOG("oracle: %s", emu_error());
	}
	ASSERT_EQ(0, embm_read_nodelist("/sys/devices/system/node/has_memory", set));
	ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
	self->nr_nodes = 0;
	for (int n = 0; n < EMBM_MAX_NODES; n++) {
		int k = -1;

		if (!set[n])
			continue;
		for (unsigned int r = 0; r < snap.nr_ranges; r++)
			if ((int)snap.range[r].node == n)
				k = snap.range[r].kind;
		/* Smaller where QEMU is slower: memory-only and CXL nodes. */
		at += snprintf(self->bufs + at, sizeof(self->bufs) - at, " -b %uK@%d",
			       k == EMBM_EMU_KIND_CXL ? 256 : k == EMBM_EMU_KIND_FAR ? 512 : 1024,
			       n);
		self->kind[self->nr_nodes] = k;
		self->nodes[self->nr_nodes++] = n;
	}
	emu_snapshot_free(&snap);
	ASSERT_GT(self->nr_nodes, 0);
}

FIXTURE_TEARDOWN(perf)
{
	if (self->bg > 0) {
		kill(self->bg, SIGKILL);
		reap(self->bg);
	}
	emu_run("kill $(cat %s.pid 2>/dev/null) 2>/dev/null; rm -f %s.pid", BEAT, BEAT);
	if (!self->open)
		return;
	emu_set_want(&self->dev, self->dev.hdr->want & ~EMBM_EMU_MODE_ORACLE, EMU_TIMEOUT_MS);
	if (self->source[0])
		embm_set_knob("source", self->source);
	if (self->period[0])
		embm_set_knob("period", self->period);
	if (self->store_period[0])
		embm_set_knob("store_period", self->store_period);
	emu_close(&self->dev);
}

/* perf stat's count of @event in the CSV @path, or -1. */
static long long stat_count(const char *path, const char *event)
{
	char line[512];
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, event) && isdigit((unsigned char)line[0]))
			v = atoll(line);
	fclose(f);
	return v;
}

/*
 * perf stat counts the user-mode loads and stores of embm-bench (2
 * processes of 2 threads, a buffer on every node); the oracle counts
 * every user-mode access of those tasks (tagged by the driver).  User-mode
 * accesses happen only while their task is current, so a task's count is
 * the same however the tags follow the switches: equal, but for what
 * perf's forked child does in user mode before its exec enables the
 * counters, a few thousand accesses.
 */
TEST_F_TIMEOUT(perf, stat_user_exact, 120)
{
	struct emu_snapshot snap = { 0 };
	long long ld, st;
	pid_t pids[MAX_PIDS];
	struct acc t;
	int n;

	ASSERT_EQ(0, emu_run("perf stat -x, -o %s -e %s -e %s -- %s -j -o %s%s >/dev/null",
			     PERF_OUT, "embm_emu/load=1/u", "embm_emu/store=1/u",
			     "embm-bench -p rmw -t 2 -c 1 -r 100", BENCH_JSON, self->bufs));
	n = emu_bench_pids(BENCH_JSON, pids, MAX_PIDS);
	ASSERT_EQ(2, n);
	ASSERT_EQ(0, emu_snapshot(&self->dev, &snap));
	ASSERT_EQ(n, oracle_of(&snap, pids, n, true, &t));
	emu_snapshot_free(&snap);
	ld = stat_count(PERF_OUT, "load");
	st = stat_count(PERF_OUT, "store");
	ksft_print_msg("user mode: perf stat %lld loads, %lld stores; oracle %.0f, %.0f\n",
		       ld, st, t.all[0], t.all[1]);
	ASSERT_GT(t.all[0], 1000000);
	ASSERT_GT(t.all[1], 1000000);
	EXPECT_LE(fabs(ld - t.all[0]), 0.001 * t.all[0]);
	EXPECT_LE(fabs(st - t.all[1]), 0.001 * t.all[1]);
}

/*
 * perf record and an embm session on one running embm-bench, the same
 * seconds, at the emu source's default periods: each node's share of the
 * estimated accesses agrees within a point (or four standard errors of
 * the difference where the samples cannot support a point), and each
 * agrees so with the oracle's counts of the workload's tasks over the
 * window.
 */
TEST_F_TIMEOUT(perf, record_beside_embm, 150)
{
	struct emu_snapshot a = { 0 }, b = { 0 };
	struct acc pf, em, t, t0;
	pid_t pid;

	ASSERT_EQ(0, embm_set_knob("period", "0"));
	self->bg = fork();
	ASSERT_GE(self->bg, 0);
	if (!self->bg) {
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "exec embm-bench -p rmw -t 2 -d 40%s >/dev/null",
			 self->bufs);
		execl("/bin/sh", "sh", "-c", cmd, NULL);
		_exit(127);
	}
	pid = self->bg;
	/* Past its set-up: the buffers are placed and touched. */
	sleep_ms(3000);
	ASSERT_EQ(0, emu_snapshot(&self->dev, &a));
	ASSERT_EQ(0, emu_run("embm-run -o %s -p %d -d 10 & %s -o %s -p %d %s=%d/ %s=%d/ %s; %s",
			     RUN_OUT, pid, "perf record -q -d --phys-data", PERF_DATA, pid,
			     "-e embm_emu/load=1,period", LD_PERIOD, "-e embm_emu/store=1,period",
			     ST_PERIOD, "-- sleep 10 >/dev/null 2>&1",
			     "st=$?; wait $! && exit $st"));
	ASSERT_EQ(0, emu_snapshot(&self->dev, &b));
	/* The window's counts of its tasks: one process, its threads share the tag. */
	/* Before the window it had no embm_emu event: maybe no counts yet. */
	oracle_of(&a, &pid, 1, false, &t0);
	ASSERT_EQ(1, oracle_of(&b, &pid, 1, false, &t));
	acc_sub(&t, &t0);
	ASSERT_GT(embm_acc(&em), 0);
	ASSERT_EQ(0, perf_acc(&b, &pf));
	emu_snapshot_free(&a);
	emu_snapshot_free(&b);
	ksft_print_msg("samples: embm %llu, perf %llu; oracle %.0f loads, %.0f stores\n",
		       em.samples, pf.samples, t.all[0], t.all[1]);
	ksft_print_msg("worth as equal samples: embm %.0f, perf %.0f\n", em.eff, pf.eff);
	ASSERT_GE(em.samples, 1000);
	ASSERT_GE(pf.samples, 1000);
	ksft_print_msg("  node  embm%%  perf%% oracle%%  (bounds: embm-perf, each-oracle)\n");
	for (int i = 0; i < self->nr_nodes; i++) {
		int node = self->nodes[i];
		double e = share(&em, node), p = share(&pf, node), o = share(&t, node);

		ksft_print_msg("  %4d %6.2f %6.2f %6.2f  (%4.2f, %4.2f %4.2f)\n", node, e, p, o,
			       bound(p, em.eff, pf.eff), bound(o, em.eff, 0), bound(o, pf.eff, 0));
		EXPECT_LE(fabs(e - p), bound(p, em.eff, pf.eff));
		EXPECT_LE(fabs(e - o), bound(o, em.eff, 0));
		EXPECT_LE(fabs(p - o), bound(o, pf.eff, 0));
	}
}

/*
 * Overload: period 1, a sample an access.  perf record's samples are
 * throttled or lost and perf says how many; the records the plugin could
 * not write are each counted as lost by the driver; embm refuses period
 * 1 (its source's least is 256) and its session at 256 ends with what it
 * lost and had throttled counted; a heartbeat (one line a second) never
 * stops for MAX_GAP seconds.
 */
TEST_F_TIMEOUT(perf, overload_period_1, 240)
{
	long long lost0 = emu_driver_stat("lost"), lost1, throttle, plost, elost, ethr;
	unsigned long long pl0 = plugin_lost(&self->dev), pl1;
	unsigned long long wr0 = plugin_written(&self->dev), wr1;
	long long psamples;
	long gap;

	ASSERT_GE(lost0, 0) {
		TH_LOG("no embm_emu_stats/lost of the embm_emu device");
	}
	ASSERT_EQ(0, emu_run("rm -f %s; %s >%s 2>/dev/null & echo $! >%s.pid", BEAT,
			     "(while :; do date +%s; sleep 1; done)", BEAT, BEAT));
	ASSERT_EQ(0, emu_run("perf record -q -o %s -c 1 -e %s %s %s@%d >/dev/null 2>%s",
			     PERF_DATA, "embm_emu/load=1,store=1/", "-d --phys-data --",
			     "embm-bench -p rmw -t 2 -r 20 -b 256K", self->nodes[0], PERF_OUT)) {
		emu_run("cat %s >&2", PERF_OUT);
	}
	wr1 = plugin_written(&self->dev);
	pl1 = plugin_lost(&self->dev);
	ASSERT_EQ(0, emu_run("perf report -i %s --stats >%s 2>&1", PERF_DATA, PERF_OUT));
	throttle = perf_stat_line("THROTTLE");
	plost = perf_stat_line("LOST_SAMPLES");
	psamples = perf_stat_line("SAMPLE");
	ksft_print_msg("perf at period 1: %lld samples, %lld lost, %lld throttle records\n",
		       psamples, plost, throttle);
	ksft_print_msg("the plugin: %llu records written, %llu not (ring full)\n",
		       wr1 - wr0, pl1 - pl0);
	EXPECT_GT(throttle + plost, 0);

	/*
	 * embm: the emu source refuses a period below its least (256: the
	 * drain's 256 records a millisecond), so period 1 fails to start;
	 * at the least it runs, and what it lost or had throttled is counted.
	 */
	ASSERT_EQ(0, embm_set_knob("period", "1"));
	EXPECT_NE(0, emu_run("embm-run -o %s -- true 2>%s", RUN_OUT, PERF_OUT));
	emu_run("cat %s >&2", PERF_OUT);
	ASSERT_EQ(0, embm_set_knob("period", "256"));
	ASSERT_EQ(0, embm_set_knob("store_period", "256"));
	ASSERT_EQ(0, emu_run("embm-run -o %s -- embm-bench -p rmw -t 2 -r 20 -b 256K@%d >/dev/null",
			     RUN_OUT, self->nodes[0]));
	elost = embm_status_ll("lost");
	ethr = embm_status_ll("throttled");
	ksft_print_msg("embm at period 256: %lld samples, lost %lld, throttled %lld\n",
		       embm_status_ll("samples"), elost, ethr);
	EXPECT_GT(embm_status_ll("samples"), 0);
	/* Both counted in status (-1: the key is missing). */
	EXPECT_NE(-1, elost);
	EXPECT_NE(-1, ethr);
	/* A store period below the least, written during a session: refused. */
	ASSERT_EQ(0, emu_run("embm-run -o %s -- embm-bench -p rmw -d 3 -b 256K@%d >/dev/null & %s",
			     RUN_OUT, self->nodes[0],
			     "sleep 1; echo 100 >/sys/kernel/mm/embm/store_period; wait $!"));
	ksft_print_msg("store_period 100 mid-session: period_errors %lld, store_period %lld\n",
		       embm_status_ll("period_errors"), embm_status_ll("store_period"));
	EXPECT_GE(embm_status_ll("period_errors"), 1);
	EXPECT_GE(embm_status_ll("store_period"), 256);

	sleep_ms(100);
	lost1 = emu_driver_stat("lost");
	pl1 = plugin_lost(&self->dev);
	ksft_print_msg("records the plugin could not write %llu; driver counted lost %lld\n",
		       pl1 - pl0, lost1 - lost0);
	EXPECT_GT(pl1 - pl0, 0);
	EXPECT_EQ((long long)(pl1 - pl0), lost1 - lost0);

	emu_run("kill $(cat %s.pid) 2>/dev/null", BEAT);
	gap = beat_gap();
	ksft_print_msg("heartbeat: longest gap %ld s\n", gap);
	EXPECT_GE(gap, 0);
	EXPECT_LE(gap, MAX_GAP);
}

TEST_HARNESS_MAIN
