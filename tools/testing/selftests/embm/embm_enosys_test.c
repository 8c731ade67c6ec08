// SPDX-License-Identifier: GPL-2.0
/*
 * On a kernel built without CONFIG_EMBM both embm system calls must fail
 * with ENOSYS, whatever their arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/embm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kselftest_harness.h"

TEST(embm_start_enosys)
{
	errno = 0;
	ASSERT_EQ(-1, syscall(__NR_embm_start, EMBM_PID_SELF, EMBM_NODE_NONE, 0));
	ASSERT_EQ(ENOSYS, errno);
}

TEST(embm_end_enosys)
{
	errno = 0;
	ASSERT_EQ(-1, syscall(__NR_embm_end, EMBM_PID_SYSTEM, 0));
	ASSERT_EQ(ENOSYS, errno);
}

TEST_HARNESS_MAIN
