#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Adaptive ramps against a dense sweep, in one run, on a real shipped mix.
#
# ROUNDS rounds, each of three runs in an order that rotates from round to
# round (so slow drift of the machine does not favour one of them):
#   dense     -m linear -u 1-DENSE_MAX -r DREPEAT   (step 1, past the peak)
#   peak      -m peak -r REPEAT --max-users DENSE_MAX (same range)
#   converge  -m converge -r CREPEAT                 (bounded by MAXU only)
#
# The machine's noise comes from the dense curve pooled over all rounds: per
# user count the mean of ROUNDS x DREPEAT samples, its sd and 95% confidence
# interval.  Each round's runs are judged against a reference that none of
# them took part in: the dense sweeps of the other rounds, averaged per user
# count and smoothed over the 5 neighbouring user counts (u-2..u+2).  Judged
# against the pool of all rounds, a dense sweep is judged partly against
# itself (its own lucky sample raises the reference where it chose), and the
# maximum of an unsmoothed noisy curve is itself a noise-picked sample:
# bench/ramp-sim.sh shows, on curves whose truth is known, that this older
# yardstick made a dense sweep look 2-7 points of curve better than a search
# that in truth chose within 0.2 points as well, and that the smoothed
# other rounds rank them as the truth does.  For every run the script prints
#   err_%    its peak JPM against the reference's best,
#   curve_%  the reference at the user count it chose against that best
#            (how good the choice was, free of that run's own noise),
#   time_x   its wall time against one dense sweep's (the median over rounds),
# then the medians over rounds (also under the older, all-rounds yardstick,
# for comparison with earlier figures), the machine's noise (median
# per-sample sd and the pooled best's CI half-width), and whether the
# targets are met: median |err| <= 2% in a median time_x <= 0.25, and the
# [method] one (curve_% and |err| no worse than a single dense sweep's, in at
# most 0.35 of its time), read twice: on the medians as they fall, and with
# their noise (the search worse than the dense sweep in neither, beyond the
# 95% CI of the paired difference by round; its median choice within the
# pooled best's CI; the same time bound).  ROUNDS of at least 3 leave each
# reference two sweeps or more; with one round the reference is that
# round's own sweep.
#
#   bench/convergence.sh [WORKLOAD] [DIR]
# Environment: ROUNDS (4), DENSE_MAX (48), DREPEAT (1), REPEAT (peak -r, auto),
#   CREPEAT (converge -r, 1), MAXU (converge user budget, 4096),
#   POINTS ("--measure time --duration 2s": fixed-length points, JPM from the
#   jobs completed in the window; set POINTS="-j 100" for AIM7's fixed job count),
#   EXTRA (more `jobmix run` options for every run), KEEP (set: keep the runs),
#   FROM (a folder KEEP left: print the analysis of those runs again, run nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
WL=${1:-workloads/fserver.yaml}
DIR=${2:-/var/tmp/jobmix-bench}
ROUNDS=${ROUNDS:-4}
DENSE_MAX=${DENSE_MAX:-48}
DREPEAT=${DREPEAT:-1}
REPEAT=${REPEAT:-auto}
CREPEAT=${CREPEAT:-1}
MAXU=${MAXU:-4096}
FROM=${FROM:-}
POINTS=${POINTS:---measure time --duration 2s}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix
if [ -n "${FROM:-}" ]; then
	T=$FROM # analyse the runs kept by an earlier KEEP=1 run again
elif T=$(mktemp -d) && [ -n "${KEEP:-}" ]; then
	echo "keeping the runs in $T"
else
	trap 'rm -rf "$T"' EXIT
fi

run() { # MODE ROUND ; leaves $T/MODE.ROUND.json
	local mode=$1 r=$2 args
	case $mode in
	dense) args="-m linear -u 1-$DENSE_MAX -r $DREPEAT" ;;
	peak) args="-m peak -r $REPEAT --max-users $DENSE_MAX" ;;
	converge) args="-m converge -r $CREPEAT --max-users $MAXU" ;;
	esac
	# shellcheck disable=SC2086
	./jobmix run "$WL" -d "$DIR" -o "$T/$mode.$r" -q --seed "$r" $POINTS ${EXTRA:-} $args >/dev/null
	cp "$T/$mode.$r"/*/run.json "$T/$mode.$r.json"
	printf ' %s %.0fs' "$mode" "$(jq '.summary.wall_s' "$T/$mode.$r.json")"
}

if [ -n "${FROM:-}" ]; then
	ROUNDS=$(find "$T" -maxdepth 1 -name 'dense.*.json' | wc -l)
	echo "the runs kept in $FROM: $ROUNDS rounds"
else
	echo "workload $WL; $ROUNDS rounds; dense 1..$DENSE_MAX -r $DREPEAT, peak -r $REPEAT, converge -r $CREPEAT; points: $POINTS ${EXTRA:-}"
	echo "on $(findmnt -n -o SOURCE,FSTYPE -T "$DIR" 2>/dev/null || echo "$DIR"), $(nproc) CPUs"
fi
order=(dense peak converge)
for ((r = 1; r <= ROUNDS && ${#FROM} == 0; r++)); do
	printf 'round %d:' "$r"
	for ((i = 0; i < 3; i++)); do run "${order[(i + r - 1) % 3]}" "$r"; done
	echo
done

# Everything below is arithmetic on the run files, done by one jq program.
jq -n -r --argjson rounds "$ROUNDS" --argjson target_err 2 --argjson target_time 0.25 '
	def median: sort | if length == 0 then null
		elif length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def tq($df): [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]
		| if $df < 1 then null elif $df <= 20 then .[$df - 1] else 1.96 end;
	def pct($a; $b): ($a - $b) / $b * 100;
	def fixed($x; $p): ($x * pow(10; $p) | round) as $i | ($i | fabs | tostring) as $s
		| ("0" * ([0, $p + 1 - ($s | length)] | max) + $s) as $z
		| (if $i < 0 then "-" else "" end)
		+ (if $p == 0 then $z else $z[:($z | length) - $p] + "." + $z[($z | length) - $p:] end);
	def f($x; $w; $p): (if $x == null then "-" else fixed($x; $p) end)
		| (" " * ([0, $w - length] | max)) + .;
	[inputs] as $runs
	| ($runs | map(select(.mode == "dense"))) as $dense
	# the reference curve: all dense samples, pooled by user count
	| ([$dense[].run.points[] | select(.failed | not) | {users, jpm}]
		| group_by(.users)
		| map((map(.jpm)) as $s | ($s | length) as $n | ($s | add / $n) as $m
			| (if $n > 1 then ($s | map(. - $m | . * .) | add / ($n - 1) | sqrt) else null end) as $sd
			| {users: .[0].users, n: $n, mean: $m, sd: $sd,
			   half: (if $sd == null then null else tq($n - 1) * $sd / ($n | sqrt) end)})) as $curve
	| ($curve | max_by(.mean)) as $best
	| ($curve | map({key: (.users | tostring), value: .mean}) | from_entries) as $at
	| ($dense | map(.run.summary.wall_s) | median) as $dense_s
	# per round, the dense curve: user count -> mean JPM
	| ($dense | map({key: (.round | tostring), value: ([.run.points[] | select(.failed | not)]
		| group_by(.users) | map({key: (.[0].users | tostring), value: (map(.jpm) | add / length)})
		| from_entries)}) | from_entries) as $by_round
	# the reference for round $r: the other rounds (all, if there is one), smoothed
	| def reference($r): ($by_round | to_entries
			| map(select(.key != ($r | tostring) or ($by_round | length) == 1) | .value)) as $others
		| [$curve[].users as $u | [$others[][$u | tostring] | select(. != null)]
			| select(length > 0) | {users: $u, m: (add / length)}] as $raw
		| $raw | map(.users as $u | {key: ($u | tostring),
			value: ([$raw[] | select(.users - $u | fabs <= 2) | .m] | add / length)}) | from_entries;
	def judge($ref): ([$ref[]] | max) as $b
		| {ref_best: ($ref | to_entries | max_by(.value) | .key | tonumber), err: (if .peak_jpm == null then null else pct(.peak_jpm; $b) end),
		   curve: (if .peak_users == null or $ref[.peak_users | tostring] == null then null
			else pct($ref[.peak_users | tostring]; $b) end)};
	# a dense sweep peaks at its best mean; an adaptive run where its summary says
	# one reference per round
	($by_round | keys | map({key: ., value: reference(tonumber)}) | from_entries) as $refs
	| ($runs | map(. + (if .mode == "dense" then ([.run.points[] | select(.failed | not)]
			| group_by(.users) | map({peak_users: .[0].users, peak_jpm: (map(.jpm) | add / length)})
			| max_by(.peak_jpm))
		else {peak_jpm: .run.summary.peak_jpm, peak_users: .run.summary.peak_users,
			lo: .run.summary.peak_users_lo, hi: .run.summary.peak_users_hi} end)
		+ {wall: .run.summary.wall_s, points: .run.summary.points_measured, stop: .run.summary.stop_reason})
	  | map(. + judge($refs[.round | tostring]) + {old: judge($at), time_x: (.wall / $dense_s)})) as $rows
	| def summary($mode): ($rows | map(select(.mode == $mode))) as $r
		| {mode: $mode, err: ($r | map(.err | select(. != null) | fabs) | median),
		   curve: ($r | map(.curve | select(. != null)) | median),
		   old_err: ($r | map(.old.err | select(. != null) | fabs) | median),
		   old_curve: ($r | map(.old.curve | select(. != null)) | median),
		   time_x: ($r | map(.time_x) | median), points: ($r | map(.points) | median)};
	# peak - dense by round for key $k ("curve" or "err"), the mean, its 95% CI half-width
	def paired($k): [$rows | group_by(.round)[]
		| (map(select(.mode == "peak"))[0][$k]) as $p | (map(select(.mode == "dense"))[0][$k]) as $d
		| select($p != null and $d != null)
		| if $k == "err" then ($p | fabs) - ($d | fabs) else $p - $d end] as $x
		| ($x | length) as $n | (if $n > 0 then ($x | add / $n) else null end) as $m
		| (if $n > 1 then tq($n - 1) * ($x | map(. - $m | . * .) | add / ($n - 1) | sqrt) / ($n | sqrt) else null end) as $h
		| (if $k == "err" then -1 else 1 end) as $up # which way is better for the search
		| {k: $k, x: $x, m: $m, h: $h, worse: ($h != null and ($m * $up) + $h < 0),
		   says: (if $h == null then "too few rounds to tell"
			elif ($m * $up) - $h > 0 then "the search better beyond the noise"
			elif ($m * $up) + $h < 0 then "the search worse beyond the noise"
			else "no difference beyond the noise" end)};
	"\npooled: the dense curve over \($rounds) round(s); best \(f($best.mean; 0; 0)) JPM at \($best.users) users"
	+ " (n=\($best.n), 95% CI \(if $best.half then "±" + f($best.half / $best.mean * 100; 0; 1) + "%" else "n/a" end));"
	+ " per-sample sd: median \(f($curve | map(select(.sd != null) | .sd / .mean * 100) | median; 0; 1))% over \($curve | length) user counts",
	"drift: the dense curve of each round against the pooled one (mean ratio over user counts): "
	+ ($dense | sort_by(.round) | map("round \(.round) " + f([.run.points[] | select(.failed | not)
		| .jpm / $at[.users | tostring]] | add / length * 100 - 100; 0; 1) + "%") | join(", ")),
	"",
	([ "round", "mode", "points", "wall_s", "time_x", "peak_JPM", "users", "err_%", "curve_%", "stop" ]
		| "\(.[0] | . + " " * (5 - length)) \(.[1] | . + " " * (9 - length))" + (.[2:9] | map(" " * (9 - length) + .) | join(" ")) + "  " + .[9]),
	($rows | sort_by(.round, .mode)[] |
		"\(.round | tostring | . + " " * (5 - length)) \(.mode | . + " " * (9 - length))"
		+ f(.points; 9; 0) + f(.wall; 10; 1) + f(.time_x; 10; 3) + f(.peak_jpm; 10; 0) + f(.peak_users; 10; 0)
		+ f(.err; 10; 2) + f(.curve; 10; 2) + "  " + (.stop // "-")
		+ (if .lo then " (within the noise: \(.lo)-\(.hi) users; the reference best at \(.ref_best))" else "" end)),
	"",
	"medians over rounds    points    time_x   |err|_%   curve_%   (all rounds: |err|_%  curve_%)",
	(summary("dense"), summary("peak"), summary("converge")
		| "  \(.mode | . + " " * (20 - length))" + f(.points; 8; 0) + f(.time_x; 10; 3) + f(.err; 10; 2) + f(.curve; 10; 2)
		+ f(.old_err; 22; 2) + f(.old_curve; 9; 2)),
	"",
	(summary("peak") as $p
		| "target (peak within \($target_err)% of the dense best in <= \($target_time * 100 | round)% of its time): "
		+ (if $p.err <= $target_err and $p.time_x <= $target_time then "MET" else "NOT MET" end)
		+ " (|err| \(f($p.err; 0; 2))%, time_x \(f($p.time_x; 0; 3)));"
		+ " a single dense sweep misses the reference best by \(f(summary("dense").err; 0; 2))%"),
	(summary("peak") as $p | summary("dense") as $d
		| "method target (peak -r auto: curve_% no worse than a single dense sweep'"'"'s, |err| no worse than its own, in <= 35% of its time): "
		+ (if $p.curve >= $d.curve and $p.err <= $d.err and $p.time_x <= 0.35 then "MET" else "NOT MET" end)
		+ " (curve_% \(f($p.curve; 0; 2)) vs \(f($d.curve; 0; 2)), |err| \(f($p.err; 0; 2))% vs \(f($d.err; 0; 2))%, time_x \(f($p.time_x; 0; 3)))"),
	# the noise of that comparison: peak - dense in each round (one reference each)
	(["curve", "err"] | map(paired(.))) as $pairs
	| ($pairs[] | "  peak - dense, \(if .k == "err" then "|err|_%" else "curve_%" end) by round: \(.x | map(f(.; 0; 2)) | join(", "));"
		+ " mean \(f(.m; 0; 2)) ± \(f(.h; 0; 2)) (95% CI): \(.says)"),
	# the same target read with its noise: the search worse in neither beyond
	# the paired CI, its choice within the pooled best'"'"'s CI
	(summary("peak") as $p | (if $best.half then $best.half / $best.mean * 100 else null end) as $ci
		| "method target within the noise (neither worse beyond the paired 95% CI, the choice within the pooled best'"'"'s CI of ±\(f($ci; 0; 1))%, time_x <= 0.35): "
		+ (if $ci == null or ($pairs | any(.h == null)) then "too few rounds to tell"
		   elif ($pairs | all(.worse | not)) and $p.curve != null and -$p.curve <= $ci
			and $p.time_x <= 0.35 then "MET" else "NOT MET" end)),
	# does the range a search reports hold the best of a reference it never saw?
	($rows | map(select(.mode == "peak" and .lo != null)) as $p | select($p | length > 0)
		| "peak -r auto: the reference best within the range the search reported in "
		+ "\($p | map(select(.lo <= .ref_best and .ref_best <= .hi)) | length) of \($p | length) rounds"),
	($rows | map(select(.mode == "converge")) | .[] |
		"quick convergence (round \(.round)): \(.run.summary.converge_jpm // "-" | if type == "number" then round else . end) JPM at \(.run.summary.converge_users // "-") users, max over the ramp \(.run.summary.max_jpm // "-" | if type == "number" then round else . end) JPM, \(.points) points in \(f(.wall; 0; 1)) s")
' < <(for f in "$T"/*.json; do
	b=$(basename "$f" .json)
	jq -c --arg mode "${b%.*}" --argjson round "${b#*.}" '{mode: $mode, round: $round, run: .}' "$f"
done)
