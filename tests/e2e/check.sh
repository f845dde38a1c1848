#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `jobmix check`: shipped and test workloads pass and print their resolved
# form (which checks again); every tests/data/bad file fails with exit 2 and
# FILE:LINE:COL on stderr as its "# expect:" line says; unreadable files,
# directories, devices, FIFOs and missing files fail cleanly; nothing in the
# tree is written.  Needs ./jobmix (make test builds it).
set -u
cd "$(dirname "$0")/../.."
J=${JOBMIX:-./jobmix}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }

if [ ! -x "$J" ]; then
	notok "no $J binary (run make first)"
	exit 1
fi

# Every entry of the tree outside build/ and .git/, with size, mtime and mode.
snapshot() {
	find . \( -path ./build -o -path ./.git \) -prune -o -printf '%p %s %T@ %m\n' | sort
}
snapshot >"$tmp/before"

# Does the registry know every kind a "# needs:" line names?
have_kinds() {
	local k
	for k in $(sed -n '1,2s/^# needs: //p' "$1" | tr ',' ' '); do
		"$J" jobs "$k" >/dev/null 2>&1 || return 1
	done
	return 0
}

# ---- valid files: exit 0, resolved YAML on stdout that checks again ----
good=0
for f in workloads/*.yaml tests/data/good/*.yaml; do
	[ -f "$f" ] || continue
	if ! have_kinds "$f"; then
		echo "SKIP - check $f: needs $(sed -n '1,2s/^# needs: //p' "$f")"
		continue
	fi
	good=$((good + 1))
	"$J" check "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ] || ! grep -q '^mix:$' "$tmp/out" ||
	   [ "$(head -1 "$tmp/out" | cut -d' ' -f2)" != "$f" ]; then
		notok "check $f: rc=$rc $(head -3 "$tmp/err")"
		continue
	fi
	# the printed form is itself a valid workload that prints the same
	tail -n +2 "$tmp/out" >"$tmp/again.yaml"
	"$J" check "$tmp/again.yaml" >"$tmp/out2" 2>"$tmp/err"
	if [ $? -eq 0 ] && diff <(tail -n +2 "$tmp/out") <(tail -n +2 "$tmp/out2") >/dev/null; then
		ok "check $f, and its printed form checks the same"
	else
		notok "printed form of $f does not check the same: $(head -3 "$tmp/err")"
	fi
	"$J" check --quiet "$f" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/out" ]; then
		ok "check --quiet $f prints nothing"
	else
		notok "check --quiet $f: rc=$rc, printed $(wc -c <"$tmp/out") bytes"
	fi
done
[ $good -gt 0 ] || notok "no valid workload could be checked"

# ---- bad files: exit 2, FILE:LINE:COL: message on stderr, nothing on stdout ----
nbad=0
for f in tests/data/bad/*.yaml; do
	[ -f "$f" ] || continue
	expect=$(sed -n '1s/^# expect: //p' "$f")
	if [ -z "$expect" ]; then
		notok "$f has no '# expect:' first line"
		continue
	fi
	if ! have_kinds "$f"; then
		echo "SKIP - $f: needs $(sed -n '1,2s/^# needs: //p' "$f")"
		continue
	fi
	nbad=$((nbad + 1))
	pos=${expect%%: *}
	want=${expect#*: }
	"$J" check "$f" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	first=$(head -1 "$tmp/err")
	if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [[ "$first" == "$f:$pos: "* ]] &&
	   grep -qF -- "$want" <<<"${first#"$f:$pos: "}"; then
		ok "$f: exit 2, $f:$pos: ...$want..."
	else
		notok "$f: rc=$rc, stderr '$first', want '$f:$pos: ...$want...'"
	fi
done
[ $nbad -ge 30 ] || notok "only $nbad bad workloads checked (at least 30 expected)"

# ---- several files at once: each reported, exit 2 if any is bad ----
"$J" check tests/data/good/minimal.yaml tests/data/bad/empty_mix.yaml tests/data/good/single_dir.yaml \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(grep -c '^mix:$' "$tmp/out")" = 2 ] &&
   grep -q '^tests/data/bad/empty_mix.yaml:3:6: ' "$tmp/err"; then
	ok "check good bad good: both good ones printed, the bad one reported, exit 2"
else
	notok "check good bad good: rc=$rc, $(grep -c '^mix:$' "$tmp/out") printed, stderr $(head -1 "$tmp/err")"
fi

# ---- files that are not workloads ----
# expect_fail NAME PATTERN CMD...: exit 2 within 10 s, PATTERN on stderr, nothing on stdout
expect_fail() {
	local what=$1 pattern=$2
	shift 2
	timeout 10 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$pattern" "$tmp/err"; then
		ok "$what: exit 2, '$(head -1 "$tmp/err")'"
	else
		notok "$what: rc=$rc (124 = hung), stderr '$(head -1 "$tmp/err")', want '$pattern'"
	fi
}
expect_fail "a directory" "tests/data: is a directory" "$J" check tests/data
expect_fail "a nonexistent file" "$tmp/nope.yaml: cannot open: No such file or directory" \
	"$J" check "$tmp/nope.yaml"
expect_fail "/dev/zero" "/dev/zero: not a regular file" "$J" check /dev/zero
mkfifo "$tmp/fifo.yaml"
expect_fail "a FIFO nobody writes to" "$tmp/fifo.yaml: not a regular file" "$J" check "$tmp/fifo.yaml"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$tmp/big.yaml"
expect_fail "a file over 1 MiB" "$tmp/big.yaml: too large" "$J" check "$tmp/big.yaml"
expect_fail "no file given" "no workload file given" "$J" check
expect_fail "an unknown option" "unknown option '--frobnicate'" "$J" check --frobnicate tests/data/good/minimal.yaml

# unreadable: root reads anything, so run as nobody when we are root
cp tests/data/good/minimal.yaml "$tmp/secret.yaml"
chmod 000 "$tmp/secret.yaml"
if [ "$(id -u)" != 0 ]; then
	expect_fail "an unreadable file" "$tmp/secret.yaml: cannot open: Permission denied" \
		"$J" check "$tmp/secret.yaml"
elif command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	cp "$J" "$tmp/jobmix"
	chmod 755 "$tmp" "$tmp/jobmix"
	expect_fail "an unreadable file (as nobody)" "$tmp/secret.yaml: cannot open: Permission denied" \
		setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
		"$tmp/jobmix" check "$tmp/secret.yaml"
else
	echo "SKIP - unreadable file: running as root without setpriv or user nobody"
fi

# ---- nothing written ----
snapshot >"$tmp/after"
if diff "$tmp/before" "$tmp/after" >"$tmp/diff"; then
	ok "the tree is unchanged after every check"
else
	notok "check changed the tree: $(head -5 "$tmp/diff" | tr '\n' ' ')"
fi
