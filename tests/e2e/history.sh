#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: `jobmix history` finds the change in a real series (runs, then
# the same runs beside three CPU hogs on the same CPU: JPM falls by about 3/4)
# and exits 1; stays quiet on 60 A/A runs of 5% noise (copies of a real
# run.json with seeded values) and finds a 10% fall at run 41 in the same
# series; orders by a label; the newest run failed is missing evidence
# (exit 3); bad options exit 2 and write nothing.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-history.XXXXXX)
HOG=
trap '[ -n "$HOG" ] && kill $HOG 2>/dev/null; rm -rf "$T"' EXIT
W=tests/data/e2e/cpu.yaml
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
run() { taskset -c "$cpu" $JOBMIX run "$W" -u 1 -j 12 --no-warmup -d "$T/w" -o "$T/real" -q "$@" >/dev/null 2>>"$T/err"; }

# 1. a real fall: 8 runs alone, then 6 beside three hogs on the same CPU.
# The series is real, so a busy host (a CI machine's other work) can move the
# runs on either side of the hogs by itself; history then rightly reports
# more change points than the one injected.  Such a series does not test what
# this part is for, so it is measured again (at most 3 series, each said);
# the checks below judge the last one, whatever it shows.
series() {
	rm -rf "$T/real" "$T/w"
	for i in $(seq 8); do run -L night=$i; done
	for h in 1 2 3; do taskset -c "$cpu" sh -c 'while :; do :; done' & HOG="$HOG $!"; done
	sleep 0.3
	for i in $(seq 9 14); do run -L night=$i; done
	kill $HOG; wait $HOG 2>/dev/null; HOG=
	$JOBMIX history --wide "$T/real" --order night >"$T/out" 2>&1
}
for attempt in 1 2 3; do
	series; rc=$?
	n=$(grep -c '^  change at run' "$T/out")
	[ "$n" = 1 ] && grep -q 'change at run 9 (night 9 ' "$T/out" && break
	echo "# series $attempt: $n change points, not the one injected at run 9 (the host moved the runs?)"
	[ $attempt -lt 3 ] && sed 's/^/#   /' "$T/out" | grep -E 'change at|cause:|machine:'
done
echo "# series $attempt of at most 3 judged"
sed 's/^/# /' "$T/out"
# A sanitizer build's runs are short and slow by turns (0.19 s a run): on
# CI its quiet runs moved 10-26% by themselves in all three series.  The
# plain build's run of this script judges the real series; the sanitizer
# stage still runs every command below, and judges the synthetic ones.
real_judged=1
if [ -n "${JOBMIX_SANITIZED:-}" ] && ! { [ "$n" = 1 ] && grep -q 'change at run 9 (night 9 ' "$T/out"; }; then
	real_judged=
	skip "the real series: $n change points in 3 series of a sanitizer build's runs; the plain build's run judges it"
fi
# A series that is no test of history: the 8 runs alone spread more than
# 15% by themselves, or the hogs did not land (their runs kept over 60% of
# the alone runs' JPM: the CPU was already someone else's).  Read off the
# runs themselves, so a clean series that history misjudges still fails.
if [ -n "$real_judged" ] && ! { [ "$n" = 1 ] && grep -q 'change at run 9 (night 9 ' "$T/out"; }; then
	read -r cv ratio < <(jq -rs '[.[] | {n: (.labels.night | tonumber), v: .summary.peak_jpm}]
		| (map(select(.n <= 8) | .v | log)) as $a | (map(select(.n > 8) | .v | log)) as $b
		| ($a | add / length) as $ma
		| [ (($a | map((. - $ma) * (. - $ma)) | add) / (($a | length) - 1) | sqrt),
		    ((($b | add / length) - $ma) | exp) ] | @tsv' "$T"/real/*/run.json 2>/dev/null)
	if awk -v cv="${cv:-0}" -v r="${ratio:-0}" 'BEGIN { exit !(cv > 0.15 || r > 0.6) }'; then
		real_judged=
		skip "the real series: the host moved it (the runs alone spread ${cv} in log JPM, the hogs' runs at ${ratio} of their JPM): no test of history"
	fi
fi
[ -n "$real_judged" ] && check "a fall of about three quarters beside CPU hogs: the host's, exit 0" [ $rc = 0 ]
[ -n "$real_judged" ] && check "... the change at run 9 (night 9)" grep -q 'change at run 9 (night 9 ' "$T/out"
[ -n "$real_judged" ] && check "... its cause the host, with the CPU other work left the run" grep -qE '^    cause: host \(the CPU other work left the run -[0-9.]+%\)' "$T/out"
[ -n "$real_judged" ] && check "... the interference figure listed" grep -qE '^    machine: machine.other_pct [0-9.]+ -> [0-9.]+' "$T/out"
[ -n "$real_judged" ] && check "... the verdict: no regression" grep -q '^verdict: no regression' "$T/out"
$JOBMIX history "$T/real" --order night -f json >"$T/json" 2>&1
[ -n "$real_judged" ] && check "json: one change point at index 8, a fall" jq -e '.series[0].change_points | length == 1 and .[0].at == 8 and .[0].change < -0.2' "$T/json"
[ -n "$real_judged" ] && check "json: its before and after are the segments' geometric means" jq -e --slurpfile r <(jq -s '[.[] | {n: (.labels.night | tonumber), v: .summary.peak_jpm}] | sort_by(.n)' "$T"/real/*/run.json) \
	'($r[0][:8] | map(.v | log) | add / 8 | exp) as $b | (.series[0].change_points[0].before - $b | fabs) < 0.01 * $b' "$T/json"
# ... and by --metric: the same fall is a rise of elapsed, a regression where lower is better
$JOBMIX history --wide "$T/real" --order night --metric elapsed >"$T/el" 2>&1
rc=$?
sed 's/^/# /' "$T/el"
[ -n "$real_judged" ] && check "--metric elapsed: the hogs' runs take longer, the host's: exit 0" [ $rc = 0 ]
[ -n "$real_judged" ] && check "... a rise at run 9, its cause the host (lower is better)" bash -c \
	"grep -q 'elapsed (s, lower is better), 14 runs' '$T/el' && grep -q 'change at run 9 (night 9 .*, +' '$T/el' && grep -q 'cause: host' '$T/el'"
$JOBMIX history "$T/real" --order night --metric elapsed -f json >"$T/eljson" 2>&1
[ -n "$real_judged" ] && check "... json: metric elapsed, one change point, a rise" jq -e '.series[0].metric == "elapsed" and (.series[0].change_points | length == 1) and .series[0].change_points[0].change > 0.5' "$T/eljson"

# 2. A/A: 60 copies of one real run with 5% seeded noise, a second apart
one=$(ls "$T"/real/*/run.json | head -1)
# (its points and curve at the same figure: a summary its points contradict is refused)
jq '.summary.peak_jpm = "@V@" | .summary.best_jpm = "@V@" | .summary.max_jpm = "@V@" | .summary.peak_beaten = false | .started = "@S@" | .labels.run_id = "night@I@" | .labels.night = "@I@" |
    .points[].jpm = "@V@" | .summary.by_users[] |= (.jpm_mean = "@V@" | .jpm_samples |= map("@V@")) |
    if .summary.converge_jpm then .summary.converge_jpm = "@V@" else . end' "$one" >"$T/template"
synth() { # synth DIR SHIFT_AT SHIFT SEED: 60 runs, one awk writing them all
	mkdir -p "$1"
	for i in $(seq 60); do mkdir -p "$1/r$i"; done
	awk -v seed="$4" -v at="$2" -v f="$3" -v dir="$1" '
		{ t[NR] = $0 }
		END { srand(seed); for (i = 1; i <= 60; i++) {
			u1 = rand(); u2 = rand(); z = sqrt(-2 * log(u1 + 1e-12)) * cos(6.283185307 * u2)
			v = sprintf("%.6f", 1000 * exp(0.05 * z) * (i >= at ? 1 + f : 1))
			s = sprintf("2026-10-%02dT01:%02d:00Z", int((i - 1) / 30) + 1, (i - 1) % 30)
			out = dir "/r" i "/run.json"
			for (k = 1; k <= NR; k++) { l = t[k]; gsub(/"@V@"/, v, l); gsub(/@S@/, s, l); gsub(/@I@/, i, l); print l > out }
			close(out) } }' "$T/template"
}
synth "$T/aa" 1000 0 7
$JOBMIX history "$T/aa" >"$T/out" 2>&1
rc=$?
check "A/A, 60 runs of 5% noise: exit 0" [ $rc = 0 ]
check "... no change point" grep -q 'newest segment: flat (no change point in 60 runs)' "$T/out"
$JOBMIX history "$T/aa" --metric elapsed --metric cpu.user >"$T/out" 2>&1
rc=$?
check "A/A by --metric elapsed and cpu.user: exit 0, two flat series" bash -c "[ $rc = 0 ] && [ \$(grep -c 'newest segment: flat' '$T/out') = 2 ]"
quiet=0
for seed in 11 12 13 14 15 16 17 18; do
	synth "$T/aa$seed" 1000 0 $seed
	$JOBMIX history "$T/aa$seed" >/dev/null 2>&1 && quiet=$((quiet + 1))
done
check "A/A over 8 more seeds: every one exit 0 ($quiet of 8)" [ $quiet = 8 ]
synth "$T/fall" 41 -0.10 7
$JOBMIX history "$T/fall" -f json >"$T/json" 2>&1
rc=$?
check "a 10% fall at run 41 of 60 at 5% noise, 20 runs old: known, exit 0" [ $rc = 0 ]
$JOBMIX history --wide "$T/fall" --sticky >"$T/out" 2>&1
check "... --sticky: exit 1, the verdict a known REGRESSION" bash -c "[ $? = 1 ] && grep -q '^verdict: known REGRESSION in cpu ' '$T/out'"
$JOBMIX history --wide "$T/fall" >"$T/out" 2>&1
check "... without: the verdict a known regression since its run" grep -q '^verdict: known regression since run night' "$T/out"
check "... found within 2 runs of it, -10% inside its interval" jq -e '.series[0].change_points[-1] | (.at >= 38 and .at <= 42) and .ci95[0] < -0.10 and .ci95[1] > -0.10' "$T/json"
$JOBMIX history "$T/fall" -f csv >"$T/csv" 2>&1
check "csv: a header and one line per change point" bash -c "[ \"\$(head -1 '$T/csv')\" = 'series,metric,runs,change_at,before,after,change,ci_lo,ci_hi,p,newest_segment' ] && [ \$(wc -l <'$T/csv') = \$((1 + \$(jq '.series[0].change_points | length' '$T/json'))) ]"
$JOBMIX history "$T/fall" -f md >"$T/md" 2>&1
check "md: the change point's row names its run and the regression" grep -qE '^\| cpu .*\| night[0-9]+ \|.*\| regression \|$' "$T/md"
synth "$T/rise" 41 0.10 7
$JOBMIX history --wide "$T/rise" >"$T/out" 2>&1
check "a 10% rise: exit 0, an improvement" bash -c "[ $? = 0 ] && grep -q 'newest segment: improvement' '$T/out'"

# 3. order by a label, not by start: the same fall found when starts are shuffled
mkdir -p "$T/shuf"
for d in "$T"/fall/r*; do
	i=${d##*/r}
	jq --arg s "2026-11-$(printf %02d $(( (i * 37) % 28 + 1 )))T00:00:00Z" '.started = $s' "$d/run.json" >"$T/x.json"
	mkdir -p "$T/shuf/r$i"; mv "$T/x.json" "$T/shuf/r$i/run.json"
done
$JOBMIX history "$T/shuf" --order night -f json >"$T/json" 2>&1
check "--order night: the fall found at the same run as ordered by start before" \
	bash -c "[ \"\$(jq '.series[0].change_points[-1].at' '$T/json')\" = \"\$($JOBMIX history '$T/fall' -f json | jq '.series[0].change_points[-1].at')\" ]"

# 4. the newest run failed: missing evidence, not green
cp -r "$T/aa" "$T/aaf"
jq '.status = "failed" | .started = "2026-12-01T00:00:00Z" | .labels.run_id = "tonight"' "$one" >"$T/x.json"
mkdir -p "$T/aaf/tonight"; mv "$T/x.json" "$T/aaf/tonight/run.json"
$JOBMIX history --wide "$T/aaf" >"$T/out" 2>&1
rc=$?
check "the newest run failed: exit 3" [ $rc = 3 ]
check "... said so" grep -q 'the newest run, tonight, is failed: missing evidence' "$T/out"

# 4b. recorded strings that would drive a terminal are shown escaped, in every format
mkdir -p "$T/esc"
for d in "$T"/aa/r*; do
	mkdir -p "$T/esc/${d##*/}"
	jq '.env.hostname = "evil\u001b[2J\u0007host" | .labels.run_id = ("x|`" + .labels.run_id)' "$d/run.json" >"$T/esc/${d##*/}/run.json"
done
for fmt in text md csv json; do
	$JOBMIX history "$T/esc" -f $fmt >"$T/out" 2>&1
	check "-f $fmt: no escape or bell byte from a hostile hostname" bash -c "! grep -qP '[\\x1b\\x07]' '$T/out' && grep -q 'evil' '$T/out'"
done
check "-f json stays valid JSON with it" bash -c "$JOBMIX history '$T/esc' -f json | jq -e '.series[0].group.hostname | startswith(\"evil\")' >/dev/null"

# 5. bad input: exit 2, nothing written
for bad in "--window 1" "--alpha 2" "--min-seg 0" "--order nonesuch" "--by nonesuch" "-f html"; do
	$JOBMIX history "$T/aa" $bad -o "$T/never" >"$T/out" 2>&1
	rc=$?
	check "history $bad: exit 2 ($(head -1 "$T/out"))" bash -c "[ $rc = 2 ] && [ ! -e '$T/never' ]"
done
$JOBMIX history "$T/none" >"$T/out" 2>&1
check "no run read: exit 2" [ $? = 2 ]
[ -s "$T/err" ] && sed 's/^/# /' "$T/err" | head -5
true
