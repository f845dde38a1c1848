#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One centre (docs/reports.md): the same runs' JPM read alike in the classic
# table and a pivot (--cols ... -m jpm), and in compare: the geometric mean
# of the runs' figures, x/÷ the spread factor.  Two runs of quick, the second
# pinned to CPU 0 beside three busy loops of this script's own there so that their JPM differ (a
# harmonic and an arithmetic mean would then print apart).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-centre.XXXXXX)
HOGS=
trap 'for p in $HOGS; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
$JOBMIX run workloads/quick.yaml -u 1 -j 4 -d "$T/w" -o "$T/r" -q >/dev/null 2>&1
for _ in 1 2 3; do taskset -c 0 bash -c 'while :; do :; done' & HOGS="$HOGS $!"; done
taskset -c 0 $JOBMIX run workloads/quick.yaml -u 1 -j 4 -d "$T/w" -o "$T/r" -q >/dev/null 2>&1
for p in $HOGS; do kill "$p" 2>/dev/null; done
HOGS=
check "two runs" [ "$(ls "$T"/r/*/run.json | wc -l)" = 2 ]
jq -s '[.[].summary | (.peak_jpm // .best_jpm)]' "$T"/r/*/run.json >"$T/jpm"
echo "# runs' JPM: $(jq -c . "$T/jpm")"
g=$(jq '(map(log) | add / length | exp)' "$T/jpm")
classic=$($JOBMIX report "$T/r" | awk '/^Kernel/ { getline; print }' | grep -oE '[0-9]+ (×/÷|±) [0-9.]+' | head -1)
pivot=$($JOBMIX report "$T/r" --cols entry -m jpm | awk '/^Kernel/ { getline; print }' |
	grep -oE '[0-9]+ (×/÷|±) [0-9.]+' | head -1)
echo "# classic: '$classic', pivot: '$pivot', geometric mean $g"
check "classic table: a centre ×/÷ a factor ($classic)" grep -q "×/÷" <<<"$classic"
check "the same runs' JPM equal in the classic table and a pivot" [ "$classic" = "$pivot" ]
check "... and that is their geometric mean (within rounding)" approx "${classic%% *}" "$g" 0.001
