# SPDX-License-Identifier: GPL-2.0
# embm: export the overlay as one patch and as a git-am series. Sourced.

# The whole change as one mail-style patch on stdout.
patch_combined() {
	local m
	printf 'From: %s <%s>\n' "$EMBM_IDENT_NAME" "$EMBM_IDENT_EMAIL"
	printf 'Subject: [PATCH] embm: per-node and per-tier memory access sampling\n\n'
	cat <<'TXT'
embm measures where a program's memory accesses go on a machine with
DRAM and CXL memory expanders: to which NUMA node and which tier.  This
is the whole series in one patch, for applying to a Linux 6.12 tree with
"patch -p1".  It holds these changes:

TXT
	for m in $(series_msgs); do
		printf -- '- %s\n' "$(head -n 1 "$m")"
	done
	printf '\nSigned-off-by: %s <%s>\n---\n' "$EMBM_IDENT_NAME" "$EMBM_IDENT_EMAIL"
	kgit diff --stat=72 pristine embm
	printf '\n'
	kgit diff pristine embm
}

cmd_patch() {
	local out=$EMBM_BUILD/embm.patch dir=$EMBM_BUILD/patches
	while [ $# -gt 0 ]; do
		case $1 in
		-o) out=$2; shift 2 ;;
		-d) dir=$2; shift 2 ;;
		*) die "patch: unknown argument '$1' (-o FILE, -d DIR)" ;;
		esac
	done
	tree_series
	patch_combined >"$out" || die "cannot write $out"
	# DIR may be the user's: only the series' own NNNN-*.patch files of
	# an earlier export are removed, never the directory or anything else.
	mkdir -p "$dir" || die "cannot create $dir"
	rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
	quiet kgit format-patch -q -o "$(realpath "$dir")" pristine..embm ||
		die "format-patch failed"
	log "wrote $out ($(grep -c '^diff --git' "$out") files) and $(ls "$dir"/[0-9][0-9][0-9][0-9]-*.patch | wc -l) patches in $dir"
}
