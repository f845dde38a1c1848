#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: the answers report and compare give stay honest on real runs.
# Two identical runs are never a verdict (no invented noise); runs measured
# differently (-j 20 against -j 200, --sync none --threads) are separate tables
# and compare refuses them; a candidate that failed, was interrupted, was
# SIGKILLed or measured no point is missing evidence (exit 3), never green.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-verdicts.XXXXXX)
BG=
trap '[ -n "$BG" ] && kill -KILL $BG 2>/dev/null; rm -rf "$T"' EXIT
W=tests/data/e2e/cpu.yaml
run() { $JOBMIX run "$W" -d "$T/w" -q "$@" >/dev/null 2>>"$T/err"; }

# 1. two runs of the same command a second apart: no verdict without measured noise
run -u 1-2 -j 6 -o "$T/a" -L side=A
run -u 1-2 -j 6 -o "$T/b" -L side=B
$JOBMIX compare --wide "$T/a" -- "$T/b" >"$T/cmp" 2>&1
rc=$?
sed 's/^/# /' "$T/cmp"
check "identical runs: compare exits 0" [ $rc = 0 ]
check "identical runs: every metric untested (n=1, noise not measured)" \
	[ "$(grep -c 'untested (n=1, noise not measured)' "$T/cmp")" = "$(grep -cE '^(peak|qc|jpm@)' "$T/cmp")" ]
check "identical runs: no p-value, no better, no worse" bash -c "! grep -E '^(peak|qc|jpm@)' '$T/cmp' | grep -qE 'better|WORSE|same|[0-9]e-'"
$JOBMIX report "$T/a" "$T/b" --by side >"$T/rep" 2>&1
check "identical runs in report: untested, no mark" bash -c "grep -q 'untested (n=1, noise not measured)' '$T/rep' && ! grep -E '^B ' '$T/rep' | grep -qF '****'"

# 2. one workload measured three ways: three tables, headed by what differs
run -u 1 -j 20 -o "$T/m"
run -u 1 -j 200 -o "$T/m"
run -u 1 -j 20 --sync file --threads -o "$T/m"
$JOBMIX report "$T/m" >"$T/rep" 2>&1
sed 's/^/# /' "$T/rep"
check "-j 20, -j 200, --sync file --threads: three tables, never one row" [ "$(grep -c '^cpu \[.*\]: Maximum Jobs Per Minute (1 run)$' "$T/rep")" = 3 ]
check "the table headed by its jobs per user" grep -q '^cpu \[users.jobs_per_user 200\]' "$T/rep"
check "the table headed by its sync and users" grep -qE '^cpu \[.*sync file.*users.as threads|^cpu \[.*users.as threads.*sync file' "$T/rep"
check "--allow-diff folds them into one row" bash -c "$JOBMIX report '$T/m' --allow-diff users.jobs_per_user,sync,users.as,mix.add_long.runs,mix.sieve.runs 2>&1 | grep -q '^cpu: Maximum Jobs Per Minute (3 runs)'"
check "--by users.jobs_per_user: one row each" bash -c "$JOBMIX report '$T/m' --by users.jobs_per_user,sync 2>&1 | grep -qE '^(20|200) '"
check "--by an unknown key exits 2 naming it" bash -c "$JOBMIX report '$T/m' --by nonesuch 2>&1 | grep -q \"'nonesuch': no run has\"; [ \${PIPESTATUS[0]} = 2 ]"
j20=$(grep -l '"-j",' "$T"/m/*/run.json | xargs grep -l '"20"' | xargs grep -L threads | head -1)
j200=$(grep -l '"200"' "$T"/m/*/run.json | head -1)
$JOBMIX compare --wide "$j20" -- "$j200" >"$T/cmp" 2>&1
rc=$?
check "compare -j 20 against -j 200 exits 2" [ $rc = 2 ]
check "... naming what differs" grep -q 'users.jobs_per_user 20 vs 200' "$T/cmp"
$JOBMIX compare --wide --allow-diff users.jobs_per_user,mix.add_long.runs,mix.sieve.runs "$j20" -- "$j200" >"$T/cmp" 2>&1
rc=$?
check "... and compares them when allowed (exit 0 or 1, not 2)" [ $rc = 0 ] || [ $rc = 1 ]

# 3. a candidate that failed, was interrupted, was killed or measured no point: exit 3
run -u 1-2 -j 6 -o "$T/base"
run -u 1-2 -j 6 -o "$T/base"
run -u 1 -j 20000 --no-warmup --timeout 0.3s -o "$T/failed"
check "a run past its time limit fails" jq -e -s '.[0].status == "failed"' "$T"/failed/*/run.json
$JOBMIX compare --wide "$T/base" -- "$T/failed" >"$T/cmp" 2>&1
rc=$?
sed 's/^/# /' "$T/cmp"
check "failed candidate: compare exits 3, not 0" [ $rc = 3 ]
check "failed candidate: named with its status and reason" grep -qE 'candidate: cpu run .*: failed \(at 1 users: .*time limit' "$T/cmp"
check "failed candidate: its workload then on the baseline only" grep -q 'only the baseline has it' "$T/cmp"

cp -r "$(ls -d "$T"/base/*/ | head -1)" "$T/interrupted"
jq '.status = "interrupted"' "$T/interrupted/run.json" >"$T/x.json" && mv "$T/x.json" "$T/interrupted/run.json"
$JOBMIX compare --wide "$T/base" -- "$T/interrupted" >"$T/cmp" 2>&1
check "interrupted candidate: exit 3 naming it" bash -c "[ $? = 3 ] && grep -q ': interrupted' '$T/cmp'"

$JOBMIX run "$W" -u 1 -j 1000000 --no-warmup -d "$T/w" -o "$T/killed" -q >/dev/null 2>&1 &
BG=$!
for _ in $(seq 1 100); do [ -n "$(ls "$T"/killed/*/run.json 2>/dev/null)" ] && break; sleep 0.05; done
sleep 0.3
kill -KILL $BG; wait $BG 2>/dev/null; BG=
k=$(ls -d "$T"/killed/*/)
check "SIGKILLed run: left running" jq -e '.status == "running"' "$k/run.json"
$JOBMIX compare --wide "$T/base" -- "$k" >"$T/cmp" 2>&1
rc=$?
check "SIGKILLed candidate: exit 3, its owner gone" bash -c "[ $rc = 3 ] && grep -q 'running, owner gone' '$T/cmp'"
$JOBMIX report "$k" >"$T/rep" 2>&1
check "report shows it as running, owner gone" grep -q '(running, owner gone)' "$T/rep"

cp -r "$(ls -d "$T"/base/*/ | head -1)" "$T/nopoint"
# (as a run stopped before its first point: no figure in its summary, which a summary
# beside no point would contradict)
jq '.points = [] | .summary.by_users = [] | .summary |= with_entries(if (.key | test("_jpm$"))
    then .value = null else . end)' "$T/nopoint/run.json" >"$T/x.json" && mv "$T/x.json" "$T/nopoint/run.json"
$JOBMIX compare --wide "$T/base" -- "$T/nopoint" >"$T/cmp" 2>&1
check "candidate of no point: exit 3" bash -c "[ $? = 3 ] && grep -q 'no point measured' '$T/cmp'"

mkdir -p "$T/other"
cp -r "$(ls -d "$T"/base/*/ | head -1)" "$T/other/r1"
jq '.workload.name = "dbase"' "$T/other/r1/run.json" >"$T/x.json" && mv "$T/x.json" "$T/other/r1/run.json"
$JOBMIX compare --wide "$T/base" -- "$T/base" "$T/other" >"$T/cmp" 2>&1
check "a workload on one side only: exit 3 naming it" bash -c "[ $? = 3 ] && grep -q 'dbase.*only the candidate has it' '$T/cmp'"
$JOBMIX compare --wide "$T/base" -- "$T/base" >"$T/cmp" 2>&1
check "the same complete runs on both sides: exit 0" [ $? = 0 ]

# 4. report with nothing to read: exit 2, and a skipped path is named in the footnote
mkdir -p "$T/bad/r"
echo '{' >"$T/bad/r/run.json"
$JOBMIX report "$T/bad" >"$T/rep" 2>&1
check "report of only corrupt runs exits 2" [ $? = 2 ]
check "it counts the corrupt run as skipped" grep -q "no run read (1 path skipped)" "$T/rep"
$JOBMIX report "$T/base" "$T/bad" >"$T/rep" 2>&1
check "a skipped run.json is named in the report's footnote" grep -q "skipped: .*bad/r/run.json" "$T/rep"
