# SPDX-License-Identifier: GPL-2.0
# embm: every test. Each check prints "ok - NAME" or "FAIL - NAME"; the last
# line is "N passed, N failed" (", N skipped" when some were). Sourced.

T_PASS=0 T_FAIL=0 T_SKIP=0 T_LOGDIR=""

t_report() {
	case $1 in
	ok)   T_PASS=$((T_PASS + 1)); echo "ok - $2" ;;
	skip) T_SKIP=$((T_SKIP + 1)); echo "skip - $2" ;;
	*)    T_FAIL=$((T_FAIL + 1)); echo "FAIL - $2" ;;
	esac
}

# t_step NAME CMD...: one check; its output goes to a log, shown on failure.
t_step() {
	local name=$1 logf t0=$SECONDS
	shift
	logf=$T_LOGDIR/$(printf '%03d' $((T_PASS + T_FAIL + T_SKIP))).log
	if "$@" >"$logf" 2>&1; then
		t_report ok "$name ($((SECONDS - t0)) s)"
	else
		t_report fail "$name"
		sed 's/^/    | /' "$logf" | tail -n 40
	fi
}

# t_checkpatch PATCH [TYPES]: checkpatch.pl --strict with no error, warning
# or check, ignoring the comma-separated TYPES. Two types are answered by
# checks of our own instead: ENOSYS (t_no_enosys: selftests must compare
# errno with ENOSYS, kernel code must never return it) and, for the patches
# of the series, FILE_PATH_CHANGES (t_maintainers: the MAINTAINERS entry of
# the series covers every file it adds; the whole patch is checked with it).
# The series also ignores UNKNOWN_COMMIT_ID: the tree is Debian's source
# with no history, so no Fixes: id can be found in it (the css-leak fix's
# c2283c9368d4 is tip's commit of "perf/cgroup: Grow per perf_cpu_context
# heap storage", 2020-03-06); the tag's form is still checked.
t_checkpatch() {
	local out ignore=${2:+--ignore $2}
	echo "checkpatch.pl --strict $ignore $1"
	# With the tree, as maintainers run it (it knows which linux/ headers
	# exist, and checks SPDX tags with Debian's python3 and python3-ply).
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH scripts/checkpatch.pl --strict $ignore "$1" 2>&1)
	echo "$out"
	grep -q "total: 0 errors, 0 warnings, 0 checks" <<<"$out"
}

# No line the series adds to kernel code (not tools/, not Documentation/)
# mentions ENOSYS.
t_no_enosys() {
	! kgit diff pristine embm -- . ':!tools' ':!Documentation' | grep -n '^+.*\bENOSYS\b'
}

# Every file the series adds matches an F: pattern of the EMBM entry.
t_maintainers() {
	local pats f p ok bad=0 -
	set -f	# the F: patterns are matched by case, never expanded
	# embm's entry; the perf core files the series adds are perf's.
	pats=$(kgit show embm:MAINTAINERS | sed -n '/^EMBM /,/^$/s/^F:[[:space:]]*//p')
	[ -n "$pats" ] || { echo "no EMBM entry in MAINTAINERS"; return 1; }
	pats+=" $(kgit show embm:MAINTAINERS |
		sed -n '/^PERFORMANCE EVENTS SUBSYSTEM$/,/^$/s/^F:[[:space:]]*//p')"
	for f in $(kgit diff --name-only --diff-filter=A pristine embm); do
		ok=0
		for p in $pats; do
			case $p in
			*/) case $f in "$p"*) ok=1 ;; esac ;;
			*) case $f in $p) ok=1 ;; esac ;;
			esac
		done
		[ $ok = 1 ] || { echo "not covered by MAINTAINERS: $f"; bad=1; }
	done
	return $bad
}

# The combined patch applies with patch -p1 to a fresh unpack of the
# tarball and gives exactly the tree of branch embm.
t_patch_applies() {
	local d
	d=$(mktemp -d "$EMBM_BUILD/applytest.XXXX")
	tar -xf "$KTARBALL" -C "$d" || return 1
	(cd "$d"/linux-source-* && patch -p1 -s --no-backup-if-mismatch <"$EMBM_BUILD/embm.patch") || {
		rm -rf "$d"; return 1
	}
	local f bad=0
	for f in $(kgit diff --name-only pristine embm); do
		if ! kgit show "embm:$f" | cmp -s - "$d"/linux-source-*/"$f"; then
			echo "differs after patch -p1: $f"
			bad=1
		fi
	done
	rm -rf "$d"
	return $bad
}

# The git-am series applies to the pristine tree and ends at branch embm's
# tree.  Done as git am does it (mailinfo, then apply), into a scratch index
# instead of a work tree of 80,000 files.
t_git_am() {
	local idx=$EMBM_BUILD/amtest.index tmp p rc=0
	tmp=$(mktemp -d)
	rm -f "$idx"
	GIT_INDEX_FILE=$idx kgit read-tree pristine || return 1
	for p in "$EMBM_BUILD"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		git mailinfo "$tmp/msg" "$tmp/diff" <"$p" >"$tmp/info" || { rc=1; break; }
		grep -q '^Subject: ' "$tmp/info" || { echo "$p: no subject"; rc=1; break; }
		(cd "$KSRC" && GIT_INDEX_FILE=$idx git apply --cached "$tmp/diff") ||
			{ echo "$p does not apply"; rc=1; break; }
	done
	if [ $rc = 0 ] && [ "$(GIT_INDEX_FILE=$idx kgit write-tree)" != "$(kgit rev-parse embm^{tree})" ]; then
		echo "the series applied gives another tree than branch embm"
		rc=1
	fi
	rm -rf "$tmp" "$idx"
	return $rc
}

# embm's rst pages build with no warning.  Sphinx (Debian's python3-sphinx)
# reads them as the kernel's "make htmldocs" does, with the kernel's own
# extensions and settings (scripts/embm.d/sphinx/conf.py), so the kernel's
# roles and directives, :doc: links between the pages and section links are
# all checked, which docutils alone cannot do; but only these pages, with the
# dummy builder (reads, resolves, writes nothing), so it takes about two
# seconds instead of the whole tree's many minutes, and needs no kernel
# build.  The pages are the overlay's Documentation/**/*.rst, placed as in
# the tree under a toctree of their own; upstream pages the series changes
# (*.rst.diff) are left out, as they link to the rest of the tree.
t_docs_rst() {
	local d f doc rc
	[ -x /usr/bin/sphinx-build ] || { echo "no sphinx-build: run scripts/embm deps"; return 1; }
	[ -f "$KSRC/Documentation/sphinx/automarkup.py" ] || { echo "no kernel tree in $KSRC"; return 1; }
	d=$(mktemp -d)
	mkdir -p "$d/src"
	printf 'embm\n====\n\n.. toctree::\n\n' >"$d/src/index.rst"
	for f in $(cd "$EMBM_TOP" && find Documentation -name '*.rst' | LC_ALL=C sort); do
		doc=${f#Documentation/}
		mkdir -p "$d/src/$(dirname "$doc")"
		cp "$EMBM_TOP/$f" "$d/src/$doc"
		printf '   %s\n' "${doc%.rst}" >>"$d/src/index.rst"
		echo "$f"
	done
	PYTHONDONTWRITEBYTECODE=1 EMBM_KSRC=$KSRC /usr/bin/sphinx-build -b dummy \
		-c "$EMBM_TOP/scripts/embm.d/sphinx" -W --keep-going -q -E \
		-d "$d/doctrees" "$d/src" "$d/out" 2>&1 | sed "s|$d/src/|Documentation/|g"
	rc=${PIPESTATUS[0]}
	rm -rf "$d"
	return "$rc"
}

# kernel-doc -Wall (missing members, parameters and return values, short
# descriptions) on every embm kernel file reports nothing.  One file per
# run, as kbuild's W=1 does: run on several files at once, kernel-doc
# shifts the line numbers of the later ones.
t_kernel_doc() {
	local f out bad=0
	for f in $(cd "$EMBM_TOP" && ls mm/embm/*.[ch] mm/embm/tests/*.h \
			arch/x86/events/embm*.[ch] arch/x86/events/*/embm*.[ch] \
			kernel/events/kernel_rb*.c include/linux/perf_kernel_rb.h \
			include/linux/embm.h include/uapi/linux/embm.h 2>/dev/null); do
		echo "kernel-doc -Wall -Werror -none $f"
		out=$(cd "$EMBM_TOP" && perl "$KSRC/scripts/kernel-doc" -Wall -Werror -none "$f" 2>&1) ||
			bad=1
		[ -z "$out" ] || { echo "$out"; bad=1; }
	done
	return $bad
}

# The uapi fallback numbers equal the syscall table's.
t_syscall_numbers() {
	local name tbl uapi bad=0
	for name in embm_start embm_end; do
		tbl=$(kgit show embm:arch/x86/entry/syscalls/syscall_64.tbl |
			awk -v n="$name" '$3 == n { print $1 }')
		uapi=$(awk -v n="__NR_$name" '$1 == "#define" && $2 == n { print $3 }' \
			"$EMBM_TOP/include/uapi/linux/embm.h")
		echo "$name: syscall_64.tbl $tbl, linux/embm.h $uapi"
		[ -n "$tbl" ] && [ "$tbl" = "$uapi" ] || bad=1
	done
	return $bad
}

# The cover letter has its subject and text, every placeholder filled,
# and names the base: Debian's package version and the upstream one.
t_cover_letter() {
	local c=$1 bad=0
	[ -f "$c" ] || { echo "no cover letter $c"; return 1; }
	grep -q '^Subject: \[PATCH 00/[0-9]*\] embm: ' "$c" || { echo "cover letter: no subject"; bad=1; }
	! grep -n '\*\*\* .* HERE \*\*\*\|@[A-Z_]*@' "$c" || { echo "cover letter: a placeholder is left"; bad=1; }
	grep -q "package version $(dpkg-query -W -f='${Version}' linux-source-6.12)," "$c" &&
		grep -q "Linux $(make -s -C "$KSRC" kernelversion) " "$c" ||
		{ echo "cover letter: the base is not named"; bad=1; }
	return $bad
}

# 'scripts/embm patch -d DIR' into a directory that holds other files
# leaves them, and the directory, in place, and replaces the old series.
t_patch_dir() {
	local d rc=0
	d=$(mktemp -d)
	echo keep >"$d/user-file"
	echo stale >"$d/0042-old.patch"
	cmd_patch -o "$d/one.patch" -d "$d" || rc=1
	[ -f "$d/user-file" ] || { echo "patch -d removed a file it did not write"; rc=1; }
	[ ! -e "$d/0042-old.patch" ] || { echo "patch -d kept an old series patch"; rc=1; }
	ls "$d"/0001-*.patch >/dev/null || { echo "patch -d wrote no series"; rc=1; }
	t_cover_letter "$d/0000-cover-letter.patch" || rc=1
	rm -rf "$d"
	return $rc
}

# The calls between embm's kernel files, from the symbols each object of
# the y kernel defines and uses (nm), KUnit code included: printed as
# "caller -> callee: symbols", and refused if they form a cycle (tsort).
t_call_graph() {
	local objs="" o f sym edges=""
	declare -A owner
	local dir
	# mm/embm/Makefile is embm's alone; elsewhere only its CONFIG_EMBM line.
	objs=$(kgit show embm:mm/embm/Makefile | grep -o '[a-z_]*\.o' | sed 's|^|mm/embm/|')
	for dir in arch/x86/events arch/x86/events/intel arch/x86/events/amd; do
		objs+=" $(kgit show "embm:$dir/Makefile" | sed -n '/CONFIG_EMBM)/,/[^\\]$/p' |
			grep -o '[a-z_]*\.o' | sed "s|^|$dir/|")"
	done
	[ -n "${objs// /}" ] || { echo "no embm objects in the Makefiles"; return 1; }
	for o in $objs; do
		f=$EMBM_BUILD/obj-y/$o
		[ -f "$f" ] || { echo "missing $f"; return 1; }
		for sym in $(nm "$f" | awk '$2 ~ /^[TDBR]$/ { print $3 }'); do
			owner[$sym]=${o%.o}
		done
	done
	for o in $objs; do
		for sym in $(nm "$EMBM_BUILD/obj-y/$o" | awk '$1 == "U" { print $2 }'); do
			f=${owner[$sym]:-}
			[ -n "$f" ] && [ "$f" != "${o%.o}" ] &&
				edges+="${o%.o} $f $sym"$'\n'
		done
	done
	awk 'NF { e[$1 " -> " $2] = e[$1 " -> " $2] " " $3 }
	     END { for (k in e) print k ":" e[k] }' <<<"$edges" | sort
	awk 'NF { print $1, $2 }' <<<"$edges" | sort -u | tsort >/dev/null
}

# Report the results in a guest console log: KUnit cases (KTAP from the
# boot), selftest cases (TAP between run-tests markers), the kmemleak scan
# (required when WANT_KMEMLEAK is 1) and the kernel log check.
t_guest_results() {
	local logf=$1 what=$2 want_kunit=$3 want_kmemleak=$4 line prog="" n=0 kunit
	# KUnit: test-case lines are indented; suites are not.
	kunit=$(sed -n '/KTAP version/,/### embm-test /p' "$logf" |
		sed 's/^\[[ 0-9.]*\] //' | grep -E '^ +(not )?ok [0-9]+ ')
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		n=$((n + 1))
		case $line in
		*"# SKIP"*) t_report skip "kunit: ${line#*ok [0-9]* }" ;;
		*"not ok"*) t_report fail "kunit: ${line#*ok [0-9]* }" ;;
		*)          t_report ok "kunit: ${line#*ok [0-9]* }" ;;
		esac
	done <<<"$kunit"
	if [ "$want_kunit" = 1 ] && [ "$n" = 0 ]; then
		t_report fail "$what: no KUnit test case ran"
	fi
	# A failed case's own lines (kselftest's "# ..." since the case
	# before it, the last 40, and up to 10 older ones naming a source
	# line, as the harness's "file.c:N:Expected ...") follow its report:
	# the log stays in build/test-logs, CI shows what it printed.
	local ctx=() old=()
	while IFS= read -r line; do
		case $line in
		"#"*)
			ctx+=("$line")
			if [ ${#ctx[@]} -gt 40 ]; then
				case ${ctx[0]} in
				*.c:[0-9]*) [ ${#old[@]} -ge 10 ] || old+=("${ctx[0]}") ;;
				esac
				ctx=("${ctx[@]:1}")
			fi ;;
		esac
		case $line in
		"### embm-test "*) prog=${line#\#\#\# embm-test }; ctx=(); old=() ;;
		"### embm-test-exit "*)
			set -- $line
			[ "$4" = 0 ] || [ "$4" = 4 ] || t_report fail "$3: exited $4"
			prog="" ;;
		"### embm-kmemleak clean") t_report ok "$what: kmemleak found no leak" ;;
		"### embm-kmemleak bad "*) t_report fail "$what: kmemleak found ${line##* } suspected leaks" ;;
		"### embm-dmesg bad") t_report fail "$what: kernel log has warnings/oopses" ;;
		"### embm-dmesg clean") t_report ok "$what: kernel log clean" ;;
		"ok "*"# SKIP"*) [ -n "$prog" ] && t_report skip "$prog: ${line#ok [0-9]* }"; ctx=(); old=() ;;
		"ok "*) [ -n "$prog" ] && t_report ok "$prog: ${line#ok [0-9]* }"; ctx=(); old=() ;;
		"not ok "*)
			if [ -n "$prog" ]; then
				t_report fail "$prog: ${line#not ok [0-9]* }"
				[ ${#old[@]} = 0 ] || printf '    | %s\n' "${old[@]}" "[...]"
				[ ${#ctx[@]} = 0 ] || printf '    | %s\n' "${ctx[@]}"
			fi
			ctx=(); old=() ;;
		esac
	done <"$logf"
	grep -q '^### embm-test-exit ' "$logf" || t_report fail "$what: no selftest reported"
	if [ "$want_kmemleak" = 1 ] && ! grep -q '^### embm-kmemleak \(clean\|bad\)' "$logf"; then
		t_report fail "$what: kernel has kmemleak but no scan reported"
	fi
}

# t_boot NAME KERNEL WANT_KUNIT [RUN-OPTION...] -- CMD...: boot KERNEL with
# the run options (e.g. --cxl), KUnit at boot if WANT_KUNIT is 1, run CMD
# and report what the guest printed; a kernel built with kmemleak must
# report a scan.
t_boot() {
	local name=$1 kernel=$2 want_kunit=$3 logf=$T_LOGDIR/boot-$1.log t0=$SECONDS rc
	local want_kmemleak=0 opts=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	grep -qx CONFIG_DEBUG_KMEMLEAK=y "$EMBM_BUILD/obj-$kernel/.config" && want_kmemleak=1
	run_guest 0 --kernel "$kernel" --timeout 1200 --log "$logf" "${opts[@]}" \
		--append "loglevel=7 kunit.enable=$want_kunit" -- "$@" >/dev/null 2>"$logf.err"
	rc=$?
	# A hang while the kernel boots, a QEMU assertion before any test,
	# or a suspected TCG timer-delivery fault (run.sh's 126): said, and
	# booted once more.  A second one fails.  The first boot's log and
	# QEMU's messages stay beside the second's (.hung, .err.hung).
	if [ $rc = 126 ]; then
		echo "note: $name: the guest failed outside its tests ($(tail -n 1 "$logf.err" |
			cut -c1-200); last console line: $(grep -v '^$' "$logf" |
			tail -n 1 | cut -c1-100)); booting it again"
		cp "$logf" "$logf.hung"
		cp "$logf.err" "$logf.err.hung"
		run_guest 0 --kernel "$kernel" --timeout 1200 --log "$logf" "${opts[@]}" \
			--append "loglevel=7 kunit.enable=$want_kunit" -- "$@" >/dev/null 2>"$logf.err"
		rc=$?
	fi
	if [ $rc -le 1 ]; then
		t_report ok "$name: guest booted and ran the tests ($((SECONDS - t0)) s)"
	else
		t_report fail "$name: guest run ended with $rc"
		tail -n 30 "$logf" "$logf.err" | sed 's/^/    | /'
	fi
	t_guest_results "$logf" "$name" "$want_kunit" "$want_kmemleak"
}

# --add arguments that put Debian's promtool (Go, linked with libc alone)
# and the libraries it loads into a guest, for embm_prom_test.sh's
# "promtool check metrics"; one a line.
t_promtool_adds() {
	local p lib
	p=$(command -v promtool) || die "promtool missing; run 'scripts/embm deps'"
	! ldd "$p" | grep 'not found' || die "$p: a library is missing"
	echo "$p:/usr/bin/promtool"
	for lib in $(ldd "$p" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'); do
		echo "$(readlink -f "$lib"):$lib"
	done
}

# --add arguments that put Debian's gnuplot (gnuplot-nox: /usr/bin/gnuplot is
# an alternatives link to it), the libraries it loads and its data files
# into a guest, for embm-run --plot (embm_tools_test.sh, the demo); one a
# line.  Its png terminal (libgd) asks fontconfig for its font: one font
# (DejaVu Sans, when the host has it) and a fonts.conf naming its
# directory go too, else it complains on every run and draws with its
# built-in bitmap font.
t_gnuplot_adds() {
	local p lib font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
	p=$(command -v gnuplot) || die "gnuplot missing; run 'scripts/embm deps'"
	p=$(readlink -f "$p")
	! ldd "$p" | grep 'not found' || die "$p: a library is missing"
	echo "$p:/usr/bin/gnuplot"
	for lib in $(ldd "$p" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'); do
		echo "$(readlink -f "$lib"):$lib"
	done
	[ -d /usr/share/gnuplot ] && echo "/usr/share/gnuplot:/usr/share/gnuplot"
	[ -f "$font" ] || return 0
	mkdir -p "$EMBM_BUILD" &&
	printf '%s\n' '<?xml version="1.0"?>' '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">' \
		'<fontconfig><dir>/usr/share/fonts</dir><cachedir>/tmp/fontconfig</cachedir></fontconfig>' \
		>"$EMBM_BUILD/guest-fonts.conf" || return 1
	echo "$EMBM_BUILD/guest-fonts.conf:/etc/fonts/fonts.conf"
	echo "$font:$font"
}

# Every guest runs QEMU 10 (bookworm-backports), or the reason it cannot.
t_qemu_version() {
	if [ -f "$EMBM_BUILD/qemu.unavailable" ]; then
		t_report skip "guests run QEMU $DEPS_QEMU_MAJOR: $(cat "$EMBM_BUILD/qemu.unavailable")"
	elif [ "$(deps_qemu_major)" -ge "$DEPS_QEMU_MAJOR" ]; then
		t_report ok "guests run $(qemu-system-x86_64 --version | head -n 1)"
	else
		t_report fail "guests run QEMU $(deps_qemu_major), and no reason was recorded"
	fi
}

# The embm-emu plugin alone (the guest's embm_emu driver kept off, as the
# check drives the device itself): the doorbell and the vCPU numbering,
# exact counts, sampled records, a fuzzed guest.  Without QEMU 10, a skip
# that says why.
t_emu_check() {
	local why

	why=$(plugin_unavailable)
	if [ -n "$why" ]; then
		t_report skip "embm-emu plugin: $why"
		return
	fi
	t_step "embm-emu plugin: doorbell, exact counts, records, a fuzzed guest (emu-check --quick)" \
		cmd_emu_check --quick
}

cmd_test() {
	local t0=$SECONDS
	cmd_deps
	T_LOGDIR=$EMBM_BUILD/test-logs
	rm -rf "$T_LOGDIR" && mkdir -p "$T_LOGDIR"
	echo "embm test: logs in $T_LOGDIR"

	t_step "the series files cover the overlay" series_check
	t_step "export the patch and the series" cmd_patch
	t_step "patch -d DIR keeps what it did not write" t_patch_dir
	t_step "embm's rst pages build with Sphinx, no warning" t_docs_rst
	t_step "kernel-doc -Wall on every embm kernel file: no warning" t_kernel_doc
	for p in "$EMBM_BUILD"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
		[ "$(basename "$p")" = 0000-cover-letter.patch ] && continue
		t_step "checkpatch --strict: $(basename "$p")" t_checkpatch "$p" ENOSYS,FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
	done
	t_step "checkpatch --strict: embm.patch (the whole change)" t_checkpatch \
		"$EMBM_BUILD/embm.patch" ENOSYS
	t_step "no kernel code mentions ENOSYS (checkpatch's rule, kernel side)" t_no_enosys
	t_step "MAINTAINERS covers every file the series adds" t_maintainers
	t_step "embm.patch applies with patch -p1 to a fresh linux-source-6.12" t_patch_applies
	t_step "the series applies with git am" t_git_am
	t_step "uapi syscall numbers match syscall_64.tbl" t_syscall_numbers
	t_step "the hardware lane and the guest scripts parse (bash -n, busybox sh -n)" t_hw_syntax
	t_qemu_version

	tree_checkout embm
	t_step "build CONFIG_EMBM=y (+ KUnit)" build_kernel y
	t_step "no cycle in the calls between embm's kernel files" t_call_graph
	t_step "build the selftests (static)" build_guest_progs
	t_step "build CONFIG_EMBM=n" build_kernel n
	t_step "build CONFIG_EMBM=y with lockdep, KASAN, kmemleak and fault injection" build_kernel debug
	t_step "embm objects compile under Debian's amd64 config" build_debian_objs

	local a prom_adds=()
	for a in $(t_promtool_adds) $(t_gnuplot_adds); do prom_adds+=(--add "$a"); done
	if [ -f "$EMBM_BUILD/obj-y/arch/x86/boot/bzImage" ]; then
		t_boot embm-y y 1 "${prom_adds[@]}" -- run-tests
	else
		t_report fail "embm-y: no kernel to boot"
	fi
	if [ -f "$EMBM_BUILD/obj-debug/arch/x86/boot/bzImage" ]; then
		# embm_emu_test's accuracy runs on the y kernels (under KASAN its
		# cases pass kselftest's 30 s): the debug kernel faces the
		# emulated PMU in embm_emu_corrupt_test, below.
		t_boot embm-debug debug 1 -- run-tests --skip embm_emu_test \
			--skip embm_emu_answers_test
	else
		t_report fail "embm-debug: no kernel to boot"
	fi
	t_emu_check
	# embm on the emulated PMU against its oracle, with a CXL node (the
	# embm-y boot runs the same test on the three nodes without one),
	# and Debian's perf on the same PMU beside embm; NUMA balancing's
	# promotions from the CXL node (a lower memory tier) in embm-run's
	# tiering counters.
	local perf_adds=()
	for a in $(bench_perf_adds); do perf_adds+=(--add "$a"); done
	if [ -f "$EMBM_BUILD/obj-y/arch/x86/boot/bzImage" ]; then
		t_boot embm-emu-cxl y 0 --cxl "${perf_adds[@]}" -- sh -c \
			'cxl-online >/tmp/cxl.log 2>&1 || cat /tmp/cxl.log
			 run-tests /embm/bin/embm_emu_test /embm/bin/embm_emu_perf_test \
				/embm/bin/embm_emu_answers_test /embm/bin/embm_vmstat_test'
	else
		t_report fail "embm-emu-cxl: no kernel to boot"
	fi
	# A CXL memory expander (q35, cxl-type3, kmem), on the debug kernel:
	# memory onlined, offlined and removed under lockdep, KASAN, kmemleak.
	if [ -f "$EMBM_BUILD/obj-debug/arch/x86/boot/bzImage" ]; then
		t_boot embm-cxl debug 0 --cxl -- run-tests /embm/bin/embm_cxl_test.sh
	else
		t_report fail "embm-cxl: no kernel to boot"
	fi
	# A hostile device: the plugin corrupts about one record in 200 (every
	# field, in turn), on the debug kernel, with perf beside embm.
	if [ -f "$EMBM_BUILD/obj-debug/arch/x86/boot/bzImage" ]; then
		t_boot embm-emu-corrupt debug 0 --emu-args corrupt=200 "${perf_adds[@]}" -- \
			run-tests /embm/bin/embm_emu_corrupt_test.sh
	else
		t_report fail "embm-emu-corrupt: no kernel to boot"
	fi
	# The bench, short: it runs, perf record runs beside embm, periods hold.
	if [ -f "$EMBM_BUILD/obj-y/arch/x86/boot/bzImage" ]; then
		t_step "scripts/embm bench --quick: embm and perf record, samples = faults / period; the embm-emu plugin's ratios, embm against perf record on embm_emu" \
			bench_run --quick --out "$T_LOGDIR/bench"
	fi
	if [ -f "$EMBM_BUILD/obj-n/arch/x86/boot/bzImage" ]; then
		t_boot embm-n n 0 -- run-tests /embm/bin/embm_enosys_test
	else
		t_report fail "embm-n: no kernel to boot"
	fi
	# PEBS or IBS under KVM where the host has a PMU and /dev/kvm; else a skip.
	t_hw_lane

	echo "embm test: $((SECONDS - t0)) s"
	if [ "$T_SKIP" -gt 0 ]; then
		echo "$T_PASS passed, $T_FAIL failed, $T_SKIP skipped"
	else
		echo "$T_PASS passed, $T_FAIL failed"
	fi
	[ "$T_FAIL" = 0 ]
}
