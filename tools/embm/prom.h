/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm tools: /proc/embm in Prometheus' text format, for node_exporter's
 * textfile collector
 */
#ifndef __EMBM_TOOLS_PROM_H
#define __EMBM_TOOLS_PROM_H

#include <stdio.h>

#include "report.h"

int embm_prom_check(const char *path, char *why, size_t size);
void embm_prom_print(FILE *f, const struct embm_report *r);
int embm_prom_write(const char *path, const struct embm_report *r, char *why, size_t size);

#endif /* __EMBM_TOOLS_PROM_H */
