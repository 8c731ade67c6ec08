#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the embm tools: embm-run on embm-bench must report the pages
# embm-bench says it touched, per node (swfault, period 1); threads and
# children, exit status, signals, --pid, errors and embm-stat; a report
# written for its source, the shares at the default settings, huge
# pages, the hints when nothing or mostly addressless samples came,
# embm-bench's hot set against tiny slices, unknown and conflicting
# options, the tiering counters closing the report; the ticks of
# --interval (their sums, their count, phases in order, JSON Lines), the
# resident pages per node against embm-bench's buffers, --plot's PNG and
# data file against /proc/embm, and its bad paths.
#
# Tolerance: a node without CPUs gets only the pages bound to it, so its
# count is exact.  Nodes with CPUs also get the faults of starting
# embm-bench itself (a few dozen pages): there the count may exceed the
# truth by at most SLACK pages, and every node's share of the samples must
# be within 2 percentage points of its share of the pages.
#
# Needs root, embm and the tools on PATH; POSIX sh (busybox will do).

SLACK=256
DIR=$(dirname "$0")
# Installed as kselftest lays it out: DIR/../kselftest/ktap_helpers.sh.
. "$DIR/../kselftest/ktap_helpers.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check NAME CMD...: ok if CMD succeeds.  Not ktap_test_result, which
# splits a quoted argument of CMD at its blanks.
check() {
	name=$1
	shift
	if "$@"; then ktap_test_pass "$name"; else ktap_test_fail "$name"; fi
}

# json_node FILE NODE FIELD: a field of one node line of a JSON report.
json_node() {
	sed -n "s/.*{\"node\": $2,.*\"$3\": \\([0-9.]*\\).*/\\1/p" "$1" | head -n 1
}

knob() {
	cat "/sys/kernel/mm/embm/$1" | sed 's/.*\[\(.*\)\].*/\1/'
}

ktap_print_header
if [ ! -r /proc/embm/status ] || ! command -v embm-run >/dev/null ||
   ! command -v embm-bench >/dev/null; then
	ktap_skip_all "no embm in this kernel, or no embm tools on PATH"
	exit "$KSFT_SKIP"
fi
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "needs root"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 27

old_budget=$(knob cpu_budget)
old_source=$(knob source)
old_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
echo 0 >/sys/kernel/mm/embm/cpu_budget
echo 1000000 >/proc/sys/kernel/perf_event_max_sample_rate
# The truth here is pages touched: the page-fault source, also where
# auto would take another (the emulated PMU under QEMU with the plugin).
echo swfault >/sys/kernel/mm/embm/source
trap 'echo "$old_budget" >/sys/kernel/mm/embm/cpu_budget;
      echo "$old_source" >/sys/kernel/mm/embm/source;
      echo "$old_rate" >/proc/sys/kernel/perf_event_max_sample_rate; rm -rf "$tmp"' EXIT

has_mem=$(cat /sys/devices/system/node/has_memory)
has_cpu=$(cat /sys/devices/system/node/has_cpu)
nodes=$(echo "$has_mem" | awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
	for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) printf "%d ", j } }')
cpu_nodes=$(echo "$has_cpu" | awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
	for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) printf "%d ", j } }')
study=""
for nd in $nodes; do
	case " $cpu_nodes " in *" $nd "*) ;; *) study=$nd ;; esac
done
[ -n "$study" ] || study=$(echo $nodes | awk '{ print $NF }')

# 1-3: help texts
for t in embm-run embm-stat embm-bench; do
	check "$t --help" sh -c "$t --help | grep -q '^usage: $t'"
done

# 4: ground truth, per node
bufs=""
i=0
for nd in $nodes; do
	i=$((i + 1))
	bufs="$bufs -b $((i * 4))M@$nd"
done
embm-run -S swfault -P 1 -n "$study" -j -o "$tmp/run.json" -- \
	embm-bench $bufs -j -o "$tmp/bench.json" >/dev/null 2>"$tmp/err"
rc=$?
good=1
total_pages=0
total_samples=$(sed -n 's/.*"attributed": \([0-9]*\).*/\1/p' "$tmp/run.json")
for nd in $nodes; do
	total_pages=$((total_pages + $(json_node "$tmp/bench.json" "$nd" pages)))
done
for nd in $nodes; do
	truth=$(json_node "$tmp/bench.json" "$nd" pages)
	got=$(json_node "$tmp/run.json" "$nd" samples)
	[ -n "$truth" ] && [ -n "$got" ] || { good=0; echo "# node $nd: no figures"; continue; }
	case " $cpu_nodes " in
	*" $nd "*) [ "$got" -ge "$truth" ] && [ "$got" -le $((truth + SLACK)) ] || good=0 ;;
	*) [ "$got" -eq "$truth" ] || good=0 ;;
	esac
	# shares in hundredths of a percent
	s_truth=$((truth * 10000 / total_pages))
	s_got=$((got * 10000 / total_samples))
	d=$((s_got - s_truth))
	[ ${d#-} -le 200 ] || good=0
	counts="embm-bench touched $truth pages, embm counted $got samples"
	ktap_print_msg "node $nd: $counts; shares $s_truth vs $s_got (1/100 %)"
done
# The summary's terms add up (embm_stats_identity_ok()).
jnum() {
	v=$(sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1)
	echo "${v:-0}"
}
all=$(sed -n 's/.*"samples": \([0-9]*\), "attributed".*/\1/p' "$tmp/run.json")
terms=$(( $(jnum "$tmp/run.json" attributed) + $(jnum "$tmp/run.json" latency_only) +
	  $(jnum "$tmp/run.json" no_phys) + $(jnum "$tmp/run.json" hotplug_busy) +
	  $(jnum "$tmp/run.json" cxl_device_samples) ))
ktap_print_msg "samples $all, the terms add up to $terms"
[ -n "$all" ] && [ "$all" -gt 0 ] && [ "$all" = "$terms" ] || good=0
what="embm-run on embm-bench: per-node counts and shares match, the terms add up"
if [ $rc = 0 ] && [ $good = 1 ]; then
	ktap_test_pass "$what"
else
	ktap_test_fail "$what"
	sed 's/^/# /' "$tmp/err"
fi

# 5: the node under study is marked and comes first
first=$(sed -n 's/.*{"node": \([0-9]*\),.*/\1/p' "$tmp/run.json" | head -n 1)
check "node under study first and marked" sh -c \
	"[ '$first' = '$study' ] && grep -q '\"node\": $study,.*\"study\": true' '$tmp/run.json'"

# 6: threads and children of the command are followed (exact on $study when memory-only)
embm-run -S swfault -P 1 -j -o "$tmp/run2.json" -- \
	embm-bench -b 2M@"$study" -t 3 -c 2 -j -o "$tmp/bench2.json" >/dev/null 2>&1
truth=$(json_node "$tmp/bench2.json" "$study" pages)
got=$(json_node "$tmp/run2.json" "$study" samples)
ktap_print_msg "threads and children: $truth pages, $got samples"
case " $cpu_nodes " in
*" $study "*) check "threads and children followed" [ "$got" -ge "$truth" ] ;;
*) check "threads and children followed" [ "$got" -eq "$truth" ] ;;
esac

# 7: the command's exit status, and 128 + signal
embm-run -- sh -c 'exit 7' >/dev/null 2>&1
a=$?
embm-run -- sh -c 'kill -TERM $$' >/dev/null 2>&1
b=$?
check "exit status passed on ($a, $b)" [ "$a $b" = "7 143" ]

# 8: SIGINT is forwarded to the command
embm-run -- sleep 30 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
check "SIGINT forwarded (exit $?)" [ $? = 130 ]

# 9: attach to a running process with --pid; its new children are followed
sh -c 'while :; do embm-bench -b 1M@'"$study"' >/dev/null; done' &
loop=$!
sleep 1
embm-run -S swfault -P 1 -p $loop -d 2 -j -o "$tmp/run3.json" >/dev/null 2>&1
rc=$?
kill $loop
wait $loop 2>/dev/null
got=$(json_node "$tmp/run3.json" "$study" samples)
ktap_print_msg "--pid: $got samples on node $study"
check "--pid attaches for --duration" sh -c "[ $rc = 0 ] && [ ${got:-0} -ge 256 ]"

# 10: a second session is refused with a clear message
embm-run -s -d 3 >/dev/null 2>&1 &
bg=$!
sleep 1
embm-run -- true >/dev/null 2>"$tmp/busy"
rc=$?
wait $bg
check "busy: exit 1 and a message" sh -c "[ $rc = 1 ] && grep -q 'already running' '$tmp/busy'"

# 11: embm-stat shows the last session, in both forms
embm-stat -1 >"$tmp/stat" && embm-stat -j >"$tmp/stat.json"
check "embm-stat --once and --json" sh -c \
	"grep -q '^session done' '$tmp/stat' && grep -q '\"tool\": \"embm-stat\"' '$tmp/stat.json'"

# 12: every /proc/embm file starts with the version the tools know
v=1
for f in status nodes matrix latency hotpages windows; do
	[ "$(head -n 1 /proc/embm/$f)" = "version 5" ] || v=0
done
check "procfs files are version 5 (EMBM_PROC_VERSION)" [ $v = 1 ]

# 13: no uncore PMU here (QEMU): one line says why, in both forms, and the
# rest of the report is as it was (test 4 read the JSON of test 4's run);
# with --interval the ticks' lines come before the one final report, and
# embm-stat's refreshes say it each time.
if ls -d /sys/bus/event_source/devices/uncore_* >/dev/null 2>&1; then
	ktap_test_skip "uncore PMUs present: the unavailable path is for VMs"
else
	embm-run -- true >"$tmp/bw" 2>&1
	embm-run -i 0.2 -- sleep 0.5 >"$tmp/bwi" 2>&1
	embm-stat -i 0.2 -c 3 >"$tmp/bws" 2>&1
	na='"bandwidth": null, "bandwidth_unavailable": "no uncore PMU'
	un='^bandwidth: unavailable: no uncore PMU'
	check "no uncore PMU: one line says bandwidth is unavailable, and why" sh -c \
		"[ \$(grep -c '$un' '$tmp/bw') = 1 ] &&
		 [ \$(grep -c bandwidth '$tmp/bw') = 1 ] && grep -qF '$na' '$tmp/run.json' &&
		 [ \$(grep -c '$un' '$tmp/bwi') = 1 ] &&
		 [ \$(grep -c '^session' '$tmp/bwi') = 1 ] &&
		 [ \$(grep -c '^t=[0-9.]*s +' '$tmp/bwi') -ge 2 ] &&
		 [ \$(grep -c '$un' '$tmp/bws') = 3 ] && ! grep -q 'next refresh' '$tmp/bws'"
fi

# 14: a report written for its source: swfault's has no loads, stores,
# latency, cache or memory columns (text and JSON), names its estimate
# "pages" as embm-bench does, says what it cannot see, and calls the
# matrix rows nodes; the legend is in --help.
embm-run -S swfault -P 1 -- embm-bench -b 4M@"$study" >"$tmp/src.txt" 2>&1
embm-run -S swfault -P 1 -j -o "$tmp/src.json" -- embm-bench -b 4M@"$study" >/dev/null 2>&1
hdr=$(grep '^  node tier' "$tmp/src.txt")
sed 's/^/# /' "$tmp/src.txt"
what="swfault report: only the columns it fills, its estimate named pages, what it cannot see"
check "$what" sh -c \
	"echo '$hdr' | grep -q ' pages .* distinct ' &&
	 ! echo '$hdr' | grep -qE 'loads|stores|lat|cache|memory|accesses' &&
	 grep -q '^not seen by swfault: re-accesses' '$tmp/src.txt' &&
	 grep -q '^  node[0-9]' '$tmp/src.txt' && ! grep -q '^  cpu[0-9]' '$tmp/src.txt' &&
	 grep -q '\"node\": $study,.*\"pages\": [0-9]*,.*\"distinct_pages\"' '$tmp/src.json' &&
	 ! grep -qE '\"(loads|lat_samples|cache|accesses)\"' '$tmp/src.json' &&
	 embm-run --help | grep -q '^  distinct ' && embm-run --help | grep -q '^  share '"

# 15: the default settings (the CPU budget on): the shares embm-run shows
# are within 1 point of the pages embm-bench touched, however the period
# moved (a session of 4 threads reading at random, as a user would run it).
echo "$old_budget" >/sys/kernel/mm/embm/cpu_budget
echo 0 >/sys/kernel/mm/embm/period
set -- $nodes
b1=$1; b2=${2:-$1}; b3=${3:-$1}
embm-run -j -o "$tmp/def.json" -- embm-bench -p rand-read -t 4 -b 64M@"$b1" -b 16M@"$b2" \
	-b 32M@"$b3" -j -o "$tmp/defb.json" >/dev/null 2>"$tmp/err"
rc=$?
echo 0 >/sys/kernel/mm/embm/cpu_budget
good=1
total=0
for nd in $nodes; do
	total=$((total + $(json_node "$tmp/defb.json" "$nd" pages)))
done
for nd in $nodes; do
	truth=$(json_node "$tmp/defb.json" "$nd" pages)
	share=$(json_node "$tmp/def.json" "$nd" share_pct)
	[ -n "$truth" ] && [ -n "$share" ] || { good=0; continue; }
	d=$(awk -v s="$share" -v t="$truth" -v n="$total" 'BEGIN { d = s - 100 * t / n;
		printf "%.2f", d < 0 ? -d : d }')
	awk -v d="$d" 'BEGIN { exit !(d <= 1) }' || good=0
	ktap_print_msg "node $nd: $truth pages ($(awk -v t="$truth" -v n="$total" \
		'BEGIN { printf "%.2f", 100 * t / n }')%), share $share%, off by $d"
done
ktap_print_msg "$(sed -n 's/.*\("period_start".*"period_why": "[^"]*"\).*/\1/p' "$tmp/def.json")"
what="default settings: every share within 1 point of the pages touched"
if [ $rc = 0 ] && [ $good = 1 ] && [ "$total" -gt 0 ]; then
	ktap_test_pass "$what"
else
	ktap_test_fail "$what"
	sed 's/^/# /' "$tmp/err"
fi

# 16: a session that samples nothing says so, and why it may be
sleep 30 &
sl=$!
# Past its start-up: the faults of its exec would be samples.
sleep 1
embm-run -S swfault -p $sl -d 1 >"$tmp/none.txt" 2>&1
kill $sl
wait $sl 2>/dev/null
check "no samples: a hint says what swfault sees" grep -q '^hint: no samples' "$tmp/none.txt" ||
	sed 's/^/# /' "$tmp/none.txt"

# 17: reads of never-written memory (the zero page) have no address: a
# warning says most samples had none, and no node gets them
embm-run -S swfault -P 1 -j -o "$tmp/zero.json" -- \
	embm-bench -F read -p seq-read -b 16M@"$study" >/dev/null 2>&1
embm-run -S swfault -P 1 -- embm-bench -F read -p seq-read -b 16M@"$study" >"$tmp/zero.txt" 2>&1
got=$(json_node "$tmp/zero.json" "$study" pages)
noaddr=$(sed -n 's/.*"no_phys": \([0-9]*\).*/\1/p' "$tmp/zero.json")
ktap_print_msg "zero page: $noaddr samples without address, node $study estimate $got pages"
check "mostly addressless: a warning, and they are on no node" sh -c \
	"grep -q '^warning: [0-9]* of [0-9]* samples had no physical address' '$tmp/zero.txt' &&
	 [ ${noaddr:-0} -ge 4096 ] && [ ${got:-99999} -le 64 ]"

# 18: huge pages count as their 4 KiB pages, as embm-bench counts them
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	ktap_test_skip "transparent huge pages are off"
else
	other=$(echo $nodes | awk '{ print $1 }')
	embm-run -S swfault -P 1 -j -o "$tmp/thp.json" -- embm-bench -H -b 32M@"$study" \
		-b 8M@"$other" -j -o "$tmp/thpb.json" >/dev/null 2>&1
	truth=$(json_node "$tmp/thpb.json" "$study" pages)
	got=$(json_node "$tmp/thp.json" "$study" pages)
	samples=$(json_node "$tmp/thp.json" "$study" samples)
	ktap_print_msg "huge pages on node $study: embm-bench $truth pages;" \
		"embm $got pages in $samples samples"
	check "huge pages: the estimate counts their 4 KiB pages" sh -c \
		"[ -n '$truth' ] && [ '$got' -ge '$truth' ] && [ '$got' -le \$(($truth + 64)) ] &&
		 [ '$samples' -lt \$(($truth / 8)) ]"
fi

# 19: embm-bench's pattern hot on slices smaller than its hot set: a hot
# set or threads that do not fit are bad usage (2) named in the message;
# the default hot set is cut to a tiny slice, which runs.
embm-bench -p hot --hot-pages 64 -b 8K@"$study" >/dev/null 2>"$tmp/hot1"
a=$?
embm-bench -p hot -t 4 -b 8K@"$study" >/dev/null 2>"$tmp/hot2"
b=$?
embm-bench -p hot -t 2 -r 10 -b 8K@"$study" >/dev/null 2>&1
c=$?
check "embm-bench: a hot set or threads past a slice exit 2, named ($a $b $c)" sh -c \
	"[ '$a $b $c' = '2 2 0' ] && grep -q '^embm-bench: --hot-pages 64: ' '$tmp/hot1' &&
	 grep -q '^embm-bench: --threads 4: ' '$tmp/hot2'"

# 20: unknown or conflicting options: exit 2, and the message names the
# option (embm-stat's --prometheus ones: embm_prom_test.sh)
bad=0
usage() {
	opt=$1
	shift
	"$@" >/dev/null 2>"$tmp/usage"
	rc=$?
	ktap_print_msg "$*: exit $rc: $(head -n 1 "$tmp/usage")"
	[ $rc = 2 ] && head -n 1 "$tmp/usage" | grep -q -e "$opt" || bad=1
}
usage "--bogus" embm-run --bogus -- true
usage "--duration" embm-run -d 1 -- true
usage "--duration" embm-run --system --duration 1 -- true
usage "--bogus" embm-stat --bogus
usage "'extra'" embm-stat -1 extra
usage "--bogus" embm-bench --bogus
check "unknown or conflicting options: exit 2, the option named" [ $bad = 0 ]

# 21: the tiering counters close the report: one line for /proc/vmstat,
# in the text; the JSON's "vmstat" has them all (embm_vmstat_test holds
# them to pages it moved)
embm-run -- embm-bench -b 1M@"$study" >"$tmp/vm.txt" 2>&1
embm-run -j -o "$tmp/vm.json" -- embm-bench -b 1M@"$study" >/dev/null 2>&1
grep '^tiering activity' "$tmp/vm.txt" | sed 's/^/# /'
check "tiering activity in the text and the JSON" sh -c \
	"[ \$(grep -c '^tiering activity (system-wide): ' '$tmp/vm.txt') = 1 ] &&
	 grep -q '\"vmstat\": {\"scope\": \"system\", \"folded\": true, \"counters\": {' \
		'$tmp/vm.json' &&
	 grep -q '\"counters\": {.*\"pgmigrate_success\": ' '$tmp/vm.json' &&
	 grep -q '^   {\"node\": $study, .*\"nr_anon_pages\": ' '$tmp/vm.json'"


# The nodes for the cases below: $study (memory only, where there is one)
# and a node with CPUs.
cpu_node=$(echo $cpu_nodes | awk '{ print $1 }')

# tick_sum FILE: the samples of the ticks' lines ("t=1.5s +N samples:"), summed.
tick_sum() {
	sed -n 's/^t=[0-9.]*s +\([0-9]*\) samples:.*/\1/p' "$1" |
		awk '{ s += $1 } END { print s + 0 }'
}

# 22: --interval: a line a tick, what the tick sampled; as many ticks as
# the session's time holds intervals (and the last, partial one, "(end)"),
# and their samples add up to the final report's exactly, as the last
# tick is taken from the same read; --cumulative's lines grow to it.
embm-run -S swfault -P 1 -i 0.5 -o "$tmp/iv.txt" -- \
	embm-bench -d 3 -b 4M@"$study" -b 2M@"$cpu_node" >/dev/null 2>"$tmp/err"
rc=$?
embm-run -S swfault -P 1 -i 0.5 -C -o "$tmp/ivc.txt" -- \
	embm-bench -d 2 -b 4M@"$study" >/dev/null 2>>"$tmp/err"
rcc=$?
grep '^t=' "$tmp/iv.txt" | sed 's/^/# /'
n=$(grep -c '^t=[0-9.]*s +[0-9]* samples: .*; period [0-9]*' "$tmp/iv.txt")
end_ms=$(sed -n 's/^t=\([0-9]*\)\.\([0-9]\)s .*(end)$/\1\200/p' "$tmp/iv.txt")
final=$(sed -n 's/^samples \([0-9]*\) = attributed.*/\1/p' "$tmp/iv.txt")
sum=$(tick_sum "$tmp/iv.txt")
# Within one line of the session's time in ticks (the lines' times are the
# session's, to 0.1 s), the end's line being one.
want=$(( ${end_ms:-0} / 500 + 1 ))
cfinal=$(sed -n 's/^samples \([0-9]*\) = attributed.*/\1/p' "$tmp/ivc.txt")
clast=$(sed -n 's/^t=[0-9.]*s \([0-9]*\) samples:.*(end)$/\1/p' "$tmp/ivc.txt")
cgrow=$(sed -n 's/^t=[0-9.]*s \([0-9]*\) samples:.*/\1/p' "$tmp/ivc.txt" |
	awk 'NR > 1 && $1 < last { bad = 1 } { last = $1 } END { print bad + 0 }')
ktap_print_msg "--interval 0.5: $n lines over ${end_ms:-?} ms (want $want +-1);" \
	"ticks' samples $sum, the report's $final; cumulative: last $clast, report $cfinal"
check "--interval: a line a tick, their samples add up to the report's; --cumulative too" sh -c \
	"[ $rc = 0 ] && [ $rcc = 0 ] && [ ${end_ms:-0} -ge 3000 ] &&
	 [ $n -ge $((want - 1)) ] && [ $n -le $((want + 1)) ] &&
	 [ -n '$final' ] && [ '$sum' = '$final' ] && [ '$final' -gt 0 ] &&
	 [ -n '$cfinal' ] && [ '$clast' = '$cfinal' ] && [ $cgrow = 0 ]" ||
	sed 's/^/# /' "$tmp/err"

# 23: the ticks follow phases in time: embm-bench on $cpu_node, a pause,
# embm-bench on $study.  Page faults (swfault, period 1) come as each run
# first touches its buffer: a tick where $cpu_node has over 90% of the
# pages must come before one where $study has.
if [ "$study" = "$cpu_node" ]; then
	ktap_test_skip "one node: no phases to tell apart"
else
	embm-run -S swfault -P 1 -i 0.3 -o "$tmp/ph.txt" -- sh -c \
		"embm-bench -b 8M@$cpu_node; sleep 1.5; embm-bench -b 8M@$study" >/dev/null 2>&1
	# The first line where node $1 has 90% or more of the tick's pages.
	over90() {
		grep -n -e "^t=.* \*\{0,1\}n$1 [a-z]* 9[0-9]\.[0-9]%" \
			-e "^t=.* \*\{0,1\}n$1 [a-z]* 100\.0%" "$tmp/ph.txt" |
			head -n 1 | cut -d: -f1
	}
	first_a=$(over90 "$cpu_node")
	first_b=$(over90 "$study")
	grep '^t=' "$tmp/ph.txt" | sed 's/^/# /'
	ktap_print_msg "node $cpu_node over 90% first at line ${first_a:-none}," \
		"node $study at line ${first_b:-none}"
	check "ticks in time: node $cpu_node's phase before node $study's" sh -c \
		"[ -n '$first_a' ] && [ -n '$first_b' ] && [ '$first_a' -lt '$first_b' ]"
fi

# 24: -j -i writes JSON Lines: each line one object, a tick each, the
# final report last (on one line too, with the residency); the ticks'
# samples add up to the report's.
embm-run -S swfault -P 1 -j -i 0.5 -o "$tmp/jl.json" -- \
	embm-bench -d 2 -b 2M@"$study" >/dev/null 2>&1
rc=$?
lines=$(wc -l <"$tmp/jl.json")
objs=$(grep -c '^{.*}$' "$tmp/jl.json")
ticks=$(grep -c '^{"tick": [0-9]*, "end": ' "$tmp/jl.json")
sum=$(sed -n 's/^{"tick": .*"span_ms": [0-9]*, "samples": \([0-9]*\),.*/\1/p' "$tmp/jl.json" |
	awk '{ s += $1 } END { print s + 0 }')
final=$(sed -n '$s/.*"elapsed_ms": [0-9]*, *"samples": \([0-9]*\), "attributed".*/\1/p' \
	"$tmp/jl.json")
ktap_print_msg "JSON Lines: $lines lines, $objs objects, $ticks ticks;" \
	"ticks' samples $sum, the report's $final"
check "-j -i: JSON Lines, a tick a line, the report last on one line" sh -c \
	"[ $rc = 0 ] && [ $lines = $objs ] && [ $ticks -ge 4 ] && [ $lines = \$(($ticks + 1)) ] &&
	 tail -n 1 '$tmp/jl.json' |
		grep -q '^{\"version\": .*\"tool\": \"embm-run\".*\"residency\": {' &&
	 grep '^{\"tick\"' '$tmp/jl.json' | tail -n 1 | grep -q '\"end\": true' &&
	 [ -n '$final' ] && [ '$sum' = '$final' ]"

# 25: the resident pages per node, beside the traffic: at least the pages
# embm-bench bound to each node (numa_maps read while it runs; its own
# code and stack add some on the node it runs on), for a command and for
# --pid; and a line in the text report.
embm-run -S swfault -P 1 -j -o "$tmp/res.json" -- embm-bench -d 3 -b 8M@"$study" \
	-b 4M@"$cpu_node" -j -o "$tmp/resb.json" >/dev/null 2>&1
rc=$?
embm-bench -d 6 -b 6M@"$study" >/dev/null 2>&1 &
bp=$!
sleep 2
embm-run -S swfault -p $bp -d 1 -o "$tmp/resp.txt" >/dev/null 2>&1
rcp=$?
wait $bp
good=1
res_node() {
	pat="s/.*\"residency\": {.*{\"node\": $2, \"resident_pages\": \([0-9]*\), "
	sed -n "$pat\"anon_pages\": \([0-9]*\).*/\1 \2/p" "$1"
}
for nd in $study $cpu_node; do
	truth=$(json_node "$tmp/resb.json" "$nd" pages)
	set -- $(res_node "$tmp/res.json" "$nd")
	ktap_print_msg "node $nd: embm-bench bound $truth pages; resident ${1:-?} (anon ${2:-?})"
	[ -n "$truth" ] && [ -n "${2:-}" ] && [ "$2" -ge "$truth" ] || good=0
done
sed -n '/^resident pages per node/,/^$/p' "$tmp/resp.txt" | sed 's/^/# /'
got=$(sed -n '/^resident pages per node (process/,/^$/p' "$tmp/resp.txt" |
	awk -v n="$study" '($1 == n || ($1 == "*" && $2 == n)) { print ($1 == "*") ? $6 : $5 }')
ktap_print_msg "--pid: node $study: ${got:-?} anonymous pages resident, 1536 bound"
check "resident pages per node: at least embm-bench's buffers, command and --pid" sh -c \
	"[ $rc = 0 ] && [ $rcp = 0 ] && [ $good = 1 ] && [ ${got:-0} -ge 1536 ]"

# 26: --plot: a PNG (its magic, some KiB) and the data file beside it,
# whose last tick's shares since the start are /proc/embm/nodes's; a tick
# a second without -i; no temporary file left.  Needs gnuplot in the guest
# (scripts/embm test adds it to the embm-y boot).
if ! command -v gnuplot >/dev/null; then
	ktap_test_skip "--plot: no gnuplot in this guest (scripts/embm run --add it)"
else
embm-run -S swfault -P 1 --plot "$tmp/p.png" -- \
	embm-bench -d 2 -b 4M@"$study" -b 2M@"$cpu_node" >/dev/null 2>"$tmp/perr"
rc=$?
magic=$(head -c 8 "$tmp/p.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
size=$(wc -c <"$tmp/p.png" 2>/dev/null)
rows=$(awk '/^$/ { exit } !/^#/ { n++ } END { print n + 0 }' "$tmp/p.dat" 2>/dev/null)
same=$(awk 'FNR == NR { if (/^# t_s/) for (i = 3; i <= NF; i++) col[$i] = i - 1
			else if (/^$/) done = 1
			else if (!/^#/ && !done) for (i = 1; i <= NF; i++) last[i] = $i
			next }
	    FNR > 2 { c = col["n" $1 "_" $2 "_total"]; n++
		      if (!c || last[c] != $4) {
			      bad = 1; print "# node " $1 ": " last[c] " vs " $4 } }
	    END { print (bad || !n) ? "no" : "yes" }' "$tmp/p.dat" /proc/embm/nodes)
ktap_print_msg "--plot: png magic $magic, $size bytes; $rows ticks in p.dat;" \
	"final shares as /proc/embm/nodes: $same"
sed 's/^/# /' "$tmp/perr"
check "--plot writes a PNG, and the data's final shares are /proc/embm's" sh -c \
	"[ $rc = 0 ] && [ '$magic' = 89504e470d0a1a0a ] && [ ${size:-0} -gt 4096 ] &&
	 [ ${rows:-0} -ge 2 ] && [ '$same' = yes ] && ! ls '$tmp'/p.png.tmp.* >/dev/null 2>&1"
fi

# 27: bad input: unknown or conflicting options exit 2 naming the option; a
# PNG that cannot be written fails (1) before the command runs, and naming
# the path; gnuplot failing leaves no PNG and no temporary file.
bad=0
usage "--cumulative" embm-run -C -- true
usage "--plot" embm-run --plot
usage "--interval" embm-run -i x -- true
usage "--bogus-plot" embm-run --bogus-plot x.png -- true
rm -f "$tmp/ran"
# A gnuplot that fails: the paths are checked first, and with no gnuplot in
# the guest (the debug boot) the checks still reach them.
mkdir -p "$tmp/fakebin"
printf '#!/bin/sh\ncat >/dev/null\nexit 3\n' >"$tmp/fakebin/gnuplot"
chmod +x "$tmp/fakebin/gnuplot"
PATH="$tmp/fakebin:$PATH" embm-run --plot /nonexistent/dir/p.png -- touch "$tmp/ran" \
	>/dev/null 2>"$tmp/unw"
a=$?
PATH="$tmp/fakebin:$PATH" embm-run --plot "$tmp" -- touch "$tmp/ran" >/dev/null 2>>"$tmp/unw"
b=$?
PATH="$tmp/fakebin:$PATH" embm-run --plot "$tmp/f.png" -- true >/dev/null 2>>"$tmp/unw"
c=$?
sed 's/^/# /' "$tmp/unw"
ktap_print_msg "unwritable: exit $a, a directory: exit $b, gnuplot failing: exit $c"
check "bad options exit 2 named; an unwritable PNG fails before the command; nothing half-written" \
	sh -c "[ $bad = 0 ] && [ '$a $b $c' = '1 1 1' ] && [ ! -e '$tmp/ran' ] &&
	       grep -q '^embm-run: --plot: cannot write /nonexistent/dir/p.png' '$tmp/unw' &&
	       grep -q '^embm-run: --plot: $tmp is a directory' '$tmp/unw' &&
	       grep -q '^embm-run: --plot: gnuplot failed' '$tmp/unw' &&
	       [ ! -e '$tmp/f.png' ] && ! ls '$tmp'/f.png.tmp.* '$tmp'/f.dat.tmp.* >/dev/null 2>&1"

ktap_finished
