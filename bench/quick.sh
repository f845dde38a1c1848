#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Quick convergence side by side: re-aim-7's `-q` against `jobmix reaim -q`,
# the same workfile, reaim.config (FILESIZE, POOLSIZE, DISKDIR), jobs per
# user and sync flag, ROUNDS rounds alternated (re-aim first in odd rounds).
# For each run: its wall time, the points it measured, the user count where
# it converged (the first with JPM per user <= 60: re-aim's last point,
# jobmix's summary.converge_users) and the maximum JPM it printed ("Max Jobs
# per Minute"); crossing_interp is re-aim's crossing interpolated between its
# last count above 60 and its first at or below (its counts there lie 10-30%
# apart, so its last point reads the crossing up to a step high; jobmix's
# count lies within summary.converge_tol of it, and stands as it is); then
# per side the mean and its run-to-run sd, and per quantity jobmix/re-aim:
# the mean of the per-round ratios and their sd (the noise).  A ratio within
# 2 sd of 1 is no difference; the time target is met when the mean time
# ratio is at most 1/3 (and said again with its noise: the mean plus 2 sd of
# the mean).
#
#   REAIM=/path/to/reaim bench/quick.sh [DIR]
#
# REAIM: a re-aim-7 binary you built, as for bench/vs-reaim.sh (its header
# says how; no re-aim code ships with jobmix).  re-aim reads its data
# (fakeh.tgz, workfile.<mix>) from REAIM_DATA, by default the data/ folder
# beside the binary.
# DIR: the work directory of both (default /var/tmp/jobmix-bench-quick).
# Environment: ROUNDS (3), MIX (fserver: re-aim's workfile.MIX), JOBS (10),
#   FILESIZE (10k), POOLSIZE (1m), SYNC (none: re-aim -y and jobmix reaim
#   -y; exec: both without -y), RA_TIMEOUT (900 s per run), KEEP (set: keep
#   the runs' output in the printed folder), SIDES (both; jobmix or reaim:
#   that side's runs alone, each run's line and the side's means, no ratios
#   and no target; REAIM still names re-aim's data: checking jobmix's points
#   at the crossing costs 1-4 min a run instead of ~8 min a round).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REAIM:-}" ]; then
	echo "bench/quick.sh: set REAIM=/path/to/reaim (a re-aim-7 binary you built;" \
	     "bench/vs-reaim.sh's header says how)" >&2
	exit 2
fi
if [ ! -x "$REAIM" ]; then
	echo "bench/quick.sh: REAIM=$REAIM is not an executable file" >&2
	exit 2
fi
REAIM=$(realpath "$REAIM")
REAIM_DATA=$(realpath "${REAIM_DATA:-$(dirname "$REAIM")/data}" 2>/dev/null || true)
MIX=${MIX:-fserver}
if [ ! -f "$REAIM_DATA/fakeh.tgz" ] || [ ! -f "$REAIM_DATA/workfile.$MIX" ]; then
	echo "bench/quick.sh: no fakeh.tgz or workfile.$MIX in REAIM_DATA=${REAIM_DATA:-?} (re-aim's data/ folder)" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)" >&2; exit 2; }
DIR=${1:-/var/tmp/jobmix-bench-quick}
ROUNDS=${ROUNDS:-3}
SIDES=${SIDES:-both}
case $SIDES in
both | jobmix | reaim) ;;
*) echo "bench/quick.sh: SIDES must be both, jobmix or reaim" >&2; exit 2 ;;
esac
JOBS=${JOBS:-10}
case ${SYNC:-none} in
none) YFLAG=(-y) ;;
exec) YFLAG=() ;;
*) echo "bench/quick.sh: SYNC must be none or exec" >&2; exit 2 ;;
esac
[ -x ./jobmix ] || make -s jobmix
JM=$(realpath ./jobmix)
mkdir -p "$DIR/disk"
T=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then
	echo "keeping the runs in $T"
	trap 'rm -rf "$DIR/disk"; rmdir "$DIR" 2>/dev/null || true' EXIT
else
	trap 'rm -rf "$T" "$DIR/disk"; rmdir "$DIR" 2>/dev/null || true' EXIT
fi
ln -s "$REAIM_DATA" "$T/data"
# the sizes come from the config for both (jobmix's import reads FILESIZE: lines only)
grep -v '^FILESIZE\|^POOLSIZE' "$REAIM_DATA/workfile.$MIX" >"$T/workfile"
printf 'FILESIZE %s\nPOOLSIZE %s\nDISKDIR %s\n' "${FILESIZE:-10k}" "${POOLSIZE:-1m}" "$DIR/disk" >"$T/reaim.config"

now() { date +%s.%N; }

# console SIDE ROUND: the numeric lines of re-aim's table -> "points crossing max interp":
# interp is the crossing interpolated linearly in JPM/user between the last count
# above 60 and the first at or below it (re-aim's counts there lie 10-30% apart and
# it reports the first that meets 60, so its crossing reads up to a step high)
console() {
	awk '/^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ / { n++
		if ($6 + 0 <= 60 && cross == "") { cross = $1; cu = $6 + 0 } else if (cross == "") { pu = $1; pj = $6 + 0 } }
	     /^Max Jobs per Minute/ { max = $5 }
	     END { if (!n || max == "") exit 1
		   interp = cross == "" ? "-" : pu == "" ? cross : sprintf("%.0f", pu + (pj - 60) / (pj - cu) * (cross - pu))
		   print n, (cross == "" ? "-" : cross), max, interp }' "$T/$1.$2.out"
}

# run SIDE ROUND: one -q ramp; appends "round side wall points crossing max" to $T/rows
run() {
	local side=$1 r=$2 t0 t1 rc res c l0 l1
	rm -rf "${DIR:?}/disk"/*
	l0=$(cut -d' ' -f1 /proc/loadavg)
	[ "$side" = reaim ] || rm -rf "$T/res.$r"   # (not jobmix's run of this round, kept with KEEP)
	t0=$(now)
	if [ "$side" = reaim ]; then
		(cd "$T" && timeout "${RA_TIMEOUT:-900}" "$REAIM" -q "${YFLAG[@]}" -j "$JOBS" -f workfile \
			-c reaim.config </dev/null >"$T/$side.$r.out" 2>"$T/$side.$r.err")
	else
		(cd "$T" && timeout "${RA_TIMEOUT:-900}" "$JM" reaim -q "${YFLAG[@]}" -j "$JOBS" -f workfile \
			-c reaim.config --results "$T/res.$r" </dev/null >"$T/$side.$r.out" 2>"$T/$side.$r.err")
	fi
	rc=$?
	t1=$(now)
	l1=$(cut -d' ' -f1 /proc/loadavg)
	if [ $rc != 0 ] || ! res=$(console "$side" "$r"); then
		printf '  %-7s failed (exit %s): %s\n' "$side" "$rc" "$(tail -1 "$T/$side.$r.err")"
		return 1
	fi
	read -r pts cross max interp <<<"$res"
	if [ "$side" = jobmix ]; then
		# its crossing is the search's, not the last line's: summary.converge_users,
		# settled within summary.converge_tol of the crossing (no interpolation)
		c=$(jq -r '.summary.converge_users // "-"' "$T/res.$r"/*/run.json) && cross=$c interp=$c
		pts=$(jq -r '.summary.points_measured' "$T/res.$r"/*/run.json)
	fi
	echo "$r $side $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') $pts $cross $max $interp" >>"$T/rows"
	printf '  %-7s %7.1f s %4s points, converged at %5s users, max %s JPM (load average %s -> %s)\n' \
		"$side" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$pts" "$cross" "$max" "$l0" "$l1"
}

echo "re-aim -q against jobmix reaim -q: workfile.$MIX, FILESIZE ${FILESIZE:-10k}, POOLSIZE ${POOLSIZE:-1m}," \
	"-j $JOBS ${YFLAG[*]:-(sync)}, $ROUNDS rounds alternated; $(nproc) CPUs," \
	"$(findmnt -n -o SOURCE,FSTYPE -T "$DIR" 2>/dev/null || echo "$DIR")"
: >"$T/rows"
for ((r = 1; r <= ROUNDS; r++)); do
	echo "round $r:"
	if [ "$SIDES" != both ]; then run "$SIDES" "$r"; continue; fi
	if ((r % 2)); then run reaim "$r"; run jobmix "$r"; else run jobmix "$r"; run reaim "$r"; fi
done
if [ "$SIDES" != both ]; then
	# one side: its means and sds alone (nothing to compare against)
	awk '{ side = $2; for (k = 3; k <= 5; k++) if ($k != "-") { c[k]++; s[k] += $k; ss[k] += $k * $k } }
	     END { if (!c[3]) { print "no run completed"; exit 1 }
		   split("time_s points crossing_users", names, " ")
		   printf "\n%s alone, mean ±sd (runs):\n", side
		   for (k = 3; k <= 5; k++) { n = c[k]; m = n ? s[k] / n : 0; v = n > 1 ? (ss[k] - n * m * m) / (n - 1) : 0
			   printf "%-16s %12.1f ±%-7.1f (%d)\n", names[k - 2], m, (v > 0 ? sqrt(v) : 0), n } }' "$T/rows"
	exit
fi

# the table: per side mean and sd; per quantity the mean and sd of the per-round ratios
awk '
	{ key[$1] = 1; for (k = 3; k <= 7; k++) v[$2, $1, k] = $k }
	function stat(side, k,    r, s, ss, n, x) {
		s = ss = n = 0
		for (r in key) if (((side, r, k) in v) && v[side, r, k] != "-") { x = v[side, r, k]; s += x; ss += x * x; n++ }
		M = n ? s / n : 0; SD = n > 1 ? sqrt((ss - n * M * M) / (n - 1) > 0 ? (ss - n * M * M) / (n - 1) : 0) : 0; N = n
	}
	function ratio(k,    r, s, ss, n, x) {
		s = ss = n = 0
		for (r in key) if (((("jobmix", r, k) in v) && (("reaim", r, k) in v)) && v["jobmix", r, k] != "-" &&
				   v["reaim", r, k] != "-" && v["reaim", r, k] > 0) {
			x = v["jobmix", r, k] / v["reaim", r, k]; s += x; ss += x * x; n++ }
		RM = n ? s / n : 0; RSD = n > 1 ? sqrt((ss - n * RM * RM) / (n - 1) > 0 ? (ss - n * RM * RM) / (n - 1) : 0) : 0; RN = n
	}
	END {
		split("3 4 5 7 6", ks, " "); split("time_s points crossing_users crossing_interp max_jpm", names, " ")
		printf "\n%-16s %20s %20s %24s\n", "", "re-aim -q", "jobmix reaim -q", "jobmix/re-aim ±sd (n)"
		for (i = 1; i <= 5; i++) {
			k = ks[i]
			stat("reaim", k); am = M; asd = SD
			stat("jobmix", k); bm = M; bsd = SD
			ratio(k)
			note = RN > 1 && (RM - 1 > 2 * RSD || 1 - RM > 2 * RSD) ? "  differ beyond the noise" : RN > 1 ? "  within the noise" : ""
			if (i == 1) { tm = RM; tsd = RSD; tn = RN }
			printf "%-16s %12.1f ±%-7.1f %12.1f ±%-7.1f %14.3f ±%.3f (%d)%s\n", names[i], am, asd, bm, bsd, RM, RSD, RN,
				i == 1 || i == 2 ? "" : note
		}
		if (tn == 0) { print "no round completed on both sides"; exit 1 }
		hi = tn > 1 ? tm + 2 * RSD_T(tsd, tn) : tm
		printf "\ntime target (jobmix <= 1/3 of re-aim): %s (mean ratio %.3f; with its noise, mean + 2 sd of the mean: %.3f)\n",
			tm <= 1 / 3 ? "MET" : "NOT MET", tm, hi
	}
	function RSD_T(sd, n) { return sd / sqrt(n) }' "$T/rows"
