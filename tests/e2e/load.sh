#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, load: a ramp to 2,000 users on a small mix (CPU, files, pipes,
# SysV IPC): no failed point; no process, IPC object or descriptor left
# behind; the start barrier's release spread recorded per point, and under
# 10 ms at 2,000 users when the machine is not busy with other work.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-load.XXXXXX)
BG=
trap '[ -n "$BG" ] && kill -KILL $BG 2>/dev/null; rm -rf "$T"' EXIT
W=$T/work
mkdir -p "$W"
ncpu=$(nproc)
ipc_keys() { ipcs -"$1" | awk '$1 ~ /^0x/ { print $1 }' | sort; }
sem0=$(ipc_keys s); shm0=$(ipc_keys m)

load1=$(cut -d' ' -f1 /proc/loadavg)
$JOBMIX run tests/data/good/many.yaml -u 500,1000,2000 -d "$W" -o "$T/r" -q >/dev/null 2>"$T/err" &
BG=$!
# the parent's descriptors, sampled while it runs (a leak per point or per user would grow them)
: >"$T/fds"
while kill -0 $BG 2>/dev/null; do
	n=$(ls /proc/$BG/fd 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] && echo "$n" >>"$T/fds"
	sleep 0.2
done
wait $BG; rc=$?; BG=
f=$(ls "$T"/r/*/run.json 2>/dev/null | head -1)
check "2,000 users: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
check "2,000 users: 500, 1000, 2000 measured, none failed" jq -e '[.points[] | select(.failed | not) | .users] == [500, 1000, 2000]' "$f"
check "2,000 users: every user's jobs counted" jq -e 'all(.points[]; .jobs == .users * .jobs_per_user and .failed_users == 0 and .stuck_users == 0)' "$f"
check "2,000 users: the release spread is recorded for every point" jq -e 'all(.points[]; (.release_spread_ms | type) == "number" and .release_spread_ms >= 0)' "$f"
spread=$(jq '.points[-1].release_spread_ms' "$f")
echo "# release spread (ms) by users: $(jq -c '[.points[] | [.users, .release_spread_ms]]' "$f"); load average before: $load1"
if awk -v l="$load1" -v c="$ncpu" 'BEGIN { exit !(l <= 2 * c) }'; then
	check "2,000 users: release spread ${spread} ms < 10 ms" awk -v s="$spread" 'BEGIN { exit !(s < 10) }'
else
	skip "2,000 users: release spread ${spread} ms not judged: load average $load1 on $ncpu CPUs (other work competes for the CPUs)"
fi
sleep 0.5
check "2,000 users: no process of the run left" [ -z "$(pgrep -f -- "-d $W")" ]
check "2,000 users: no semaphore set left" [ "$(ipc_keys s | comm -13 <(echo "$sem0") -)" = "" ]
check "2,000 users: no shared memory segment left" [ "$(ipc_keys m | comm -13 <(echo "$shm0") -)" = "" ]
lo=$(sort -n "$T/fds" | head -1); hi=$(sort -n "$T/fds" | tail -1)
check "2,000 users: the parent's descriptors stay bounded (${lo:-?}-${hi:-?} over $(wc -l <"$T/fds") samples)" bash -c "[ -n '$lo' ] && [ $(( ${hi:-0} - ${lo:-0} )) -le 16 ]"
check "2,000 users: work area empty" empty_dir "$W"
