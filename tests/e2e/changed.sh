#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, as root, on a loop device this script makes and always
# detaches: compare's "what else changed".  Random 16 KiB buffered reads of
# cold shared files, the baseline with read_ahead_kb 0, the candidate with
# 128 (the 2004 report's "page too many": the device sees larger requests),
# three runs a side, alternated.  The request size is among the first
# three of what else changed, dev.kib_req listed (as root with BTF the
# block tracer sees the same change, blk.req_kib_p50, and what larger
# requests cost in the device, blk.dev_p50_ms, often the largest change) (beside a JPM verdict when there is one, always with
# --evidence); two sides of the same setting (A/A) list nothing; a side
# with one run says untested.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "changed: not root"; exit 0; fi
for t in losetup mkfs.ext4 truncate jq; do
	command -v $t >/dev/null || { skip "changed: no $t"; exit 0; }
done
T=$(mktemp -d /tmp/jobmix-changed.XXXXXX)
M=$T/mnt DEV= RA= RA0=
cleanup() {
	[ -n "$RA0" ] && echo "$RA0" >"$RA" 2>/dev/null
	mountpoint -q "$M" && { umount "$M" || umount -l "$M"; }
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$M"
truncate -s 200M "$T/img"
DEV=$(losetup -f --show "$T/img" 2>/dev/null) || { DEV=; skip "changed: losetup failed"; exit 0; }
if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" >/dev/null 2>&1 ||
   ! mount "$DEV" "$M"; then
	skip "changed: cannot make or mount ext4 on $DEV"; exit 0
fi
RA=/sys/block/${DEV#/dev/}/queue/read_ahead_kb
RA0=$(cat "$RA")
echo none >/sys/block/${DEV#/dev/}/queue/scheduler 2>/dev/null
one() { # one RA OUTDIR
	echo "$1" >"$RA"
	$JOBMIX run randio -d "$M/w" -o "$2" -P rio.mode=rndrd -P rio.block=16k -P users.start=2 \
		-P users.end=2 --drop-caches -q >/dev/null 2>>"$T/err"
}
for i in 1 2 3; do one 0 "$T/base"; one 128 "$T/cand"; one 0 "$T/base2"; done
echo "$RA0" >"$RA"
check "nine runs made" [ "$(ls -d "$T"/base/* "$T"/cand/* "$T"/base2/* | wc -l)" = 9 ]
kib() { jq -s "[.[].points[0].devices[\"${DEV#/dev/}\"].avg_req_kib] | add / length" "$T"/$1/*/run.json; }
check "the device saw larger requests under readahead ($(kib base) -> $(kib cand) KiB)" \
	awk -v a="$(kib base)" -v b="$(kib cand)" 'BEGIN { exit !(b > 1.5 * a) }'

$JOBMIX compare --wide --evidence "$T/base" -- "$T/cand" >"$T/out" 2>&1; rc=$?
sed 's/^/# /' "$T/out" | head -12
check "readahead 0 vs 128 --evidence: what else changed, beyond its noise" grep -q "what else changed (p < 0.05 after Holm" "$T/out"
# the request size among the first three: /sys/block's mean or the tracer's median
first_size() { grep -A3 'what else changed' "$1" | tail -n +2 | grep -qE '^    (dev\.kib_req|blk\.req_kib_p50) \+' && grep -q '^    dev\.kib_req +' "$1"; }
check "... the request size among the first three, dev.kib_req listed" first_size "$T/out"
# without --evidence the list stands beside a worse or better verdict, and only there
$JOBMIX compare --wide "$T/base" -- "$T/cand" >"$T/out2" 2>&1
if grep -qE "^peak .* (better|WORSE)$" "$T/out2"; then
	check "a verdict on JPM: what else changed beside it, the request size near the top" first_size "$T/out2"
else
	check "no verdict on JPM this time: nothing listed beside it" bash -c "! grep -q 'what else changed' '$T/out2'"
fi
$JOBMIX compare -f json "$T/base" -- "$T/cand" >"$T/c.json" 2>/dev/null
check "json: the group's evidence names dev.kib_req, its change and Holm p" \
	jq -e '[.evidence[].changed[] | select(.metric == "dev.kib_req" and .change > 0.5 and .p < 0.05)] | length == 1' "$T/c.json"

# A/A: the same setting on both sides
$JOBMIX compare --wide --evidence "$T/base" -- "$T/base2" >"$T/aa" 2>&1; rc=$?
sed 's/^/# /' "$T/aa" | head -6
check "A/A --evidence: dev.kib_req not among what changed" bash -c "! grep -qE '    (dev\.kib_req|blk\.req_kib_p50)' '$T/aa'"
check "A/A --evidence: what else changed is said" grep -q "what else changed" "$T/aa"
$JOBMIX compare --wide "$T/base" -- "$T/base2" >"$T/aa2" 2>&1
# (a chance verdict on A/A is the verdicts' false-alarm rate, bench/aa.sh's; the list follows it)
if grep -qE " (better|WORSE)$" "$T/aa2"; then
	check "A/A with a chance verdict: what else changed beside it, without dev.kib_req" bash -c "grep -q 'what else changed' '$T/aa2' && ! grep -qE '    (dev\.kib_req|blk\.req_kib_p50)' '$T/aa2'"
else
	check "A/A without --evidence and no verdict: nothing listed" bash -c "! grep -q 'what else changed' '$T/aa2'"
fi
# one run a side: no measured noise, no list
b1=$(ls -d "$T"/base/* | head -1) c1=$(ls -d "$T"/cand/* | head -1)
$JOBMIX compare --wide --evidence "$b1" -- "$c1" >"$T/one" 2>&1
check "one run a side: what else changed is untested" grep -q "what else changed: untested" "$T/one"
