# SPDX-License-Identifier: GPL-2.0
# embm: the embm-emu TCG plugin of QEMU (scripts/embm.d/plugin/): build it
# and give the QEMU arguments that load it with its ivshmem device, the
# guest's side of include/uapi/linux/embm_emu.h.  Sourced, not run.

PLUGIN_DIR=$EMBM_TOP/scripts/embm.d/plugin
PLUGIN_SO=$EMBM_BUILD/plugin/embm-emu.so
PLUGIN_MEMDEV=embmemu

# Build $PLUGIN_SO when a source is newer.  QEMU's plugin API is declared
# in qemu-plugin-api.h; its symbols (and glib's) resolve against QEMU's
# binary when it loads the plugin.
plugin_build() {
	local src=$PLUGIN_DIR/embm-emu.c f stale=0
	need gcc
	[ -f "$PLUGIN_SO" ] || stale=1
	for f in "$src" "$PLUGIN_DIR/qemu-plugin-api.h" \
		"$EMBM_TOP/include/uapi/linux/embm_emu.h"; do
		[ "$f" -nt "$PLUGIN_SO" ] && stale=1
	done
	[ "$stale" = 1 ] || return 0
	mkdir -p "$(dirname "$PLUGIN_SO")" || return 1
	quiet gcc -O2 -shared -fPIC -Wall -Wextra -Wl,--unresolved-symbols=ignore-all \
		-I"$EMBM_TOP/include/uapi" -o "$PLUGIN_SO.tmp" "$src" -lpthread ||
		{ log "cannot build the embm-emu plugin"; return 1; }
	mv "$PLUGIN_SO.tmp" "$PLUGIN_SO"
}

# Why this QEMU cannot run the plugin, or nothing: it needs QEMU 10 (guest
# physical addresses from 8.2, the plugin API version 4).
plugin_unavailable() {
	local major
	if [ -f "$EMBM_BUILD/qemu.unavailable" ]; then
		echo "QEMU 10 unavailable: $(head -n 1 "$EMBM_BUILD/qemu.unavailable")"
		return 0
	fi
	major=$(qemu-system-x86_64 --version 2>/dev/null |
		sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	[ "${major:-0}" -ge 10 ] || echo "QEMU ${major:-?} is older than 10; run 'scripts/embm deps'"
}

# plugin_shm_size CPUS [PLUGIN ARGS]: bytes of the shared memory, a power of
# two (a PCI BAR), for the layout the plugin makes (its layout()): a page
# of header, then per vCPU 256 bytes, a ring of 64-byte records, 1056
# bytes of oracle and 67584 of spaces, then the watched page list and its
# counts, each part page aligned.
plugin_shm_size() {
	local cpus=$1 args=${2:-} ring=4096 pages=16384 a size=4096 p=1
	local IFS=,
	for a in $args; do
		case $a in
		ring=*) ring=${a#ring=} ;;
		pages=*) pages=${a#pages=} ;;
		esac
	done
	[[ $ring =~ ^[0-9]+$ && $pages =~ ^[0-9]+$ ]] || { echo 0; return 1; }
	for a in $((cpus * 256)) $((cpus * ring * 64)) $((cpus * 1056)) \
		$((cpus * 67584)) $((pages * 8)) $((cpus * pages * 16)); do
		size=$((size + (a + 4095) / 4096 * 4096))
	done
	while [ "$p" -lt "$size" ]; do p=$((p * 2)); done
	echo "$p"
}

# plugin_qemu_args SHM CPUS [PLUGIN ARGS [BUS]]: make the memory file SHM for
# CPUS vCPUs and set PLUGIN_QARGS to the QEMU arguments of the device and
# the plugin (shm=SHM, then the arguments).  BUS: the PCI bus of the device
# (pcie.0 on a q35 machine with CXL: QEMU would put it on the last bus
# made, a pxb-cxl, which takes only bridges).
plugin_qemu_args() {
	local shm=$1 cpus=$2 args=${3:-} bus=${4:-} size
	size=$(plugin_shm_size "$cpus" "$args") || die "--emu-args: ring= and pages= take numbers"
	truncate -s "$size" "$shm" || die "cannot make $shm"
	PLUGIN_QARGS=(
		-object "memory-backend-file,id=$PLUGIN_MEMDEV,share=on,mem-path=$shm,size=$size"
		-device "ivshmem-plain,memdev=$PLUGIN_MEMDEV${bus:+,bus=$bus}"
		-plugin "$PLUGIN_SO,shm=$shm${args:+,$args}"
	)
}

# The guest's check of the plugin without a kernel driver (static, with
# tools/embm's emu_oracle.c): $EMBM_BUILD/plugin/emu-test, when stale.
plugin_build_test() {
	local out=$EMBM_BUILD/plugin/emu-test f stale=0
	local srcs=("$PLUGIN_DIR/test/emu-test.c" "$EMBM_TOP/tools/embm/emu_oracle.c")
	[ -f "$out" ] || stale=1
	for f in "${srcs[@]}" "$EMBM_TOP/tools/embm/emu_oracle.h" \
		"$EMBM_TOP/include/uapi/linux/embm_emu.h"; do
		[ "$f" -nt "$out" ] && stale=1
	done
	[ "$stale" = 1 ] || return 0
	mkdir -p "$(dirname "$out")" || return 1
	quiet gcc -O2 -static -Wall -Wextra -I"$EMBM_TOP/tools/embm" \
		-isystem "$EMBM_TOP/include/uapi" -o "$out.tmp" "${srcs[@]}" -lnuma ||
		{ log "cannot build emu-test"; return 1; }
	mv "$out.tmp" "$out"
}

plugin_check_usage() {
	cat <<'TXT'
usage: scripts/embm emu-check [--kernel y|n|debug|FILE] [--quick]

Boots the guest with the embm-emu plugin and runs emu-test in it, with no
kernel driver: garbage in every field of the shared memory first (QEMU
must live on), then the doorbell on each CPU, the topology taken, the
oracle's exact counts of 10,000,000 loads and 1,000,000 stores to a buffer
on the last node (per page, address space and range), and a slot's records
(phys, node, source, op, ip; count / period of them; random periods).
--quick: 100 fuzz rounds and 1,000,000 loads.  Exits 1 on a failure.
TXT
}

cmd_emu_check() {
	local kernel=y rounds=300 loads=10000000 why
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift 2 ;;
		--quick) rounds=100 loads=1000000; shift ;;
		-h|--help) plugin_check_usage; return 0 ;;
		*) plugin_check_usage >&2; die "emu-check: unknown option '$1'" ;;
		esac
	done
	why=$(plugin_unavailable)
	[ -z "$why" ] || die "emu-check: $why"
	plugin_build && plugin_build_test || die "emu-check: cannot build"
	# The check drives the device itself: the kernel's driver stays off.
	run_guest 0 --kernel "$kernel" --timeout 600 \
		--append initcall_blacklist=embm_emu_driver_init \
		--add "$EMBM_BUILD/plugin/emu-test:/embm/bin/emu-test" -- \
		sh -c "emu-test fuzz -l $rounds && emu-test check -l $loads"
}
