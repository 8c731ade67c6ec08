# SPDX-License-Identifier: GPL-2.0
# embm: install what the build, the guest and the tests need. Sourced.

# Debian package -> a file that shows it is installed.
DEPS="
linux-source-6.12:/usr/src/linux-source-6.12.tar.xz
linux-config-6.12:/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
build-essential:/usr/bin/gcc
bc:/usr/bin/bc
bison:/usr/bin/bison
flex:/usr/bin/flex
libelf-dev:/usr/include/libelf.h
libssl-dev:/usr/include/openssl/ssl.h
qemu-system-x86:/usr/bin/qemu-system-x86_64
ndctl:/usr/bin/cxl
linux-perf:/usr/bin/perf
prometheus:/usr/bin/promtool
gnuplot-nox:/usr/bin/gnuplot
busybox-static:/bin/busybox
libnuma-dev:/usr/include/numa.h
ccache:/usr/bin/ccache
cpio:/usr/bin/cpio
xz-utils:/usr/bin/xz
kmod:/usr/bin/kmod
python3:/usr/bin/python3
python3-sphinx:/usr/bin/sphinx-build
python3-ply:/usr/lib/python3/dist-packages/ply/__init__.py
python3-git:/usr/lib/python3/dist-packages/git/__init__.py
git:/usr/bin/git
patch:/usr/bin/patch
perl:/usr/bin/perl
"

cmd_deps() {
	local missing="" d
	for d in $DEPS; do
		[ -e "${d#*:}" ] || missing="$missing ${d%%:*}"
	done
	if [ -z "$missing" ]; then
		deps_qemu10
		return 0
	fi
	log "installing:$missing"
	[ "$(id -u)" = 0 ] || die "not root: install as root with apt-get install$missing"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		$missing >/dev/null 2>&1; then
		quiet apt-get update -q ||
			die "apt-get update failed (no network?); install by hand:$missing"
		DEBIAN_FRONTEND=noninteractive quiet apt-get install -y -q \
			--no-install-recommends $missing ||
			die "apt-get install failed; install by hand:$missing"
	fi
	for d in $DEPS; do
		[ -e "${d#*:}" ] || die "${d%%:*} did not install ${d#*:}"
	done
	deps_qemu10
}

# QEMU 10 from Debian's bookworm-backports, for every guest: from QEMU 8.2 a
# TCG plugin sees guest physical addresses (7.2 gave offsets into QEMU's RAM
# blocks).  Only qemu-system-x86 and what it needs come from backports.
DEPS_QEMU_MAJOR=10
DEPS_QEMU_SOURCES=/etc/apt/sources.list.d/embm-backports.sources

# The major version of the installed qemu-system-x86_64, or 0.
deps_qemu_major() {
	qemu-system-x86_64 --version 2>/dev/null |
		sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p' | grep . || echo 0
}

# The deb822 stanza of bookworm-backports on the mirror and with the key that
# the machine's own sources use for bookworm (deb822 files or sources.list).
deps_backports_stanza() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$DEPS_QEMU_SOURCES" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     $0 ~ /(^|\n)Suites:([^\n]* )?bookworm( |\n|$)/ && $0 ~ /(^|\n)Types:[^\n]*deb( |\n|$)/ {
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) uri = $i
				if ($i ~ /^Signed-By:/) key = $i
			}
			if (uri != "") { print "Types: deb"; print uri
				print "Suites: bookworm-backports"; print "Components: main"
				if (key != "") print key; exit }
		     }' "$f" | grep . && return 0
	done
	# One-line format: deb [signed-by=KEY] URI bookworm main ...
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" {
			key = ""; i = 2
			if ($i ~ /^\[/) {
				for (; i <= NF; i++) {
					if ($i ~ /signed-by=/) key = $i
					if ($i ~ /\]$/) break
				}
				i++
			}
			if ($(i + 1) != "bookworm") next
			gsub(/[][]/, "", key); sub(/.*signed-by=/, "", key)
			print "Types: deb"; print "URIs: " $i
			print "Suites: bookworm-backports"; print "Components: main"
			if (key != "") print "Signed-By: " key
			exit }' | grep .
}

# Install QEMU 10 from bookworm-backports unless it is there.  On failure,
# say why once, keep the QEMU there is, and write the reason to
# $EMBM_BUILD/qemu.unavailable for what needs QEMU 10 to report and skip with.
deps_qemu10() {
	local why="" stanza
	rm -f "$EMBM_BUILD/qemu.unavailable"
	[ "$(deps_qemu_major)" -ge "$DEPS_QEMU_MAJOR" ] && return 0
	. /etc/os-release 2>/dev/null
	if [ "${VERSION_CODENAME:-}" != bookworm ]; then
		why="not Debian 12 (bookworm): no bookworm-backports for this system"
	elif [ "$(id -u)" != 0 ]; then
		why="not root: cannot add bookworm-backports"
	elif ! stanza=$(deps_backports_stanza); then
		why="no bookworm entry in the apt sources to take the mirror from"
	else
		log "installing qemu-system-x86 $DEPS_QEMU_MAJOR from bookworm-backports"
		printf '%s\n' "# Added by embm's scripts/embm deps: QEMU from backports." \
			"$stanza" >"$DEPS_QEMU_SOURCES"
		if ! quiet apt-get update -q; then
			why="apt-get update with bookworm-backports failed (mirror unreachable?)"
		elif ! DEBIAN_FRONTEND=noninteractive quiet apt-get install -y -q \
				--no-install-recommends -t bookworm-backports qemu-system-x86; then
			why="apt-get install -t bookworm-backports qemu-system-x86 failed"
		elif [ "$(deps_qemu_major)" -lt "$DEPS_QEMU_MAJOR" ]; then
			why="bookworm-backports gave QEMU $(deps_qemu_major), not $DEPS_QEMU_MAJOR"
		fi
	fi
	[ -z "$why" ] && return 0
	log "QEMU $DEPS_QEMU_MAJOR unavailable, keeping QEMU $(deps_qemu_major): $why"
	mkdir -p "$EMBM_BUILD" && printf '%s\n' "$why" >"$EMBM_BUILD/qemu.unavailable"
	return 0
}
