#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The side-by-side benchmarks refuse to run without what they compare against:
# a clear message and exit 2 (they are not run here: they take minutes).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
out=$(REAIM= bench/vs-reaim.sh 2>&1); rc=$?
check "vs-reaim without REAIM: exit 2" [ $rc = 2 ]
check "vs-reaim without REAIM: says to set REAIM" grep -q "set REAIM=/path/to/reaim" <<<"$out"
out=$(REAIM=/nonexistent/reaim bench/vs-reaim.sh 2>&1); rc=$?
check "vs-reaim with a missing binary: exit 2" [ $rc = 2 ]
check "vs-reaim with a missing binary: names it" grep -q "/nonexistent/reaim is not an executable" <<<"$out"
out=$(SYSBENCH=/nonexistent/sysbench bench/vs-sysbench.sh 2>&1); rc=$?
check "vs-sysbench without sysbench: exit 2" [ $rc = 2 ]
check "vs-sysbench without sysbench: says how to install it" grep -q "apt-get install sysbench" <<<"$out"
for f in bench/*.sh; do
	check "$f: bash syntax" bash -n "$f"
done
