#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The side-by-side benchmarks refuse to run without what they compare against:
# a clear message and exit 2 (they are not run here: they take minutes).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
out=$(REAIM= bench/vs-reaim.sh 2>&1); rc=$?
check "vs-reaim without REAIM: exit 2" [ $rc = 2 ]
check "vs-reaim without REAIM: says to set REAIM" grep -q "set REAIM=/path/to/reaim" <<<"$out"
out=$(REAIM=/nonexistent/reaim bench/vs-reaim.sh 2>&1); rc=$?
check "vs-reaim with a missing binary: exit 2" [ $rc = 2 ]
check "vs-reaim with a missing binary: names it" grep -q "/nonexistent/reaim is not an executable" <<<"$out"
out=$(SYSBENCH=/nonexistent/sysbench bench/vs-sysbench.sh 2>&1); rc=$?
check "vs-sysbench without sysbench: exit 2" [ $rc = 2 ]
check "vs-sysbench without sysbench: says how to install it" grep -q "apt-get install sysbench" <<<"$out"
# vs-fio prepares fio's file as jobmix's prepare writes its own: fileio in its
# `block` requests (as its doc says), seqread in 1 MiB ones
plan=$(PLAN=1 bench/vs-fio.sh /nonexistent 2>&1); rc=$?
check "vs-fio PLAN=1: exit 0 ($rc), five cases" [ "$rc" = 0 -a "$(grep -c 'fio prepared in' <<<"$plan")" = 5 ]
check "fileio's prepare writes in block requests (its doc)" \
	bash -c "$JOBMIX jobs fileio | tr '\n' ' ' | grep -q 'written fully (unless sparse: true) in .block. requests'"
bad=
while IFS=$'\t' read -r name prep entry; do
	if grep -q 'job: fileio' <<<"$entry"; then
		want=$(grep -oE 'block: [0-9a-z]+' <<<"$entry" | cut -d' ' -f2)
	else
		want=1m
	fi
	[ "$prep" = "fio prepared in $want" ] || bad="$bad '$name': $prep, jobmix $want;"
done <<<"$plan"
check "vs-fio: fio's file prepared in jobmix's request size, case by case${bad:+ ($bad)}" [ -z "$bad" ]
for f in bench/*.sh; do
	check "$f: bash syntax" bash -n "$f"
done

# bench/convergence.sh's yardstick, on made-up runs (FROM=, nothing is run):
# each round is judged against the other rounds' dense sweeps, smoothed over
# user counts u-2..u+2, never against its own sweep.  Dense sweeps 1..14 at
# 100 JPM; round 1 has a lucky 200 at 5 users, rounds 2 and 3 a real 120 at 8.
# Round 1's dense sweep chose 5: its reference (rounds 2, 3) is 100 there and
# 104 at best, so curve -3.85% and err +92.31%; judged against the pool of all
# rounds (which holds its own 200) it chose the best: curve 0.
T=$(mktemp -d)
for r in 1 2 3; do
	jq -n --argjson r "$r" '{summary: {wall_s: 10, points_measured: 14, stop_reason: "done"},
		points: [range(1; 15) as $u | {users: $u, failed: false,
			jpm: (if $r == 1 and $u == 5 then 200 elif $r > 1 and $u == 8 then 120 else 100 end)}]}' \
		>"$T/dense.$r.json"
	jq -n '{summary: {wall_s: 3, points_measured: 5, stop_reason: "done", peak_users: 8, peak_jpm: 104,
		peak_users_lo: 6, peak_users_hi: 10}}' \
		>"$T/peak.$r.json"
	jq -n '{summary: {wall_s: 4, points_measured: 6, stop_reason: "done", peak_users: 8, peak_jpm: 104,
		converge_users: 30, converge_jpm: 90, max_jpm: 104}}' >"$T/converge.$r.json"
done
out=$(FROM=$T bench/convergence.sh 2>&1); rc=$?
check "convergence.sh FROM=: exit 0" [ $rc = 0 ]
row=$(grep -E '^1 +dense ' <<<"$out")
check "convergence.sh: round 1's dense sweep judged against the other rounds (curve -3.85%)" \
	[ "$(awk '{print $9}' <<<"$row")" = "-3.85" ]
check "convergence.sh: its err against their smoothed best (+92.31%)" \
	[ "$(awk '{print $8}' <<<"$row")" = "92.31" ]
# medians over rounds, then under the pool of all rounds (rounds 2, 3 at 8:
# 113.3 against 133.3 at 5, -15%; round 1 0%; |err| 50, 10, 10)
check "convergence.sh: medians under both yardsticks" \
	grep -qE '^  dense +14 +1\.000 +7\.14 +-8\.93 +10\.00 +-15\.00$' <<<"$out"
check "convergence.sh: round 1's search at 8 users: err and curve 0.00 (its reference's best)" \
	grep -qE '^1 +peak +5 .* 0\.00 +0\.00  done ' <<<"$out"
check "convergence.sh: the paired difference by round is printed with its CI" \
	grep -q 'peak - dense, curve_% by round: 3.85, 0.00, 0.00; mean 1.28 ± 5.52 (95% CI): no difference beyond the noise' <<<"$out"
# the range the search reported (6-10) holds each reference's best (104
# at 6-10 for round 1, 112 at 6 and 7 for rounds 2 and 3)
check "convergence.sh: the search's range printed" \
	grep -qE '^1 +peak .* done \(within the noise: 6-10 users; the reference best at ([6-9]|10)\)$' <<<"$out"
check "convergence.sh: the reference best within the search's range, counted" \
	grep -q 'the reference best within the range the search reported in 3 of 3 rounds' <<<"$out"
# the same target read with its noise: no paired difference beyond its CI,
# the search's median choice (0% and two at -8.93%) within the pooled best's
# CI (±107.6%: 133.3 ± 143.4 at 5 users), time_x 0.3
check "convergence.sh: the method target read with its noise" \
	grep -q "method target within the noise (.*pooled best's CI of ±107.6%, time_x <= 0.35): MET$" <<<"$out"
# a search that takes 0.4 of a dense sweep's time meets neither reading
for r in 1 2 3; do
	jq '.summary.wall_s = 4' "$T/peak.$r.json" >"$T/x" && mv "$T/x" "$T/peak.$r.json"
done
out=$(FROM=$T bench/convergence.sh 2>&1)
check "convergence.sh: time_x 0.4: the method target not met" \
	grep -q "^method target (peak .*): NOT MET (.*time_x 0.400)$" <<<"$out"
check "convergence.sh: time_x 0.4: not met within the noise either" \
	grep -q "^method target within the noise .*: NOT MET$" <<<"$out"
# one round has no paired CI and no pooled CI: it says so
rm "$T"/*.2.json "$T"/*.3.json
out=$(FROM=$T bench/convergence.sh 2>&1); rc=$?
check "convergence.sh: one round: exit 0" [ $rc = 0 ]
check "convergence.sh: one round: too few rounds to tell" \
	grep -q "^method target within the noise .*: too few rounds to tell$" <<<"$out"
rm -rf "$T"
