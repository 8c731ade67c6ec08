/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of core.c, included at the end of it (as mm/damon/tests/
 * are) so that they reach its static functions.
 */
#ifndef __MM_EMBM_TESTS_CORE_KUNIT_H
#define __MM_EMBM_TESTS_CORE_KUNIT_H

#include <kunit/static_stub.h>
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

/* What the LSM stand-in was asked, and its answer. */
static struct perf_event *embm_lsm_asked;
static int embm_lsm_calls;

static int embm_lsm_refuses(struct perf_event *event)
{
	embm_lsm_asked = event;
	embm_lsm_calls++;
	return -EACCES;
}

/*
 * A reader's rights are checked with the LSMs (a stand-in that refuses and
 * records the event it is asked about) on the session's own read event:
 * a dummy event the starter (this test's thread) opened on itself, asked
 * while the session runs and after it ended, until a new session starts.
 */
static void embm_read_event_test(struct kunit *test)
{
	struct perf_event *ev;
	unsigned long gen;

	mutex_lock(&embm_lock);
	if (embm_session.state == EMBM_RUNNING) {
		mutex_unlock(&embm_lock);
		kunit_skip(test, "a session is running");
	}
	mutex_unlock(&embm_lock);

	KUNIT_ASSERT_EQ(test, 0, embm_session_start(EMBM_PID_SYSTEM, NUMA_NO_NODE, 0));
	ev = embm_session.read_event;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ev);
	KUNIT_EXPECT_EQ(test, (u32)PERF_TYPE_SOFTWARE, ev->attr.type);
	KUNIT_EXPECT_EQ(test, (u64)PERF_COUNT_SW_DUMMY, ev->attr.config);
	KUNIT_EXPECT_PTR_EQ(test, current, ev->hw.target);
	KUNIT_EXPECT_EQ(test, (int)PERF_EVENT_STATE_OFF, (int)ev->state);

	embm_lsm_calls = 0;
	kunit_activate_static_stub(test, embm_perm_may_read, embm_lsm_refuses);
	KUNIT_EXPECT_EQ(test, -EACCES, embm_session_may_read(&gen));
	KUNIT_EXPECT_PTR_EQ(test, ev, embm_lsm_asked);
	KUNIT_EXPECT_EQ(test, 0, embm_session_end(EMBM_PID_SYSTEM, 0));
	/* The results stay, and so does the question. */
	embm_lsm_asked = NULL;
	KUNIT_EXPECT_EQ(test, -EACCES, embm_session_may_read(&gen));
	KUNIT_EXPECT_PTR_EQ(test, ev, embm_lsm_asked);
	KUNIT_EXPECT_EQ(test, 2, embm_lsm_calls);
	kunit_deactivate_static_stub(test, embm_perm_may_read);
	KUNIT_EXPECT_EQ(test, 0, embm_session_may_read(&gen));
}

static struct kunit_case embm_core_test_cases[] = {
	KUNIT_CASE(embm_check_node_test),
	KUNIT_CASE(embm_session_test),
	KUNIT_CASE(embm_read_event_test),
	{}
};

static struct kunit_suite embm_core_test_suite = {
	.name = "embm_core",
	.test_cases = embm_core_test_cases,
};

kunit_test_suite(embm_core_test_suite);

#endif /* __MM_EMBM_TESTS_CORE_KUNIT_H */
