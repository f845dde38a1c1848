#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root: the block tracer (src/trace, docs/tracing.md) on a
# loop device this script builds (a file, losetup --direct-io=on, ext4
# mounted in a temp dir).  An A/B mq-deadline vs none: the scheduler-time
# histogram filled under mq-deadline, the requests bypassing it under none,
# device time for both; -X queue.max_sectors_kb=64,512 under 1 MiB O_DIRECT
# reads moves the request-size histogram; --no-trace records none; a mix's
# requests land on the entries that issued them; 16 O_DIRECT writers into
# one sparse file hold the depth at 1, into 128 files they do not; a run
# as another user says so in one line and runs; the times sampled (1 in 16)
# while the counts are every request's; after a SIGKILL of jobmix
# none of its BPF programs is left (bpftool).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

needs "iotrace" losetup mkfs.ext4 truncate jq bpftool setpriv || exit 0
[ -e /dev/loop-control ] || { skip "iotrace: no loop device support"; exit 0; }
[ -r /sys/kernel/btf/vmlinux ] || { skip "iotrace: the kernel has no BTF"; exit 0; }

T=$(mktemp -d /tmp/jobmix-iotrace.XXXXXX)
M=$T/mnt R=$T/results DEV= NAME= BG= ORIG= SCHED=
cleanup() {
	[ -n "$BG" ] && kill -KILL $BG 2>/dev/null && wait $BG 2>/dev/null
	[ -n "$ORIG" ] && [ -n "$SCHED" ] && echo "$ORIG" >"$SCHED" 2>/dev/null
	[ -n "$NAME" ] && rm -f "$JM_STATE/sched/$NAME" "$JM_STATE/lock/$NAME"
	mountpoint -q "$M" && { umount "$M" || umount -l "$M"; }
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

mkdir -p "$M"
truncate -s 192M "$T/img"
if ! DEV=$(losetup --direct-io=on -f --show "$T/img" 2>/dev/null); then
	DEV=; skip "iotrace: losetup failed"; exit 0
fi
NAME=${DEV#/dev/}
if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" >/dev/null 2>&1 ||
   ! mount -o commit=300,noatime "$DEV" "$M"; then
	skip "iotrace: cannot make or mount ext4 on $DEV"; exit 0
fi
SCHED=/sys/block/$NAME/queue/scheduler
ORIG=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED")
chmod 755 "$T"
# both CMD1... -- CMD2...: true when both are
both() { local a=() ; while [ "$1" != -- ]; do a+=("$1"); shift; done; shift; "${a[@]}" && "$@"; }

# O_DIRECT random 4k reads and writes by 4 users, and 1 MiB O_DIRECT reads by 2
cat >"$T/rio.yaml" <<'YAML'
name: rio
files: {filesize: 10k, poolsize: 0, dirs: [./w]}
users: {start: 4, end: 4, jobs_per_user: 3, mode: linear}
sync: none
seed: 1
mix:
  - {job: fileio, name: rio, weight: 1, mode: rndrw, files: 4, total_size: 32m, block: 4k,
     ops: 300, flags: direct, shared: true}
YAML
cat >"$T/big.yaml" <<'YAML'
name: big
files: {filesize: 10k, poolsize: 0, dirs: [./w]}
users: {start: 2, end: 2, jobs_per_user: 2, mode: linear}
sync: none
seed: 1
mix:
  - {job: fileio, name: big, weight: 1, mode: rndrd, files: 1, total_size: 32m, block: 1m,
     ops: 24, flags: direct, shared: true}
YAML
chmod 644 "$T"/*.yaml

# 0. a jobmix built without the tracer says so: nothing here to test
out=$($JOBMIX run "$T/rio.yaml" -u 1 -j 1 -d "$M/probe" -o "$R/probe" 2>&1)
if grep -q "built without it" <<<"$out"; then skip "iotrace: jobmix built without the tracer (IOTRACE=0)"; exit 0; fi
check "a traced run says nothing about tracing" [ -z "$(grep -i 'tracing' <<<"$out")" ]
j=$(ls "$R"/probe/*/run.json)
check "a traced run: blk.requests and blk_hist for $NAME" jq -e --arg d "$NAME" '.schema == "jobmix-run/10" and (.points[0].devices[$d] | .blk.requests > 0 and (.blk_hist.write.dev.count > 0))' "$j"
# sampled by default: the histograms from 1 request in 16, blk.requests every request (as
# the device's own counters count them, flushes included, within 5%: a request issued
# before the window and completed in it is the device's, not the tracer's; the sample
# alone would be a sixteenth)
echo "# probe: $(jq -r --arg d "$NAME" '.points[0].devices[$d] | "blk.requests \(.blk.requests), sample \(.blk.sample); the device: \(.read_ios) reads, \(.write_ios) writes, \(.flushes) flushes"' "$j")"
check "a traced run: blk.sample 16, blk.requests the device's reads, writes and flushes (within 5%)" jq -e --arg d "$NAME" '.points[0].devices[$d] | (.read_ios + .write_ios + .flushes) as $n | .blk.sample == 16 and ((.blk.requests - $n) | fabs) <= 0.05 * $n + 2' "$j"
check "a traced run: the histograms hold a sample (fewer than the requests, some)" jq -e --arg d "$NAME" '.points[0].devices[$d] | ([.blk_hist[]?.size.count // 0] | add) as $n | $n > 0 and $n < .blk.requests' "$j"
check "a traced run: the time-weighted depth covers most of the window" jq -e --arg d "$NAME" '.points[0].devices[$d] | .blk.tdepth_p90 >= 1 and (.blk_hist.time_depth.count > 0.5e9 * .window_s) and (.blk_hist.time_depth.count <= 1.001e9 * .window_s)' "$j"

# 1. the scheduler A/B: insert-to-issue time counted under mq-deadline, bypassed under none
if grep -qw mq-deadline "$SCHED" && grep -qw none "$SCHED"; then
	$JOBMIX run "$T/rio.yaml" -d "$M/ab" -o "$R/ab" -s mq-deadline,none -q >"$T/out" 2>"$T/err"; rc=$?
	check "A/B: exit 0" [ $rc = 0 ]
	[ $rc = 0 ] || cat "$T/err"
	dl=$(ls "$R"/ab/*-rio-mq-deadline/run.json) no=$(ls "$R"/ab/*-rio-none/run.json)
	# sampled requests with a scheduler time, requests issued (all), bypassed (all);
	# device-time samples; the sampled requests (their sizes)
	fig() { jq -r --arg d "$NAME" '.points[0].devices[$d] | [([.blk_hist[]?.sched.count // 0] | add), .blk.requests, .blk.bypassed, ([.blk_hist[]?.dev.count // 0] | add), .blk.sched_p50_ms, .blk.dev_p50_ms, ([.blk_hist[]?.size.count // 0] | add)] | @tsv' "$1"; }
	read -r dls dlr dlb dld dlp dldp dln < <(fig "$dl")
	read -r nos nor nob nod nop nodp non < <(fig "$no")
	echo "# mq-deadline: $dls of $dln sampled requests ($dlr in all) timed in the scheduler (p50 $dlp ms), $dlb bypassed, $dld device times (p50 $dldp ms)"
	echo "# none:        $nos of $non sampled requests ($nor in all) timed in the scheduler (p50 $nop ms), $nob bypassed, $nod device times (p50 $nodp ms)"
	check "A/B: mq-deadline's scheduler-time histogram is filled (most sampled requests)" both [ "$dls" -gt 0 ] -- [ $((2 * dls)) -gt "$dln" ]
	check "A/B: none's differs: most requests bypass the scheduler" both [ $((2 * nob)) -gt "$nor" ] -- [ $((2 * nos)) -lt "$non" ]
	check "A/B: device time recorded for both" both [ "$dld" -gt 0 ] -- [ "$nod" -gt 0 ]
check "A/B: blk.dev_p50_ms for both" both [ "$dldp" != null ] -- [ "$nodp" != null ]
	check "A/B: report reads blk.sched_p50_ms per scheduler" bash -c "$JOBMIX report '$R/ab' --metric blk.sched_p50_ms --metric blk.$NAME.dev_p99_ms --by scheduler --format csv | grep -q mq-deadline"
	$JOBMIX plot "$R/ab" --hist --by scheduler --script >"$T/hist.gp" 2>"$T/err"; rc=$?
	check "plot --hist: a script with the four panels" both [ $rc = 0 ] -- bash -c "grep -c -e 'time in the IO scheduler' -e 'time in the device' -e 'request size at issue' -e 'requests in flight' '$T/hist.gp' | grep -qx 4"
	check "plot --hist: both arms drawn" both grep -q "title 'mq-deadline'" "$T/hist.gp" -- grep -q "title 'none'" "$T/hist.gp"
	# the second read comes from the results root's index (.jobmix-index.sqlite): the
	# histograms must survive it
	if command -v gnuplot >/dev/null; then
		check "plot --hist: a PNG, the runs read back from the index" bash -c "$JOBMIX plot '$R/ab' --hist --by scheduler -o '$T/hist.png' >/dev/null && [ -s '$T/hist.png' ]"
	fi
	check "A/B: scheduler restored" [ "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED")" = "$ORIG" ]
else
	skip "iotrace A/B: $NAME offers no mq-deadline and none"
fi

# 2. max_sectors_kb 64 vs 512 under 1 MiB O_DIRECT reads: the request sizes follow
$JOBMIX run "$T/big.yaml" -d "$M/big" -o "$R/big" -X queue.max_sectors_kb=64,512 -q >"$T/out" 2>"$T/err"; rc=$?
check "max_sectors_kb: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
k64=$(jq -r --arg d "$NAME" '.points[0].devices[$d].blk.req_kib_p50' "$(ls "$R"/big/*-big-64/run.json)")
k512=$(jq -r --arg d "$NAME" '.points[0].devices[$d].blk.req_kib_p50' "$(ls "$R"/big/*-big-512/run.json)")
top64=$(jq -r --arg d "$NAME" '.points[0].devices[$d].blk_hist.read.size.max' "$(ls "$R"/big/*-big-64/run.json)")
echo "# request size p50: $k64 KiB at max_sectors_kb=64, $k512 KiB at 512 (largest at 64: $top64 bytes)"
check "max_sectors_kb=64: no request above 64 KiB, the median 64" both [ "$top64" -le 65536 ] -- approx "$k64" 64 0.01
check "max_sectors_kb=512: the median request 512 KiB" approx "$k512" 512 0.01

# 3. --no-trace: no figures, no histograms
$JOBMIX run "$T/rio.yaml" -u 1 -j 1 -d "$M/nt" -o "$R/nt" --no-trace >"$T/out" 2>&1
check "--no-trace: blk null, no blk_hist" jq -e --arg d "$NAME" '.points[0].devices[$d] | .blk == null and (has("blk_hist") | not)' "$(ls "$R"/nt/*/run.json)"
$JOBMIX plot "$R/nt" --hist --script >/dev/null 2>"$T/err"; rc=$?
check "plot --hist of untraced runs: exit 2, says why" both [ $rc = 2 ] -- grep -q "no block-layer histograms" "$T/err"

# 4. not root: one line says so, the run as before
mkdir -p "$M/nb" "$R/nb" && chown nobody "$M/nb" "$R/nb"
setpriv --reuid=65534 --regid=65534 --clear-groups $JOBMIX run "$T/rio.yaml" -u 1 -j 1 -d "$M/nb/w" -o "$R/nb" >"$T/out" 2>&1; rc=$?
check "not root: exit 0" [ $rc = 0 ]
check "not root: one line says tracing is off" both [ "$(grep -c 'block tracing off: not root' "$T/out")" = 1 ] -- [ "$(grep -ci tracing "$T/out")" = 1 ]
check "not root: no figures" jq -e --arg d "$NAME" '.points[0].devices[$d].blk == null' "$(ls "$R"/nb/*/run.json)"

# 5. requests by mix entry: 4 KiB O_DIRECT writes, 64 KiB O_DIRECT reads and a
#    compute-only entry in one mix; each request on its entry, the compute
#    entry none (blk_entries; -v prints them)
cat >"$T/mixed.yaml" <<'YAML'
name: mixed
files: {filesize: 10k, poolsize: 0, dirs: [./w]}
users: {start: 2, end: 2, jobs_per_user: 12, mode: linear}
sync: none
seed: 1
mix:
  - {job: fileio, name: dwr, weight: 1, mode: rndwr, files: 2, total_size: 16m, block: 4k,
     ops: 200, flags: direct, shared: true}
  - {job: fileio, name: drd, weight: 1, mode: rndrd, files: 2, total_size: 16m, block: 64k,
     ops: 50, flags: direct, shared: true}
  - {job: add_int, name: cpu, weight: 1}
YAML
chmod 644 "$T/mixed.yaml"
# every request timed and counted on its entry (--trace-sample 1: the rows exact, not estimates)
$JOBMIX run "$T/mixed.yaml" -d "$M/mixed" -o "$R/mixed" -v --trace-sample 1 >"$T/out" 2>"$T/err"; rc=$?
check "by entry: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
j=$(ls "$R"/mixed/*/run.json)
# an entry's requests on the device: requests, reads, writes; its jobs' read and write calls
ent() { jq -r --arg d "$NAME" --arg e "$1" '.points[0] | [(.devices[$d].blk_entries[$e] | .requests, .reads, .writes), .jobs_by_kind[$e].rops // 0, .jobs_by_kind[$e].wops // 0] | @tsv' "$j"; }
read -r wq wr ww wro wwo < <(ent dwr)
read -r rq rr rw rro rwo < <(ent drd)
read -r cq _ _ _ _ < <(ent cpu)
oq=$(jq -r --arg d "$NAME" '.points[0].devices[$d].blk_entries.other.requests' "$j")
all=$(jq -r --arg d "$NAME" '.points[0].devices[$d].blk.requests' "$j")
echo "# dwr: $wq requests ($wr reads, $ww writes) for $wwo 4 KiB writes; drd: $rq ($rr reads, $rw writes) for $rro 64 KiB reads; cpu: $cq; other: $oq; all: $all"
check "by entry: the writer's requests are its writes, one a write call (within 2%)" both [ "$wr" = 0 ] -- approx "$ww" "$wwo" 0.02
check "by entry: the reader's requests are its reads, one a read call (within 2%)" both [ "$rw" = 0 ] -- approx "$rr" "$rro" 0.02
check "by entry: the compute entry has none" [ "$cq" = 0 ]
check "by entry: the rows add up to the device's requests" [ $((wq + rq + cq + oq)) = "$all" ]
check "by entry: -v prints a line per entry" [ "$(grep -cE '^ +entry (other|dwr|drd|cpu) +requests' "$T/out")" = 4 ]
# ... and users as threads of one process (one pid, a thread id each): each
# thread's requests on its own job's entry, not on the last thread's
$JOBMIX run "$T/mixed.yaml" -P users.as=threads -d "$M/mixedt" -o "$R/mixedt" -q --trace-sample 1 >"$T/out" 2>"$T/err"; rc=$?
check "by entry, users as threads: exit 0" [ $rc = 0 ]
j=$(ls "$R"/mixedt/*/run.json)
read -r wq wr ww wro wwo < <(ent dwr)
read -r rq rr rw rro rwo < <(ent drd)
echo "# threads: dwr: $wq requests ($wr reads, $ww writes) for $wwo writes; drd: $rq ($rr reads, $rw writes) for $rro reads"
own() { [ "$wr" = 0 ] && [ "$rw" = 0 ] && approx "$ww" "$wwo" 0.02 && approx "$rr" "$rro" 0.02; }
check "by entry, users as threads: the writer's writes and the reader's reads their own (within 2%)" own

# 5b. "one outstanding request" (the 2004 report): 16 users' random 4 KiB
#    O_DIRECT writes into holes (sparse: true) of one file against 128 files.
#    ext4 takes the inode lock exclusively for an allocating direct write, so
#    one file's writers queue behind each other: depth 1 at most issues; 128
#    files' writers allocate in parallel.  (Into written blocks ext4 and XFS
#    overwrite under a shared lock: no difference, so the files are sparse.)
for nf in 1 128; do
	cat >"$T/d$nf.yaml" <<YAML
name: depth$nf
files: {filesize: 10k, poolsize: 0, dirs: [./w]}
users: {start: 16, end: 16, jobs_per_user: 2, mode: linear}
sync: none
seed: 1
mix:
  - {job: fileio, name: dw, weight: 1, mode: rndwr, files: $nf, total_size: 32m, block: 4k,
     ops: 300, flags: direct, shared: true, sparse: true, fsync_every: 0}
YAML
	$JOBMIX run "$T/d$nf.yaml" -d "$M/d$nf" -o "$R/d$nf" -q >/dev/null 2>"$T/err"
done
dq() { jq -r --arg d "$NAME" ".points[0].devices[\$d].blk.$2 // empty" "$(ls "$R/d$1"/*/run.json 2>/dev/null | head -1)" 2>/dev/null; }
d1=$(dq 1 depth_p50) d1h=$(dq 1 depth_p90) d128=$(dq 128 depth_p50) d128h=$(dq 128 depth_p90)
echo "# depth at issue, p50/p90: 1 file $d1/$d1h, 128 files $d128/$d128h"
check "one file, 16 writers into holes: depth at issue p50 1 (one outstanding request)" [ "$d1" = 1 ]
check "128 files: the depth's p90 above one file's (${d128h:-?} > ${d1h:-?})" awk -v a="$d128h" -v b="$d1h" 'BEGIN { exit !(a != "" && b != "" && a + 0 > b + 0) }'

# 6. SIGKILL of jobmix mid-point: its programs go with it (their ids from its
#    descriptors' fdinfo; bpftool lists every program loaded on the machine)
ours() { sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$1"/fdinfo/* 2>/dev/null | sort -un; }
left() { bpftool -j prog show 2>/dev/null | jq -r '.[] | select((.name // "") | startswith("iot_")) | .id' | grep -xF -f <(printf '%s\n' $1); }
$JOBMIX run "$T/rio.yaml" -u 4 -j 1000 -d "$M/kill" -o "$R/kill" -q >/dev/null 2>&1 &
BG=$!
ids=
# eight programs (iotrace.bpf.c), loaded one by one at the run's start
for _ in $(seq 1 100); do ids=$(ours $BG); [ "$(echo $ids | wc -w)" -ge 8 ] && break; sleep 0.1; done
n=$(echo $ids | wc -w)
check "SIGKILL: jobmix's $n BPF programs loaded while it runs, bpftool lists them" both [ "$n" -ge 8 ] -- [ "$(left "$ids" | wc -l)" = "$n" ]
sleep 0.5
kill -KILL $BG; wait $BG 2>/dev/null; BG=
# its users die of PDEATHSIG; the programs go with the last descriptor
for _ in $(seq 1 100); do [ -z "$(left "$ids")" ] && break; sleep 0.1; done
check "SIGKILL: none of its programs left (bpftool prog show)" test -z "$(left "$ids")"
