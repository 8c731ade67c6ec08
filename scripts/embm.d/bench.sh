# SPDX-License-Identifier: GPL-2.0
# embm: 'scripts/embm bench', what embm costs a workload against perf
# record, measured in one boot of the guest (TCG, no PMU: the swfault
# source and perf's minor-faults software event).  Sourced, not run.

bench_usage() {
	cat <<'TXT'
usage: scripts/embm bench [--rounds N] [--size SIZE] [--node N]
                          [--periods "P ..."] [--out DIR] [--quick]

Boots the y kernel once and runs embm-bench (SIZE bytes on NODE, one
first touch a page) alone, under DAMON monitoring NODE's physical
addresses (sysfs, default intervals), and per period P under embm-run -S
swfault -P P and under perf record -B -e minor-faults -c P -d
--phys-data, interleaved, N rounds.
Prints per mode and period the workload's time per first touch (min,
median, max over the rounds), its slowdown against the workload alone,
embm's against perf's, samples per fault, the sampler's CPU per sample
and per run (kdamond's for DAMON), and samples lost; writes the table and the raw runs to DIR (default
build/bench).  Fails when a sampler's samples are not within 10% of
faults / period.  Defaults: 5 rounds, 64M on node 2, periods "1 16 256".
--quick: 1 round of 8M, periods "1 16" (the smoke 'scripts/embm test' runs).
TXT
}

# Debian's perf and every library it loads, as --add arguments of run.
bench_perf_adds() {
	local perf lib
	perf=$(command -v perf) || die "perf missing; run 'scripts/embm deps'"
	! ldd "$perf" | grep 'not found' || die "$perf: a library is missing"
	echo "$perf:/usr/bin/perf"
	for lib in $(ldd "$perf" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'); do
		echo "$(readlink -f "$lib"):$lib"
	done
}

# bench_table [ROUNDS PERIODS]: the table, from the raw "bench ..." lines
# on stdin.  Per-fault times in microseconds; ratios of medians.  Fails on
# a run with a missing figure, and with ROUNDS and PERIODS when a mode
# lacks runs.
bench_table() {
	awk -v rounds="${1:-0}" -v periods="${2:-}" '
	function median(list,    n, a, i, j, t) {
		n = split(list, a, " ")
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		lo = a[1]; hi = a[n]
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == "bench" && (NF != 10 || $5 < 0 || $7 <= 0 || $8 < 0 || $9 < 0) {
		print "bad run: " $0; bad = 1; next
	}
	$1 == "bench" {
		k = $2 " " $3
		us[k] = us[k] " " $5 * 1000 / $7
		faults[k] += $7; samples[k] += $8; cpu[k] += $9; lost[k] += $10; runs[k]++
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	}
	END {
		if (!("alone 0" in us)) { print "no run of the workload alone"; exit 1 }
		# Every mode and period of the run, every round (when told).
		n = split(periods, pl, " ")
		for (i = 1; rounds && i <= n; i++) {
			if (runs["embm " pl[i]] != rounds || runs["perf " pl[i]] != rounds) {
				printf "period %s: %d embm and %d perf runs of %d\n", pl[i],
					runs["embm " pl[i]], runs["perf " pl[i]], rounds
				bad = 1
			}
		}
		base = median(us["alone 0"])
		printf "%-6s %6s %8s %8s %8s %9s %9s %9s %11s %9s %8s\n", "mode", "period",
			"min_us", "med_us", "max_us", "slowdown", "vs_perf", "smp/flt",
			"cpu_us/smp", "cpu_ms/run", "lost"
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, f, " ")
			m[k] = median(us[k]); mn = lo; mx = hi
			other = (f[1] == "embm" ? "perf " : "") f[2]
			vs = "-"
			# Only when both slowed the workload down: noise otherwise.
			if (f[1] == "embm" && (other in us)) {
				po = median(us[other]) - base
				vs = m[k] > base && po > 0 ? sprintf("%.2f", (m[k] - base) / po) : "n/a"
			}
			printf "%-6s %6s %8.2f %8.2f %8.2f %8.1f%% %9s %9.4f %11s %9.1f %8d\n",
				f[1], f[2], mn, m[k], mx, (m[k] / base - 1) * 100, vs,
				samples[k] / faults[k],
				samples[k] ? sprintf("%.2f", cpu[k] * 1000 / samples[k]) : "-",
				cpu[k] / runs[k], lost[k]
			# The period must hold: samples within 10% of faults / period.
			if (f[1] == "embm" || f[1] == "perf") {
				r = samples[k] * f[2] / faults[k]
				if (r < 0.9 || r > 1.1) {
					printf "%s at period %s: %.3f of faults / period sampled\n", \
						f[1], f[2], r
					bad = 1
				}
			}
		}
		exit bad
	}'
}

cmd_bench() {
	case ${1:-} in -h|--help) bench_usage; return 0 ;; esac
	cmd_deps
	cmd_build y || die "build failed"
	bench_run "$@"
}

# The bench on the y kernel as built (the smoke 'scripts/embm test' runs).
bench_run() {
	local rounds=5 size=64M node=2 periods="1 16 256" out=$EMBM_BUILD/bench adds=() a list
	while [ $# -gt 0 ]; do
		case $1 in
		--rounds|--size|--node|--periods|--out)
			[ $# -ge 2 ] || { bench_usage >&2; return 2; } ;;&
		--rounds) rounds=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--node) node=$2; shift 2 ;;
		--periods) periods=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--quick) rounds=1; size=8M; periods="1 16"; shift ;;
		-h|--help) bench_usage; return 0 ;;
		*) bench_usage >&2; return 2 ;;
		esac
	done
	list=$(bench_perf_adds) || return 1
	for a in $list; do
		adds+=(--add "$a")
	done
	mkdir -p "$out"
	log "bench: $rounds round(s), $size on node $node, periods $periods (TCG, no PMU)"
	# shellcheck disable=SC2086
	run_guest 0 "${adds[@]}" --timeout 1800 --log "$out/console.log" -- \
		bench-guest "$rounds" "$size" "$node" $periods >"$out/raw.txt" 2>"$out/err.txt" ||
		{ cat "$out/err.txt" >&2; tail -n 20 "$out/console.log" >&2; log "bench run failed"; return 1; }
	grep '^bench ' "$out/raw.txt" >"$out/runs.txt"
	{
		echo "embm bench $(date -u +%Y-%m-%dT%H:%MZ): $rounds round(s), embm-bench -b $size@$node"
		echo "(first touches of 4 KiB pages, TCG guest; us per fault; slowdown against the"
		echo "workload alone; vs_perf = embm's slowdown / perf record's at the same period,"
		echo "n/a unless both are above the workload alone)"
		bench_table "$rounds" "$periods" <"$out/runs.txt"
	} | tee "$out/results.txt"
}
