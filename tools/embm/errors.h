/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: what an error of embm_start() means, and its likely cause
 */
#ifndef __EMBM_TOOLS_ERRORS_H
#define __EMBM_TOOLS_ERRORS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Room enough for any message of embm_explain_start(). */
#define EMBM_EXPLAIN_SIZE	1024

/*
 * What embm_start() was asked for.  The diagnosis reads @root/proc and
 * @root/sys: @root is "" for this machine, or a copy of their files that
 * a test made.
 */
struct embm_start_req {
	const char *root;
	pid_t pid;		/* the process named (--pid), or 0 */
	bool cpu_wide;		/* system-wide or a cgroup: CPU-wide events */
	const char *cgroup;	/* the cgroup directory, or NULL */
	int node;		/* the node under study, or EMBM_NODE_NONE */
	const char *knobs;	/* "source pebs, period 8": the knobs set for it, or NULL */
};

const char *embm_strerror_start(int err);
char *embm_knob_choice(char *line);
const char *embm_explain_start(int err, const struct embm_start_req *q, char *buf,
			       size_t size);

bool embm_explain_busy(const char *root, char *buf, size_t size);
bool embm_explain_node(const char *root, int node, char *buf, size_t size);
bool embm_explain_kthread(const char *root, pid_t pid, char *buf, size_t size);
bool embm_explain_knobs(const char *root, const char *knobs, char *buf, size_t size);
bool embm_explain_eacces(const struct embm_start_req *q, char *buf, size_t size);
bool embm_explain_cgroup(const char *root, const char *dir, char *buf, size_t size);
bool embm_explain_esrch(const char *root, pid_t pid, char *buf, size_t size);

#endif /* __EMBM_TOOLS_ERRORS_H */
