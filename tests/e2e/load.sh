#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, load: a ramp to 2,000 users on a small mix (CPU, files, pipes,
# SysV IPC): no failed point; no process, IPC object or descriptor left
# behind; the start barrier's release spread recorded per point, and at
# 2,000 users, when the CPUs are otherwise idle, no more than twice the
# ideal's (bench/barrier.c: processes that do nothing but the barrier,
# released right after on this machine).
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

# How idle the CPUs are over a second before the run (the load average
# lags by minutes and still counts the e2e scripts that ran before this one).
cpu_idle_pct() {
	local a b
	a=($(head -1 /proc/stat)); sleep 1; b=($(head -1 /proc/stat))
	local tot=0 i
	for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
	echo $(( 100 * ((b[4] - a[4]) + (b[5] - a[5])) / (tot > 0 ? tot : 1) ))
}
idle=$(cpu_idle_pct)
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
idle_after=$(cpu_idle_pct)
ideal=
if cc -std=c11 -O2 bench/barrier.c -o "$T/ideal" 2>"$T/cc.err"; then
	ideal=$("$T/ideal" 2000 | cut -d' ' -f1)
fi
echo "# release spread (ms) by users: $(jq -c '[.points[] | [.users, .release_spread_ms]]' "$f"); the ideal's at 2000: ${ideal:-not measured}; CPUs idle before: $idle%, after: $idle_after%"
if [ -n "${JOBMIX_SANITIZED:-}" ]; then
	# ASan's users fault in shadow memory as they wake: on a PVM guest
	# (CI) 805 ms against the plain ideal's 325 ms, on Firecracker 14 ms
	# against 18 ms; the plain build's run of this script judges the spread
	skip "2,000 users: release spread ${spread} ms not judged: a sanitizer build (make check-san); the plain build's run judges it"
elif [ -z "$ideal" ]; then
	skip "2,000 users: release spread ${spread} ms not judged: the ideal barrier did not build ($(head -1 "$T/cc.err"))"
elif [ "$idle" -ge 80 ] && [ "$idle_after" -ge 80 ]; then
	# bench/barrier.sh here (2 vCPUs): jobmix 1.04-1.09 x the ideal at
	# 1,000 and 2,000 users (noise 7-13%), 285 ms against 263 ms at 2,000:
	# the spread is the machine's cost of running 2,000 processes once
	check "2,000 users: release spread ${spread} ms <= 2 x the ideal's ${ideal} ms + 5 ms" \
		awk -v s="$spread" -v i="$ideal" 'BEGIN { exit !(s <= 2 * i + 5) }'
else
	skip "2,000 users: release spread ${spread} ms not judged: the $ncpu CPUs were busy with other work (idle $idle% before, $idle_after% after)"
fi
sleep 0.5
check "2,000 users: no process of the run left" [ -z "$(pgrep -f -- "-d $W")" ]
check "2,000 users: no semaphore set left" [ "$(ipc_keys s | comm -13 <(echo "$sem0") -)" = "" ]
check "2,000 users: no shared memory segment left" [ "$(ipc_keys m | comm -13 <(echo "$shm0") -)" = "" ]
# what the run opens once as it starts (the block tracer's programs, maps
# and links: about 25 as root) is not growth: the bound is on the rise past
# the first third of the samples (the 500-user point), where a leak per
# point or per user would show
ns=$(wc -l <"$T/fds"); first=$(( (ns + 2) / 3 ))
lo=$(head -n "$first" "$T/fds" | sort -n | tail -1); hi=$(sort -n "$T/fds" | tail -1)
check "2,000 users: the parent's descriptors stay bounded (at most ${lo:-?} in the first $first samples, ${hi:-?} at most over $ns; from $(head -1 "$T/fds"))" \
	bash -c "[ -n '$lo' ] && [ $(( ${hi:-0} - ${lo:-0} )) -le 16 ]"
check "2,000 users: work area empty" empty_dir "$W"

# Thread users share the shared files' descriptors (one set per process, as
# sysbench's threads): 64 threads x 32 shared files fit in 1,024 descriptors
# (before: 64 x (32 + 8) = 2,560 needed, refused).
if command -v prlimit >/dev/null; then
	cat >"$T/shfd.yaml" <<-YAML
	name: shfd
	files: {filesize: 8k, poolsize: 0, dirs: ["$W"]}
	users: {start: 64, end: 64, jobs_per_user: 2, mode: linear, as: threads}
	sync: none
	seed: 3
	mix:
	  - {job: fileio, mode: rndrw, files: 32, file_size: 16k, block: 4k, ops: 16, shared: true}
	YAML
	prlimit --nofile=1024:1024 $JOBMIX run "$T/shfd.yaml" --no-warmup -d "$W" -o "$T/shr" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls "$T"/shr/*/run.json 2>/dev/null | head -1)
	check "64 threads x 32 shared files run within 1,024 descriptors" bash -c "[ $rc = 0 ] && jq -e '.points[0].failed == false and .points[0].jobs_by_kind.fileio.rops > 0' '$f' >/dev/null"
	[ $rc = 0 ] || cat "$T/err"
	check "64 threads x 32 shared files: work area empty" empty_dir "$W"
else
	skip "shared descriptors: prlimit (util-linux) not found"
fi
