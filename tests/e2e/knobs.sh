#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root, on a loop device this script makes and always
# detaches: what a killed matrix leaves, and who may put it back.
#   1. SIGKILL mid-matrix (-X vm.dirty_ratio x -X queue.read_ahead_kb), both
#      values then set by hand: an unrelated run touches neither (it names
#      them); `jobmix restore` drops both records, naming them, exit 0, and
#      leaves the hand-set values.  Left as jobmix wrote them, restore puts
#      the originals back.
#   2. queue.iosched.fifo_batch beside a scheduler axis whose kyber lacks it:
#      exit 2 naming the tunable and kyber, nothing changed; a record of a
#      tunable absent under the active scheduler: restore drops it, exit 0.
#   3. USR1, USR2, ALRM, XCPU, XFSZ, PIPE, ABRT, SEGV, BUS (sent) mid-matrix: everything back,
#      no record, and the exit status is the signal's.
#   4. --mem-limit below what the users allocate: the point's failure names
#      the memory cgroup's OOM killer.
# vm.dirty_ratio is the machine's: its original is written back on EXIT.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "knobs: not root"; exit 0; fi
for t in losetup mkfs.ext4 truncate jq; do
	command -v $t >/dev/null || { skip "knobs: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "knobs: no loop device support"; exit 0; }

T=$(mktemp -d /tmp/jobmix-knobs.XXXXXX)
M=$T/mnt R=$T/results DEV= NAME= BG= RA= RA0= S0=
DR=/proc/sys/vm/dirty_ratio DR0=$(cat $DR)
KNOBS=$JM_STATE/knob LOCKS=$JM_STATE/lock
cleanup() {
	[ -n "$BG" ] && kill -KILL $BG 2>/dev/null && wait $BG 2>/dev/null
	pkill -KILL -f -- "-d $M/" 2>/dev/null
	echo "$DR0" >$DR
	[ -n "$RA0" ] && echo "$RA0" >"$RA" 2>/dev/null
	[ -n "$S0" ] && echo "$S0" >"/sys/block/$NAME/queue/scheduler" 2>/dev/null
	if [ -n "$NAME" ]; then
		rm -f "$KNOBS"/queue."$NAME".* "$LOCKS"/knob.queue."$NAME".* "$JM_STATE/sched/$NAME" "$LOCKS/$NAME"
	fi
	rm -f "$KNOBS"/sysctl.vm.dirty_ratio "$LOCKS"/knob.sysctl.vm.dirty_ratio
	mountpoint -q "$M" && { umount "$M" || umount -l "$M"; }
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$M"
truncate -s 128M "$T/img"
if ! DEV=$(losetup -f --show "$T/img" 2>/dev/null); then
	DEV=; skip "knobs: losetup failed"; exit 0
fi
NAME=${DEV#/dev/}
if ! mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 || ! mount "$DEV" "$M"; then
	skip "knobs: cannot make or mount ext4 on $DEV"; exit 0
fi
RA=/sys/block/$NAME/queue/read_ahead_kb RA0=$(cat "$RA")
S0=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$NAME/queue/scheduler")
W=tests/data/good/axes.yaml
# values other than the originals, so that every change shows
D1=10 D2=30 DH=25 A1=128 A2=1024 AH=512
case " $D1 $D2 $DH " in *" $DR0 "*) D1=11 D2=31 DH=26;; esac
case " $A1 $A2 $AH " in *" $RA0 "*) A1=256 A2=2048 AH=768;; esac

# Start a matrix in the background and SIGKILL it once both values changed.
killed_matrix() { # killed_matrix DIR
	$JOBMIX run $W -u 1-64 -d "$M/$1" -o "$R/$1" -X vm.dirty_ratio=$D1,$D2 \
		-X queue.read_ahead_kb=$A1,$A2 -q >/dev/null 2>&1 &
	BG=$!
	for _ in $(seq 1 300); do
		[ "$(cat $DR)" != "$DR0" ] && [ "$(cat "$RA")" != "$RA0" ] && break
		sleep 0.05
	done
	sleep 0.3
	kill -KILL $BG; wait $BG 2>/dev/null; BG=
	pkill -KILL -f -- "-d $M/$1" 2>/dev/null
	sleep 0.2
}

# 1. values set by hand after a SIGKILL are nobody's to reset but restore's, and not its either
killed_matrix k1
check "SIGKILL: both records left" bash -c "[ -e '$KNOBS/sysctl.vm.dirty_ratio' ] && [ -e '$KNOBS/queue.$NAME.read_ahead_kb' ]"
check "SIGKILL: each record holds the value jobmix wrote" bash -c "grep -qE '^written=($D1|$D2)\$' '$KNOBS/sysctl.vm.dirty_ratio' && grep -q '^written=' '$KNOBS/queue.$NAME.read_ahead_kb'"
echo $DH >$DR
echo $AH >"$RA"
$JOBMIX run $W -u 1 -d "$M/plain" -o "$R/plain" -q >/dev/null 2>"$T/err"; rc=$?
check "an unrelated run: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
check "an unrelated run: vm.dirty_ratio left at $DH ($(cat $DR))" [ "$(cat $DR)" = $DH ]
check "an unrelated run: read_ahead_kb left at $AH ($(cat "$RA"))" [ "$(cat "$RA")" = $AH ]
check "an unrelated run: both records left for restore" bash -c "[ -e '$KNOBS/sysctl.vm.dirty_ratio' ] && [ -e '$KNOBS/queue.$NAME.read_ahead_kb' ]"
check "an unrelated run: names them, left to jobmix restore" grep -q "a killed jobmix left changed (not this run's to put back; .jobmix restore. acts on them): .*vm.dirty_ratio" "$T/err"
$JOBMIX restore >"$T/out" 2>"$T/rerr"; rc=$?
check "restore: exit 0" [ $rc = 0 ]
check "restore: vm.dirty_ratio named on stderr, record dropped" grep -qE "^vm.dirty_ratio now $DH, not the ($D1|$D2) jobmix wrote: left as it is, record dropped" "$T/rerr"
check "restore: read_ahead_kb named on stderr, record dropped" grep -q "^queue.read_ahead_kb on $NAME now $AH, not the [0-9]* jobmix wrote: left as it is, record dropped" "$T/rerr"
check "restore: counts both as dropped" grep -q "^2 dropped" "$T/out"
check "restore: $DH and $AH left as set by hand" bash -c "[ \"\$(cat $DR)\" = $DH ] && [ \"\$(cat '$RA')\" = $AH ]"
check "restore: the records gone" bash -c "[ ! -e '$KNOBS/sysctl.vm.dirty_ratio' ] && [ ! -e '$KNOBS/queue.$NAME.read_ahead_kb' ]"
echo "$DR0" >$DR
echo "$RA0" >"$RA"
# left as jobmix wrote them: restore puts the originals back
killed_matrix k2
$JOBMIX restore >"$T/out" 2>"$T/rerr"; rc=$?
check "restore, values as jobmix wrote them: exit 0, both restored" bash -c "[ $rc = 0 ] && grep -q '^2 restored' '$T/out'"
check "restore: vm.dirty_ratio back to $DR0, read_ahead_kb to $RA0" bash -c "[ \"\$(cat $DR)\" = '$DR0' ] && [ \"\$(cat '$RA')\" = '$RA0' ]"

# 2. an iosched tunable beside a scheduler axis
sched_has() { grep -qw "$1" "/sys/block/$NAME/queue/scheduler"; }
if sched_has mq-deadline && sched_has kyber; then
	echo mq-deadline >"/sys/block/$NAME/queue/scheduler"
	FB0=$(cat "/sys/block/$NAME/queue/iosched/fifo_batch")
	$JOBMIX run $W -u 1 -d "$M/io" -o "$R/io" -X sched=mq-deadline,kyber -X queue.iosched.fifo_batch=8,16 -q >/dev/null 2>"$T/err"; rc=$?
	check "fifo_batch x sched=mq-deadline,kyber: exit 2 (rc $rc)" [ $rc = 2 ]
	check "fifo_batch x sched: the message names the tunable and kyber" grep -q "the scheduler kyber has no tunable fifo_batch" "$T/err"
	check "fifo_batch x sched: nothing changed, no record, no run folder" bash -c "grep -q '\[mq-deadline\]' /sys/block/$NAME/queue/scheduler && [ \"\$(cat /sys/block/$NAME/queue/iosched/fifo_batch)\" = '$FB0' ] && ! ls '$KNOBS'/queue.$NAME.* >/dev/null 2>&1 && [ ! -e '$R/io' ]"
	# a record of fifo_batch, then the scheduler switched away by hand
	$JOBMIX run $W -u 1-64 -d "$M/iok" -o "$R/iok" -X queue.iosched.fifo_batch=4,7 -q >/dev/null 2>&1 &
	BG=$!
	for _ in $(seq 1 300); do [ "$(cat "/sys/block/$NAME/queue/iosched/fifo_batch")" != "$FB0" ] && break; sleep 0.05; done
	kill -KILL $BG; wait $BG 2>/dev/null; BG=
	pkill -KILL -f -- "-d $M/iok" 2>/dev/null
	sleep 0.2
	check "iosched SIGKILL: its record left" [ -e "$KNOBS/queue.$NAME.iosched.fifo_batch" ]
	echo kyber >"/sys/block/$NAME/queue/scheduler"
	$JOBMIX restore >"$T/out" 2>&1; rc=$?
	check "restore, fifo_batch under kyber: exit 0 (rc $rc)" [ $rc = 0 ]
	check "restore: one line says it can never apply" grep -q "^queue.iosched.fifo_batch on $NAME: not there now (not a tunable of the active scheduler): .* can never apply, dropped" "$T/out"
	check "restore: the record gone" [ ! -e "$KNOBS/queue.$NAME.iosched.fifo_batch" ]
	$JOBMIX restore >"$T/out" 2>&1; rc=$?
	check "restore again: exit 0, nothing to restore" bash -c "[ $rc = 0 ] && grep -qx 'nothing to restore' '$T/out'"
	echo "$S0" >"/sys/block/$NAME/queue/scheduler"
else
	skip "iosched: $NAME offers no mq-deadline and kyber"
fi

# 3. catchable fatal signals mid-matrix: restored, then the signal's own exit status
for sig in USR1 USR2 ALRM XCPU XFSZ PIPE ABRT SEGV BUS; do
	$JOBMIX run $W -u 1-64 -d "$M/s$sig" -o "$R/s$sig" -X queue.read_ahead_kb=$A1,$A2 -q >/dev/null 2>"$T/err" &
	BG=$!
	for _ in $(seq 1 300); do [ "$(cat "$RA")" != "$RA0" ] && break; sleep 0.05; done
	sleep 0.3
	kill -$sig $BG
	wait $BG; rc=$?; BG=
	num=$(kill -l $sig)
	check "SIG$sig: exit status says the signal ($rc = 128 + $num)" [ $rc = $((128 + num)) ]
	check "SIG$sig: read_ahead_kb back to $RA0 ($(cat "$RA")), no record" bash -c "[ \"\$(cat '$RA')\" = '$RA0' ] && [ ! -e '$KNOBS/queue.$NAME.read_ahead_kb' ]"
	j=$(ls -d "$R"/s$sig/*-axes-[0-9]* 2>/dev/null | head -1)/run.json
	check "SIG$sig: its run.json says interrupted" jq -e '.status == "interrupted"' "$j"
	echo "$RA0" >"$RA"
	rm -f "$KNOBS/queue.$NAME.read_ahead_kb"
done

# 4. an OOM kill under --mem-limit is named
if grep -qE '^memory[[:space:]].*1$' /proc/cgroups || grep -qs memory /sys/fs/cgroup/cgroup.controllers; then
	$JOBMIX run tests/data/good/oom.yaml -d "$M/oom" -o "$R/oom" --mem-limit 16m -q >/dev/null 2>"$T/err"; rc=$?
	check "OOM under --mem-limit 16m: exit 3 (rc $rc)" [ $rc = 3 ]
	check "OOM: the failure names the memory cgroup's OOM killer" grep -qE "user [0-9]+ killed by the memory cgroup's OOM killer \(memory\.(max|limit_in_bytes) 16M" "$T/err"
	j=$(ls -d "$R"/oom/*-oom 2>/dev/null | head -1)/run.json
	check "OOM: its run.json's point says so too" jq -e '[.points[] | .reason // "" | test("memory cgroup.s OOM killer")] | any' "$j"
	check "OOM: not 'killed by signal 9'" bash -c "! grep -q 'killed by signal 9' '$T/err'"
else
	skip "knobs: no memory cgroup controller (--mem-limit)"
fi
true
