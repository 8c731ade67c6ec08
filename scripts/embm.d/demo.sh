# SPDX-License-Identifier: GPL-2.0
# embm: the demo. Installs, builds, boots the 3-node guest and shows what
# embm does so far. Sourced, not run.

cmd_demo() {
	cmd_deps
	log "building (the first build takes about 5 minutes; later ones are incremental)"
	cmd_build y || die "build failed"
	log "booting the guest: node 0 = CPUs 0-1 + 1 GiB, node 1 = CPUs 2-3 + 1 GiB, node 2 = 1 GiB, no CPUs"
	run_guest 0 "$@" -- sh -c '
		topology
		echo
		echo "== embm_start/embm_end: every documented answer =="
		embm_syscall_test 2>&1 | grep -E "^(ok|not ok|# (Totals|SKIP))"
		echo
		echo "== kernel log =="
		dmesg | grep "embm:"
	'
}
