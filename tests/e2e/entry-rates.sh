#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: an entry's rates are all its users' together, counted as
# sysbench counts them (every thread's requests over the point's wall
# time), not one user's.  A 64-thread fileio rndrw run: `report -m
# fileio.iops`, reads_s and writes_s against run.json's raw counts (rops,
# wops) over the point's elapsed, within 1%; iops_user is one user's
# (far less: 64 of them ran at once).  In a temporary directory: no root, no device.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/work"

$JOBMIX run workloads/fileio-rndrw.yaml -u 64 -j 1 -P users.as=threads -P fileio.files=8 \
	-P fileio.total_size=16m -P fileio.block=4k -P fileio.ops=1000 -P fileio.fsync_every=0 \
	-P fileio.fsync_end=false -d "$T/work" -o "$T/r" -q >"$T/run.out" 2>&1
rc=$?
check "64-thread fileio rndrw run: exit 0" [ "$rc" = 0 ]
j=$(ls "$T"/r/*/run.json 2>/dev/null | head -1)
check "run.json written" [ -f "$j" ]
[ -f "$j" ] || { cat "$T/run.out"; exit 0; }

# sysbench's way: all threads' requests over the point's wall time
k='.points[0].jobs_by_kind.fileio'
want_iops=$(jq -r "($k.rops + $k.wops) / .points[0].elapsed_s" "$j")
want_r=$(jq -r "$k.rops / .points[0].elapsed_s" "$j")
want_w=$(jq -r "$k.wops / .points[0].elapsed_s" "$j")
check "64 users ran 64 x 1000 requests" jq -e "$k.rops + $k.wops == 64000" "$j"
report() { $JOBMIX report "$T/r" -m "$1" -f csv | awk -F, -v h="$1" \
	'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c[h]; exit }'; }
got=$(report fileio.iops)
check "report -m fileio.iops $got = all threads' requests / elapsed ($want_iops) within 1%" \
	approx "$got" "$want_iops" 0.01
got=$(report fileio.reads_s)
check "report -m fileio.reads_s $got = rops / elapsed ($want_r) within 1%" approx "$got" "$want_r" 0.01
got=$(report fileio.writes_s)
check "report -m fileio.writes_s $got = wops / elapsed ($want_w) within 1%" approx "$got" "$want_w" 0.01
check "run.json iops is the all-threads figure" approx "$(jq -r "$k.iops" "$j")" "$want_iops" 0.01
# one user's rate, named so: its requests over its own job time, far below
user=$(report fileio.iops_user)
want_u=$(jq -r "($k.rops + $k.wops) / $k.job_time_s" "$j")
check "report -m fileio.iops_user $user = requests / job time ($want_u)" approx "$user" "$want_u" 0.01
check "iops_user ($user) is well below iops ($want_iops): one user of 64" \
	awk -v u="$user" -v a="$want_iops" 'BEGIN { exit !(u ~ /^[0-9]/ && u * 8 < a) }'
check "report --metrics says iops is all users'" bash -c \
	"$JOBMIX report --metrics | grep -E '^ENTRY.iops +' | grep -q 'all its users'"
check "report --metrics lists ENTRY.iops_user as one user's" bash -c \
	"$JOBMIX report --metrics | grep -E '^ENTRY.iops_user +' | grep -q \"one user's\""
