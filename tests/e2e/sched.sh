#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root: IO-scheduler A/B runs on a loop device this script
# builds (a file, losetup --direct-io=on, mkfs.ext4, a mount in a temp dir),
# never on the machine's own disks.  Switching through two schedulers in
# interleaved order, restore after a normal end, SIGINT, SIGHUP, SIGKILL of
# a user, ENOSPC and SIGKILL of jobmix (repaired by the next run or by
# `jobmix sched --restore`), refusals (unknown scheduler or device, a second
# A/B on the device), device statistics for an I/O and a compute mix.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "IO-scheduler A/B: not root"; exit 0; fi
for t in losetup mkfs.ext4 truncate jq; do
	command -v $t >/dev/null || { skip "IO-scheduler A/B: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "IO-scheduler A/B: no loop device support"; exit 0; }

T=$(mktemp -d /tmp/jobmix-sched.XXXXXX)
M=$T/mnt R=$T/results DEV= NAME= BG=
STATE=$JM_STATE/sched LOCKS=$JM_STATE/lock
ORIG= SCHED= USERS=
cleanup() {
	[ -n "$BG" ] && kill -KILL $BG 2>/dev/null && wait $BG 2>/dev/null
	# users of a jobmix this script killed, by their pids
	[ -n "$USERS" ] && kill -KILL $USERS 2>/dev/null
	# a loop device keeps its scheduler when detached: leave it as found
	[ -n "$ORIG" ] && [ -n "$SCHED" ] && echo "$ORIG" >"$SCHED" 2>/dev/null
	if [ -n "$NAME" ]; then
		# nothing of ours may outlive the device: record, lock, then the device
		rm -f "$STATE/$NAME" "$LOCKS/$NAME"
	fi
	mountpoint -q "$M" && { umount "$M" || umount -l "$M"; }
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$M"
truncate -s 160M "$T/img"
if ! DEV=$(losetup --direct-io=on -f --show "$T/img" 2>/dev/null); then
	DEV=; skip "IO-scheduler A/B: losetup failed (no loop support)"; exit 0
fi
NAME=${DEV#/dev/}
# Nothing may write in the background: no lazy inode-table or journal
# initialisation, and a journal commit only when asked for (the mkdirs a point
# makes before its clock starts are not written back first yet, and the
# 5-second commit would land in a compute mix's window)
if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" >/dev/null 2>&1 ||
   ! mount -o commit=300,noatime "$DEV" "$M"; then
	skip "IO-scheduler A/B: cannot make or mount ext4 on $DEV"; exit 0
fi
SCHED=/sys/block/$NAME/queue/scheduler
active() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED"; }
ORIG=$(active)
# two schedulers other than the original, so a switch is visible
read -r A B < <(tr -d '[]' <"$SCHED" | tr ' ' '\n' | grep -v -x -e "$ORIG" -e '' | head -2 | tr '\n' ' ')
if [ -z "$B" ]; then skip "IO-scheduler A/B: $NAME offers fewer than 3 schedulers"; exit 0; fi
# the work dir jobmix made is gone, or empty
no_work_left() { [ ! -e "$1" ] || empty_dir "$1"; }
# the device's identity as a record holds it (diskseq where the kernel numbers disks)
id_of() { if [ -r /sys/block/$NAME/diskseq ]; then echo "diskseq $(cat /sys/block/$NAME/diskseq)"; else echo "dev $(cat /sys/block/$NAME/dev), backing file $T/img ($(stat -c '%Hd:%Ld inode %i' "$T/img"))"; fi; }
restored() { [ "$(active)" = "$ORIG" ] && [ ! -e "$STATE/$NAME" ] && [ ! -e "$LOCKS/$NAME" ]; }
# wait (up to 10 s) until the A/B has switched the device away from the original
wait_switched() { for _ in $(seq 1 200); do [ "$(active)" != "$ORIG" ] && return 0; sleep 0.05; done; return 1; }
# wait until no process of this run (its -d dir is in every user's command line) is left
wait_gone() { for _ in $(seq 1 200); do pgrep -f -- "-d $1" >/dev/null || return 0; sleep 0.05; done; return 1; }

# 1. a normal A/B: two schedulers, a linear ramp of 1-2 users, fair (interleaved) order
out=$($JOBMIX run tests/data/good/io.yaml -u 1-2 -j 4 -d "$M/w" -o "$R" -s "$A,$B" -v 2>"$T/err"); rc=$?
check "A/B: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
check "A/B: original scheduler back, record and lock file gone" restored
idx=$(ls -d "$R"/*-io-ab 2>/dev/null | head -1)/index.json
check "A/B: an index groups the runs" jq -e --arg a "$A" --arg b "$B" '.schema == "jobmix-ab/1" and .status == "complete" and .restored == true and (.runs | length) == 2 and ([.runs[].scheduler] == [$a, $b])' "$idx"
check "A/B: interleaved order A B, B A in the index" [ "$(jq -c '[.sequence[] | [.scheduler, .users]]' "$idx")" = "[[\"$A\",1],[\"$B\",1],[\"$B\",2],[\"$A\",2]]" ]
for s in $A $B; do
	j=$(ls -d "$R"/*-io-$s | head -1)/run.json
	check "A/B $s: own run folder, complete, schema 10" jq -e '.status == "complete" and .schema == "jobmix-run/10" and (.points | length) == 2' "$j"
	check "A/B $s: scheduler, original and restore recorded" jq -e --arg s "$s" --arg o "$ORIG" --arg d "$NAME" '.sched.scheduler == $s and .sched.original == ($d + "=" + $o) and .sched.restored == true and .sched.restore_error == null and .env.scheduler == $s' "$j"
	check "A/B $s: queue settings of the device in env" jq -e --arg d "$NAME" --arg s "$s" '.env.queues[] | select(.device == $d) | .scheduler == $s and .nr_requests > 0 and .logical_block_size >= 512 and .rotational != null and ($s == "none" or (.iosched | length) > 0)' "$j"
	check "A/B $s: device statistics non-zero for an I/O mix" jq -e --arg d "$NAME" '[.points[].devices[$d] | .write_ios > 0 and .iops > 0 and .avg_req_kib > 0 and .util > 0 and .avg_qdepth > 0] | all' "$j"
done
if command -v gnuplot >/dev/null; then
	check "A/B: the overlay chart beside the index" jq -e '.chart == "chart.png"' "$idx"
	check "A/B: chart.png is a PNG" bash -c "head -c 4 '$(dirname "$idx")/chart.png' | grep -q PNG"
else
	skip "A/B chart: no gnuplot"
fi
check "A/B: -v prints the device line" grep -q "device $NAME .*KiB/req.*qdepth" <<<"$out"
check "A/B: ends with the report's table, one row per scheduler" [ "$(grep -A4 "^io: Maximum Jobs Per Minute (2 runs)" <<<"$out" | grep -cE " ($A|$B) ")" = 2 ]
check "A/B: and the device's figures per scheduler" grep -qE "^$B +1 +[0-9.]+ .*[0-9.]+$" <<<"$out"
check "A/B: work area removed" no_work_left "$M/w"
$JOBMIX report --device-stats -f json "$R" >"$T/rep.json" 2>"$T/err"
check "report --device-stats: the device's figures per scheduler" jq -e --arg d "$NAME" --arg a "$A" --arg b "$B" '[.tables[] | select(.workload == "io") | .rows[] | select(.keys.scheduler == $a or .keys.scheduler == $b) | .device | .name == $d and .points == 2 and .iops > 0 and .req_kib > 0 and .qdepth > 0] | length == 2 and all' "$T/rep.json"
$JOBMIX report --device-stats "$R" >"$T/rep.txt" 2>&1
check "report --device-stats: text columns" grep -q "KiB/req" "$T/rep.txt"

# 1b. -s all: every scheduler the device lists; --order sequential: all of A, then all of B
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M/a" -o "$R/all" -s all -q >/dev/null 2>"$T/err"; rc=$?
check "-s all: exit 0, one run per listed scheduler" [ $rc = 0 -a "$(jq '.runs | length' "$R"/all/*-ab/index.json)" = "$(tr ' ' '\n' <"$SCHED" | grep -c .)" ]
check "-s all: restored" restored
$JOBMIX run tests/data/good/io.yaml -u 1-2 -j 2 -d "$M/q" -o "$R/seq" -s "$A,$B" --order sequential -q >/dev/null 2>"$T/err"
check "--order sequential: A A, B B" [ "$(jq -c '[.sequence[] | [.scheduler, .users]]' "$R"/seq/*-ab/index.json)" = "[[\"$A\",1],[\"$A\",2],[\"$B\",1],[\"$B\",2]]" ]

# 2. a compute mix: the device is (nearly) idle inside the window
sync -f "$M"
$JOBMIX run tests/data/good/compute.yaml -u 2 -j 8 -d "$M/c" -o "$R" -q >/dev/null 2>"$T/err"
j=$(ls -d "$R"/*-compute-only | head -1)/run.json
check "compute mix: device statistics near zero ($(jq -c --arg d "$NAME" '.points[0].devices[$d] | [.read_ios, .write_ios, .window_s]' "$j") reads, writes, s)" jq -e --arg d "$NAME" '.points[0].devices[$d] | (.read_ios + .write_ios) <= 8 and .mb_s < 0.5' "$j"

# 3. refusals: exit 2, nothing changed in /sys or on disk
before=$(find "$T" -path "$M/lost+found" -prune -o -print | sort | md5sum)
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M/w" -o "$R" -s "$A,jobmix-nosuch" >/dev/null 2>"$T/err"; rc=$?
check "unknown scheduler: exit 2" [ $rc = 2 ]
check "unknown scheduler: message names it" grep -q "jobmix-nosuch" "$T/err"
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M/w" -o "$R" -s "$A" --device jobmix-nodev0 >/dev/null 2>"$T/err"; rc=$?
check "unknown device: exit 2" [ $rc = 2 ]
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M/w" -o "$R" -s "$A" --device "../$NAME" >/dev/null 2>"$T/err"; rc=$?
check "device given as a path: exit 2" [ $rc = 2 ]
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d /dev/shm/jobmix-x -o "$R" -s "$A" >/dev/null 2>"$T/err"; rc=$?
check "work dir without a block device: exit 2" [ $rc = 2 ]
if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
		$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M/w" -o "$R" -s "$A" >/dev/null 2>"$T/err"; rc=$?
	check "not root: exit 2" [ $rc = 2 ]
	check "not root: says so" grep -q "needs root" "$T/err"
fi
check "refusals: scheduler unchanged" restored
check "refusals: nothing created" [ "$(find "$T" -path "$M/lost+found" -prune -o -print | sort | md5sum)" = "$before" ]

# 4. SIGINT to jobmix while it runs under the first scheduler; a second A/B meanwhile is refused
$JOBMIX run tests/data/good/slow.yaml -u 1-8 -j 400 -d "$M/s" -o "$R/int" -s "$A,$B" -q >/dev/null 2>"$T/err" &
BG=$!
wait_switched
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M/w2" -o "$R/second" -s "$B" -q >/dev/null 2>"$T/err2"; rc=$?
check "second A/B on the device: refused, exit 2" [ $rc = 2 ]
check "second A/B: says the device is in use" grep -q "in use by another jobmix" "$T/err2"
check "second A/B: the first one's scheduler untouched" [ "$(active)" != "$ORIG" ]
sleep 0.3
kill -INT $BG; wait $BG; rc=$?; BG=
check "SIGINT: exit 130" [ $rc = 130 ]
check "SIGINT: original scheduler back" restored
check "SIGINT: index says interrupted, restored" jq -e '.status == "interrupted" and .restored == true' "$R"/int/*-ab/index.json
check "SIGINT: work area removed" no_work_left "$M/s"

# 5. SIGHUP (a closed terminal)
$JOBMIX run tests/data/good/slow.yaml -u 1-8 -j 400 -d "$M/h" -o "$R/hup" -s "$A,$B" -q >/dev/null 2>"$T/err" &
BG=$!
wait_switched; sleep 0.2
kill -HUP $BG; wait $BG; rc=$?; BG=
check "SIGHUP: exit 129" [ $rc = 129 ]
check "SIGHUP: original scheduler back" restored

# 5b. SIGTERM
$JOBMIX run tests/data/good/slow.yaml -u 1-8 -j 400 -d "$M/t" -o "$R/term" -s "$A,$B" -q >/dev/null 2>"$T/err" &
BG=$!
wait_switched; sleep 0.2
kill -TERM $BG; wait $BG; rc=$?; BG=
check "SIGTERM: exit 143" [ $rc = 143 ]
check "SIGTERM: original scheduler back" restored

# 5c. adaptive ramps in lockstep: at each step every arm measures its next point, the
# order reversed from step to step and rotated by round (one ramp after the other would
# charge the machine's drift to whichever scheduler ran later)
$JOBMIX run tests/data/good/io.yaml -m peak -u 1-2 -j 2 -d "$M/p" -o "$R/peak" -s "$A,$B" --rounds 2 -q >/dev/null 2>"$T/err"; rc=$?
pidx=$(ls -d "$R"/peak/*-ab | head -1)/index.json
check "rounds: exit 0" [ $rc = 0 ]
check "rounds: original scheduler back" restored
check "rounds: one run per scheduler and round" [ "$(jq '.runs | length' "$pidx")" = 4 ]
lock=$(jq -c 'reduce (.sequence[] | [.round, .scheduler]) as $x ([]; if .[-1] == $x then . else . + [$x] end)' "$pidx")
check "rounds: lockstep, round 1 starts A B, round 2 B A" [ "$(echo "$lock" | jq -c '[map(select(.[0] == 0))[0:2], map(select(.[0] == 1))[0:2]]')" = "[[[0,\"$A\"],[0,\"$B\"]],[[1,\"$B\"],[1,\"$A\"]]]" ]
check "rounds: lockstep, the arms take turns within a round (not whole ramps)" [ "$(echo "$lock" | jq '[group_by(.[0])[] | length] | min')" -ge 3 ]

# 6. SIGKILL of one user: the point fails, the scheduler comes back (the other arm still
# runs after it: a failed point ends its own ramp only; --timeout keeps that arm short)
$JOBMIX run tests/data/good/slow.yaml -u 2 -j 2000 --no-warmup --timeout 5s -d "$M/k" -o "$R/user" -s "$A,$B" -q >/dev/null 2>"$T/err" &
BG=$!
wait_switched
victim=
for _ in $(seq 1 100); do victim=$(pgrep -P $BG | head -1); [ -n "$victim" ] && break; sleep 0.05; done
sleep 0.2
[ -n "$victim" ] && kill -KILL "$victim"
wait $BG; rc=$?; BG=
check "killed user: exit 3" [ $rc = 3 ]
check "killed user: original scheduler back" restored
check "killed user: the point failed with the signal" jq -e '.status == "failed" and (.points[-1].reason | test("signal 9"))' "$R"/user/*-slow-$A/run.json
check "killed user: the other scheduler's arm still ran" jq -e '(.points | length) >= 1' "$R"/user/*-slow-$B/run.json

# 7. ENOSPC: the filesystem fills up, a job fails, the scheduler comes back
fill=$(( $(df -k --output=avail "$M" | tail -1) - 4096 ))
fallocate -l ${fill}k "$M/fill" 2>/dev/null || dd if=/dev/zero of="$M/fill" bs=1k count=$fill status=none
$JOBMIX run tests/data/good/bigfile.yaml -u 2 -j 2 -d "$M/f" -o "$T/enospc" -s "$A,$B" -q >/dev/null 2>"$T/err"; rc=$?
check "ENOSPC: exit 3" [ $rc = 3 ]
check "ENOSPC: the reason says so" grep -q "No space left on device" "$T/err"
check "ENOSPC: original scheduler back" restored
rm -f "$M/fill"

# 8. SIGKILL of jobmix itself: its state file lets the next run put the scheduler back
for how in next-run sched-restore; do
	$JOBMIX run tests/data/good/slow.yaml -u 1-8 -j 400 -d "$M/x$how" -o "$R/kill" -s "$A,$B" -q >/dev/null 2>"$T/err" &
	BG=$!
	wait_switched; sleep 0.2
	USERS=$(pgrep -P $BG | tr '\n' ' ')
	kill -KILL $BG; wait $BG 2>/dev/null; BG=
	wait_gone "$M/x$how"
	check "SIGKILL ($how): no user outlives jobmix" [ -z "$(pgrep -f -- "-d $M/x$how")" ]
	check "SIGKILL ($how): left switched, record kept" [ "$(active)" != "$ORIG" -a -e "$STATE/$NAME" ]
	check "SIGKILL ($how): the record names the device" grep -qx "identity=$(id_of)" "$STATE/$NAME"
	if [ $how = next-run ]; then
		$JOBMIX run tests/data/good/compute.yaml -u 1 -j 1 -d "$M/c2" -o "$R/next" -q >/dev/null 2>"$T/err"; rc=$?
		check "SIGKILL: the next run exits 0" [ $rc = 0 ]
		check "SIGKILL: the next run says what it restored" grep -q "restored scheduler '$ORIG'" "$T/err"
	else
		$JOBMIX sched --restore >"$T/out" 2>&1; rc=$?
		check "SIGKILL: jobmix sched --restore exits 0" [ $rc = 0 ]
		check "SIGKILL: jobmix sched --restore says what it did" grep -q "$NAME: restored scheduler '$ORIG'" "$T/out"
		check "SIGKILL: jobmix sched --restore counts it" grep -qx "1 restored" "$T/out"
	fi
	check "SIGKILL ($how): original scheduler back, record and lock file gone" restored
	rm -rf "$M/x$how"
done
$JOBMIX sched --restore >"$T/out" 2>&1
check "sched --restore with nothing to do" grep -q "nothing to restore" "$T/out"
