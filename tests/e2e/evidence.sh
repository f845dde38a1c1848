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
[ -s "$T/err" ] && sed 's/^/# /' "$T/err" | head -5
true
