#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Does jobs per CPU second (--metric jpcs) decide an A/B sooner than JPM on
# a busy host?  TRIALS (3) of `run --until-decided --max-rounds ROUNDS (20)
# --threshold 5%` of one add_int user, with HOGS (1 per CPU) CPU hogs
# beside both sides (bounded: killed by pid at exit), for an injected 10%
# more work a job (-X add_int.scale=1,1.1) and for identical sides (A/A:
# scale 1 and 1.000001), each judged by --metric jpm and by --metric jpcs.
# Prints one line per trial (verdict, rounds, seconds) and, per metric and
# case, the share called worse/better/same and the median rounds.
set -u
cd "$(dirname "$0")/.."
JOBMIX=${JOBMIX:-./jobmix}
TRIALS=${TRIALS:-3}
ROUNDS=${ROUNDS:-20}
HOGS=${HOGS:-$(nproc)}
T=$(mktemp -d /tmp/jobmix-bench-jpcs.XXXXXX)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
cat >"$T/w.yaml" <<'YAML'
name: jpcs
users: {start: 1, end: 1, jobs_per_user: 40}
sync: none
mix:
  - {job: add_int, weight: 1}
YAML
for ((i = 0; i < HOGS; i++)); do
	timeout 3600 sh -c 'while :; do :; done' & PIDS+=($!)
done
echo "# $(uname -r), $(nproc) CPUs, $HOGS hogs, $TRIALS trials, at most $ROUNDS rounds, threshold 5%"
printf '%-5s %-6s %-5s %-13s %6s %6s\n' case metric trial verdict rounds secs
for t in $(seq "$TRIALS"); do
	for c in 10% aa; do
		scale=1,1.1; [ $c = aa ] && scale=1,1.000001
		for m in jpm jpcs; do
			out=$T/$c-$m-$t
			s0=$(date +%s.%N)
			"$JOBMIX" run "$T/w.yaml" -u 1 -d "$T/work" -o "$out" --threshold 5% \
				--until-decided --max-rounds "$ROUNDS" -X "add_int.scale=$scale" \
				--metric "$m" >"$out.txt" 2>&1
			s1=$(date +%s.%N)
			v=$(grep -oE "^  1\.[0-9]+ +$m .*: (worse|better|same|inconclusive)" "$out.txt" |
			    grep -oE '(worse|better|same|inconclusive)$' | tail -1)
			[ $m = jpm ] && v=$(grep -oE '^  1\.[0-9]+ +Peak Load .*: (worse|better|same|inconclusive)' \
				"$out.txt" | grep -oE '(worse|better|same|inconclusive)$' | tail -1)
			r=$(python3 -c 'import json,glob,sys; print(json.load(open(glob.glob(sys.argv[1]+"/*-ab/index.json")[0]))["rounds_run"])' "$out" 2>/dev/null)
			printf '%-5s %-6s %-5s %-13s %6s %6.0f\n' "$c" "$m" "$t" "${v:-?}" "${r:-?}" \
				"$(echo "$s1 - $s0" | bc)" | tee -a "$T/all"
		done
	done
done
echo "# summary: case metric  worse better same inconclusive  median-rounds"
summary() {
	local c m med
	for c in 10% aa; do
		for m in jpm jpcs; do
			med=$(awk -v c="$c" -v m="$m" '$1 == c && $2 == m { print $5 }' "$1" | sort -n |
			      awk '{ r[NR] = $1 } END { print NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }')
			awk -v c="$c" -v m="$m" -v med="$med" '$1 == c && $2 == m { n++; v[$4]++ }
				END { printf "%-5s %-6s %d/%d %d/%d %d/%d %d/%d  %s\n", c, m, v["worse"], n,
					v["better"], n, v["same"], n, v["inconclusive"], n, med }' "$1"
		done
	done
}
summary "$T/all"
