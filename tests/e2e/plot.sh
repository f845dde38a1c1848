#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `jobmix plot` on real runs: two tiny runs of quick (kernel=A/B, two
# scheduler labels) and one of another workload; PNG and SVG charts, one
# chart per workload, --script, --trend, hostile labels, broken run.json
# files skipped, and exit 2 on a bad suffix, no runs, or no gnuplot.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-plot.XXXXXX)
trap 'rm -rf "$T"' EXIT
W=$T/work R=$T/results
mkdir -p "$W"

if [ ! -x "$JOBMIX" ]; then
	not_ok "no $JOBMIX binary (run make first)"
	exit 1
fi
run() { # run WORKLOAD OUTDIR LABEL...
	local wl=$1 out=$2; shift 2
	local l args=()
	for l in "$@"; do args+=(-L "$l"); done
	$JOBMIX run "$wl" -u 1-2 -j 5 -m linear -d "$W" -o "$out" "${args[@]}" >/dev/null 2>>"$T/run.err"
}
run workloads/quick.yaml "$R" kernel=A scheduler=mq-deadline &&
run workloads/quick.yaml "$R" kernel=B scheduler=bfq &&
run tests/data/good/e2e.yaml "$R" kernel=A scheduler=mq-deadline
check "three tiny runs" [ $? = 0 ] || cat "$T/run.err"

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { [ -s "$1" ] && grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }

if command -v gnuplot >/dev/null; then
	$JOBMIX plot "$R" -w quick -o "$T/ab.png" >"$T/out" 2>"$T/err"
	check "plot -o ab.png exits 0" [ $? = 0 ]
	check "ab.png is a non-empty PNG" is_png "$T/ab.png"
	check "plot prints the chart's path" [ "$(cat "$T/out")" = "$T/ab.png" ]
	check "nothing on stderr" [ ! -s "$T/err" ]
	check "no temp file left" [ "$(ls "$T" | grep -c '^\.')" = 0 ]

	$JOBMIX plot "$R" --workload quick -o "$T/ab.svg" >/dev/null 2>"$T/err"
	check "plot -o ab.svg exits 0" [ $? = 0 ]
	check "ab.svg is an SVG document" is_svg "$T/ab.svg"
	check "the SVG names both rows and the peak" grep -q 'A / mq-deadline' "$T/ab.svg"
	check "the SVG names row B" grep -q 'B / bfq' "$T/ab.svg"
	check "the SVG's key has the peak" grep -q '>peak<' "$T/ab.svg"
	check "the SVG's title names the workload" grep -q 'quick: jobs per minute against users' "$T/ab.svg"

	$JOBMIX plot "$R" -o "$T/all.png" >"$T/out" 2>"$T/err"
	check "two workloads: exit 0" [ $? = 0 ]
	check "two workloads: all-quick.png and all-e2e.png" is_png "$T/all-quick.png"
	check "two workloads: all-e2e.png" is_png "$T/all-e2e.png"
	check "two workloads: no all.png" [ ! -e "$T/all.png" ]
	check "two workloads: both paths printed" [ "$(sort "$T/out" | tr '\n' ' ')" = "$T/all-e2e.png $T/all-quick.png " ]

	$JOBMIX plot "$R" -w quick --trend -o "$T/trend.png" >/dev/null 2>"$T/err"
	check "--trend -o trend.png exits 0" [ $? = 0 ]
	check "trend.png is a PNG" is_png "$T/trend.png"
	$JOBMIX plot "$R" -w quick --trend -o "$T/trend.svg" >/dev/null 2>"$T/err"
	check "--trend SVG names row A's peak" grep -q 'A / mq-deadline: peak' "$T/trend.svg"

	# The HTML report inlines each table's chart.
	$JOBMIX report "$R" --format html -o "$T/r.html" 2>"$T/err"
	check "report --format html: exit 0" [ $? = 0 ]
	check "report --format html: two inline SVG charts" [ "$(grep -c '<svg' "$T/r.html")" = 2 ]
	check "report --format html: no XML prolog inside the HTML" bash -c "! grep -q '<?xml' '$T/r.html'"
	PATH=/nonexistent $JOBMIX report "$R" --format html -o "$T/r2.html" 2>"$T/err"
	check "report --format html without gnuplot: exit 0, no chart, a warning" \
		bash -c "! grep -q '<svg' '$T/r2.html' && grep -q 'gnuplot is not on PATH' '$T/err'"

	# Labels as gnuplot commands stay text.
	H=$T/hostile
	run workloads/quick.yaml "$H" "kernel=x'; system('touch $T/pwned1') #" 'scheduler=a_b^{c}\n"q"'
	run workloads/quick.yaml "$H" "kernel=$(printf 'y\nsystem "touch %s/pwned2"' "$T")"
	$JOBMIX plot "$H" -o "$T/hostile.svg" >/dev/null 2>"$T/err"
	check "hostile labels: exit 0" [ $? = 0 ]
	check "hostile labels: nothing ran" bash -c "[ ! -e '$T/pwned1' ] && [ ! -e '$T/pwned2' ]"
	check "hostile labels: printed literally" grep -qF "x'; system('touch $T/pwned1') # / a_b^{c}\\n" "$T/hostile.svg"

	# A broken run.json is named and skipped.
	B=$T/broken; mkdir -p "$B"
	cp -r "$R"/*-quick* "$B"/
	bad=$(ls -d "$B"/*-quick* | head -1)/run.json
	head -c 300 "$bad" >"$bad.x" && mv "$bad.x" "$bad"
	$JOBMIX plot "$B" -o "$T/broken.png" >/dev/null 2>"$T/err"
	check "a broken run.json: exit 0 with the rest" [ $? = 0 ]
	check "a broken run.json: named on stderr" grep -qF "$bad" "$T/err"
	check "a broken run.json: chart written" is_png "$T/broken.png"
else
	skip "gnuplot is not installed: no PNG/SVG checks"
fi

# --script: the script with its data, no gnuplot needed.
$JOBMIX plot "$R" -w quick --script -o "$T/ab.gp" >/dev/null 2>"$T/err"
check "--script -o ab.gp exits 0" [ $? = 0 ]
check "--script: data inline" grep -q '^\$d0 << EOD$' "$T/ab.gp"
check "--script: one curve per row" [ "$(grep -c '^\$d[0-9] << EOD$' "$T/ab.gp")" = 2 ]
check "--script: a plot command" grep -q '^plot \$d0 ' "$T/ab.gp"
check "--script: png terminal, no set output" bash -c "grep -q pngcairo '$T/ab.gp' && ! grep -q 'set output' '$T/ab.gp'"
$JOBMIX plot "$R" -w quick --script --term svg >"$T/ab-svg.gp" 2>"$T/err"
check "--script to stdout with --term svg" grep -q '^set terminal svg ' "$T/ab-svg.gp"
$JOBMIX plot "$R" -w quick --script -o "$T/s.svg" >/dev/null 2>&1
check "--script -o s.svg: an svg script" grep -q '^set terminal svg ' "$T/s.svg"
$JOBMIX plot "$R" -w quick --trend --script -o "$T/trend.gp" >/dev/null 2>"$T/err"
check "--trend --script: a time axis" grep -q '^set xdata time$' "$T/trend.gp"
check "--trend --script: peak lines" grep -q "title 'A / mq-deadline: peak'" "$T/trend.gp"
if command -v gnuplot >/dev/null; then
	check "the --script output draws a PNG in gnuplot" [ "$(gnuplot <"$T/ab.gp" | head -c 8 | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
fi

# The chart a person posts (issue 43): row A of one complete ramp that
# jumps 4 -> 24 users and one run interrupted (the table leaves it out).
G=$T/posted
$JOBMIX run workloads/quick.yaml -u 1,2,3,4,24 -j 5 -m linear -d "$W" -o "$G" -L kernel=A >/dev/null 2>>"$T/run.err"
$JOBMIX run workloads/quick.yaml -u 1-40 -j 5 -m linear -d "$W" -o "$G" -L kernel=A >/dev/null 2>>"$T/run.err" &
ipid=$!
for _ in $(seq 1 120); do   # interrupt it once it has recorded two points
	rj=$(grep -l '"status": *"running"' "$G"/*/run.json 2>/dev/null | head -1)
	[ -n "$rj" ] && [ "$(jq '.points | length' "$rj" 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.25
done
kill -INT $ipid
wait $ipid
done_json=$(grep -l '"status": *"complete"' "$G"/*/run.json | head -1)
intr_json=$(grep -l '"status": *"interrupted"' "$G"/*/run.json | head -1)
$JOBMIX plot "$G" --script -o "$T/posted.gp" >/dev/null 2>"$T/err"
check "posted: --script exits 0" [ $? = 0 ]
d0() { awk '/^\$d0 << EOD$/ { f = 1; next } /^EOD$/ { f = 0 } f' "$T/posted.gp"; }
if [ -n "$intr_json" ] && [ "$(jq '[.points[] | select(.failed | not)] | length' "$intr_json")" -gt 0 ]; then
	check "posted: the interrupted run is not drawn (every point of one run, n 1)" \
		bash -c "[ \"\$(awk '/^\\\$d0 << EOD\$/ { f = 1; next } /^EOD\$/ { f = 0 } f && NF && \$5 != 1' '$T/posted.gp' | wc -l)\" = 0 ]"
else
	skip "posted: the interrupted run measured no point before it was stopped"
fi
check "posted: 1 2 3 4 then a break, then 24" [ "$(d0 | awk '{ printf "%s,", NF ? $1 : "" }')" = "1,2,3,4,,24," ]
pu=$(jq -r '.summary.peak_users' "$done_json")
pj=$(jq -r '.summary.peak_jpm' "$done_json" | awk '{ printf "%.10g", $1 }')
check "posted: the peak mark is run.json's peak ($pu users, $pj JPM), in row 1's colour" \
	grep -qx "$pu $pj 1" "$T/posted.gp"
check "posted: ... and a point of the curve" bash -c "awk '/^\\\$d0 << EOD\$/ { f = 1; next } /^EOD\$/ { f = 0 } f' '$T/posted.gp' | grep -q '^$pu $pj '"
check "posted: the peak drawn in the row's colour" grep -q '^     \$peak using 1:2:3 with points .*linecolor variable notitle' "$T/posted.gp"

# Usage errors: exit 2, nothing written.
$JOBMIX plot "$R" -o "$T/x.pdf" >/dev/null 2>"$T/err"
check "-o x.pdf: exit 2" [ $? = 2 ]
check "-o x.pdf: says why" grep -q 'must end in .png or .svg' "$T/err"
check "-o x.pdf: nothing written" [ ! -e "$T/x.pdf" ]
$JOBMIX plot "$R" >/dev/null 2>&1
check "no -o: exit 2" [ $? = 2 ]
$JOBMIX plot "$R" -o "$T/nosuchdir/x.png" >/dev/null 2>"$T/err"
check "-o in a missing folder: exit 2, named" bash -c "[ $? = 2 ] && grep -q 'nosuchdir' '$T/err'"
$JOBMIX plot "$R" -o "$T/x.png" --term svg >/dev/null 2>&1
check "--term contradicting -o: exit 2" [ $? = 2 ]
mkdir -p "$T/empty"
$JOBMIX plot "$T/empty" -o "$T/e.png" --script >/dev/null 2>&1
check "no runs: exit 2" [ $? = 2 ]
$JOBMIX plot "$R" -w nosuch -o "$T/n.png" --script >/dev/null 2>"$T/err"
check "--workload matching nothing: exit 2" [ $? = 2 ]

# Without gnuplot on PATH: a clear message and exit 2 (and --script still works).
PATH=/nonexistent $JOBMIX plot "$R" -w quick -o "$T/nogp.png" >/dev/null 2>"$T/err"
check "no gnuplot: exit 2" [ $? = 2 ]
check "no gnuplot: says so" grep -q 'gnuplot is not on PATH' "$T/err"
check "no gnuplot: nothing written" [ ! -e "$T/nogp.png" ]
PATH=/nonexistent $JOBMIX plot "$R" -w quick --script -o "$T/nogp.gp" >/dev/null 2>&1
check "no gnuplot: --script still exits 0" [ $? = 0 ]
