#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root: what keeps --scratch on the device it names (issue
# 40), on loop devices this script makes from its own files and always
# detaches (only the ones it made: their names are recorded, and a device
# is detached only while it still reads one of this script's files).
#  1. mkfs options from an allow-list per file system: an option that names
#     another device (btrfs's extra device, xfs's rtdev=/logdev=, mke2fs's
#     -J device=) or a file, a '/', a positional word: exit 2 naming it, the
#     other device untouched; listed options still run.
#  2. the loop chain: a loop device over a loop device holding a mounted
#     file system, a second loop over a mounted loop's file, a backing
#     file owned by another user or writable by others, a device another
#     loop device reads, a loop over a device swap is active on or another
#     process holds open exclusively: exit 2, nothing written.
#  3. the device held for the whole run: `losetup -d` mid-matrix and
#     another image attached under the name (done while a wrapper around
#     mkfs, bind-mounted in a private mount namespace, holds the 2nd mkfs):
#     the other image is never formatted.
#  9. -o and -d inside the scratch mount places: exit 2.
# 13. mkfs dies with a SIGKILLed jobmix (the same wrapper, hung); a device a
#     plain --scratch run holds is refused naming what that run does, not
#     as "another jobmix A/B run".
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "scratch: not root"; exit 0; fi
for t in losetup mkfs.ext4 truncate findmnt unshare md5sum blkid; do
	command -v $t >/dev/null || { skip "scratch: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "scratch: no loop device support"; exit 0; }
JOBMIX=$(realpath "$JOBMIX")

T=$(mktemp -d /tmp/jobmix-scratch.XXXXXX)
R=$T/results KNOBS=$JM_STATE/knob LOCKS=$JM_STATE/lock
W=tests/data/good/axes.yaml
LOOPS=() MNTS=() PIDS=() SWON=
# Is loop device $1 still one of ours (reading a file of $T, or another of ours)?
ours() {
	local b d
	b=$(losetup -nO BACK-FILE "$1" 2>/dev/null) || return 1
	b=${b% (deleted)}
	[[ $b == "$T"/* ]] && return 0
	for d in "${LOOPS[@]}"; do [ "$b" = "$d" ] && return 0; done
	return 1
}
cleanup() {
	local i d n
	[ -n "$SWON" ] && swapoff "$SWON"
	for i in "${PIDS[@]}"; do kill -KILL "$i" 2>/dev/null; done
	for i in "${PIDS[@]}"; do wait "$i" 2>/dev/null; done
	for ((i = ${#MNTS[@]} - 1; i >= 0; i--)); do
		mountpoint -q "${MNTS[i]}" && { umount "${MNTS[i]}" || umount -l "${MNTS[i]}"; }
	done
	for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do
		d=${LOOPS[i]} n=${d#/dev/}
		mountpoint -q "$JM_STATE/scratch/$n" 2>/dev/null && umount "$JM_STATE/scratch/$n"
		rmdir "$JM_STATE/scratch/$n" 2>/dev/null
		rm -f "$KNOBS/scratch.$n" "$LOCKS/knob.scratch.$n"
		ours "$d" && losetup -d "$d"
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# mkloop VAR FILE: a loop device over FILE (ours), its path into VAR
mkloop() {
	local d
	d=$(losetup -f --show "$2") || return 1
	LOOPS+=("$d")
	printf -v "$1" '%s' "$d"
}
# refused WHAT PATTERN ARGS...: exit 2, the message matches
refused() {
	local what=$1 pat=$2; shift 2
	$JOBMIX run $W -u 1 -o "$R/x" "$@" -q >/dev/null 2>"$T/err"; local rc=$?
	check "$what: exit 2 (rc $rc)" [ $rc = 2 ]
	check "$what: the message names it" grep -qF -- "$pat" "$T/err"
	[ $rc = 2 ] && grep -qF -- "$pat" "$T/err" || sed 's/^/# /' "$T/err"
}
sum() { md5sum <"$1" | cut -c1-32; }
nothing_mounted() { ! findmnt -rn -S "$1" >/dev/null; }

truncate -s 400M "$T/s.img"   # mkfs.xfs needs 300 MB
truncate -s 200M "$T/v.img"
mkloop S "$T/s.img" && mkloop V "$T/v.img" || { skip "scratch: losetup failed"; exit 0; }
SN=${S#/dev/}
mkfs.ext4 -q -F "$V" >/dev/null 2>&1 || { skip "scratch: cannot make ext4 on $V"; exit 0; }
mkdir "$T/vm" && mount "$V" "$T/vm" && MNTS+=("$T/vm") && echo keep >"$T/vm/precious" &&
	umount "$T/vm" || { skip "scratch: cannot mount $V"; exit 0; }
VSUM=$(sum "$V")

# ---- 1. mkfs options: an allow-list per file system ------------------------------
have() { command -v "mkfs.$1" >/dev/null; }
if have btrfs; then
	refused "btrfs, fs.mkfs=-f /dev/V (V would join the file system)" "'/dev/${V#/dev/}' has a '/'" \
		--scratch "$S" -X fs=btrfs -X "fs.mkfs=-f $V"
	check "btrfs, fs.mkfs=-f /dev/V: V untouched" [ "$(sum "$V")" = "$VSUM" ]
	refused "btrfs, --rootdir" "'--rootdir=x' is not an mkfs.btrfs option" \
		--scratch "$S" -X fs=btrfs,ext4 -X "fs.mkfs=--rootdir=x"
	refused "btrfs, -r (a source directory)" "'-r' is not an mkfs.btrfs option" \
		--scratch "$S" -X fs=btrfs,ext4 -X "fs.mkfs=-r x"
else
	skip "scratch: no mkfs.btrfs (btrfs-progs): its option cases not run"
fi
if have xfs; then
	refused "xfs, -r rtdev=/dev/V" "'rtdev=/dev/${V#/dev/}' has a '/'" \
		--scratch "$S" -X fs=xfs -X "fs.mkfs=-r rtdev=$V"
	check "xfs, -r rtdev=/dev/V: V untouched" [ "$(sum "$V")" = "$VSUM" ]
	refused "xfs, -r (a realtime section)" "'-r' is not an mkfs.xfs option" \
		--scratch "$S" -X fs=xfs,ext4 -X "fs.mkfs=-r extsize=4k"
	refused "xfs, -l logdev=" "'-l logdev' is not an mkfs.xfs option" \
		--scratch "$S" -X fs=xfs,ext4 -X "fs.mkfs=-l logdev=loop0"
	refused "xfs, -d file" "'-d file' is not an mkfs.xfs option" \
		--scratch "$S" -X fs=xfs,ext4 -X "fs.mkfs=-d file"
	refused "xfs, -d name=" "'-d name' is not an mkfs.xfs option" \
		--scratch "$S" -X fs=xfs,ext4 -X "fs.mkfs=-d name=x"
	refused "xfs, -p protofile" "'-p' is not an mkfs.xfs option" \
		--scratch "$S" -X fs=xfs,ext4 -X "fs.mkfs=-p x"
else
	skip "scratch: no mkfs.xfs (xfsprogs): its option cases not run"
fi
if have f2fs; then
	refused "f2fs, -c (another device)" "'-c' is not an mkfs.f2fs option" \
		--scratch "$S" -X fs=f2fs,ext4 -X "fs.mkfs=-c loop0"
else
	skip "scratch: no mkfs.f2fs (f2fs-tools): its option cases not run"
fi
refused "ext4, -L x /dev/V" "has a '/'" --scratch "$S" -X "fs.mkfs=-L x $V,-b 4096"
refused "ext4, a positional word" "'${V#/dev/}' is not an option" --scratch "$S" \
	-X "fs.mkfs=-b 4096 ${V#/dev/},-b 1024"
refused "ext4, -J device=" "'-J device' is not an mkfs.ext4 option" --scratch "$S" \
	-X "fs.mkfs=-J device=LABEL=x,-b 1024"
refused "ext4, -z undo file" "'-z' is not an mkfs.ext4 option" --scratch "$S" \
	-X "fs.mkfs=-z undo,-b 1024"
refused "ext4, -E offset=" "'-E offset' is not an mkfs.ext4 option" --scratch "$S" \
	-X "fs.mkfs=-E offset=4096,-b 1024"
refused "ext4, -t (the type is -X fs)" "'-t' is not an mkfs.ext4 option" --scratch "$S" \
	-X "fs.mkfs=-t ext2,-b 1024"
refused "ext4, -L without its value" "-L takes a value" --scratch "$S" -X "fs.mkfs=-b 1024 -L,-b 4096"
refused "ext2 and ext4, an option checked against each fs" "'-J device' is not an mkfs.ext2 option" \
	--scratch "$S" -X fs=ext2,ext4 -X "fs.mkfs=-J device=x,-b 1024"
check "refused mkfs options: the other device untouched" [ "$(sum "$V")" = "$VSUM" ]
check "refused mkfs options: nothing mounted, no record" bash -c "! findmnt -rn -S '$S' >/dev/null && [ ! -e '$KNOBS/scratch.$SN' ]"
$JOBMIX run $W -u 1 -o "$R/ok1" --scratch "$S" -X 'fs.mkfs=-E root_owner=0:0 -O ^has_journal,-b4096 -L jm' -q >/dev/null 2>"$T/err"; rc=$?
check "listed ext4 options (-E root_owner=0:0, -O ^has_journal, -b4096, -L): exit 0 (rc $rc)" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/err"
if have xfs; then
	$JOBMIX run $W -u 1 -o "$R/ok2" --scratch "$S" -X fs=xfs -X 'fs.mkfs=-m crc=1 -i size=512,-b size=4096' -q >/dev/null 2>"$T/err"; rc=$?
	check "listed xfs options (-m crc=1, -i size=512, -b size=4096): exit 0 (rc $rc)" [ $rc = 0 ]
	[ $rc = 0 ] || sed 's/^/# /' "$T/err"
fi
check "listed options: unmounted at the end" nothing_mounted "$S"

# ---- 2. the loop chain -----------------------------------------------------------
# (a) a loop device over a loop device that holds a mounted file system
truncate -s 100M "$T/a.img"
LAZY=lazy_itable_init=0,lazy_journal_init=0
mkloop A "$T/a.img" && mkfs.ext4 -q -F -E $LAZY "$A" >/dev/null 2>&1 && mkdir "$T/am" &&
	mount "$A" "$T/am" && MNTS+=("$T/am") && echo keep >"$T/am/precious" && sync && mkloop A2 "$A"
# its file system as it is: the same UUID, the file readable from the disk
intact() { # intact DEV UUID MOUNTPOINT
	[ "$(blkid -p -o value -s UUID "$1")" = "$2" ] && echo 3 >/proc/sys/vm/drop_caches &&
		[ "$(cat "$3/precious")" = keep ]
}
AU=$(blkid -p -o value -s UUID "$A")
refused "(a) a loop over a loop holding a mounted ext4" "its backing device $A: holds a mounted file system (at $T/am)" --scratch "$A2"
check "(a) the mounted file system untouched" intact "$A" "$AU" "$T/am"
# (b) one image attached twice, the first mounted
truncate -s 100M "$T/b.img"
mkfs.ext4 -q -F -E $LAZY "$T/b.img" >/dev/null 2>&1
mkloop B1 "$T/b.img" && mkloop B2 "$T/b.img" && mkdir "$T/bm" && mount "$B1" "$T/bm" && MNTS+=("$T/bm") &&
	echo keep >"$T/bm/precious" && sync
BU=$(blkid -p -o value -s UUID "$B1")
refused "(b) a second loop over a mounted loop's file" "its backing $T/b.img: also backs $B1" --scratch "$B2"
check "(b) the mounted file system untouched" intact "$B1" "$BU" "$T/bm"
# (c) a backing file another user owns, or anyone may write
truncate -s 100M "$T/c.img"
mkloop C "$T/c.img"
CSUM=$(sum "$T/c.img")
chown 65534 "$T/c.img"
refused "(c) a backing file owned by nobody" "its backing $T/c.img: owned by uid 65534, not root" --scratch "$C"
chown 0 "$T/c.img" && chmod 0666 "$T/c.img"
refused "(c) a backing file of mode 0666" "its backing $T/c.img: writable by its others (mode 0666)" --scratch "$C"
chmod 0620 "$T/c.img"
refused "(c) a backing file its group may write" "writable by its group (mode 0620)" --scratch "$C"
check "(c) the backing file not written" [ "$(sum "$T/c.img")" = "$CSUM" ]
# (d) the device is what another loop device reads
mkloop S2 "$S"
refused "(d) a device another loop device reads" "the backing device of $S2" --scratch "$S"
losetup -d "$S2"
# (e) a loop device over a device swap is active on
truncate -s 64M "$T/sw.img"
mkloop SW "$T/sw.img"
if command -v swapon >/dev/null && mkswap "$SW" >/dev/null 2>&1 && swapon "$SW" 2>/dev/null; then
	SWON=$SW
	mkloop SW2 "$SW"
	refused "(e) a loop over a device swap is active on" "--scratch $SW2: its backing $SW: swap is active on it" --scratch "$SW2"
	check "(e) the swap area untouched" bash -c "grep -q '^$SW ' /proc/swaps && [ \"\$(blkid -p -o value -s TYPE '$SW')\" = swap ]"
	swapoff "$SW" && SWON=
	losetup -d "$SW2"
else
	skip "scratch: no swap on a loop device here: the swap case not run"
fi
# (f) a loop device over a device another process holds open exclusively (O_EXCL)
if ! command -v python3 >/dev/null; then
	skip "scratch: no python3 to hold a device open exclusively: that case not run"
else
truncate -s 64M "$T/h.img"
mkloop H "$T/h.img"
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); print("held", flush=True); time.sleep(120)' "$H" >"$T/held" &
HP=$!
PIDS+=("$HP")
for ((i = 0; i < 100; i++)); do [ -s "$T/held" ] && break; sleep 0.1; done
HSUM=$(sum "$T/h.img")
mkloop H2 "$H"
refused "(f) a loop over a device held open exclusively" "--scratch $H2: its backing device $H: in use (mounted, or held open exclusively)" --scratch "$H2"
check "(f) the held device not written" [ "$(sum "$T/h.img")" = "$HSUM" ]
kill "$HP"; wait "$HP" 2>/dev/null
PIDS=()
losetup -d "$H2"
fi
check "the loop chain: nothing mounted by jobmix, no record" bash -c "! ls '$KNOBS'/scratch.* >/dev/null 2>&1"

# ---- 9. -o and -d inside the scratch mount places --------------------------------
refused "-o inside the scratch mount" "-o $JM_STATE/scratch/$SN/res: inside $JM_STATE/scratch" \
	--scratch "$S" -o "$JM_STATE/scratch/$SN/res"
check "-o inside the scratch mount: nothing mounted, no record" bash -c "! findmnt -rn -S '$S' >/dev/null && [ ! -e '$KNOBS/scratch.$SN' ]"
# (--dry-run: a jobmix that let them through makes nothing there)
refused "-o inside /run/jobmix/scratch" "inside /run/jobmix/scratch" -o /run/jobmix/scratch/x/res -d "$T/wd" --dry-run
refused "-o reaching it through .." "inside $JM_STATE/scratch" -o "$T/../$(basename "$JM_STATE")/scratch" -d "$T/wd" --dry-run
refused "-d inside the scratch mount places" "-d $JM_STATE/scratch/$SN: inside" -d "$JM_STATE/scratch/$SN" --dry-run
check "-o/-d refused: no results folder made" bash -c "[ ! -e '$JM_STATE/scratch/$SN' ] && [ ! -e '$R/x' ]"

# ---- 13. a plain --scratch run holding the device is not called an A/B run -----
$JOBMIX run tests/data/good/slow.yaml -u 1-8 -j 400 -o "$R/held" --scratch "$S" -q >/dev/null 2>&1 &
HELD=$!
PIDS+=("$HELD")
for ((i = 0; i < 200; i++)); do findmnt -rn -S "$S" >/dev/null && break; sleep 0.1; done
refused "13. a device a plain --scratch run holds" \
	"in use by another jobmix run, pid $HELD, a run using it as its scratch device" --scratch "$S"
check "13. ... the holder never called an A/B run" bash -c "kill -0 $HELD && ! grep -q 'A/B' '$T/err'"
kill -KILL "$HELD"; wait "$HELD" 2>/dev/null
PIDS=()
# (its users may hold the mount a moment longer: restore until it is gone, 10 s at most)
for ((i = 0; i < 20; i++)); do
	$JOBMIX restore >/dev/null 2>&1
	nothing_mounted "$S" && break
	sleep 0.5
done
check "13. ... what the killed holder left, unmounted by restore" nothing_mounted "$S"

# ---- 3 and 13: a wrapper around mke2fs in a private mount namespace --------------
# hook.sh is mkfs.ext2/ext4 for jobmix (bound over /usr/sbin/mke2fs, which they
# link to, in the namespace only): its Nth call (hook.n) says so (hook.waiting,
# its pid) and waits for hook.go, then runs the real mke2fs (bound to $T/mke2fs).
MKE2FS=$(realpath "$(command -v mke2fs)")
cat >"$T/hook.sh" <<EOF
#!/bin/bash
n=\$(( \$(cat "$T/hook.count" 2>/dev/null || echo 0) + 1 ))
echo \$n >"$T/hook.count"
if [ "\$n" = "\$(cat "$T/hook.n")" ]; then
	echo \$\$ >"$T/hook.waiting"
	while [ ! -e "$T/hook.go" ]; do sleep 0.05; done
fi
exec -a "\$0" "$T/mke2fs" "\$@"
EOF
chmod 0755 "$T/hook.sh"
: >"$T/mke2fs"
# hooked N ARGS...: jobmix run ARGS in the namespace, its mkfs call N held; its pid in JPID
hooked() {
	echo "$1" >"$T/hook.n"; shift
	rm -f "$T/hook.count" "$T/hook.waiting" "$T/hook.go"
	unshare -m --propagation private bash -c 'mount --bind "$1" "$2" && mount --bind "$3" "$1" && shift 3 && exec "$@"' \
		_ "$MKE2FS" "$T/mke2fs" "$T/hook.sh" $JOBMIX run $W "$@" >/dev/null 2>"$T/err" &
	JPID=$!
	PIDS+=("$JPID")
	for ((i = 0; i < 600; i++)); do [ -s "$T/hook.waiting" ] && break; kill -0 $JPID 2>/dev/null || break; sleep 0.1; done
	[ -s "$T/hook.waiting" ]
}
if ! unshare -m --propagation private true 2>/dev/null; then
	skip "scratch: no mount namespaces (unshare -m): the held-device and mkfs-dies cases not run"
	exit 0
fi

# 3. losetup -d mid-matrix, another image attached under the name while the
#    2nd arm's mkfs is about to run (mkfs calls: the check pass's ext4, ext2,
#    then the ext4 arm's: the 3rd)
truncate -s 200M "$T/other.img"
printf 'not jobmix%.0s' $(seq 1 1000) | dd of="$T/other.img" conv=notrunc status=none
OSUM=$(sum "$T/other.img")
if hooked 3 -u 1 -o "$R/f3" --scratch "$S" -X fs=ext2,ext4; then
	losetup -d "$S" 2>/dev/null
	attached=no
	losetup "$S" "$T/other.img" 2>/dev/null && attached=yes
	touch "$T/hook.go"
	wait $JPID; rc=$?
	PIDS=()
	check "3. mid-matrix: the other image not formatted (attached under $SN: $attached; jobmix rc $rc)" \
		[ "$(sum "$T/other.img")" = "$OSUM" ]
	check "3. mid-matrix: the name could not be taken while jobmix held it" [ $attached = no ]
	check "3. mid-matrix: the run ends as it began (exit 0, or 3 on a change; rc $rc)" bash -c "[ $rc = 0 ] || [ $rc = 3 ]"
	[ $rc = 0 ] || [ $rc = 3 ] || sed 's/^/# /' "$T/err"
	sleep 0.5
	# the device went with jobmix's last descriptor (losetup -d marked it): ours again
	if ! losetup "$S" >/dev/null 2>&1; then
		losetup "$S" "$T/s.img" 2>/dev/null || { mkloop S "$T/s.img"; SN=${S#/dev/}; }
	fi
	rm -f "$KNOBS/scratch.$SN" "$LOCKS/knob.scratch.$SN"
	rmdir "$JM_STATE/scratch/$SN" 2>/dev/null
else
	not_ok "3. jobmix did not reach its 3rd mkfs"; sed 's/^/# /' "$T/err"
fi

# 13. SIGKILL jobmix while its mkfs runs: the mkfs goes with it
if hooked 1 -u 1 -o "$R/f13" --scratch "$S"; then
	MK=$(cat "$T/hook.waiting")
	PIDS+=("$MK")   # ours: the wrapper jobmix ran
	kill -KILL $JPID; wait $JPID 2>/dev/null
	for ((i = 0; i < 30; i++)); do kill -0 "$MK" 2>/dev/null || break; sleep 0.1; done
	check "13. the mkfs of a SIGKILLed jobmix does not keep running" bash -c "! kill -0 $MK 2>/dev/null"
	kill -KILL "$MK" 2>/dev/null
	PIDS=()
	# what the killed run left: its record (nothing mounted: mkfs never ran)
	$JOBMIX restore >/dev/null 2>&1
	rm -f "$KNOBS/scratch.$SN" "$LOCKS/knob.scratch.$SN"
	rmdir "$JM_STATE/scratch/$SN" 2>/dev/null
else
	not_ok "13. jobmix did not reach its mkfs"; sed 's/^/# /' "$T/err"
fi
check "the other device never written" [ "$(sum "$V")" = "$VSUM" ]
