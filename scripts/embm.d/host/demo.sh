# SPDX-License-Identifier: GPL-2.0
# embm: the demo. Installs, builds, boots the guest with a CXL memory
# expander and runs a workload under embm-run. Sourced, not run.
#
# The first workload runs with embm-run --plot: the guest prints the PNG
# on its console, base64-encoded on lines "EMBM-B64 ..." (run_guest keeps
# them off the screen; the guest has no other way back to the host), and
# the demo decodes it from the console log into $EMBM_BUILD/demo.png.

# demo_picture LOG OUT: the PNG the guest printed into LOG, written to OUT.
demo_picture() {
	local logf=$1 out=$2
	grep -q '^EMBM-B64 ' "$logf" || { log "the guest printed no picture"; return 1; }
	sed -n 's/^EMBM-B64 //p' "$logf" | base64 -d >"$out.tmp" 2>/dev/null &&
		[ "$(head -c 8 "$out.tmp" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || {
		rm -f "$out.tmp"
		log "the picture did not come through the console whole"
		return 1
	}
	mv "$out.tmp" "$out" && log "the picture: $out"
}

cmd_demo() {
	local a adds=() logf rc
	cmd_deps
	log "building (the first build takes about 10 minutes; later ones are incremental)"
	cmd_build y || die "build failed"
	log "booting the guest: node 0 = CPUs 0-1 + 1 GiB, node 1 = CPUs 2-3 + 1 GiB,"
	log "node 2 = 1 GiB without CPUs, node 3 = an emulated CXL type-3 device (1 GiB)"
	for a in $(t_gnuplot_adds); do adds+=(--add "$a"); done
	# The console log, for the picture: the user's --log if given.
	logf=$EMBM_BUILD/demo-console.log
	for ((a = 1; a < $#; a++)); do
		[ "${!a}" = --log ] && { a=$((a + 1)); logf=${!a}; }
	done
	run_guest 0 --cxl "${adds[@]}" --log "$logf" "$@" -- sh -c '
		echo "== cxl-online: a region on the CXL device, a devdax namespace, onlined by kmem"
		cxl-online >/tmp/cxl.log 2>&1 || { cat /tmp/cxl.log; exit 1; }
		cxl=$(sed -n "s/^cxl-node //p" /tmp/cxl.log)
		grep -A5 "CXL Window" /proc/iomem
		echo
		topology
		echo
		# The summary goes to a kernel log only root may read (as Debian has it).
		echo 1 >/proc/sys/kernel/dmesg_restrict
		if embm-oracle status >/dev/null 2>&1; then
			echo "== QEMU runs embm'"'"'s TCG plugin: the embm_emu PMU samples the guest'"'"'s loads"
			echo "== and stores (embm'"'"'s source \"emu\"; latency and data source MODELLED),"
			echo "== and the plugin counts every access exactly: the oracle"
			embm-oracle on
			echo
			echo "== embm-run --node $cxl -- embm-bench: read-modify-write, 2 threads, 4 MiB on"
			echo "== node 0 (local DRAM), 6 MiB on node 1 (remote), 2 MiB on node 2 (no CPUs),"
			echo "== 2 MiB on node $cxl (CXL; QEMU runs CXL memory as I/O: slow); every knob at"
			echo "== its default"
			echo "== (-T: the tasks and their nodes; -i 0.25: a line each quarter second;"
			echo "== --plot: each node'"'"'s share over time and each tier'"'"'s latency, drawn"
			echo "== with gnuplot; the host gets the PNG through the console)"
			embm-run -n "$cxl" -T -t 4 -i 0.25 --plot /tmp/demo.png -- \
				embm-bench -p rmw -t 2 -r 30 \
				-o /tmp/bench.txt -b 4M@0 -b 6M@1 -b 2M@2 -b "2M@$cxl"
			cat /tmp/bench.txt
			pids=$(sed -n "s/.*; pids //p" /tmp/bench.txt | tr " " ,)
			echo
			echo "== the oracle: every load and store of embm-bench'"'"'s tasks, exactly"
			embm-oracle show -k "$pids"
			echo
			echo "== hot pages: embm-run -n 2 -t 8 -- embm-bench -p hot: random loads over 1 MiB"
			echo "== on node 2 (256 pages), 90% of them in 8 pages spread over it; the oracle"
			echo "== counts each of its pages (-w); node 2'"'"'s pages are listed first"
			embm-oracle on >/dev/null
			embm-run -n 2 -t 8 -- embm-bench -p hot --hot-pages 8 -r 800 -w -o /tmp/hot.txt \
				-b 1M@2
			echo
			echo "== the oracle: the 8 pages of embm-bench'"'"'s buffer with the most loads, exactly"
			echo "               pfn          loads         stores"
			embm-oracle show -P | grep "^ *0x" | sort -k2,2nr | head -n 8
		else
			echo "== no embm-emu device (QEMU older than 10): page faults only"
			echo "== embm-bench: 32 MiB on node 0 (local DRAM), 48 MiB on node 1 (remote DRAM),"
			echo "== 16 MiB on node 2 (no CPUs), 16 MiB on node $cxl (CXL), 2 threads"
			embm-run -n "$cxl" -t 5 --plot /tmp/demo.png -- embm-bench -t 2 -b 32M@0 \
				-b 48M@1 -b 16M@2 -b "16M@$cxl"
		fi
		if [ -s /tmp/demo.png ]; then
			echo
			echo "== the picture: $(wc -c </tmp/demo.png) bytes of PNG, to the host"
			base64 /tmp/demo.png | sed "s/^/EMBM-B64 /"
		fi
		echo
		echo "== the kernel log"
		dmesg | grep "embm:" | tail -n 10
	'
	rc=$?
	demo_picture "$logf" "$EMBM_BUILD/demo.png"
	return $rc
}
