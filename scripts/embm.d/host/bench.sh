# SPDX-License-Identifier: GPL-2.0
# embm: 'scripts/embm bench', what embm costs a workload against perf
# record: on page faults (the swfault source and perf's minor-faults
# software event) in a guest booted without the embm-emu plugin, then
# what the plugin costs a workload and embm against perf record on its
# emulated PMU (embm_emu) in a guest booted with it.  Sourced, not run.

# An awk function, put in front of the programs that take medians:
# median(list), of the numbers in a space-separated list.
BENCH_AWK_MEDIAN='
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

bench_usage() {
	cat <<'TXT'
usage: scripts/embm bench [--rounds N] [--size SIZE] [--node N]
                          [--periods "P ..."] [--sessions N] [--out DIR]
                          [--emu-rounds N] [--emu-passes N]
                          [--emu-periods "L[/S] ..."] [--quick]

Boots the y kernel twice.  First without the embm-emu plugin (--no-emu):
runs embm-bench (SIZE bytes on NODE, one first touch a page, pinned to
one CPU) alone, under DAMON monitoring NODE's physical addresses (sysfs,
default intervals), and per period P under embm-run -S swfault -P P and
under perf record -B -e minor-faults -c P -d --phys-data (at period 1
also without --phys-data, perf-addr, and without -d, perf-ip: what each
part of a record costs), N rounds, the order turning each round.
Prints per mode and period the workload's time per first touch (min,
median, max over the rounds), its slowdown against the workload alone,
embm's against perf's, samples per fault, the sampler's CPU per sample
and per run (kdamond's for DAMON), and samples lost; then what a sample
costs each sampler (least-squares fits over the periods), the samples a
second at which each loses samples (period 1, 1 to all CPUs' threads),
the memory of a session of each, and the time of embm_start() and
embm_end() (N sessions).
Then, the emulated PMU: embm-bench -p rmw over 8 MiB on node 0, the
passes of --emu-passes, pinned, its own clock: at the end of the first
boot with no plugin ("none"), and in a second boot with the plugin, each
round (the order turning) with the plugin idle, counting exactly
(embm-oracle on), and per period pair L/S (loads/stores; the emu
source's own, 10007/5003, always) under embm-run -S emu (direct
samples), under embm-run -S emu-ring (the same samples as perf's
records, the path PEBS and IBS take) and under perf record of
embm_emu's load and store events at the same periods (-d --phys-data
-W).  Prints each mode's time (min, median, max), its ratio to no plugin
and to the plugin idle, per round (min, median, max), embm's against
perf's added time, and emu's against emu-ring's (what the direct samples
save); then the goals: the plugin idle at
most 1.1x no plugin, sampling at the default periods at most 1.5x
(reported, met or not); embm against perf record on the samples alone
(each over its own run at 1000000007, sampling on and no sample taken),
and the CPU each spends a sample (ksamplingd's; perf's and the
workload's less the workload's own), per round, and their goals (at
most 0.5x and 0.3x in every round; the first judged only where perf's
samples add a tenth to its run, else it is the host's noise).
In the same boot, first: embm at its default CPU budget on embm-bench -p
rmw over 4 MiB a node (1000 passes), from the emu source's default
periods and from its least (256), with the oracle counting the
workload: ksamplingd's CPU against the budget, the period's moves and
reversals (a status read every 200 ms, plotted in adapt.png), each
node's share against the oracle's; then the loss sweep: periods 65536
down to 1 (embm from 256, its least; budget off) under embm (emu and
emu-ring) and perf record on 1 MiB, 10 passes: the sample rate, samples
lost and throttle
records of each, the highest rate with neither, and the goal of no loss
up to twice perf record's lossless rate.
Writes the tables, the raw runs and plots (gnuplot: bench.png, page
faults; adapt.png, the budget's traces; emu.png, embm and perf record on
embm_emu by period: workload time and the loss sweep) to DIR (default
build/bench), the emulated PMU's ratios also to emu-ratios.txt.
Fails when a sampler's samples are not within 10% of faults / period,
embm's emu samples (taken and lost) not within 25% of perf's at the same
periods, or a figure is missing.  Defaults: 7 rounds, 256M on node 2,
periods "1 16 256", 50 sessions; emulated PMU: 7 rounds of 200 passes,
periods "10007/5003 1009 1000000007" (the last: sampling on, no sample
taken: what the plugin's instrumentation for sampling costs by itself).
--quick: 1 round of 8M, periods "1 16", 5 sessions; emulated PMU: 3
rounds of 200 passes at the default periods, the budget runs of 30
passes, the loss sweep at 4096, 256 and 16 (the smoke 'scripts/embm
test' runs: it checks that every figure is there, not the goals).
With EMBM_LOCK=FILE it holds flock FILE around its build of the y kernel.
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
	local fd=""
	cmd_deps
	# EMBM_LOCK=FILE: flock FILE around the build only (as series-build).
	[ -n "${EMBM_LOCK:-}" ] && { exec {fd}>>"$EMBM_LOCK" || die "cannot open $EMBM_LOCK"; }
	[ -n "$fd" ] && flock "$fd"
	cmd_build y || die "build failed"
	[ -n "$fd" ] && { flock -u "$fd"; exec {fd}>&-; }
	bench_run "$@"
}

# The bench on the y kernel as built (the smoke 'scripts/embm test' runs).
bench_run() {
	local rounds=7 size=256M node=2 periods="1 16 256" sessions=50 out=$EMBM_BUILD/bench
	local erounds=7 epasses=200 eperiods="1009 1000000007" apasses=1000 adds=() a list p
	local lpasses=10 lperiods="65536 16384 4096 2048 1024 512 256 64 16 4 1"
	while [ $# -gt 0 ]; do
		case $1 in
		--rounds|--size|--node|--periods|--sessions|--out|--emu-rounds|--emu-passes|--emu-periods)
			[ $# -ge 2 ] || { bench_usage >&2; return 2; } ;;&
		--rounds) rounds=$2; shift 2 ;;
		--size) size=$2; shift 2 ;;
		--node) node=$2; shift 2 ;;
		--periods) periods=$2; shift 2 ;;
		--sessions) sessions=$2; shift 2 ;;
		--out) out=$2; shift 2 ;;
		--emu-rounds) erounds=$2; shift 2 ;;
		--emu-passes) epasses=$2; shift 2 ;;
		--emu-periods) eperiods=$2; shift 2 ;;
		--quick) rounds=1; size=8M; periods="1 16"; sessions=5
			erounds=3; epasses=200; eperiods=""; apasses=30
			lperiods="4096 256 16"; shift ;;
		-h|--help) bench_usage; return 0 ;;
		*) bench_usage >&2; return 2 ;;
		esac
	done
	[[ $erounds =~ ^[1-9][0-9]*$ ]] || die "--emu-rounds: not a number of rounds: $erounds"
	[[ $epasses =~ ^[1-9][0-9]*$ ]] || die "--emu-passes: not a number of passes: $epasses"
	for p in $eperiods; do
		[[ $p =~ ^[1-9][0-9]*(/[1-9][0-9]*)?$ ]] || die "--emu-periods: not L or L/S: $p"
	done
	# The emu source's own periods always, first; the guest resolves them.
	eperiods="default $eperiods"
	command -v gnuplot >/dev/null || die "gnuplot missing; run 'scripts/embm deps'"
	list=$(bench_perf_adds) || return 1
	for a in $list; do
		adds+=(--add "$a")
	done
	mkdir -p "$out"
	rm -f "$out/raw-emu.txt" "$out/emu-runs.txt" "$out/emu-ratios.txt"
	log "bench: $rounds round(s), $size on node $node, periods $periods (TCG, page faults, no plugin)"
	# The emulated PMU's runs with no plugin last: next to the plugin's boot.
	# shellcheck disable=SC2086
	run_guest 0 --no-emu "${adds[@]}" --timeout 1800 --log "$out/console.log" -- \
		sh -c "bench-guest $rounds $size $node $sessions $(nproc) $periods &&
			bench-emu none $erounds $epasses $(nproc)" \
		>"$out/raw.txt" 2>"$out/err.txt" ||
		{ cat "$out/err.txt" >&2; tail -n 20 "$out/console.log" >&2; log "bench run failed"; return 1; }
	log "bench: emulated PMU, $erounds round(s) of $epasses passes, periods ${eperiods% } (embm-emu plugin)"
	# shellcheck disable=SC2086
	run_guest 0 "${adds[@]}" --timeout 1800 --log "$out/console-emu.log" -- \
		sh -c "bench-emu adapt $apasses $(nproc) &&
			bench-emu loss $lpasses $(nproc) $lperiods &&
			bench-emu emu $erounds $epasses $(nproc) $eperiods" \
		>"$out/raw-emu.txt" 2>"$out/err-emu.txt" ||
		{ cat "$out/err-emu.txt" >&2; tail -n 20 "$out/console-emu.log" >&2
		  log "bench run (emulated PMU) failed"; return 1; }
	grep '^bench ' "$out/raw.txt" >"$out/runs.txt"
	grep -h -e '^emubench ' -e '^emudefault ' "$out/raw.txt" "$out/raw-emu.txt" >"$out/emu-runs.txt"
	grep -h -e '^emutrace ' -e '^emushare ' -e '^emuadapt ' "$out/raw-emu.txt" >"$out/adapt.txt"
	grep -h '^emuloss ' "$out/raw-emu.txt" >"$out/loss.txt"
	{
		echo "embm bench $(date -u +%Y-%m-%dT%H:%MZ): $rounds round(s), embm-bench -b $size@$node"
		echo "(first touches of 4 KiB pages, TCG guest without the embm-emu plugin; us per"
		echo "fault; slowdown against the workload alone; vs_perf = embm's slowdown / perf"
		echo "record's at the same period, n/a unless both are above the workload alone)"
		bench_table "$rounds" "$periods" <"$out/runs.txt" &&
			echo && bench_fits <"$out/runs.txt" &&
			echo && bench_extra "$sessions" <"$out/raw.txt" &&
			echo && bench_emu_table "$erounds" "$epasses" "$eperiods" "$out/emu-ratios.txt" \
				<"$out/emu-runs.txt" &&
			echo && bench_adapt_table "$apasses" <"$out/adapt.txt" &&
			echo && bench_loss_table "$lpasses" <"$out/loss.txt"
	} | tee "$out/results.txt"
	[ "${PIPESTATUS[0]}" = 0 ] || return 1
	bench_plot "$out" && bench_adapt_plot "$out" && bench_emu_plot "$out"
}

# bench_emu_plot DIR: DIR/emu.png, on embm_emu: the workload's time over
# the plugin idle (median of the rounds) against the load period, under
# embm and under perf record (from DIR/emu-runs.txt); and the samples a
# second each took against the period in the loss sweep, the runs that
# lost or were throttled marked (from DIR/loss.txt).
bench_emu_plot() {
	local out=$1 m
	for m in embm ring perf; do
		awk -v m="$m" "$BENCH_AWK_MEDIAN"'
		$1 == "emubench" { t[$2, $3, $4] = $5; if ($2 == m) p[$3] = 1 }
		END {
			for (k in p) {
				l = ""
				for (r = 1; (("idle", "-", r) in t); r++)
					if ((m, k, r) in t) l = l " " t[m, k, r] / t["idle", "-", r]
				split(k, f, "/")
				# Sampling on, no sample taken: not a period of samples.
				if (l != "" && f[1] < 1000000000) print f[1], median(l)
			}
		}' "$out/emu-runs.txt" | sort -n >"$out/emu-$m.dat"
		awk -v m="$m" '$1 == "emuloss" && $2 == m && $4 > 0 {
			print $3, $5 / ($4 / 1000), ($6 + $7 > 0) }' "$out/loss.txt" | sort -n >"$out/loss-$m.dat"
	done
	gnuplot <<GP || { log "bench: gnuplot failed (emu.png)"; return 1; }
set terminal pngcairo size 1000,450
set output '$out/emu.png'
set termoption noenhanced
set multiplot layout 1,2 title "embm (direct samples, emu; records, emu-ring) and perf record on embm_emu (TCG)"
set logscale x 2
set xlabel "load period"
set ylabel "workload time over the plugin idle (median)"
set key top right
plot '$out/emu-embm.dat' using 1:2 with linespoints lw 2 title 'embm (emu)', \
     '$out/emu-ring.dat' using 1:2 with linespoints lw 2 title 'embm (emu-ring)', \
     '$out/emu-perf.dat' using 1:2 with linespoints lw 2 title 'perf record'
set logscale y 10
set xtics 16
set format x "%g"
set ylabel "samples a second"
set key bottom left
plot '$out/loss-embm.dat' using 1:2 with linespoints lw 2 title 'embm (emu)', \
     '$out/loss-ring.dat' using 1:2 with linespoints lw 2 title 'embm (emu-ring)', \
     '$out/loss-perf.dat' using 1:2 with linespoints lw 2 title 'perf record', \
     '$out/loss-embm.dat' using 1:(\$3 > 0 ? \$2 : 1/0) with points pt 6 ps 2 title 'embm lost or throttled', \
     '$out/loss-ring.dat' using 1:(\$3 > 0 ? \$2 : 1/0) with points pt 8 ps 2 title 'emu-ring lost or throttled', \
     '$out/loss-perf.dat' using 1:(\$3 > 0 ? \$2 : 1/0) with points pt 4 ps 2 title 'perf lost or throttled'
unset multiplot
GP
}

# bench_adapt_table PASSES: embm at its default CPU budget on the
# emulated PMU, from bench-emu adapt's "emutrace", "emushare" and
# "emuadapt" lines: per run the samples, ksamplingd's CPU against the
# budget, the period's moves and reversals (a move against the one
# before: oscillation), and each node's share against the oracle's.
# Fails when a run or a figure is missing.
bench_adapt_table() {
	awk -v passes="$1" '
	function abs(x) { return x < 0 ? -x : x }
	$1 == "emutrace" && NF == 8 {
		r = $2
		# The longest stretch at one period: settled (its first read
		# to its last).
		if (!(r in lastp) || $4 != lastp[r]) { st[r] = $3; sc[r] = $8 }
		if ($3 - st[r] > blen[r]) { blen[r] = $3 - st[r]; bcpu[r] = $8 - sc[r]; bper[r] = $4 }
		if (r in lastp && $4 != lastp[r]) {
			moves[r]++
			d = $4 > lastp[r] ? 1 : -1
			if (r in dir && d != dir[r]) rev[r]++
			dir[r] = d
		}
		lastp[r] = $4
		if ($6 > maxused[r]) maxused[r] = $6
		ticks[r]++
		next
	}
	$1 == "emushare" && NF == 7 {
		r = $2; n = ++nn[r]
		line[r, n] = sprintf("  node %-3s embm %6.2f%% [%6.2f-%6.2f]  oracle %6.2f%%  %+6.2f pp%s", $3,
			$4, $5, $6, $7, $4 - $7, ($7 < $5 || $7 > $6) ? "  (outside)" : "")
		if ($7 < 0) { print "no oracle share of node " $3 " (" r ")"; bad = 1 }
		if (abs($4 - $7) > worst[r]) worst[r] = abs($4 - $7)
		next
	}
	$1 == "emuadapt" && NF == 12 {
		r = $2; seen[r] = 1
		budget[r] = $3; cpu[r] = $4; smp[r] = $5; chg[r] = $6; ms[r] = $7; last[r] = $8
		wake[r] = $9; reads[r] = $10; readns[r] = $11; cost[r] = $12
		next
	}
	$1 ~ /^emu(trace|share|adapt)$/ { print "bad line: " $0; bad = 1 }
	END {
		printf "embm on embm_emu at its default CPU budget: embm-bench -p rmw, 4 MiB a node, %d passes,\n", passes
		print "pinned; the oracle counting the workload exactly; a status read every 200 ms"
		split("default least", runs, " ")
		for (i = 1; i <= 2; i++) {
			r = runs[i]
			if (!(r in seen) || !nn[r] || !ticks[r]) {
				printf "%s: a run, its shares or its trace missing\n", r; bad = 1; continue
			}
			printf "%s periods%s: %d samples in %.1f s, ksamplingd %d permille of a CPU (budget %d; the most its estimate said: %d),\n",
				r, r == "least" ? " (from the least, 256)" : "", smp[r], ms[r] / 1000, cpu[r],
				budget[r], maxused[r]
			printf "  the period moved %d times (%d reversals), ending at %d; %d rounds, %d count reads (the last %.1f ms),\n",
				chg[r], rev[r], last[r], wake[r], reads[r], readns[r] / 1e6
			printf "  %.1f us of drains a sample\n", cost[r] / 1000
			# Settled: the longest stretch at one period, if 2 s or more.
			settled[r] = blen[r] >= 2000 ? 1000 * bcpu[r] / blen[r] : -1
			if (settled[r] >= 0)
				printf "  settled (its longest stretch at one period, %d, %.1f s): ksamplingd %.0f permille\n",
					bper[r], blen[r] / 1000, settled[r]
			else
				printf "  not settled: no 2 s at one period\n"
			for (n = 1; n <= nn[r]; n++) print line[r, n]
			printf "  worst: %.2f pp\n", worst[r]
		}
		if ("default" in seen && "least" in seen) {
			printf "goal: ksamplingd within its budget (%d permille) once the period settled, both runs: %s and %s: %s\n",
				budget["default"],
				(settled["default"] >= 0 ? sprintf("%.0f", settled["default"]) : "unsettled"),
				(settled["least"] >= 0 ? sprintf("%.0f", settled["least"]) : "unsettled"),
				((settled["default"] >= 0 && settled["least"] >= 0 &&
				  settled["default"] <= budget["default"] &&
				  settled["least"] <= budget["least"]) ? "met" : "NOT met")
			printf "      (whole runs, the climb from the start included: %d and %d permille)\n",
				cpu["default"], cpu["least"]
			printf "goal: shares within 1 pp of the oracle at the default settings: worst %.2f pp: %s\n",
				worst["default"], worst["default"] <= 1 ? "met" : "NOT met"
			printf "goal: the period settles without oscillation: %d reversals from the least period: %s\n",
				rev["least"], rev["least"] == 0 ? "met" : "NOT met"
		}
		exit bad
	}'
}

# bench_loss_table PASSES: the period sweep on embm_emu, from bench-emu
# loss's "emuloss" lines: per mode and period the sample rate (samples a
# second of the workload's time), the samples lost and the throttle
# records; the highest rate with neither and the lowest with one.
# Fails when a mode has no run or a run a figure.
bench_loss_table() {
	awk -v passes="$1" '
	$1 == "emuloss" && NF == 7 && $4 > 0 && $5 >= 0 && $6 >= 0 && $7 >= 0 {
		m = $2; n = ++runs[m]
		rate = $5 / ($4 / 1000)
		row[m, n] = sprintf("%-5s %10d %10.0f %10d %8d %9d", m, $3, rate, $5, $6, $7)
		if ($6 > 0 || $7 > 0) {
			if (!(m in onset) || rate < onset[m]) { onset[m] = rate; onp[m] = $3 }
		} else if (rate > safe[m]) { safe[m] = rate; safep[m] = $3 }
		next
	}
	$1 == "emuloss" { print "bad run: " $0; bad = 1 }
	END {
		printf "loss onset on embm_emu: embm-bench -p rmw -b 1M@0 -r %d, pinned; embm (direct samples)\n", passes
		print "and ring (source emu-ring: perf\047s records) with the budget off (periods below 256, its"
		print "least, not run); perf record -B of the same two events"
		printf "%-5s %10s %10s %10s %8s %9s\n", "mode", "period", "samples/s", "samples", "lost", "throttles"
		split("embm ring perf", ms, " ")
		for (i = 1; i <= 3; i++) {
			m = ms[i]
			if (!runs[m]) { printf "%s: no runs\n", m; bad = 1; continue }
			for (n = 1; n <= runs[m]; n++) print row[m, n]
		}
		for (i = 1; i <= 3; i++) {
			m = ms[i]
			if (!runs[m]) continue
			printf "%s: no loss or throttle up to %s samples/s%s\n", m,
				m in safe ? sprintf("%.0f (period %d)", safe[m], safep[m]) : "none of its rates",
				m in onset ? sprintf("; from %.0f (period %d) on", onset[m], onp[m]) : " (the most it reached)"
		}
		if (("embm" in safe) && ("perf" in safe))
			printf "goal: embm loses nothing up to twice perf record\047s lossless rate: %.0f against 2 x %.0f: %s\n",
				safe["embm"], safe["perf"], (safe["embm"] >= 2 * safe["perf"] ? "met" : "NOT met")
		exit bad
	}'
}

# bench_adapt_plot DIR: DIR/adapt.png, the periods in force and
# ksamplingd's estimated use over each adaptive run (from DIR/adapt.txt).
bench_adapt_plot() {
	local out=$1 r
	for r in default least; do
		awk -v r="$r" '$1 == "emutrace" && $2 == r { print $3 / 1000, $4, $6 }' \
			"$out/adapt.txt" >"$out/adapt-$r.dat"
	done
	gnuplot <<GP || { log "bench: gnuplot failed (adapt.png)"; return 1; }
set terminal pngcairo size 800,500
set output '$out/adapt.png'
set termoption noenhanced
set title "embm on embm_emu, default cpu_budget: load period and ksamplingd's CPU"
set xlabel "seconds into the session"
set ylabel "load period"
set logscale y 2
set yrange [128:*]
set y2label "ksamplingd, permille of a CPU (a round)"
set y2tics
set ytics nomirror
set key top left
plot '$out/adapt-default.dat' using 1:2 with steps lw 2 title 'period, default start', \
     '$out/adapt-least.dat' using 1:2 with steps lw 2 title 'period, from the least', \
     '$out/adapt-default.dat' using 1:3 axes x1y2 with lines dashtype 2 title 'use, default start', \
     '$out/adapt-least.dat' using 1:3 axes x1y2 with lines dashtype 2 title 'use, from the least'
GP
}

# bench_emu_table ROUNDS PASSES PERIODS RATIOS: the emulated PMU's table
# from the "emubench" and "emudefault" lines on stdin (bench-emu's); the
# ratios also to the file RATIOS, one a line: NAME MIN MEDIAN MAX.  Every
# ratio is taken per round (round r of the boot without the plugin
# against round r of the boot with it; within the plugin's boot, runs of
# the same round) and shown as the min, median and max over the rounds.
# Fails when a mode or period lacks a round, a run a figure, or embm's
# samples and perf's at the same periods differ by more than 25%.
bench_emu_table() {
	awk -v rounds="$1" -v passes="$2" -v periods="$3" -v out="$4" '
	# trio(list): "min median max" of the numbers in list; sets med.
	function trio(list,    n, a, i, j, t) {
		n = split(list, a, " ")
		if (!n) { med = ""; return "" }
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		return sprintf("%5.2f %5.2f %5.2f", a[1], med, a[n])
	}
	# A ratio per round of mode keys a and b: t(a) / t(b), or with c
	# (t(a) - t(c)) / (t(b) - t(c)) where t(b) > t(c).
	function ratios(a, b, c,    r, l) {
		l = ""
		for (r = 1; r <= rounds; r++) {
			if (!((a, r) in t) || !((b, r) in t) || (c != "" && !((c, r) in t)))
				continue
			if (c == "")
				l = l " " t[a, r] / t[b, r]
			else if (t[b, r] > t[c, r])
				l = l " " (t[a, r] - t[c, r]) / (t[b, r] - t[c, r])
		}
		return l
	}
	# The fastest run of mode key k over the fastest with no plugin.
	function least(k,    a, b, r) {
		a = b = 0
		for (r = 1; r <= rounds; r++) {
			if ((k, r) in t && (!a || t[k, r] < a)) a = t[k, r]
			if (("none -", r) in t && (!b || t["none -", r] < b)) b = t["none -", r]
		}
		return b ? a / b : 0
	}
	# A ratio per round of (t(a) - t(ca)) / (t(b) - t(cb)), where t(b) > t(cb).
	function ratios2(a, b, ca, cb,    r, l) {
		l = ""
		for (r = 1; r <= rounds; r++) {
			if (!((a, r) in t) || !((b, r) in t) || !((ca, r) in t) || !((cb, r) in t))
				continue
			if (t[b, r] > t[cb, r])
				l = l " " (t[a, r] - t[ca, r]) / (t[b, r] - t[cb, r])
		}
		return l
	}
	# A ratio per round of the consumer CPU a sample of mode keys a and b.
	function cpu_ratios(a, b,    r, l) {
		l = ""
		for (r = 1; r <= rounds; r++)
			if ((a, r) in cps && (b, r) in cps && cps[b, r] > 0)
				l = l " " cps[a, r] / cps[b, r]
		return l
	}
	# The largest of a list of numbers.
	function most(list,    n, a, i, m) {
		n = split(list, a, " ")
		for (i = 1; i <= n; i++) if (i == 1 || a[i] + 0 > m) m = a[i] + 0
		return m
	}
	function put(name, list,    s) {
		s = trio(list)
		if (s == "") { printf "missing figure: %s\n", name; bad = 1; return "    -    -    -" }
		printf "%s %s\n", name, s >out
		return s
	}
	$1 == "emudefault" && NF == 2 { def = $2; next }
	$1 == "emubench" && (NF != 8 || $5 <= 0 || $6 < 0 || $7 < 0 || $8 < 0 || $4 < 1 ||
			     $4 > rounds) {
		print "bad run: " $0; bad = 1; next
	}
	$1 == "emubench" {
		k = $2 " " $3
		if ((k, $4) in t) { print "run twice: " $0; bad = 1; next }
		t[k, $4] = $5; ms[k] = ms[k] " " $5; runs[k]++; smp[k] += $6; lost[k] += $7
		# The CPU of the consumer a sample, us, per round.
		if ($6 > 0) cps[k, $4] = $8 * 1000 / $6
	}
	END {
		if (def == "") { print "no emudefault line: the periods of the emu source unknown"; bad = 1 }
		nm = split("none idle oracle", fixed, " ")
		n = split(periods, pl, " ")
		for (i = 1; i <= n; i++) {
			if (pl[i] == "default") pl[i] = def
			else if (pl[i] !~ /\//) pl[i] = pl[i] "/" pl[i]
		}
		nk = 0
		for (i = 1; i <= nm; i++) key[++nk] = fixed[i] " -"
		for (i = 1; i <= n; i++) {
			key[++nk] = "embm " pl[i]; key[++nk] = "ring " pl[i]; key[++nk] = "perf " pl[i]
		}
		for (i = 1; i <= nk; i++)
			if (runs[key[i]] != rounds) {
				printf "%s: %d run(s) of %d\n", key[i], runs[key[i]], rounds
				bad = 1
			}
		printf "embm_emu: embm-bench -p rmw -b 8M@0 -r %d, pinned, %d round(s); ms by its own clock;\n",
			passes, rounds
		print "x none, x idle: the time over no plugin (another boot), over the plugin idle (the"
		print "same round), per round: min median max"
		printf "%-6s %-21s %7s %7s %7s   %-17s   %-17s %8s %8s\n", "mode", "periods",
			"min_ms", "med_ms", "max_ms", "x none", "x idle", "smp/run", "lost/run"
		for (i = 1; i <= nk; i++) {
			k = key[i]; split(k, f, " ")
			s = trio(ms[k]); split(s, mm, " ")
			name = f[1] (f[2] == "-" ? "" : "@" f[2])
			xn = f[1] == "none" ? " 1.00  1.00  1.00" : put("x_none:" name, ratios(k, "none -"))
			xi = f[1] == "none" ? "    -     -     -" : \
				f[1] == "idle" ? " 1.00  1.00  1.00" : put("x_idle:" name, ratios(k, "idle -"))
			printf "%-6s %-21s %7.0f %7.0f %7.0f   %-17s   %-17s %8.0f %8.0f\n", f[1], f[2],
				mm[1], mm[2], mm[3], xn, xi,
				runs[k] ? smp[k] / runs[k] : 0, runs[k] ? lost[k] / runs[k] : 0
			if (f[1] == "idle") { trio(ratios(k, "none -")); idle_x = med }
			if (f[1] == "oracle") { trio(ratios(k, "none -")); oracle_x = med }
			if (f[1] == "embm" && f[2] == def) { trio(ratios(k, "none -")); def_x = med }
			if (f[1] == "perf" && f[2] == def) { trio(ratios(k, "none -")); pdef_x = med }
		}
		print ""
		print "embm / perf record at equal periods, per round (min median max): the time each"
		print "adds to the plugin idle, and the run times"
		# The periods at which no sample is taken (the largest, 1000000007), if run.
		nos = ""
		for (i = 1; i <= n; i++)
			if (pl[i] ~ /^1000000007\//) nos = pl[i]
		for (i = 1; i <= n; i++) {
			e = "embm " pl[i]; p = "perf " pl[i]
			al = ratios(e, p, "idle -")
			a = put("embm/perf_added@" pl[i], al)
			b = put("embm/perf_time@" pl[i], ratios(e, p))
			cl = cpu_ratios(e, p)
			# No sample taken (the no-sample periods): no CPU a sample.
			c = smp[e] + smp[p] ? put("embm/perf_cpu_per_sample@" pl[i], cl) : "    -     -     -"

			printf "  %-21s %-10s added %-17s   time %s   CPU a sample %s\n", pl[i],
				pl[i] == def ? "(default)" : "", a, b, c
			# The samples alone: over the run of each with sampling on
			# and no sample taken (the instrumentation of the plugin).
			sl = ""
			if (nos != "" && pl[i] != nos)
				sl = ratios2(e, p, "embm " nos, "perf " nos)
			# What the samples of perf record add over its no-sample run,
			# per round: under a tenth of that run, the ratio is
			# noise from the host, not the samples.
			trio(ratios(p, "perf " nos)); padd = med - 1
			if (sl != "") {
				s = put("embm/perf_samples_added@" pl[i], sl)
				printf "    the samples alone (over each one at %s, no sample): %s\n", nos, s
				if (padd < 0.1)
					printf "    goal: not judged: perf record\047s samples add %.0f%% to its run (under 10%%: noise)\n",
						100 * padd
				else
					printf "    goal: embm adds at most 0.5x what perf record adds, every round: at most %.2fx: %s\n",
						most(sl), most(sl) <= 0.5 ? "met" : "NOT met"
			} else if (al != "") {
				printf "    goal: embm adds at most 0.5x what perf record adds, every round: at most %.2fx: %s\n",
					most(al), most(al) <= 0.5 ? "met" : "NOT met"
				print "    (over the plugin idle: its instrumentation for sampling, the same for both, included)"
			}
			if (cl != "") {
				printf "    goal: ksamplingd, CPU a sample at most 0.3x perf record, every round: at most %.2fx: %s\n",
					most(cl), most(cl) <= 0.3 ? "met" : "NOT met"
			}
			# What the direct samples save: embm (emu) over embm on
			# the records of perf (emu-ring), the same samples.
			r = "ring " pl[i]
			sl = nos != "" && pl[i] != nos ? ratios2(e, r, "embm " nos, "ring " nos) : ""
			printf "    embm direct (emu) / on perf\047s records (emu-ring): added %s   samples alone %s   CPU a sample %s\n",
				put("embm/ring_added@" pl[i], ratios(e, r, "idle -")),
				sl != "" ? put("embm/ring_samples_added@" pl[i], sl) : "    -     -     -",
				smp[e] + smp[r] ? put("embm/ring_cpu_per_sample@" pl[i], cpu_ratios(e, r)) : "    -     -     -"
			# Equal periods take as many samples (embm: taken and lost);
			# below 100 each, too few to tell.
			q = smp[p] > 0 ? (smp[e] + lost[e]) / smp[p] : 0
			if ((smp[p] >= 100 * rounds || smp[e] + lost[e] >= 100 * rounds) &&
			    (q < 0.75 || q > 1.0 / 0.75)) {
				printf "  %s: embm took %d samples (%d lost), perf %d: not equal periods?\n",
					pl[i], smp[e], lost[e], smp[p]
				bad = 1
			}
		}
		print ""
		# Beside each median, the fastest run over the fastest with no
		# plugin: what the guest saw with the least noise from the host.
		fast = "of the fastest runs %.2fx"
		if (idle_x != "")
			printf "goal: plugin idle at most 1.1x no plugin: %.2fx (median; " fast "): %s\n",
				idle_x, least("idle -"), idle_x <= 1.1 ? "met" : "NOT met"
		if (def_x != "")
			printf "goal: embm -S emu at its default periods (%s) at most 1.5x no plugin: %.2fx (median; " fast "): %s\n",
				def, def_x, least("embm " def), def_x <= 1.5 ? "met" : "NOT met"
		if (pdef_x != "")
			printf "      (perf record at those periods: %.2fx; " fast ")\n", pdef_x, least("perf " def)
		if (oracle_x != "")
			printf "no goal: the oracle counting exactly: %.2fx no plugin (median; " fast ")\n",
				oracle_x, least("oracle -")
		if (idle_x == "" || def_x == "" || oracle_x == "") {
			print "missing figure: a goal has no ratio"; bad = 1
		}
		exit bad
	}'
}

# bench_fits: what a sample costs each sampler, from the "bench" lines:
# the workload's time per fault against samples per fault (the median of
# each period, and the workload alone at 0), and the sampler's CPU a run
# against its samples (every run), fitted by least squares.
bench_fits() {
	awk "$BENCH_AWK_MEDIAN"'
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

# bench_extra SESSIONS: the loss sweep, the memory and the session times
# (SESSIONS of them), from the "loss", "mem", "sessionpart" and "sessions"
# lines.  Fails on a missing figure.
bench_extra() {
	awk -v sessions="$1" '
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
	$1 == "mem" && NF == 7 && $3 >= 0 && $7 > 0 {
		if (!nm++) {
			print ""
			printf "%-6s %10s %10s %10s %10s %14s\n", "mode", "ring_KiB", "queue_KiB",
				"table_KiB", "rss_KiB", "KiB/CPU"
		}
		printf "%-6s %10.0f %10.0f %10.0f %10d %14.1f\n", $2, $3 / 1024, $4 / 1024,
			$5 / 1024, $6, ($3 + $4) / 1024 / $7
		next
	}
	$1 == "mem" { print "bad run: " $0; bad = 1; next }
	$1 == "sessionpart" && NF == 5 { part[++np] = $2; pv[$2] = $3 " " $4 " " $5; next }
	$1 == "sessionpart" { print "bad run: " $0; bad = 1; next }
	$1 == "sessions" && NF == 8 {
		print ""
		printf "%-16s %10s %10s %10s   (us, %d CPUs; %s sessions)\n", "call", "min",
			"median", "max", $2, sessions
		for (i = 1; i <= np; i++) {
			split(pv[part[i]], a, " ")
			if (part[i] == "start_us")
				print "in the kernel, from the session lock on (/proc/embm/status):"
			printf "%-16s %10.1f %10.1f %10.1f\n", part[i], a[1], a[2], a[3]
		}
		if (!("both" in pv) || !("start_us" in pv) || !("end_us" in pv)) {
			print "missing figure: a part of the sessions"; bad = 1
		} else {
			split(pv["both"], a, " ")
			printf "goal: embm_start + embm_end at most 10 ms in every session: at most %.1f ms: %s\n",
				a[3] / 1000, a[3] <= 10000 ? "met" : "NOT met"
		}
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
