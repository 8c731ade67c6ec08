/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of embm_core.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_CORE_KUNIT_H
#define __MM_EMBM_CORE_KUNIT_H

#include <kunit/test.h>

static void embm_check_node_test(struct kunit *test)
{
	int nid;

	KUNIT_EXPECT_EQ(test, 0, embm_check_node(NUMA_NO_NODE));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(-2));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(INT_MIN));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(MAX_NUMNODES));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(INT_MAX));
	for_each_node_state(nid, N_MEMORY)
		KUNIT_EXPECT_EQ(test, 0, embm_check_node(nid));
	for_each_node(nid) {
		if (!node_state(nid, N_MEMORY))
			KUNIT_EXPECT_EQ(test, -EINVAL, embm_check_node(nid));
	}
}

/* The KUnit runner is a kernel thread: it can only run system-wide sessions. */
static void embm_session_test(struct kunit *test)
{
	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING) {
		mutex_unlock(&embm_lock);
		kunit_skip(test, "a session is running");
	}
	mutex_unlock(&embm_lock);

	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(-2, NUMA_NO_NODE, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SYSTEM, MAX_NUMNODES, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SELF, NUMA_NO_NODE, 0));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_end(-2, 0));
	/* Unknown flags, and a cgroup fd that is not one. */
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SYSTEM, NUMA_NO_NODE, 2));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_end(EMBM_PID_SYSTEM, ~0U));
	KUNIT_EXPECT_EQ(test, -EBADF,
			embm_session_start(-1, NUMA_NO_NODE, EMBM_FLAG_CGROUP));

	KUNIT_ASSERT_EQ(test, 0, embm_session_start(EMBM_PID_SYSTEM, first_memory_node, 0));
	KUNIT_EXPECT_EQ(test, EMBM_RUNNING, embm_session.state);
	KUNIT_EXPECT_EQ(test, first_memory_node, embm_session.node);
	KUNIT_EXPECT_PTR_EQ(test, NULL, embm_session.target);
	KUNIT_EXPECT_EQ(test, -EBUSY, embm_session_start(EMBM_PID_SYSTEM, NUMA_NO_NODE, 0));
	KUNIT_EXPECT_EQ(test, -ESRCH, embm_session_end(EMBM_PID_SELF, 0));
	KUNIT_EXPECT_EQ(test, -ESRCH, embm_session_end(1, 0));
	KUNIT_EXPECT_EQ(test, 0, embm_session_end(EMBM_PID_SYSTEM, 0));
	KUNIT_EXPECT_EQ(test, EMBM_DONE, embm_session.state);
	KUNIT_EXPECT_GE(test, embm_session.stop_ns, embm_session.start_ns);
	KUNIT_EXPECT_EQ(test, -ENOENT, embm_session_end(EMBM_PID_SYSTEM, 0));
}

static struct kunit_case embm_core_test_cases[] = {
	KUNIT_CASE(embm_check_node_test),
	KUNIT_CASE(embm_session_test),
	{}
};

static struct kunit_suite embm_core_test_suite = {
	.name = "embm_core",
	.test_cases = embm_core_test_cases,
};

kunit_test_suite(embm_core_test_suite);

#endif /* __MM_EMBM_CORE_KUNIT_H */
