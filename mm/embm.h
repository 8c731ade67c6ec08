/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm internal interface, shared by the files of mm/embm_*.c
 */
#ifndef __MM_EMBM_H
#define __MM_EMBM_H

#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/types.h>

/**
 * enum embm_state - where the one embm session is in its life
 * @EMBM_IDLE:		no session since boot.
 * @EMBM_RUNNING:	started and not yet ended.
 * @EMBM_EXITED:	the target exited; results kept until embm_end() or
 *			the next embm_start().
 * @EMBM_DONE:		ended by embm_end(); results kept until the next
 *			embm_start().
 */
enum embm_state {
	EMBM_IDLE,
	EMBM_RUNNING,
	EMBM_EXITED,
	EMBM_DONE,
};

/**
 * struct embm_session - the one sampling session
 * @state:	see enum embm_state.
 * @target:	thread-group pid of the target process; NULL for
 *		system-wide sessions.  A reference is held while set.
 * @target_nr:	the target's pid as the starter saw it, for reports;
 *		-1 for system-wide sessions.
 * @node:	the node under study, or NUMA_NO_NODE.
 * @start_ns:	ktime_get_ns() at start.
 * @stop_ns:	ktime_get_ns() at end, 0 while running.
 *
 * All fields are protected by embm_lock.
 */
struct embm_session {
	enum embm_state state;
	struct pid *target;
	pid_t target_nr;
	int node;
	u64 start_ns;
	u64 stop_ns;
};

extern struct mutex embm_lock;
extern struct embm_session embm_session;

int embm_check_node(int node);
int embm_session_start(pid_t pid, int node);
int embm_session_end(pid_t pid);

#endif /* __MM_EMBM_H */
