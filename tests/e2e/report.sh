#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: real runs labelled as two kernels and two schedulers, then
# `jobmix report` (the table's shape, formats, broken runs skipped) and
# `jobmix compare` (exit 1 on a real regression: the candidate pinned to one
# CPU; exit 0 on the same runs and on fresh runs under the same conditions);
# a run.json whose summary its own points contradict is refused, named,
# never compared as better.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-report.XXXXXX)
trap 'rm -rf "$T" /tmp/jobmix-e2e-work' EXIT
R=$T/results
W=tests/data/e2e/cpu.yaml

# 1. kernels A and B, schedulers x and y: eight tiny runs (two repeats each)
for k in A B; do
	for s in x y; do
		for r in 1 2; do
			$JOBMIX run tests/data/good/e2e.yaml -u 1-2 -j 5 -m linear -o "$R" -q \
				-L kernel=$k -L scheduler=$s -d "$T/w" >/dev/null 2>>"$T/err"
		done
	done
done
check "eight runs written" [ "$(ls -d "$R"/*/ | wc -l)" = 8 ]
out=$($JOBMIX report "$R" --wide 2>"$T/rep.err")   # a row a line (the default folds at 100, below)
rc=$?
check "report exits 0" [ $rc = 0 ]
echo "$out" | sed 's/^/# /'
check "title names the workload" grep -q '^e2e: Maximum Jobs Per Minute (8 runs)$' <<<"$out"
check "the reference's columns" grep -q '^Kernel Version  IO Scheduler  Run ID  *n  Peak Load  *Users  Quick Convergence  Users' <<<"$out"
rows=$(grep -E '[0-9]{8}-[0-9]{6}-e2e' <<<"$out")
check "one row per kernel and scheduler" [ "$(wc -l <<<"$rows")" = 4 ]
check "kernel printed once for its group" [ "$(grep -c '^A ' <<<"$rows")" = 1 ] && [ "$(grep -c '^B ' <<<"$rows")" = 1 ]
check "repeats folded: n = 2, the one centre ×/÷ its factor" [ "$(grep -cE ' 2 +[0-9]+ ×/÷ [0-9.]+' <<<"$rows")" = 4 ]
check "the second scheduler of each kernel has a change" [ "$(grep -cE ' y .*[-+][0-9]+\.[0-9]%' <<<"$rows")" = 2 ]
check "marks footnote names the reference" grep -q "Marks: each row against the row with scheduler=[a-z-]* and the same Kernel Version" <<<"$out"
check "no quick convergence on a 1-2 user ramp: '-'" [ "$(awk '{print}' <<<"$rows" | grep -c ' - ')" -ge 4 ]
# --by, --workload, formats
check "--by kernel folds the schedulers" [ "$($JOBMIX report "$R" --by kernel --wide | grep -cE '^(A|B) ')" = 2 ]
check "--workload of another workload: no table, exit 2 naming it" bash -c "$JOBMIX report '$R' --workload nonesuch 2>&1 >/dev/null | grep -q \"no run of workload 'nonesuch'\"; [ \${PIPESTATUS[0]} = 2 ]"
mkdir -p "$T/empty"
check "report of an empty folder exits 2" bash -c "$JOBMIX report '$T/empty' 2>/dev/null; [ \$? = 2 ]"
check "md table" bash -c "$JOBMIX report '$R' -f md | grep -q '^| Kernel Version | IO Scheduler |'"
check "csv header and 4 rows" [ "$($JOBMIX report "$R" -f csv | wc -l)" = 5 ]
check "json parses, 4 rows" [ "$($JOBMIX report "$R" -f json | jq '.tables[0].rows | length')" = 4 ]
$JOBMIX report "$R" -f html -o "$T/r.html"
check "html written with the table" grep -q '<th>Kernel Version</th>' "$T/r.html"
check "html has no network reference" bash -c "! grep -qiE 'https?://[^w]|src=\"http' '$T/r.html'"
check "bad format exits 2" bash -c "$JOBMIX report '$R' -f xml; [ \$? = 2 ]"
check "missing path exits 2" bash -c "$JOBMIX report '$T/nonesuch' 2>/dev/null; [ \$? = 2 ]"

# 2. a broken, a truncated and an interrupted run: named and skipped, or shown as such
one=$(ls -d "$R"/*/ | head -1)
mkdir "$R/zz-broken" "$R/zz-trunc"
echo '{"schema": "jobmix-run/99"}' >"$R/zz-broken/run.json"
head -c 300 "$one/run.json" >"$R/zz-trunc/run.json"
cp -r "$one" "$R/zz-int"
jq '.status = "interrupted" | .labels.kernel = "C"' "$one/run.json" >"$R/zz-int/run.json"
out=$($JOBMIX report "$R" 2>"$T/rep.err")
check "report still exits 0" [ $? = 0 ]
check "unknown version named and skipped" grep -q "skipped .*zz-broken/run.json.*jobmix-run/99" "$T/rep.err"
check "truncated file named and skipped" grep -q "skipped .*zz-trunc/run.json" "$T/rep.err"
check "interrupted run shown as such" grep -q 'zz-int (interrupted)' <<<"$out"

# 3. compare: the candidate pinned to one CPU regresses; the same runs do not
if ! command -v taskset >/dev/null || [ "$(nproc)" -lt 2 ]; then
	skip "compare regression: needs taskset and 2 CPUs"
else
	for i in 1 2 3 4; do
		$JOBMIX run $W -u 2,4 -o "$T/base" -q >/dev/null 2>>"$T/err"
		taskset -c 0 $JOBMIX run $W -u 2,4 -o "$T/cand" -q >/dev/null 2>>"$T/err"
		$JOBMIX run $W -u 2,4 -o "$T/fresh" -q >/dev/null 2>>"$T/err"
	done
	$JOBMIX compare --wide "$T/base" -- "$T/cand" >"$T/cmp" 2>&1
	rc=$?
	sed 's/^/# /' "$T/cmp"
	# A machine busy with other work gives the two-CPU side less than two CPUs:
	# then the check says so instead of failing or passing by luck.
	cv=$($JOBMIX compare -f json "$T/base" -- "$T/cand" | jq '[.rows[] | select(.metric == "jpm@4")][0] | .base_sd / .base_mean')
	ratio=$($JOBMIX compare -f json "$T/base" -- "$T/cand" | jq '[.rows[] | select(.metric == "jpm@4")][0] | .cand_mean / .base_mean')
	if awk -v c="$cv" 'BEGIN { exit !(c > 0.15) }'; then
		skip "compare regression: the baseline's own spread is $cv (> 0.15): the machine is busy"
	elif awk -v r="$ratio" 'BEGIN { exit !(r > 0.8) }'; then
		skip "compare regression: one CPU gave $ratio of two CPUs' JPM: the machine gave the baseline no second CPU (busy)"
	else
		check "compare exits 1 on one CPU against two" [ $rc = 1 ]
		# which of peak, jpm@2, jpm@4 clears Holm on a busy host varies: one must, by name
		check "compare names the regressed metrics" grep -qE '^(peak|jpm@[24]) .*WORSE' "$T/cmp"
		check "compare json verdicts" bash -c "$JOBMIX compare -f json '$T/base' -- '$T/cand' | jq -e '.worse >= 1 and (.rows | length) == 3'"
	fi
	$JOBMIX compare "$T/base" -- "$T/base" >"$T/cmp" 2>&1
	check "compare exits 0 on the same runs" [ $? = 0 ]
	$JOBMIX compare --threshold 15% "$T/base" -- "$T/fresh" >"$T/cmp" 2>&1
	rc=$?
	# a run that failed (a point past its time limit on a machine busy with other work) is
	# missing evidence: exit 3, never 0 and never a regression
	if jq -e -s 'all(.status == "complete")' "$T"/base/*/run.json "$T"/fresh/*/run.json >/dev/null; then
		check "compare exits 0 on fresh runs under the same conditions at 15%" [ $rc = 0 ]
	else
		check "compare exits 3 (missing evidence) when a run failed" [ $rc = 3 ]
		check "compare names the run that failed" grep -q '^Missing evidence' "$T/cmp"
	fi
	[ $rc = 0 ] || sed 's/^/# /' "$T/cmp"
fi
# 4. a summary its own points contradict (peak_jpm 1e308 beside points at ~5,000 JPM) is
# refused, named with the field and the points' figure: compare never reads it as better
for i in 1 2; do
	$JOBMIX run $W -u 2,4 -j 10 -o "$T/fb" -d "$T/w" -q >/dev/null 2>>"$T/err"
done
for d in "$T"/fb/*/; do
	n=$(basename "$d"); mkdir -p "$T/fc/$n" "$T/fm/$n"
	jq '.summary.peak_jpm = 1e308' "$d/run.json" >"$T/fc/$n/run.json"
	cp "$d/run.json" "$T/fm/$n/run.json"
done
cp "$T/fc/$n/run.json" "$T/fm/$n/run.json"      # mixed: one forged, one as written
$JOBMIX compare "$T/fb" -- "$T/fc" >"$T/fcmp" 2>&1
rc=$?
check "a forged summary: compare exits 2 (no readable candidate), never 0" [ $rc = 2 ]
check "... each forged run named with the field and the points' figure" bash -c \
	"[ \$(grep -c 'skipped .*summary.peak_jpm 1e+308 at [0-9]* users contradicts its points: they measured [0-9.]* JPM there' '$T/fcmp') = 2 ]"
check "... and never called better" bash -c "! grep -qi 'better' '$T/fcmp'"
$JOBMIX compare "$T/fb" -- "$T/fm" >"$T/fcmp2" 2>&1
rc=$?
check "one forged run beside an honest one: exit 3, evidence missing" [ $rc = 3 ]
check "... said: 1 path skipped" grep -q "1 path skipped (above): evidence missing" "$T/fcmp2"
$JOBMIX report "$T/fm" >"$T/frep" 2>&1
check "report: the forged run skipped, its figure shown nowhere" bash -c \
	"grep -q 'skipped .*contradicts its points' '$T/frep' && ! grep -q '1000000000' '$T/frep'"
check "compare without -- exits 2" bash -c "$JOBMIX compare '$R' 2>/dev/null; [ \$? = 2 ]"
check "compare with a bad threshold exits 2" bash -c "$JOBMIX compare --threshold x '$R' -- '$R' 2>/dev/null; [ \$? = 2 ]"
check "compare with a bad --alpha exits 2 naming it" bash -c "$JOBMIX compare --alpha 0.7 '$R' -- '$R' 2>&1 | grep -q \"alpha '0.7'\"; [ \${PIPESTATUS[0]} = 2 ]"

# 4. tools/nightly.sh: two nights, the second compared with the first
N=$T/nightly
NIGHTLY_DATE=2026-11-30 tools/nightly.sh -w "$PWD/tests/data/good/e2e.yaml" -r 2 -o "$N" -- -u 1-2 -j 5 -m linear -d "$T/nw" >"$T/n1" 2>&1
check "first night exits 0 with no baseline" [ $? = 0 ]
check "first night says it has no baseline" grep -q "no baseline night yet" "$T/n1"
NIGHTLY_DATE=2026-12-01 tools/nightly.sh -w "$PWD/tests/data/good/e2e.yaml" -r 2 -t 90% -o "$N" -- -u 1-2 -j 5 -m linear -d "$T/nw" >"$T/n2" 2>&1
rc=$?
check "second night exits with history's code (0: 4 runs, no change point)" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/n2"
check "second night: two runs" [ "$(ls -d "$N"/2026-12-01/*-e2e*/ | wc -l)" = 2 ]
check "report.md with the table and the comparison" bash -c "grep -q '^| Kernel Version' '$N/2026-12-01/report.md' && grep -q '^## Against 2026-11-30' '$N/2026-12-01/report.md'"
check "report.html written" grep -q '<table>' "$N/2026-12-01/report.html"
check "report.html: the verdict and the history" bash -c "grep -qE '<strong>nightly 2026-12-01: [^<]*no regression' '$N/2026-12-01/report.html' && grep -q 'in order of night' '$N/2026-12-01/report.html' && grep -q '</html>' '$N/2026-12-01/report.html'"
if command -v gnuplot >/dev/null; then
	check "report.html: the trend by night beside it" bash -c "grep -q '<img src=\"trend.svg\"' '$N/2026-12-01/report.html' && grep -q 'by night' '$N/2026-12-01/trend.svg'"
fi
check "compare.txt written" grep -q 'metrics compared' "$N/2026-12-01/compare.txt"
# all 4 runs, or (on a host busy enough to flag a run's points) those left
# and the flagged ones said: 4 in all either way
series_runs() { # the runs the series holds plus those it says it left out as flagged
	tr -s ' \n' '  ' <"$1" | sed -n 's/.*Peak Load JPM, \([0-9]*\) runs\{0,1\} in order of night\(.*\)/\1 \2/p' |
		awk '{ n = $1; p = ""
			if (match($0, /^[0-9]+ *\([^)]*\)/)) p = substr($0, 1, RLENGTH)
			if (match(p, /[0-9]+ left out: points flagged/)) n += substr(p, RSTART) + 0
			print n; exit }'
}
check "history.txt: the series over both nights, ordered by night ($(series_runs "$N/2026-12-01/history.txt") runs)" \
	[ "$(series_runs "$N/2026-12-01/history.txt")" = 4 ]
[ "$(series_runs "$N/2026-12-01/history.txt")" = 4 ] || sed 's/^/# /' "$N/2026-12-01/history.txt"
check "report.md with the history" grep -q '^## History (change points, by night)' "$N/2026-12-01/report.md"
check "the compare is said to be secondary" grep -q 'secondary, 2026-12-01 against 2026-11-30' "$T/n2"
# a third night --until-decided: more runs while undecided against 2026-12-01, at most -m 2
NIGHTLY_DATE=2026-12-02 tools/nightly.sh --until-decided -m 2 -w "$PWD/tests/data/good/e2e.yaml" -r 2 -o "$N" -- -u 1-2 -j 5 -m linear -d "$T/nw" >"$T/n3" 2>&1
grep '^nightly:' "$T/n3" | sed 's/^/# /'
n3=$(ls -d "$N"/2026-12-02/*-e2e*/ | wc -l)
check "--until-decided: the repeats and one run per undecided look" [ "$n3" = $((2 + $(grep -c 'one more run' "$T/n3"))) ]
check "--until-decided: at most -m 2 more" [ "$n3" -le 4 ]
check "--until-decided: says decided, or what stayed undecided" grep -qE '^nightly: (every tested comparison with 2026-12-01 decided|still undecided against 2026-12-01 after 2 more runs: e2e)' "$T/n3"
# (compare's notes wrap at 100 columns: read as one line)
check "--until-decided: the comparison held to alpha 0.05 / 3" bash -c "tr -s '\\n ' ' ' <'$N/2026-12-02/compare.txt' | grep -q 'p < 0.0166667 after Holm'"
check "compare --alpha: the verdicts held to it" bash -c "$JOBMIX compare --wide --alpha 0.01 '$N/2026-11-30' -- '$N/2026-12-01' 2>&1 | grep -q 'p < 0.01 after Holm'"
check "nightly -m x: exit 2" bash -c "NIGHTLY_DATE=y tools/nightly.sh -u -m x -o '$N' >/dev/null 2>&1; [ \$? = 2 ] && [ ! -d '$N/y' ]"
check "nightly --help: usage on stdout, exit 0" bash -c "tools/nightly.sh --help | grep -q '^usage: jobmix-nightly'"
NIGHTLY_DATE=x tools/nightly.sh -w nonesuch -o "$N" >/dev/null 2>&1
check "an unknown workload exits 2" [ $? = 2 ]
check "nothing run for it" [ ! -d "$N/x" ] || [ -z "$(ls -A "$N/x")" ]

# 5. Text fits 100 columns (issue 43): every default text table and note of
# these reports, in characters; --wide keeps a row a line.
widest() { "$@" 2>/dev/null | LC_ALL=C.UTF-8 wc -L; }
for v in "" "--device-stats" "--by kernel" "--by kernel --cols scheduler"; do
	# shellcheck disable=SC2086
	w=$(widest $JOBMIX report "$R" $v)
	check "report $v: at most 100 columns (widest $w)" [ "$w" -le 100 ]
done
w=$(widest $JOBMIX report "$N/2026-12-01")
check "report of a night: at most 100 columns (widest $w)" [ "$w" -le 100 ]
w=$(widest $JOBMIX report "$R" --device-stats --wide)
check "--device-stats --wide keeps a row a line (widest $w > 100)" [ "$w" -gt 100 ]
# compare and history as well (their notes ran to 267 columns), and what nightly.sh wrote
for v in "--by kernel,scheduler $R -- $R" "--evidence $N/2026-11-30 -- $N/2026-12-01" \
	 "$N/2026-11-30 -- $N/2026-12-02"; do
	# shellcheck disable=SC2086
	w=$(widest $JOBMIX compare $v)
	check "compare ${v//$T\//}: at most 100 columns (widest $w)" [ "$w" -le 100 ]
done
for v in "$R" "$N --order night" "$N --order night --metric elapsed"; do
	# shellcheck disable=SC2086
	w=$(widest $JOBMIX history $v)
	check "history ${v//$T\//}: at most 100 columns (widest $w)" [ "$w" -le 100 ]
done
for f in "$N"/2026-12-0[12]/compare.txt "$N"/2026-12-0[12]/history.txt; do
	w=$(widest cat "$f")
	check "nightly's ${f#"$N"/}: at most 100 columns (widest $w)" [ "$w" -le 100 ]
done
w=$(widest $JOBMIX compare --wide --by kernel,scheduler "$R" -- "$R")
check "compare --wide keeps a note a line (widest $w > 100)" [ "$w" -gt 100 ]
w=$(widest $JOBMIX history --wide "$N" --order night)
check "history --wide keeps a note a line (widest $w > 100)" [ "$w" -gt 100 ]

# The HTML opens with the verdict and names the night.
H=$N/2026-12-01/report.html
check "report.html: titled for the night" grep -q '<title>jobmix nightly 2026-12-01' "$H"
check "report.html: the night's verdict before the first table" bash -c \
	"[ \$(grep -n 'id=\"nightly-verdict\"' '$H' | cut -d: -f1) -lt \$(grep -n '<table>' '$H' | head -1 | cut -d: -f1) ]"
if ! command -v chromium >/dev/null; then
	skip "chromium is not installed (apt-get install chromium): no browser check of the HTML"
else
	# in a real browser at 1280 px: the verdict within the first screen, no page-wide scroll
	sed 's|</body>|<script>document.title = "M " + document.getElementById("nightly-verdict").getBoundingClientRect().top + " " + document.documentElement.scrollWidth;</script></body>|' "$H" >"$T/probe.html"
	timeout 60 chromium --headless --disable-gpu --no-sandbox --window-size=1280,900 \
		--user-data-dir="$T/chromium" --dump-dom "file://$T/probe.html" >"$T/dom" 2>/dev/null
	read -r top sw < <(sed -n 's|.*<title>M \([0-9.]*\) \([0-9]*\)</title>.*|\1 \2|p' "$T/dom")
	check "chromium: the verdict within the first screen (top ${top:-?} px < 900)" \
		awk -v t="${top:-9999}" 'BEGIN { exit !(t < 900) }'
	check "chromium: no horizontal scroll at 1280 px (scrollWidth ${sw:-?})" [ "${sw:-9999}" -le 1280 ]
	timeout 60 chromium --headless --disable-gpu --no-sandbox --window-size=1280,2000 \
		--user-data-dir="$T/chromium" --screenshot="$T/shot.png" "file://$H" >/dev/null 2>&1
	check "chromium: a screenshot" [ -s "$T/shot.png" ]
	if [ -n "${JM_KEEP_SHOT:-}" ]; then cp "$T/shot.png" "$JM_KEEP_SHOT"; fi
fi
