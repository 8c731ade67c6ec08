// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' reader of /proc/embm (tools/embm/procfs.c, report.c) on a
 * fake directory whose figures the test wrote: the hardware sources' new
 * figures (latency-only samples, latencies left out by reason, time
 * throttled) come out in embm-run's text and JSON as they went in.  No
 * hardware source runs here, so this is the only path they take.
 */
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
	"status", "nodes", "latency", "matrix", "hotpages", "windows",
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

TEST_HARNESS_MAIN
