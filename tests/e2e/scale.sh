#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: the work knob.  Every job takes `scale`; jobmix jobs and check
# show it; -P sets it and run.json records it in the fingerprint (never at
# its default); a bad value is refused before anything runs; and a CPU mix
# whose entries all do 25% more work (-X ENTRY.scale=1,1.25 on each) runs
# at roughly 1/1.25 of the JPM, in arms the report and compare name apart.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

command -v jq >/dev/null || { skip "scale: no jq"; exit 0; }
T=$(mktemp -d /tmp/jobmix-scale.XXXXXX)
trap 'rm -rf "$T"' EXIT
W=tests/data/e2e/cpu.yaml

check "jobs add_int lists scale" sh -c "$JOBMIX jobs add_int | grep -q '^  scale .*default 1 .*0.01..100'"
check "jobs fileio lists scale among every job's" sh -c "$JOBMIX jobs fileio | grep -q '^  scale '"
check "jobs --markdown says every job takes scale" sh -c "$JOBMIX jobs --markdown | grep -q 'Every job also takes \`scale\`=1'"
check "check prints each entry's scale resolved" sh -c "$JOBMIX check $W | grep -c '^    scale: 1\$' | grep -qx 2"

# a bad value: exit 2, the value named, no run folder
out=$($JOBMIX run $W -P add_long.scale=0 -d "$T/work" -o "$T/bad" -q 2>&1); rc=$?
if [ $rc = 2 ] && echo "$out" | grep -q "add_long.scale=0" && [ ! -e "$T/bad" ]; then
	ok "scale=0 refused (exit 2, named, nothing made)"
else
	not_ok "scale=0: rc $rc, '$out'"
fi
out=$($JOBMIX run $W -P add_long.scale=x -d "$T/work" -o "$T/bad" -q 2>&1); rc=$?
[ $rc = 2 ] && [ ! -e "$T/bad" ] && ok "scale=x refused" || not_ok "scale=x: rc $rc, '$out'"

# -P: recorded, in the fingerprint only off its default
$JOBMIX run $W -u 2 -j 4 -P add_long.scale=1.1 -d "$T/work" -o "$T/p" -q >/dev/null 2>&1
$JOBMIX run $W -u 2 -j 4 -d "$T/work" -o "$T/q" -q >/dev/null 2>&1
P=$(ls "$T"/p/*/run.json 2>/dev/null | head -1) Q=$(ls "$T"/q/*/run.json 2>/dev/null | head -1)
if [ -n "$P" ] && [ -n "$Q" ] &&
   [ "$(jq '.workload.resolved.mix[0].params.scale' "$P")" = 1.1 ] &&
   [ "$(jq -r '.fingerprint.keys["add_long.scale"]' "$P")" = 1.1 ] &&
   [ "$(jq -r '.fingerprint.keys["add_long.scale"]' "$Q")" = null ] &&
   [ "$(jq '.workload.resolved.mix[0].params.scale' "$Q")" = 1 ]; then
	ok "-P ENTRY.scale recorded; in the fingerprint only off its default"
else
	not_ok "-P ENTRY.scale in run.json: $(jq -c '.fingerprint.keys' "$P" 2>&1)"
fi
$JOBMIX compare "$(dirname "$Q")" -- "$(dirname "$P")" >"$T/cmp" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "add_long.scale 1 vs 1.1" "$T/cmp" && ok "runs at different scales are not compared unasked" ||
	not_ok "compare across scales: rc $rc, $(cat "$T/cmp")"

# the whole mix at 1.25: JPM down to about 1/1.25 (0.8), three rounds a side
$JOBMIX run $W -X add_long.scale=1,1.25 -X sieve.scale=1,1.25 --rounds 3 \
	-d "$T/work" -o "$T/x" -q >"$T/out" 2>&1
rc=$?
[ $rc = 0 ] && ok "-X ENTRY.scale matrix ran" || not_ok "-X ENTRY.scale matrix: rc $rc, $(tail -5 "$T/out")"
mean() { # mean peak JPM of the arm with these axis values
	jq -s --arg a "$1" --arg s "$2" '[.[] | select(.axes["add_long.scale"] == $a and
		.axes["sieve.scale"] == $s) | .summary.peak_jpm] | add / length' "$T"/x/*/run.json
}
base=$(mean 1 1) more=$(mean 1.25 1.25)
ratio=$(awk -v a="$base" -v b="$more" 'BEGIN { printf "%.3f", (a > 0 ? b / a : 0) }')
if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.65 && r <= 0.95) }'; then
	ok "25% more work: JPM ratio $ratio (about 1/1.25 = 0.8)"
else
	not_ok "25% more work: JPM ratio $ratio ($base -> $more), expected 0.65-0.95"
fi
a=$(jq -r 'select(.axes["add_long.scale"] == "1" and .axes["sieve.scale"] == "1") | input_filename' "$T"/x/*/run.json | head -1)
b=$(jq -r 'select(.axes["add_long.scale"] == "1.25" and .axes["sieve.scale"] == "1.25") | input_filename' "$T"/x/*/run.json | head -1)
$JOBMIX compare --allow-diff add_long.scale,sieve.scale "$(dirname "$a")" -- "$(dirname "$b")" >"$T/cmp" 2>&1
rc=$?
[ $rc -le 1 ] && grep -q "^peak" "$T/cmp" && ok "compare takes the arms with --allow-diff" ||
	not_ok "compare of the arms: rc $rc, $(cat "$T/cmp")"
$JOBMIX report -f json --by add_long.scale,sieve.scale "$T/x" >"$T/rep.json" 2>&1
n=$(jq '[.tables[].rows[]] | length' "$T/rep.json" 2>/dev/null)
[ "$n" = 4 ] && ok "report names the four arms apart" || not_ok "report rows: '$n'"
