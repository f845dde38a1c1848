#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How often do jobmix's verdicts cry wolf, and how often do they catch a real
# regression?  Measured on this machine, not assumed.
#
# 1. False alarms.  For each mix, COMPARISONS A/A comparisons: RUNS runs of the
#    same command as the baseline and RUNS as the candidate, the two sides
#    alternating run by run (A B A B ...), then `jobmix compare`.  Printed: the
#    share of comparisons compare calls worse (a red night: exit 1) and the
#    share with any worse or better verdict, with the noise measured beside
#    them (the runs' own spread of peak JPM).  Goal at alpha 0.05 with Holm:
#    at most 5% of nights red.
# 1b. Identical arms.  The same runs labelled arm=A / arm=B as they alternate,
#    and `jobmix report --by arm`: the share of A/B tables whose B row gets a
#    mark (**** or ++++).
# 2. Power.  The candidate's users throttled to SIZES percent of the CPUs by a
#    cgroup CPU quota (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us; root), RUNS
#    and RUNS_HI runs a side, TRIALS trials each: the share of comparisons
#    that call the CPU mix's peak worse, beside the change compare measured.
#
#   bench/aa.sh
# Environment: COMPARISONS (20), RUNS (3), RUNS_HI (5), TRIALS (10),
#   SIZES ("90 80 50"), MIXES ("cpu disk"), DIR (work directory,
#   /var/tmp/jobmix-aa), KEEP (set: keep the runs), POWER (0: skip part 3).
set -uo pipefail
cd "$(dirname "$0")/.."
COMPARISONS=${COMPARISONS:-20}
RUNS=${RUNS:-3}
RUNS_HI=${RUNS_HI:-5}
TRIALS=${TRIALS:-10}
SIZES=${SIZES:-90 80 50}
MIXES=${MIXES:-cpu disk}
DIR=${DIR:-/var/tmp/jobmix-aa}
POWER=${POWER:-1}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix
T=$(mktemp -d /var/tmp/jobmix-aa-runs.XXXXXX)
CG=
cleanup() {
	[ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	[ -n "${KEEP:-}" ] && echo "runs kept in $T" || rm -rf "$T"
}
trap cleanup EXIT

# The mixes: a short CPU mix (throughput scales with the CPUs) and a small disk mix.
declare -A CMD
CMD[cpu]="tests/data/e2e/cpu.yaml -u 2,4 -j 30 -m linear"
CMD[disk]="tests/data/good/e2e.yaml -u 1-3 -j 10 -m linear"

# run MIX OUT [prefix...]: one run into OUT
run() {
	local mix=$1 out=$2
	shift 2
	# shellcheck disable=SC2086
	"$@" ./jobmix run ${CMD[$mix]} -d "$DIR" -o "$out" -q >/dev/null 2>>"$T/err"
}

# 100 * a / b
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b ? 100 * a / b : 0 }'; }

# The relative sd of the peak over a folder's runs, in percent.
spread() {
	jq -s '[.[].summary.peak_jpm | select(. != null)] | (add / length) as $m |
	       ((map((. - $m) * (. - $m)) | add) / (length - 1) | sqrt) / $m * 100' "$1"/*/run.json
}

echo "bench/aa.sh: $(nproc) CPUs, $(uname -r), $(date -u +%FT%TZ)"
echo
echo "1. A/A: $COMPARISONS comparisons of $RUNS runs against $RUNS a side, alternating"
printf '%-6s %8s %8s %12s %12s %10s %10s\n' mix compared red any_verdict marked_arms "noise %" "noise max"
for mix in $MIXES; do
	red=0 any=0 marked=0 done=0 noise=() 
	for c in $(seq 1 "$COMPARISONS"); do
		a=$T/$mix.$c.a b=$T/$mix.$c.b
		for i in $(seq 1 "$RUNS"); do
			run "$mix" "$a" env
			run "$mix" "$b" env
		done
		./jobmix compare -f json "$a" -- "$b" >"$T/cmp.json" 2>>"$T/err"
		rc=$?
		[ $rc = 1 ] && red=$((red + 1))
		jq -e '.worse + .better > 0' "$T/cmp.json" >/dev/null 2>&1 && any=$((any + 1))
		# the same runs as two arms of an A/B table
		for f in "$a"/*/run.json; do jq '.labels.arm = "A"' "$f" >"$f.x" && mv "$f.x" "$f"; done
		for f in "$b"/*/run.json; do jq '.labels.arm = "B"' "$f" >"$f.x" && mv "$f.x" "$f"; done
		./jobmix report -f json --by arm "$a" "$b" 2>>"$T/err" |
			jq -e '[.tables[].rows[] | .mark] | any(. == "****" or . == "++++")' >/dev/null && marked=$((marked + 1))
		noise+=("$(spread "$a")" "$(spread "$b")")
		done=$((done + 1))
		[ -n "${KEEP:-}" ] || rm -rf "$a" "$b"
	done
	med=$(printf '%s\n' "${noise[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	max=$(printf '%s\n' "${noise[@]}" | sort -g | tail -1)
	printf '%-6s %8d %7.1f%% %11.1f%% %11.1f%% %9.1f%% %9.1f%%\n' "$mix" "$done" \
		"$(pct "$red" "$done")" "$(pct "$any" "$done")" "$(pct "$marked" "$done")" "$med" "$max"
done
echo "  red: compare exit 1 (a metric worse); any_verdict: a metric worse or better;"
echo "  marked_arms: the B row of 'report --by arm' marked **** or ++++;"
echo "  noise: the relative sd of the peak over one side's runs (median and largest)."

[ "$POWER" = 0 ] && exit 0
echo
if [ "$(id -u)" != 0 ]; then
	echo "2. power: SKIP (needs root for a cgroup CPU quota)"
	exit 0
fi
# A cgroup whose CPU quota is a share of every CPU: v2 cpu.max, else v1's cpu controller.
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
	CG=/sys/fs/cgroup/jobmix-aa.$$
	mkdir "$CG"
	quota() { echo "$(($1 * $(nproc) * 1000)) 100000" >"$CG/cpu.max"; }
elif [ -d /sys/fs/cgroup/cpu ]; then
	CG=/sys/fs/cgroup/cpu/jobmix-aa.$$
	mkdir "$CG"
	echo 100000 >"$CG/cpu.cfs_period_us"
	quota() { echo $(($1 * $(nproc) * 1000)) >"$CG/cpu.cfs_quota_us"; }
else
	echo "2. power: SKIP (no cgroup CPU controller)"
	exit 0
fi
# throttled CMD...: run it in the quota cgroup
throttled() { sh -c 'echo $$ >"$0/cgroup.procs" 2>/dev/null || echo $$ >"$0/tasks"; shift; exec "$@"' "$CG" _ "$@"; }

echo "2. power: the candidate's users throttled to a share of the $(nproc) CPUs (cgroup quota), cpu mix, $TRIALS trials"
printf '%-8s %6s %10s %16s %10s\n' quota runs detected "change (median)" "noise %"
for size in $SIZES; do
	quota "$size"
	for k in $RUNS $RUNS_HI; do
		det=0 ch=() noise=()
		for t in $(seq 1 "$TRIALS"); do
			a=$T/pw.$size.$k.$t.a b=$T/pw.$size.$k.$t.b
			for i in $(seq 1 "$k"); do
				run cpu "$a" env
				run cpu "$b" throttled
			done
			./jobmix compare -f json "$a" -- "$b" >"$T/cmp.json" 2>>"$T/err"
			jq -e '[.rows[] | select(.metric == "peak")][0].verdict == "worse"' "$T/cmp.json" >/dev/null && det=$((det + 1))
			ch+=("$(jq '[.rows[] | select(.metric == "peak")][0].change * 100' "$T/cmp.json")")
			noise+=("$(spread "$a")")
			[ -n "${KEEP:-}" ] || rm -rf "$a" "$b"
		done
		med=$(printf '%s\n' "${ch[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		nmed=$(printf '%s\n' "${noise[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
		printf '%-8s %6s %9.0f%% %15.1f%% %9.1f%%\n' "$size%" "$k/$k" \
			"$(pct "$det" "$TRIALS")" "$med" "$nmed"
	done
done
echo "  detected: compare called the peak worse (p < 0.05 after Holm, change >= 2%);"
echo "  change: the peak's change compare measured; noise: the baseline's spread of peak JPM."
