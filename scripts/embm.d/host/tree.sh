# SPDX-License-Identifier: GPL-2.0
# embm: the kernel tree. A git repository at $KSRC holds the pristine
# linux-source-6.12 (tag "pristine"); the overlay in this repo becomes the
# patch series on branch "embm", built with git plumbing from the series
# files in scripts/embm.d/series/. Sourced, not run.
#
# A series file (NN-name.msg, in C-locale order) is one commit: its message,
# a "Files:" line, then the overlay files the commit holds, one a line, used
# in that order.  An entry is either
#   - a whole file (kernel/events/kernel_rb.c): written as it is, or
#   - a step, any file ending in .diff (kernel/events/core.c.group.diff):
#     applied with git apply to what the earlier entries and commits made.
# A step may change an upstream file or a file the series adds: a step
# from /dev/null creates it ("new file mode"), later steps grow it, so that
# a new file (mm/embm/Makefile, a header, a KUnit file) can grow across
# commits.  A file the series adds is in the overlay at its own path with
# its final content, listed as a whole file in the last commit that
# changes it; that entry replaces what the steps made, so the tip of the
# series is always the overlay.  series_check refuses a step listed after
# the whole file of its path.  Steps are named PATH.TOPIC.diff, and
# 'scripts/embm step-diff PATH OLD NEW' writes one.  See
# scripts/embm.d/series/README for how to cut a commit in two.

# Unpack linux-source-6.12 into $KSRC once.
tree_pristine() {
	[ -d "$KSRC/.git" ] && kgit rev-parse -q --verify pristine >/dev/null && return 0
	[ -f "$KTARBALL" ] || die "$KTARBALL missing; run 'scripts/embm deps'"
	local tmp=$EMBM_BUILD/linux.unpack
	log "unpacking $(basename "$KTARBALL") (once)"
	rm -rf "$tmp" "$KSRC"
	mkdir -p "$tmp"
	tar -xf "$KTARBALL" -C "$tmp" || die "cannot unpack $KTARBALL"
	mv "$tmp"/linux-source-* "$KSRC" && rmdir "$tmp"
	# Debian's .gitignore ignores the top level: add with -f.
	quiet git -C "$KSRC" init -q &&
	kgit config user.name "$EMBM_IDENT_NAME" &&
	kgit config user.email "$EMBM_IDENT_EMAIL" &&
	kgit config gc.auto 0 &&
	quiet kgit add -f . &&
	quiet kgit commit -q -m "linux-source-6.12 $(make -s -C "$KSRC" kernelversion)" &&
	kgit tag pristine || die "cannot make the pristine git tree"
}

# The series files, in order (C locale: 01-x before 01a-y on every host).
series_msgs() { printf '%s\n' "$SERIES_DIR"/*.msg | LC_ALL=C sort; }

# Commit message of a series file: everything before the "Files:" line.
series_message() {
	# The message without the blank lines before "Files:".
	sed '/^Files:$/,$d' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
	printf '\nSigned-off-by: %s <%s>\n' "$EMBM_IDENT_NAME" "$EMBM_IDENT_EMAIL"
}

# Overlay files of a series file: the lines after "Files:".
series_files() { sed '1,/^Files:$/d' "$1" | sed '/^[[:space:]]*$/d; /^#/d'; }

# Every overlay file on disk, relative to the repo top.
overlay_files() {
	(cd "$EMBM_TOP" && find $OVERLAY_PATHS -type f 2>/dev/null | LC_ALL=C sort)
}

# Overlay files named by no series file, and series entries that are missing.
series_check() {
	local listed bad=0 f
	listed=$(for m in $(series_msgs); do series_files "$m"; done | LC_ALL=C sort)
	for f in $(overlay_files); do
		grep -qxF "$f" <<<"$listed" || { log "not in any series file: $f"; bad=1; }
	done
	for f in $listed; do
		[ -f "$EMBM_TOP/$f" ] || { log "series names a missing file: $f"; bad=1; }
	done
	[ -z "$(uniq -d <<<"$listed")" ] || { log "listed twice: $(uniq -d <<<"$listed")"; bad=1; }
	series_check_steps || bad=1
	return $bad
}

# A step with the placeholder identity (the M: line of MAINTAINERS.diff)
# replaced by EMBM_IDENT_NAME <EMBM_IDENT_EMAIL>.
series_ident_filter() {
	local from="$EMBM_IDENT_PLACEHOLDER_NAME <$EMBM_IDENT_PLACEHOLDER_EMAIL>"
	local to="$EMBM_IDENT_NAME <$EMBM_IDENT_EMAIL>"
	[ "$from" = "$to" ] && { cat; return; }
	awk -v from="$from" -v to="$to" '{
		if ((i = index($0, from)) > 0)
			$0 = substr($0, 1, i - 1) to substr($0, i + length(from))
		print
	}'
}

# Paths a step (a .diff) changes, from its "+++ b/PATH" lines.
step_paths() { sed -n 's|^+++ b/||p' "$1"; }

# No step of a path comes after the whole file of that path: the tip of the
# series must be the overlay file.
series_check_steps() {
	local m f p whole="" bad=0
	for m in $(series_msgs); do
		for f in $(series_files "$m"); do
			case $f in
			*.diff)
				for p in $(step_paths "$EMBM_TOP/$f"); do
					grep -qxF "$p" <<<"$whole" || continue
					log "$f changes $p after its whole file: list the whole file last"
					bad=1
				done
				;;
			*)	whole+="$f"$'\n' ;;
			esac
		done
	done
	return $bad
}

# step_diff PATH OLD NEW: the step from file OLD (/dev/null: none yet) to
# file NEW, for PATH in the tree, in the form tree_series applies.
step_diff() {
	local path=$1 old=$2 new=$3
	printf 'diff --git a/%s b/%s\n' "$path" "$path"
	if [ "$old" = /dev/null ]; then
		printf 'new file mode 100644\n'
		diff -u --label /dev/null --label "b/$path" /dev/null "$new"
	else
		diff -u --label "a/$path" --label "b/$path" "$old" "$new"
	fi
	[ $? -le 1 ]
}

cmd_step_diff() {
	[ $# = 3 ] || die "usage: scripts/embm step-diff PATH OLD|/dev/null NEW"
	[ -f "$3" ] || die "step-diff: no file $3"
	[ "$2" = /dev/null ] || [ -f "$2" ] || die "step-diff: no file $2"
	step_diff "$@"
}

# Build branch "embm": one commit per series file on top of "pristine".
# Dates are fixed so unchanged input gives the same commits.
tree_series() {
	tree_pristine
	series_check || die "the series files and the overlay disagree"
	local index=$EMBM_BUILD/series.index parent m f mode blob tree
	parent=$(kgit rev-parse pristine) || die "no pristine tree"
	rm -f "$index"
	GIT_INDEX_FILE=$index kgit read-tree pristine || die "read-tree failed"
	for m in $(series_msgs); do
		for f in $(series_files "$m"); do
			case $f in
			*.diff)
				series_ident_filter <"$EMBM_TOP/$f" |
					(cd "$KSRC" && GIT_INDEX_FILE=$index git apply --cached --recount) ||
					die "$f does not apply"
				;;
			*)
				mode=100644
				[ -x "$EMBM_TOP/$f" ] && mode=100755
				blob=$(kgit hash-object -w --no-filters "$EMBM_TOP/$f") &&
				GIT_INDEX_FILE=$index kgit update-index --add \
					--cacheinfo "$mode,$blob,$f" || die "cannot add $f"
				;;
			esac
		done
		tree=$(GIT_INDEX_FILE=$index kgit write-tree) || die "write-tree failed"
		parent=$(series_message "$m" |
			GIT_AUTHOR_NAME=$EMBM_IDENT_NAME GIT_AUTHOR_EMAIL=$EMBM_IDENT_EMAIL \
			GIT_COMMITTER_NAME=$EMBM_IDENT_NAME GIT_COMMITTER_EMAIL=$EMBM_IDENT_EMAIL \
			GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
			kgit commit-tree "$tree" -p "$parent") || die "commit-tree failed for $m"
	done
	rm -f "$index"
	kgit update-ref refs/heads/embm "$parent"
}

# Make the work tree of $KSRC the given commit, touching only files that
# differ, so that kbuild rebuilds incrementally.
tree_checkout() {
	kgit checkout -q -f --detach "$1" || die "cannot check out $1 in $KSRC"
}
