#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How often do jobmix's verdicts cry wolf, and how often do they catch a real
# regression?  Measured on this machine, not assumed, in two conditions:
#
#   quiet  nothing else running (as far as this script knows);
#   noisy  beside every run, NHOGS CPU hogs (sh -c 'while :; do :; done') and
#          a disk writer (dd of 64 MiB with fsync, over and over, to a file in
#          the work directory), started before the run and stopped after it,
#          so both sides of a comparison run beside the same noise in turn;
#          each bounded by `timeout` (NOISE_MAX seconds) and killed by its
#          process group's id when the run ends and in the EXIT trap.
#
# In each condition, for each injection (0: A/A; INJECT percent more work on
# the candidate, given with the mix entry's `scale`, e.g. -P ENTRY.scale=1.1:
# work the machine cannot absorb, unlike a CPU quota, which binds only when
# the users would get more CPU than the quota leaves them), trials of RUNS_HI
# runs a side, the sides alternating run by run; `jobmix compare` on the
# first RUNS and on all RUNS_HI runs a side.  Printed per row:
#   worse@N   the share of trials whose peak compare called worse;
#   alarm@N   the share with any metric worse or better (the A/A false alarm);
#   same@N    the share whose peak compare called same;
#   change    the median change of the peak compare measured at RUNS_HI a side:
#             the injection is real when this moves away from the A/A row's
#             by about the injected share (-4.8%, -9.1%, -16.7% for 5, 10, 20%
#             more work), so a missed regression is told from one never injected.
# With `jobmix run --until-decided` in this build (detected from run --help),
# UD_TRIALS more trials per row as one `run -X ENTRY.scale=1,S --until-decided
# --max-rounds MAX_ROUNDS`: the share called worse (same for A/A), and the
# median rounds and minutes it took; else it says it is not available.
#
#   bench/aa.sh
# Environment (defaults sized for a full run within about 60 minutes on a
# 2-CPU machine; TRIALS=3 AA_TRIALS=3 UD_TRIALS=1 is a smoke run of ~10):
#   TRIALS (6) trials per injection; AA_TRIALS (12) A/A trials;
#   UD_TRIALS (4) --until-decided trials per row; MAX_ROUNDS (20);
#   RUNS (3), RUNS_HI (5) runs a side; INJECT ("5 10 20") percent;
#   CONDITIONS ("quiet noisy"); MIX (cpu | disk); NHOGS (number of CPUs);
#   NOISE_MAX (600) seconds a noise process may live at most;
#   DIR (work directory, /var/tmp/jobmix-aa); KEEP (set: keep the runs).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
TRIALS=${TRIALS:-6}
AA_TRIALS=${AA_TRIALS:-12}
UD_TRIALS=${UD_TRIALS:-4}
MAX_ROUNDS=${MAX_ROUNDS:-20}
RUNS=${RUNS:-3}
RUNS_HI=${RUNS_HI:-5}
INJECT=${INJECT:-5 10 20}
CONDITIONS=${CONDITIONS:-quiet noisy}
MIX=${MIX:-cpu}
NHOGS=${NHOGS:-$(nproc)}
NOISE_MAX=${NOISE_MAX:-600}
DIR=${DIR:-/var/tmp/jobmix-aa}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
command -v timeout >/dev/null && command -v setsid >/dev/null ||
	{ echo "timeout and setsid needed (coreutils, util-linux)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix
mkdir -p "$DIR"
T=$(mktemp -d /var/tmp/jobmix-aa-runs.XXXXXX)
NOISE=()   # process group ids of the running noise
noise_stop() {
	local g
	for g in "${NOISE[@]}"; do
		kill -TERM -- "-$g" 2>/dev/null
	done
	for g in "${NOISE[@]}"; do
		wait "$g" 2>/dev/null
	done
	NOISE=()
	rm -f "$DIR/aa-noise.$$"
}
cleanup() {
	noise_stop
	[ -n "${KEEP:-}" ] && echo "runs kept in $T" || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# noise_start: the hogs and the writer, each in its own process group, bounded
noise_start() {
	local _
	for _ in $(seq 1 "$NHOGS"); do
		setsid timeout "$NOISE_MAX" sh -c 'while :; do :; done' &
		NOISE+=($!)
	done
	setsid timeout "$NOISE_MAX" sh -c 'while :; do dd if=/dev/zero of="$0" bs=1M count=64 \
		conv=fsync 2>/dev/null; done' "$DIR/aa-noise.$$" &
	NOISE+=($!)
}

# The mixes: one entry each, so that scaling it scales the whole candidate's work.
case $MIX in
cpu)	ENTRY=add_long
	printf 'name: aa-cpu\nfiles: {dirs: [%s]}\nusers: {start: 2, end: 2, jobs_per_user: 30, mode: linear}\nsync: none\nseed: 7\nmix:\n  - {job: add_long, weight: 1}\n' "$DIR" >"$T/mix.yaml" ;;
disk)	ENTRY=disk_rr
	printf 'name: aa-disk\nfiles: {filesize: 64k, poolsize: 1m, dirs: [%s]}\nusers: {start: 2, end: 2, jobs_per_user: 20, mode: linear}\nsync: file\nseed: 7\nmix:\n  - {job: disk_rr, weight: 1}\n' "$DIR" >"$T/mix.yaml" ;;
*)	echo "MIX: cpu or disk, not '$MIX'"; exit 2 ;;
esac

# run COND OUT [jobmix run options...]: one run into OUT, beside the noise when noisy
run() {
	local cond=$1 out=$2
	shift 2
	[ "$cond" = noisy ] && noise_start
	./jobmix run "$T/mix.yaml" -o "$out" -q "$@" >/dev/null 2>>"$T/err"
	local rc=$?
	[ "$cond" = noisy ] && noise_stop
	return $rc
}

# share A B: 100 * A / B
share() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", b ? 100 * a / b : 0 }'; }
# median of the arguments (numbers), "-" for none
median() {
	[ $# = 0 ] && { echo -; return; }
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m }'
}
# the first N run folders of a side, by name (their start time)
first() { ls -d "$1"/*/ 2>/dev/null | head -"$2"; }

# compare_json A-FOLDERS... -- B-FOLDERS...: compare's JSON (scale may differ on purpose)
compare_json() { ./jobmix compare -f json --allow-diff "$ENTRY.scale" "$@" 2>>"$T/err"; }
peak() { jq -r "[.rows[] | select(.metric == \"peak\")][0].$1 // empty" "$T/cmp.json" 2>/dev/null; }

HAVE_UD=0
./jobmix run --help 2>&1 | grep -q until-decided && HAVE_UD=1

echo "bench/aa.sh: $(nproc) CPUs, $(uname -r), $(date -u +%FT%TZ)"
echo "mix $MIX (one $ENTRY entry, 2 users, linear); $RUNS and $RUNS_HI runs a side, alternating;"
echo "trials: $AA_TRIALS A/A, $TRIALS per injection; noisy: $NHOGS CPU hogs and a dd writer beside each run"
echo
printf '%-9s %-8s %6s %8s %8s %7s %8s %8s %7s %9s\n' condition injected trials \
	"worse@$RUNS" "alarm@$RUNS" "same@$RUNS" "worse@$RUNS_HI" "alarm@$RUNS_HI" "same@$RUNS_HI" change
UD_LINES=()
for cond in $CONDITIONS; do
	for inj in 0 $INJECT; do
		scale=$(awk -v p="$inj" 'BEGIN { printf "%g", 1 + p / 100 }')
		n=$TRIALS
		[ "$inj" = 0 ] && n=$AA_TRIALS
		declare -A cnt=()
		changes=() ntr=0
		for t in $(seq 1 "$n"); do
			a=$T/$cond.$inj.$t.a b=$T/$cond.$inj.$t.b
			for _ in $(seq 1 "$RUNS_HI"); do
				run "$cond" "$a"
				run "$cond" "$b" -P "$ENTRY.scale=$scale"
			done
			for k in $RUNS $RUNS_HI; do
				# shellcheck disable=SC2046
				compare_json $(first "$a" "$k") -- $(first "$b" "$k") >"$T/cmp.json"
				v=$(peak verdict)
				[ "$v" = worse ] && cnt[worse$k]=$((${cnt[worse$k]:-0} + 1))
				[ "$v" = same ] && cnt[same$k]=$((${cnt[same$k]:-0} + 1))
				jq -e '.worse + .better > 0' "$T/cmp.json" >/dev/null 2>&1 &&
					cnt[alarm$k]=$((${cnt[alarm$k]:-0} + 1))
				if [ "$k" = "$RUNS_HI" ]; then
					c=$(peak change)
					[ -n "$c" ] && changes+=("$(awk -v c="$c" 'BEGIN { printf "%.2f", 100 * c }')")
				fi
			done
			ntr=$((ntr + 1))
			[ -n "${KEEP:-}" ] || rm -rf "$a" "$b"
		done
		label=A/A
		[ "$inj" = 0 ] || label="+$inj%"
		printf '%-9s %-8s %6d %8s %8s %7s %8s %8s %7s %8s%%\n' "$cond" "$label" "$ntr" \
			"$(share "${cnt[worse$RUNS]:-0}" "$ntr")" "$(share "${cnt[alarm$RUNS]:-0}" "$ntr")" \
			"$(share "${cnt[same$RUNS]:-0}" "$ntr")" "$(share "${cnt[worse$RUNS_HI]:-0}" "$ntr")" \
			"$(share "${cnt[alarm$RUNS_HI]:-0}" "$ntr")" "$(share "${cnt[same$RUNS_HI]:-0}" "$ntr")" \
			"$(median "${changes[@]}")"
		unset cnt

		# the same row run until decided
		[ "$HAVE_UD" = 1 ] || continue
		hit=0 same=0 alarm=0 rounds=() mins=() ntr=0
		for t in $(seq 1 "$UD_TRIALS"); do
			o=$T/$cond.$inj.$t.ud
			t0=$(date +%s.%N)
			run "$cond" "$o" -X "$ENTRY.scale=1,$scale" --until-decided --max-rounds "$MAX_ROUNDS"
			t1=$(date +%s.%N)
			# the arms' runs (their axes say which), then compare over them
			A=() B=()
			for f in "$o"/*/run.json; do
				case $(jq -r --arg k "$ENTRY.scale" '.axes[$k] // empty' "$f") in
				1) A+=("$(dirname "$f")") ;;
				"$scale") B+=("$(dirname "$f")") ;;
				esac
			done
			[ ${#A[@]} -gt 0 ] && [ ${#B[@]} -gt 0 ] || continue
			compare_json "${A[@]}" -- "${B[@]}" >"$T/cmp.json"
			v=$(peak verdict)
			[ "$v" = worse ] && hit=$((hit + 1))
			[ "$v" = same ] && same=$((same + 1))
			jq -e '.worse + .better > 0' "$T/cmp.json" >/dev/null 2>&1 && alarm=$((alarm + 1))
			rounds+=("${#A[@]}")
			mins+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 60 }')")
			ntr=$((ntr + 1))
			[ -n "${KEEP:-}" ] || rm -rf "$o"
		done
		UD_LINES+=("$(printf '%-9s %-8s %6d %7s %7s %7s %7s %8s' "$cond" "$label" "$ntr" \
			"$(share "$hit" "$ntr")" "$(share "$alarm" "$ntr")" "$(share "$same" "$ntr")" \
			"$(median "${rounds[@]}")" "$(median "${mins[@]}")")")
	done
done
echo "  worse@N: compare called the peak worse with N runs a side (p < 0.05 after Holm, a"
echo "  change of at least 2%); alarm@N: any metric worse or better; same@N: the peak same;"
echo "  change: the median change of the peak at $RUNS_HI a side (the A/A row: the noise's)."
echo
if [ "$HAVE_UD" = 1 ]; then
	echo "until-decided: $UD_TRIALS trials a row, run -X $ENTRY.scale=1,S --until-decided --max-rounds $MAX_ROUNDS"
	printf '%-9s %-8s %6s %7s %7s %7s %7s %8s\n' condition injected trials worse alarm same rounds minutes
	printf '%s\n' "${UD_LINES[@]}"
	echo "  rounds and minutes: medians; the verdict: compare over the arms' runs once the run stopped."
else
	echo "until-decided: not available in this build"
fi
