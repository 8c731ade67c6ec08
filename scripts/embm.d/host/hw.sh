# SPDX-License-Identifier: GPL-2.0
# embm: the hardware lane of 'scripts/embm test'.  Where the host has a
# hardware PMU and a usable /dev/kvm, the y kernel boots under KVM with the
# host's CPU, and the guest's hw-sources forces pebs or ibs and checks it
# against embm-bench's ground truth.  Elsewhere one skip line says why.
# Sourced, not run.

# hw_pmu: 0 when a hardware counter counts here, with what counted in
# HW_PMU; else 1, with the reason in HW_PMU.
hw_pmu() {
	local out n d found=""
	if command -v perf >/dev/null 2>&1; then
		out=$(LC_ALL=C perf stat -x, -e instructions true 2>&1 >/dev/null |
			grep ',instructions' | head -n 1)
		n=${out%%,*}
		case $n in
		[1-9]*) HW_PMU="perf stat -e instructions: $n"; return 0 ;;
		?*)
			n=${n#<} n=${n%>}
			HW_PMU="no hardware PMU (perf stat -e instructions: $n)"
			return 1 ;;
		esac
	fi
	# No perf, or none that works here: the PMU's sysfs entry, and one
	# instructions counter read.
	for d in cpu cpu_core ibs_op; do
		[ -d "/sys/bus/event_source/devices/$d" ] && found="$found $d"
	done
	if [ -z "$found" ]; then
		HW_PMU="no hardware PMU (no cpu, cpu_core or ibs_op in /sys/bus/event_source/devices)"
		return 1
	fi
	n=$(python3 - 2>&1 <<'PY'
import ctypes, os, struct
# perf_event_attr (PERF_ATTR_SIZE_VER0): PERF_TYPE_HARDWARE,
# PERF_COUNT_HW_INSTRUCTIONS, exclude_kernel | exclude_hv, enabled.
attr = struct.pack("IIQQQQQ", 0, 64, 1, 0, 0, 0, 1 << 5 | 1 << 6).ljust(64, b"\0")
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(298, attr, 0, -1, -1, 0)   # __NR_perf_event_open, x86_64
if fd < 0:
    print("perf_event_open: " + os.strerror(ctypes.get_errno()))
else:
    sum(range(100000))
    print(struct.unpack("Q", os.read(fd, 8))[0])
PY
)
	case $n in
	[1-9]*) HW_PMU="${found# } PMU: instructions counter read $n"; return 0 ;;
	esac
	HW_PMU="no working hardware PMU (${found# } in sysfs; ${n:-no count})"
	return 1
}

# hw_kvm: 0 when QEMU can start a KVM machine here; else 1 with the reason
# in HW_KVM.
hw_kvm() {
	local out
	if [ ! -e /dev/kvm ]; then
		HW_KVM="no /dev/kvm"
		return 1
	fi
	if ! (exec 3<>/dev/kvm) 2>/dev/null; then
		HW_KVM="/dev/kvm not usable (cannot open it read-write)"
		return 1
	fi
	out=$(echo quit | timeout 30 qemu-system-x86_64 -enable-kvm -machine none \
		-nodefaults -display none -S -monitor stdio 2>&1 >/dev/null)
	if [ $? != 0 ]; then
		HW_KVM="/dev/kvm not usable (qemu -enable-kvm: ${out:-no answer in 30 s})"
		return 1
	fi
	HW_KVM="/dev/kvm"
}

# The lane: one skip line, or a KVM boot that runs hw-sources.
t_hw_lane() {
	local logf=$T_LOGDIR/boot-hw.log t0=$SECONDS pmu_ok=1 kvm_ok=1 rc line
	hw_pmu || pmu_ok=0
	hw_kvm || kvm_ok=0
	if [ $pmu_ok = 0 ] && [ $kvm_ok = 0 ]; then
		t_report skip "hardware lane: $HW_PMU and $HW_KVM"
		return 0
	elif [ $pmu_ok = 0 ]; then
		t_report skip "hardware lane: $HW_PMU"
		return 0
	elif [ $kvm_ok = 0 ]; then
		t_report skip "hardware lane: $HW_KVM (the host has a PMU: $HW_PMU)"
		return 0
	fi
	if [ ! -f "$EMBM_BUILD/obj-y/arch/x86/boot/bzImage" ]; then
		t_report fail "hardware lane: no y kernel to boot"
		return 0
	fi
	echo "hardware lane: $HW_PMU; booting the y kernel with -enable-kvm -cpu host"
	run_guest 0 --kvm --kernel y --timeout 600 --log "$logf" --append "loglevel=7" \
		-- run-tests /embm/bin/hw-sources >/dev/null 2>"$logf.err"
	rc=$?
	line=$(grep -m 1 'Performance Events:' "$logf" | sed 's/^\[[ 0-9.]*\] //')
	echo "hardware lane: the vPMU offered: ${line:-no \"Performance Events:\" line}"
	grep '^# ' "$logf" | sed 's/^/    | /'
	if [ $rc -le 1 ]; then
		t_report ok "hardware lane: KVM guest booted and ran hw-sources ($((SECONDS - t0)) s)"
	else
		t_report fail "hardware lane: KVM guest run ended with $rc"
		tail -n 30 "$logf" "$logf.err" | sed 's/^/    | /'
	fi
	t_guest_results "$logf" hw 0 0
}

# The lane's code and the guest scripts parse, wherever the lane runs.
t_hw_syntax() {
	local f bad=0
	for f in "$EMBM_TOP/scripts/embm.d/host/hw.sh" "$GUEST_DIR"/*; do
		bash -n "$f" || bad=1
		case $f in */hw.sh) continue ;; esac
		busybox sh -n "$f" || bad=1
	done
	return $bad
}
