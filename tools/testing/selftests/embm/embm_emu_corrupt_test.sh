#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The embm_emu driver against a hostile device: the embm-emu plugin booted
# with corrupt=N ('scripts/embm run --emu-args corrupt=N') corrupts, about
# every N-th record it writes, the record (random bytes, a slot index,
# flags, src, node, size_shift, addresses), the ring (head far ahead of the
# tail or behind it, lost decreasing or huge) or the slot (count going
# backwards, left garbage, bell and bell_as).  The driver must take it all
# as untrusted device memory: while the test samples hard on the embm_emu
# PMU,
#
#  1. embm sessions (embm-run on embm-bench, source emu, small periods,
#     a buffer on every node, threads and a child) complete, with samples;
#  2. perf record of embm_emu/load=1,store=1/ -c 1000 -d --phys-data
#     completes and perf reads its samples back (Debian's perf, which
#     the test boot puts into the guest; skipped without it);
#  3. the same system-wide (-a), with the data and code page sizes, which
#     make perf walk the page tables at the records' addresses;
#  4. perf stat counts, around a perf record (the plugin corrupts the
#     count and left of any slot on, counting ones too);
#  5. the PMU still works after: a last session completes with samples;
#  6. the guest stays responsive: a heartbeat of one line a second never
#     stalls for more than MAX_GAP seconds, and the whole test ends within
#     MAX_TEST seconds;
#  7. the driver counted bad records (its device's embm_emu_stats/bad);
#  8. it resynchronised rings whose head it could not trust (resyncs);
#  9. a user-mode perf record (:u) has no sample with a kernel-half IP or
#     data address, whatever the device wrote (perf; skipped without).
#
# The test boot runs it on the debug kernel, so that KASAN, lockdep and
# kmemleak watch the driver take it (run-tests checks the kernel log and
# scans for leaks after it).
#
# Skips without the embm_emu PMU, and when the plugin does not corrupt
# (no EMBM_EMU_FEAT_CORRUPT in the features the driver logged at probe):
# so in every ordinary boot.  Needs root; embm and its tools for 1 and 5
# (perf does 5 without them).

DIR=$(dirname "$0")
# Installed as kselftest lays it out: DIR/../kselftest/ktap_helpers.sh.
. "$DIR/../kselftest/ktap_helpers.sh"

PMU=/sys/bus/event_source/devices/embm_emu
KNOBS=/sys/kernel/mm/embm
FEAT_CORRUPT=16		# EMBM_EMU_FEAT_CORRUPT, include/uapi/linux/embm_emu.h
PERIOD=257		# loads and stores a sample, embm's sessions (emu's least: 256)
ROUNDS=3		# embm sessions
SECONDS_RUN=8		# embm-bench's run, each workload
MAX_GAP=60		# heartbeat: seconds without a beat at most
MAX_TEST=900		# the whole test
MAX_STEP=300		# one command
t0=$(date +%s)

ktap_print_header
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "needs root"
	exit "$KSFT_SKIP"
fi
if [ ! -d $PMU ]; then
	ktap_skip_all "no embm_emu PMU (a guest of 'scripts/embm run' under QEMU 10 has one)"
	exit "$KSFT_SKIP"
fi

# The driver's counters: embm_emu_stats/ of its PCI device (embm_emu/
# before the PMU's own device took that name).
stats=""
for d in /sys/bus/pci/drivers/embm_emu/*/embm_emu_stats \
	 /sys/bus/pci/drivers/embm_emu/*/embm_emu; do
	[ -r "$d/bad" ] && { stats=$d; break; }
done

# The plugin's features: a sysfs file if the driver has one, else the
# line the driver logs at probe ("... features 0x1d").
features=""
[ -n "$stats" ] && [ -r "$stats/features" ] && features=$(cat "$stats/features")
[ -n "$features" ] || {
	probe='s/.*perf PMU embm_emu (type [0-9]*):.* features \([0-9a-fx]*\)$/\1/p'
	features=$(dmesg | sed -n "$probe" | tail -n 1)
}
if [ -z "$features" ]; then
	ktap_skip_all "cannot tell whether the embm-emu plugin corrupts (no probe line in dmesg)"
	exit "$KSFT_SKIP"
fi
if [ $((features & FEAT_CORRUPT)) = 0 ]; then
	ktap_skip_all "the embm-emu plugin does not corrupt (features $features; corrupt=N)"
	exit "$KSFT_SKIP"
fi
if [ -z "$stats" ]; then
	ktap_skip_all "no embm_emu_stats of the embm_emu device in sysfs"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 9
ktap_print_msg "plugin features $features; driver counters in $stats"

tmp=$(mktemp -d) || exit 1
hb=""
have_embm=0
[ -r /proc/embm/status ] && command -v embm-run >/dev/null &&
	command -v embm-bench >/dev/null && have_embm=1
have_perf=0
command -v perf >/dev/null && perf --version >/dev/null 2>&1 && have_perf=1
bench=$(command -v embm-bench)

knob() {
	sed 's/.*\[\(.*\)\].*/\1/' "$KNOBS/$1"
}

restore() {
	[ -n "$hb" ] && kill "$hb" 2>/dev/null
	if [ "$have_embm" = 1 ]; then
		for k in source period store_period cpu_budget; do
			eval "v=\$old_$k"
			[ -n "$v" ] && echo "$v" >"$KNOBS/$k"
		done
	fi
	rm -rf "$tmp"
}
trap restore EXIT
if [ "$have_embm" = 1 ]; then
	for k in source period store_period cpu_budget; do
		eval "old_$k=\$(knob $k)"
	done
	echo emu >$KNOBS/source && echo $PERIOD >$KNOBS/period &&
		echo $PERIOD >$KNOBS/store_period && echo 0 >$KNOBS/cpu_budget ||
		ktap_print_msg "cannot set embm's knobs"
fi

# The driver's counters, as "samples lost bad stale resyncs".
counters() {
	for c in samples lost bad stale resyncs; do
		printf '%s ' "$(cat "$stats/$c" 2>/dev/null || echo 0)"
	done
}

# expand a sysfs node list ("0-2,4") into "0 1 2 4"
node_list() {
	echo "$1" | awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
		for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) printf "%d ", j } }'
}

# A buffer on every node with memory, 2 MiB (1 MiB without CPUs: QEMU
# is slower there).
bufs=""
cpu_nodes=" $(node_list "$(cat /sys/devices/system/node/has_cpu)")"
for n in $(node_list "$(cat /sys/devices/system/node/has_memory)"); do
	case "$cpu_nodes" in
	*" $n "*) size=2M ;;
	*) size=1M ;;
	esac
	bufs="$bufs -b $size@$n"
done
ktap_print_msg "embm-bench buffers:$bufs"

# step NAME CMD...: CMD under timeout MAX_STEP, its output in $tmp/NAME.out;
# its status, the output shown when it fails.
step() {
	name=$1
	shift
	s0=$(date +%s)
	timeout $MAX_STEP "$@" >"$tmp/$name.out" 2>&1
	r=$?
	ktap_print_msg "$name: exit $r, $(($(date +%s) - s0)) s"
	[ $r = 0 ] || tail -n 20 "$tmp/$name.out" | sed "s/^/# $name: /"
	return $r
}

# status FIELD: a field of /proc/embm/status (the last session's).
status() {
	sed -n "s/^$1 //p" /proc/embm/status | head -n 1
}

# One embm session on embm-bench; ok if it ends with samples of source emu.
session() {
	step "$1" embm-run -j -o "$tmp/$1.json" -- \
		"$bench" -p "$2" -t 2 -c 1 -d $SECONDS_RUN $bufs || return 1
	src=$(status source)
	smp=$(status samples)
	ktap_print_msg "$1: source $src, samples $smp, bad_pfn $(status bad_pfn)," \
		"lost $(status lost), bad_records $(status bad_records)"
	[ "$src" = emu ] && [ "${smp:-0}" -gt 0 ]
}

# The heartbeat: a line a second while the test runs.
(while :; do date +%s; sleep 1; done) >"$tmp/hb" 2>/dev/null &
hb=$!

set -- $(counters)
c0_samples=$1 c0_lost=$2 c0_bad=$3 c0_stale=$4 c0_resyncs=$5
ktap_print_msg "driver before: samples $1 lost $2 bad $3 stale $4 resyncs $5"

# 1: embm sessions
what="$ROUNDS embm sessions on embm-bench (source emu, period $PERIOD) complete with samples"
if [ "$have_embm" = 1 ]; then
	ok=1
	i=1
	for p in rmw seq-read rand-read; do
		[ $i -le $ROUNDS ] || break
		session "embm-$i-$p" "$p" || ok=0
		i=$((i + 1))
	done
	[ $ok = 1 ] && ktap_test_pass "$what" || ktap_test_fail "$what"
else
	ktap_test_skip "$what: no embm or its tools"
fi

# 2-4: perf
EV=embm_emu/load=1,store=1/
what="perf record -e $EV -c 1000 -d --phys-data completes, perf report reads its samples"
if [ "$have_perf" = 1 ]; then
	if step perf-record perf record -e $EV -c 1000 -d --phys-data -o "$tmp/perf.data" -- \
		"$bench" -p rmw -t 2 -d $SECONDS_RUN $bufs &&
	   step perf-report perf report -i "$tmp/perf.data" --stats; then
		n=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' \
			"$tmp/perf-report.out")
		l=$(awk '$1 == "LOST_SAMPLES" && $2 == "events:" { print $3; exit }' \
			"$tmp/perf-report.out")
		step perf-script perf script -i "$tmp/perf.data" -F ip,addr,phys_addr
		r=$?
		ktap_print_msg "perf: ${n:-0} samples, ${l:-0} lost-samples records;" \
			"perf script: exit $r, $(wc -l <"$tmp/perf-script.out") lines"
		if [ "${n:-0}" -gt 0 ] && [ $r = 0 ]; then
			ktap_test_pass "$what"
		else
			ktap_test_fail "$what"
		fi
	else
		ktap_test_fail "$what"
	fi
	rm -f "$tmp/perf.data" "$tmp/perf-script.out"

	what="perf record -a of $EV with the data and code page sizes completes"
	pages="--data-page-size --code-page-size"
	perf record $pages -e $EV -c 1000 -o "$tmp/probe.data" -- true >/dev/null 2>&1 ||
		pages=""
	ktap_print_msg "perf record -a ${pages:-(this perf has no --data-page-size)}"
	if step perf-record-a perf record -a -e $EV -c 1000 -d --phys-data $pages \
		-o "$tmp/perf-a.data" -- "$bench" -p rand-read -t 4 -d $SECONDS_RUN $bufs &&
	   step perf-report-a perf report -i "$tmp/perf-a.data" --stats; then
		n=$(awk '$1 == "SAMPLE" && $2 == "events:" { print $3; exit }' \
			"$tmp/perf-report-a.out")
		ktap_print_msg "perf -a: ${n:-0} samples"
		[ "${n:-0}" -gt 0 ] && ktap_test_pass "$what" || ktap_test_fail "$what"
	else
		ktap_test_fail "$what"
	fi
	rm -f "$tmp/perf-a.data"

	# Counting slots beside a sampling one: the plugin corrupts the
	# counts of any slot that is on.  A count that went backwards in
	# the driver's hands shows as one near 2^64: said, not judged.
	what="perf stat of embm_emu loads and stores around perf record completes"
	if step perf-stat perf stat -x, -e embm_emu/load=1/,embm_emu/store=1/ -- \
		perf record -e $EV -c 1000 -o "$tmp/perf-s.data" -- \
		"$bench" -p rmw -t 2 -d $SECONDS_RUN $bufs; then
		grep embm_emu "$tmp/perf-stat.out" | sed 's/^/# perf stat: /'
		wrapped=$(awk -F, '/embm_emu/ && length($1) >= 16 { n++ } END { print n + 0 }' \
			"$tmp/perf-stat.out")
		[ "$wrapped" = 0 ] ||
			ktap_print_msg "note: $wrapped count(s) of 10^15 or more: a slot's count" \
				"that went backwards, taken as a huge delta"
		ktap_test_pass "$what"
	else
		ktap_test_fail "$what"
	fi
	rm -f "$tmp/perf-s.data"

	# A user-mode event (:u, as an unprivileged user may open) never gets
	# a kernel address, whatever the device writes: no IP or data
	# address of its samples is in the kernel's half (16 hex digits
	# from 8).
	what="perf record of $EV:u: no sample has a kernel IP or data address"
	if step perf-record-u perf record -e "${EV}u" -c 1000 -d -o "$tmp/perf-u.data" -- \
		"$bench" -p rmw -t 2 -d $SECONDS_RUN $bufs &&
	   step perf-script-u perf script -i "$tmp/perf-u.data" -F ip,addr; then
		n=$(grep -c . "$tmp/perf-script-u.out")
		khalf='(^|[^0-9a-f])[89a-f][0-9a-f]{15}([^0-9a-f]|$)'
		k=$(grep -Eci "$khalf" "$tmp/perf-script-u.out")
		ktap_print_msg "perf :u: $n samples, $k with a kernel-half address"
		[ "$n" -gt 0 ] && [ "$k" = 0 ] && ktap_test_pass "$what" || ktap_test_fail "$what"
	else
		ktap_test_fail "$what"
	fi
	rm -f "$tmp/perf-u.data"
else
	ktap_test_skip "$what: no perf in the guest"
	ktap_test_skip "perf record -a of $EV: no perf in the guest"
	ktap_test_skip "perf stat of embm_emu: no perf in the guest"
	ktap_test_skip "perf record of $EV:u: no perf in the guest"
fi

set -- $(counters)
c1_samples=$1 c1_lost=$2 c1_bad=$3 c1_stale=$4 c1_resyncs=$5
ktap_print_msg "driver after: samples $1 lost $2 bad $3 stale $4 resyncs $5"
d_samples=$((c1_samples - c0_samples))
d_lost=$((c1_lost - c0_lost))
d_bad=$((c1_bad - c0_bad))
d_stale=$((c1_stale - c0_stale))
d_resyncs=$((c1_resyncs - c0_resyncs))
ktap_print_msg "driver during the test: $d_samples samples, $d_lost lost, $d_bad bad," \
	"$d_stale stale, $d_resyncs resyncs;" \
	"$(dmesg | grep -c 'embm_emu: CPU [0-9]*: ring head') ring warnings in dmesg (rate-limited)"

# 5 (while the heartbeat beats): the PMU after all that
what="the embm_emu PMU works after: a last session completes with samples"
if [ "$have_embm" = 1 ]; then
	session embm-after write && ktap_test_pass "$what" || ktap_test_fail "$what"
elif [ "$have_perf" = 1 ]; then
	step perf-after perf stat -e $EV -- "$bench" -d 2 $bufs &&
		ktap_test_pass "$what" || ktap_test_fail "$what"
else
	ktap_test_skip "$what: neither embm nor perf"
fi

# 6: responsiveness
kill "$hb" 2>/dev/null
wait "$hb" 2>/dev/null
hb=""
gap=$(awk 'NR > 1 && $1 - last > max { max = $1 - last } { last = $1 }
	   END { print max + 0 }' "$tmp/hb")
beats=$(wc -l <"$tmp/hb")
took=$(($(date +%s) - t0))
ktap_print_msg "heartbeat: $beats beats, longest gap $gap s; the test took $took s"
what="the guest stayed responsive: no heartbeat gap over $MAX_GAP s, the test within $MAX_TEST s"
[ "$beats" -gt 1 ] && [ "$gap" -le $MAX_GAP ] && [ "$took" -le $MAX_TEST ] &&
	ktap_test_pass "$what" || ktap_test_fail "$what"

# 7, 8: the driver saw it
what="the driver counted bad records ($d_bad)"
[ "$d_bad" -gt 0 ] && ktap_test_pass "$what" || ktap_test_fail "$what"
what="the driver resynchronised corrupted rings ($d_resyncs)"
[ "$d_resyncs" -gt 0 ] && ktap_test_pass "$what" || ktap_test_fail "$what"

ktap_finished
