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
	[ -z "$missing" ] && return 0
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
}
