#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# embm-run's ways out: the knobs -S and -P write stay set while the
# session runs and are put back however embm-run ends (a start that
# fails, a knob that cannot be set, a command that cannot be run, a
# signal); and each error names its cause: the nodes with memory, a
# kernel thread, the running session's target and command, the
# perf_event_paranoid level and how to change it, ptrace access, the
# cgroup controllers; bad usage says what is wrong.
#
# The knobs are first set to values of the test's own (source swfault,
# period 5), so that "put back" cannot pass by chance, and restored at
# the end.  The permission cases run embm-run as nobody (uid 65534)
# through su; where there is no /etc/passwd (the embm guest) the test
# makes one naming nobody for that time, and skips them if su fails.
# The cgroup case needs a root cgroup.subtree_control never written since
# boot (a minimal init), and skips otherwise.
#
# Needs root, embm and embm-run on PATH; POSIX sh (busybox will do).

DIR=$(dirname "$0")
# Installed as kselftest lays it out: DIR/../kselftest/ktap_helpers.sh.
. "$DIR/../kselftest/ktap_helpers.sh"
tmp=$(mktemp -d) || exit 1
KNOBS=/sys/kernel/mm/embm
CG=/sys/fs/cgroup

# expect NAME CONDITION: ok if the shell CONDITION holds, evaluated here;
# if not, the output of the last embm-run is shown.
expect() {
	if eval "$2"; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1"
		for f in out err; do
			[ -s "$tmp/$f" ] && sed "s/^/# $f: /" "$tmp/$f"
		done
	fi
}

knob() {
	sed 's/.*\[\(.*\)\].*/\1/' "$KNOBS/$1"
}

# The knobs embm-run may write, as one word to compare.
knobs() {
	echo "$(knob source)/$(knob period)"
}

state() {
	sed -n 's/^state //p' /proc/embm/status
}

# Until a session runs; false after 20 s.
wait_running() {
	i=0
	while [ "$(state)" != running ] && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(state)" = running ]
}

# has TEXT: embm-run's stderr holds TEXT, a fixed string.
has() {
	grep -qF -- "$1" "$tmp/err"
}

ktap_print_header
if [ ! -r /proc/embm/status ] || ! command -v embm-run >/dev/null; then
	ktap_skip_all "no embm in this kernel, or no embm-run on PATH"
	exit "$KSFT_SKIP"
fi
if [ "$(id -u)" != 0 ]; then
	ktap_skip_all "needs root"
	exit "$KSFT_SKIP"
fi
if [ "$(state)" = running ]; then
	ktap_skip_all "a session is running already"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 28

RUN=$(command -v embm-run)
old_source=$(knob source)
old_period=$(knob period)
old_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
made_etc=""
made_cg=""
made_mount=""
made_pids=""
cleanup() {
	echo "$old_source" >$KNOBS/source
	echo "$old_period" >$KNOBS/period
	echo "$old_paranoid" >/proc/sys/kernel/perf_event_paranoid
	[ -n "$made_cg" ] && rmdir "$made_cg"
	[ -n "$made_pids" ] && echo -pids >$CG/cgroup.subtree_control
	[ -n "$made_mount" ] && umount $CG
	if [ -n "$made_etc" ]; then
		rm -f /etc/passwd /etc/group
		[ "$made_etc" = dir ] && rmdir /etc
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
echo swfault >$KNOBS/source
echo 5 >$KNOBS/period
BASE=swfault/5

# run ARGS...: embm-run ARGS, its output in $tmp/out and $tmp/err, its exit in $rc
run() {
	embm-run "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# 1: a forced source that cannot run here: exit 1, knobs as they were
src=""
for s in pebs ibs; do
	run -S $s -P 64 -- true
	if [ $rc = 1 ]; then
		src=$s
		break
	fi
done
if [ -z "$src" ]; then
	ktap_test_skip "pebs and ibs both run here: no source fails to start"
else
	ktap_print_msg "-S $src: $(cat "$tmp/err")"
	expect "failed start (-S $src): exit 1, knobs put back" '[ "$(knobs)" = $BASE ]'
fi

# 2: the knobs stay set while the command runs, and are put back after
run -o /dev/null -S swfault -P 0 -- cat $KNOBS/period
expect "-P 0: set while the command runs, put back after" \
	'[ $rc = 0 ] && [ "$(cat "$tmp/out")" = 0 ] && [ "$(knobs)" = $BASE ]'

# 3: the source is written, then a period the kernel refuses: both as before
run -S pebs -P 3x -- true
expect "bad period: exit 1, the source written before it put back" \
	'[ $rc = 1 ] && [ "$(knobs)" = $BASE ] && has "cannot set $KNOBS/period to '\''3x'\''"'

# 4-5: a signal to embm-run alone is passed on; the knobs come back after
for sig in TERM HUP; do
	embm-run -o /dev/null -S swfault -P 9 -- sleep 60 >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait_running
	during=$(knobs)
	kill -$sig $pid
	wait $pid
	rc=$?
	ktap_print_msg "SIG$sig: knobs $during while running, $(knobs) after, exit $rc"
	case $sig in TERM) want=143 ;; HUP) want=129 ;; esac
	expect "SIG$sig with a command: passed on (exit $want), knobs put back" \
		'[ $rc = $want ] && [ $during = swfault/9 ] && [ "$(knobs)" = $BASE ] &&
		 [ "$(state)" != running ]'
done

# 6-8: SIGQUIT, SIGPIPE and SIGHUP end a --system session cleanly
for sig in QUIT PIPE HUP; do
	embm-run -o /dev/null -S swfault -P 9 -s >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait_running
	during=$(knobs)
	kill -$sig $pid
	wait $pid
	rc=$?
	expect "SIG$sig ends --system: exit 0, session ended, knobs put back" \
		'[ $rc = 0 ] && [ $during = swfault/9 ] && [ "$(knobs)" = $BASE ] &&
		 [ "$(state)" != running ]'
done

# 9: a command that does not exist: its error, no report, 127, session ended
run -S swfault -P 9 -- /nonexistent
expect "command not found: exit 127, its error, no report, knobs put back" \
	'[ $rc = 127 ] &&
	 [ "$(cat "$tmp/err")" = "embm-run: cannot run /nonexistent: No such file or directory" ] &&
	 ! grep -q "node tier" "$tmp/out" && [ ! -s "$tmp/out" ] &&
	 [ "$(knobs)" = $BASE ] && [ "$(state)" != running ]'

# 10: one that cannot be run: 126
printf '#!/bin/sh\n' >"$tmp/noexec"
chmod 644 "$tmp/noexec"
run -- "$tmp/noexec"
expect "command not executable: exit 126, Permission denied, no report" \
	'[ $rc = 126 ] && has "cannot run $tmp/noexec: Permission denied" && [ ! -s "$tmp/out" ]'

# 11: --system with a command that does not exist: embm_end() ends the session
run -s -- /nonexistent
expect "--system, command not found: exit 127, session ended" \
	'[ $rc = 127 ] && [ "$(state)" != running ] && [ ! -s "$tmp/out" ]'

# 12: a node that does not exist
has_mem=$(cat /sys/devices/system/node/has_memory)
n=9
while [ -e /sys/devices/system/node/node$n ]; do
	n=$((n + 1))
done
run -n $n -- true
ktap_print_msg "$(cat "$tmp/err")"
expect "no such node: exit 1, the nodes with memory listed" \
	'[ $rc = 1 ] && has "node $n: no such node with memory; nodes with memory: $has_mem"'

# 13: a node without memory (CPUs only, or its memory offlined)
mem_nodes=$(echo "$has_mem" | awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-");
	for (j = r[1]; j <= (r[2] == "" ? r[1] : r[2]); j++) printf "%d ", j } }')
n=""
for d in /sys/devices/system/node/node[0-9]*; do
	case " $mem_nodes " in *" ${d##*node} "*) ;; *) n=${d##*node} ;; esac
done
if [ -z "$n" ]; then
	ktap_test_skip "every node has memory here"
else
	run -n "$n" -- true
	ktap_print_msg "$(cat "$tmp/err")"
	expect "node $n without memory: exit 1, said so" \
		'[ $rc = 1 ] && has "node $n has no memory; nodes with memory: $has_mem"'
fi

# 14: a kernel thread
run -p 2 -d 1
ktap_print_msg "$(cat "$tmp/err")"
expect "kernel thread: exit 1, named as one" \
	'[ $rc = 1 ] && [ "$(cat /proc/2/comm)" = kthreadd ] &&
	 has "pid 2 (kthreadd) is a kernel thread: it has no user memory to sample"'

# 15-18: bad usage says what is wrong and where to look, not the whole usage
usage() {
	text=$1
	shift
	run "$@"
	expect "usage: $text: exit 2" \
		'[ $rc = 2 ] && [ "$(head -n 1 "$tmp/err")" = "embm-run: $text" ] &&
		 [ "$(tail -n 1 "$tmp/err")" = "see embm-run --help" ] &&
		 [ $(wc -l <"$tmp/err") = 2 ]'
}
usage "no target: give a command, --pid, --system or --cgroup" -n 0
usage "--pid and a command cannot be combined" -p 1 -- true
usage "--pid and --system cannot be combined" -p 1 -s
usage "--cgroup and --system cannot be combined" -c $CG -s

# 19-21: a session runs: its target and command are named; with -P, no
# knob is written (a period the kernel would refuse shows it: the busy
# message comes instead of "cannot set")
embm-run -o /dev/null -- sleep 60 >/dev/null 2>&1 &
bg=$!
wait_running
target=$(sed -n 's/^target //p' /proc/embm/status)
run -S swfault -P 3x -- true
ktap_print_msg "$(cat "$tmp/err")"
expect "busy, with knobs: refused before any knob is written" \
	'[ $rc = 1 ] && [ "$(knobs)" = $BASE ] && ! has "cannot set" &&
	 has "a session is already running, on pid $target (sleep)"'
run -- true
expect "busy (the kernel's EBUSY): pid and comm of the target" \
	'[ $rc = 1 ] && has "a session is already running, on pid $target (sleep)"'
kill -TERM $bg
wait $bg
embm-run -o /dev/null -s >/dev/null 2>&1 &
bg=$!
wait_running
run -- true
kill -INT $bg
wait $bg
expect "busy, system-wide session: said so" \
	'[ $rc = 1 ] && has "a session is already running, system-wide"'

# 22-25: perf's rules, as nobody: the level, what it allows, how to change it
if [ ! -e /etc/passwd ]; then
	made_etc=file
	[ -d /etc ] || { mkdir /etc && made_etc=dir; }
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >/etc/passwd
	echo 'nogroup:x:65534:' >/etc/group
fi
# as_nobody ARGS...: run embm-run ARGS as nobody, who has no capabilities
as_nobody() {
	su -s /bin/sh nobody -c "$RUN $*" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
if [ "$(su -s /bin/sh nobody -c 'id -u' 2>/dev/null)" != 65534 ]; then
	for t in 1 2 3 4; do
		ktap_test_skip "cannot run a command as nobody with su"
	done
else
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	as_nobody -- true
	ktap_print_msg "$(cat "$tmp/err")"
	expect "paranoid 2, a command: the level, what it allows, the sysctl; not ptrace" \
		'[ $rc = 1 ] && has "kernel.perf_event_paranoid is 2, which allows" &&
		 has "physical addresses" && has "sysctl kernel.perf_event_paranoid=1" &&
		 has CAP_PERFMON && ! has ptrace'
	as_nobody -p 1 -d 1
	expect "paranoid 2, another user's process: the level refuses first, no ptrace" \
		'[ $rc = 1 ] && has "kernel.perf_event_paranoid is 2" && ! has ptrace'
	echo 1 >/proc/sys/kernel/perf_event_paranoid
	as_nobody -p 1 -d 1
	ktap_print_msg "$(cat "$tmp/err")"
	expect "paranoid 1, another user's process: ptrace, its user and ours" \
		'[ $rc = 1 ] && has "kernel.perf_event_paranoid is 1" && has ptrace &&
		 has "pid 1 (" && has "runs as uid 0" && has "you as uid 65534"'
	as_nobody -s -d 1
	ktap_print_msg "$(cat "$tmp/err")"
	expect "paranoid 1, system-wide: CPU-wide events need level 0" \
		'[ $rc = 1 ] && has "kernel.perf_event_paranoid is 1" && has CPU-wide &&
		 has "sysctl kernel.perf_event_paranoid=0"'
	echo "$old_paranoid" >/proc/sys/kernel/perf_event_paranoid
fi

# 26-28: a cgroup without the perf_event controller: the controllers, the
# one to enable; enabling it as told makes the same cgroup work; a
# session on it is named by its path
if [ ! -e $CG/cgroup.procs ] && mkdir -p $CG && mount -t cgroup2 cgroup2 $CG 2>/dev/null; then
	made_mount=1
fi
if [ ! -e $CG/cgroup.controllers ]; then
	for t in 1 2 3; do
		ktap_test_skip "no cgroup v2"
	done
elif [ -n "$(cat $CG/cgroup.subtree_control)" ]; then
	why="the root's cgroup.subtree_control enables controllers: perf_event is everywhere"
	for t in 1 2 3; do
		ktap_test_skip "$why"
	done
else
	made_cg=$CG/embm-errors-test
	mkdir $made_cg
	run -c $made_cg -- true
	ktap_print_msg "$(cat "$tmp/err")"
	avail=$(cat $CG/cgroup.controllers)
	expect "cgroup without perf_event: the controllers, the one to enable" \
		'[ $rc = 1 ] && has "controllers there: $avail" &&
		 has "echo +pids > $CG/cgroup.subtree_control"'
	echo +pids >$CG/cgroup.subtree_control && made_pids=1
	run -o /dev/null -c $made_cg -- true
	expect "after the hint, the same cgroup is sampled" '[ $rc = 0 ]'
	embm-run -o /dev/null -c $made_cg -- sleep 60 >/dev/null 2>&1 &
	bg=$!
	wait_running
	run -- true
	kill -TERM $bg
	wait $bg
	expect "busy, cgroup session: its path and id" \
		'[ $rc = 1 ] &&
		 has "a session is already running, on cgroup /embm-errors-test (id "'
fi

ktap_finished
