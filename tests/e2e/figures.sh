#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: the figures a run records mean their names.  A time-mode
# window in which no job completed fails its point (not a 0-JPM point that
# passes as Quick Convergence); the header says the jobs per user a user
# ran (fserver runs each of its 31 kinds at least once: -j 10 and -j 20 are
# both 31); a kind's latency percentiles lie between its min and max, and
# one run of a kind gives p50 = p99 = its mean.  Tiny loads: seconds.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
W=$T/work
mkdir -p "$W"

# 1. --measure time with a window shorter than any job: nothing completes in it
out=$($JOBMIX run --job add_int,sieve -u 1-2 --measure time --duration 1ms -d "$W" -o "$T/r1" \
	--no-warmup 2>"$T/err1")
rc=$?
j=$(ls "$T"/r1/*/run.json 2>/dev/null | head -1)
check "time mode, empty window: the run fails (exit 3)" [ "$rc" = 3 ]
check "time mode, empty window: run.json written" [ -f "$j" ]
check "time mode, empty window: every point failed, saying why" jq -e \
	'(.points | length) >= 1 and all(.points[]; .failed and (.reason | test("no job completed in the window")))' "$j"
check "time mode, empty window: no Quick Convergence recorded" jq -e \
	'.summary.converge_users == null and .summary.converge_jpm == null' "$j"
check "time mode, empty window: none printed" bash -c '! grep -q "quick convergence" <<<"$1"' _ "$out"
check "time mode, empty window: the reason on stderr" grep -q "no job completed in the window" "$T/err1"

# 2. the jobs per user actually run, in the header and in run.json
for jp in 10 20; do
	out=$($JOBMIX run fserver -u 1 -j "$jp" -d "$W" -o "$T/f$jp" --no-warmup 2>"$T/errf$jp")
	rc=$?
	j=$(ls "$T"/f$jp/*/run.json 2>/dev/null | head -1)
	check "fserver -j $jp: run exits 0" [ "$rc" = 0 ]
	check "fserver -j $jp: header says 31 jobs/user and why" \
		grep -qF "31 jobs/user (-j $jp: each of 31 kinds at least once)" <<<"$out"
	check "fserver -j $jp: run.json says 31 jobs a user ran" jq -e \
		'all(.points[]; .jobs_per_user == 31 and .jobs == 31 * .users) and .workload.resolved.users.jobs_per_user == '"$jp" "$j"
done
out=$($JOBMIX run --job add_int:1,sieve:1 -u 1 -j 2 -d "$W" -o "$T/r2" --no-warmup 2>/dev/null)
check "header: J itself where the rounding keeps it" grep -qE ', 2 jobs/user, ' <<<"$out"

# 3. latency: min <= p50 <= p99 <= max; one run of a kind: p50 = p99 = mean
j=$(ls "$T"/f10/*/run.json 2>/dev/null | head -1)
check "fserver -j 10: every kind ran once (the case below)" jq -e \
	'[.points[0].jobs_by_kind[] | .runs] | length == 31 and all(. == 1)' "$j"
check "fserver -j 10: p50 <= p99 <= max for every kind" jq -e \
	'all(.points[].jobs_by_kind[]; .p50_ms <= .p99_ms and .p99_ms <= .max_ms)' "$j"
check "fserver -j 10: a lone run's p50 and p99 are its time (none below the mean)" jq -e \
	'all(.points[].jobs_by_kind[] | select(.runs == 1);
	     (.p50_ms - .mean_ms | fabs) <= 1e-6 * .mean_ms and (.p99_ms - .mean_ms | fabs) <= 1e-6 * .mean_ms)' "$j"
