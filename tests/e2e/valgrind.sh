#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Memcheck over the plain build: a short `jobmix run` (users forked, their
# files made and removed, run.json written) and `jobmix report` over stored
# runs and that one.  The jobmix process must show no memory error and no
# definitely lost block; the users it forks (memcheck follows fork, not
# exec), no memory error.  Always ./jobmix: valgrind cannot run an ASan
# build.  SKIP when valgrind is absent.  valgrind.supp: libbpf's partly
# zeroed bpf_attr (the block tracer's load), which memcheck misreads.
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
		--suppressions=tests/e2e/valgrind.supp \
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
	# the leak check ran and found no block definitely lost
	if grep -qE 'definitely lost: 0 bytes|All heap blocks were freed' "$VG_LOG" &&
	   ! grep -q 'definitely lost: [1-9]' "$VG_LOG"; then
		ok "$name: no definite leak"
	else
		not_ok "$name: $(grep -o 'definitely lost: .*' "$VG_LOG" || echo 'no leak summary')"
	fi
}

memcheck run run workloads/quick.yaml -u 1-2 -j 5 -d "$T/w" -o "$T/r" -q
verdict run
check "run: run.json written" [ -n "$(find "$T/r" -name run.json)" ]
# the users it forked, each with its own log (their leaks do not count: they _exit)
users=$(ls "$T"/vg.run.* | grep -vcx "$VG_LOG")
uerr=$(grep -L 'ERROR SUMMARY: 0 errors' $(ls "$T"/vg.run.* | grep -vx "$VG_LOG") 2>/dev/null | wc -l)
if [ "$users" -gt 0 ] && [ "$uerr" = 0 ]; then
	ok "run: no memory error in the $users user processes either"
else
	not_ok "run: $uerr of $users user processes with memory errors"
fi
sed 's/^/# stderr: /' "$T/run.err" | head -5

memcheck report report tests/data/runs/*.json "$T/r"
verdict report
# as many tables as the same report prints without valgrind (a fixture added is a table more)
want=$($JOBMIX report tests/data/runs/*.json "$T/r" 2>/dev/null | grep -c "Maximum Jobs Per Minute")
got=$(grep -c "Maximum Jobs Per Minute" "$T/report.out")
check "report: a table per workload (fixtures and the run above)" [ "$want" -ge 2 -a "$got" = "$want" ]
