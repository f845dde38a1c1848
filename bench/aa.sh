#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How often do jobmix's verdicts cry wolf, and how often do they catch a real
# regression?  Measured on this machine, not assumed, in two conditions:
#
#   quiet  nothing else started by this script (the machine may be shared:
#          the load average is sampled at every trial and printed);
#   noisy  beside every run, NHOGS CPU hogs (sh -c 'while :; do :; done') and
#          a disk writer (dd of 64 MiB with fsync, over and over, to a file in
#          the work directory), started before the run and stopped after it,
#          so both sides of a comparison run beside the same noise in turn;
#          each bounded by `timeout` (NOISE_MAX seconds) and killed by its
#          process group's id when the run ends and in the EXIT trap.
#
# Two modes, each a row per condition and injection (0: A/A; INJECT percent
# more work on the candidate, given with the mix entry's `scale`: work the
# machine cannot absorb, unlike a CPU quota, which binds only when the users
# would get more CPU than the quota leaves them):
#
#   fixed  RUNS_HI runs a side, the sides alternating run by run, the
#          candidate with -P ENTRY.scale=S; `jobmix compare` (its default
#          threshold, 2%) on the first RUNS and on all RUNS_HI runs a side.
#          The two verdicts of a trial share runs: they are not independent.
#   ud     one `jobmix run -X ENTRY.scale=1,S --until-decided --max-rounds
#          MAX_ROUNDS --threshold THRESHOLD`; the verdict is the run's own
#          closing verdict (the lines it prints when it stops: the test it
#          stopped on), the rounds its index.json's rounds_run.  An A/A is
#          -X description=A,A2: two arms of identical work (a free-text key;
#          `-X ENTRY.scale=1,1` is refused as a value given twice, `1,1.0`
#          folds into one row, `1,1.000001` is 1 ppm more work).
#
# Trials are interleaved (round robin over every row, quiet and noisy in
# turn), so a machine that gets busier later weighs on every row alike, and
# when BUDGET_MIN minutes are spent no new trial begins: every row then has
# about its share of the trials, and the trials not run are counted and
# printed.  A trial whose run or compare fails is counted as failed and
# printed; it is never read as a verdict (and the script exits 1).
#
#   bench/aa.sh                 run, then print the table
#   bench/aa.sh --table FILE    print the table of a trials file again
#
# Every trial is one line of $DIR/aa-trials.tsv (TRIALS_OUT).  Environment:
#   AA_TRIALS (16) fixed A/A trials; TRIALS (0) fixed trials per injection;
#   UD_AA_TRIALS (10) until-decided A/A trials; UD_TRIALS (8) until-decided
#   trials per injection; INJECT ("10 20") percent; MAX_ROUNDS (20);
#   THRESHOLD (5%) for --until-decided; RUNS (3), RUNS_HI (5) runs a side;
#   JOBS (40) jobs per user (2 users); BUDGET_MIN (50); CONDITIONS
#   ("quiet noisy"); MIX (cpu | disk); NHOGS (number of CPUs); NOISE_MAX
#   (600) seconds a noise process may live at most; DIR (work directory,
#   /var/tmp/jobmix-aa); KEEP (set: keep the runs); METRIC (unset: the
#   peak's JPM; a metric name, e.g. jpcs, the jobs per CPU second: what
#   compare and --until-decided judge, `--metric METRIC`); POINT_NOISE
#   (e.g. 3%: every run gets --point-noise POINT_NOISE, its points sized
#   from its pilots' noise; fixed mode's runs are sized each on its own, so
#   compare is then told to allow their sizes to differ: JPM is a rate);
#   RUN_OPTS (more `jobmix run` options for every run).
#   A smoke run: AA_TRIALS=1 UD_AA_TRIALS=1 UD_TRIALS=1 MAX_ROUNDS=5 bench/aa.sh
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# --- the table: per row, shares with Clopper-Pearson 95% intervals ----------
aa_table() {
	awk -F'\t' -v runs="${RUNS:-3}" -v runs_hi="${RUNS_HI:-5}" '
	function lc(n, k,   s, i) { s = 0; for (i = 1; i <= k; i++) s += log(n - k + i) - log(i); return s }
	function cdf(k, n, p,   s, i) {   # P(X <= k), X ~ Bin(n, p), 0 < p < 1
		s = 0
		for (i = 0; i <= k; i++) s += exp(lc(n, i) + i * log(p) + (n - i) * log(1 - p))
		return s
	}
	function cp_lo(k, n,   a, b, m, i) {
		if (k == 0) return 0
		a = 0; b = 1
		for (i = 0; i < 60; i++) { m = (a + b) / 2; if (1 - cdf(k - 1, n, m) < 0.025) a = m; else b = m }
		return a
	}
	function cp_hi(k, n,   a, b, m, i) {
		if (k == n) return 1
		a = 0; b = 1
		for (i = 0; i < 60; i++) { m = (a + b) / 2; if (cdf(k, n, m) > 0.025) a = m; else b = m }
		return b
	}
	function sh(k, n) {
		if (!n) return "-"
		return sprintf("%d/%d %.0f%% [%.0f-%.0f]", k, n, 100 * k / n, 100 * cp_lo(k, n), 100 * cp_hi(k, n))
	}
	function median(s,   v, n, i, j, t) {
		n = split(s, v, " ")
		if (!n) return "-"
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	# cond mode inj v_lo v_hi alarm_lo alarm_hi change rounds minutes status load1
	$1 == "cond" { next }
	{
		key = $1 SUBSEP $2 SUBSEP $3
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
		load[$1] = load[$1] " " $12
		if ($11 != "ok") { failed[key]++; why[key] = why[key] " " $11; next }
		ok[key]++
		if ($4 == "worse") wl[key]++;  if ($4 == "same") sl[key]++;  if ($6 == 1) al[key]++
		if ($5 == "worse") wh[key]++;  if ($5 == "better") bh[key]++
		if ($5 == "same") shh[key]++;  if ($7 == 1) ah[key]++
		if ($8 != "-") ch[key] = ch[key] " " $8
		if ($9 != "-") { ro[key] = ro[key] " " $9; mi[key] = mi[key] " " $10 }
		if ($9 != "-" && $5 != "inconclusive") { rd[key] = rd[key] " " $9; md[key] = md[key] " " $10 }
	}
	END {
		printf "fixed: RUNS_HI runs a side alternating, compare (threshold 2%%) on the first %d and on all %d\n", runs, runs_hi
		printf "%-6s %-5s %4s %-18s %-18s %-18s %-18s %-18s %7s\n", "cond", "inj", "fail", \
			"worse@" runs, "alarm@" runs, "worse@" runs_hi, "alarm@" runs_hi, "same@" runs_hi, "change"
		for (i = 1; i <= nk; i++) {
			split(order[i], f, SUBSEP); k = order[i]
			if (f[2] != "fixed") continue
			n = ok[k] + 0; nf = (k in failed) ? failed[k] : 0
			printf "%-6s %-5s %4d %-18s %-18s %-18s %-18s %-18s %6s%%\n", f[1], f[3] ? "+" f[3] "%" : "A/A", \
				nf, sh(wl[k], n), sh(al[k], n), sh(wh[k], n), sh(ah[k], n), sh(shh[k], n), median(ch[k])
		}
		printf "\nud: run --until-decided, its own closing verdict of the judged figure\n"
		printf "%-6s %-5s %4s %-18s %-18s %-18s %7s %6s %6s %7s %7s\n", "cond", "inj", "fail", \
			"worse", "alarm", "same", "change", "rounds", "min", "r@dec", "min@dec"
		for (i = 1; i <= nk; i++) {
			split(order[i], f, SUBSEP); k = order[i]
			if (f[2] != "ud") continue
			n = ok[k] + 0; nf = (k in failed) ? failed[k] : 0
			printf "%-6s %-5s %4d %-18s %-18s %-18s %6s%% %6s %6s %7s %7s\n", f[1], f[3] ? "+" f[3] "%" : "A/A", \
				nf, sh(wh[k], n), sh(wh[k] + bh[k], n), sh(shh[k], n), median(ch[k]), \
				median(ro[k]), median(mi[k]), median(rd[k]), median(md[k])
		}
		for (c in load) printf "load average (1 min) at the trials'"'"' start, %s: median %s, max %s\n", c, median(load[c]), max1(load[c])
		for (k in failed) { split(k, f, SUBSEP); printf "FAILED: %s %s %s: %d trial(s):%s\n", f[1], f[2], f[3], failed[k], why[k] }
	}
	function max1(s,   v, n, i, m) { n = split(s, v, " "); m = v[1]; for (i = 2; i <= n; i++) if (v[i] + 0 > m + 0) m = v[i]; return m }
	' "$1"
	cat <<-EOF
	  n/N share [95% Clopper-Pearson interval, %] of the trials that completed; fail: trials whose
	  run or compare failed (not counted in N).  worse@N, alarm@N (any metric worse or better),
	  same@N: compare's verdicts at N runs a side; ud: the run's closing verdict at its
	  --threshold; change: median of the peak's change (fixed: at all runs a side);
	  rounds, min: medians over all trials; r@dec, min@dec: over the trials that decided.
	EOF
}
if [ "${1:-}" = --table ]; then
	[ -r "${2:-}" ] || { echo "bench/aa.sh --table FILE: no file '${2:-}'" >&2; exit 2; }
	aa_table "$2"
	exit
fi

AA_TRIALS=${AA_TRIALS:-16}
TRIALS=${TRIALS:-0}
UD_AA_TRIALS=${UD_AA_TRIALS:-10}
UD_TRIALS=${UD_TRIALS:-8}
MAX_ROUNDS=${MAX_ROUNDS:-20}
THRESHOLD=${THRESHOLD:-5%}
RUNS=${RUNS:-3}
RUNS_HI=${RUNS_HI:-5}
JOBS=${JOBS:-40}
BUDGET_MIN=${BUDGET_MIN:-50}
INJECT=${INJECT:-10 20}
CONDITIONS=${CONDITIONS:-quiet noisy}
MIX=${MIX:-cpu}
METRIC=${METRIC:-}
RUN_OPTS=${RUN_OPTS:-}
# what is judged: the peak's JPM (compare's row "peak", the closing line's
# "Peak Load"), or --metric METRIC (row and line named by it)
MARGS=() MROW=peak MLINE="Peak Load"
[ -n "$METRIC" ] && MARGS=(--metric "$METRIC") MROW=$METRIC MLINE=$METRIC
NHOGS=${NHOGS:-$(nproc)}
NOISE_MAX=${NOISE_MAX:-600}
DIR=${DIR:-/var/tmp/jobmix-aa}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
command -v timeout >/dev/null && command -v setsid >/dev/null ||
	{ echo "timeout and setsid needed (coreutils, util-linux)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix || exit 2
help=$(./jobmix run --help 2>&1)   # not piped to grep -q: its early exit would be a SIGPIPE
grep -q -- --until-decided <<<"$help" ||
	{ echo "this jobmix has no run --until-decided: build a newer one"; exit 2; }
mkdir -p "$DIR" || exit 2
OUT=${TRIALS_OUT:-$DIR/aa-trials.tsv}
T=$(mktemp -d /var/tmp/jobmix-aa-runs.XXXXXX) || exit 2
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
	printf 'name: aa-cpu\nfiles: {dirs: [%s]}\nusers: {start: 2, end: 2, jobs_per_user: %d, mode: linear}\nsync: none\nseed: 7\nmix:\n  - {job: add_long, weight: 1}\n' "$DIR" "$JOBS" >"$T/mix.yaml" ;;
disk)	ENTRY=disk_rr
	printf 'name: aa-disk\nfiles: {filesize: 64k, poolsize: 1m, dirs: [%s]}\nusers: {start: 2, end: 2, jobs_per_user: %d, mode: linear}\nsync: file\nseed: 7\nmix:\n  - {job: disk_rr, weight: 1}\n' "$DIR" "$JOBS" >"$T/mix.yaml" ;;
*)	echo "MIX: cpu or disk, not '$MIX'"; exit 2 ;;
esac

# run COND LOG [jobmix run options...]: one jobmix run into $T/runs, beside the
# noise when noisy; its output in LOG; its exit status
run() {
	local cond=$1 log=$2
	shift 2
	[ "$cond" = noisy ] && noise_start
	# shellcheck disable=SC2086 # RUN_OPTS: options, split on blanks
	./jobmix run "$T/mix.yaml" -o "$T/runs" ${POINT_NOISE:+--point-noise "$POINT_NOISE"} \
		$RUN_OPTS "$@" >"$log" 2>&1
	local rc=$?
	[ "$cond" = noisy ] && noise_stop
	return $rc
}
# the results folder a run printed
folder() { sed -n 's/^results: //p' "$1" | tail -1; }
# the index.json of an -X run
abindex() { sed -n 's/^index: //p' "$1" | tail -1; }

# compare_json OUT A-FOLDERS... -- B-FOLDERS...: compare's JSON into OUT; exit
# 0 or 1 (a regression) is a comparison, anything else a failure
compare_json() {
	local out=$1
	shift
	local allow=$ENTRY.scale
	[ -n "${POINT_NOISE:-}" ] && allow=$allow,users.jobs_per_user,mix.$ENTRY.runs
	./jobmix compare -f json --allow-diff "$allow" "${MARGS[@]}" "$@" >"$out" 2>>"$DIR/aa-compare.err"
	local rc=$?
	[ $rc -le 1 ] && jq -e '.rows' "$out" >/dev/null 2>&1
}
peak() { jq -r --arg m "$MROW" "[.rows[] | select(.metric == \$m)][0].$2 // empty" "$1" 2>/dev/null; }
load1() { cut -d' ' -f1 /proc/loadavg; }
now() { date +%s.%N; }
mins() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 60 }'; }
record() { printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT"; }

# trial_fixed COND INJ SCALE T: RUNS_HI runs a side, compare at RUNS and RUNS_HI
trial_fixed() {
	local cond=$1 inj=$2 scale=$3 t=$4 l0 t0 i k f v vlo=- vhi=- alo=0 ahi=0 c=- why=ok
	local -a A=() B=()
	l0=$(load1) t0=$(now)
	for i in $(seq 1 "$RUNS_HI"); do
		if run "$cond" "$T/log" && f=$(folder "$T/log") && [ -d "$f" ]; then
			A+=("$f")
		else
			why=failed:run-a$i; break
		fi
		if run "$cond" "$T/log" -P "$ENTRY.scale=$scale" && f=$(folder "$T/log") && [ -d "$f" ]; then
			B+=("$f")
		else
			why=failed:run-b$i; break
		fi
	done
	if [ "$why" = ok ]; then
		for k in "$RUNS" "$RUNS_HI"; do
			if ! compare_json "$T/cmp.json" "${A[@]:0:k}" -- "${B[@]:0:k}"; then
				why=failed:compare@$k; break
			fi
			v=$(peak "$T/cmp.json" verdict)
			[ -n "$v" ] || { why=failed:no-peak@$k; break; }
			a=$(jq -r 'if .worse + .better > 0 then 1 else 0 end' "$T/cmp.json")
			if [ "$k" = "$RUNS" ]; then vlo=$v alo=$a; else
				vhi=$v ahi=$a
				c=$(peak "$T/cmp.json" change)
				[ -n "$c" ] && c=$(awk -v c="$c" 'BEGIN { printf "%.2f", 100 * c }') || c=-
			fi
		done
	fi
	[ "$why" = ok ] || cp "$T/log" "$DIR/aa-failed.$cond.fixed.$inj.$t.log" 2>/dev/null
	record "$cond" fixed "$inj" "$vlo" "$vhi" "$alo" "$ahi" "$c" - "$(mins "$t0" "$(now)")" "$why" "$l0"
	[ -n "${KEEP:-}" ] || rm -rf "$T/runs"
}

# trial_ud COND INJ SCALE T: one run until decided; its own closing verdict
trial_ud() {
	local cond=$1 inj=$2 scale=$3 t=$4 l0 t0 t1 ax line v=- c=- r=- al=0 why=ok ab
	if [ "$inj" = 0 ]; then ax="description=A,A2"; else ax="$ENTRY.scale=1,$scale"; fi
	l0=$(load1) t0=$(now)
	run "$cond" "$T/log" -X "$ax" --until-decided --max-rounds "$MAX_ROUNDS" \
		--threshold "$THRESHOLD" "${MARGS[@]}" || why=failed:run-rc$?
	t1=$(now)
	ab=$(abindex "$T/log")
	if [ "$why" = ok ]; then
		# the closing lines follow the last "until decided: round N ... ; WHY" line
		line=$(awk '/^until decided: round / { blk = ""; on = 1; next }
			on && !/^  / { on = 0 }
			on && index($0, " " m ": ") { blk = $0 } END { print blk }' m="$MLINE" "$T/log")
		v=$(sed -n "s/.* $MLINE: \([a-z]*\) .*/\1/p" <<<"$line")
		c=$(sed -n "s/.* $MLINE: [a-z]* (\([-+0-9.]*\)%).*/\1/p" <<<"$line")
		if [ -z "$ab" ] || ! [ -r "$ab" ]; then
			why=failed:no-index
		elif [ "$(jq -r '.status' "$ab")" != complete ]; then
			why=failed:status-$(jq -r '.status' "$ab")
		elif [ -z "$v" ]; then
			why=failed:no-verdict
		else
			r=$(jq -r '.rounds_run // empty' "$ab")
			# the index's reason to stop must agree with the verdict read
			case $(jq -r '.until_decided // ""' "$ab") in
			decided*) [ "$v" != inconclusive ] || why=failed:index-says-decided ;;
			*) [ "$v" = inconclusive ] || why=failed:index-says-undecided ;;
			esac
			[ -n "$r" ] || why=failed:no-rounds_run
		fi
	fi
	[ "$v" = worse ] || [ "$v" = better ] && al=1
	[ "$why" = ok ] || cp "$T/log" "$DIR/aa-failed.$cond.ud.$inj.$t.log" 2>/dev/null
	record "$cond" ud "$inj" - "$v" - "$al" "${c:--}" "$r" "$(mins "$t0" "$t1")" "$why" "$l0"
	[ -n "${KEEP:-}" ] || rm -rf "$T/runs"
}

# The rows, and the trials each wants
ROWS=()
for cond in $CONDITIONS; do
	ROWS+=("$cond fixed 0 $AA_TRIALS" "$cond ud 0 $UD_AA_TRIALS")
	for inj in $INJECT; do
		ROWS+=("$cond fixed $inj $TRIALS" "$cond ud $inj $UD_TRIALS")
	done
done
most=0 planned=0
for row in "${ROWS[@]}"; do
	set -- $row
	[ "$4" -gt "$most" ] && most=$4
	planned=$((planned + $4))
done

start=$(now)
: >"$DIR/aa-compare.err"
printf 'cond\tmode\tinj\tv_lo\tv_hi\talarm_lo\talarm_hi\tchange\trounds\tminutes\tstatus\tload1\n' >"$OUT"
echo "bench/aa.sh: $(nproc) CPUs, $(uname -r), $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "mix $MIX (one $ENTRY entry, 2 users, $JOBS jobs a user, linear)${POINT_NOISE:+, points sized to $POINT_NOISE}; judged: $MLINE${RUN_OPTS:+; run options: $RUN_OPTS}; budget $BUDGET_MIN min"
echo "fixed: $AA_TRIALS A/A trials and $TRIALS per injection of $RUNS_HI runs a side"
echo "ud: $UD_AA_TRIALS A/A trials (-X description=A,A2) and $UD_TRIALS per injection (-X $ENTRY.scale=1,S),"
echo "    --until-decided --max-rounds $MAX_ROUNDS --threshold $THRESHOLD"
echo "noisy: $NHOGS CPU hogs and a dd writer beside every run; injections: $INJECT percent more work"
echo "trials: $OUT"
# cycle c of `most` owes a row of n trials floor(c * n / most) of them: every
# row's trials spread evenly over the run, so a budget cut leaves each its share
declare -A done_=()
ran=0 over=0
for c in $(seq 1 "$most"); do
	for row in "${ROWS[@]}"; do
		set -- $row
		while [ "${done_[$row]:-0}" -lt $((c * $4 / most)) ]; do
			done_[$row]=$((${done_[$row]:-0} + 1))
			if awk -v a="$start" -v b="$(now)" -v m="$BUDGET_MIN" 'BEGIN { exit !((b - a) / 60 >= m) }'; then
				over=$((over + 1)); continue
			fi
			scale=$(awk -v p="$3" 'BEGIN { printf "%g", 1 + p / 100 }')
			"trial_$2" "$1" "$3" "$scale" "${done_[$row]}"
			ran=$((ran + 1))
			tail -1 "$OUT" | tr '\t' ' ' | sed 's/^/  /'
		done
	done
done
echo
echo "$ran of $planned trials run in $(mins "$start" "$(now)") min; $over not begun (the budget of $BUDGET_MIN min)"
echo
aa_table "$OUT"
nfail=$(awk -F'\t' 'NR > 1 && $11 != "ok"' "$OUT" | wc -l)
[ "$nfail" = 0 ] || { echo "$nfail trial(s) FAILED: see $DIR/aa-failed.*.log and $DIR/aa-compare.err"; exit 1; }
