#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: run --until-decided adds interleaved rounds until the
# sequential verdict decides, or its budget is spent, and records why in the
# A/B index.  An arm doing 25% more work per job (-X add_int.scale=1,1.25)
# ends worse when the host lets a 20% drop be told from its noise (SKIP,
# with the figures, when 20 rounds on a crowded host could not: the
# verdict stays undecided, never better); 3x the work always ends worse;
# identical arms (scale 1 and 1.000001: 5 loops in 5 million) never end
# worse or better; arms that fold into one row (scale 1 and 1.0) stop at
# once, saying nothing is compared.
# Bad budgets are refused with exit 2 before anything is written.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-decided.XXXXXX)
trap 'rm -rf "$T"' EXIT
cat >"$T/w.yaml" <<'YAML'
name: decided
users: {start: 1, end: 1, jobs_per_user: 40}
sync: none
mix:
  - {job: add_int, weight: 1}
YAML
ud() { $JOBMIX run "$T/w.yaml" -u 1 -d "$T/work" --threshold 5% --until-decided "$@"; }
index() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["rounds_run"], j["until_decided"])' "$(ls -d "$1"/*-ab)/index.json"; }

# 1. bad budgets: exit 2, nothing written
for bad in "--max-rounds 1" "--max-rounds x" "--decide-time -5s" "--threshold 0%"; do
	ud -o "$T/bad" -X add_int.scale=1,1.25 $bad >/dev/null 2>"$T/err"; rc=$?
	check "until-decided $bad: exit 2, nothing written" bash -c "[ $rc = 2 ] && [ ! -e '$T/bad' ]"
done
$JOBMIX run "$T/w.yaml" -u 1 -d "$T/work" -o "$T/bad" --until-decided >/dev/null 2>"$T/err"; rc=$?
check "--until-decided without an A/B: exit 2 naming it" bash -c "[ $rc = 2 ] && grep -q 'needs -s or -X' '$T/err' && [ ! -e '$T/bad' ]"
$JOBMIX run "$T/w.yaml" -u 1 -d "$T/work" -o "$T/bad" -X add_int.scale=1,2 --until-decided --rounds 3 >/dev/null 2>"$T/err"; rc=$?
check "--until-decided with --rounds: exit 2" bash -c "[ $rc = 2 ] && grep -q 'max-rounds' '$T/err'"

# 2. 25% more work per job: worse, or (a crowded host) undecided, never better
ud -o "$T/inj" -X add_int.scale=1,1.25 --max-rounds 20 >"$T/out" 2>"$T/err"; rc=$?
grep -E '^until decided: round [0-9]+ .*;|^  1.25|Peak Load -' "$T/out" | sed 's/^/# /'
read -r rounds why <<<"$(index "$T/inj")"
check "1.25: the run completes" [ $rc = 0 ]
check "1.25: a line per round" [ "$(grep -c '^until decided: round' "$T/out")" = "$rounds" ]
check "1.25: as many run folders as rounds x arms" [ "$(ls -d "$T"/inj/*-r* | wc -l)" = $((2 * rounds)) ]
# the until-decided summary line per figure ('  ARM FIGURE: VERDICT (...)'): the
# evidence lines below it may fold at 100 columns, the summary never does
check "1.25: a summary line for the figure" grep -qE '^  1.25 Peak Load: [a-z]+' "$T/out"
check "1.25: never better, never same" bash -c "! grep -qE '^  1.25 Peak Load: (better|same)' '$T/out'"
if [[ $why == decided* ]]; then
	check "1.25: decided, and worse" grep -qE '^  1.25 Peak Load: worse' "$T/out"
else
	check "1.25 undecided: it says how many more rounds would decide it" grep -qE '^  1.25 Peak Load: inconclusive .*more rounds? \(~[0-9]+ (s|min) at' "$T/out"
	skip "1.25: undecided after $rounds rounds: the host's noise a round hid a 20% drop ($(grep -oE 'Peak Load [-+][0-9.]+% \[[^]]*\]' "$T/out" | tail -1))"
fi

# 3. 3x the work: worse, within the budget
ud -o "$T/inj3" -X add_int.scale=1,3 --max-rounds 20 >"$T/out" 2>"$T/err"; rc=$?
grep -E '^until decided: round [0-9]+ .*;|Peak Load -' "$T/out" | sed 's/^/# /'
read -r rounds why <<<"$(index "$T/inj3")"
check "3x: decided ($why)" bash -c "[ $rc = 0 ] && [[ '$why' == decided* ]]"
check "3x: worse" grep -qE '^  3 Peak Load: worse' "$T/out"
check "3x: each arm's run.json records the rounds run and why they stopped" python3 -c '
import json, glob, sys
runs = glob.glob(sys.argv[1] + "/*-r*/run.json")
s = [json.load(open(f))["sched"] for f in runs]
sys.exit(not (runs and all(x["rounds_run"] == int(sys.argv[2]) and x["until_decided"].startswith("decided") for x in s)))' "$T/inj3" "$rounds"

# 4. A/A: the same work, never worse or better
ud -o "$T/aa" -X add_int.scale=1,1.000001 --max-rounds 8 >"$T/out" 2>"$T/err"; rc=$?
grep -E '^until decided|Peak Load [-+]' "$T/out" | sed 's/^/# /'
read -r rounds why <<<"$(index "$T/aa")"
check "A/A: the run completes" [ $rc = 0 ]
check "A/A: a summary line for the figure" grep -qE '^  1.000001 Peak Load: [a-z]+' "$T/out"
check "A/A: never worse or better" bash -c "! grep -qE '^  1.000001 Peak Load: (worse|better)' '$T/out'"
check "A/A: the index says why it stopped" bash -c "[[ '$why' == decided* || '$why' == *budget* ]]"
if [[ $why == *budget* ]]; then
	check "A/A undecided: it says how many more rounds would decide it" grep -qE 'more rounds? \(~[0-9]+ (s|min) at|noise swamps' "$T/out"
fi

# 5. one value under two spellings: one row, nothing to decide; said after the first round
ud -o "$T/one" -X add_int.scale=1,1.0 --max-rounds 8 >"$T/out" 2>"$T/err"; rc=$?
read -r rounds why <<<"$(index "$T/one")"
check "arms of one row: stopped after round 1, saying nothing is compared" \
	bash -c "[ $rc = 0 ] && [ '$rounds' = 1 ] && grep -q 'no figure is compared' '$T/out'"
