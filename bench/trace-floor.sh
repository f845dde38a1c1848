#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The floor under the block tracer's cost (issue 46): what a tp_btf
# program call costs before its body, and what a body like the tracer's
# unsampled issue and completion adds.  bench/trace-floor.bpf.c's programs
# on raw_syscalls' sys_enter and sys_exit, fired by getppid(2) in a tight
# loop; bench/trace-floor.c (built here, into a temporary folder, with
# libbpf) attaches each set of them in turn, ROUNDS rounds (the order
# rotated each round), CALLS syscalls a measurement in THREADS threads
# (one a CPU from the last; 2: the request's element crossing between
# CPUs as it does between an issuing and a completing CPU), and prints
# the ns a syscall per set and the paired differences with their 95%
# intervals; then each program's own time a call with the kernel's
# run-time stats on (a descriptor held by the loader: the sysctl
# kernel.bpf_stats_enabled is not touched).
#
#   ROUNDS=10 CALLS=2000000 THREADS="1 2" bench/trace-floor.sh
#
# Root; needs clang, bpftool, libbpf (make deps).  Run it on idle CPUs:
# it prints the load average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-10}
CALLS=${CALLS:-2000000}
THREADS=${THREADS:-"1 2"}
CC=${CC:-cc}
[ "$(id -u)" = 0 ] || { echo "bench/trace-floor.sh: needs root (BPF programs)" >&2; exit 2; }
T=$(mktemp -d /tmp/jobmix-trace-floor.XXXXXX)
trap 'rm -rf "$T"' EXIT
bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$T/vmlinux.h"
clang -g -O2 -target bpf -mcpu=v3 -Wall -Werror -I"$T" -c bench/trace-floor.bpf.c -o "$T/floor.bpf.o"
"$CC" -std=gnu11 -Wall -Wextra -Werror -O2 bench/trace-floor.c -o "$T/floor" \
	$(pkg-config --cflags --libs libbpf) -lpthread -lm
echo "# $(uname -r), $(nproc) CPUs, bpf_stats_enabled $(cat /proc/sys/kernel/bpf_stats_enabled)," \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) clock;" \
	"load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for th in $THREADS; do
	"$T/floor" "$T/floor.bpf.o" "$ROUNDS" "$CALLS" "$th"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
