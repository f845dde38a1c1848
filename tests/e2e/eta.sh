#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: progress with a total.  On a terminal (script(1) gives run a
# pty) the status line of a 2-arm, 2-round A/B says "arm k of 2, round r of
# 2" and, from the first measured point on, the time left ("left ~mm:ss",
# falling); with --max-time and a ramp that decides its points, the budget
# left.  --dry-run prints an estimate, the time mode and the memory limit.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w"

# --dry-run: the estimate, time mode, memory limit
out=$($JOBMIX run workloads/quick.yaml -u 1,2 --measure time --duration 5s --mem-limit 256m \
	-X seed=1,2 --rounds 2 -d "$T/w" -o "$T/r" --dry-run 2>&1)
check "dry-run: the time mode and its duration" grep -q '^measure: *time mode (5 s a point)' <<<"$out"
check "dry-run: the memory limit" grep -q 'memory limit 256 MiB' <<<"$out"
check "dry-run: 2 users x 2 arms x 2 rounds = 8 points of 5 s, with warm-ups: about 00:45" \
	grep -qE '^estimate: *8 points, about 00:45' <<<"$out"
out=$($JOBMIX run workloads/quick.yaml -m crossover -u 2-64 --max-time 2m -d "$T/w" -o "$T/r" \
	--dry-run 2>&1)
check "dry-run: a ramp's budget" grep -qE '^estimate: *the ramp decides its points; at most 02:00' <<<"$out"
out=$($JOBMIX run workloads/quick.yaml -u 1,2 -j 2 -d "$T/w" -o "$T/r" --dry-run 2>&1)
check "dry-run: jobs mode says the time comes from the first point" \
	grep -qE '^estimate: *2 points, each as long as its jobs take' <<<"$out"

if ! command -v script >/dev/null; then skip "status line: no script(1) for a terminal"; exit 0; fi
script -qec "$JOBMIX run workloads/quick.yaml -u 1,2 -j 2 -X seed=1,2 --rounds 2 -d $T/w -o $T/ab" \
	/dev/null >"$T/ab.out" 2>&1
check "A/B on a terminal: exit 0" [ $? = 0 ]
# a status line may follow a message on the same line (a busy host's "measured again")
tr '\r' '\n' <"$T/ab.out" | grep -o '\[list\] arm .*' >"$T/status"
for a in 1 2; do
	for r in 1 2; do
		check "status line: arm $a of 2, round $r of 2" grep -q "arm $a of 2, round $r of 2, users" "$T/status"
	done
done
check "status line: no time left before a point is measured" \
	bash -c 'head -1 "$1" | grep -vq left' _ "$T/status"
head -1 "$T/status" | grep -q left && { echo "# the first status lines and what came before them:"; head -c 600 "$T/ab.out" | tr '\r' '\n' | sed 's/^/#   /'; }
left=$(grep -o 'left ~[0-9:]*' "$T/status" | sed 's/left ~//' | awk -F: '{ print $1 * 60 + $2 }')
check "status line: the time left told after the first point" [ -n "$left" ]
check "status line: the time left falls (first $(head -1 <<<"$left") s, last $(tail -1 <<<"$left") s)" \
	awk 'NR == 1 { f = $1 } { l = $1 } END { exit !(NR >= 3 && l < f) }' <<<"$left"
script -qec "$JOBMIX run workloads/quick.yaml -m crossover -u 1-2 --max-time 1h -j 2 -d $T/w \
	-o $T/ramp" /dev/null >"$T/ramp.out" 2>&1
tr '\r' '\n' <"$T/ramp.out" >"$T/ramp.lines"
check "a ramp with --max-time 1h: the budget left" grep -qE 'budget left (59:[0-9]{2}|1:00:00)' \
	"$T/ramp.lines"
check "a plain run: no arm of 1" bash -c '! grep -q "arm 1 of 1" "$1"' _ "$T/ramp.lines"
