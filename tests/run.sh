#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs every unit test binary (cmocka) and every end-to-end script, counts
# their cases and prints one closing line: "tests: N passed, N failed".
# e2e scripts print TAP-style lines: "ok - what", "not ok - what", "SKIP - why".
# E2E="tests/e2e/a.sh ..." runs only those scripts; JOBMIX= is passed on to them.
set -u
bindir=${1:-build/tests}
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$bindir"/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	"$t" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	p=${p:-0} f=${f:-0} s=${s:-0}
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	if [ "$f" != 0 ]; then
		echo "FAIL $name"; sed 's/^/    /' "$log"
	else
		echo "ok   $name ($p cases${s:+, $s skipped})"
	fi
done

for t in ${E2E-tests/e2e/*.sh}; do
	[ -f "$t" ] || continue
	name=$(basename "$t")
	start=$(date +%s)
	# a private state directory per script: hermetic locks and records
	state=$(mktemp -d /tmp/jobmix-state.XXXXXX)
	JOBMIX_STATE_DIR=$state bash "$t" >"$log" 2>&1
	rc=$?
	left=$(cd "$state" && find knob sched scratch -mindepth 1 -maxdepth 1 2>/dev/null | head -3)
	if [ -n "$left" ]; then
		echo "not ok - $name left jobmix state behind: $left" >>"$log"
	fi
	rm -rf --one-file-system "$state" 2>/dev/null
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^SKIP' "$log")
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; echo "    (exit code $rc)" >>"$log"; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	secs=$(( $(date +%s) - start ))
	if [ "$f" != 0 ]; then
		echo "FAIL $name (${secs}s)"; sed 's/^/    /' "$log"
	else
		echo "ok   $name ($p cases, $s skipped, ${secs}s)"
		grep '^SKIP' "$log" | sed 's/^/    /'
	fi
done

echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
