# SPDX-License-Identifier: GPL-2.0
# embm: boot the patched kernel in QEMU (TCG; KVM with --kvm) with a NUMA
# topology and run a command in a busybox initramfs. Sourced, not run.

RUN_NUMA_DEFAULT="2:1G,2:1G,0:1G"

run_usage() {
	cat <<'TXT'
usage: scripts/embm run [OPTIONS] [-- CMD [ARGS]]
       scripts/embm shell [OPTIONS]

  --kernel y|n|debug|FILE
                     kernel to boot: y = CONFIG_EMBM=y (default), n = the
                     CONFIG_EMBM=n build, debug = y with lockdep, KASAN,
                     kmemleak, fault injection and other debug checks
                     (scripts/embm build debug), or a bzImage
  --numa SPEC        nodes as CPUS:MEM,...; default 2:1G,2:1G,0:1G: node 0
                     CPUs 0-1 + 1 GiB, node 1 CPUs 2-3 + 1 GiB, node 2 1 GiB
                     and no CPUs (how a CXL memory expander appears)
  --cxl              add a CXL memory expander: a q35 machine with CXL on,
                     a pxb-cxl host bridge, a root port, a cxl-type3
                     device with 1 GiB (persistent, as QEMU 7.2 has it)
                     and a 4 GiB fixed memory window; Linux gives the
                     window a node of its own, after the --numa ones.
                     The guest's 'cxl-online' makes the region, a devdax
                     namespace and onlines it as System RAM there (with
                     Debian's cxl and ndctl, put into the guest).
                     Needs the y, debug or coverage kernel (cxl.config)
  --add FILE[:PATH]  put FILE into the guest at PATH (default /NAME);
                     repeatable
  --append ARGS      extra kernel command line
  --timeout SECONDS  kill a guest that has not finished (default 900)
  --boot-wait SECONDS
                     kill a guest that has not reached its init by then
                     (default 600; exit status 126)
  --kvm              KVM with the host's CPU (-enable-kvm -cpu host)
                     instead of TCG with -cpu max: the guest gets a vPMU
                     when the host has a PMU (the hardware lane of
                     'scripts/embm test'); needs a usable /dev/kvm
  --log FILE         keep the whole console output in FILE
  --verbose          show the boot log and all kernel messages
  --no-emu           boot without the embm-emu plugin and its device
  --emu-args A=B,... more arguments of the embm-emu plugin (see
                     scripts/embm.d/plugin/embm-emu.c: ring=, pages=,
                     oracle=on, lat_cxl=NS[:SD], mhz=, seed=, cache=on, ...)
  --oracle FILE      write the plugin's exact counts to FILE at the end
                     (out=FILE; with oracle=on they count from boot)

Every guest boots under TCG with the embm-emu plugin (QEMU 10; emulated
precise sampling and exact counts, include/uapi/linux/embm_emu.h) and its
shared memory, an ivshmem-plain device (1af4:1110) whose BAR 2 is a file
/dev/shm/embm-emu.PID.XXXX, removed after; without QEMU 10, or with
--kvm, it boots without them and says why.

CMD runs under /bin/sh in the guest, in /, with /embm/bin on PATH; the
default prints the topology.  The exit status is CMD's; 124 when the guest
was killed after the timeout; 125 when it died without reporting one;
126 when it did not reach its init within --boot-wait (a hang while the
kernel boots), QEMU failed one of its assertions before it did, or, under
TCG, the kernel's RCU stall report said "timer-softirq=0" (a suspected
timer-delivery fault of the emulator).
TXT
}

# Quote for the guest's sh.
sh_quote() {
	local a out=""
	for a in "$@"; do
		out="$out '${a//\'/\'\\\'\'}'"
	done
	printf '%s\n' "${out# }"
}

# Megabytes of a size such as 512M or 1G.
size_mb() {
	case $1 in
	*[gG]) echo $((${1%[gG]} * 1024)) ;;
	*[mM]) echo $((${1%[mM]})) ;;
	*) return 1 ;;
	esac
}

# QEMU arguments for a topology spec; sets RUN_QARGS, RUN_CPUS, RUN_MEM.
run_numa() {
	local spec=$1 i=0 cpu=0 n cpus mem mb j d
	RUN_QARGS=() RUN_CPUS=0 RUN_MEM=0
	IFS=, read -r -a nodes <<<"$spec"
	[ ${#nodes[@]} -ge 1 ] || die "--numa: empty spec"
	for n in "${nodes[@]}"; do
		cpus=${n%%:*}
		mem=${n#*:}
		[[ $cpus =~ ^[0-9]+$ ]] && mb=$(size_mb "$mem") && [ "$mb" -gt 0 ] ||
			die "--numa: '$n' is not CPUS:SIZE (e.g. 2:1G or 0:512M)"
		RUN_QARGS+=(-object "memory-backend-ram,id=mem$i,size=${mb}M")
		if [ "$cpus" -gt 0 ]; then
			RUN_QARGS+=(-numa "node,nodeid=$i,memdev=mem$i,cpus=$cpu-$((cpu + cpus - 1))")
		else
			RUN_QARGS+=(-numa "node,nodeid=$i,memdev=mem$i")
		fi
		cpu=$((cpu + cpus))
		RUN_MEM=$((RUN_MEM + mb))
		i=$((i + 1))
	done
	RUN_CPUS=$cpu
	[ "$RUN_CPUS" -ge 1 ] || die "--numa: no node has CPUs"
	# One socket per node with CPUs, so no cache is shared across nodes
	# (the kernel warns if it is); one CPU a socket if counts differ.
	local per="" sockets=0
	for n in "${nodes[@]}"; do
		cpus=${n%%:*}
		[ "$cpus" -gt 0 ] || continue
		sockets=$((sockets + 1))
		[ -z "$per" ] || [ "$per" = "$cpus" ] || per=1
		[ -n "$per" ] || per=$cpus
	done
	[ $((sockets * per)) = "$RUN_CPUS" ] || sockets=$RUN_CPUS per=1
	RUN_SMP="$RUN_CPUS,sockets=$sockets,cores=$per,threads=1"
	# Distances: 10 local, 21 between nodes with CPUs, 30 to a memory-only node.
	for ((j = 0; j < i; j++)); do
		for ((n = j + 1; n < i; n++)); do
			d=21
			[ "${nodes[j]%%:*}" = 0 ] || [ "${nodes[n]%%:*}" = 0 ] && d=30
			RUN_QARGS+=(-numa "dist,src=$j,dst=$n,val=$d")
		done
	done
}

# QEMU arguments of the CXL expander ('--cxl'), after the NUMA ones: one
# type-3 device with 1 GiB behind a host bridge and a root port, a 4 GiB
# window.  The CPU (TCG's or KVM's) says no hypervisor, or 6.12 refuses to
# commit a region (it cannot flush caches by range under one); QEMU 7.2's
# device has no event interrupts, so no MSI (pci=nomsi) or cxl_pci fails
# its probe.
RUN_CXL_QARGS=(
	-object memory-backend-ram,id=cxl-mem0,size=1G
	-object memory-backend-ram,id=cxl-lsa0,size=1M
	-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
	-device cxl-rp,port=0,bus=cxl.1,id=root_port13,chassis=0,slot=2
	-device cxl-type3,bus=root_port13,memdev=cxl-mem0,lsa=cxl-lsa0,id=cxl-pmem0
	-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
)

# Debian's cxl and ndctl, and every library they load, into the
# initramfs at ROOT (the guest has no /lib otherwise).
run_add_cxl_tools() {
	local root=$1 b lib
	for b in /usr/bin/cxl /usr/bin/ndctl; do
		[ -x "$b" ] || die "$b missing; run 'scripts/embm deps'"
		mkdir -p "$root/usr/bin" && cp "$b" "$root/usr/bin/"
		! ldd "$b" | grep 'not found' || die "$b: a library is missing"
		for lib in $(ldd "$b" | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }'); do
			mkdir -p "$root/$(dirname "$lib")" && cp -L "$lib" "$root/$lib"
		done
	done
}

# Make the initramfs: busybox, init, guest programs, added files, command.
run_initramfs() {
	local out=$1 cmdfile=$2 root f src dst rc
	shift 2
	# A directory of its own: guests may be booted side by side.
	mkdir -p "$EMBM_BUILD" && root=$(mktemp -d "$EMBM_BUILD/initramfs.XXXXXX") || return 1
	# mktemp -d makes it 0700: the guest's / must let every user through.
	chmod 755 "$root" || return 1
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,embm/bin} || return 1
	cp /bin/busybox "$root/bin/busybox" || die "busybox-static missing; run 'scripts/embm deps'"
	cp "$GUEST_DIR/init" "$root/init"
	for f in "$GUEST_DIR"/*; do
		[ "$(basename "$f")" = init ] || cp "$f" "$root/embm/bin/"
	done
	[ -d "$EMBM_BUILD/guest/bin" ] && cp -r "$EMBM_BUILD/guest/bin/." "$root/embm/bin/"
	# kselftest's helpers, at ../kselftest from the tests as installed.
	[ -d "$EMBM_BUILD/guest/kselftest" ] && cp -r "$EMBM_BUILD/guest/kselftest" "$root/embm/"
	for f in "$@"; do
		src=${f%%:*}
		dst=${f#*:}
		[ "$dst" = "$f" ] && dst=/$(basename "$src")
		[ -e "$src" ] || die "--add: no such file: $src"
		mkdir -p "$root/$(dirname "$dst")"
		cp -r "$src" "$root/$dst"
	done
	[ "$RUN_CXL" = 1 ] && run_add_cxl_tools "$root"
	[ -n "$cmdfile" ] && cp "$cmdfile" "$root/embm/cmd"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
	rc=$?
	rm -rf "$root"
	return $rc
}

# run_guest INTERACTIVE ARGS...: the body of 'run' and 'shell'.
run_guest() {
	local interactive=$1 kernel=y numa=$RUN_NUMA_DEFAULT append="" timeout=900 boot_wait=600
	local logf="" verbose=0 adds=() cmdfile="" rc initrd tmp accel=(-accel tcg -cpu max)
	local machine=() mem emu=1 emu_args="" oracle="" shm="" why
	RUN_CXL=0
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift 2 ;;
		--numa) numa=$2; shift 2 ;;
		--add) adds+=("$2"); shift 2 ;;
		--cxl) RUN_CXL=1; shift ;;
		--append) append="$append $2"; shift 2 ;;
		--timeout) timeout=$2; shift 2 ;;
		--boot-wait) boot_wait=$2; shift 2 ;;
		--log) logf=$2; shift 2 ;;
		--verbose) verbose=1; shift ;;
		--kvm) accel=(-enable-kvm -cpu host); shift ;;
		--no-emu) emu=0; shift ;;
		--emu-args) emu_args=${emu_args:+$emu_args,}$2; shift 2 ;;
		--oracle) oracle=$2; shift 2 ;;
		-h|--help) run_usage; return 0 ;;
		--) shift; break ;;
		*) run_usage >&2; die "run: unknown option '$1'" ;;
		esac
	done
	case $kernel in
	y|n|debug) kernel=$EMBM_BUILD/obj-$kernel/arch/x86/boot/bzImage ;;
	esac
	[ -f "$kernel" ] || die "no kernel at $kernel; run 'scripts/embm build'"
	[[ $timeout =~ ^[0-9]+$ ]] || die "--timeout: not a number of seconds: $timeout"
	[[ $boot_wait =~ ^[0-9]+$ ]] || die "--boot-wait: not a number of seconds: $boot_wait"
	need qemu-system-x86_64
	run_numa "$numa"
	mem=${RUN_MEM}M
	if [ "$RUN_CXL" = 1 ]; then
		accel[${#accel[@]}-1]+=,hypervisor=off
		machine=(-M q35,cxl=on)
		mem=${RUN_MEM}M,maxmem=$((RUN_MEM + 8192))M,slots=8
		RUN_QARGS+=("${RUN_CXL_QARGS[@]}")
		append=" pci=nomsi$append"
	fi

	tmp=$(mktemp -d)
	if [ "$interactive" = 0 ]; then
		cmdfile=$tmp/cmd
		if [ $# -gt 0 ]; then
			sh_quote "$@" >"$cmdfile"
		else
			echo topology >"$cmdfile"
		fi
	fi
	initrd=$tmp/initramfs.cpio.gz
	run_initramfs "$initrd" "$cmdfile" "${adds[@]}" || die "cannot make the initramfs"
	# User arguments last, so that e.g. loglevel=7 overrides quiet.
	if [ "$verbose" = 1 ]; then append=" embm.verbose$append"; else append=" quiet$append"; fi
	[ -n "$logf" ] || logf=$tmp/console.log
	if [ "$emu" = 1 ]; then
		why=$(plugin_unavailable)
		[ "${accel[0]}" = -enable-kvm ] && why="TCG plugins do not run under --kvm"
		if [ -n "$why" ]; then
			[ -n "${RUN_EMU_SAID:-}" ] || log "booting without the embm-emu plugin: $why"
			RUN_EMU_SAID=1 emu=0
		fi
	fi
	if [ "$emu" = 1 ]; then
		if [ -n "$oracle" ]; then
			case $oracle in /*) ;; *) oracle=$PWD/$oracle ;; esac
			case $oracle in *,*) die "--oracle: no commas in the path, please" ;; esac
			emu_args="out=$oracle${emu_args:+,$emu_args}"
		fi
		plugin_build || die "cannot build the embm-emu plugin"
		shm=$(mktemp /dev/shm/embm-emu.$$.XXXX) || die "cannot make a file in /dev/shm"
		if [ "$RUN_CXL" = 1 ]; then
			plugin_qemu_args "$shm" "$RUN_CPUS" "$emu_args" pcie.0
		else
			plugin_qemu_args "$shm" "$RUN_CPUS" "$emu_args"
		fi
		RUN_QARGS+=("${PLUGIN_QARGS[@]}")
	elif [ -n "$oracle$emu_args" ]; then
		log "--oracle and --emu-args: ignored, the embm-emu plugin is off"
	fi

	local qemu=(qemu-system-x86_64 "${accel[@]}" "${machine[@]}" -smp "$RUN_SMP" -m "$mem"
		"${RUN_QARGS[@]}" -kernel "$kernel" -initrd "$initrd" -no-reboot
		-append "console=ttyS0 panic=-1$append")
	if [ "$interactive" = 1 ]; then
		"${qemu[@]}" -nographic
		rc=$?
	else
		# Two watchers, each acting only while the guest runs ($tmp/done
		# is made the moment QEMU's pipeline ends) and this script lives.
		# A guest that hangs while its kernel boots (seen once: the
		# debug kernel on q35 with CXL, at PCI enumeration, every vCPU
		# idle in QEMU; the same boot ran in 15 s four times after) is
		# killed when it has not said EMBM-INIT by --boot-wait.
		: >"$logf"
		(
			sleep "$boot_wait"
			if [ ! -e "$tmp/done" ] && ! grep -q '^EMBM-INIT$' "$logf" 2>/dev/null; then
				touch "$tmp/boot-hung"
				pkill -f -- "-initrd $initrd"
			fi
		) </dev/null >/dev/null 2>&1 &
		local watchdog=$!
		# A suspected TCG timer-delivery fault (seen once: the q35 guest
		# with CXL, CPU 3 idle from boot with no timer softirq at all,
		# named by the kernel's RCU stall report; the sessions then lost
		# that CPU's samples and the guest hung at last): the guest is
		# killed when the kernel says "timer-softirq=0" (its count of
		# timer softirqs since boot on the CPU of RCU's grace-period
		# thread, overdue by seconds).  Not under KVM, where the timer
		# is the host's and the kernel under test the likelier cause.
		# The console's tr is line-buffered: the log is read as it grows.
		local stallwatch=""
		if [ "${accel[0]}" != -enable-kvm ]; then
			(
				while sleep 5 && [ ! -e "$tmp/done" ] && kill -0 $$ 2>/dev/null; do
					if grep -q 'Possible timer handling issue on cpu=[0-9][0-9]* timer-softirq=0$' \
						"$logf" 2>/dev/null; then
						[ -e "$tmp/done" ] || touch "$tmp/vcpu-stalled"
						pkill -f -- "-initrd $initrd"
						break
					fi
				done
			) </dev/null >/dev/null 2>&1 &
			stallwatch=$!
		fi
		timeout -k 10 "$timeout" "${qemu[@]}" -display none -monitor none \
			-serial stdio </dev/null 2>&1 | stdbuf -oL tr -d '\r' | tee "$logf" |
			grep --line-buffered -v -e '^EMBM-EXIT ' -e '^EMBM-INIT$' -e '^EMBM-B64 ' \
				-e 'reboot: Restarting system'
		rc=${PIPESTATUS[0]}
		: >"$tmp/done"
		pkill -P "$watchdog" 2>/dev/null
		kill "$watchdog" 2>/dev/null
		wait "$watchdog" 2>/dev/null
		if [ -n "$stallwatch" ]; then
			pkill -P "$stallwatch" 2>/dev/null
			kill "$stallwatch" 2>/dev/null
			wait "$stallwatch" 2>/dev/null
		fi
		if [ -e "$tmp/vcpu-stalled" ]; then
			log "suspected TCG timer-delivery fault, guest killed (the kernel:" \
			    "$(grep -m 1 'Possible timer handling issue' "$logf" |
			       sed 's/^\[[ 0-9.]*\] //; s/[[:space:]]\+/ /g'))"
			rc=126
		elif [ -e "$tmp/boot-hung" ]; then
			log "guest did not reach its init within $boot_wait s: killed (see --boot-wait)"
			rc=126
		elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
			log "guest did not finish within $timeout s: killed (see --timeout)"
			rc=124
		elif [ "$rc" = 134 ] && ! grep -q '^EMBM-INIT$' "$logf" &&
		     grep -q 'Assertion .* failed' "$logf"; then
			# One of QEMU's own assertions (SIGABRT) before the
			# guest's init (seen once: QEMU 10.0.2's iotlb_to_section,
			# during PCI probing): a boot failure, as a hang.  Any
			# other crash (the embm-emu plugin's, say) is not.
			log "QEMU failed an assertion before the guest reached its init:" \
			    "$(grep -m 1 'Assertion .* failed' "$logf" | cut -c1-160)"
			rc=126
		elif grep -q '^EMBM-EXIT [0-9]*$' "$logf"; then
			rc=$(sed -n 's/^EMBM-EXIT \([0-9]*\)$/\1/p' "$logf" | tail -n 1)
		else
			log "guest stopped without reporting an exit status (panic?); qemu said $rc"
			rc=125
		fi
	fi
	rm -rf "$tmp"
	[ -z "$shm" ] || rm -f "$shm"
	return "$rc"
}

cmd_run() { run_guest 0 "$@"; }
cmd_shell() { run_guest 1 "$@"; }
