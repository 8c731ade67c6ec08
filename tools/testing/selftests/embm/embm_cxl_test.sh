#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# embm with a CXL memory expander, as 'scripts/embm run --cxl' emulates
# one: a cxl-type3 device behind a CXL host bridge, in a fixed memory
# window that Linux gives a node of its own.  cxl-online (the guest's
# script, Debian's cxl and ndctl) makes a pmem region and a devdax
# namespace over it, then onlines it as System RAM through kmem.
#
#  1. the region and its devdax namespace exist;
#  2. with only the namespace (device pages, given to a DRAM node whose
#     span then reaches into the CXL window; checked), every node with
#     CPUs is still "dram" and the CPU-less DRAM-like node "far": no
#     "cxl" (with span-based tiers, node 0 was "cxl" here);
#  3. a program that maps the namespace (embm_dax_touch): each of its
#     faults there is a sample in the CXL window, on device pages, on no
#     node, and not an address embm could not place;
#  4. a session that runs while the memory is onlined (checked: running
#     before, and the window's node without memory at its start) counts
#     the pages then bound to it exactly, calls the node "cxl", all of
#     its samples in the window, which it names;
#  5. after it, the other nodes keep their tiers;
#  6. with the CXL node online, the node shares stay within a point of
#     the pages touched when the period moves mid-session, through the
#     period knob and through the CPU budget (embm_estimate_test's two
#     cases, whose first phase is on the last node: the CXL node);
#  7. while a session runs, the CXL node's memory is offlined, then
#     removed (kmem unbound: its memmap freed) and the session goes on:
#     the node keeps its exact count and its tier, a hot page in the
#     removed range reads as on no node, and the next samples land on the
#     nodes left.  The test boot runs this file on the debug kernel, so
#     lockdep, KASAN and kmemleak watch the removal under embm's locks.
#     The race a removal could win against a node lookup cannot be forced
#     from here (KUnit's embm_pfn_nid_test holds mem_hotplug_lock instead).
#
# Skips without a CXL memory device.  Needs root, embm, embm-run,
# embm-bench and the guest's cxl-online (scripts/embm.d/guest): outside
# 'scripts/embm run --cxl' it skips.  QEMU emulates CXL memory as MMIO (about
# 600 us a first touch under TCG): the buffers are small.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# json_node FILE NODE FIELD: a field of one node line of a JSON report.
json_node() {
	sed -n "s/.*{\"node\": $2,.*\"$3\": \\([0-9.]*\\).*/\\1/p" "$1" | head -n 1
}

# json_tier FILE NODE: the tier embm gave a node.
json_tier() {
	sed -n "s/.*{\"node\": $2, \"tier\": \"\\([a-z]*\\)\".*/\\1/p" "$1" | head -n 1
}

# json_str FILE NODE FIELD: a string field of one node line.
json_str() {
	sed -n "s/.*{\"node\": $2,.*\"$3\": \"\([^\"]*\)\".*/\1/p" "$1" | head -n 1
}

# json_win FILE WINDOW FIELD: a number of one window line ("w0").
json_win() {
	sed -n "s/.*{\"window\": \"$2\",.*\"$3\": \(-*[0-9]*\).*/\1/p" "$1" | head -n 1
}

# expand a sysfs node list ("0-2,4") into "0 1 2 4"
node_list() {
	echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
		for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) printf "%d ", j } }'
}

# tiers_ok FILE: nodes with CPUs are dram, the other nodes with memory
# at the start (not the CXL one) far.
tiers_ok() {
	ok=0
	for nd in $mem_nodes; do
		t=$(json_tier "$1" "$nd")
		case " $cpu_nodes " in
		*" $nd "*) want=dram ;;
		*) want=far ;;
		esac
		ktap_print_msg "node $nd: tier $t (want $want)"
		[ "$t" = "$want" ] || ok=1
	done
	return $ok
}

ktap_print_header
if [ ! -d /sys/bus/cxl/devices/mem0 ]; then
	ktap_skip_all "no CXL memory device (boot with 'scripts/embm run --cxl')"
	exit "$KSFT_SKIP"
fi
if [ ! -r /proc/embm/status ] || ! command -v embm-run >/dev/null ||
   ! command -v cxl-online >/dev/null || [ "$(id -u)" != 0 ]; then
	ktap_skip_all "needs root, embm, embm-run and cxl-online"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 7

old_budget=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/embm/cpu_budget)
echo 0 >/sys/kernel/mm/embm/cpu_budget
trap 'echo "$old_budget" >/sys/kernel/mm/embm/cpu_budget; rm -rf "$tmp"' EXIT
mem_nodes=$(node_list "$(cat /sys/devices/system/node/has_memory)")
cpu_nodes=$(node_list "$(cat /sys/devices/system/node/has_cpu)")
ktap_print_msg "nodes with memory: $mem_nodes; with CPUs: $cpu_nodes"

# 1: region and devdax namespace
if cxl-online region >"$tmp/region.log" 2>&1; then
	ktap_test_pass "cxl-online region: a pmem region and a devdax namespace"
else
	ktap_test_fail "cxl-online region: a pmem region and a devdax namespace"
	sed 's/^/# /' "$tmp/region.log"
	ktap_finished
	exit
fi
sed 's/^/# /' "$tmp/region.log"
sed -n '/CXL Window/,+4p' /proc/iomem | sed 's/^/# iomem: /'

# 2: the DRAM nodes stay dram with device pages in the window.  First the
# case itself: the namespace's pages belong to a node with CPUs.
dax=$(sed -n 's/^cxl-region .* dax \(dax[0-9.]*\)$/\1/p' "$tmp/region.log")
dax_node=$(cat "/sys/bus/dax/devices/$dax/numa_node" 2>/dev/null)
ktap_print_msg "$dax: device pages on node ${dax_node:-?}"
bufs=""
for nd in $mem_nodes; do
	bufs="$bufs -b 1M@$nd"
done
embm-run -S swfault -P 1 -j -o "$tmp/ns.json" -- embm-bench $bufs >/dev/null 2>"$tmp/err"
rc=$?
case " $cpu_nodes " in *" $dax_node "*) on_dram=1 ;; *) on_dram=0 ;; esac
if [ $rc = 0 ] && [ $on_dram = 1 ] && tiers_ok "$tmp/ns.json" &&
   ! grep -q '"tier": "cxl"' "$tmp/ns.json"; then
	ktap_test_pass "with a devdax namespace in the CXL window, no DRAM node is cxl"
else
	ktap_test_fail "with a devdax namespace in the CXL window, no DRAM node is cxl"
	sed 's/^/# /' "$tmp/err" "$tmp/ns.json"
fi

# 3: a mapping of the namespace: samples on device pages of the window
touch_prog=$DIR/embm_dax_touch
[ -x "$touch_prog" ] || touch_prog=$(command -v embm_dax_touch)
embm-run -S swfault -P 1 -j -o "$tmp/dax.json" -- \
	"${touch_prog:-embm_dax_touch}" "/dev/$dax" 8M >"$tmp/dax.out" 2>"$tmp/err"
rc=$?
faults=$(sed -n 's/^faults \([0-9]*\)$/\1/p' "$tmp/dax.out")
nwin=$(grep -c '{"window": ' "$tmp/dax.json")
wdev=$(json_win "$tmp/dax.json" w0 device_samples)
wall=$(json_win "$tmp/dax.json" w0 samples)
wnode=$(json_win "$tmp/dax.json" w0 node)
# bad_pfn: samples on no online memory outside the windows (the session's
# status stays until the next one starts).
bad=$(sed -n 's/^bad_pfn \([0-9]*\)$/\1/p' /proc/embm/status)
ktap_print_msg "embm_dax_touch: ${faults:-?} faults on /dev/$dax; window w0 of $nwin:" \
	"${wall:-?} samples, ${wdev:-?} on device pages, node ${wnode:-?}; bad_pfn ${bad:-?}"
if [ $rc = 0 ] && [ -n "$faults" ] && [ "$faults" -gt 0 ] && [ "$nwin" = 1 ] &&
   [ "$wdev" = "$faults" ] && [ "$wall" = "$faults" ] && [ "$wnode" = -1 ] &&
   [ "$bad" = 0 ]; then
	ktap_test_pass "faults on the devdax namespace count in the CXL window, on no node"
else
	ktap_test_fail "faults on the devdax namespace count in the CXL window, on no node"
	sed 's/^/# /' "$tmp/err" "$tmp/dax.json"
fi

# 4: a session across the onlining; its workload waits for the node, then
# binds 8 MiB to it and 8 MiB to the first node with CPUs.
first_cpu_node=$(echo $cpu_nodes | awk '{ print $1 }')
embm-run -S swfault -P 1 -j -o "$tmp/run.json" -- sh -c "
	while [ ! -s $tmp/node ]; do sleep 1; done
	exec embm-bench -b 8M@\$(cat $tmp/node) -b 8M@$first_cpu_node -j -o $tmp/bench.json" \
	>/dev/null 2>"$tmp/err" &
run=$!
# The session must be running before the node gets memory.
i=0
while ! grep -q '^state running' /proc/embm/status 2>/dev/null && [ $i -lt 30 ]; do
	sleep 1
	i=$((i + 1))
done
grep -q '^state running' /proc/embm/status && running=1 || running=0
cxl-online kmem >"$tmp/kmem.log" 2>&1
krc=$?
sed 's/^/# /' "$tmp/kmem.log"
cxl=$(sed -n 's/^cxl-node \([0-9]*\)$/\1/p' "$tmp/kmem.log")
[ $krc = 0 ] && [ -n "$cxl" ] || cxl=-1
# ... and that node had none at the start.
case " $mem_nodes " in *" $cxl "*) fresh=0 ;; *) fresh=1 ;; esac
echo "$cxl" >"$tmp/node.new" && mv "$tmp/node.new" "$tmp/node"
wait $run
rc=$?
truth=$(json_node "$tmp/bench.json" "$cxl" pages)
got=$(json_node "$tmp/run.json" "$cxl" samples)
tier=$(json_tier "$tmp/run.json" "$cxl")
incxl=$(json_node "$tmp/run.json" "$cxl" cxl_samples)
wins=$(json_str "$tmp/run.json" "$cxl" windows)
wnode=$(json_win "$tmp/run.json" w0 node)
# The window's range, as /proc/iomem shows the CXL window (root sees it).
iomem=$(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : CXL Window.*/0x\1 0x\2/p' /proc/iomem |
	head -n 1)
[ -z "$iomem" ] || iomem=$(printf '%x %x' $iomem)
range=$(printf '%x %x' "$(json_win "$tmp/run.json" w0 start)" \
	"$(json_win "$tmp/run.json" w0 end)" 2>/dev/null)
ktap_print_msg "w0: $range; /proc/iomem: $iomem"
ktap_print_msg "CXL node $cxl: embm-bench touched ${truth:-?} pages," \
	"embm counted ${got:-?} samples, ${incxl:-?} in a CXL window, tier ${tier:-?}," \
	"windows ${wins:-?} (w0 on node ${wnode:-?})"
what="a node onlined mid-session: its pages counted exactly, tier cxl, in window w0 (/proc/iomem's)"
ktap_print_msg "session running before the onlining: $running; node new: $fresh"
if [ $rc = 0 ] && [ $krc = 0 ] && [ $running = 1 ] && [ $fresh = 1 ] &&
   [ -n "$truth" ] && [ "$truth" -gt 0 ] && [ "$got" = "$truth" ] && [ "$tier" = cxl ] &&
   [ "$incxl" = "$got" ] && [ "$wins" = w0 ] && [ "$wnode" = "$cxl" ] &&
   [ -n "$iomem" ] && [ "$range" = "$iomem" ]; then
	ktap_test_pass "$what"
else
	ktap_test_fail "$what"
	sed 's/^/# /' "$tmp/err"
fi
sed 's/^/# nodes: /' /proc/embm/nodes
sed 's/^/# windows: /' /proc/embm/windows

# 5: the other nodes keep their tiers, the devdax pages gone to kmem
if tiers_ok "$tmp/run.json"; then
	ktap_test_pass "after the onlining, the DRAM nodes are dram and the far node far"
else
	ktap_test_fail "after the onlining, the DRAM nodes are dram and the far node far"
fi

# 6: shares while the period moves, the CXL node among the nodes.
what="node shares within 1 point while the period moves (knob, budget), CXL node $cxl included"
if [ "$cxl" -ge 0 ] && [ -x "$DIR/embm_estimate_test" ]; then
	"$DIR/embm_estimate_test" -t shares_hold_when_the_period_knob_moves \
		-t shares_hold_when_the_budget_moves_the_period >"$tmp/est.log" 2>&1
	erc=$?
	sed 's/^/# /' "$tmp/est.log"
	if [ $erc = 0 ] && grep -q "node $cxl: " "$tmp/est.log"; then
		ktap_test_pass "$what"
	else
		ktap_test_fail "$what"
	fi
else
	ktap_test_fail "$what: no CXL node ($cxl) or no embm_estimate_test"
fi

# 7: the CXL node's memory offlined and removed while a session runs.
what="CXL memory offlined and removed mid-session: count and tier kept, its pages on no node"
if [ "$cxl" -ge 0 ]; then
	# Room in the hot-page table for every page touched.
	hot=$(cat /sys/kernel/mm/embm/hot_pages)
	echo 65536 >/sys/kernel/mm/embm/hot_pages
	embm-run -S swfault -P 1 -j -o "$tmp/hp.json" -- sh -c "
		embm-bench -b 4M@$cxl -j -o $tmp/hpb.json >/dev/null || exit 1
		echo touched >$tmp/hp.1
		while [ ! -e $tmp/hp.2 ]; do sleep 1; done
		cat /proc/embm/hotpages >$tmp/hp.mid
		embm-bench -b 4M@$first_cpu_node -j -o $tmp/hpa.json >/dev/null || exit 1
		cat /proc/embm/hotpages >$tmp/hp.hot" >/dev/null 2>"$tmp/hp.err" &
	run=$!
	i=0
	while [ ! -e "$tmp/hp.1" ] && [ $i -lt 120 ]; do
		sleep 1
		i=$((i + 1))
	done
	# ... and until ksamplingd placed its samples, so that none is taken
	# for one of the offline's (hotplug_busy) or after the removal.
	want=$(json_node "$tmp/hpb.json" "$cxl" pages)
	i=0
	while [ $i -lt 30 ]; do
		have=$(awk -v n="$cxl" '$1 == "node" && $2 == "tier" { h = 1; next }
			h && $1 == n { print $3; exit }' /proc/embm/nodes)
		[ -n "$want" ] && [ "$have" = "$want" ] && break
		sleep 1
		i=$((i + 1))
	done
	off=0
	for m in /sys/devices/system/node/node"$cxl"/memory*; do
		[ "$(cat "$m/state")" = online ] || continue
		echo offline >"$m/state" && off=$((off + 1))
	done
	# Unbinding kmem removes the memory (its memmap freed) and its
	# "System RAM (kmem)" resource; unbinding alone proves nothing: kmem
	# only logs a memory it could not remove.
	dax=$(cat /tmp/cxl-dax)
	kmem0=$(grep -c 'System RAM (kmem)' /proc/iomem)
	echo "$dax" >/sys/bus/dax/drivers/kmem/unbind 2>"$tmp/unbind.err"
	kmem1=$(grep -c 'System RAM (kmem)' /proc/iomem)
	[ "$kmem0" -gt 0 ] && [ "$kmem1" = 0 ] && removed=1 || removed=0
	# The node has no memory left (its sysfs directory may be gone too).
	case " $(node_list "$(cat /sys/devices/system/node/has_memory)") " in
	*" $cxl "*) empty=0 ;;
	*) empty=1 ;;
	esac
	# The window's pfns, to find the hot pages that were in it.
	set -- $(sed -n 's/^\([0-9a-f]*\)-\([0-9a-f]*\) : CXL Window.*/\1 \2/p' /proc/iomem |
		head -n 1)
	wlo=$((0x${1:-0} >> 12))
	whi=$((0x${2:-0} >> 12))
	touch "$tmp/hp.2"
	wait $run
	rc=$?
	echo "$hot" >/sys/kernel/mm/embm/hot_pages
	truth=$(json_node "$tmp/hpb.json" "$cxl" pages)
	got=$(json_node "$tmp/hp.json" "$cxl" samples)
	tier=$(json_tier "$tmp/hp.json" "$cxl")
	after=$(json_node "$tmp/hpa.json" "$first_cpu_node" pages)
	got_after=$(json_node "$tmp/hp.json" "$first_cpu_node" samples)
	# Hot pages in the removed range: how many, and how many not on node -1.
	inwin=0
	badnode=0
	for f in "$tmp/hp.mid" "$tmp/hp.hot"; do
		[ -f "$f" ] || continue
		while read -r rank pfn node rest; do
			case $rank in [0-9]*) ;; *) continue ;; esac
			[ $((pfn)) -ge $wlo ] && [ $((pfn)) -le $whi ] || continue
			inwin=$((inwin + 1))
			[ "$node" = -1 ] || badnode=$((badnode + 1))
		done <"$f"
	done
	ktap_print_msg "offlined $off blocks of node $cxl, removed $removed" \
		"(kmem resources $kmem0 -> $kmem1; node empty: $empty);" \
		"node $cxl: ${truth:-?} pages touched, ${got:-?} samples, tier ${tier:-?};" \
		"node $first_cpu_node after: ${after:-?} pages, ${got_after:-?} samples;" \
		"hot pages in the window after the removal: $inwin, $badnode not on node -1"
	if [ $rc = 0 ] && [ $off -gt 0 ] && [ $removed = 1 ] && [ $empty = 1 ] &&
	   [ -n "$truth" ] && [ "$truth" -gt 0 ] && [ "$got" = "$truth" ] && [ "$tier" = cxl ] &&
	   [ -n "$after" ] && [ -n "$got_after" ] && [ "$got_after" -ge "$after" ] &&
	   [ -s "$tmp/hp.hot" ] && [ $inwin -gt 0 ] && [ $badnode = 0 ]; then
		ktap_test_pass "$what"
	else
		ktap_test_fail "$what"
		sed 's/^/# /' "$tmp/hp.err" "$tmp/unbind.err"
	fi
else
	ktap_test_fail "$what: no CXL node ($cxl)"
fi

ktap_finished
