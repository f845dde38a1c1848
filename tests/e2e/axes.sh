#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root: A/B matrices (run -X) on a loop device this script
# builds and always detaches (a file, losetup, mkfs.ext4, a mount in a temp
# dir), never the machine's own disks.  A 2x2 matrix of a queue attribute
# and a job parameter; mount=noatime,strictatime; a sysctl; SIGKILL of
# jobmix mid-matrix with every system axis changed (put back by `jobmix
# restore`, and by the next run of those axes); --dry-run; every refusal
# changes nothing.
# A second loop device as --scratch: fs=ext2,ext4 made and mounted per arm,
# mkfs and fresh-mount options (data=journal) as axes, SIGKILL mid-matrix
# (unmounted by `jobmix restore` and by the next run that holds the device,
# never by an unrelated run, which names it), and the scratch
# refusals (a mounted file system, MBR and GPT partition tables, a file,
# a bad mkfs option found before anything else changes).  --mem-limit: a
# file larger than the limit read from the device, the limit an axis.
# Raw devices: seqread and fileio reading the loop device itself, never
# writing it, under a read_ahead_kb axis; writes only to --scratch.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "axes: not root"; exit 0; fi
for t in losetup mkfs.ext4 truncate jq findmnt; do
	command -v $t >/dev/null || { skip "axes: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "axes: no loop device support"; exit 0; }

T=$(mktemp -d /tmp/jobmix-axes.XXXXXX)
M=$T/mnt R=$T/results DEV= NAME= BG= RA= RA0= SYSCTL=/proc/sys/vm/stat_interval SY0=
SDEV= SNAME= PDEV= SM=$T/smnt
KNOBS=$JM_STATE/knob LOCKS=$JM_STATE/lock
cleanup() {
	[ -n "$BG" ] && kill -KILL $BG 2>/dev/null && wait $BG 2>/dev/null
	pkill -KILL -f -- "-d $M/" 2>/dev/null
	# whatever a failed check left changed goes back to what it was
	[ -n "$RA0" ] && echo "$RA0" >"$RA" 2>/dev/null
	[ -n "$SY0" ] && echo "$SY0" >"$SYSCTL" 2>/dev/null
	if [ -n "$NAME" ]; then
		rm -f "$KNOBS"/queue."$NAME".* "$LOCKS"/knob.queue."$NAME".*
		rm -f "$KNOBS"/mount.*"$(echo "$M" | tr '/' '-')" "$LOCKS"/knob.mount.*"$(echo "$M" | tr '/' '-')"
	fi
	rm -f "$KNOBS"/sysctl.vm.stat_interval "$LOCKS"/knob.sysctl.vm.stat_interval
	mountpoint -q "$M" && { umount "$M" || umount -l "$M"; }
	[ -n "$DEV" ] && losetup -d "$DEV"
	if [ -n "$SNAME" ]; then
		pkill -KILL -f -- "--scratch $SDEV" 2>/dev/null
		for mp in "$SM" "$JM_STATE/scratch/$SNAME"; do
			mountpoint -q "$mp" 2>/dev/null && { umount "$mp" || umount -l "$mp"; }
		done
		rmdir "$JM_STATE/scratch/$SNAME" 2>/dev/null
		rm -f "$KNOBS/scratch.$SNAME" "$LOCKS/knob.scratch.$SNAME"
	fi
	[ -n "$SDEV" ] && losetup -d "$SDEV"
	[ -n "$PDEV" ] && losetup -d "$PDEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$M"
truncate -s 160M "$T/img"
if ! DEV=$(losetup -f --show "$T/img" 2>/dev/null); then
	DEV=; skip "axes: losetup failed (no loop support)"; exit 0
fi
NAME=${DEV#/dev/}
if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" >/dev/null 2>&1 ||
   ! mount -o relatime,commit=300 "$DEV" "$M"; then
	skip "axes: cannot make or mount ext4 on $DEV"; exit 0
fi
RA=/sys/block/$NAME/queue/read_ahead_kb
RA0=$(cat "$RA")
SY0=$(cat "$SYSCTL")
atime() { findmnt -no OPTIONS "$M" | tr ',' '\n' | grep -x -e noatime -e relatime -e strictatime || echo strictatime; }
# nothing of a matrix left: each value as found, no record or lock
as_found() { [ "$(cat "$RA")" = "$RA0" ] && [ "$(cat "$SYSCTL")" = "$SY0" ] && [ "$(atime)" = relatime ] &&
	! ls "$KNOBS"/queue."$NAME".* "$KNOBS"/sysctl.vm.stat_interval "$KNOBS"/mount.* >/dev/null 2>&1; }
W=tests/data/good/axes.yaml
# read_ahead_kb values other than the original, so a change is visible
A1=128 A2=1024
[ "$RA0" = 128 ] && A1=256
[ "$RA0" = 1024 ] && A2=2048

# 1. a 2x2 matrix: a queue attribute x a job parameter, fair order
out=$($JOBMIX run $W -u 1-2 -d "$M/w" -o "$R/m" -X queue.read_ahead_kb=$A1,$A2 -X fio.block=4k,16k 2>"$T/err"); rc=$?
check "2x2 matrix: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
check "2x2 matrix: read_ahead_kb back to $RA0, no record left" as_found
idx=$(ls -d "$R"/m/*-axes-ab 2>/dev/null | head -1)/index.json
check "2x2 matrix: the index lists four arms" jq -e '.status == "complete" and .restored == true and (.arms | length) == 4 and (.runs | length) == 4' "$idx"
check "2x2 matrix: arms named by their values" jq -e --arg a "queue.read_ahead_kb=$A1 fio.block=16k" '[.arms[] == $a] | any' "$idx"
check "2x2 matrix: interleaved, each user count measured by every arm before the next" \
	[ "$(jq -c '[.sequence[].users]' "$idx")" = "[1,1,1,1,2,2,2,2]" ]
check "2x2 matrix: the order reverses at the second step" \
	[ "$(jq -c '[.sequence[0:4][].arm] == ([.sequence[4:8][].arm] | reverse)' "$idx")" = true ]
n=0
for ra in $A1 $A2; do for b in 4k 16k; do
	j=$(ls -d "$R"/m/*-axes-$ra-$b 2>/dev/null | head -1)/run.json
	check "arm $ra/$b: its run.json records its axes" jq -e --arg ra "$ra" --arg b "$b" \
		'.status == "complete" and .axes["queue.read_ahead_kb"] == $ra and .axes["fio.block"] == $b' "$j"
	check "arm $ra/$b: what was set on $NAME, read back, and the original" jq -e --arg ra "$ra" --arg d "$NAME" --arg o "$RA0" \
		'[.axes_set[] | select(.key == "queue.read_ahead_kb")] | length == 1 and .[0].target == $d and .[0].value == $ra and .[0].read_back == $ra and .[0].original == $o' "$j"
	check "arm $ra/$b: the environment saw it ($(jq -c --arg d "$NAME" '[.env.queues[]? | select(.device == $d) | .read_ahead_kb]' "$j"))" \
		jq -e --arg d "$NAME" --argjson ra "$ra" '[.env.queues[] | select(.device == $d) | .read_ahead_kb == $ra] | all' "$j"
	check "arm $ra/$b: the workload ran its block" jq -e --arg b "$b" '[.. | objects | select(has("block")) | .block | tostring] | map(. == $b or . == ($b | sub("k$"; "") | tonumber * 1024 | tostring)) | any' "$j"
	n=$((n + 1))
done; done
rows=0
for ra in $A1 $A2; do for b in 4k 16k; do
	grep -qE "^ *($ra +)?[0-9]+ +[0-9]{8}-[0-9]{6}-axes-$ra-$b +1 +[0-9]+" <<<"$out" && rows=$((rows + 1))
done; done
check "2x2 matrix: the closing table has one row per arm ($rows)" [ $rows = 4 ]
check "2x2 matrix: the closing table keys its rows by both axes" grep -qE "^queue.read_ahead_kb +fio.block +Run ID" <<<"$out"
check "2x2 matrix: each point's line names its arm" [ "$(grep -cE "^($A1|$A2)-(4k|16k) +[12] +[0-9.]+" <<<"$out")" = 8 ]
check "2x2 matrix: the device table names every arm" [ "$(grep -cE "^queue.read_ahead_kb=($A1|$A2) fio.block=(4k|16k) +1 +[0-9.]+" <<<"$out")" = 4 ]
$JOBMIX report -f json --by queue.read_ahead_kb --by fio.block "$R/m" >"$T/rep.json" 2>"$T/err"
check "report --by the axes: four rows" jq -e '[.tables[].rows[]] | length == 4' "$T/rep.json"
$JOBMIX report -f json "$R/m" >"$T/rep2.json" 2>"$T/err2"
check "report without --by: the arms are not folded into one row" jq -e '[.tables[].rows[]] | length >= 2' "$T/rep2.json"

# 1b. -s with -X: the scheduler one axis of the matrix, restored as -s restores it
S0=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$NAME/queue/scheduler")
if grep -qw mq-deadline "/sys/block/$NAME/queue/scheduler" && grep -qw none "/sys/block/$NAME/queue/scheduler"; then
	$JOBMIX run $W -u 1 -d "$M/s" -o "$R/s" -s none,mq-deadline -X fio.block=4k,16k --metric fio.iops >"$T/out" 2>"$T/err"; rc=$?
	check "-s x -X: exit 0" [ $rc = 0 ]
	check "-s x -X: the scheduler back to $S0" grep -q "\[$S0\]" "/sys/block/$NAME/queue/scheduler"
	for s in none mq-deadline; do
		j=$(ls -d "$R"/s/*-axes-$s-16k 2>/dev/null | head -1)/run.json
		check "-s x -X, arm $s/16k: its scheduler recorded as the env's and the sched axis" \
			jq -e --arg s "$s" '.env.scheduler == $s and .sched.scheduler == $s and .axes.sched == $s and .axes["fio.block"] == "16k"' "$j"
	done
	check "-s x -X: the closing table shows the metric by scheduler and block" grep -qE "^IO Scheduler +fio.block +n +fio.iops" "$T/out"
else
	skip "-s x -X: $NAME offers no mq-deadline and none"
fi

# 2. mount=noatime,strictatime on the work file system, and a sysctl
$JOBMIX run $W -u 1 -d "$M/t" -o "$R/t" -X mount=noatime,strictatime -X vm.stat_interval=2,3 -q >"$T/out" 2>"$T/err"; rc=$?
check "mount x sysctl: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
check "mount x sysctl: relatime and vm.stat_interval=$SY0 back, no record" as_found
for o in noatime strictatime; do
	j=$(ls -d "$R"/t/*-axes-$o-2 2>/dev/null | head -1)/run.json
	check "arm $o: the mount option set, read back, on $M" jq -e --arg o "$o" --arg m "$M" \
		'[.axes_set[] | select(.key == "mount")] | length == 1 and .[0].target == $m and .[0].value == $o and .[0].read_back == $o and .[0].original == "relatime"' "$j"
	check "arm $o: env's mount options show it" jq -e --arg o "$o" '.env.mount_options | test($o)' "$j"
	check "arm $o: the sysctl recorded" jq -e '.axes["vm.stat_interval"] == "2" and ([.axes_set[] | select(.key == "vm.stat_interval") | .read_back] == ["2"])' "$j"
done

# 3. --dry-run: the arms and what each changes; nothing touched
out=$($JOBMIX run $W -u 1 -d "$M/d" -o "$R/d" -X queue.read_ahead_kb=$A1,$A2 -X mount=noatime,strictatime --dry-run 2>&1); rc=$?
check "--dry-run: exit 0" [ $rc = 0 ]
check "--dry-run: the axis and its device's value now" grep -q "axis: *queue.read_ahead_kb = $A1, $A2 (set on $NAME, now $RA0; restored at the end)" <<<"$out"
check "--dry-run: the mount's option now" grep -q "axis: *mount = noatime, strictatime (set on the mount of $M/d, now relatime on $M;" <<<"$out"
check "--dry-run: four outputs" [ "$(grep -c '^output:' <<<"$out")" = 4 ]
check "--dry-run: nothing created or changed" bash -c "[ ! -e '$R/d' ] && [ ! -e '$M/d' ]"
check "--dry-run: values as found" as_found

# 4. SIGKILL of jobmix mid-matrix, every system axis changed: `jobmix restore`, then the next run
for how in restore next-run; do
	$JOBMIX run $W -u 1-64 -d "$M/k$how" -o "$R/k" -X queue.read_ahead_kb=$A1,$A2 -X vm.stat_interval=2,3 \
		-X mount=noatime,strictatime -q >/dev/null 2>&1 &
	BG=$!
	for _ in $(seq 1 200); do [ "$(cat "$RA")" != "$RA0" ] && [ "$(atime)" != relatime ] && break; sleep 0.05; done
	sleep 0.3
	kill -KILL $BG; wait $BG 2>/dev/null; BG=
	pkill -KILL -f -- "-d $M/k$how" 2>/dev/null
	check "SIGKILL ($how): read_ahead_kb left changed ($(cat "$RA")), its record kept" \
		bash -c "[ \"\$(cat '$RA')\" != '$RA0' ] && [ -e '$KNOBS/queue.$NAME.read_ahead_kb' ]"
	check "SIGKILL ($how): vm.stat_interval left changed ($(cat "$SYSCTL")), record kept" \
		bash -c "[ \"\$(cat '$SYSCTL')\" != '$SY0' ] && [ -e '$KNOBS/sysctl.vm.stat_interval' ]"
	check "SIGKILL ($how): the mount left $(atime), record kept" bash -c "[ '$(atime)' != relatime ] && ls '$KNOBS'/mount.* >/dev/null 2>&1"
	if [ $how = restore ]; then
		$JOBMIX restore >"$T/out" 2>&1; rc=$?
		check "jobmix restore: exit 0" [ $rc = 0 ]
		check "jobmix restore: says what it restored" [ "$(grep -c "restored '.*' left changed by jobmix pid" "$T/out")" = 3 ]
	else
		# only a run that holds those knobs acts on their records (tests/e2e/knobs.sh: others not)
		$JOBMIX run $W -u 1 -d "$M/n" -o "$R/n" -X queue.read_ahead_kb=$A1,$A2 -X vm.stat_interval=2,3 \
			-X mount=noatime,strictatime -q >/dev/null 2>"$T/err"; rc=$?
		check "the next run of those axes: exit 0" [ $rc = 0 ]
		check "the next run of those axes: says what it restored" [ "$(grep -c "restored '.*' left changed by jobmix pid" "$T/err")" = 3 ]
	fi
	check "SIGKILL ($how): every value back, records gone" as_found
done
$JOBMIX restore >"$T/out" 2>&1
check "jobmix restore with nothing left: nothing to restore" grep -q "nothing to restore" "$T/out"

# 5. refusals: exit 2, nothing changed in /sys or on disk
before=$(find "$T" -path "$M/lost+found" -prune -o -print | sort | md5sum)
refuse() { # refuse "what" "pattern in the message" -X ... args
	local what=$1 pat=$2; shift 2
	$JOBMIX run $W -u 1 -d "$M/r" -o "$R/r" "$@" >/dev/null 2>"$T/err"; local rc=$?
	check "refused, $what: exit 2 (rc $rc)" [ $rc = 2 ]
	check "refused, $what: the message says why" grep -q -- "$pat" "$T/err"
}
refuse "a value not a number" "queue.read_ahead_kb=fast: not a whole number" -X queue.read_ahead_kb=128,fast
refuse "a read-only attribute" "read-only" -X queue.hw_sector_size=512,4096
refuse "an attribute the queue lacks" "queue.jobmix_nosuch: .* is not there" -X queue.jobmix_nosuch=1,2
refuse "the scheduler as a queue attribute" "its own axis" -X queue.scheduler=none,mq-deadline
refuse "a sysctl outside vm.* and kernel.sched_*" "only vm.\* and kernel.sched_\*" -X kernel.printk_ratelimit=5,6
refuse "a sysctl that is not there" "vm.jobmix_nosuch: .* is not there" -X vm.jobmix_nosuch=1,2
refuse "a mount option that needs a fresh mount" "needs a fresh mount" -X mount=data=journal,data=ordered
refuse "a mount option jobmix does not remount" "not an option jobmix remounts" -X mount=noatime,nosuid
refuse "a job parameter value" "fio.block=banana" -X fio.block=4k,banana
refuse "an unknown key" "neither a workload key" -X nosuch.key=1,2
refuse "a value given twice" "given twice" -X queue.read_ahead_kb=128,128
refuse "an axis given twice" "given twice" -X vm.stat_interval=2,3 -X vm.stat_interval=4
refuse "too many combinations" "more than 64 combinations" -X vm.stat_interval=1,2,3,4,5,6,7,8 \
	-X queue.read_ahead_kb=8,16,32,64,128,256,512,2048 -X fio.block=4k,8k
refuse "no values" "KEY=VALUE1,VALUE2" -X queue.read_ahead_kb=
check "refusals: nothing created or changed on disk" [ "$(find "$T" -path "$M/lost+found" -prune -o -print | sort | md5sum)" = "$before" ]
check "refusals: every value as found" as_found

# 6. --scratch: a file system made and mounted per arm on a second loop device
truncate -s 200M "$T/scratch.img"
SDEV=$(losetup -f --show "$T/scratch.img") || { SDEV=; skip "axes: no second loop device"; exit 0; }
SNAME=${SDEV#/dev/}
SMP=$JM_STATE/scratch/$SNAME
scratch_gone() { ! findmnt -rn -S "$SDEV" >/dev/null && [ ! -e "$SMP" ] && [ ! -e "$KNOBS/scratch.$SNAME" ]; }
out=$($JOBMIX run $W -u 1-2 -o "$R/fs" --scratch "$SDEV" -X fs=ext2,ext4 2>"$T/err"); rc=$?
check "fs=ext2,ext4 on --scratch: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
check "fs=ext2,ext4: unmounted at the end, mount point and record gone" scratch_gone
for fs in ext2 ext4; do
	j=$(ls -d "$R"/fs/*-axes-$fs 2>/dev/null | head -1)/run.json
	check "fs=$fs: its run.json records the axis" jq -e --arg f $fs '.status == "complete" and .axes.fs == $f' "$j"
	check "fs=$fs: the work ran on $fs on $SNAME ($(jq -r '.env.fs_type' "$j" 2>/dev/null))" \
		jq -e --arg f $fs --arg mp "$SMP" '.env.fs_type == $f and .env.mount_point == $mp' "$j"
	check "fs=$fs: what was made, read back from mountinfo, and the original (none)" jq -e --arg f $fs --arg d "$SNAME" \
		'[.axes_set[] | select(.key == "fs")] | length == 1 and .[0].target == $d and .[0].value == $f and (.[0].read_back | startswith($f + " ")) and .[0].original == "none"' "$j"
	check "fs=$fs: the devices watched are the scratch device" jq -e --arg d "$SNAME" '[.points[].devices | keys[]] | length > 0 and all(. == $d)' "$j"
done
check "fs=ext2,ext4: the closing table keys its rows by fs" grep -qE "^fs +Run ID" <<<"$out"
$JOBMIX report -f json --by fs "$R/fs" >"$T/rep.json" 2>"$T/err"
check "report --by fs: two rows" jq -e '[.tables[].rows[]] | length == 2' "$T/rep.json"

# mkfs options and a mount option that needs a fresh mount, as axes
$JOBMIX run $W -u 1 -o "$R/d" --scratch "$SDEV" -X 'fs.mkfs=-b 1024,-b 4096' -X mount=data=ordered,data=journal+noatime -q >/dev/null 2>"$T/err"; rc=$?
check "fs.mkfs x mount=data=: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
j=$(ls -d "$R"/d/*-axes--b_1024-data_journal_noatime 2>/dev/null | head -1)/run.json
check "mount=data=journal+noatime: mounted so (read back $(jq -r '.axes_set[0].read_back' "$j" 2>/dev/null))" \
	jq -e '.axes_set[0].read_back | test("noatime") and test("data=journal")' "$j"
check "fs.mkfs=-b 1024: recorded as what was made" jq -e '.axes["fs.mkfs"] == "-b 1024" and (.axes_set[0].value | test("-b 1024"))' "$j"
check "fs.mkfs x mount: unmounted at the end" scratch_gone

# --dry-run names the scratch device and changes nothing
$JOBMIX run $W -u 1 -o "$R/dry" --scratch "$SDEV" -X fs=ext2,ext4 --dry-run >"$T/out" 2>&1; rc=$?
check "scratch --dry-run: exit 0, says the contents are lost" bash -c "[ $rc = 0 ] && grep -q 'ITS CONTENTS ARE LOST' '$T/out' && grep -q 'fs = ext2, ext4 (mkfs and mount on $SNAME' '$T/out'"
check "scratch --dry-run: nothing mounted, made or written" bash -c "! findmnt -rn -S '$SDEV' >/dev/null && [ ! -e '$R/dry' ] && [ ! -e '$KNOBS/scratch.$SNAME' ]"

# SIGKILL mid-matrix: the scratch file system left mounted, then unmounted
for how in restore next-run; do
	$JOBMIX run $W -u 1-64 -o "$R/sk" --scratch "$SDEV" -X fs=ext2,ext4 -q >/dev/null 2>&1 &
	BG=$!
	# stopped while a file system is mounted (between arms it is being made again)
	for _ in $(seq 1 400); do
		if ls "$R"/sk/*-axes-ext4 >/dev/null 2>&1; then
			kill -STOP $BG
			findmnt -rn -S "$SDEV" >/dev/null && break
			kill -CONT $BG
		fi
		sleep 0.05
	done
	kill -KILL $BG; wait $BG 2>/dev/null; BG=
	pkill -KILL -f -- "--scratch $SDEV" 2>/dev/null
	check "scratch SIGKILL ($how): left mounted, its record kept" bash -c "findmnt -rn -S '$SDEV' >/dev/null && [ -e '$KNOBS/scratch.$SNAME' ]"
	if [ $how = restore ]; then
		$JOBMIX restore >"$T/out" 2>&1; rc=$?
		check "jobmix restore: unmounts the scratch file system (exit $rc)" bash -c "[ $rc = 0 ] && grep -q 'scratch $SNAME: unmounted the file system jobmix pid' '$T/out'"
		check "scratch SIGKILL (restore): unmounted, mount point and record gone" scratch_gone
	else
		# issue 40 item 4: a run that does not hold the device leaves the mount alone
		$JOBMIX run $W -u 1 -d "$M/un" -o "$R/un" -q >/dev/null 2>"$T/err"; rc=$?
		check "an unrelated run: exit 0, the left scratch mount and its record kept (rc $rc)" \
			bash -c "[ $rc = 0 ] && findmnt -rn -S '$SDEV' >/dev/null && [ -e '$KNOBS/scratch.$SNAME' ]"
		check "an unrelated run: names it, left to jobmix restore" \
			grep -q "a killed jobmix left changed (not this run's to put back; .jobmix restore. acts on it.*): \(.*, \)\?fs on $SNAME" "$T/err"
		$JOBMIX run $W -u 1 -o "$R/sn" --scratch "$SDEV" -q >/dev/null 2>"$T/err"; rc=$?
		check "the next run: exit 0, says it unmounted the left one" bash -c "[ $rc = 0 ] && grep -q 'scratch $SNAME: unmounted the file system jobmix pid' '$T/err'"
		check "the next run: its own file system unmounted at the end too" scratch_gone
	fi
done

# scratch refusals: exit 2, nothing mounted or recorded, the device as it was
srefuse() { # srefuse "what" "pattern" args...
	local what=$1 pat=$2; shift 2
	$JOBMIX run ${SW:-$W} -u 1 -o "$R/sr" "$@" >/dev/null 2>"$T/err"; local rc=$?
	check "scratch refused, $what: exit 2 (rc $rc)" [ $rc = 2 ]
	check "scratch refused, $what: the message says why" grep -q -- "$pat" "$T/err"
}
mkfs.ext4 -q -F "$SDEV" >/dev/null 2>&1
mkdir -p "$SM" && mount "$SDEV" "$SM" && echo keep >"$SM/precious"
srefuse "a device with a mounted file system" "holds a mounted file system (at $SM)" --scratch "$SDEV" -X fs=ext2,ext4
check "scratch refused, mounted: its file system untouched" bash -c "[ \"\$(cat '$SM/precious')\" = keep ] && findmnt -rn -S '$SDEV' -o TARGET | grep -qx '$SM'"
umount "$SM"
sum=$(md5sum <"$SDEV")
srefuse "fs without --scratch" "give --scratch DEV" -d "$M/sr" -X fs=ext2,ext4
srefuse "mount=data= without --scratch" "only on a file system jobmix makes" -d "$M/sr" -X mount=data=journal,data=ordered
srefuse "a file system jobmix does not make" "not a file system jobmix makes" --scratch "$SDEV" -X fs=ext4,zfs
srefuse "a regular file" "not a block device" --scratch "$T/scratch.img"
srefuse "-d with --scratch" "the work directory is the file system" --scratch "$SDEV" -d "$M/sr"
srefuse "ro as a scratch mount option" "'ro' is not an option" --scratch "$SDEV" -X mount=noatime,ro
srefuse "a mkfs option that is not one" "options start with '-'" --scratch "$SDEV" -X 'fs.mkfs=-b 4096,oops'
check "scratch refusals: the device not written ($(md5sum <"$SDEV" | cut -c1-8))" [ "$(md5sum <"$SDEV")" = "$sum" ]
srefuse "a mkfs option mkfs refuses (tried before any point)" "invalid block size" --scratch "$SDEV" -X 'fs.mkfs=-b 4096,-b 999'
check "scratch refused, bad mkfs option: nothing mounted, no record, no run folder" bash -c "! findmnt -rn -S '$SDEV' >/dev/null && [ ! -e '$KNOBS/scratch.$SNAME' ] && [ ! -e '$R/sr' ]"
truncate -s 64M "$T/pt.img"
python3 - "$T/pt.img" <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(446); f.write(bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + struct.pack("<II", 2048, 100000))
    f.seek(510); f.write(b"\x55\xaa")
PY
PDEV=$(losetup -f --show "$T/pt.img")
srefuse "a device with an MBR partition table" "holds an MBR partition table" --scratch "$PDEV"
dd if=/dev/zero of="$PDEV" bs=512 count=1 conv=notrunc status=none
printf 'EFI PART' | dd of="$PDEV" bs=1 seek=512 conv=notrunc status=none
srefuse "a device with a GPT" "holds a GPT partition table" --scratch "$PDEV"
check "scratch refusals: every other value as found" as_found

# 7. --mem-limit: the users in a memory cgroup; a file larger than the limit comes from the device
if grep -qE '^memory[[:space:]].*1$' /proc/cgroups || grep -qs memory /sys/fs/cgroup/cgroup.controllers; then
	MW=tests/data/good/memlimit.yaml
	$JOBMIX run $MW -d "$M/mem" -o "$R/mem0" -q >/dev/null 2>"$T/err"; rc0=$?
	$JOBMIX run $MW -d "$M/mem" -o "$R/mem1" --mem-limit 24m -q >/dev/null 2>"$T/err"; rc1=$?
	[ $rc1 = 0 ] || sed 's/^/# /' "$T/err"
	j0=$(ls -d "$R"/mem0/*-memlimit | head -1)/run.json j1=$(ls -d "$R"/mem1/*-memlimit | head -1)/run.json
	check "mem-limit: both runs exit 0 ($rc0, $rc1)" [ "$rc0$rc1" = 00 ]
	check "mem-limit: without it, no limit recorded and the reads hit the page cache ($(jq '.points[0].machine.cache_hit_pct' "$j0")%)" \
		jq -e '.points[0].machine.mem_limit_bytes == null and .points[0].machine.cache_hit_pct > 90' "$j0"
	check "mem-limit 24m: the limit recorded, its peak within it ($(jq '.points[0].machine.mem_peak_bytes' "$j1"))" \
		jq -e '.points[0].machine.mem_limit_bytes == 25165824 and .points[0].machine.mem_peak_bytes <= 25165824' "$j1"
	check "mem-limit 24m: a 48m file read from the device ($(jq '.points[0].machine.cache_hit_pct' "$j1")% hits)" \
		jq -e '.points[0].machine.cache_hit_pct < 20 and ([.points[0].devices[].read_sectors] | add) * 512 >= 0.8 * .points[0].jobs_by_kind.rd.rbytes' "$j1"
	check "mem-limit: a setting of the run (its fingerprint's), not folded with the unlimited run" \
		bash -c "[ \"\$(jq -r .fingerprint.id '$j0')\" != \"\$(jq -r .fingerprint.id '$j1')\" ] && jq -e '.fingerprint.keys[\"measure.mem_limit\"] == \"25165824\"' '$j1' >/dev/null"
	check "mem-limit: the group removed at the end" bash -c "! find /sys/fs/cgroup -maxdepth 6 -name 'jobmix.*' -type d 2>/dev/null | grep -q ."
	out=$($JOBMIX run $MW -d "$M/mem" -o "$R/memx" -X measure.mem_limit=24m,512m --metric mem.cache_hit_pct 2>"$T/err"); rc=$?
	check "mem-limit as an axis: exit 0" [ $rc = 0 ]
	$JOBMIX report -f json --by measure.mem_limit -m mem.cache_hit_pct "$R/memx" >"$T/rep.json" 2>"$T/err"
	check "report -m mem.cache_hit_pct --by measure.mem_limit: two rows" \
		jq -e '[.tables[].rows[]] | length == 2' "$T/rep.json"
	# SIGKILL with the group made: the next run that makes one removes it
	$JOBMIX run $MW -d "$M/memk" -o "$R/memk" --mem-limit 24m -u 1-64 -q >/dev/null 2>&1 &
	BG=$!
	for _ in $(seq 1 200); do find /sys/fs/cgroup -maxdepth 6 -name "jobmix.$BG" -type d 2>/dev/null | grep -q . && break; sleep 0.05; done
	kill -KILL $BG; wait $BG 2>/dev/null
	sleep 0.5
	check "mem-limit SIGKILL: its group left behind" bash -c "find /sys/fs/cgroup -maxdepth 6 -name 'jobmix.$BG' -type d 2>/dev/null | grep -q ."
	$JOBMIX run $MW -d "$M/mem" -o "$R/memn" --mem-limit 24m -q >/dev/null 2>&1
	check "mem-limit SIGKILL: the next run removed it" bash -c "! find /sys/fs/cgroup -maxdepth 6 -name 'jobmix.*' -type d 2>/dev/null | grep -q ."
	BG=
	$JOBMIX run $MW -d "$M/mem" -o "$R/memr" --mem-limit 8m >/dev/null 2>"$T/err"; rc=$?
	check "mem-limit 8m refused: exit 2, says why, nothing written" bash -c "[ $rc = 2 ] && grep -q 'below the 16m' '$T/err' && [ ! -e '$R/memr' ]"
else
	skip "axes: no memory cgroup controller (--mem-limit)"
fi

# 8. raw block devices: seqread and fileio read the scratch loop device itself
RW=tests/data/good/rawread.yaml
RAWP="-P raw-buf.device=$SDEV -P raw-direct.device=$SDEV -P raw-rnd.device=$SDEV"
dd if=/dev/zero of="$SDEV" bs=1M count=40 conv=notrunc status=none
sum=$(md5sum <"$SDEV")
out=$($JOBMIX run $RW -d "$M/raw" -o "$R/raw" $RAWP -X queue.read_ahead_kb=$A1,$A2 --metric raw-buf.read_mb_s 2>"$T/err"); rc=$?
check "raw device x read_ahead_kb: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
j=$(ls -d "$R"/raw/*-rawread-$A2 2>/dev/null | head -1)/run.json
check "raw device: the device read is watched ($SNAME in every point)" jq -e --arg d "$SNAME" '[.points[].devices | has($d)] | all' "$j"
check "raw device: what the entries read came from it (device bytes >= 0.9 x the direct entries' bytes)" \
	jq -e --arg d "$SNAME" '[.points[] | (.devices[$d].read_sectors * 512) >= 0.9 * (.jobs_by_kind["raw-direct"].rbytes + .jobs_by_kind["raw-rnd"].rbytes)] | all' "$j"
check "raw device: read_ahead_kb set on it too ($(jq -c --arg d "$SNAME" '[.axes_set[] | select(.target == $d) | .value]' "$j"))" \
	jq -e --arg d "$SNAME" --arg v "$A2" '[.axes_set[] | select(.target == $d and .key == "queue.read_ahead_kb") | .read_back == $v] | (length == 1 and all)' "$j"
check "raw device: the workload records the device" jq -e --arg d "$SNAME" '[.workload.resolved.mix[].params.device] | all(. == $d)' "$j"
check "raw device: never written (its bytes as they were)" [ "$(md5sum <"$SDEV")" = "$sum" ]
check "raw device: read_ahead_kb back on $SNAME ($(cat /sys/block/$SNAME/queue/read_ahead_kb))" bash -c "! ls '$KNOBS'/queue.$SNAME.* >/dev/null 2>&1"
mkdir -p "$SM" && mkfs.ext4 -q -F "$SDEV" >/dev/null 2>&1 && mount "$SDEV" "$SM"
SW=$RW
srefuse "a raw read of a mounted device" "in use (a mounted file system" -d "$M/raw" $RAWP
umount "$SM"
srefuse "a raw write without --scratch" "writes only to the run's scratch device" -d "$M/raw" -P raw-buf.device=$SDEV -P raw-direct.device=$SDEV -P raw-rnd.device=$SDEV -P raw-rnd.mode=rndwr
srefuse "fs on a scratch device written raw" "read or written raw by the workload" -d "$M/raw" --scratch "$SDEV" -X fs=ext2,ext4 $RAWP -P raw-rnd.mode=rndwr
$JOBMIX run $RW -d "$M/raw" -o "$R/raww" --scratch "$SDEV" $RAWP -P raw-rnd.mode=rndwr -q >/dev/null 2>"$T/err"; rc=$?
check "a raw write to the --scratch device: exit 0, no file system made or mounted" bash -c "[ $rc = 0 ] && ! findmnt -rn -S '$SDEV' >/dev/null && [ ! -e '$KNOBS/scratch.$SNAME' ]"
check "a raw write to the --scratch device: it was written" [ "$(md5sum <"$SDEV")" != "$sum" ]
true
