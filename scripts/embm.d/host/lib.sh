# SPDX-License-Identifier: GPL-2.0
# embm: shared helpers of scripts/embm. Sourced, not run.

EMBM_BUILD=${EMBM_BUILD:-$EMBM_TOP/build}
KSRC=$EMBM_BUILD/linux			# git repo: tag pristine, branch embm
KTARBALL=${KTARBALL:-/usr/src/linux-source-6.12.tar.xz}
SERIES_DIR=$EMBM_TOP/scripts/embm.d/series
CONFIG_DIR=$EMBM_TOP/scripts/embm.d/config
GUEST_DIR=$EMBM_TOP/scripts/embm.d/guest
JOBS=${JOBS:-$(($(nproc) + 1))}

# Whoever signs the exported patches and maintains embm (the M: line of
# its MAINTAINERS entry, which reads the placeholder in the overlay):
# EMBM_IDENT_NAME and EMBM_IDENT_EMAIL from the environment, else the
# placeholder, about which 'scripts/embm patch' warns.
EMBM_IDENT_PLACEHOLDER_NAME="Your Name"
EMBM_IDENT_PLACEHOLDER_EMAIL="your.name@example.org"
EMBM_IDENT_NAME=${EMBM_IDENT_NAME:-$EMBM_IDENT_PLACEHOLDER_NAME}
EMBM_IDENT_EMAIL=${EMBM_IDENT_EMAIL:-$EMBM_IDENT_PLACEHOLDER_EMAIL}

# Paths of the overlay: everything here goes into the kernel patch.
OVERLAY_PATHS="Kconfig.embm MAINTAINERS.diff arch include kernel mm tools Documentation"

log()  { printf 'embm: %s\n' "$*" >&2; }
die()  { printf 'embm: error: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found; run 'scripts/embm deps'"; }

# Run a command quietly; on failure show the tail of its output.
quiet() {
	local out rc
	out=$(mktemp)
	"$@" >"$out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		# With parallel make the first error may be far from the end.
		grep -E -m 20 'error:|undefined reference|\*\*\* No rule' "$out" >&2
		tail -n 40 "$out" >&2
		log "failed ($rc): $*"
	fi
	rm -f "$out"
	return $rc
}

kgit() { git -C "$KSRC" "$@"; }
