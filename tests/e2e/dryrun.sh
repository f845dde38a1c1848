#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: `jobmix run --dry-run` prints the plan (arms, their order,
# rounds, user counts or the ramp, devices and the schedulers it would
# switch, outputs) and exits 0 without touching anything: no work dir, no
# results folder, no scheduler switched, no lock or record.  The A/B part
# needs root and a loop device (built here as tests/e2e/sched.sh does,
# always detached).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

T=$(mktemp -d /tmp/jobmix-dryrun.XXXXXX)
DEV= NAME=
cleanup() {
	mountpoint -q "$T/mnt" && { umount "$T/mnt" || umount -l "$T/mnt"; }
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# 1. a linear run: its users in order, its work dir and output, nothing made
out=$($JOBMIX run workloads/quick.yaml -m linear -u 1,2,4 -j 4 -d "$T/w" -o "$T/r" --dry-run 2>"$T/err"); rc=$?
check "linear: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
check "linear: says it is a dry run" grep -q '^jobmix run --dry-run: nothing created' <<<"$out"
check "linear: mode and jobs per user" grep -qx 'mode: *linear, 4 jobs per user' <<<"$out"
check "linear: the user counts in order" grep -qx 'users: *1,2,4 (ascending, 1 sample each)' <<<"$out"
check "linear: the work dir" grep -qx "work dir: *$T/w" <<<"$out"
check "linear: one output, no A/B" bash -c '[ "$(grep -c "^output:" <<<"$1")" = 1 ] && ! grep -q "^A/B:" <<<"$1"' _ "$out"
check "linear: output folder named" grep -qx "output: *$T/r/<stamp>-quick/run.json" <<<"$out"
check "linear: no work dir made" [ ! -e "$T/w" ]
check "linear: no results folder made" [ ! -e "$T/r" ]
out=$($JOBMIX run workloads/quick.yaml -m linear -u 1,2,4 --order descending -d "$T/w" -o "$T/r" --dry-run 2>&1)
check "linear: --order descending shown" grep -qx 'users: *1,2,4 (descending, 1 sample each)' <<<"$out"

# one limit of -X axes, the plan's (RUN_MAX_AXES): the option parser said 8
many=$(for k in a b c d e f g h i; do printf -- '-X %s=1,2 ' $k; done)
out=$($JOBMIX run workloads/quick.yaml $many --dry-run 2>&1); rc=$?
check "nine -X axes: exit 2, at most 6 ($out)" bash -c '[ $1 = 2 ] && grep -q -- "-X: at most 6 axes" <<<"$2"' _ $rc "$out"
# an -X is split once, on the command line: a bad one is refused before the
# workload is looked for (here there is none), naming the axis and its value
for x in 'fio.block=4k,,16k|-X fio.block: an empty value in '\''4k,,16k'\''' \
	 'sched=none,none|-X sched: value '\''none'\'' given twice' \
	 'fio.block=|-X '\''fio.block='\'': give KEY=VALUE1,VALUE2,...'; do
	out=$($JOBMIX run "$T/nosuch.yaml" -X "${x%%|*}" -d "$T/w" -o "$T/r" 2>&1); rc=$?
	check "-X ${x%%|*}: exit 2, '${x#*|}' ($out)" bash -c '[ $1 = 2 ] && [ "$2" = "jobmix run: $3" ]' _ $rc "$out" "${x#*|}"
done
check "bad -X: no work dir, no results folder made" [ ! -e "$T/w" -a ! -e "$T/r" ]
# the schedulers given twice, by both names: refused, never the first taken silently
if [ "$(id -u)" != 0 ]; then
	skip "-X sched=none -X scheduler=mq-deadline: not root (switching schedulers is refused first)"
else
	out=$($JOBMIX run workloads/quick.yaml -X sched=none -X scheduler=mq-deadline -d "$T/w" -o "$T/r" --dry-run 2>&1); rc=$?
	check "-X sched=none -X scheduler=mq-deadline: exit 2, named ($out)" \
		bash -c '[ $1 = 2 ] && [ "$2" = "jobmix run: -X sched and -X scheduler: give the schedulers once" ]' _ $rc "$out"
fi

# 2. an adaptive ramp: its start and budget
out=$($JOBMIX run workloads/quick.yaml -m crossover -u 2-64 -d "$T/w" -o "$T/r" --dry-run 2>&1); rc=$?
check "ramp: exit 0" [ $rc = 0 ]
check "ramp: start and most users" grep -qx 'ramp: *from 2 users, at most 64' <<<"$out"
check "ramp: no work dir made" [ ! -e "$T/w" ]
check "ramp: no results folder made" [ ! -e "$T/r" ]

# 3. what a real run would refuse, a dry run refuses too (exit 2, nothing made)
$JOBMIX run workloads/quick.yaml -u 0 -d "$T/w" -o "$T/r" --dry-run >/dev/null 2>&1; rc=$?
check "refusal: exit 2" [ $rc = 2 ]
check "refusal: no work dir made" [ ! -e "$T/w" ]
check "refusal: no results folder made" [ ! -e "$T/r" ]

# 4. an A/B on a loop device: arms in order per round, the switch named, nothing switched
if [ "$(id -u)" != 0 ]; then skip "dry-run A/B: not root"; echo "dryrun: done"; exit 0; fi
for t in losetup mkfs.ext4 truncate; do
	command -v $t >/dev/null || { skip "dry-run A/B: no $t"; exit 0; }
done
[ -e /dev/loop-control ] || { skip "dry-run A/B: no loop device support"; exit 0; }
mkdir -p "$T/mnt"
truncate -s 64M "$T/img"
if ! DEV=$(losetup -f --show "$T/img" 2>/dev/null); then
	DEV=; skip "dry-run A/B: losetup failed"; exit 0
fi
NAME=${DEV#/dev/}
if ! mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 || ! mount -o noatime "$DEV" "$T/mnt"; then
	skip "dry-run A/B: cannot make or mount ext4 on $DEV"; exit 0
fi
SCHED=/sys/block/$NAME/queue/scheduler
if ! grep -qw mq-deadline "$SCHED" || ! grep -qw none "$SCHED"; then
	skip "dry-run A/B: $NAME lacks mq-deadline or none"; exit 0
fi
before=$(cat "$SCHED")
out=$($JOBMIX run workloads/quick.yaml -u 1,2 -j 4 -d "$T/mnt/w" -o "$T/r" -s mq-deadline,none --rounds 2 --dry-run 2>"$T/err"); rc=$?
check "A/B: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
check "A/B: the device" grep -q "^device: *$NAME (scheduler now " <<<"$out"
check "A/B: schedulers, rounds, order" grep -qx 'A/B: *2 schedulers, 2 rounds, fair order' <<<"$out"
check "A/B: what is switched" grep -q "^switched: *$NAME: mq-deadline, none; back to " <<<"$out"
check "A/B: round 1 order" grep -q '^round 1: *mq-deadline, none' <<<"$out"
check "A/B: round 2 reversed" grep -q '^round 2: *none, mq-deadline' <<<"$out"
check "A/B: the index" grep -qx "index: *$T/r/<stamp>-quick-ab/index.json" <<<"$out"
check "A/B: four outputs" [ "$(grep -c '^output:' <<<"$out")" = 4 ]
check "A/B: an arm's output" grep -qx "output: *$T/r/<stamp>-quick-none-r2/run.json" <<<"$out"
check "A/B: scheduler untouched" [ "$(cat "$SCHED")" = "$before" ]
check "A/B: no lock" [ ! -e $JM_STATE/lock/$NAME ]
check "A/B: no record" [ ! -e $JM_STATE/sched/$NAME ]
check "A/B: no work dir" [ ! -e "$T/mnt/w" ]
check "A/B: no results folder" [ ! -e "$T/r" ]
echo "dryrun: done"
