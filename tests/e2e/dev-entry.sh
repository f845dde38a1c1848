#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: dev.* is measured on the device an entry did its I/O on.  As
# root, on two loop devices this script makes (files in a temp dir,
# --direct-io=on; always detached): a seqread entry reading raw device A
# (rd.device=/dev/A) with its work directory on another device: report -m
# dev.kib_req is A's mean request size (non-zero, run.json's figure for A),
# not the work directory's device's; run.json names A as the entry's
# device.  A mix reading A and B: one column per device (dev.A.kib_req,
# dev.B.kib_req), and dev.B.kib_req names one.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "dev of the entry's device: not root (loop devices)"; exit 0; fi
for t in losetup truncate jq; do
	command -v $t >/dev/null || { skip "dev of the entry's device: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "dev of the entry's device: no loop device support"; exit 0; }
T=$(mktemp -d /tmp/jobmix-devent.XXXXXX)
DEVS=
cleanup() {
	for d in $DEVS; do losetup -d "$d"; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$T/work"
for x in a b; do
	head -c 16M /dev/urandom >"$T/$x.img"
	d=$(losetup --direct-io=on -f --show "$T/$x.img" 2>/dev/null) ||
		{ skip "dev of the entry's device: cannot make a loop device"; exit 0; }
	DEVS="$DEVS $d"
done
set -- $DEVS
A=${1#/dev/} B=${2#/dev/}

# the CSV column $2 of the first row of report CSV $1
col() { awk -F, -v h="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print c[h] ? $c[h] : ""; exit }' "$1"; }

$JOBMIX run workloads/readahead.yaml -P rd.device=/dev/$A -P rd.file_size=8m -P rd.direct=true \
	-j 2 -d "$T/work" -o "$T/r1" -q >"$T/run1.out" 2>&1
check "a raw-device run (rd.device=/dev/$A): exit 0" [ $? = 0 ]
j=$(ls "$T"/r1/*/run.json 2>/dev/null | head -1)
check "run.json names $A as the entry's device" jq -e --arg d "$A" \
	'.points[0].jobs_by_kind.rd.device == $d' "$j"
$JOBMIX report "$T/r1" -m dev.kib_req -f csv >"$T/r1.csv" 2>"$T/r1.err"
got=$(col "$T/r1.csv" dev.kib_req)
want=$(jq -r --arg d "$A" '.points[0].devices[$d].avg_req_kib' "$j")
check "report -m dev.kib_req is non-zero ($got)" awk -v g="$got" 'BEGIN { exit !(g ~ /^[0-9]/ && g > 0) }'
check "report -m dev.kib_req ($got) is $A's mean request ($want)" approx "$got" "$want" 0.001
$JOBMIX report "$T/r1" -m dev.iops -f csv >"$T/r1i.csv"
got=$(col "$T/r1i.csv" dev.iops)
want=$(jq -r --arg d "$A" '.points[0].devices[$d].iops' "$j")
check "report -m dev.iops ($got) is $A's ($want)" approx "$got" "$want" 0.001

# two entries, two raw devices: a column each
cat >"$T/two.yaml" <<YAML
name: two
files: {filesize: 10k, poolsize: 0, dirs: ["$T/work"]}
users: {start: 1, end: 1, jobs_per_user: 2, mode: linear}
sync: none
mix:
  - {job: seqread, name: ra, weight: 1, device: /dev/$A, block: 1m, direct: true}
  - {job: seqread, name: rb, weight: 1, device: /dev/$B, block: 64k, direct: true}
YAML
$JOBMIX run "$T/two.yaml" -o "$T/r2" -q >"$T/run2.out" 2>&1
check "a mix over $A and $B: exit 0" [ $? = 0 ]
j=$(ls "$T"/r2/*/run.json 2>/dev/null | head -1)
$JOBMIX report "$T/r2" -m dev.kib_req -f csv >"$T/r2.csv"
ga=$(col "$T/r2.csv" "dev.$A.kib_req") gb=$(col "$T/r2.csv" "dev.$B.kib_req")
wa=$(jq -r --arg d "$A" '.points[0].devices[$d].avg_req_kib' "$j")
wb=$(jq -r --arg d "$B" '.points[0].devices[$d].avg_req_kib' "$j")
check "dev.kib_req over two devices: dev.$A.kib_req ($ga) is $A's ($wa)" approx "$ga" "$wa" 0.001
check "dev.kib_req over two devices: dev.$B.kib_req ($gb) is $B's ($wb)" approx "$gb" "$wb" 0.001
$JOBMIX report "$T/r2" -m "dev.$B.kib_req" -f csv >"$T/r2b.csv"
check "-m dev.$B.kib_req names one device" approx "$(col "$T/r2b.csv" "dev.$B.kib_req")" "$wb" 0.001

# an axis that gives an entry a device (-X rd.device=none,/dev/A): A is
# watched too, and a queue.* axis set on it (the dry run: nothing touched)
out=$($JOBMIX run workloads/readahead.yaml -X rd.device=none,/dev/$A -X queue.read_ahead_kb=128,1024 \
	-d "$T/work" -o "$T/r3" --dry-run 2>&1); rc=$?
check "-X rd.device=none,/dev/$A --dry-run: exit 0" [ $rc = 0 ]
check "-X rd.device=none,/dev/$A: $A is a watched device" grep -q "^device: *$A " <<<"$out"
check "-X rd.device=none,/dev/$A: queue.read_ahead_kb is set on $A too" \
	grep -q "^axis: *queue.read_ahead_kb = 128, 1024 (set on .*$A, now " <<<"$out"
check "-X rd.device=none,/dev/$A: one arm reads /dev/$A" \
	grep -q "^output: .*rd.device=/dev/$A queue.read_ahead_kb=1024$" <<<"$out"
check "the dry run made no results folder" [ ! -e "$T/r3" ]
