#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: the smaller items of issue 43, each as a user meets it.
# `jobmix histroy` suggests history; mem.cache_hit_pct is higher-is-better;
# `compare A -- B -f json` takes -f as an option, not a path.  Tiny runs.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/w"

err=$($JOBMIX histroy 2>&1); rc=$?
check "jobmix histroy: exit 2" [ "$rc" = 2 ]
check "jobmix histroy: did you mean 'history'?" grep -q "unknown command 'histroy' (did you mean 'history'?)" <<<"$err"
err=$($JOBMIX zzqqxx 2>&1)
check "a name near nothing: no suggestion" bash -c '! grep -q "did you mean" <<<"$1"' _ "$err"

check "mem.cache_hit_pct: higher is better" bash -c \
	"$JOBMIX report --metrics | grep -qE '^mem.cache_hit_pct +% +higher '"

$JOBMIX run workloads/quick.yaml -u 1 -j 2 -d "$T/w" -o "$T/a" -q >/dev/null 2>&1
$JOBMIX run workloads/quick.yaml -u 1 -j 2 -d "$T/w" -o "$T/b" -q >/dev/null 2>&1
out=$($JOBMIX compare "$T/a" -- "$T/b" -f json 2>&1); rc=$?
check "compare A -- B -f json: exit 0 ($rc)" [ "$rc" = 0 ]
check "compare A -- B -f json: JSON out" jq -e '.threshold == 0.02' <<<"$out"
out=$($JOBMIX compare "$T/a" -- "$T/b" --format csv -m jpm 2>&1)
check "compare A -- B --format csv -m jpm: CSV out" grep -q '^workload,group,metric' <<<"$out"
out=$($JOBMIX compare "$T/a" -- -f json 2>&1); rc=$?
check "compare A -- -f json (no candidate): exit 2" [ "$rc" = 2 ]
check "compare A -- -f json: says a candidate is missing" grep -q 'expected BASELINE... -- CANDIDATE' <<<"$out"
