#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# jobmix's fileio against sysbench fileio, side by side: the same threads
# (users), files, total size, block, read/write ratio and fsync frequency,
# buffered and O_DIRECT, on the same filesystem.  Prints reads/s, writes/s,
# fsyncs/s and IOPS (reads/s + writes/s; jobmix's `report -m fileio.iops`)
# of both and jobmix/sysbench, each ratio with its noise.
#
#   bench/vs-sysbench.sh [DIR]   DIR: where both put their files
#                                (default /var/tmp/jobmix-bench-sb, a real disk)
# Environment: THREADS (16), FILES (128), TOTAL (256M), BLOCKS (block sizes,
#   a group of rows each: "16K"; BLOCK is the old name of one), RATIO (1.5),
#   FREQ (100), EVENTS (events per thread per run: 10000), REPS (5), MODES
#   ("buffered direct"), SYSBENCH (the sysbench binary), LOOP (a size, e.g.
#   2G, as root: a loop device of that size on the file DIR.img,
#   --direct-io=on, ext4 on it mounted at DIR; detached and removed at the
#   end).
# Needs sysbench (apt-get install sysbench) and jq.  The 256-thread table of
# bench/README.md: LOOP=2G THREADS=256 BLOCKS="4K 16K" EVENTS=1000 REPS=3.
#
# How: sysbench runs --events=THREADS*EVENTS --time=0 (--file-fsync-end on,
# its default); jobmix runs the same case (workloads/fileio-rndrw.yaml's
# entry with these values): THREADS users, 10 jobs of EVENTS/10 events each,
# fsync_end: true, one shared request sequence, users as threads; jobmix's
# figures are what `jobmix report -m fileio.reads_s` prints (every thread's
# requests over the point's wall time, as sysbench counts them).  Before
# each block size both tools' files are written in that block size (as
# sysbench prepare writes them).  Runs alternate sysbench,
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
BLOCKS=${BLOCKS:-${BLOCK:-16K}}
LOOP=${LOOP:-}
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
T=$(mktemp -d)
LOOPDEV= MNT=
cleanup() {
	rm -rf "$T"
	(cd "$DIR/sb" 2>/dev/null && "$SYSBENCH" fileio --file-num="$FILES" cleanup >/dev/null 2>&1)
	rm -rf "${DIR:?}/jm"
	rmdir "$DIR/sb" 2>/dev/null || true
	if [ -n "$MNT" ]; then umount "$MNT" || umount -l "$MNT"; fi
	if [ -n "$LOOPDEV" ]; then losetup -d "$LOOPDEV"; fi
	if [ -n "$LOOP" ]; then rm -f "$DIR.img"; fi
	rmdir "$DIR" 2>/dev/null || true
}
trap cleanup EXIT
if [ -n "$LOOP" ]; then
	[ "$(id -u)" = 0 ] || { echo "LOOP needs root" >&2; exit 2; }
	mkdir -p "$DIR"
	truncate -s "$LOOP" "$DIR.img"
	LOOPDEV=$(losetup --direct-io=on -f --show "$DIR.img")
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOPDEV" >/dev/null
	mount -o noatime "$LOOPDEV" "$DIR"
	MNT=$DIR
	echo "loop device $LOOPDEV ($LOOP, ext4) on $DIR.img, mounted at $DIR" >&2
fi
mkdir -p "$DIR/sb" "$DIR/jm"

BLOCK= SB_ARGS=()
# sb_prepare BLOCK: sysbench's files, written in BLOCK requests
sb_prepare() {
	BLOCK=$1
	SB_ARGS=(fileio --file-num="$FILES" --file-total-size="$TOTAL" --file-block-size="$BLOCK")
	echo "sysbench prepare: $FILES files, $TOTAL in $DIR/sb, block $BLOCK" >&2
	(cd "$DIR/sb" && "$SYSBENCH" "${SB_ARGS[@]}" cleanup >/dev/null &&
		"$SYSBENCH" "${SB_ARGS[@]}" prepare >/dev/null)
}

# sb_run FLAGS -> "reads/s writes/s fsyncs/s iops" (iops: reads/s + writes/s)
sb_run() {
	local extra=()
	[ "$1" = direct ] && extra=(--file-extra-flags=direct)
	(cd "$DIR/sb" && "$SYSBENCH" "${SB_ARGS[@]}" --threads="$THREADS" --file-test-mode=rndrw \
		--file-rw-ratio="$RATIO" --file-fsync-freq="$FREQ" --file-fsync-end=on \
		"${extra[@]}" --events=$((THREADS * EVENTS)) --time=0 run) >"$T/sb.out"
	awk '/reads\/s:/ { r = $2 } /writes\/s:/ { w = $2 } /fsyncs\/s:/ { f = $2 }
	     END { if (r == "" || w == "" || f == "") exit 1; print r, w, f, r + w }' "$T/sb.out"
}

# jm_run FLAGS -> "reads/s writes/s fsyncs/s iops"
jm_run() {
	local fl=none
	[ "$1" = direct ] && fl=direct
	cat >"$T/wl.yaml" <<-YAML
	name: vssysbench
	files: {filesize: 10k, poolsize: 0, dirs: ["$DIR/jm"]}
	users: {start: $THREADS, end: $THREADS, jobs_per_user: 10, mode: linear, as: threads}
	sync: none
	mix:
	  - {job: fileio, weight: 1, mode: rndrw, files: $FILES, total_size: ${TOTAL,,}, block: ${BLOCK,,},
	     ops: $((EVENTS / 10)), rw_ratio: $RATIO, fsync_every: $FREQ, fsync_end: true,
	     flags: $fl, shared: true}
	YAML
	rm -rf "$T/res"
	./jobmix run "$T/wl.yaml" -o "$T/res" -q >/dev/null
	# what jobmix prints: the entry's rates, all its users together
	./jobmix report "$T/res" -f csv -m fileio.reads_s -m fileio.writes_s -m fileio.fsyncs_s \
		-m fileio.iops |
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ print $c["fileio.reads_s"], $c["fileio.writes_s"], $c["fileio.fsyncs_s"],
				$c["fileio.iops"]; exit }'
}

# stats over one column of numbers: "mean sd"
msd() { awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; v = n > 1 ? (q - n * m * m) / (n - 1) : 0; printf "%.6g %.6g\n", m, (v > 0 ? sqrt(v) : 0) }'; }

printf '%-9s %-6s %-8s %11s %11s %16s %9s %9s\n' mode block figure sysbench jobmix "jobmix/sysbench" \
	sb_sd% jm_sd%
for blk in $BLOCKS; do
sb_prepare "$blk"
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
	for fig in reads/s writes/s fsyncs/s iops; do
		read -r sm ssd < <(cut -d' ' -f$col "$T/sb.all" | msd)
		read -r jm jsd < <(cut -d' ' -f$col "$T/jm.all" | msd)
		read -r rm rsd < <(paste -d' ' <(cut -d' ' -f$col "$T/jm.all") <(cut -d' ' -f$col "$T/sb.all") |
			awk '{ print ($2 > 0 ? $1 / $2 : 0) }' | msd)
		awk -v mo="$mode" -v b="$blk" -v f="$fig" -v sm="$sm" -v ss="$ssd" -v jm="$jm" \
			-v js="$jsd" -v rm="$rm" -v rs="$rsd" 'BEGIN {
			printf "%-9s %-6s %-8s %11.0f %11.0f %9.3f ±%5.3f %8.1f%% %8.1f%%\n", mo, b, f, sm, jm,
				rm, rs,
				(sm > 0 ? 100 * ss / sm : 0), (jm > 0 ? 100 * js / jm : 0) }'
		col=$((col + 1))
	done
done
done
echo "threads $THREADS, $FILES files, $TOTAL, blocks $BLOCKS, rw ratio $RATIO, fsync every $FREQ requests,"
echo "$((THREADS * EVENTS)) events per run, $REPS alternating runs per mode; ± is the sd of the per-repeat ratio;"
echo "$("$SYSBENCH" --version), $(findmnt -n -o SOURCE,FSTYPE -T "$DIR")"
