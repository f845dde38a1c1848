#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end (issue 42): a converge ramp beside two CPU hogs with a short
# --max-time keeps its budget (wall time within it + 5% + 2 s: the ramp
# predicts each point and does not start one that would overrun), says
# plainly what it did not reach, on the terminal and in run.json's
# summary.outcome, and its summary does not contradict its points.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
hogs=()
cleanup() {
	for h in "${hogs[@]}"; do kill "$h" 2>/dev/null; done
	for h in "${hogs[@]}"; do wait "$h" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/w"
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done

budget=30
t0=$(date +%s.%N)
$JOBMIX run workloads/quick.yaml -m converge --max-time ${budget}s -d "$T/w" -o "$T/r" \
	>"$T/out" 2>"$T/err"
rc=$?
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
f=$(ls "$T"/r/*/run.json | head -1)
check "budget: exit 0 (a budget stop is no failure)" [ $rc = 0 ]
check "budget: wall ${wall} s within ${budget} s + 5% + 2 s" \
	awk -v w="$wall" -v b="$budget" 'BEGIN { exit !(w <= b * 1.05 + 2) }'
check "budget: the ramp's own time within it too" jq -e --argjson b "$budget" '.summary.wall_s <= $b * 1.05' "$f"
stop=$(jq -r .summary.stop_reason "$f")
if [ "$stop" = max_time ]; then
	check "budget: the closing lines say what was not reached" \
		grep -qE '^(peak: not established \(max_time\)|quick convergence: not reached within 30 s \(last [0-9]+ users at [0-9.]+ JPM/user\))$' "$T/out"
	check "budget: run.json's outcome says it as the terminal did" bash -c \
		'o=$(jq -r .summary.outcome "$1"); [ -n "$o" ] && [ "$o" != null ] && grep -qF "${o%%;*}" "$2"' _ "$f" "$T/out"
else
	# the ramp ended inside the budget: nothing unreached is claimed
	check "budget: ended inside it ($stop): no outcome left open" \
		jq -e '.summary | .outcome == null or (.outcome | test("not reached|not established"))' "$f"
fi
check "budget: Quick Convergence not above the peak" \
	jq -e '.summary | .converge_jpm == null or .converge_jpm <= .peak_jpm' "$f"
check "budget: the best point is the peak" jq -e '.summary | .best_users == .peak_users' "$f"
check "budget: no measured count above the peak's interval" jq -e \
	'.summary | (.peak_ci95_hi // .peak_jpm) as $top | all(.by_users[]; .jpm_mean <= $top * (1 + 1e-9))' "$f"
