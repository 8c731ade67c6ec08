/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm hot pages (hot.c): the pages that took the most accesses, in
 * bounded memory
 */
#ifndef __MM_EMBM_HOT_H
#define __MM_EMBM_HOT_H

#include <linux/types.h>

/**
 * struct embm_hot_page - one entry of the hot-page table
 * @pfn:	the page.
 * @count:	its count, the periods of its samples (not times the pages
 *		of a huge mapping: the sample's own page), an overestimate by
 *		at most @error.
 * @error:	the count of the entry it replaced.
 * @samples:	samples of the page since it took its entry: exact, and
 *		at least 2 only for a page sampled more than once.
 */
struct embm_hot_page {
	u64 pfn;
	u64 count;
	u64 error;
	u64 samples;
};

struct embm_hot;

struct embm_hot *embm_hot_alloc(unsigned int capacity);
size_t embm_hot_bytes(const struct embm_hot *hot);
void embm_hot_free(struct embm_hot *hot);
void embm_hot_add(struct embm_hot *hot, u64 pfn, u64 weight);
unsigned int embm_hot_top(const struct embm_hot *hot, struct embm_hot_page *out,
			  unsigned int max);

#endif /* __MM_EMBM_HOT_H */
