// SPDX-License-Identifier: GPL-2.0
/*
 * embm: hot pages in bounded memory (space-saving)
 *
 * Metwally et al.'s space-saving algorithm, weighted: @capacity counters;
 * a page not in the table takes over the smallest counter and inherits its
 * count as its error.  Each sample adds its weight, the accesses it stands
 * for.  Any page with more than total/capacity of the weight is in the
 * table, and each count overestimates by at most its error.  A hash table
 * finds a page's counter, and the counters form a min-heap whose root is
 * the victim: keyed lazily, by each counter's count when it last moved in
 * the heap (a key never above its count, as counts only grow).  A sample
 * on a page in the table adds to its count alone, in O(1); a new page
 * takes the root once the root's key is its count, the least count of
 * all (a root whose count grew since is moved down first, with its count
 * as its key).  So a counter moves in the heap about once for each time
 * it comes to the root, not at every sample: O(1) for a sample on a kept
 * page, O(log capacity) amortised for a new one (one that finds every
 * key stale re-keys them all: hot_pages at most 65,536); no allocation
 * after setup.
 * Entries stay in their slots; the heap holds their indices.
 *
 * Not locked: one writer (ksamplingd), readers hold embm_stats.lock.
 */

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "hot.h"

#define EMBM_HOT_NONE	U32_MAX

/*
 * A counter: its page, its key in the heap (its count when it last moved
 * there), where it sits in the heap, the next in its chain.
 */
struct embm_hot_entry {
	struct embm_hot_page page;
	u64 key;
	u32 pos;
	u32 next;
};

struct embm_hot {
	unsigned int capacity;
	unsigned int used;
	unsigned int hash_bits;
	struct embm_hot_entry *entry;	/* stable slots */
	u32 *heap;			/* entry indices, min-heap on key */
	u32 *bucket;			/* first entry of each hash chain */
};

/**
 * embm_hot_alloc() - a table that keeps @capacity hot pages
 * @capacity: at least 1
 *
 * Context: process; may sleep.
 * Return: the table or NULL.
 */
struct embm_hot *embm_hot_alloc(unsigned int capacity)
{
	struct embm_hot *hot;
	unsigned int i;

	if (!capacity)
		return NULL;
	hot = kzalloc(sizeof(*hot), GFP_KERNEL_ACCOUNT);
	if (!hot)
		return NULL;
	hot->capacity = capacity;
	hot->hash_bits = ilog2(roundup_pow_of_two(capacity)) + 1;
	/* Not zeroed: only the first @used entries and heap slots are read. */
	hot->entry = kvmalloc_array(capacity, sizeof(*hot->entry), GFP_KERNEL_ACCOUNT);
	hot->heap = kvmalloc_array(capacity, sizeof(*hot->heap), GFP_KERNEL_ACCOUNT);
	hot->bucket = kvmalloc_array(1U << hot->hash_bits, sizeof(*hot->bucket),
				     GFP_KERNEL_ACCOUNT);
	if (!hot->entry || !hot->heap || !hot->bucket) {
		embm_hot_free(hot);
		return NULL;
	}
	for (i = 0; i < (1U << hot->hash_bits); i++)
		hot->bucket[i] = EMBM_HOT_NONE;
	return hot;
}

/**
 * embm_hot_bytes() - the memory a table from embm_hot_alloc() takes
 * @hot: the table
 *
 * Context: any.
 * Return: its size in bytes, its arrays included.
 */
size_t embm_hot_bytes(const struct embm_hot *hot)
{
	return sizeof(*hot) + hot->capacity * (sizeof(*hot->entry) + sizeof(*hot->heap)) +
		(sizeof(*hot->bucket) << hot->hash_bits);
}

/**
 * embm_hot_free() - free a table from embm_hot_alloc()
 * @hot: the table, or NULL
 */
void embm_hot_free(struct embm_hot *hot)
{
	if (!hot)
		return;
	kvfree(hot->entry);
	kvfree(hot->heap);
	kvfree(hot->bucket);
	kfree(hot);
}

/* The heap's key at @pos. */
static u64 hot_key(const struct embm_hot *hot, unsigned int pos)
{
	return hot->entry[hot->heap[pos]].key;
}

static void hot_swap(struct embm_hot *hot, unsigned int a, unsigned int b)
{
	swap(hot->heap[a], hot->heap[b]);
	hot->entry[hot->heap[a]].pos = a;
	hot->entry[hot->heap[b]].pos = b;
}

static void hot_sift_down(struct embm_hot *hot, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, m = i;

		if (l < hot->used && hot_key(hot, l) < hot_key(hot, m))
			m = l;
		if (r < hot->used && hot_key(hot, r) < hot_key(hot, m))
			m = r;
		if (m == i)
			return;
		hot_swap(hot, i, m);
		i = m;
	}
}

/* Unlink entry @e from its hash chain. */
static void hot_unlink(struct embm_hot *hot, u32 e)
{
	u32 *link = &hot->bucket[hash_64(hot->entry[e].page.pfn, hot->hash_bits)];

	while (*link != e)
		link = &hot->entry[*link].next;
	*link = hot->entry[e].next;
}

/**
 * embm_hot_add() - count one sample of @weight accesses on page @pfn
 * @hot:    the table
 * @pfn:    the page
 * @weight: the accesses it stands for (its period), at least 1
 *
 * Context: any but NMI; one caller at a time.
 */
void embm_hot_add(struct embm_hot *hot, u64 pfn, u64 weight)
{
	u32 *chain = &hot->bucket[hash_64(pfn, hot->hash_bits)];
	struct embm_hot_entry *ent;
	u32 e;

	for (e = *chain; e != EMBM_HOT_NONE; e = hot->entry[e].next) {
		if (hot->entry[e].page.pfn == pfn) {
			/* Its key stays: it moves when it comes to the root. */
			hot->entry[e].page.count += weight;
			hot->entry[e].page.samples++;
			return;
		}
	}

	if (hot->used < hot->capacity) {
		/* Counts only grow and weight >= 1 > 0: a new entry at the end
		 * may be smaller than its parent; move it up.
		 */
		unsigned int i = hot->used++;

		e = i;
		hot->entry[e] = (struct embm_hot_entry){
			.page = { .pfn = pfn, .count = weight, .samples = 1 }, .key = weight,
			.pos = i, .next = *chain,
		};
		*chain = e;
		hot->heap[i] = e;
		while (i && hot_key(hot, (i - 1) / 2) > hot_key(hot, i)) {
			hot_swap(hot, i, (i - 1) / 2);
			i = (i - 1) / 2;
		}
		return;
	}

	/*
	 * Take over the smallest counter: the root, once its key is its
	 * count (every key is at most its count, and the root's the least).
	 */
	for (;;) {
		e = hot->heap[0];
		ent = &hot->entry[e];
		if (ent->key == ent->page.count)
			break;
		ent->key = ent->page.count;
		hot_sift_down(hot, 0);
	}
	hot_unlink(hot, e);
	ent->page.error = ent->page.count;
	ent->page.count += weight;
	ent->key = ent->page.count;
	ent->page.samples = 1;
	ent->page.pfn = pfn;
	ent->next = *chain;
	*chain = e;
	hot_sift_down(hot, 0);
}

static int hot_cmp_desc(const void *a, const void *b)
{
	const struct embm_hot_page *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->pfn < y->pfn ? -1 : x->pfn > y->pfn;
}

/**
 * embm_hot_top() - the hottest pages, hottest first
 * @hot: the table
 * @out: room for @max entries
 * @max: how many to return at most
 *
 * Context: process (sorts a copy).
 * Return: how many entries were written.
 */
unsigned int embm_hot_top(const struct embm_hot *hot, struct embm_hot_page *out,
			  unsigned int max)
{
	struct embm_hot_page *all;
	unsigned int n = hot->used, i;

	all = kvmalloc_array(max_t(unsigned int, n, 1), sizeof(*all), GFP_KERNEL);
	if (!all)
		return 0;
	for (i = 0; i < n; i++)
		all[i] = hot->entry[i].page;
	sort(all, n, sizeof(*all), hot_cmp_desc, NULL);
	n = min(n, max);
	memcpy(out, all, n * sizeof(*out));
	kvfree(all);
	return n;
}

#ifdef CONFIG_EMBM_KUNIT_TEST
#include "tests/hot-kunit.h"
#endif
