#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: an A/B run's HTML report opens as a person posts it (issue
# 43): titled for the A/B, the verdict first (before any table), coloured,
# each compared Peak Load with its interval; and in a real browser
# (Debian's chromium, headless) at 1280 px the verdict lies within the
# first screen and nothing scrolls sideways.  report.sh checks a nightly's
# page the same way.  An A/B of quick with add_int's scale 1 and 1.25, two
# rounds: no root, no device, seconds.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT

$JOBMIX run workloads/quick.yaml -u 1 -j 4 -X add_int.scale=1,1.25 --rounds 2 -d "$T/w" \
	-o "$T/r" -q >"$T/run.out" 2>&1
check "an A/B of two arms, two rounds: exit 0" [ $? = 0 ]
I=$(ls -d "$T"/r/*-ab 2>/dev/null | head -1)
check "its index folder" [ -f "$I/index.json" ]
# the arms differ in a workload setting: --by it compares them (docs/reports.md)
$JOBMIX report "$I" --by add_int.scale -f html -o "$T/ab.html" 2>"$T/err"
check "report --by add_int.scale -f html of the A/B's index folder: exit 0" [ $? = 0 ]
H=$T/ab.html
A=$(basename "$I")
check "the title names the A/B ($A) and the workload" grep -qF "<title>jobmix A/B $A: quick</title>" "$H"
check "the heading is the title" grep -qF "<h1>jobmix A/B $A: quick</h1>" "$H"
first() { grep -n -m1 "$1" "$H" | cut -d: -f1; }
check "the verdict before the first table" bash -c "[ 0$(first 'id=\"verdict\"') -gt 0 ] &&
	[ 0$(first 'id=\"verdict\"') -lt 0$(first '<table>') ]"
check "the verdict is marked (worse, better, inconclusive or same)" \
	grep -qE '<div class="verdict (worse|better|inconclusive|same)" id="verdict">' "$H"
check "... with each compared Peak Load and its interval" \
	bash -c "sed -n '/id=\"verdict\"/,/<\/div>/p' '$H' | grep -E '<li>quick: 1.25 +Peak Load [-+][0-9.]+% \\[95% CI ' | grep -q ' vs 1: '"

if ! command -v chromium >/dev/null; then
	skip "chromium is not installed (apt-get install chromium): no browser check of the A/B page"
else
	# the verdict's place and colour, and the page's width, as the browser lays them out
	sed 's|</body>|<script>var v = document.getElementById("verdict"); var b = 0; document.querySelectorAll("th, td").forEach(function (c) { var t = c.textContent.trim(); if (!t \|\| /\\s/.test(t)) return; var r = document.createRange(); r.selectNodeContents(c); if (r.getClientRects().length > 1) b++; }); document.title = "M " + v.getBoundingClientRect().top + " " + document.documentElement.scrollWidth + " " + getComputedStyle(v).borderLeftColor.replace(/ /g, "") + " " + b;</script></body>|' \
		"$H" >"$T/probe.html"
	timeout 60 chromium --headless --disable-gpu --no-sandbox --window-size=1280,900 \
		--user-data-dir="$T/chromium" --dump-dom "file://$T/probe.html" >"$T/dom" 2>/dev/null
	read -r top sw colour broken < <(sed -n 's|.*<title>M \([0-9.]*\) \([0-9]*\) \([^<]*\)</title>.*|\1 \2 \3|p' "$T/dom")
	echo "# chromium at 1280x900: verdict top ${top:-?} px, scrollWidth ${sw:-?}, border ${colour:-?}, one-word cells broken ${broken:-?}"
	check "chromium: the A/B verdict within the first screen (top ${top:-?} px < 900)" \
		awk -v t="${top:-9999}" 'BEGIN { exit !(t < 900) }'
	check "chromium: no horizontal scroll at 1280 px (scrollWidth ${sw:-?})" [ "${sw:-9999}" -le 1280 ]
	# the unmarked grey (#999) is what an uncoloured verdict would show
	check "chromium: the verdict coloured (${colour:-?})" \
		bash -c '[[ $1 =~ ^rgb\( && $1 != "rgb(153,153,153)" ]]' _ "${colour:-}"
	# a header or value of one word ("Users", "inconclusive") is never split over two lines
	check "chromium: no one-word table cell broken over lines (${broken:-?})" [ "${broken:-x}" = 0 ]
fi
