#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The documentation holds together: every relative link and #anchor in
# README.md, docs/*.md and bench/README.md resolves (the file exists; the
# anchor is a heading of it under GitHub's slug rules), README.md is at most
# 400 lines, every docs/*.md is linked from the README, and the default goal
# (`make -n`) never mentions apt-get (a plain `make` builds only).
# DOCS="a.md b.md" checks those files instead (the test of this test).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
export LC_ALL=C

# anchors FILE: one GitHub slug per heading (outside code fences), with
# -1, -2, ... for repeats
anchors() {
	awk '
		/^```/ { fence = !fence; next }
		fence || !/^#+ / { next }
		{
			s = $0; sub(/^#+ +/, "", s); s = tolower(s)
			gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s)
			if (s in seen) { n = ++seen[s]; print s "-" n } else { seen[s] = 0; print s }
		}' "$1"
}

# links FILE: every Markdown link target outside code fences and inline code
links() {
	awk '
		/^```/ { fence = !fence; next }
		fence { next }
		{
			line = $0; gsub(/`[^`]*`/, "", line)
			while (match(line, /\]\([^) ]+\)/)) {
				print substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			}
		}' "$1"
}

files=${DOCS:-README.md docs/*.md bench/README.md}
bad=0 nlinks=0
for f in $files; do
	dir=$(dirname "$f")
	while IFS= read -r t; do
		case $t in http://* | https://* | mailto:*) continue ;; esac
		nlinks=$((nlinks + 1))
		path=${t%%#*} anchor=
		[ "$path" != "$t" ] && anchor=${t#*#}
		target=$f
		[ -n "$path" ] && target=$dir/$path
		if [ ! -e "$target" ]; then
			not_ok "$f: link $t: no file $target"; bad=1; continue
		fi
		if [ -n "$anchor" ]; then
			case $target in
			*.md) anchors "$target" | grep -qxF -- "$anchor" ||
				{ not_ok "$f: link $t: no heading '#$anchor' in $target"; bad=1; } ;;
			*) not_ok "$f: link $t: an anchor into a file that is not Markdown"; bad=1 ;;
			esac
		fi
	done < <(links "$f")
done
[ $bad = 0 ] && ok "every relative link and anchor resolves ($nlinks links in $(echo $files | wc -w) files)"
[ -n "${DOCS:-}" ] && exit 0

n=$(wc -l < README.md)
if [ "$n" -le 400 ]; then ok "README.md is $n lines (at most 400)"; else not_ok "README.md is $n lines (more than 400)"; fi

missing=0
for d in docs/*.md; do
	links README.md | sed 's/#.*//' | grep -qxF "$d" || { not_ok "README.md links $d"; missing=1; }
done
links README.md | sed 's/#.*//' | grep -qxF bench/README.md || { not_ok "README.md links bench/README.md"; missing=1; }
[ $missing = 0 ] && ok "README.md links every docs/*.md and bench/README.md"

# the default goal builds only: its recipe (make -n) never runs apt-get,
# with the deps stamp gone too, while `make -n deps` does name it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if make -n BUILD="$tmp/build" 2>&1 | grep -q apt-get; then
	not_ok "'make -n' (the default goal) mentions apt-get"
else
	ok "'make -n' (the default goal) does not mention apt-get"
fi
make -n deps BUILD="$tmp/build" 2>&1 | grep -q apt-get && ok "'make -n deps' installs with apt-get" ||
	not_ok "'make -n deps' mentions apt-get"

# the check can fail: a broken link and a broken anchor are both found
mkdir -p "$tmp/d"
printf '# A page\n\n## Some `code`: here\n\n[ok](#some-code-here) [file](b.md) [gone](nope.md) [bad](b.md#nowhere)\n' > "$tmp/d/a.md"
printf '# B\n' > "$tmp/d/b.md"
out=$(DOCS="$tmp/d/a.md" bash "$0")
if echo "$out" | grep -q 'link nope.md: no file' && echo "$out" | grep -q "no heading '#nowhere'" &&
	[ "$(echo "$out" | grep -c '^not ok')" = 2 ]; then
	ok "a broken link and a broken anchor are reported, and nothing else"
else
	not_ok "the link check did not report exactly the broken link and anchor: $out"
fi
