# SPDX-License-Identifier: GPL-2.0
# embm: 'scripts/embm bench', what embm costs a workload against perf
# record, measured in one boot of the guest (TCG, no PMU: the swfault
# source and perf's minor-faults software event).  Sourced, not run.

bench_usage() {
	cat <<'TXT'
usage: scripts/embm bench [--rounds N] [--size SIZE] [--node N]
                          [--periods "P ..."] [--sessions N] [--out DIR] [--quick]

Boots the y kernel once and runs embm-bench (SIZE bytes on NODE, one
first touch a page, pinned to one CPU) alone, under DAMON monitoring
NODE's physical addresses (sysfs, default intervals), and per period P
under embm-run -S swfault -P P and under perf record -B -e minor-faults
-c P -d --phys-data (at period 1 also without --phys-data, perf-addr,
and without -d, perf-ip: what each part of a record costs), N rounds,
the order turning each round.
Prints per mode and period the workload's time per first touch (min,
median, max over the rounds), its slowdown against the workload alone,
embm's against perf's, samples per fault, the sampler's CPU per sample
and per run (kdamond's for DAMON), and samples lost; then what a sample
costs each sampler (least-squares fits over the periods), the samples a
second at which each loses samples (period 1, 1 to all CPUs' threads),
the memory of a session of each, and the time of embm_start() and
embm_end() (N sessions).  Writes the tables, the raw runs and a plot
(bench.png, gnuplot) to DIR (default build/bench).  Fails when a
sampler's samples are not within 10% of faults / period, or a figure is
missing.  Defaults: 7 rounds, 256M on node 2, periods "1 16 256", 50
sessions.
--quick: 1 round of 8M, periods "1 16", 5 sessions (the smoke 'scripts/embm
test' runs).
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
			if (pl[i] == 1 && (runs["perf-ip 1"] != rounds ||
					   runs["perf-addr 1"] != rounds)) {
				printf "period 1: %d perf-ip and %d perf-addr runs of %d\n",
					runs["perf-ip 1"], runs["perf-addr 1"], rounds
				bad = 1
			}
		}
		base = median(us["alone 0"])
		printf "%-9s %6s %8s %8s %8s %9s %9s %9s %11s %9s %8s\n", "mode", "period",
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
			printf "%-9s %6s %8.2f %8.2f %8.2f %8.1f%% %9s %9.4f %11s %9.1f %8d\n",
				f[1], f[2], mn, m[k], mx, (m[k] / base - 1) * 100, vs,
				samples[k] / faults[k],
				samples[k] ? sprintf("%.2f", cpu[k] * 1000 / samples[k]) : "-",
				cpu[k] / runs[k], lost[k]
			# The period must hold: samples within 10% of faults / period.
			if (f[1] == "embm" || f[1] ~ /^perf/) {
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
	local rounds=7 size=256M node=2 periods="1 16 256" sessions=50 out=$EMBM_BUILD/bench
	local adds=() a list
	while [ $# -gt 0 ]; do
		case $1 in
		--rounds|--size|--node|--periods|--sessions|--out)
			[ $# -ge 2 ] || { bench_usage >&2; return 2; } ;;&
		--rounds) rounds=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--node) node=$2; shift 2 ;;
		--periods) periods=$2; shift 2 ;;
		--sessions) sessions=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--quick) rounds=1; size=8M; periods="1 16"; sessions=5; shift ;;
		-h|--help) bench_usage; return 0 ;;
		*) bench_usage >&2; return 2 ;;
		esac
	done
	command -v gnuplot >/dev/null || die "gnuplot missing; run 'scripts/embm deps'"
	list=$(bench_perf_adds) || return 1
	for a in $list; do
		adds+=(--add "$a")
	done
	mkdir -p "$out"
	log "bench: $rounds round(s), $size on node $node, periods $periods (TCG, no PMU)"
	# shellcheck disable=SC2086
	run_guest 0 "${adds[@]}" --timeout 1800 --log "$out/console.log" -- \
		bench-guest "$rounds" "$size" "$node" "$sessions" "$(nproc)" $periods \
		>"$out/raw.txt" 2>"$out/err.txt" ||
		{ cat "$out/err.txt" >&2; tail -n 20 "$out/console.log" >&2; log "bench run failed"; return 1; }
	grep '^bench ' "$out/raw.txt" >"$out/runs.txt"
	{
		echo "embm bench $(date -u +%Y-%m-%dT%H:%MZ): $rounds round(s), embm-bench -b $size@$node"
		echo "(first touches of 4 KiB pages, TCG guest; us per fault; slowdown against the"
		echo "workload alone; vs_perf = embm's slowdown / perf record's at the same period,"
		echo "n/a unless both are above the workload alone)"
		bench_table "$rounds" "$periods" <"$out/runs.txt" &&
			echo && bench_fits <"$out/runs.txt" &&
			echo && bench_extra <"$out/raw.txt"
	} | tee "$out/results.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || return 1
	bench_plot "$out"
}

# bench_fits: what a sample costs each sampler, from the "bench" lines:
# the workload's time per fault against samples per fault (the median of
# each period, and the workload alone at 0), and the sampler's CPU a run
# against its samples (every run), fitted by least squares.
bench_fits() {
	awk '
	function median(list,    n, a, i, j, t) {
		n = split(list, a, " ")
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# Least squares of y on x over n points; sets slope and icept.
	function fit(n, x, y,    i, sx, sy, sxx, sxy, d) {
		for (i = 1; i <= n; i++) {
			sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i]
		}
		d = n * sxx - sx * sx
		slope = d ? (n * sxy - sx * sy) / d : 0
		icept = (sy - slope * sx) / n
	}
	$1 == "bench" {
		k = $2 " " $3
		us[k] = us[k] " " $5 * 1000 / $7
		fpr[k] += $8 / $7; nr[k]++
		if ($2 == "embm" || $2 == "perf") {
			n = ++pts[$2]; cx[$2, n] = $8; cy[$2, n] = $9
		}
	}
	END {
		base = median(us["alone 0"])
		printf "%-6s %12s %12s %12s\n", "mode", "wl_us/smp", "cpu_us/smp", "cpu_ms/run0"
		for (mi = 1; mi <= 2; mi++) {
			mode = mi == 1 ? "embm" : "perf"
			n = 1; delete x; delete y; x[1] = 0; y[1] = base
			for (k in us) {
				split(k, f, " ")
				if (f[1] != mode) continue
				n++; x[n] = fpr[k] / nr[k]; y[n] = median(us[k])
			}
			fit(n, x, y); wl[mode] = slope
			delete x; delete y
			for (i = 1; i <= pts[mode]; i++) { x[i] = cx[mode, i]; y[i] = cy[mode, i] }
			fit(pts[mode], x, y)
			printf "%-6s %12.2f %12.2f %12.1f\n", mode, wl[mode], slope * 1000, icept
		}
		if (wl["perf"] > 0)
			printf "embm/perf, workload time a sample: %.2f\n", wl["embm"] / wl["perf"]
		# Period 1: what each part of a perf record adds, by median.
		if (("perf-ip 1" in us) && ("perf-addr 1" in us) && ("perf 1" in us) && ("embm 1" in us)) {
			ip = median(us["perf-ip 1"]); ad = median(us["perf-addr 1"])
			ph = median(us["perf 1"]); em = median(us["embm 1"])
			printf "period 1, us a fault over the workload alone: perf record of IP,TID,TIME %.2f;\n", ip - base
			printf "  +ADDR,DATA_SRC (-d) %+.2f; +PHYS_ADDR (--phys-data) %+.2f: perf %.2f; embm %.2f\n",
				ad - ip, ph - ad, ph - base, em - base
		}
	}'
}

# bench_extra: the loss sweep, the memory and the session times, from
# the "loss", "mem" and "sessions" lines.  Fails on a missing figure.
bench_extra() {
	awk '
	$1 == "loss" && NF == 7 {
		# The threads first-touch together: their summed time / threads.
		rate = $5 > 0 ? $4 / ($5 / $3 / 1000) : 0
		if (!nl++)
			printf "%-9s %7s %9s %12s %9s %8s\n", "mode", "threads", "faults",
				"faults/s", "smp/flt", "lost"
		printf "%-9s %7d %9d %12.0f %9.4f %8d\n", $2, $3, $4, rate, $6 / $4, $7
		# A loss: one said (perf: LOST records, each for one or more
		# samples), or samples missing (throttling, or unsaid).
		lossy = $7 > 0 || $6 < 0.99 * $4
		seen[$2] = 1
		if (!lossy && rate > safe[$2]) safe[$2] = rate
		if (lossy && (!($2 in onset) || rate < onset[$2])) onset[$2] = rate
		next
	}
	$1 == "loss" { print "bad run: " $0; bad = 1; next }
	$1 == "mem" && NF == 6 && $3 >= 0 {
		if (!nm++) {
			print ""
			printf "%-6s %10s %10s %10s %10s\n", "mode", "ring_KiB", "queue_KiB",
				"table_KiB", "rss_KiB"
		}
		printf "%-6s %10.0f %10.0f %10.0f %10d\n", $2, $3 / 1024, $4 / 1024, $5 / 1024, $6
		next
	}
	$1 == "mem" { print "bad run: " $0; bad = 1; next }
	$1 == "sessions" && NF == 8 {
		print ""
		printf "%-12s %10s %10s %10s   (us, %d CPUs)\n", "call", "min", "median", "max", $2
		printf "%-12s %10.1f %10.1f %10.1f\n", "embm_start", $3, $4, $5
		printf "%-12s %10.1f %10.1f %10.1f\n", "embm_end", $6, $7, $8
		ns++
		next
	}
	$1 == "sessions" { print "bad run: " $0; bad = 1; next }
	END {
		if (!nl || nm != 2 || ns != 1) { print "missing loss, mem or sessions lines"; exit 1 }
		print ""
		split("embm perf embm-zero perf-zero", modes, " ")
		for (mi = 1; mi <= 4; mi++) {
			m = modes[mi]
			if (!(m in seen)) { printf "%s: no loss runs\n", m; bad = 1; continue }
			if (!(m in safe))
				printf "%s: losses at every rate, from %.0f faults/s\n", m, onset[m]
			else
				printf "%s: no loss up to %.0f faults/s%s\n", m, safe[m],
					m in onset ? sprintf(", losses from %.0f", onset[m]) : \
					" (the most this guest made)"
		}
		exit bad
	}'
}

# bench_plot DIR: DIR/bench.png, time per fault by period for embm and
# perf (median, min to max), the workload alone and under DAMON as lines.
bench_plot() {
	local out=$1
	awk '$1 == "bench" { print $2, $3, $5 * 1000 / $7 }' "$out/runs.txt" |
		LC_ALL=C sort -k1,1 -k2n -k3n |
		awk '
		{ k = $1 " " $2; v[k] = v[k] " " $3; if (!(k in s)) { s[k] = 1; o[++n] = k } }
		END {
			for (i = 1; i <= n; i++) {
				c = split(v[o[i]], a, " ")
				print o[i], a[1], (c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2), a[c]
			}
		}' >"$out/plot.dat"
	local alone damon lines
	alone=$(awk '$1 == "alone" { print $4 }' "$out/plot.dat")
	damon=$(awk '$1 == "damon" { print $4 }' "$out/plot.dat")
	lines="${alone:-0} with lines dashtype 2 title 'alone (median)'"
	[ -z "$damon" ] || lines="$lines, $damon with lines dashtype 3 title 'DAMON (median)'"
	awk '$1 == "embm"' "$out/plot.dat" >"$out/plot-embm.dat"
	awk '$1 == "perf"' "$out/plot.dat" >"$out/plot-perf.dat"
	gnuplot <<GP || { log "bench: gnuplot failed"; return 1; }
set terminal pngcairo size 800,500
set output '$out/bench.png'
set title 'First touch of a 4 KiB page under a sampler (TCG guest; median, min to max)'
set xlabel 'sample period (faults a sample)'
set ylabel 'us per fault'
set logscale x 2
set xrange [0.5:512]
set key top right
plot '$out/plot-embm.dat' using 2:4:3:5 with yerrorlines title 'embm', \\
     '$out/plot-perf.dat' using (column(2) * 1.1):4:3:5 with yerrorlines title 'perf record', \\
     $lines
GP
	[ -s "$out/bench.png" ] || { log "bench: no plot"; return 1; }
	log "bench: $out/results.txt, $out/bench.png"
}
