/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * embm: per-node and per-tier attribution of memory accesses
 *
 * Constants shared by the kernel and the tools that call
 * embm_start(2) and embm_end(2).
 */
#ifndef _UAPI_LINUX_EMBM_H
#define _UAPI_LINUX_EMBM_H

/*
 * x86-64 system call numbers, as assigned in
 * arch/x86/entry/syscalls/syscall_64.tbl.  <asm/unistd.h> from the same
 * kernel defines them too; these cover programs built against older
 * installed headers.  They are not stable: they move when embm is rebased
 * onto a kernel that uses them (Linux 6.13 takes 463 onwards).
 */
#if defined(__x86_64__) && !defined(__ILP32__)
#ifndef __NR_embm_start
#define __NR_embm_start		463
#endif
#ifndef __NR_embm_end
#define __NR_embm_end		464
#endif
#endif

/*
 * long embm_start(pid_t pid, int node, unsigned int flags);
 * long embm_end(pid_t pid, unsigned int flags);
 *
 * pid:   EMBM_PID_SYSTEM, EMBM_PID_SELF, or a process: a thread id names
 *	  the process it belongs to, for both calls.  With EMBM_FLAG_CGROUP,
 *	  an open file descriptor of a cgroup v2 directory instead.
 * node:  the node under study, reported first, or EMBM_NODE_NONE.
 * flags: 0 or EMBM_FLAG_CGROUP; other bits: EINVAL.
 *
 * Every errno is listed in Documentation/admin-guide/mm/embm.rst; in
 * short: EINVAL (bad argument or flag), EACCES (perf's rules refuse it),
 * ESRCH (no such process, or not the session's), EBADF (not an open file
 * descriptor), ENOENT (no session to end, or a cgroup being removed),
 * EBUSY (a session runs), EOPNOTSUPP (no source works here, or no
 * cgroup support), E2BIG (more events than max_events), EPERM (ring
 * memory over the mlock limit), EAGAIN, EINTR, ENOMEM.
 */

/* Values of the pid argument of embm_start() and embm_end(). */
#define EMBM_PID_SELF		0	/* the calling process */
#define EMBM_PID_SYSTEM		(-1)	/* every process on every CPU */

/* Flags of embm_start() and embm_end(). */
#define EMBM_FLAG_CGROUP	(1U << 0)	/* pid is a cgroup directory's fd */
#define EMBM_FLAGS_ALL		EMBM_FLAG_CGROUP

/* Value of the node argument of embm_start(): no node under study. */
#define EMBM_NODE_NONE		(-1)

/* Version of the text layout of the files in /proc/embm/. */
#define EMBM_PROC_VERSION	5

#endif /* _UAPI_LINUX_EMBM_H */
