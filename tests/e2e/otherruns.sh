#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: the nightly names other runs' locks at most once, and only
# where they touch this run's devices.  Two loop devices of our own: the
# nightly works on A (an ext4 on it, mounted here); another "run" (flock,
# as jobmix holds a device) holds A's lock and B's.  Three runs of one
# workload: the line about A once, none about B.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
needs otherruns losetup mkfs.ext4 truncate flock mount || exit 0
T=$(mktemp -d /tmp/jobmix-e2e-otherruns.XXXXXX)
DA= DB= HOLD=
cleanup() {
	[ -n "$HOLD" ] && kill "$HOLD" 2>/dev/null && wait "$HOLD" 2>/dev/null
	mountpoint -q "$T/mA" && umount "$T/mA"
	[ -n "$DA" ] && losetup -d "$DA"
	[ -n "$DB" ] && losetup -d "$DB"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
truncate -s 32M "$T/a.img" "$T/b.img"
mkfs.ext4 -q -F "$T/a.img" >/dev/null 2>&1 || { skip "otherruns: mkfs.ext4 failed"; exit 0; }
DA=$(losetup -f --show "$T/a.img" 2>/dev/null) || { DA=; skip "otherruns: losetup failed"; exit 0; }
DB=$(losetup -f --show "$T/b.img" 2>/dev/null) || { DB=; skip "otherruns: losetup failed"; exit 0; }
A=${DA#/dev/} B=${DB#/dev/}
mkdir -p "$T/mA" && mount "$DA" "$T/mA" || { skip "otherruns: cannot mount $DA"; exit 0; }
# another run holding both devices, as jobmix holds one: its pid and what it does in the lock file
mkdir -p -m 0700 "$JM_STATE/lock" "$JM_STATE/sched"
for d in $A $B; do printf '4242\nrun other.yaml\n' >"$JM_STATE/lock/$d"; chmod 600 "$JM_STATE/lock/$d"; done
flock -x "$JM_STATE/lock/$A" flock -x "$JM_STATE/lock/$B" sleep 300 & HOLD=$!
for _ in $(seq 1 100); do ! flock -n "$JM_STATE/lock/$B" true 2>/dev/null && break; sleep 0.05; done
check "another run holds $A's and $B's locks" bash -c "! flock -n '$JM_STATE/lock/$A' true && ! flock -n '$JM_STATE/lock/$B' true"

NIGHTLY_DATE=n1 tools/nightly.sh -w tests/data/e2e/cpu.yaml -r 3 -o "$T/root" -- -u 1 -j 4 --no-warmup \
	-d "$T/mA/w" >"$T/out" 2>&1
rc=$?
grep -i "in use\|lock" "$T/out" | sed 's/^/# /'
check "the nightly ran its three runs (exit $rc)" bash -c "[ $rc = 0 ] && [ \$(find '$T/root/n1' -name run.json | wc -l) = 3 ]"
na=$(grep -c "$A is in use by another jobmix run, pid 4242" "$T/out")
check "the lock on its own device $A said once in three runs ($na)" [ "$na" = 1 ]
check "... not the lock on $B, a device it never touched" bash -c "! grep -q '$B' '$T/out'"
check "... the last line still the closing line" bash -c "tail -1 '$T/out' | grep -qE '^nightly n1: .*: exit $rc\$'"
