/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of tasks.c, included at the end of it.
 */
#ifndef __MM_EMBM_TESTS_TASKS_KUNIT_H
#define __MM_EMBM_TESTS_TASKS_KUNIT_H

#include <kunit/test.h>

/*
 * Entries up to the bound, each task's samples and weights on its node's
 * slot, a sample a cache served counted as a sample alone; past the
 * bound, for an id that comes back in another thread group, and for a
 * task perf could not name, the "other tasks" entry; most accesses first;
 * the memory counted; no stranger's name for an id of another group.
 */
static void embm_tasks_test(struct kunit *test)
{
	struct embm_tasks *tt = embm_tasks_alloc(2);
	int *nids = kunit_kcalloc(test, nr_node_ids, sizeof(*nids), GFP_KERNEL);
	const struct embm_task *sorted[4], *top[1];
	int nid = first_memory_node, slot;
	size_t bytes;

	KUNIT_ASSERT_NOT_NULL(test, tt);
	KUNIT_ASSERT_NOT_NULL(test, nids);
	KUNIT_ASSERT_EQ(test, num_node_state(N_MEMORY) + 1, embm_tasks_slots(tt, nids));
	slot = tt->slot[nid];
	KUNIT_EXPECT_EQ(test, nid, nids[slot]);
	bytes = embm_tasks_bytes(tt);

	embm_tasks_add(tt, 10, 11, nid, 100, true, false);
	embm_tasks_add(tt, 10, 11, nid, 0, false, false);
	embm_tasks_add(tt, 10, 12, nid, 300, false, true);
	/* Past the bound, an id reused by another thread group, one gone. */
	embm_tasks_add(tt, 20, 21, nid, 7, false, false);
	embm_tasks_add(tt, 30, 11, nid, 5, false, false);
	embm_tasks_add(tt, U32_MAX, U32_MAX, nid, 3, false, false);
	/* A node that had no memory at start: the last slot. */
	embm_tasks_add(tt, 10, 12, NUMA_NO_NODE, 1, false, false);

	KUNIT_EXPECT_EQ(test, 2U, embm_tasks_count(tt));
	KUNIT_EXPECT_EQ(test, 2U, embm_tasks_max(tt));
	KUNIT_EXPECT_EQ(test, bytes + 2 * kmalloc_size_roundup(embm_task_size(tt)),
			embm_tasks_bytes(tt));
	KUNIT_ASSERT_EQ(test, 2U, embm_tasks_sorted(tt, sorted, ARRAY_SIZE(sorted)));
	KUNIT_EXPECT_EQ(test, 12U, sorted[0]->tid);
	KUNIT_EXPECT_EQ(test, 2ULL, sorted[0]->samples);
	KUNIT_EXPECT_EQ(test, 301ULL, sorted[0]->accesses);
	KUNIT_EXPECT_EQ(test, 300ULL, sorted[0]->cxl);
	KUNIT_EXPECT_EQ(test, 1ULL, sorted[0]->node[tt->nr_slots - 1].accesses);
	KUNIT_EXPECT_EQ(test, 11U, sorted[1]->tid);
	KUNIT_EXPECT_EQ(test, 10U, sorted[1]->pid);
	KUNIT_EXPECT_EQ(test, 2ULL, sorted[1]->node[slot].samples);
	KUNIT_EXPECT_EQ(test, 100ULL, sorted[1]->node[slot].accesses);
	KUNIT_EXPECT_EQ(test, 100ULL, sorted[1]->user);
	/* Task 11 is a kernel thread of another group here, or none: no name. */
	KUNIT_EXPECT_STREQ(test, "?", sorted[1]->comm);
	KUNIT_EXPECT_EQ(test, 3ULL, embm_tasks_other(tt)->samples);
	KUNIT_EXPECT_EQ(test, 15ULL, embm_tasks_other(tt)->accesses);
	KUNIT_ASSERT_EQ(test, 1U, embm_tasks_top(tt, top, 1));
	KUNIT_EXPECT_PTR_EQ(test, sorted[0], top[0]);
	KUNIT_EXPECT_STREQ(test, "(other)", embm_tasks_other(tt)->comm);
	embm_tasks_free(tt);
}

/* This thread's entry gets its name, in one word. */
static void embm_tasks_name_test(struct kunit *test)
{
	struct embm_tasks *tt = embm_tasks_alloc(1);
	const struct embm_task *t;
	char want[TASK_COMM_LEN], *c;

	KUNIT_ASSERT_NOT_NULL(test, tt);
	embm_tasks_add(tt, task_tgid_nr(current), task_pid_nr(current), first_memory_node, 1,
		       false, false);
	KUNIT_ASSERT_EQ(test, 1U, embm_tasks_sorted(tt, &t, 1));
	get_task_comm(want, current);
	for (c = want; *c; c++)
		if (*c <= ' ')
			*c = '_';
	KUNIT_EXPECT_STREQ(test, want, t->comm);
	embm_tasks_free(tt);
}

static struct kunit_case embm_tasks_test_cases[] = {
	KUNIT_CASE(embm_tasks_test),
	KUNIT_CASE(embm_tasks_name_test),
	{}
};

static struct kunit_suite embm_tasks_test_suite = {
	.name = "embm_tasks",
	.test_cases = embm_tasks_test_cases,
};

kunit_test_suite(embm_tasks_test_suite);

#endif /* __MM_EMBM_TESTS_TASKS_KUNIT_H */
