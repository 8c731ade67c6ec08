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

# Fill the cover letter format-patch wrote ($1) from the series' own
# (scripts/embm.d/series/cover-letter.txt: a subject line, a blank line,
# the text), naming the base: Debian's package version and the upstream
# version it is.
patch_cover_letter() {
	local cover=$1 src=$SERIES_DIR/cover-letter.txt deb kver body
	deb=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || deb="(not installed)"
	kver=$(make -s -C "$KSRC" kernelversion) || return 1
	body=$(sed '1,2d' "$src" | sed "s/@LINUX_SOURCE_VERSION@/$deb/; s/@KERNELVERSION@/$kver/")
	awk -v subject="$(head -n 1 "$src")" -v body="$body" '
		{ sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ { print body; next }
		{ print }' "$cover" >"$cover.new" && mv "$cover.new" "$cover"
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
	[ "$EMBM_IDENT_EMAIL" = "$EMBM_IDENT_PLACEHOLDER_EMAIL" ] &&
		log "signing with the placeholder '$EMBM_IDENT_NAME <$EMBM_IDENT_EMAIL>': set EMBM_IDENT_NAME and EMBM_IDENT_EMAIL"
	tree_series
	patch_combined >"$out" || die "cannot write $out"
	# DIR may be the user's: only the series' own NNNN-*.patch files of
	# an earlier export are removed, never the directory or anything else.
	mkdir -p "$dir" || die "cannot create $dir"
	rm -f "$dir"/[0-9][0-9][0-9][0-9]-*.patch
	quiet kgit -c user.name="$EMBM_IDENT_NAME" -c user.email="$EMBM_IDENT_EMAIL" \
		format-patch -q --cover-letter -o "$(realpath "$dir")" pristine..embm ||
		die "format-patch failed"
	patch_cover_letter "$dir/0000-cover-letter.patch" || die "cannot write the cover letter"
	log "wrote $out ($(grep -c '^diff --git' "$out") files) and $(ls "$dir"/[0-9][0-9][0-9][0-9]-*.patch | wc -l) patches in $dir"
}

# The config symbols the Kconfig files of commit $1 define.
series_known_symbols() {
	kgit grep -h -E '^(menu)?config [A-Za-z0-9_]+' "$1" -- '*Kconfig*' |
		awk '{ print "CONFIG_" $2 }' | LC_ALL=C sort -u
}

# series_build_one COMMIT VARIANT: configure obj-series-VARIANT from the
# variant's fragments (allnoconfig, as build_config does) and build its
# bzImage.  A commit before the one that adds a symbol of the fragment
# (CONFIG_EMBM in the perf commits) does not know it: such symbols are not
# verified, every symbol the commit knows is.
series_build_one() {
	local c=$1 v=$2 obj=$EMBM_BUILD/obj-series-$2 frag known
	mkdir -p "$obj"
	frag=$obj/embm.fragment
	cat $(build_fragments "$v") >"$frag"
	quiet kmake O="$obj" KCONFIG_ALLCONFIG="$frag" allnoconfig || return 1
	known=$(series_known_symbols "$c")
	grep -E '^CONFIG_[A-Za-z0-9_]+=' "$frag" |
		while IFS= read -r line; do
			grep -qxF "${line%%=*}" <<<"$known" && printf '%s\n' "$line"
		done >"$frag.known"
	config_verify "$obj/.config" "$frag.known" || return 1
	quiet kmake O="$obj" bzImage
}

# Build every commit of branch embm with CONFIG_EMBM=y and =n; see usage.
cmd_series_build() {
	local range=${1:-} first=1 last=0 n=0 fail=0 t0=$SECONDS t1 c subj y nn stat fd=""
	case $range in
	'') ;;
	*-*) first=${range%-*}; last=${range#*-} ;;
	*) first=$range; last=$range ;;
	esac
	case $first$last in *[!0-9]*) die "series-build: bad range '$range' (N or N-M)" ;; esac
	need ccache
	tree_series
	[ -n "${EMBM_LOCK:-}" ] && { exec {fd}>>"$EMBM_LOCK" || die "cannot open $EMBM_LOCK"; }
	for c in $(kgit rev-list --reverse pristine..embm); do
		n=$((n + 1))
		[ "$n" -lt "$first" ] && continue
		[ "$last" -gt 0 ] && [ "$n" -gt "$last" ] && break
		subj=$(kgit log -1 --format=%s "$c")
		stat=$(kgit diff --shortstat "$c^" "$c" |
			awk '{ a = 0; d = 0; for (i = 1; i < NF; i++) {
				if ($(i + 1) ~ /^insertion/) a = $i
				if ($(i + 1) ~ /^deletion/) d = $i }
				printf "%d lines (+%d -%d)", a + d, a, d }')
		t1=$SECONDS
		[ -n "$fd" ] && flock "$fd"
		tree_checkout "$c"
		y=ok nn=ok
		series_build_one "$c" y || { y=FAILED; fail=1; }
		series_build_one "$c" n || { nn=FAILED; fail=1; }
		[ -n "$fd" ] && flock -u "$fd"
		printf '%04d %s: builds y %s / n %s, %s, %d s\n' "$n" "$subj" "$y" "$nn" \
			"$stat" $((SECONDS - t1))
	done
	[ -n "$fd" ] && flock "$fd"
	tree_checkout embm
	[ -n "$fd" ] && { flock -u "$fd"; exec {fd}>&-; }
	log "series-build: $((SECONDS - t0)) s, $([ $fail = 0 ] && echo "every commit built" || echo "FAILURES above")"
	return $fail
}
