// SPDX-License-Identifier: GPL-2.0
/*
 * embm tools: where a process's pages are, per node
 *
 * embm says where the accesses went; whether that is because of where
 * the pages are needs the placement beside it: a node with 10% of the
 * pages and 60% of the traffic holds the hot ones.  /proc/PID/numa_maps
 * has a line per mapping with its pages on each node ("N1=512"), in
 * pages of the mapping's kernelpagesize_kB (hugetlb's are 2 MiB; a
 * transparent huge page counts its 4 KiB pages), and marks mappings of
 * a file with "file=".  Summed, they are the process's resident pages
 * per node, anonymous and file apart.  A mapping of a file that holds
 * written (copied) pages says how many ("anon=N") but not on which node:
 * such a mapping counts as anonymous when all its pages are, else as
 * file.
 *
 * This is the page cache a process maps, not the page cache it reads
 * with read(): that belongs to no process, and only the nodes' totals
 * (nr_file_pages, in the tiering counters) show it.  Reading numa_maps
 * walks the process's page tables under its mmap lock: about a
 * millisecond per GiB mapped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "residency.h"

#define SEP	"\n "	/* numa_maps' separators */

static struct embm_res_node *res_node(struct embm_residency *res, int node)
{
	int i;

	for (i = 0; i < res->nr; i++)
		if (res->n[i].node == node)
			return &res->n[i];
	if (res->nr == EMBM_RES_MAX_NODES)
		return NULL;
	/* Kept in node order: numa_maps names nodes in order, lines differ. */
	for (i = res->nr; i > 0 && res->n[i - 1].node > node; i--)
		res->n[i] = res->n[i - 1];
	res->nr++;
	memset(&res->n[i], 0, sizeof(res->n[i]));
	res->n[i].node = node;
	return &res->n[i];
}

/* One line of numa_maps into @res. */
static void add_line(struct embm_residency *res, char *line)
{
	unsigned long long count[64], anon = 0, total = 0, kb = 4, v;
	int node[64], nr = 0, nd, len;
	bool file = false;
	char *save, *tok;

	for (tok = strtok_r(line, SEP, &save); tok; tok = strtok_r(NULL, SEP, &save)) {
		if (!strncmp(tok, "file=", 5)) {
			file = true;
		} else if (sscanf(tok, "anon=%llu", &v) == 1) {
			anon = v;
		} else if (sscanf(tok, "kernelpagesize_kB=%llu", &v) == 1) {
			kb = v;
		} else if (nr < 64 && sscanf(tok, "N%d=%llu%n", &nd, &v, &len) == 2 && !tok[len]) {
			node[nr] = nd;
			count[nr++] = v;
			total += v;
		}
	}
	for (int i = 0; i < nr; i++) {
		struct embm_res_node *n = res_node(res, node[i]);
		unsigned long long pages = count[i] * (kb / 4 ? kb / 4 : 1);

		if (!n)
			continue;
		if (file && anon < total)
			n->file += pages;
		else
			n->anon += pages;
	}
}

/* Add /proc/PID/numa_maps (under @root, "" but in tests) to @res; -1 with errno. */
static int add_pid(struct embm_residency *res, pid_t pid, const char *root)
{
	char path[512], *line = NULL;
	size_t size = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%d/numa_maps", root, pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (getline(&line, &size, f) > 0)
		add_line(res, line);
	free(line);
	fclose(f);
	res->procs++;
	return 0;
}

/**
 * embm_residency_read_pid() - read a process's resident pages per node
 * @res:  replaced when the read succeeds, else left as it was with @why set
 * @pid:  the process
 * @root: "" (a prefix of /proc, for tests)
 *
 * A process that exited reads nothing: its last reading stays, which the
 * caller takes as late as it can.
 *
 * Return: 0, or -1 with errno set.
 */
int embm_residency_read_pid(struct embm_residency *res, pid_t pid, const char *root)
{
	struct embm_residency *tmp = calloc(1, sizeof(*tmp));
	int err;

	if (!tmp)
		return -1;
	if (add_pid(tmp, pid, root)) {
		err = errno;
		snprintf(res->why, sizeof(res->why), "cannot read %s/proc/%d/numa_maps: %s", root,
			 pid, strerror(err));
		free(tmp);
		errno = err;
		return -1;
	}
	tmp->valid = true;
	snprintf(tmp->what, sizeof(tmp->what), "process %d", pid);
	*res = *tmp;
	free(tmp);
	return 0;
}

/**
 * embm_residency_read_cgroup() - the resident pages of a cgroup's
 * processes, summed
 * @res:  replaced when the cgroup's processes could be listed
 * @dir:  the cgroup's directory
 * @root: "" (a prefix of /proc, for tests)
 *
 * A process that exits between cgroup.procs and its numa_maps is skipped.
 * Pages that several of them map (shared libraries) count once for each.
 *
 * Return: 0, or -1 with errno set.
 */
int embm_residency_read_cgroup(struct embm_residency *res, const char *dir, const char *root)
{
	struct embm_residency *tmp;
	char path[4096];
	FILE *f;
	int pid, err;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "r");
	if (!f) {
		err = errno;
		snprintf(res->why, sizeof(res->why), "cannot read %.200s: %s", path, strerror(err));
		errno = err;
		return -1;
	}
	tmp = calloc(1, sizeof(*tmp));
	if (!tmp) {
		fclose(f);
		return -1;
	}
	while (fscanf(f, "%d", &pid) == 1)
		add_pid(tmp, pid, root);
	fclose(f);
	if (!tmp->procs) {
		snprintf(res->why, sizeof(res->why), "no process in cgroup %s", dir);
		free(tmp);
		errno = ESRCH;
		return -1;
	}
	tmp->valid = true;
	snprintf(tmp->what, sizeof(tmp->what), "cgroup %s, %d processes", dir, tmp->procs);
	*res = *tmp;
	free(tmp);
	return 0;
}

/* @r's node @node, or NULL. */
static const struct embm_node *report_node(const struct embm_report *r, int node)
{
	for (int i = 0; i < r->nr_nodes; i++)
		if (r->nodes[i].node == node)
			return &r->nodes[i];
	return NULL;
}

static unsigned long long res_total(const struct embm_residency *res)
{
	unsigned long long sum = 0;

	for (int i = 0; i < res->nr; i++)
		sum += res->n[i].anon + res->n[i].file;
	return sum;
}

/**
 * embm_residency_print() - the resident pages per node beside each node's
 * share of the sampled accesses
 * @f:   where to
 * @res: the last reading
 * @r:   the final report, for the shares
 *
 * A row for each node of the report and each node with pages, in the
 * report's order (the node under study first), then nodes only the
 * process has pages on.
 */
void embm_residency_print(FILE *f, const struct embm_residency *res,
			  const struct embm_report *r)
{
	unsigned long long all = res_total(res);
	int i;

	if (!res->valid) {
		fprintf(f, "\nresident pages: unavailable: %s\n",
			res->why[0] ? res->why : "not read");
		return;
	}
	fprintf(f, "\nresident pages per node (%s, numa_maps at %llu.%03llu s; 4 KiB pages):\n",
		res->what, res->elapsed_ms / 1000, res->elapsed_ms % 1000);
	fprintf(f, "  node tier     resident  of all       anon       file   share of %s\n",
		r->unit[0] ? r->unit : "accesses");
	for (i = 0; i < r->nr_nodes + res->nr; i++) {
		const struct embm_node *n = i < r->nr_nodes ? &r->nodes[i] : NULL;
		const struct embm_res_node *p = NULL;
		int node = n ? n->node : res->n[i - r->nr_nodes].node;
		unsigned long long pages;

		for (int j = 0; j < res->nr; j++)
			if (res->n[j].node == node)
				p = &res->n[j];
		/* Past the report's rows: only the nodes it lacks. */
		if (!n && report_node(r, node))
			continue;
		pages = p ? p->anon + p->file : 0;
		fprintf(f, "%c %4d %-4s %12llu %6.1f%% %10llu %10llu", n && n->study ? '*' : ' ',
			node, n ? n->tier : "-", pages, all ? 100.0 * pages / all : 0.0,
			p ? p->anon : 0, p ? p->file : 0);
		if (n && r->accesses)
			fprintf(f, "   %6.2f%%\n", n->share);
		else
			fprintf(f, "   %7s\n", "-");
	}
}

/**
 * embm_residency_json() - the "residency" member, with its leading comma
 * @f:   where to
 * @res: the last reading
 *
 * null with "residency_unavailable" saying why when it could not be read.
 */
void embm_residency_json(FILE *f, const struct embm_residency *res)
{
	if (!res->valid) {
		fprintf(f, ",\n \"residency\": null, \"residency_unavailable\": ");
		embm_json_str(f, res->why[0] ? res->why : "not read");
		return;
	}
	fprintf(f, ",\n \"residency\": {\"what\": ");
	embm_json_str(f, res->what);
	fprintf(f, ", \"processes\": %d, \"elapsed_ms\": %llu, \"page_size\": 4096, \"nodes\": [",
		res->procs, res->elapsed_ms);
	for (int i = 0; i < res->nr; i++)
		fprintf(f, "%s{\"node\": %d, \"resident_pages\": %llu, %s%llu, %s%llu}",
			i ? ", " : "", res->n[i].node, res->n[i].anon + res->n[i].file,
			"\"anon_pages\": ", res->n[i].anon, "\"file_pages\": ", res->n[i].file);
	fprintf(f, "]}");
}
