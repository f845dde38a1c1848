#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: four storage experiments rebuilt at toy scale, each table
# printed by `jobmix report` (no jq), its figures checked against run.json
# (jq in the checks only).  As root, on loop devices this script builds
# (files, losetup --direct-io=on, mkfs, mounts in a temp dir; always
# detached), never on the machine's disks:
#   a. sysbench fileio rndrw by run time (elapsed, lower is better) under
#      mq-deadline, none and bfq: an A/B of jobmix switching the loop
#      device's scheduler (-s), 2 rounds;
#   b. buffered vs O_DIRECT 1 MiB sequential reads in MB/s (one seqread run,
#      its two entries as columns, --ref entry=buffered-1m);
#   c. interleaved write streams per file system (ext4 vs ext2, -L fs=),
#      write and read-back MB/s for 1 and 2 streams (--by fs --cols
#      entry,metric);
#   d. fileio in threads, buffered/O_DIRECT x 16K/4K, read and write IOPS
#      (-L io= bs= test=, --by io,bs --cols test).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "metrics experiments: not root (loop devices)"; exit 0; fi
for t in losetup mkfs.ext4 mkfs.ext2 truncate jq; do
	command -v $t >/dev/null || { skip "metrics experiments: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "metrics experiments: no loop device support"; exit 0; }

T=$(mktemp -d /tmp/jobmix-metrics.XXXXXX)
R=$T/results DEVS= MNTS=
mkdir -p "$R"
cleanup() {
	for m in $MNTS; do mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }; done
	for d in $DEVS; do losetup -d "$d"; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# a loop device with file system $1 mounted at $T/$1, its name into $DEV
mkdev() {
	local fs=$1 dev
	truncate -s 96M "$T/$fs.img"
	dev=$(losetup --direct-io=on -f --show "$T/$fs.img" 2>/dev/null) || return 1
	DEVS="$DEVS $dev"
	DEV=$dev
	mkdir -p "$T/$fs"
	if [ "$fs" = ext4 ]; then
		mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" >/dev/null 2>&1 || return 1
	else
		mkfs."$fs" -q -F "$dev" >/dev/null 2>&1 || return 1
	fi
	mount -o noatime "$dev" "$T/$fs" || return 1
	MNTS="$MNTS $T/$fs"
}
DEV=
mkdev ext4 || { skip "metrics experiments: cannot make an ext4 loop device"; exit 0; }
EXT4=$DEV
mkdev ext2 || { skip "metrics experiments: cannot make an ext2 loop device"; exit 0; }

# the CSV column of header $2 in the report CSV $1, on the row whose field $3 is $4
csv_col() {
	awk -F, -v h="$2" -v k="$3" -v v="$4" 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i } next }
		$c[k] == v { print $c[h]; exit }' "$1"
}
# the harmonic mean of numbers on stdin (mmtests' fold of a rate)
hmean() { awk '{ s += 1 / $1; n++ } END { if (n) printf "%.6g\n", n / s }'; }
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.6g\n", s / n }'; }

# ---- a. fileio rndrw by run time, three schedulers ---------------------------
SCHED=/sys/block/${EXT4#/dev/}/queue/scheduler
ORIG=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED")
if grep -qw bfq "$SCHED" && grep -qw mq-deadline "$SCHED"; then
	$JOBMIX run workloads/fileio-rndrw.yaml -u 4 -j 1 -P fileio.files=8 -P fileio.total_size=16m \
		-P fileio.ops=200 -d "$T/ext4/a" -o "$R/a" -s mq-deadline,none,bfq --rounds 2 \
		>"$T/a.out" 2>&1 || sed 's/^/    /' "$T/a.out"
	check "a: the A/B ran (3 schedulers, 2 rounds)" [ "$(ls -d "$R"/a/*/run.json "$R"/a/*/*/run.json 2>/dev/null | wc -l)" -ge 6 ]
	check "a: the scheduler as found" [ "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED")" = "$ORIG" ]
	echo "# a. sysbench fileio rndrw: time spent by IO scheduler"
	$JOBMIX report "$R/a" --by scheduler -m elapsed --ref scheduler=mq-deadline | tee "$T/a.txt"
	$JOBMIX report "$R/a" --by scheduler -m elapsed --ref scheduler=mq-deadline -f csv >"$T/a.csv"
	check "a: the table is of elapsed, lower is better" grep -q "elapsed: the point's wall time.*lower is better" "$T/a.txt"
	check "a: the footnote names the reference" grep -q "Marks: each cell against the cell with scheduler=mq-deadline" "$T/a.txt"
	for s in mq-deadline none bfq; do
		want=$(for j in $(grep -l "\"scheduler\": \"$s\"" $(find "$R/a" -name run.json)); do
			jq -r '.points[] | select(.failed | not) | .elapsed_s' "$j"; done | mean)
		got=$(csv_col "$T/a.csv" elapsed scheduler "$s")
		check "a: $s elapsed $got s is the mean of its runs' elapsed_s ($want)" approx "$got" "$want" 0.001
	done
	check "a: none and bfq are marked against mq-deadline" [ "$(grep -cE '^(none|bfq) .*%' "$T/a.txt")" = 2 ]
else
	skip "a: the loop device has no mq-deadline and bfq"
fi

# ---- b. buffered vs O_DIRECT 1 MiB sequential reads -------------------------
$JOBMIX run workloads/seqread.yaml -u 1 -j 2 -P buffered-1m.file_size=16m \
	-P direct-1m.file_size=16m -d "$T/ext4/b" -o "$R/b" >"$T/b.out" 2>&1
check "b: seqread ran" [ -f "$(ls -d "$R"/b/*/run.json | head -1)" ]
echo "# b. cold 1 MiB sequential reads, buffered vs O_DIRECT (MB/s)"
$JOBMIX report "$R/b" --by workload --cols entry -m read_mb_s --ref entry=buffered-1m | tee "$T/b.txt"
$JOBMIX report "$R/b" --by workload --cols entry -m read_mb_s --ref entry=buffered-1m -f csv >"$T/b.csv"
jb=$(ls -d "$R"/b/*/run.json | head -1)
for e in buffered-1m direct-1m; do
	want=$(jq -r --arg e "$e" '.points[] | select(.failed | not) | .jobs_by_kind[$e].read_mb_s' "$jb" | hmean)
	got=$(csv_col "$T/b.csv" "$e read_mb_s" workload seqread)
	check "b: $e $got MB/s is its run.json read_mb_s ($want)" approx "$got" "$want" 0.001
done
check "b: the direct column is marked against the buffered one" grep -q "with entry=buffered-1m" "$T/b.txt"
check "b: MB/s named as the unit" grep -q "read_mb_s (MB/s)" "$T/b.txt"

# ---- c. interleaved write streams per file system -----------------------------
for fs in ext4 ext2; do
	$JOBMIX run workloads/streams.yaml -u 1 -j 1 -P streams-1.file_size=4m -P streams-2.file_size=4m \
		-P streams-4.file_size=4m -L fs=$fs -d "$T/$fs/c" -o "$R/c" >"$T/c-$fs.out" 2>&1
done
echo "# c. interleaved 4k write streams: write and read-back MB/s by file system"
M="-m streams-1.write_mb_s -m streams-1.read_mb_s -m streams-2.write_mb_s -m streams-2.read_mb_s"
# --wide: the check reads the header as one line (the default folds at 100 columns)
$JOBMIX report "$R/c" --by fs --cols entry,metric --ref fs=ext4 $M --wide | tee "$T/c.txt"
$JOBMIX report "$R/c" --by fs --cols entry,metric --ref fs=ext4 $M -f csv >"$T/c.csv"
check "c: columns 1 stream write, read, 2 streams write, read" grep -qE "^fs +n +streams-1 write_mb_s +% +streams-1 read_mb_s +% +streams-2 write_mb_s +% +streams-2 read_mb_s" "$T/c.txt"
for fs in ext4 ext2; do
	j=$(grep -l "\"fs\": \"$fs\"" $(find "$R/c" -name run.json) | head -1)
	for e in streams-1 streams-2; do
		for m in write_mb_s read_mb_s; do
			want=$(jq -r --arg e "$e" --arg m "$m" '.points[] | select(.failed | not) | .jobs_by_kind[$e][$m]' "$j" | hmean)
			got=$(csv_col "$T/c.csv" "$e $m" fs "$fs")
			check "c: $fs $e $m $got is run.json's ($want)" approx "$got" "$want" 0.001
		done
	done
done
check "c: ext2 marked against ext4" grep -q "Marks: each cell against the cell with fs=ext4" "$T/c.txt"

# ---- d. threads, buffered/O_DIRECT x 16K/4K, read and write IOPS -----------------
for io in buffered direct; do
	for bs in 16k 4k; do
		for test in read write; do
			mode=rndrd; [ $test = write ] && mode=rndwr
			fl=; [ $io = direct ] && fl="-P fileio.flags=direct"
			$JOBMIX run workloads/fileio-rndrw.yaml -u 4 -j 1 -P users.as=threads \
				-P fileio.mode=$mode -P fileio.block=$bs -P fileio.files=4 \
				-P fileio.total_size=8m -P fileio.ops=200 -P fileio.fsync_every=0 \
				-P fileio.fsync_end=false $fl -L io=$io -L bs=$bs -L test=$test \
				-d "$T/ext4/d" -o "$R/d" >>"$T/d.out" 2>&1
		done
	done
done
check "d: eight runs" [ "$(find "$R/d" -name run.json | wc -l)" = 8 ]
echo "# d. fileio in threads: read and write IOPS"
$JOBMIX report "$R/d" --by io,bs --cols test -m fileio.iops --allow-diff fileio.mode,fileio.block,fileio.flags | tee "$T/d.txt"
$JOBMIX report "$R/d" --by io,bs --cols test -m fileio.iops --allow-diff fileio.mode,fileio.block,fileio.flags -f csv >"$T/d.csv"
check "d: one table, rows io x bs, columns read and write" grep -qE "^io +bs +n +(read +% +write|write +% +read)" "$T/d.txt"
check "d: four rows" [ "$(grep -cE '^(buffered|direct)? +(16k|4k) ' "$T/d.txt")" = 4 ]
for j in $(find "$R/d" -name run.json); do
	read -r io bs test < <(jq -r '[.labels.io, .labels.bs, .labels.test] | join(" ")' "$j")
	want=$(jq -r '.points[] | select(.failed | not) | .jobs_by_kind.fileio.iops' "$j" | hmean)
	got=$(awk -F, -v io="$io" -v bs="$bs" -v h="$test" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["io"] == io && $c["bs"] == bs { print $c[h]; exit }' "$T/d.csv")
	check "d: $io $bs $test IOPS $got is run.json's ($want)" approx "$got" "$want" 0.001
done
check "d: the 4k rows are marked against 16k of the same io" grep -q "with bs=16k and the same io, test, metric" "$T/d.txt"
