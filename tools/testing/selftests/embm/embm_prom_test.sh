#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# embm-stat --prometheus FILE: the node_exporter textfile it writes is
# accepted by Debian's promtool ("promtool check metrics", where the
# guest has it: scripts/embm run --add it), and every value in it equals
# /proc/embm's, read here with awk by the column names of nodes and the
# keys of status, not through the tools' reader.  Refreshes rewrite the
# file and leave no temporary file; a path that cannot be written fails
# (exit 1, the path named) before /proc/embm is read; conflicting,
# unknown or missing options are bad usage (exit 2, the option named).
#
# Needs root, embm and the tools on PATH; POSIX sh (busybox will do).

DIR=$(dirname "$0")
# Installed as kselftest lays it out: DIR/../kselftest/ktap_helpers.sh.
. "$DIR/../kselftest/ktap_helpers.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# check NAME CMD...: ok if CMD succeeds.
check() {
	name=$1
	shift
	if "$@"; then ktap_test_pass "$name"; else ktap_test_fail "$name"; fi
}

# Nothing in $tmp/$1 but the files named after it.
only() {
	d=$1
	shift
	[ "$(ls -A "$tmp/$d" | tr '\n' ' ')" = "$* " ]
}

ktap_print_header
if [ ! -r /proc/embm/status ] || ! command -v embm-stat >/dev/null ||
   ! command -v embm-run >/dev/null || ! command -v embm-bench >/dev/null; then
	ktap_skip_all "no embm in this kernel, or no embm tools on PATH"
	exit "$KSFT_SKIP"
fi
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "needs root"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 7

nodes=$(awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
	for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) printf "%d ", j } }' \
	/sys/devices/system/node/has_memory)
bufs=""
for nd in $nodes; do
	bufs="$bufs -b 1M@$nd"
done
last=$(echo $nodes | awk '{ print $NF }')
# A session that has ended: /proc/embm holds still while it is compared.
embm-run -n "$last" -- embm-bench -p rmw -r 3 $bufs >/dev/null 2>&1
mkdir "$tmp/d"

# 1: written once, atomically: the file and nothing else
embm-stat -1 --prometheus "$tmp/d/embm.prom" >"$tmp/out" 2>"$tmp/err"
rc=$?
only d embm.prom && o=1 || o=0
check "--once writes FILE, nothing on stdout, no temporary file left (exit $rc)" sh -c \
	"[ $rc = 0 ] && [ -s '$tmp/d/embm.prom' ] && [ ! -s '$tmp/out' ] && [ $o = 1 ]"

# 2: promtool accepts it
if command -v promtool >/dev/null; then
	promtool check metrics <"$tmp/d/embm.prom" >"$tmp/lint" 2>&1
	rc=$?
	sed 's/^/# promtool: /' "$tmp/lint"
	check "promtool check metrics accepts it (exit $rc, no lint)" sh -c \
		"[ $rc = 0 ] && [ ! -s '$tmp/lint' ]"
else
	ktap_test_skip "promtool is not in this guest (scripts/embm run --add /usr/bin/promtool)"
fi

# 3: each value equals /proc/embm's
awk -v prom="$tmp/d/embm.prom" '
	function num(a, b) { return (a - b < 1e-9 && b - a < 1e-9) }
	function want(name, labels, v,    k) {
		k = labels == "" ? name : name "{" labels "}"
		compared++
		if (!(k in got)) { print "# missing: " k " (want " v ")"; bad++; return }
		if (!num(got[k], v)) { print "# " k " = " got[k] ", /proc/embm says " v; bad++ }
	}
	BEGIN {
		while ((getline line < prom) > 0) {
			if (line ~ /^#/) continue
			n = split(line, f, " ")
			got[f[1]] = f[2]
		}
	}
	FILENAME ~ /status$/ && NF >= 2 { st[$1] = $2 }
	FILENAME ~ /nodes$/ && FNR == 2 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	FILENAME ~ /nodes$/ && FNR > 2 {
		src = st["source"]
		l = "node=\"" $col["node"] "\",tier=\"" $col["tier"] "\",source=\"" src "\""
		want("embm_samples_total", l, $col["samples"])
		want("embm_share_ratio", l, $col["share_pct"] / 100)
		want("embm_share_lo_ratio", l, $col["share_lo_pct"] / 100)
		want("embm_share_hi_ratio", l, $col["share_hi_pct"] / 100)
		want("embm_user_samples_total", l, $col["user_samples"])
		want("embm_kernel_samples_total", l, $col["kernel_samples"])
		est = st["accesses_unit"] == "pages" ? "embm_pages_total" : "embm_accesses_total"
		if ("accesses" in col)
			want(est, l, $col["accesses"])
		if ("pages" in col)
			want("embm_distinct_pages", l, $col["pages"])
		if ("cxl_samples" in col)
			want("embm_cxl_samples_total", l, $col["cxl_samples"])
		if ("loads" in col) {
			want("embm_load_samples_total", l, $col["loads"])
			want("embm_store_samples_total", l, $col["stores"])
		}
		if ("lat_samples" in col) {
			want("embm_latency_samples_total", l, $col["lat_samples"])
			if ($col["lat_samples"] > 0)
				want("embm_latency_mean_cycles", l, $col["lat_mean_cycles"])
		}
		if ("memory" in col) {
			want("embm_cache_samples_total", l, $col["cache"])
			want("embm_memory_samples_total", l, $col["memory"])
		}
		rows++
	}
	END {
		s = "source=\"" st["source"] "\""
		want("embm_session_samples_total", s, st["samples"])
		want("embm_session_attributed_samples_total", s, st["attributed"])
		want("embm_lost_samples_total", s, st["lost"])
		want("embm_no_address_samples_total", s, st["no_phys"] + st["bad_pfn"])
		want("embm_ksamplingd_cpu_seconds_total", s, st["ksamplingd_cpu_ms"] / 1000)
		want("embm_session_elapsed_seconds", s, st["elapsed_ms"] / 1000)
		want("embm_sample_period", s, st["period"])
		want("embm_session_target", "", st["target"])
		want("embm_session_running", "", 0)
		print "# " rows " nodes, " compared " values compared, " bad + 0 " differ"
		exit !(rows > 0 && bad == 0)
	}' /proc/embm/status /proc/embm/nodes >"$tmp/cmp"
rc=$?
cat "$tmp/cmp"
check "every value equals /proc/embm's" [ $rc = 0 ]

# 4: the matrix, cell by cell
awk -v prom="$tmp/d/embm.prom" '
	BEGIN {
		while ((getline line < prom) > 0)
			if (line ~ /^embm_cpu_node_(accesses|pages)_total\{/) {
				split(line, f, " ")
				c = f[1]
				sub(/.*cpu_node="/, "", c); r = c; sub(/".*/, "", r)
				sub(/.*",node="/, "", c); sub(/".*/, "", c)
				got[r " " c] = f[2]
			}
	}
	FNR == 2 { for (i = 2; i <= NF; i++) { m = $i; sub(/^mem/, "", m); mem[i] = m }; next }
	FNR > 2 {
		for (i = 2; i <= NF; i++) {
			n++
			if (got[$1 " " mem[i]] != $i) {
				k = $1 " " mem[i]
				print "# cpu_node " $1 " node " mem[i] ": " got[k] " != " $i
				bad++
			}
		}
	}
	END { print "# " n " cells compared"; exit !(n > 0 && bad == 0) }' \
	/proc/embm/matrix >"$tmp/mx"
rc=$?
cat "$tmp/mx"
check "the matrix equals /proc/embm/matrix" [ $rc = 0 ]

# 5: refreshes rewrite the file (a running session shows as running) and
# leave no temporary file, also when stopped by SIGTERM
mkdir "$tmp/r"
embm-run -s -d 3 >/dev/null 2>&1 &
bg=$!
sleep 1
embm-stat -i 0.2 -c 3 --prometheus "$tmp/r/a.prom" 2>"$tmp/err"
a=$?
embm-stat -i 0.2 --prometheus "$tmp/r/b.prom" 2>>"$tmp/err" &
st=$!
sleep 1
kill -TERM $st
wait $st
b=$?
wait $bg
only r a.prom b.prom && o=1 || o=0
check "refreshes: -c 3 and SIGTERM exit 0 ($a, $b), running shown, no temporary file" sh -c \
	"[ '$a $b' = '0 0' ] && grep -qx 'embm_session_running 1' '$tmp/r/a.prom' &&
	 grep -q 'embm_session_info{state=\"running\"' '$tmp/r/b.prom' && [ $o = 1 ]"

# 6: a path that cannot be written: exit 1, the path named, before
# /proc/embm (here a missing -D directory) is read, nothing created
touch "$tmp/file"
bad=0
for p in "$tmp/none/x.prom" "$tmp/file/x.prom" "$tmp/r"; do
	embm-stat -1 -D "$tmp/no-such-dir" --prometheus "$p" >/dev/null 2>"$tmp/err"
	rc=$?
	ktap_print_msg "$p: exit $rc: $(cat "$tmp/err")"
	[ $rc = 1 ] && grep -q "^embm-stat: --prometheus: .*$p" "$tmp/err" &&
		! grep -q no-such-dir "$tmp/err" || bad=1
done
only r a.prom b.prom || bad=1
check "an unwritable path fails first, with exit 1 and the path named" sh -c \
	"[ $bad = 0 ] && [ ! -e '$tmp/none' ]"

# 7: bad usage: exit 2, the option named
bad=0
usage() {
	opt=$1
	shift
	embm-stat "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	ktap_print_msg "embm-stat $*: exit $rc: $(head -n 1 "$tmp/err")"
	[ $rc = 2 ] && head -n 1 "$tmp/err" | grep -q -e "$opt" || bad=1
}
usage "--json" --prometheus "$tmp/x.prom" -j
usage "--output" -o "$tmp/o" --prometheus "$tmp/x.prom"
usage "--top" --prometheus "$tmp/x.prom" -t 3
usage "--prometheus-file" --prometheus-file "$tmp/x.prom"
usage "--prometheus" --prometheus
usage "extra" -1 extra
check "bad usage: exit 2, the option named, nothing written" sh -c \
	"[ $bad = 0 ] && [ ! -e '$tmp/x.prom' ] && [ ! -e '$tmp/o' ]"

ktap_finished
