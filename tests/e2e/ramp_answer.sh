#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One answer everywhere (issue 42, docs/ramps.md): a small converge ramp's
# console closing lines, run.json's summary, `report -f json`, `compare -f
# json` and the chart's data (`plot --script`) carry the same peak users and
# JPM, best point, range, interval and quick convergence.  Where the chart's
# mark is placed is plot's business; here only the numbers it is given.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
W=$T/work; R=$T/results
mkdir -p "$W"

# the e2e mix with a threshold its JPM/user crosses within 64 users
sed 's/^users: {start: 1, end: 3,/users: {start: 1, end: 64, converge_jpm_per_user: 400,/' \
	tests/data/good/e2e.yaml >"$T/wl.yaml"
grep -q 'converge_jpm_per_user: 400' "$T/wl.yaml" || { not_ok "answer: workload copy"; exit 0; }
$JOBMIX run "$T/wl.yaml" -m converge -r auto -j 5 -d "$W" -o "$R" --progress plain \
	>"$T/out" 2>"$T/err"; rc=$?
f=$(ls "$R"/*/run.json 2>/dev/null | head -1)
check "answer: converge run exit 0" [ $rc = 0 ]
[ -n "$f" ] || { not_ok "answer: run.json written"; cat "$T/err"; exit 0; }
S() { jq -r ".summary.$1 // empty" "$f"; }

# the console's peak line: "peak: X JPM at U users", or "best point: ..." when not established
line=$(grep -E '^(peak|best point): [0-9.]+ JPM at [0-9]+ users' "$T/out")
label=$(sed -E 's/^(peak|best point): .*/\1/' <<<"$line")
cjpm=$(sed -E 's/^[a-z ]+: ([0-9.]+) JPM.*/\1/' <<<"$line")
cusers=$(sed -E 's/^.* JPM at ([0-9]+) users.*/\1/' <<<"$line")
check "answer: one peak line on the console" [ "$(grep -cE '^(peak|best point): [0-9.]+ JPM' "$T/out")" = 1 ]
check "answer: console's peak users = run.json's ($cusers)" [ "$cusers" = "$(S peak_users)" ]
check "answer: console's peak JPM = run.json's ($cjpm)" [ "$cjpm" = "$(jq -r '.summary.peak_jpm * 10 | round / 10 | tostring | if test("\\.") then . else . + ".0" end' "$f")" ]
want=$([ "$(S peak_established)" = true ] && echo peak || echo "best point")
check "answer: console says '$want' as run.json's peak_established" [ "$label" = "$want" ]
check "answer: run.json's best point is its peak" jq -e '.summary | .best_jpm == .peak_jpm and .best_users == .peak_users' "$f"

# range and interval as the console printed them
lo=$(S peak_users_lo); hi=$(S peak_users_hi)
range=$(sed -n 's/^within the noise of it: \([0-9]*\) to \([0-9]*\) users\( (the search.s ceiling: .*)\)\{0,1\}$/\1 \2/p' "$T/out")
if [ -n "$lo" ] && [ "$lo" != "$hi" ]; then
	check "answer: console's range = run.json's ($lo..$hi)" [ "$range" = "$lo $hi" ]
else
	check "answer: no range printed for a one-count range" [ -z "$range" ]
fi
ci=$(sed -n "s/^the peak's 95% interval: \([0-9.]*\) to \([0-9.]*\) JPM$/\1 \2/p" "$T/out")
if [ -n "$(S peak_ci95_lo)" ]; then
	check "answer: console's interval = run.json's" jq -e --arg c "$ci" \
		'.summary | ($c | split(" ") | map(tonumber)) as $v | ($v | length) == 2
		 and (($v[0] - .peak_ci95_lo) | fabs) <= 0.051 and (($v[1] - .peak_ci95_hi) | fabs) <= 0.051' "$f"
else
	check "answer: no interval printed without one" [ -z "$ci" ]
fi

# quick convergence
qc=$(sed -n 's/^quick convergence: \([0-9.]*\) JPM at \([0-9]*\) users.*/\1 \2/p' "$T/out")
if [ -n "$(S converge_users)" ]; then
	check "answer: console's quick convergence = run.json's ($qc)" jq -e --arg q "$qc" \
		'.summary | ($q | split(" ") | map(tonumber)) as $v | ($v | length) == 2
		 and (($v[0] - .converge_jpm) | fabs) <= 0.051 and $v[1] == .converge_users' "$f"
else
	check "answer: no quick convergence printed without one" [ -z "$qc" ]
fi

# report -f json: the same figures
$JOBMIX report -f json "$R" >"$T/rep.json" 2>"$T/rerr"
check "answer: report -f json exit 0" [ $? = 0 ]
check "answer: report's peak = run.json's (JPM, users, established)" jq -e --slurpfile s "$f" \
	'.tables[0].rows[0].peak as $p | $s[0].summary as $r
	 | $p.n == 1 and (($p.mean - $r.peak_jpm) | fabs) <= 1e-6 * $r.peak_jpm
	 and $p.users_lo == $r.peak_users and $p.users_hi == $r.peak_users
	 and $p.established == ($r.peak_established and ($r.peak_beaten | not))' "$T/rep.json"
check "answer: report's quick convergence = run.json's" jq -e --slurpfile s "$f" \
	'.tables[0].rows[0].qc as $q | $s[0].summary as $r
	 | if $r.converge_users == null then $q.n == 0
	   else $q.n == 1 and (($q.mean - $r.converge_jpm) | fabs) <= 1e-6 * $r.converge_jpm
	        and $q.users_lo == $r.converge_users end' "$T/rep.json"
# the text table: the peak figure rounded, '?' exactly when not established
cell=$($JOBMIX report "$R" 2>/dev/null | awk -v id="$(basename "$(dirname "$f")")" '$0 ~ id { for (i = 1; i <= NF; i++) if ($i == id) { print $(i + 2), $(i + 3); exit } }')
want=$(jq -r '.summary | "\(.peak_jpm | round)\(if .peak_established then "" else "?" end) \(.peak_users)"' "$f")
check "answer: report's table shows '$want' ($cell)" [ "$cell" = "$want" ]
html=$($JOBMIX report -f html "$R" 2>/dev/null | grep -F "<td>$(basename "$(dirname "$f")")</td>")
hwant=$(sed 's|^\([^ ]*\) \(.*\)$|<td class="num">\1</td><td class="num">\2</td>|' <<<"$want")
check "answer: report's HTML row shows the same peak" grep -qF "$hwant" <<<"$html"

# compare: the run against itself tests the same peak and quick convergence
$JOBMIX compare -f json "$R" -- "$R" >"$T/cmp.json" 2>"$T/cerr"
check "answer: compare -f json exit 0" [ $? = 0 ]
check "answer: compare's peak = run.json's" jq -e --slurpfile s "$f" \
	'[.rows[] | select(.metric == "peak")] as $p | $s[0].summary as $r
	 | ($p | length) == 1 and (($p[0].base_mean - $r.peak_jpm) | fabs) <= 1e-6 * $r.peak_jpm
	 and $p[0].cand_mean == $p[0].base_mean' "$T/cmp.json"
check "answer: compare's quick convergence = run.json's" jq -e --slurpfile s "$f" \
	'[.rows[] | select(.metric == "qc")] as $q | $s[0].summary as $r
	 | if $r.converge_users == null then ($q | length) == 0 or $q[0].n_base == 0
	   else ($q | length) == 1 and (($q[0].base_mean - $r.converge_jpm) | fabs) <= 1e-6 * $r.converge_jpm end' "$T/cmp.json"

# the chart's data: the $peak block holds "users jpm linetype" for the run
$JOBMIX plot "$R" --script >"$T/plot.gp" 2>"$T/perr"
check "answer: plot --script exit 0" [ $? = 0 ]
pk=$(sed -n '/^\$peak << EOD$/,/^EOD$/p' "$T/plot.gp" | sed '1d;$d')
check "answer: the chart's peak data is one point" [ "$(wc -l <<<"$pk")" = 1 ]
check "answer: the chart's peak = run.json's ($pk)" jq -e --arg p "$pk" \
	'.summary | ($p | split(" ") | map(tonumber)) as $v | ($v | length) == 3
	 and $v[0] == .peak_users and (($v[1] - .peak_jpm) | fabs) <= 1e-6 * .peak_jpm' "$f"
check "answer: work area empty" empty_dir "$W"
