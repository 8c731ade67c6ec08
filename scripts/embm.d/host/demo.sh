# SPDX-License-Identifier: GPL-2.0
# embm: the demo. Installs, builds, boots the guest with a CXL memory
# expander and runs a workload under embm-run. Sourced, not run.

cmd_demo() {
	cmd_deps
	log "building (the first build takes about 10 minutes; later ones are incremental)"
	cmd_build y || die "build failed"
	log "booting the guest: node 0 = CPUs 0-1 + 1 GiB, node 1 = CPUs 2-3 + 1 GiB,"
	log "node 2 = 1 GiB without CPUs, node 3 = an emulated CXL type-3 device (1 GiB)"
	run_guest 0 --cxl "$@" -- sh -c '
		echo "== cxl-online: a region on the CXL device, a devdax namespace, onlined by kmem"
		cxl-online >/tmp/cxl.log 2>&1 || { cat /tmp/cxl.log; exit 1; }
		cxl=$(sed -n "s/^cxl-node //p" /tmp/cxl.log)
		grep -A5 "CXL Window" /proc/iomem
		echo
		topology
		echo
		echo "== embm-bench: 32 MiB on node 0 (local DRAM), 48 MiB on node 1 (remote DRAM),"
		echo "== 16 MiB on node 2 (no CPUs), 16 MiB on node $cxl (CXL; QEMU emulates its"
		echo "== accesses, about 0.6 ms a first touch), 2 threads"
		# The summary goes to a kernel log only root may read (as Debian has it).
		echo 1 >/proc/sys/kernel/dmesg_restrict
		echo "== embm-run --node $cxl: the CXL node is the node under study; every knob"
		echo "== at its default (the CPU budget may move the period: shares hold)"
		embm-run -n "$cxl" -t 5 -- embm-bench -t 2 -b 32M@0 -b 48M@1 -b 16M@2 -b "16M@$cxl"
		echo
		echo "== the kernel log"
		dmesg | grep "embm:" | tail -n 8
	'
}
