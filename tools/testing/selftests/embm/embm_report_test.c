// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' reader of /proc/embm (tools/embm/procfs.c, report.c) on a
 * fake directory whose figures the test wrote: the hardware sources' new
 * figures (latency-only samples, latencies left out by reason, time
 * throttled) come out in embm-run's text and JSON as they went in.  No
 * hardware source runs here, so this is the only path they take.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/embm.h>

#include "../kselftest_harness.h"
#include "report.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "version %d\n%s", EMBM_PROC_VERSION, text);
		fclose(f);
	}
}

static const char *const files[] = {
	"status", "nodes", "latency", "matrix", "hotpages", "windows", "tasks", "hint",
};

static void clean(const char *dir)
{
	char path[1024];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

/* What a pebs session with ldlat on two nodes might leave, made up. */
static void fake_session(const char *dir)
{
	put(dir, "status",
	    "state done\ntarget 42\nnode 1\nsource pebs\n"
	    "source_fields loads stores lat_samples lat_mean_cycles\n"
	    "samples 100\nattributed 80\nlatency_only 12\nno_phys 3\nbad_pfn 2\n"
	    "hotplug_busy 1\ncxl_device_samples 2\n"
	    "lat_dropped_cache 4\nlat_dropped_uncached 1\nlat_dropped_io 0\n"
	    "lat_dropped_unknown 2\nthrottled 3\n"
	    "event loads-l3-miss count 900 enabled_ms 50 running_ms 50 running_pct 100.0 samples 60 leader 0 lost 0 lost_events 0 throttled_ms 12\n"
	    "event loads-latency count 30 enabled_ms 50 running_ms 50 running_pct 100.0 samples 12 leader 0 lost 0 lost_events 0 throttled_ms 0\n"
	    "kinds_multiplexed 0\n");
	put(dir, "nodes",
	    "node tier samples share_pct loads stores accesses lat_samples lat_mean_cycles pages study cxl_samples windows\n"
	    "1 cxl 30 37.50 30 0 300 5 410 30 * 30 w0\n"
	    "0 dram 50 62.50 40 10 500 3 120 50 - 0 -\n");
	/* Another order than nodes, and a node that came in between. */
	put(dir, "latency",
	    "node lat_samples lat_accesses dropped_cache dropped_uncached dropped_io dropped_unknown lt2\n"
	    "0 3 30 4 0 0 0 30\n"
	    "1 5 50 0 1 0 2 50\n"
	    "2 0 0 0 0 0 0 0\n");
	put(dir, "matrix", "cpu_node mem0 mem1\n0 500 300\n");
	put(dir, "hotpages", "rank pfn node tier count error samples study\n");
	put(dir, "windows", "window start end node samples device_samples\n");
}

static const struct embm_node *node_of(const struct embm_report *r, int nid)
{
	int i;

	for (i = 0; i < r->nr_nodes; i++)
		if (r->nodes[i].node == nid)
			return &r->nodes[i];
	return NULL;
}

TEST(report_carries_the_hardware_figures)
{
	char dir[] = "/tmp/embm_report_XXXXXX", *text = NULL;
	/* The text and JSON, from the figures fake_session() wrote. */
	static const char *const want[] = {
		/* The terms of the identity: 80 + 12 + (3 + 2) + 2 + 1. */
		"samples 100 = attributed 80 (cache-served 0) + latency-only 12 + no address 5 + on CXL device pages 2 + during hotplug 1;",
		"  loads-l3-miss 12 ms of 50 ms running\n",
		"latency left out: 4 served by a cache, 1 uncached, 0 I/O, 2 of unknown source",
		"\"latency_only\": 12, ",
		"\"throttled_ms\": 12, ",
		"\"lat_dropped\": {\"cache\": 0, \"uncached\": 1, \"io\": 0, \"unknown\": 2}",
		"\"lat_dropped\": {\"cache\": 4, \"uncached\": 0, \"io\": 0, \"unknown\": 0}",
	};
	const struct embm_node *n0, *n1;
	struct embm_report r;
	size_t size = 0;
	unsigned int i;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	fake_session(dir);
	ASSERT_EQ(0, embm_report_read(&r, dir));
	EXPECT_EQ(12, r.latency_only);
	EXPECT_EQ(12, r.throttled_ms);
	n0 = node_of(&r, 0);
	n1 = node_of(&r, 1);
	ASSERT_NE(NULL, n0);
	ASSERT_NE(NULL, n1);
	EXPECT_EQ(4, n0->lat_dropped_cache);
	EXPECT_EQ(0, n0->lat_dropped_unknown);
	EXPECT_EQ(1, n1->lat_dropped_uncached);
	EXPECT_EQ(2, n1->lat_dropped_unknown);

	f = open_memstream(&text, &size);
	ASSERT_NE(NULL, f);
	embm_report_print(f, &r, NULL, 0);
	embm_report_json(f, &r, "embm-run", NULL, 0, NULL, NULL);
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		EXPECT_NE(NULL, strstr(text, want[i])) TH_LOG("want[%u] missing", i);
	free(text);
	embm_report_free(&r);
	/* Without the latency file the report stands, the dropped figures 0. */
	put(dir, "latency", "");
	ASSERT_EQ(0, embm_report_read(&r, dir));
	EXPECT_EQ(0, node_of(&r, 1)->lat_dropped_unknown);
	embm_report_free(&r);
	clean(dir);
}

/*
 * A system-wide emu session on a DRAM and a CXL node, made up: two
 * processes (one of two threads) and the other tasks' row in tasks, and
 * the CXL node's promotion hint.
 */
static void fake_tasks(const char *dir)
{
	put(dir, "status",
	    "state done\ntarget -1\nnode 3\nsource emu\nsamples 100\nattributed 100\n"
	    "accesses 1000\naccesses_lo 900\naccesses_hi 1100\n"
	    "tasks 3\ntasks_max 3\ntasks_other_samples 10\nkinds_multiplexed 0\n");
	put(dir, "nodes",
	    "node tier samples share_pct share_lo_pct share_hi_pct accesses accesses_lo accesses_hi user_samples kernel_samples user_accesses kernel_accesses pages study cxl_samples windows\n"
	    "3 cxl 40 40.00 30.50 50.25 400 300 500 30 10 300 100 40 * 40 w0\n"
	    "0 dram 60 60.00 49.75 69.50 600 480 720 60 0 600 0 60 - 0 -\n");
	put(dir, "tasks",
	    "pid tid comm samples accesses share_pct user_accesses kernel_accesses cxl_accesses n0_samples n0_accesses n3_samples n3_accesses nother_samples nother_accesses\n"
	    "10 11 bench 40 400 40.00 300 100 300 10 100 30 300 0 0\n"
	    "20 20 other-job 30 300 30.00 300 0 0 30 300 0 0 0 0\n"
	    "10 12 bench 20 200 20.00 200 0 100 10 100 10 100 0 0\n"
	    "-1 -1 (other) 10 100 10.00 100 0 0 10 100 0 0 0 0\n");
	put(dir, "hint",
	    "node tier pages bytes share_pct share_lo_pct share_hi_pct min_samples\n"
	    "3 cxl 1 4096 50.00 40.00 60.00 20\n"
	    "3 cxl 64 262144 90.00 85.00 95.00 12\n"
	    "3 cxl 100 409600 100.00 99.00 100.00 1\n");
	put(dir, "latency", "");
	put(dir, "matrix", "cpu_node mem0 mem3\n0 600 400\n");
	put(dir, "hotpages", "rank pfn node tier count error samples study\n");
	put(dir, "windows", "window start end node samples device_samples\n");
}

TEST(report_tasks_hint_and_intervals)
{
	char dir[] = "/tmp/embm_report_XXXXXX", *text = NULL;
	static const char *const want[] = {
		"  3 cxl          40  40.00% [30.50- 50.25]",
		"accesses 1000, 95% interval 900-1100 (sampling error only); user 900 (90.0%, 90 samples), kernel 100 (10.0%, 10 samples)",
		"  node 3 cxl: 1 pages (4 KiB) 50.0% [40.0-60.0], 64 pages (256 KiB) 90.0% [85.0-95.0], 100 pages (400 KiB) 100.0% [99.0-100.0] (pages sampled < 10 times: runs high)\n",
		/* bench's two threads summed: 300 + 100 of node 3's 400. */
		"  node 3 cxl: bench 10 100.0%\n",
		"  node 0 dram: other-job 20 50.0%, bench 10 33.3%, other tasks 16.7%\n",
		"      10       11 bench                   40  40.00%   25.0%  75.0%      25.0%      75.0%       0.0%\n",
		"       -        - (other tasks)           10  10.00%    0.0%   0.0%     100.0%       0.0%       0.0%\n",
		"\"share_lo_pct\": 30.50, \"share_hi_pct\": 50.25, ",
		"\"accesses_lo\": 300, \"accesses_hi\": 500, ",
		"\"user_accesses\": 300, \"kernel_accesses\": 100, ",
		"{\"node\": 3, \"tier\": \"cxl\", \"curve\": [{\"pages\": 1, \"bytes\": 4096, ",
		"{\"pid\": 20, \"tid\": 20, \"comm\": \"other-job\", \"samples\": 30, ",
		"{\"pid\": null, \"tid\": null, \"comm\": \"(other tasks)\", ",
		"{\"node\": null, \"samples\": 0, \"accesses\": 0}]}\n",
	};
	struct embm_report r;
	size_t size = 0;
	unsigned int i;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	fake_tasks(dir);
	ASSERT_EQ(0, embm_report_read(&r, dir));
	ASSERT_EQ(4, r.tasks.nr_rows);
	ASSERT_EQ(3, r.tasks.nr_cols);
	EXPECT_EQ(0, r.tasks.cols[0]);
	EXPECT_EQ(3, r.tasks.cols[1]);
	EXPECT_EQ(-1, r.tasks.cols[2]);
	EXPECT_EQ(300, r.tasks.rows[0].node_accesses[1]);
	EXPECT_EQ(3, r.nr_hint);
	r.per_task = true;
	f = open_memstream(&text, &size);
	ASSERT_NE(NULL, f);
	embm_report_print(f, &r, NULL, 10);
	embm_report_json(f, &r, "embm-run", NULL, 0, NULL, NULL);
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		EXPECT_NE(NULL, strstr(text, want[i])) TH_LOG("want[%u] missing", i);
	if (_metadata->exit_code)
		fputs(text, stderr);
	free(text);
	embm_report_free(&r);

	/*
	 * A row short of a field, a pid that is not a number, a node's
	 * accesses without its samples: the table is left out, with why,
	 * and the report stands.
	 */
	put(dir, "tasks", "pid tid comm samples accesses\n10 11 bench 40\n");
	ASSERT_EQ(0, embm_report_read(&r, dir));
	EXPECT_EQ(EPROTO, r.tasks_errno);
	EXPECT_EQ(0, r.tasks.nr_rows);
	EXPECT_EQ(2, r.nr_nodes);
	embm_report_free(&r);
	put(dir, "tasks", "pid tid comm samples accesses\nten 11 bench 40 400\n");
	ASSERT_EQ(0, embm_report_read(&r, dir));
	EXPECT_EQ(EPROTO, r.tasks_errno);
	embm_report_free(&r);
	put(dir, "tasks", "pid tid comm samples accesses n0_accesses n0_samples\n1 1 a 1 1 1 1\n");
	ASSERT_EQ(0, embm_report_read(&r, dir));
	EXPECT_EQ(EPROTO, r.tasks_errno);
	embm_report_free(&r);
	/* A kernel without the files: no rows, the report stands. */
	{
		char path[1100];

		snprintf(path, sizeof(path), "%s/tasks", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/hint", dir);
		unlink(path);
	}
	ASSERT_EQ(0, embm_report_read(&r, dir));
	EXPECT_EQ(0, r.tasks.nr_rows);
	EXPECT_EQ(0, r.nr_hint);
	embm_report_free(&r);
	clean(dir);
}

TEST_HARNESS_MAIN
