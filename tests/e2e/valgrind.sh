#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Memcheck over the plain build: a short `jobmix run` (users forked, their
# files made and removed, run.json written) and `jobmix report` over the
# kept runs.  The jobmix process itself must show no memory error and no
# definitely lost block.  Always ./jobmix: valgrind cannot run an ASan build.
# SKIP when valgrind is absent.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
J=./jobmix
if ! command -v valgrind >/dev/null; then
	skip "valgrind is not installed (apt-get install valgrind)"; exit 0
fi
T=$(mktemp -d /tmp/jobmix-e2e-valgrind.XXXXXX)
trap 'rm -rf "$T"' EXIT

# memcheck NAME ARGS...: run jobmix under valgrind; VG_RC and VG_LOG (the parent's log) set
memcheck() {
	local name=$1; shift
	valgrind --tool=memcheck --trace-children=no --leak-check=full \
		--errors-for-leak-kinds=definite --error-exitcode=99 \
		--log-file="$T/vg.$name.%p" "$J" "$@" >"$T/$name.out" 2>"$T/$name.err" &
	local pid=$!
	wait $pid
	VG_RC=$?
	VG_LOG=$T/vg.$name.$pid
}
# verdict NAME: the assertions on the parent's log
verdict() {
	local name=$1
	if [ -s "$VG_LOG" ]; then ok "$name: valgrind log of the jobmix process"; else
		not_ok "$name: no valgrind log for the jobmix process"; return; fi
	check "$name: exit 0 (valgrind's error exit code is 99)" [ "$VG_RC" = 0 ]
	if grep -q 'ERROR SUMMARY: 0 errors' "$VG_LOG"; then
		ok "$name: no memory error"
	else
		not_ok "$name: $(grep 'ERROR SUMMARY' "$VG_LOG")"
		sed 's/^/# /' "$VG_LOG" | head -60
	fi
	# "definitely lost: 0 bytes", or no leak summary at all (every block freed)
	if ! grep -q 'definitely lost: [1-9]' "$VG_LOG"; then
		ok "$name: no definite leak"
	else
		not_ok "$name: $(grep -o 'definitely lost: .*' "$VG_LOG")"
	fi
}

memcheck run run workloads/quick.yaml -u 1-2 -j 5 -d "$T/w" -o "$T/r" -q
verdict run
check "run: run.json written" [ -n "$(find "$T/r" -name run.json)" ]
sed 's/^/# stderr: /' "$T/run.err" | head -5

memcheck report report tests/data/runs/*.json "$T/r"
verdict report
check "report: a table per workload (fixtures and the run above)" [ "$(grep -c "Maximum Jobs Per Minute" "$T/report.out")" = 3 ]
