#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# jobmix's fileio against sysbench fileio, side by side: the same threads
# (users), files, total size, block, read/write ratio and fsync frequency,
# buffered and O_DIRECT, on the same filesystem.  Prints reads/s, writes/s
# and fsyncs/s of both and jobmix/sysbench, each ratio with its noise.
#
#   bench/vs-sysbench.sh [DIR]   DIR: where both put their files
#                                (default /var/tmp/jobmix-bench-sb, a real disk)
# Environment: THREADS (16), FILES (128), TOTAL (256M), BLOCK (16K),
#   RATIO (1.5), FREQ (100), EVENTS (events per thread per run: 10000),
#   REPS (5), MODES ("buffered direct"), SYSBENCH (the sysbench binary).
# Needs sysbench (apt-get install sysbench) and jq.
#
# How: sysbench runs --events=THREADS*EVENTS --time=0 (--file-fsync-end on,
# its default); jobmix runs the same case (workloads/fileio-rndrw.yaml's
# entry with these values): THREADS users, 10 jobs of EVENTS/10 events each,
# fsync_end: true, one shared request sequence.  Runs alternate sysbench,
# jobmix (then jobmix, sysbench on the next repeat, so slow drift favours
# neither), REPS times per mode.  Each repeat gives one ratio per figure
# (jobmix / the sysbench run beside it); the table prints their mean, their
# sd (the noise of a ratio) and each side's own run-to-run sd.  A ratio whose
# distance from 1 is below 2 sd of the ratio is not a difference.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/jobmix-bench-sb}
THREADS=${THREADS:-16}
FILES=${FILES:-128}
TOTAL=${TOTAL:-256M}
BLOCK=${BLOCK:-16K}
RATIO=${RATIO:-1.5}
FREQ=${FREQ:-100}
EVENTS=${EVENTS:-10000}
REPS=${REPS:-5}
MODES=${MODES:-buffered direct}
SYSBENCH=${SYSBENCH:-sysbench}
command -v "$SYSBENCH" >/dev/null ||
	{ echo "$SYSBENCH not found: install sysbench (apt-get install sysbench) or set SYSBENCH" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)" >&2; exit 2; }
[ $((EVENTS % 10)) = 0 ] || { echo "EVENTS must be a multiple of 10" >&2; exit 2; }
[ -x ./jobmix ] || make -s jobmix
mkdir -p "$DIR/sb" "$DIR/jm"
T=$(mktemp -d)
trap 'rm -rf "$T"; (cd "$DIR/sb" && "$SYSBENCH" fileio --file-num="$FILES" cleanup >/dev/null 2>&1); rmdir "$DIR/sb" "$DIR/jm" "$DIR" 2>/dev/null || true' EXIT

SB_ARGS=(fileio --file-num="$FILES" --file-total-size="$TOTAL" --file-block-size="$BLOCK")
echo "sysbench prepare: $FILES files, $TOTAL in $DIR/sb" >&2
(cd "$DIR/sb" && "$SYSBENCH" "${SB_ARGS[@]}" prepare >/dev/null)

# sb_run FLAGS -> "reads/s writes/s fsyncs/s"
sb_run() {
	local extra=()
	[ "$1" = direct ] && extra=(--file-extra-flags=direct)
	(cd "$DIR/sb" && "$SYSBENCH" "${SB_ARGS[@]}" --threads="$THREADS" --file-test-mode=rndrw \
		--file-rw-ratio="$RATIO" --file-fsync-freq="$FREQ" --file-fsync-end=on \
		"${extra[@]}" --events=$((THREADS * EVENTS)) --time=0 run) >"$T/sb.out"
	awk '/reads\/s:/ { r = $2 } /writes\/s:/ { w = $2 } /fsyncs\/s:/ { f = $2 }
	     END { if (r == "" || w == "" || f == "") exit 1; print r, w, f }' "$T/sb.out"
}

# jm_run FLAGS -> "reads/s writes/s fsyncs/s"
jm_run() {
	local fl=none
	[ "$1" = direct ] && fl=direct
	cat >"$T/wl.yaml" <<-YAML
	name: vssysbench
	files: {filesize: 10k, poolsize: 0, dirs: ["$DIR/jm"]}
	users: {start: $THREADS, end: $THREADS, jobs_per_user: 10, mode: linear}
	sync: none
	mix:
	  - {job: fileio, weight: 1, mode: rndrw, files: $FILES, total_size: ${TOTAL,,}, block: ${BLOCK,,},
	     ops: $((EVENTS / 10)), rw_ratio: $RATIO, fsync_every: $FREQ, fsync_end: true,
	     flags: $fl, shared: true}
	YAML
	rm -rf "$T/res"
	./jobmix run "$T/wl.yaml" -o "$T/res" -q >/dev/null
	jq -r '.points[0].jobs_by_kind.fileio | "\(.reads_s_point) \(.writes_s_point) \(.fsyncs_s_point)"' "$T"/res/*/run.json
}

# stats over one column of numbers: "mean sd"
msd() { awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; v = n > 1 ? (q - n * m * m) / (n - 1) : 0; printf "%.6g %.6g\n", m, (v > 0 ? sqrt(v) : 0) }'; }

printf '%-9s %-8s %11s %11s %16s %9s %9s\n' mode figure sysbench jobmix "jobmix/sysbench" sb_sd% jm_sd%
for mode in $MODES; do
	: >"$T/sb.all"; : >"$T/jm.all"
	for rep in $(seq 1 "$REPS"); do
		if [ $((rep % 2)) = 1 ]; then
			s=$(sb_run "$mode"); j=$(jm_run "$mode")
		else
			j=$(jm_run "$mode"); s=$(sb_run "$mode")
		fi
		echo "$s" >>"$T/sb.all"; echo "$j" >>"$T/jm.all"
		echo "  $mode rep $rep: sysbench $s | jobmix $j" >&2
	done
	col=1
	for fig in reads/s writes/s fsyncs/s; do
		read -r sm ssd < <(cut -d' ' -f$col "$T/sb.all" | msd)
		read -r jm jsd < <(cut -d' ' -f$col "$T/jm.all" | msd)
		read -r rm rsd < <(paste -d' ' <(cut -d' ' -f$col "$T/jm.all") <(cut -d' ' -f$col "$T/sb.all") |
			awk '{ print ($2 > 0 ? $1 / $2 : 0) }' | msd)
		awk -v mo="$mode" -v f="$fig" -v sm="$sm" -v ss="$ssd" -v jm="$jm" -v js="$jsd" \
			-v rm="$rm" -v rs="$rsd" 'BEGIN {
			printf "%-9s %-8s %11.0f %11.0f %9.3f ±%5.3f %8.1f%% %8.1f%%\n", mo, f, sm, jm, rm, rs,
				(sm > 0 ? 100 * ss / sm : 0), (jm > 0 ? 100 * js / jm : 0) }'
		col=$((col + 1))
	done
done
echo "threads $THREADS, $FILES files, $TOTAL, block $BLOCK, rw ratio $RATIO, fsync every $FREQ requests,"
echo "$((THREADS * EVENTS)) events per run, $REPS alternating runs per mode; ± is the sd of the per-repeat ratio;"
echo "$("$SYSBENCH" --version), $(findmnt -n -o SOURCE,FSTYPE -T "$DIR")"
