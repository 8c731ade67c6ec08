# SPDX-License-Identifier: GPL-2.0
# embm: line coverage of embm's kernel code by the tests.  A gcov kernel
# (obj-cov: embm-y + CONFIG_GCOV_KERNEL) that profiles only embm's objects
# boots, runs KUnit and the selftests, prints its gcov data on the console;
# gcov on the host turns it into per-file figures and .gcov files.  Not
# part of 'scripts/embm test': it costs a kernel build of its own.
# Sourced, not run.

# PEBS and IBS cannot run without a hardware PMU (not under TCG): their
# files are reported apart and left out of the second total.
COV_HW_ONLY="arch/x86/events/intel/embm_pebs.c arch/x86/events/amd/embm_ibs.c"

coverage_usage() {
	cat <<'TXT'
usage: scripts/embm coverage [-o DIR] [--timeout SECONDS]

Builds obj-cov (the y kernel + CONFIG_DEBUG_FS + CONFIG_GCOV_KERNEL,
profiling only mm/embm/*.o, arch/x86/events/embm*.o and
kernel/events/kernel_rb.o), boots it, runs KUnit at boot and the guest
selftests, copies the gcov data out and prints line coverage per file of
those sources (the KUnit tests they include are not counted), a total, and
a total without the hardware-only files (embm_pebs.c, embm_ibs.c), then
the lines that never ran, grouped by file.

  -o DIR             results (default build/coverage): FILE.c.gcov per
                     file ("#####" marks a line that never ran),
                     summary.txt, uncovered.txt (every line not run),
                     groups.txt (the same as runs of lines),
                     tests.txt (the guest's test results), console.log
  --timeout SECONDS  guest time limit (default 1800)

Cost, on 2 shared cores: a cold build of obj-cov took 12 to 16 minutes
(ccache helps; later builds are incremental, under a minute), the guest
run about a minute.  obj-cov also has fault injection, as the debug kernel
does, so that embm_fault_test runs here too.
TXT
}

# The profiled sources, relative to the kernel tree: embm's kernel objects
# (the KUnit tests they include are in headers of their own, which gcov
# reports apart) and the kernel ring buffer.
cov_sources() {
	local f
	for f in "$KSRC"/mm/embm/*.c "$KSRC"/arch/x86/events/embm*.c \
		 "$KSRC"/arch/x86/events/*/embm*.c; do
		echo "${f#"$KSRC"/}"
	done
	echo kernel/events/kernel_rb.c
}

# Make arguments that turn on gcov for exactly those objects.  kbuild reads
# GCOV_PROFILE_<obj>.o per directory Makefile; on the command line they hold
# in every directory and leave the Makefiles of the patch alone: objects
# of the same name elsewhere (kernel/events/core.o) are profiled too, and
# left out of the report.
cov_make_args() {
	local f
	for f in $(cov_sources); do
		f=${f##*/}
		echo "GCOV_PROFILE_${f%.c}.o=y"
	done
}

# cov_fetch LOG OBJ: decode the gcov data the guest printed into OBJ, next
# to the .gcno files.
cov_fetch() {
	local logf=$1 obj=$2 merge=${3:-0} tmp sum want f rel n=0 m
	tmp=$(mktemp -d)
	sed -n '/^### embm-gcov begin$/,/^### embm-gcov end /{/^###/d;p}' "$logf" >"$tmp/b64"
	want=$(sed -n 's/^### embm-gcov end \([0-9a-f]*\)$/\1/p' "$logf" | tail -n 1)
	[ -s "$tmp/b64" ] && [ -n "$want" ] ||
		{ log "the guest printed no gcov data (see $logf)"; rm -rf "$tmp"; return 1; }
	base64 -d "$tmp/b64" >"$tmp/gcov.tgz" 2>/dev/null
	sum=$(md5sum <"$tmp/gcov.tgz" | cut -d' ' -f1)
	[ "$sum" = "$want" ] ||
		{ log "gcov data garbled on the console (md5 $sum, guest said $want)"; rm -rf "$tmp"; return 1; }
	mkdir -p "$tmp/data" && tar -xzf "$tmp/gcov.tgz" -C "$tmp/data" || { rm -rf "$tmp"; return 1; }
	# The guest's paths are the build's: .../obj-cov/mm/embm/core.gcda.
	for f in $(cd "$tmp/data" && find . -name '*.gcda'); do
		rel=${f#./"${obj#/}"/}
		[ "$rel" != "$f" ] || { log "gcov data from another build: $f"; continue; }
		mkdir -p "$obj/$(dirname "$rel")" || continue
		if [ "$merge" = 1 ] && [ -f "$obj/$rel" ]; then
			# A second guest's counts add to the first's.
			m=$tmp/merge
			rm -rf "$m" && mkdir -p "$m/a" "$m/b" &&
			cp "$obj/$rel" "$m/a/x.gcda" && cp "$tmp/data/$f" "$m/b/x.gcda" &&
			gcov-tool merge -o "$m/o" "$m/a" "$m/b" >/dev/null 2>&1 &&
			cp "$m/o/x.gcda" "$obj/$rel" && n=$((n + 1)) ||
				{ log "cannot merge the counts of $rel"; rm -rf "$tmp"; return 1; }
		else
			cp "$tmp/data/$f" "$obj/$rel" && n=$((n + 1))
		fi
	done
	rm -rf "$tmp"
	log "gcov data of $n objects"
	[ $n -gt 0 ]
}

# cov_gcov OBJ RES: FILE.c.gcov in RES for each profiled source.
cov_gcov() {
	local obj=$1 res=$2 tmp src
	tmp=$(mktemp -d)
	for src in $(cov_sources); do
		rm -f "$tmp"/*.gcov
		(cd "$tmp" && gcov -o "$obj/$(dirname "$src")" "$KSRC/$src" >/dev/null 2>&1)
		if [ -f "$tmp/${src##*/}.gcov" ]; then
			mv "$tmp/${src##*/}.gcov" "$res/${src##*/}.gcov"
		else
			log "gcov wrote nothing for $src (no .gcda: code that never ran?)"
		fi
	done
	rm -rf "$tmp"
}

# cov_lines SRC GCOV UNCOVERED GROUPS: "SRC LINES RUN" on stdout; each
# line that never ran appended to UNCOVERED as "SRC:LINE:SOURCE", and each
# run of them (lines not run with no line that ran between them) to GROUPS
# as "  SRC:FIRST[-LAST]  SOURCE OF FIRST".  In a .gcov file "-" is not code, "#####" (and "=====", reached
# only by exceptions) did not run, a count (with "*" when some of its
# blocks did not) did.
cov_lines() {
	awk -v src="$1" -v unc="$3" -v grp="$4" '
	function flush() {
		if (first)
			printf "  %s:%d%s  %s\n", src, first, last != first ? "-" last : "", what >>grp
		first = 0
	}
	{
		i = index($0, ":"); count = substr($0, 1, i - 1); rest = substr($0, i + 1)
		j = index(rest, ":"); line = substr(rest, 1, j - 1) + 0; text = substr(rest, j + 1)
		gsub(/ /, "", count)
		if (line == 0 || count == "-")
			next
		lines++
		if (count == "#####" || count == "=====") {
			printf "%s:%d:%s\n", src, line, text >>unc
			if (!first) {
				first = line; what = text
				gsub(/^[ \t]+/, "", what)
			}
			last = line
		} else {
			run++
			flush()
		}
	}
	END { flush(); printf "%s %d %d\n", src, lines, run }' "$2"
}

# cov_report RES: the figures and the lines not run, from the .gcov files.
cov_report() {
	local res=$1 src g hw lines run tl=0 tr=0 hl=0 hr=0 pct hwre
	hwre="^  (${COV_HW_ONLY// /|}):"
	: >"$res/uncovered.txt"
	: >"$res/groups.txt"
	{
		printf '%-30s %6s %6s %8s %9s\n' file lines run "not run" coverage
		for src in $(cov_sources); do
			g=$res/${src##*/}.gcov
			hw=""
			case " $COV_HW_ONLY " in *" $src "*) hw=" (hardware-only)" ;; esac
			if [ ! -f "$g" ]; then
				printf '%-30s %s\n' "$src" "no data$hw"
				continue
			fi
			read -r _ lines run < <(cov_lines "$src" "$g" "$res/uncovered.txt" \
				"$res/groups.txt")
			tl=$((tl + lines)) tr=$((tr + run))
			[ -z "$hw" ] || { hl=$((hl + lines)) hr=$((hr + run)); }
			pct=$(awk -v r="$run" -v l="$lines" 'BEGIN { printf "%.1f%%", l ? 100 * r / l : 0 }')
			printf '%-30s %6d %6d %8d %9s%s\n' "$src" "$lines" "$run" $((lines - run)) "$pct" "$hw"
		done
		pct=$(awk -v r="$tr" -v l="$tl" 'BEGIN { printf "%.1f%%", l ? 100 * r / l : 0 }')
		printf '%-30s %6d %6d %8d %9s\n' total "$tl" "$tr" $((tl - tr)) "$pct"
		lines=$((tl - hl)) run=$((tr - hr))
		pct=$(awk -v r="$run" -v l="$lines" 'BEGIN { printf "%.1f%%", l ? 100 * r / l : 0 }')
		printf '%-30s %6d %6d %8d %9s\n' "total without hardware-only" "$lines" "$run" \
			$((lines - run)) "$pct"
	} | tee "$res/summary.txt"
	echo
	echo "Lines that never ran (runs of them; every line in $res/uncovered.txt):"
	grep -v -E "$hwre" "$res/groups.txt" || echo "  none"
	echo "Hardware-only (PEBS/IBS: need a hardware PMU, not in QEMU under TCG):"
	grep -E "$hwre" "$res/groups.txt" || echo "  none"
}

cmd_coverage() {
	local res=$EMBM_BUILD/coverage timeout=1800 obj=$EMBM_BUILD/obj-cov t0=$SECONDS rc
	while [ $# -gt 0 ]; do
		case $1 in
		-o) res=$2; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		-h|--help) coverage_usage; return 0 ;;
		*) coverage_usage >&2; die "coverage: unknown argument '$1'" ;;
		esac
	done
	need ccache
	need gcov
	need gcov-tool
	tree_series
	tree_checkout embm
	mkdir -p "$res" && res=$(cd "$res" && pwd) || die "cannot make $res"
	rm -f "$res"/*.gcov "$res"/*.txt "$res"/console.log
	build_kernel cov $(cov_make_args) || die "building obj-cov failed"
	build_guest_progs cov || die "building the guest programs failed"
	log "build: $((SECONDS - t0)) s"

	t0=$SECONDS
	find "$obj" -name '*.gcda' -delete
	log "booting obj-cov: KUnit, the selftests, then the gcov data (about a minute)"
	run_guest 0 --kernel "$obj/arch/x86/boot/bzImage" --timeout "$timeout" \
		--log "$res/console.log" --append "loglevel=7 kunit.enable=1" \
		-- sh -c 'run-tests; r=$?; dmesg -n 1; gcov-dump; exit $r' >/dev/null 2>"$res/run.err"
	rc=$?
	log "guest run: $((SECONDS - t0)) s, exit $rc"
	T_PASS=0 T_FAIL=0 T_SKIP=0
	t_guest_results "$res/console.log" coverage 1 0 >"$res/tests.txt"
	log "guest tests: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped ($res/tests.txt)"
	[ "$T_FAIL" = 0 ] || grep '^FAIL' "$res/tests.txt" >&2

	cov_fetch "$res/console.log" "$obj" || die "no coverage data"

	# The CXL expander: the window scan, memory on- and offlining and
	# removal, the memory notifier.  Its counts are added to the first's.
	t0=$SECONDS
	log "booting obj-cov with the CXL expander: embm_cxl_test.sh (a few minutes)"
	run_guest 0 --cxl --kernel "$obj/arch/x86/boot/bzImage" --timeout "$timeout" \
		--log "$res/console-cxl.log" --append "loglevel=7" \
		-- sh -c 'run-tests /embm/bin/embm_cxl_test.sh; r=$?; dmesg -n 1; gcov-dump; exit $r' \
		>/dev/null 2>"$res/run-cxl.err"
	rc=$?
	log "CXL guest run: $((SECONDS - t0)) s, exit $rc"
	t_guest_results "$res/console-cxl.log" coverage-cxl 0 0 >>"$res/tests.txt"
	log "guest tests, both runs: $T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	cov_fetch "$res/console-cxl.log" "$obj" 1 ||
		die "no coverage data from the CXL guest, or its counts could not be merged"
	cov_gcov "$obj" "$res"
	cov_report "$res"
	log "results in $res"
}
