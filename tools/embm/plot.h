/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: a picture of a session (gnuplot): each node's share over
 * time and the latency histogram of each tier
 */
#ifndef __EMBM_TOOLS_PLOT_H
#define __EMBM_TOOLS_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "ticks.h"

#define EMBM_PLOT_LAT_BUCKETS	64	/* most lt columns of /proc/embm/latency */

/* One node's figures at one tick. */
struct embm_plot_point {
	int node;
	char tier[EMBM_PROC_WORD];
	double share, total;	/* percent: the tick's, since the start; < 0 none */
};

/**
 * struct embm_plot - the picture being gathered
 * @png:     the PNG's path
 * @tmp:     the temporary PNG beside it, made by embm_plot_check(), or ""
 * @dat:     the data file's path: @png with .dat for .png
 * @nr:      ticks gathered
 * @t_ms:    each tick's session time
 * @first:   each tick's first point in @pts, and @nr + 1 for the end
 * @pts:     every tick's nodes, @nr_pts of them
 */
struct embm_plot {
	char png[4096], tmp[4096 + 16], dat[4096 + 8];
	int nr, size, nr_pts, pts_size;
	unsigned long long *t_ms;
	int *first;
	struct embm_plot_point *pts;
};

/* /proc/embm/latency: log2 buckets of estimated accesses, per node. */
struct embm_lat_hist {
	int nr_buckets;				/* columns lt2, lt4, ... */
	unsigned long long upper[EMBM_PLOT_LAT_BUCKETS];	/* each bucket's bound in cycles */
	int nr_nodes;
	int node[EMBM_TOOLS_MAX_NODES];
	unsigned long long (*w)[EMBM_PLOT_LAT_BUCKETS];	/* nr_nodes rows */
};

int embm_plot_check(struct embm_plot *p, const char *png, char *why, size_t size);
void embm_plot_abort(struct embm_plot *p);
int embm_plot_add(struct embm_plot *p, const struct embm_tick *k, const struct embm_report *r);
int embm_plot_write(struct embm_plot *p, const struct embm_report *r, const char *proc_dir,
		    const char *what, char *why, size_t size);
int embm_lat_hist_read(const char *dir, struct embm_lat_hist *h);
void embm_lat_hist_free(struct embm_lat_hist *h);

#endif /* __EMBM_TOOLS_PLOT_H */
