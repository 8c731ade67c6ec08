// SPDX-License-Identifier: GPL-2.0
/*
 * The tiering counters in embm-run's report (tools/embm/vmstat.c), held
 * to what the test itself did:
 *
 * - fake_tree: on a fake /proc/vmstat and node tree whose numbers the test
 *   wrote, the text shows exactly the counters that moved, signed, the
 *   JSON every one; a missing file says why and fails nothing;
 * - migrate_pages_show_as_moved: a process moves N pages it owns from one
 *   node to another with move_pages() while embm-run samples it (--pid);
 *   move_pages() itself says where each page is before and after.  The
 *   report's pgmigrate_success moved by at least N, and the nodes'
 *   nr_anon_pages by about -N and +N (other processes allocate a little
 *   meanwhile: SLACK pages);
 * - numa_balancing_tiering_promotes: with kernel.numa_balancing=2 (memory
 *   tiering), a process reads pages put on a node of a lower memory tier
 *   (a CXL expander's, onlined by kmem: scripts/embm run --cxl, then
 *   cxl-online) until NUMA balancing promoted them to a top-tier node, as
 *   move_pages() sees; the report's pgpromote_success moved by at least
 *   the pages seen promoted.  It skips without CONFIG_NUMA_BALANCING or
 *   a lower tier.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "embm_util.h"
#include "report.h"
#include "vmstat.h"

#define MOVE_PAGES	4096	/* 16 MiB */
#define PROMO_PAGES	256	/* 1 MiB: reads of a CXL node are I/O under TCG */
#define SLACK		256	/* pages others may allocate during a session */
#define RUN_OUT		"/tmp/embm_vmstat_run.json"

/* Write @text to @root/@rel, making its directories. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *print_to_string(const struct embm_vmstat *a, const struct embm_vmstat *b,
			     bool json)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	if (json)
		embm_vmstat_json(f, a, b);
	else
		embm_vmstat_print(f, a, b);
	fclose(f);
	return text;
}

TEST(fake_tree)
{
	static const char * const json[] = {
		",\n \"vmstat\": {\"scope\": \"system\", \"folded\": true, ",
		"\"counters\": {\"numa_hit\": 512, \"pgmigrate_success\": 512, ",
		"\"pgpromote_success\": 0},\n  \"nodes\": [\n",
		"   {\"node\": 0, \"nr_free_pages\": 512, \"numa_hit\": 0, ",
		"\"nr_anon_pages\": -512, \"pgdemote_kswapd\": 0},\n",
		"   {\"node\": 2, \"nr_free_pages\": 0, \"numa_hit\": 512, ",
		"\"nr_anon_pages\": 512, \"pgdemote_kswapd\": 0},\n",
		"   {\"node\": 10, \"nr_free_pages\": 0, \"numa_hit\": 0, ",
		"\"nr_anon_pages\": 0, \"pgdemote_kswapd\": 0",
	};
	char root[] = "/tmp/embm_vmstat_XXXXXX", cmd[600];
	struct embm_vmstat a, b;
	char *text, *p;
	unsigned int i;
	long long d;

	ASSERT_NE(NULL, mkdtemp(root));
	/* Written by each snapshot, to fold the CPUs' counts in. */
	put(root, "proc/sys/vm/stat_refresh", "");
	put(root, "proc/vmstat",
	    "nr_free_pages 100\nnuma_hit 10\npgmigrate_success 5\npgpromote_success 0\n"
	    "pgsteal_kswapd 7\n");
	put(root, "sys/devices/system/node/node0/vmstat",
	    "nr_free_pages 60\nnuma_hit 6\nnr_anon_pages 1000\nnr_dirty 3\npgdemote_kswapd 0\n");
	put(root, "sys/devices/system/node/node10/vmstat",
	    "nr_free_pages 40\nnuma_hit 4\nnr_anon_pages 0\npgdemote_kswapd 0\n");
	put(root, "sys/devices/system/node/node2/vmstat",
	    "nr_free_pages 40\nnuma_hit 4\nnr_anon_pages 0\npgdemote_kswapd 0\n");
	embm_vmstat_read(&a, root);
	ASSERT_EQ(0, a.why[0]);
	ASSERT_EQ(0, a.nodes_why[0]);
	EXPECT_TRUE(a.folded);
	/* Not wanted: /proc/vmstat's nr_free_pages and pgsteal_*, node's nr_dirty. */
	EXPECT_EQ(3 + 3 * 4, a.nr);
	EXPECT_EQ(-1, a.it[0].node);
	EXPECT_EQ(2, a.it[3 + 4].node) TH_LOG("nodes are read in their order");

	put(root, "proc/vmstat",
	    "nr_free_pages 90\nnuma_hit 522\npgmigrate_success 517\npgpromote_success 0\n");
	put(root, "sys/devices/system/node/node0/vmstat",
	    "nr_free_pages 572\nnuma_hit 6\nnr_anon_pages 488\nnr_dirty 3\npgdemote_kswapd 0\n");
	put(root, "sys/devices/system/node/node2/vmstat",
	    "nr_free_pages 40\nnuma_hit 516\nnr_anon_pages 512\npgdemote_kswapd 0\n");
	put(root, "sys/devices/system/node/node10/vmstat",
	    "nr_free_pages 40\nnuma_hit 4\nnr_anon_pages 0\npgdemote_kswapd 0\n");
	embm_vmstat_read(&b, root);
	ASSERT_TRUE(embm_vmstat_delta(&a, &b, -1, "pgmigrate_success", &d));
	EXPECT_EQ(512, d);
	ASSERT_TRUE(embm_vmstat_delta(&a, &b, 0, "nr_anon_pages", &d));
	EXPECT_EQ(-512, d);
	EXPECT_FALSE(embm_vmstat_delta(&a, &b, 0, "nr_dirty", &d));

	text = print_to_string(&a, &b, false);
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("tiering activity (system-wide): numa_hit +512, pgmigrate_success +512\n"
		     "  node 0: nr_free_pages +512, nr_anon_pages -512\n"
		     "  node 2: numa_hit +512, nr_anon_pages +512\n", text);
	free(text);
	text = print_to_string(&a, &b, true);
	ASSERT_NE(NULL, text);
	/* Every counter, zero or not, in the files' order: piece by piece. */
	for (i = 0, p = text; i < ARRAY_SIZE(json) && p; i++) {
		p = strstr(p, json[i]);
		EXPECT_NE(NULL, p) TH_LOG("json[%u] missing or out of order: %s", i, text);
		if (p)
			p += strlen(json[i]);
	}
	EXPECT_EQ(0, strcmp(p ? p : "", "}\n  ]}"));
	free(text);
	/* Nothing moved: one line says so. */
	text = print_to_string(&b, &b, false);
	EXPECT_STREQ("tiering activity (system-wide): no counter moved\n", text);
	free(text);
	embm_vmstat_free(&a);
	embm_vmstat_free(&b);

	/* Not folded (not root): said, as the node counts may lag. */
	snprintf(cmd, sizeof(cmd), "rm %s/proc/sys/vm/stat_refresh", root);
	ASSERT_EQ(0, system(cmd));
	embm_vmstat_read(&a, root);
	EXPECT_FALSE(a.folded);
	text = print_to_string(&a, &a, false);
	EXPECT_NE(NULL, strstr(text, "\n  (node counts may lag by the CPUs' unfolded counts: "));
	free(text);
	text = print_to_string(&a, &a, true);
	EXPECT_NE(NULL, strstr(text, "\"folded\": false, "));
	free(text);
	embm_vmstat_free(&a);

	/* No node tree (a kernel without NUMA): said, /proc/vmstat's still shown. */
	snprintf(cmd, sizeof(cmd), "rm -r %s/sys", root);
	ASSERT_EQ(0, system(cmd));
	embm_vmstat_read(&a, root);
	EXPECT_NE(NULL, strstr(a.nodes_why, "/sys/devices/system/node: No such file"));
	text = print_to_string(&a, &a, true);
	EXPECT_NE(NULL, strstr(text, "\"nodes\": null, \"nodes_unavailable\": \""));
	free(text);
	embm_vmstat_free(&a);
	/* No /proc/vmstat: unavailable, and why. */
	snprintf(cmd, sizeof(cmd), "rm -r %s", root);
	ASSERT_EQ(0, system(cmd));
	embm_vmstat_read(&a, root);
	text = print_to_string(&a, &a, false);
	EXPECT_NE(NULL, strstr(text, "tiering activity: unavailable: /tmp/embm_vmstat_"));
	EXPECT_NE(NULL, strstr(text, "/proc/vmstat: No such file or directory\n"));
	free(text);
	text = print_to_string(&a, &a, true);
	EXPECT_NE(NULL, strstr(text, "\"vmstat\": null, \"vmstat_unavailable\": \"/tmp/"));
	free(text);
	embm_vmstat_free(&a);
}

/* Where each of @n pages at @p is: the count on each node into @on[]. */
static int where(char *p, int n, int *on)
{
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status)), i, err = 0;

	if (!pages || !status) {
		err = -1;
		goto out;
	}
	for (i = 0; i < n; i++)
		pages[i] = p + i * EMBM_PAGE;
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0)) {
		err = -1;
		goto out;
	}
	memset(on, 0, EMBM_MAX_NODES * sizeof(*on));
	for (i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < EMBM_MAX_NODES)
			on[status[i]]++;
out:
	free(pages);
	free(status);
	return err;
}

/* Move @n pages at @p to @node with move_pages(); how many are there now, or -1. */
static int move_to(char *p, int n, int node)
{
	static int on[EMBM_MAX_NODES];
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes)), *status = calloc(n, sizeof(*status)), i;
	long err;

	if (!pages || !nodes || !status)
		return -1;
	for (i = 0; i < n; i++) {
		pages[i] = p + i * EMBM_PAGE;
		nodes[i] = node;
	}
	err = syscall(SYS_move_pages, 0, n, pages, nodes, status, MPOL_MF_MOVE);
	free(pages);
	free(nodes);
	free(status);
	if (err < 0 || where(p, n, on))
		return -1;
	return on[node];
}

/* The nodes with memory, and which are in the top memory tier. */
static int nodes_with_memory(bool *mem, bool *top)
{
	int best = -1, t;
	struct dirent *d;
	char path[300];
	DIR *dp;

	if (embm_read_nodelist("/sys/devices/system/node/has_memory", mem))
		return -1;
	/* memory_tierN: the lower N, the faster; no such tree: one tier. */
	memcpy(top, mem, EMBM_MAX_NODES * sizeof(*top));
	dp = opendir("/sys/devices/virtual/memory_tiering");
	if (!dp)
		return 0;
	while ((d = readdir(dp)))
		if (sscanf(d->d_name, "memory_tier%d", &t) == 1 && (best < 0 || t < best))
			best = t;
	closedir(dp);
	if (best < 0)
		return 0;
	snprintf(path, sizeof(path), "/sys/devices/virtual/memory_tiering/memory_tier%d/nodelist",
		 best);
	return embm_read_nodelist(path, top);
}

/* A number of the "vmstat" object of a JSON report: a counter, or a node's (-1: counters). */
static bool vmstat_value(const char *json, int node, const char *name, long long *v)
{
	const char *p = strstr(json, "\"vmstat\": {"), *end;
	char key[64];

	if (!p)
		return false;
	if (node < 0) {
		p = strstr(p, "\"counters\": {");
	} else {
		snprintf(key, sizeof(key), "{\"node\": %d,", node);
		p = strstr(p, key);
	}
	if (!p)
		return false;
	end = strchr(p + 1, '}');
	snprintf(key, sizeof(key), "\"%s\": ", name);
	p = strstr(p, key);
	if (!p || (end && p > end))
		return false;
	return sscanf(p + strlen(key), "%lld", v) == 1;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (getdelim(&text, &size, 0, f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* Wait up to @ms for /proc/embm to say a session on @pid runs. */
static bool session_on(pid_t pid, long ms)
{
	char state[32], target[32];

	for (; ms > 0; ms -= 20) {
		if (!embm_status("state", state, sizeof(state)) && !strcmp(state, "running") &&
		    !embm_status("target", target, sizeof(target)) && atoi(target) == pid)
			return true;
		sleep_ms(20);
	}
	return false;
}

/* embm-run -j -o RUN_OUT --pid @pid, in the background; its pid. */
static pid_t start_embm_run(pid_t pid)
{
	char spid[16];
	pid_t run;

	snprintf(spid, sizeof(spid), "%d", pid);
	run = fork();
	if (run == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		execlp("embm-run", "embm-run", "-j", "-o", RUN_OUT, "--pid", spid, NULL);
		_exit(127);
	}
	return run;
}

/* The checks both sessions need: root, embm, embm-run. */
static const char *cannot_run(void)
{
	if (access("/proc/embm/status", R_OK))
		return "no /proc/embm: a kernel without embm";
	if (geteuid())
		return "needs root (move_pages() of its own pages does not, embm-run may)";
	if (system("command -v embm-run >/dev/null 2>&1"))
		return "embm-run is not on PATH";
	return NULL;
}

FIXTURE(session) {
	int ready[2], go[2], done[2];
};

FIXTURE_SETUP(session)
{
	ASSERT_EQ(0, pipe(self->ready));
	ASSERT_EQ(0, pipe(self->go));
	ASSERT_EQ(0, pipe(self->done));
}

FIXTURE_TEARDOWN(session)
{
	unlink(RUN_OUT);
}

TEST_F_TIMEOUT(session, migrate_pages_show_as_moved, 120)
{
	static bool mem[EMBM_MAX_NODES], top[EMBM_MAX_NODES];
	int from = -1, to = -1, moved = -1, i;
	long long migrated, left, arrived;
	pid_t child, run;
	const char *why;
	char *json, c;

	why = cannot_run();
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, nodes_with_memory(mem, top));
	/* Two top-tier nodes: moves there take no I/O emulation under QEMU. */
	for (i = 0; i < EMBM_MAX_NODES; i++) {
		if (!mem[i] || !top[i])
			continue;
		if (from < 0)
			from = i;
		else
			to = i;
	}
	if (to < 0)
		SKIP(return, "one node with memory in the top tier: nowhere to move pages");

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		char *p = mmap(NULL, MOVE_PAGES * EMBM_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int n;

		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, MOVE_PAGES * EMBM_PAGE, MADV_NOHUGEPAGE);
		embm_touch(p, MOVE_PAGES);
		/* All on @from before the session. */
		n = move_to(p, MOVE_PAGES, from);
		if (write(self->ready[1], &n, sizeof(n)) != sizeof(n) ||
		    read(self->go[0], &c, 1) != 1)
			_exit(1);
		n = move_to(p, MOVE_PAGES, to);
		if (write(self->done[1], &n, sizeof(n)) != sizeof(n))
			_exit(1);
		/* Hold the pages until the session's end snapshot: killed. */
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(moved), read(self->ready[0], &moved, sizeof(moved)));
	ASSERT_EQ(MOVE_PAGES, moved) TH_LOG("pages on node %d before the session", from);
	run = start_embm_run(child);
	ASSERT_LE(0, run);
	if (!session_on(child, 30000)) {
		kill(child, SIGKILL);
		reap(child);
		kill(run, SIGKILL);
		reap(run);
		ASSERT_TRUE(false) TH_LOG("no session on %d within 30 s", child);
	}
	ASSERT_EQ(1, write(self->go[1], "g", 1));
	ASSERT_EQ(sizeof(moved), read(self->done[0], &moved, sizeof(moved)));
	/* The pages are still the child's: the end snapshot sees them on @to. */
	kill(run, SIGINT);
	EXPECT_EQ(0, reap(run));
	kill(child, SIGKILL);
	reap(child);
	ASSERT_EQ(MOVE_PAGES, moved) TH_LOG("pages move_pages() put on node %d", to);

	json = slurp(RUN_OUT);
	ASSERT_NE(NULL, json);
	ASSERT_TRUE(vmstat_value(json, -1, "pgmigrate_success", &migrated)) TH_LOG("%s", json);
	ASSERT_TRUE(vmstat_value(json, from, "nr_anon_pages", &left));
	ASSERT_TRUE(vmstat_value(json, to, "nr_anon_pages", &arrived));
	TH_LOG("%d pages moved from node %d to %d: pgmigrate_success %+lld,", moved, from, to,
	       migrated);
	TH_LOG("nr_anon_pages %+lld on node %d, %+lld on node %d", left, from, arrived, to);
	EXPECT_LE(MOVE_PAGES, migrated);
	/*
	 * The source has CPUs: everything else allocates there meanwhile
	 * (1141 pages in one run of the CXL boot), so it must show at least
	 * half of them leaving; the destination, which only they reach,
	 * all of them arriving.
	 */
	EXPECT_GE(-(MOVE_PAGES / 2), left);
	EXPECT_LE(-(MOVE_PAGES + SLACK), left);
	EXPECT_LE(MOVE_PAGES - SLACK, arrived);
	EXPECT_GE(MOVE_PAGES + SLACK, arrived);
	free(json);
}

TEST_F_TIMEOUT(session, numa_balancing_tiering_promotes, 240)
{
	static bool mem[EMBM_MAX_NODES], top[EMBM_MAX_NODES];
	static const char sysctl[] = "/proc/sys/kernel/numa_balancing";
	long long promoted_counter, hint_faults;
	int slow = -1, first, promoted = -1, i;
	char saved[32], *json, c;
	pid_t child, run;
	const char *why;

	why = cannot_run();
	if (why)
		SKIP(return, "%s", why);
	if (access(sysctl, W_OK))
		SKIP(return, "no %s: a kernel without CONFIG_NUMA_BALANCING", sysctl);
	ASSERT_EQ(0, nodes_with_memory(mem, top));
	for (i = 0; i < EMBM_MAX_NODES; i++)
		if (mem[i] && !top[i])
			slow = i;
	if (slow < 0)
		SKIP(return, "no node in a lower memory tier (scripts/embm run --cxl, cxl-online)");
	ASSERT_EQ(0, read_line(sysctl, saved, sizeof(saved)));

	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		static int on[EMBM_MAX_NODES];
		struct timespec t0, t;
		unsigned long sum = 0;
		char *p = mmap(NULL, PROMO_PAGES * EMBM_PAGE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int n = 0, up = 0, j;

		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, PROMO_PAGES * EMBM_PAGE, MADV_NOHUGEPAGE);
		embm_touch(p, PROMO_PAGES);
		n = move_to(p, PROMO_PAGES, slow);
		if (write(self->ready[1], &n, sizeof(n)) != sizeof(n) ||
		    read(self->go[0], &c, 1) != 1)
			_exit(1);
		/* Read every page until NUMA balancing promoted them all, or 150 s. */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int pass = 0; pass < 20; pass++)
				for (j = 0; j < PROMO_PAGES; j++)
					sum += __atomic_load_n(&p[j * EMBM_PAGE], __ATOMIC_RELAXED);
			if (where(p, PROMO_PAGES, on))
				_exit(1);
			for (up = 0, j = 0; j < EMBM_MAX_NODES; j++)
				if (top[j])
					up += on[j];
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (up < PROMO_PAGES && t.tv_sec - t0.tv_sec < 150);
		/* The sum keeps the reads: a compiler may drop unused loads. */
		if (write(self->done[1], &up, sizeof(up)) != sizeof(up) || !sum)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(sizeof(first), read(self->ready[0], &first, sizeof(first)));
	ASSERT_EQ(PROMO_PAGES, first) TH_LOG("pages on node %d before the session", slow);
	run = start_embm_run(child);
	ASSERT_LE(0, run);
	if (!session_on(child, 30000) || write_file(sysctl, "2")) {
		kill(child, SIGKILL);
		reap(child);
		kill(run, SIGKILL);
		reap(run);
		write_file(sysctl, saved);
		ASSERT_TRUE(false) TH_LOG("no session on %d, or %s refused 2", child, sysctl);
	}
	ASSERT_EQ(1, write(self->go[1], "g", 1));
	ASSERT_EQ(sizeof(promoted), read(self->done[0], &promoted, sizeof(promoted)));
	kill(run, SIGINT);
	EXPECT_EQ(0, reap(run));
	kill(child, SIGKILL);
	reap(child);
	write_file(sysctl, saved);

	json = slurp(RUN_OUT);
	ASSERT_NE(NULL, json);
	ASSERT_TRUE(vmstat_value(json, -1, "pgpromote_success", &promoted_counter))
		TH_LOG("%s", json);
	ASSERT_TRUE(vmstat_value(json, -1, "numa_hint_faults", &hint_faults));
	TH_LOG("%d of %d pages promoted from node %d, as move_pages() sees;", promoted,
	       PROMO_PAGES, slow);
	TH_LOG("pgpromote_success %+lld, numa_hint_faults %+lld", promoted_counter, hint_faults);
	EXPECT_LT(0, promoted);
	EXPECT_LE(promoted, promoted_counter);
	EXPECT_LE(promoted, hint_faults);
	free(json);
}

TEST_HARNESS_MAIN
