# SPDX-License-Identifier: GPL-2.0
# embm: build the patched kernel (EMBM=y and EMBM=n variants), the embm
# objects under Debian's own config, and the static guest programs.
# Sourced, not run.

kmake() {
	CCACHE_BASEDIR=$EMBM_BUILD KBUILD_BUILD_TIMESTAMP="2026-01-01" \
	KBUILD_BUILD_USER=embm KBUILD_BUILD_HOST=embm \
		make -C "$KSRC" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"
}

# Fail if a symbol of the fragment did not get the value asked for (an
# unmet dependency makes Kconfig drop it silently).
config_verify() {
	local config=$1 frag=$2 line sym val bad=0
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		sym=${line%%=*}
		val=${line#*=}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$config" && { log "$sym is set, wanted n"; bad=1; }
		else
			grep -qxF "$line" "$config" || { log "$sym is not $val in $config"; bad=1; }
		fi
	done <"$frag"
	return $bad
}

# The config fragments of a variant, on top of allnoconfig.
build_fragments() {
	case $1 in
	y)	echo "$CONFIG_DIR/qemu.config $CONFIG_DIR/embm-y.config $CONFIG_DIR/cxl.config $CONFIG_DIR/bench.config" ;;
	n)	echo "$CONFIG_DIR/qemu.config $CONFIG_DIR/embm-n.config" ;;
	# cxl.config: the CXL boot of the tests runs the debug kernel, so that
	# memory hot-add, offline and remove run under lockdep and KASAN.
	debug)	echo "$CONFIG_DIR/qemu.config $CONFIG_DIR/embm-y.config $CONFIG_DIR/cxl.config $CONFIG_DIR/debug.config" ;;
	cov)	echo "$CONFIG_DIR/qemu.config $CONFIG_DIR/embm-y.config $CONFIG_DIR/cxl.config $CONFIG_DIR/bench.config $CONFIG_DIR/gcov.config" ;;
	*)	die "no kernel variant '$1' (y, n, debug, cov)" ;;
	esac
}

# Configure $EMBM_BUILD/obj-$1 from the fragments when they changed.
build_config() {
	local v=$1 obj=$EMBM_BUILD/obj-$1 frag
	mkdir -p "$obj"
	frag=$obj/embm.fragment
	cat $(build_fragments "$v") >"$frag.new"
	if [ -f "$obj/.config" ] && cmp -s "$frag.new" "$frag"; then
		rm -f "$frag.new"
		return 0
	fi
	log "configuring obj-$v (allnoconfig + fragments)"
	quiet kmake O="$obj" KCONFIG_ALLCONFIG="$frag.new" allnoconfig || return 1
	config_verify "$obj/.config" "$frag.new" || return 1
	mv "$frag.new" "$frag"
}

# build_kernel VARIANT [MAKE ARGS]: bzImage of one variant, plus exported
# headers but for n; the make arguments go to the bzImage build.
build_kernel() {
	local v=$1 obj=$EMBM_BUILD/obj-$1 t0=$SECONDS
	shift
	build_config "$v" || return 1
	log "building obj-$v/arch/x86/boot/bzImage"
	quiet kmake O="$obj" "$@" bzImage || return 1
	if [ "$v" != n ]; then
		quiet kmake O="$obj" headers || return 1
	fi
	log "obj-$v built in $((SECONDS - t0)) s"
}

# Static guest programs: the tools and the selftests, built against the
# exported headers of obj-y, or of obj-$1 ('build debug' alone has no obj-y);
# the selftests compile in the tools' reader of /proc/embm (procfs.c).
build_guest_progs() {
	local out=$EMBM_BUILD/guest/bin hdr=$EMBM_BUILD/obj-${1:-y}/usr/include d
	[ -d "$hdr" ] || { log "no exported headers in $hdr"; return 1; }
	mkdir -p "$out"
	quiet make -C "$KSRC/tools/embm" OUTPUT="$out/" LDFLAGS=-static \
		EXTRA_CFLAGS="-isystem $hdr" || return 1
	for d in "$KSRC"/tools/testing/selftests/embm; do
		[ -d "$d" ] || continue
		# lib.mk knows only the .c of each test: rebuild the tests that
		# are older than the uapi header or a header of their own.
		local h
		for h in "$hdr/linux/embm.h" "$d"/*.h; do
			[ -f "$h" ] && find "$out" -maxdepth 1 -type f -name '*_test' \
				! -newer "$h" -delete
		done
		CFLAGS="-static" LDFLAGS="-static" quiet make -C "$d" \
			OUTPUT="$out" KHDR_INCLUDES="-isystem $hdr" \
			|| return 1
		cp "$d"/*_test.sh "$out/" 2>/dev/null
	done
	# The shell tests print KTAP with kselftest's helpers, which they
	# find where "make install" puts them: ../kselftest beside their dir.
	mkdir -p "$EMBM_BUILD/guest/kselftest" &&
	cp "$KSRC/tools/testing/selftests/kselftest/ktap_helpers.sh" "$EMBM_BUILD/guest/kselftest/"
}

# The embm objects under Debian's amd64 config with CONFIG_EMBM=y: objects
# only, to show the patch does not break a distribution config.
build_debian_objs() {
	local obj=$EMBM_BUILD/obj-debian cfg objs f
	cfg=$(ls /usr/src/linux-config-6.12/config.amd64_none_amd64.xz 2>/dev/null) ||
		{ log "linux-config-6.12 missing; run 'scripts/embm deps'"; return 1; }
	mkdir -p "$obj"
	xzcat "$cfg" >"$obj/debian.config.new"
	if ! cmp -s "$obj/debian.config.new" "$obj/debian.config" || [ ! -f "$obj/.config" ]; then
		log "configuring obj-debian from $(basename "$cfg") + CONFIG_EMBM=y"
		cp "$obj/debian.config.new" "$obj/.config"
		"$KSRC/scripts/config" --file "$obj/.config" -e EMBM \
			--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
		quiet kmake O="$obj" olddefconfig || return 1
		grep -qx CONFIG_EMBM=y "$obj/.config" || { log "CONFIG_EMBM=y did not stick"; return 1; }
		mv "$obj/debian.config.new" "$obj/debian.config"
	fi
	# Every C file the series adds or changes in the kernel proper.
	objs="arch/x86/entry/syscall_64.o"
	for f in $(kgit diff --name-only pristine embm -- '*.c'); do
		case $f in tools/*) continue ;; esac
		objs="$objs ${f%.c}.o"
	done
	log "compiling under Debian's config: $objs"
	quiet kmake O="$obj" $objs
}

cmd_build() {
	local what=${1:-all}
	need ccache
	tree_series
	tree_checkout embm
	case $what in
	all)	build_kernel y && build_guest_progs && build_kernel n ;;
	y)	build_kernel y && build_guest_progs ;;
	n)	build_kernel n ;;
	debug)	build_kernel debug && build_guest_progs debug ;;
	debian)	build_debian_objs ;;
	*)	die "build: unknown target '$what' (all, y, n, debug, debian)" ;;
	esac
}
