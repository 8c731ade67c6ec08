# SPDX-License-Identifier: GPL-2.0
# embm: the demo. Installs, builds, boots the 3-node guest and runs a
# workload under embm-run. Sourced, not run.

cmd_demo() {
	cmd_deps
	log "building (the first build takes about 5 minutes; later ones are incremental)"
	cmd_build y || die "build failed"
	log "booting the guest: node 0 = CPUs 0-1 + 1 GiB, node 1 = CPUs 2-3 + 1 GiB, node 2 = 1 GiB, no CPUs"
	run_guest 0 "$@" -- sh -c '
		topology
		echo
		echo "== embm-bench: 32 MiB on node 0 (local DRAM), 48 MiB on node 1"
		echo "== (remote DRAM), 64 MiB on node 2 (no CPUs: CXL-like), 2 threads"
		echo "== embm-run --node 2: node 2 is the node under study"
		echo 0 >/sys/kernel/mm/embm/cpu_budget
		embm-run -n 2 -t 5 -- embm-bench -t 2 -b 32M@0 -b 48M@1 -b 64M@2
		echo
		echo "== the kernel log"
		dmesg | grep "embm:" | tail -n 8
	'
}
