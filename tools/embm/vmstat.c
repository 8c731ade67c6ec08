// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: the kernel's tiering counters over a session
 *
 * embm says where a program's accesses went; the kernel's own counters say
 * what the kernel moved meanwhile: pages promoted to and demoted from the
 * top tier, NUMA balancing's hint faults and migrations, pages migrated by
 * anyone (migrate_pages(), move_pages(), mbind(), compaction), and per
 * node where allocations landed and how many pages each node holds.  The
 * tools snapshot them at a session's start and end and show the
 * differences.  They are system-wide: the kernel does not count them per
 * process, so other processes' moves are in them too.
 *
 * /proc/vmstat: every counter named pgpromote_*, pgdemote_*, numa_*,
 * pgmigrate_* and thp_migration_* (6.12 has 21 with NUMA_BALANCING and
 * MIGRATION; a kernel without them has fewer, which is no error).
 *
 * /sys/devices/system/node/nodeN/vmstat: numa_* (allocations placed on
 * the node: hit, miss, foreign, interleave, local, other), pgpromote_*
 * and pgdemote_* (pages promoted to, demoted from the node), and three
 * gauges, nr_free_pages, nr_anon_pages and nr_file_pages, whose
 * differences show pages leaving and arriving: a migration has no
 * per-node counter of its own (pgmigrate_* are global).  The other node
 * fields (about 50: LRU sizes, dirty and writeback pages, slab, kernel
 * stacks, page tables) say nothing about tiering and are left out.
 *
 * The node counters (pgpromote_*, pgdemote_*, nr_*) are kept per CPU and
 * folded into what the files show only past a threshold or once a second
 * (vm.stat_interval): up to about 125 pages a CPU behind.  Root can fold
 * them at once by writing /proc/sys/vm/stat_refresh, which each snapshot
 * does first; the events (pgmigrate_*, numa_hint_faults, ...) are summed
 * over the CPUs at each read and need no folding.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "vmstat.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_NODES	1024
#define LINE_WIDTH	100	/* the text report's lines wrap before this */

static const char * const global_prefixes[] = {
	"pgpromote_", "pgdemote_", "numa_", "pgmigrate_", "thp_migration_",
};

static const char * const node_prefixes[] = { "pgpromote_", "pgdemote_", "numa_" };

/* Gauges: their difference is signed. */
static const char * const node_gauges[] = {
	"nr_free_pages", "nr_anon_pages", "nr_file_pages",
};

/**
 * embm_vmstat_wanted() - is @name one of the counters the tools show?
 * @name: a field of /proc/vmstat or of a node's vmstat
 * @node: true for a node's vmstat
 *
 * Return: true if it is shown.
 */
bool embm_vmstat_wanted(const char *name, bool node)
{
	const char * const *p = node ? node_prefixes : global_prefixes;
	size_t n = node ? ARRAY_SIZE(node_prefixes) : ARRAY_SIZE(global_prefixes);
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(name, p[i], strlen(p[i])))
			return true;
	for (i = 0; node && i < ARRAY_SIZE(node_gauges); i++)
		if (!strcmp(name, node_gauges[i]))
			return true;
	return false;
}

static int add(struct embm_vmstat *s, int node, const char *name, unsigned long long v)
{
	struct embm_vmstat_item *it;

	if (s->nr == s->size) {
		int size = s->size ? 2 * s->size : 64;

		it = realloc(s->it, size * sizeof(*it));
		if (!it)
			return -1;
		s->it = it;
		s->size = size;
	}
	it = &s->it[s->nr++];
	it->node = node;
	snprintf(it->name, sizeof(it->name), "%s", name);
	it->v = v;
	return 0;
}

/* The wanted "name value" lines of @path, as @node's; -1 with errno. */
static int read_file(struct embm_vmstat *s, const char *path, int node)
{
	char line[128], name[40];
	unsigned long long v;
	FILE *f;
	int err = 0;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%39s %llu", name, &v) != 2)
			continue;
		if (embm_vmstat_wanted(name, node >= 0))
			err = add(s, node, name, v);
	}
	fclose(f);
	return err;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Every node's vmstat, in node order; or why not in @s->nodes_why. */
static void read_nodes(struct embm_vmstat *s, const char *root)
{
	static int ids[MAX_NODES];
	char dir[256], path[300];
	struct dirent *d;
	int n = 0, i;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/sys/devices/system/node", root);
	dp = opendir(dir);
	if (!dp) {
		snprintf(s->nodes_why, sizeof(s->nodes_why), "%s: %s%s", dir, strerror(errno),
			 errno == ENOENT ? " (a kernel without CONFIG_NUMA?)" : "");
		return;
	}
	while ((d = readdir(dp)) && n < MAX_NODES) {
		char *end;
		long id;

		if (strncmp(d->d_name, "node", 4) || !isdigit((unsigned char)d->d_name[4]))
			continue;
		id = strtol(d->d_name + 4, &end, 10);
		if (!*end)
			ids[n++] = id;
	}
	closedir(dp);
	qsort(ids, n, sizeof(ids[0]), cmp_int);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/node%d/vmstat", dir, ids[i]);
		if (read_file(s, path, ids[i]) && !s->nodes_why[0])
			snprintf(s->nodes_why, sizeof(s->nodes_why), "%s: %s", path,
				 strerror(errno));
	}
	if (!n)
		snprintf(s->nodes_why, sizeof(s->nodes_why), "%s: no node", dir);
}

/* Write "1" to @path, which must exist; 0 or -1. */
static int write_one(const char *path)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -1;
	if (write(fd, "1", 1) != 1)
		err = -1;
	close(fd);
	return err;
}

/**
 * embm_vmstat_read() - snapshot the tiering counters
 * @s:    filled in; free with embm_vmstat_free()
 * @root: "" for this system, or a directory laid out as / (proc/vmstat,
 *        sys/devices/system/node/nodeN/vmstat), for tests
 *
 * Never fails: what cannot be read is said in @s->why (nothing read) or
 * @s->nodes_why (no node's counters), for the report.
 */
void embm_vmstat_read(struct embm_vmstat *s, const char *root)
{
	char path[256];

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/proc/sys/vm/stat_refresh", root);
	s->folded = !write_one(path);
	snprintf(path, sizeof(path), "%s/proc/vmstat", root);
	if (read_file(s, path, -1)) {
		snprintf(s->why, sizeof(s->why), "%s: %s", path, strerror(errno));
		s->nr = 0;
		return;
	}
	read_nodes(s, root);
}

void embm_vmstat_free(struct embm_vmstat *s)
{
	free(s->it);
	s->it = NULL;
	s->nr = 0;
	s->size = 0;
}

static const struct embm_vmstat_item *find(const struct embm_vmstat *s, int node,
					   const char *name)
{
	for (int i = 0; i < s->nr; i++)
		if (s->it[i].node == node && !strcmp(s->it[i].name, name))
			return &s->it[i];
	return NULL;
}

/**
 * embm_vmstat_delta() - how much one counter moved from @a to @b
 * @a:     the snapshot at the start
 * @b:     the one at the end
 * @node:  -1 for /proc/vmstat's counter, else the node's
 * @name:  the counter
 * @delta: set to @b's value less @a's (negative: a gauge went down)
 *
 * Return: false when either snapshot lacks the counter.
 */
bool embm_vmstat_delta(const struct embm_vmstat *a, const struct embm_vmstat *b,
		       int node, const char *name, long long *delta)
{
	const struct embm_vmstat_item *x = find(a, node, name), *y = find(b, node, name);

	if (!x || !y)
		return false;
	*delta = (long long)(y->v - x->v);
	return true;
}

/* Why the differences cannot be had, or NULL. */
static const char *unavailable(const struct embm_vmstat *a, const struct embm_vmstat *b)
{
	if (a->why[0])
		return a->why;
	if (b->why[0])
		return b->why;
	return NULL;
}

/* Print "NAME +N" items of @node that moved, wrapping at LINE_WIDTH; how many. */
static int print_moved(FILE *f, const struct embm_vmstat *a, const struct embm_vmstat *b,
		       int node, int col, int indent)
{
	int i, n = 0;
	long long d;

	for (i = 0; i < b->nr; i++) {
		const struct embm_vmstat_item *it = &b->it[i];
		char item[80];
		int len;

		if (it->node != node || !embm_vmstat_delta(a, b, node, it->name, &d) || !d)
			continue;
		len = snprintf(item, sizeof(item), "%s%s %+lld", n ? ", " : "", it->name, d);
		if (n && col + len > LINE_WIDTH) {
			fprintf(f, ",\n%*s", indent, "");
			col = indent;
			len = snprintf(item, sizeof(item), "%s %+lld", it->name, d);
		}
		fputs(item, f);
		col += len;
		n++;
	}
	return n;
}

/**
 * embm_vmstat_print() - the counters that moved from @a to @b, as text
 * @f: where to
 * @a: the snapshot at the start
 * @b: the one at the end (or now)
 *
 * One line for /proc/vmstat, then one a node that moved; or one line
 * saying none moved, or why they are unavailable.
 */
void embm_vmstat_print(FILE *f, const struct embm_vmstat *a, const struct embm_vmstat *b)
{
	static const char head[] = "tiering activity (system-wide): ";
	const char *why = unavailable(a, b);
	int i, node = -2, moved;

	if (why) {
		fprintf(f, "tiering activity: unavailable: %s\n", why);
		return;
	}
	fputs(head, f);
	moved = print_moved(f, a, b, -1, strlen(head), 4);
	fprintf(f, "%s\n", moved ? "" : "no counter moved");
	for (i = 0; i < b->nr; i++) {
		char lead[32];
		long long d;
		int len;

		if (b->it[i].node < 0 || b->it[i].node == node)
			continue;
		node = b->it[i].node;
		/* Only nodes with a counter that moved get a line. */
		for (int j = i; j < b->nr && b->it[j].node == node; j++) {
			if (!embm_vmstat_delta(a, b, node, b->it[j].name, &d) || !d)
				continue;
			len = snprintf(lead, sizeof(lead), "  node %d: ", node);
			fputs(lead, f);
			print_moved(f, a, b, node, len, 4);
			fputc('\n', f);
			break;
		}
	}
	if (a->nodes_why[0] || b->nodes_why[0])
		fprintf(f, "  per node: unavailable: %s\n",
			a->nodes_why[0] ? a->nodes_why : b->nodes_why);
	else if (!a->folded || !b->folded)
		fprintf(f, "  (node counts may lag by the CPUs' unfolded counts: %s)\n",
			"/proc/sys/vm/stat_refresh is root's");
}

/* The "NAME": DELTA members of @node, every counter both snapshots have. */
static void json_members(FILE *f, const struct embm_vmstat *a, const struct embm_vmstat *b,
			 int node, bool first)
{
	long long d;

	for (int i = 0; i < b->nr; i++) {
		if (b->it[i].node != node || !embm_vmstat_delta(a, b, node, b->it[i].name, &d))
			continue;
		fprintf(f, "%s\"%s\": %lld", first ? "" : ", ", b->it[i].name, d);
		first = false;
	}
}

/**
 * embm_vmstat_json() - the differences from @a to @b as JSON members
 * @f: where to
 * @a: the snapshot at the start
 * @b: the one at the end (or now)
 *
 * Writes ``, "vmstat": {...}``: every counter both snapshots have, zero or
 * not, so that a reader finds the same keys in every report of a kernel;
 * ``"counters"`` are /proc/vmstat's, ``"nodes"`` one object a node and a
 * line; ``"folded"`` is false when the node counters may lag (not root).
 * When they cannot be had, ``"vmstat": null`` and
 * ``"vmstat_unavailable"`` say why (``"nodes": null`` and
 * ``"nodes_unavailable"`` for the nodes alone).
 */
void embm_vmstat_json(FILE *f, const struct embm_vmstat *a, const struct embm_vmstat *b)
{
	const char *why = unavailable(a, b);
	int i, node = -2, nodes = 0;

	if (why) {
		fprintf(f, ",\n \"vmstat\": null, \"vmstat_unavailable\": ");
		embm_json_str(f, why);
		return;
	}
	fprintf(f, ",\n \"vmstat\": {\"scope\": \"system\", \"folded\": %s, \"counters\": {",
		a->folded && b->folded ? "true" : "false");
	json_members(f, a, b, -1, true);
	fprintf(f, "},\n  \"nodes\": ");
	if (a->nodes_why[0] || b->nodes_why[0]) {
		fprintf(f, "null, \"nodes_unavailable\": ");
		embm_json_str(f, a->nodes_why[0] ? a->nodes_why : b->nodes_why);
		fprintf(f, "}");
		return;
	}
	fprintf(f, "[");
	for (i = 0; i < b->nr; i++) {
		if (b->it[i].node < 0 || b->it[i].node == node)
			continue;
		node = b->it[i].node;
		/* A node onlined during the session has no start to count from. */
		if (!find(a, node, b->it[i].name))
			continue;
		fprintf(f, "%s\n   {\"node\": %d", nodes++ ? "," : "", node);
		json_members(f, a, b, node, false);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]}");
}
