/* SPDX-License-Identifier: GPL-2.0 */
/*
 * embm permissions (perm.c): who may start, end and read a session, and
 * what its ring buffers cost its starter
 */
#ifndef __MM_EMBM_PERM_H
#define __MM_EMBM_PERM_H

#include <linux/cred.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/types.h>

/**
 * struct embm_owner - the process that started a session, as it was then
 * @pid:     its thread-group pid, referenced.
 * @euid:    its effective uid then.
 * @exec_id: its self_exec_id then: it may end and read the session
 *	     without further checks only while both still hold.
 */
struct embm_owner {
	struct pid *pid;
	kuid_t euid;
	u32 exec_id;
};

/**
 * struct embm_mlock - ring-buffer pages charged to a session's starter
 * @user:	  the starter's user; its perf_mlock takes the charge up to
 *		  perf_event_mlock_kb per online CPU, as perf_mmap() does.
 * @mm:		  the starter's mm (grabbed); its pinned_vm takes the rest.
 * @user_pages:	  pages charged to @user.
 * @pinned_pages: pages charged to @mm.
 * @lock_limit:	  RLIMIT_MEMLOCK of the starter at start, in pages.
 * @unlimited:	  the starter had CAP_IPC_LOCK, or perf_event_paranoid was
 *		  -1: pinned_vm may pass @lock_limit.
 *
 * Charged and uncharged by whoever opens or closes buffers: the starter,
 * then ksamplingd, never both at once (the sampler's rule).
 */
struct embm_mlock {
	struct user_struct *user;
	struct mm_struct *mm;
	unsigned long user_pages;
	unsigned long pinned_pages;
	unsigned long lock_limit;
	bool unlimited;
};

void embm_perm_attr(struct perf_event_attr *attr);
struct task_struct *embm_live_thread(struct pid *tgid);
void embm_owner_init(struct embm_owner *o);
void embm_owner_release(struct embm_owner *o);
bool embm_owner_is_current(const struct embm_owner *o);
int embm_perm_may_access(const struct embm_owner *o, struct pid *target);
struct perf_event *embm_perm_read_event(void);
int embm_perm_may_read(struct perf_event *event);
void embm_mlock_init(struct embm_mlock *ml);
int embm_mlock_charge(struct embm_mlock *ml, unsigned long pages);
void embm_mlock_uncharge(struct embm_mlock *ml, unsigned long pages);
void embm_mlock_release(struct embm_mlock *ml);

#endif /* __MM_EMBM_PERM_H */
