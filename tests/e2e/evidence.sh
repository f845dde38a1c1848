#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: a run records the machine context its numbers depend on.
# Under `taskset -c N` it records one allowed CPU (and which); the CPU model,
# THP mode, memory, kernel command line, hypervisor and build are the
# machine's; a strictatime mount is named so (the kernel lists it as "rw").
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-evidence.XXXXXX)
MNT=
trap '[ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"' EXIT
W=tests/data/e2e/cpu.yaml
ctx() { jq -r ".env.context.$1" "$T"/$2/*/run.json; }

cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
taskset -c "$cpu" $JOBMIX run "$W" -u 1 -j 2 -d "$T/w" -o "$T/pinned" -q >/dev/null 2>"$T/err"
check "a run under taskset -c $cpu completes" [ -f "$(ls "$T"/pinned/*/run.json 2>/dev/null | head -1)" ]
check "... records one allowed CPU" [ "$(ctx cpus_allowed pinned)" = 1 ]
check "... and which: $cpu" [ "$(ctx cpus_allowed_list pinned)" = "$cpu" ]
check "... and the CPUs online beside it" [ "$(ctx cpus_online pinned)" = "$(getconf _NPROCESSORS_ONLN)" ]
$JOBMIX run "$W" -u 1 -j 2 -d "$T/w" -o "$T/free" -q >/dev/null 2>>"$T/err"
check "unpinned: every CPU this shell may use" [ "$(ctx cpus_allowed free)" = "$(nproc)" ]
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
check "THP mode as the kernel shows it (${thp:-none})" [ "$(ctx thp free)" = "${thp:-null}" ]
check "the kernel command line" [ "$(ctx cmdline free)" = "$(cat /proc/cmdline)" ]
check "memory and swap from the kernel" [ "$(ctx swap_bytes free)" = "$(awk '/^SwapTotal/ { print $2 * 1024 }' /proc/meminfo)" ]
check "a hypervisor name or none" bash -c "[ -n \"\$(jq -r .env.context.virt '$T'/free/*/run.json)\" ]"
check "the build's compiler and flags" bash -c "jq -r .env.context.build '$T'/free/*/run.json | grep -q -- -O"

if [ "$(id -u)" = 0 ]; then
	MNT=$T/strict
	mkdir -p "$MNT"
	if mount -t tmpfs -o strictatime,size=64m jobmix-e2e "$MNT" 2>/dev/null; then
		$JOBMIX run "$W" -u 1 -j 2 -d "$MNT/w" -o "$T/strict-runs" -q >/dev/null 2>>"$T/err"
		opts=$(jq -r .env.mount_options "$T"/strict-runs/*/run.json)
		check "a strictatime mount is recorded as such ($opts)" bash -c "[[ ,$opts, == *,strictatime,* ]]"
		$JOBMIX run "$W" -u 1 -j 2 -d "$T/w" -o "$T/rel" -q >/dev/null 2>>"$T/err"
		opts=$(jq -r .env.mount_options "$T"/rel/*/run.json)
		check "a relatime mount is not ($opts)" bash -c "[[ ,$opts, != *,strictatime,* ]]"
	else
		skip "cannot mount a tmpfs here"
	fi
else
	skip "the strictatime mount needs root"
fi
# per point: the machine over the timed window; CPU hogs on every CPU make it noisy
HOGS=
for c in $(seq "$(nproc)"); do sh -c 'while :; do :; done' & HOGS="$HOGS $!"; done
sleep 0.3
$JOBMIX run "$W" -u 1 -j 20 --no-warmup -d "$T/w" -o "$T/hog" -v >"$T/hog.out" 2>>"$T/err"
# --require-quiet beside the hogs: it waits its 2 s, says so, measures anyway
$JOBMIX run "$W" -u 1 -j 2 --no-warmup --require-quiet 2s -d "$T/w" -o "$T/rq" >"$T/rq.out" 2>&1
# -r auto beside the hogs: the noisy point is measured again
$JOBMIX run "$W" -u 1 -j 2 --no-warmup -r auto -d "$T/w" -o "$T/ra" >"$T/ra.out" 2>&1
kill $HOGS; wait $HOGS 2>/dev/null
RA=$(ls "$T"/ra/*/run.json | head -1)
check "-r auto beside hogs: a noisy point measured again ($(jq -c '[.points[] | .machine.noisy]' "$RA"))" \
	bash -c "jq -e '[.points[] | select(.users == 1)] | length >= 2 and .[0].machine.noisy == true' '$RA' >/dev/null && grep -q 'noisy (other work took .*): measured again (-r auto)' '$T/ra.out'"
RQ=$(ls "$T"/rq/*/run.json | head -1)
check "--require-quiet 2s beside hogs: no quiet second, waited 2 s ($(jq .points[0].machine.quiet_wait_s "$RQ"))" \
	jq -e '.points[0].machine | .quiet == false and .quiet_wait_s >= 2 and .quiet_wait_s < 4' "$RQ"
check "... said so, and the point was measured" bash -c "grep -q 'no quiet second in 2 s' '$T/rq.out' && jq -e '.points[0].jpm > 0' '$RQ' >/dev/null"
$JOBMIX run "$W" -u 1 -j 2 --no-warmup --require-quiet 3s -d "$T/w" -o "$T/rq2" -q >/dev/null 2>&1
RQ=$(ls "$T"/rq2/*/run.json | head -1)
check "--require-quiet without hogs: recorded, at most its 3 s (a shared machine may stay busy)" \
	jq -e '.points[0].machine | (.quiet == true or .quiet == false) and .quiet_wait_s >= 0.9 and .quiet_wait_s < 5' "$RQ"
$JOBMIX run "$W" -u 1 -j 2 --no-warmup -d "$T/w" -o "$T/rq3" -q >/dev/null 2>&1
check "without it: not asked (null)" jq -e '.points[0].machine | .quiet == null and .quiet_wait_s == null' "$(ls "$T"/rq3/*/run.json | head -1)"
P=$(ls "$T"/hog/*/run.json | head -1)
m() { jq -r ".points[0].machine.$1" "$P"; }
check "beside a hog on every CPU: the point is noisy" [ "$(m noisy)" = true ]
check "... other work took at least 40% of the CPUs ($(m other_pct)%)" awk -v v="$(m other_pct)" 'BEGIN { exit !(v >= 40) }'
check "... other_pct is busy time not the users' plus steal, over the window's capacity" \
	jq -e --argjson n "$(getconf _NPROCESSORS_ONLN)" '.points[0] | .machine as $m |
		((([($m.busy_s - $m.steal_s - .user_cpu_s - .sys_cpu_s), 0] | max) + $m.steal_s) / ($m.window_s * $n) * 100) as $want |
		(([$want, 100] | min) - $m.other_pct | fabs) < 0.01' "$P"
if [ -r /proc/pressure/cpu ]; then
	check "... PSI cpu 'some' shows the stall ($(m psi_cpu_some)%)" awk -v v="$(m psi_cpu_some)" 'BEGIN { exit !(v > 0) }'
else
	skip "no /proc/pressure: PSI not recorded"
fi
check "... the window is the point's: within its elapsed time and 50 ms" jq -e '.points[0] | (.machine.window_s - .elapsed_s | fabs) < 0.05' "$P"
check "... the CPU states add up to the window's capacity (ticks: within 10%)" jq -e --argjson n "$(getconf _NPROCESSORS_ONLN)" '.points[0].machine | (.user_s + .nice_s + .system_s + .idle_s + .iowait_s + .irq_s + .softirq_s + .steal_s) / (.window_s * $n) | . > 0.5 and . < 1.5' "$P"
check "... and the run says so (noisy line)" grep -q 'noisy: other work took' "$T/hog.out"
check "-v prints the machine's counters" grep -q '^        machine  other' "$T/hog.out"
v=$($JOBMIX report "$T/hog" -m machine.other_pct -f csv 2>/dev/null | awk -F, 'NR == 2 { print $6 }')
check "report -m machine.other_pct prints the recorded share ($v)" approx "$v" "$(m other_pct)" 0.001
v=$($JOBMIX report "$T/hog" -m psi.cpu.some -f csv 2>/dev/null | awk -F, 'NR == 2 { print $6 }')
if [ -r /proc/pressure/cpu ]; then check "report -m psi.cpu.some likewise ($v)" approx "$v" "$(m psi_cpu_some)" 0.001; fi

# each entry's latency histogram, mergeable: the layout named, every job in a bucket
j=$(ls "$T"/free/*/run.json | head -1)
check "run.json: every entry's latency histogram, its layout named" \
	jq -e '[.points[].jobs_by_kind[] | .hist.layout == "ns-log2-8"] | length > 0 and all' "$j"
check "... its buckets add up to its count, which is the entry's runs" \
	jq -e '[.points[].jobs_by_kind[] | (.hist.buckets | map(.[1]) | add) == .hist.count and .hist.count == .runs] | all' "$j"
check "... and its min and max are the recorded extremes" \
	jq -e '[.points[].jobs_by_kind[] | (.hist.max_ns / 1e6 - .max_ms | fabs) < 1e-6 and .hist.min_ns <= .hist.max_ns] | all' "$j"

[ -s "$T/err" ] && sed 's/^/# /' "$T/err" | head -5
true
