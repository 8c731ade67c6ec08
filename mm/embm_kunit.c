// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of embm
 */

#define pr_fmt(fmt) "embm-kunit: " fmt

#include <kunit/test.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <uapi/linux/embm.h>

#include "embm.h"

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

	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(-2, NUMA_NO_NODE));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SYSTEM, MAX_NUMNODES));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_start(EMBM_PID_SELF, NUMA_NO_NODE));
	KUNIT_EXPECT_EQ(test, -EINVAL, embm_session_end(-2));

	KUNIT_ASSERT_EQ(test, 0, embm_session_start(EMBM_PID_SYSTEM, first_memory_node));
	KUNIT_EXPECT_EQ(test, EMBM_RUNNING, embm_session.state);
	KUNIT_EXPECT_EQ(test, first_memory_node, embm_session.node);
	KUNIT_EXPECT_PTR_EQ(test, NULL, embm_session.target);
	KUNIT_EXPECT_EQ(test, -EBUSY, embm_session_start(EMBM_PID_SYSTEM, NUMA_NO_NODE));
	KUNIT_EXPECT_EQ(test, -ESRCH, embm_session_end(EMBM_PID_SELF));
	KUNIT_EXPECT_EQ(test, -ESRCH, embm_session_end(1));
	KUNIT_EXPECT_EQ(test, 0, embm_session_end(EMBM_PID_SYSTEM));
	KUNIT_EXPECT_EQ(test, EMBM_DONE, embm_session.state);
	KUNIT_EXPECT_GE(test, embm_session.stop_ns, embm_session.start_ns);
	KUNIT_EXPECT_EQ(test, -ENOENT, embm_session_end(EMBM_PID_SYSTEM));
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
