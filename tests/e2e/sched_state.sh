#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root, on loop devices this script makes: the records a
# killed A/B leaves are acted on only on the device they were made on.
#   1. an A/B SIGKILLed on a loop device, the device detached and the same
#      loop number attached to another image set to another scheduler: a
#      plain run elsewhere leaves it and its record alone, a plain run on it
#      drops the record (saying so) and switches nothing; lock files go;
#   2. a lock file another user made in the old place (/run/lock), held
#      with a shared flock and holding a pid of its choice: no effect;
#   3. the record of a device that is gone: cleared by sched --restore, once;
#   4. the directory of records not root's or writable by others: refused.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "scheduler records: not root"; exit 0; fi
for t in losetup mkfs.ext4 truncate setpriv flock stat; do
	command -v $t >/dev/null || { skip "scheduler records: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "scheduler records: no loop device support"; exit 0; }

T=$(mktemp -d /tmp/jobmix-schedrec.XXXXXX)
DIR=$JM_STATE STATE=$JM_STATE/sched LOCKS=$JM_STATE/lock
M1=$T/m1 M2=$T/m2 R=$T/results DEV= NAME= BG= USERS= HOLDER= OLDLOCK= GONE= DIRMODE=
cleanup() {
	[ -n "$BG" ] && kill -KILL $BG 2>/dev/null && wait $BG 2>/dev/null
	[ -n "$USERS" ] && kill -KILL $USERS 2>/dev/null
	[ -n "$HOLDER" ] && kill -KILL $HOLDER 2>/dev/null && wait $HOLDER 2>/dev/null
	[ -n "$OLDLOCK" ] && rm -f "$OLDLOCK"
	# the records directory as it was found (root's, not writable by others)
	if [ -n "$DIRMODE" ]; then chown root:root "$DIR"; chmod "$DIRMODE" "$DIR"; fi
	for m in "$M1" "$M2"; do mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }; done
	if [ -n "$NAME" ]; then
		# a loop device keeps its scheduler when detached: leave it as found
		[ -n "${ORIG:-}" ] && echo "$ORIG" >"/sys/block/$NAME/queue/scheduler" 2>/dev/null
		rm -f "$STATE/$NAME" "$LOCKS/$NAME"
		losetup -d "/dev/$NAME" 2>/dev/null
	fi
	if [ -n "$GONE" ]; then
		rm -f "$STATE/$GONE" "$LOCKS/$GONE"
		[ -e "/sys/block/$GONE" ] && loopctl remove "${GONE#loop}"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# LOOP_CTL_ADD / LOOP_CTL_REMOVE on /dev/loop-control (a loop device that really goes away)
loopctl() { python3 -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
fcntl.ioctl(fd, 0x4C80 if sys.argv[1] == "add" else 0x4C81, int(sys.argv[2]))' "$@" 2>/dev/null; }

mkdir -p "$M1" "$M2" "$R"
truncate -s 48M "$T/old.img" "$T/new.img"
for i in old new; do
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$T/$i.img" >/dev/null 2>&1 ||
		{ skip "scheduler records: mkfs.ext4 failed"; exit 0; }
done
if ! DEV=$(losetup --direct-io=on -f --show "$T/old.img" 2>/dev/null); then
	DEV=; skip "scheduler records: losetup failed (no loop support)"; exit 0
fi
NAME=${DEV#/dev/}
SCHED=/sys/block/$NAME/queue/scheduler
active() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED"; }
ORIG=$(active)
read -r A B C < <(tr -d '[]' <"$SCHED" | tr ' ' '\n' | grep -v -x -e "$ORIG" -e '' | head -3 | tr '\n' ' ')
if [ -z "$C" ]; then skip "scheduler records: $NAME offers fewer than 4 schedulers"; exit 0; fi
mount -o commit=300,noatime "$DEV" "$M1" || { skip "scheduler records: cannot mount $DEV"; exit 0; }
# the device's identity as a record holds it (diskseq where the kernel numbers disks)
id_of() { if [ -r /sys/block/$NAME/diskseq ]; then echo "diskseq $(cat /sys/block/$NAME/diskseq)"; else echo "dev $(cat /sys/block/$NAME/dev), backing file $T/new.img ($(stat -c '%Hd:%Ld inode %i' "$T/new.img"))"; fi; }
wait_switched() { for _ in $(seq 1 200); do [ "$(active)" != "$ORIG" ] && return 0; sleep 0.05; done; return 1; }
wait_gone() { for _ in $(seq 1 200); do pgrep -f -- "-d $1" >/dev/null || return 0; sleep 0.05; done; return 1; }

# 1. the reported case: an A/B SIGKILLed on the device ...
$JOBMIX run tests/data/good/slow.yaml -u 1-8 -j 400 -d "$M1/x" -o "$R/kill" -s "$A,$B" -q >/dev/null 2>"$T/err" &
BG=$!
wait_switched; sleep 0.2
USERS=$(pgrep -P $BG | tr '\n' ' ')
kill -KILL $BG; wait $BG 2>/dev/null; BG=
wait_gone "$M1/x"
check "killed A/B: left $NAME switched, its record kept" [ "$(active)" != "$ORIG" -a -e "$STATE/$NAME" ]
# ... the device detached and the loop number attached to another image, set to C
umount "$M1"
losetup -d "$DEV"
if ! losetup --direct-io=on "$DEV" "$T/new.img" 2>/dev/null; then
	NAME=; skip "scheduler records: could not attach another image to $DEV"; exit 0
fi
echo "$C" >"$SCHED"
check "re-attached: $NAME shows the new image, scheduler $C" [ "$(active)" = "$C" -a "$(cat /sys/block/$NAME/loop/backing_file)" = "$T/new.img" ]
mount -o commit=300,noatime "$DEV" "$M2" || { skip "scheduler records: cannot mount the new image"; exit 0; }
# a plain run whose work dir is on another device
$JOBMIX run tests/data/good/compute.yaml -u 1 -j 1 -d "$T/elsewhere" -o "$R/else" -q >/dev/null 2>"$T/err"; rc=$?
check "plain run elsewhere: exit 0" [ $rc = 0 ]
check "plain run elsewhere: $NAME's scheduler untouched ($C)" [ "$(active)" = "$C" ]
check "plain run elsewhere: says nothing of $NAME" bash -c "! grep -q '$NAME' '$T/err'"
check "plain run elsewhere: $NAME's record left for a run on it" [ -e "$STATE/$NAME" ]
# a plain run on the device
$JOBMIX run tests/data/good/compute.yaml -u 1 -j 1 -d "$M2/w" -o "$R/on" -q >/dev/null 2>"$T/err"; rc=$?
check "plain run on $NAME: exit 0" [ $rc = 0 ]
check "plain run on $NAME: its scheduler untouched ($C, not the record's $ORIG)" [ "$(active)" = "$C" ]
check "plain run on $NAME: says the record was dropped" grep -q "jobmix run: $NAME: another device now .*dropped, its scheduler left as it is ('$C')" "$T/err"
check "plain run on $NAME: record and lock file gone" [ ! -e "$STATE/$NAME" -a ! -e "$LOCKS/$NAME" ]
$JOBMIX run tests/data/good/compute.yaml -u 1 -j 1 -d "$M2/w" -o "$R/on" -q >/dev/null 2>"$T/err"
check "plain run on $NAME again: nothing said" bash -c "! grep -q '$NAME' '$T/err'"

# 2. a lock another user made where jobmix kept its locks, holding a pid of its choice
OLDLOCK=/run/lock/jobmix-sched-$NAME.lock
rm -f "$OLDLOCK"
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	bash -c 'echo 4242 >"$1" && exec flock -s "$1" sleep 60' _ "$OLDLOCK" &
HOLDER=$!
# held once an exclusive lock cannot be had
for _ in $(seq 1 100); do [ -e "$OLDLOCK" ] && ! flock -n -x "$OLDLOCK" true 2>/dev/null && break; sleep 0.05; done
check "another user made $OLDLOCK and holds a shared flock on it" bash -c "[ \"\$(stat -c %U '$OLDLOCK')\" = nobody ] && ! flock -n -x '$OLDLOCK' true"
$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M2/ab" -o "$R/ab" -s "$A,$B" -q >/dev/null 2>"$T/err"; rc=$?
check "A/B beside another user's lock file: exit 0" [ $rc = 0 ]
check "A/B beside another user's lock file: no pid of its choice printed" bash -c "! grep -q 4242 '$T/err'"
check "A/B: scheduler back ($C)" [ "$(active)" = "$C" ]
check "A/B: record and lock file gone after the run" [ ! -e "$STATE/$NAME" -a ! -e "$LOCKS/$NAME" ]
check "A/B: records and locks in a root-only 0700 directory" [ "$(stat -c '%U %a' "$DIR" "$STATE" "$LOCKS" | sort -u)" = "root 700" ]
kill -KILL $HOLDER 2>/dev/null; wait $HOLDER 2>/dev/null; HOLDER=
rm -f "$OLDLOCK"; OLDLOCK=

# 3. the record of a device that is gone: a loop device of our own, added and removed
for n in $(seq 200 250); do [ -e /sys/block/loop$n ] || { GONE=loop$n; break; }; done
if command -v python3 >/dev/null && [ -n "$GONE" ] && loopctl add "${GONE#loop}" && [ -e "/sys/block/$GONE" ]; then
	# the record as a killed A/B would have left it
	id=$( [ -r /sys/block/$GONE/diskseq ] && echo "diskseq $(cat /sys/block/$GONE/diskseq)" || echo "dev $(cat /sys/block/$GONE/dev), no backing file")
	printf 'original=%s\npid=999999\nsaved=%s\nidentity=%s\n' "$ORIG" "$(date +%s)" "$id" >"$STATE/$GONE"
	chmod 600 "$STATE/$GONE"
	loopctl remove "${GONE#loop}"
	check "$GONE removed" [ ! -e "/sys/block/$GONE" ]
	$JOBMIX run tests/data/good/compute.yaml -u 1 -j 1 -d "$M2/w" -o "$R/on" -q >/dev/null 2>"$T/err"
	check "a plain run leaves the gone device's record alone" [ -e "$STATE/$GONE" ]
	$JOBMIX sched --restore >"$T/out" 2>&1; rc=$?
	check "sched --restore: exit 0" [ $rc = 0 ]
	check "sched --restore: says the gone device's record was cleared" grep -q "^$GONE: the device is gone; the record jobmix pid 999999 left (to restore '$ORIG') cleared$" "$T/out"
	check "sched --restore: counts it" grep -qx "1 cleared (device, mount or tunable gone)" "$T/out"
	check "sched --restore: record cleared" [ ! -e "$STATE/$GONE" ]
	$JOBMIX sched --restore >"$T/out" 2>&1
	check "sched --restore again: said once (nothing to restore)" grep -qx "nothing to restore" "$T/out"
	GONE=
else
	[ -n "$GONE" ] && [ -e "/sys/block/$GONE" ] && loopctl remove "${GONE#loop}"
	GONE=
	skip "gone device: cannot add and remove a loop device (python3, LOOP_CTL_ADD)"
fi

# 4. the directory of records: writable by others, or another user's: refused, nothing changed
DIRMODE=$(stat -c %a "$DIR")
printf 'original=%s\npid=999999\nidentity=%s\n' "$ORIG" "$(id_of)" >"$STATE/$NAME"
chmod 600 "$STATE/$NAME"
for bad in mode owner; do
	if [ $bad = mode ]; then chmod 0777 "$DIR"; else chmod 0700 "$DIR"; chown nobody "$DIR"; fi
	$JOBMIX run tests/data/good/io.yaml -u 1 -j 2 -d "$M2/ab2" -o "$R/ab2" -s "$A" -q >/dev/null 2>"$T/err"; rc=$?
	check "records dir ($bad): A/B refused, exit 2" [ $rc = 2 ]
	check "records dir ($bad): A/B says why" grep -q "jobmix run: $DIR: refused, $( [ $bad = mode ] && echo 'it is writable by group or others' || echo 'its owner is another user')" "$T/err"
	check "records dir ($bad): A/B made no run folder" [ ! -e "$R/ab2" ]
	$JOBMIX run tests/data/good/compute.yaml -u 1 -j 1 -d "$M2/w" -o "$R/on" -q >/dev/null 2>"$T/err"; rc=$?
	check "records dir ($bad): a plain run still runs" [ $rc = 0 ]
	check "records dir ($bad): and warns" grep -q "warning: scheduler records not acted on: $DIR: refused" "$T/err"
	$JOBMIX sched --restore >"$T/out" 2>&1; rc=$?
	check "records dir ($bad): sched --restore refused, exit 2" [ $rc = 2 ]
	check "records dir ($bad): sched --restore says why" grep -q "jobmix sched: $DIR: refused" "$T/out"
	check "records dir ($bad): scheduler untouched, record kept" [ "$(active)" = "$C" -a -e "$STATE/$NAME" ]
done
chown root:root "$DIR"; chmod "$DIRMODE" "$DIR"; DIRMODE=
$JOBMIX sched --restore "$NAME" >"$T/out" 2>&1; rc=$?
check "records dir put back: sched --restore $NAME exits 0" [ $rc = 0 ]
check "records dir put back: and acts on the record again" grep -q "^$NAME: restored scheduler '$ORIG'" "$T/out"
check "and the device has its recorded scheduler" [ "$(active)" = "$ORIG" ]
