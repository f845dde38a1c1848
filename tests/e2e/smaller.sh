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

# the rest of issue 43's smaller list, on a tiny fileio entry
cat >"$T/fio.yaml" <<'YAML'
name: fiotiny
files:
  dirs: [./w]
users: {start: 1, end: 1, jobs_per_user: 2}
mix:
  - {job: fileio, weight: 1, mode: rndrd, files: 2, file_size: 64k, block: 4k, ops: 20}
YAML
# an axis value `none` prints as none, never as '-' (the sign for no value)
out=$($JOBMIX run "$T/fio.yaml" -u 1 -j 2 -d "$T/w" -o "$T/n" -X fileio.flags=none,sync 2>&1); rc=$?
check "-X fileio.flags=none,sync: exit 0 ($rc)" [ "$rc" = 0 ]
check "closing table: the none arm's row reads none" grep -qE '^none +[0-9]{8}-[0-9]{6}-fiotiny-none ' <<<"$out"
check "closing table: the reference is fileio.flags=none" grep -q 'against the row with fileio.flags=none ' <<<"$out"
# report <the A/B index folder the run names> reads the arms its index names
ab=$(sed -n 's/^index: \(.*\)\/index.json$/\1/p' <<<"$out")
out=$($JOBMIX report "$ab" 2>&1); rc=$?
check "report <A/B index folder>: exit 0 ($rc)" [ "$rc" = 0 ]
check "report <A/B index folder>: both arms' runs" bash -c \
	'grep -q -- "-fiotiny-none " <<<"$1" && grep -q -- "-fiotiny-sync " <<<"$1"' _ "$out"
check "report <A/B index folder>: the none table is titled none" grep -qF '[fileio.flags none]' <<<"$out"
# a one-value axis is not a comparison: the reference is an arm that differs
out=$($JOBMIX run "$T/fio.yaml" -u 1 -j 2 -d "$T/w" -o "$T/one" -X fileio.flags=none,sync \
	-X fileio.mode=rndrd 2>&1); rc=$?
check "-X two values -X one value: exit 0 ($rc)" [ "$rc" = 0 ]
check "closing table: the sync arm is compared (a change in %)" grep -qE ' sync +[0-9]{8}-.* [-+][0-9.]+%( |$)' <<<"$out"
check "closing table: the reference is fileio.flags=none, not the one-value axis" \
	grep -q 'against the row with fileio.flags=none and the same fileio.mode' <<<"$out"
# 32 arms whose values share their first 40 characters: 32 folder names, as --dry-run said
X=(-X fileio.file_size=000000000065536,000000000069632 -X fileio.ops=0000000000020,0000000000021
   -X fileio.rw_ratio=1.25,2.25 -X fileio.fsync_every=00000001000,00000002000 -X fileio.mode=rndrd,rndwr)
$JOBMIX run "$T/fio.yaml" -u 1 -j 1 -d "$T/w" -o "$T/m" "${X[@]}" --dry-run 2>&1 |
	sed -n 's/^output: *[^ ]*<stamp>-\([^/]*\)\/run.json.*/\1/p' | sort >"$T/m.dry"
$JOBMIX run "$T/fio.yaml" -u 1 -j 1 -d "$T/w" -o "$T/m" "${X[@]}" -q >/dev/null 2>&1
ls "$T/m" | grep -v -- '-ab$' | sed 's/^[0-9]\{8\}-[0-9]\{6\}-//' | sort >"$T/m.real"
check "32-arm matrix: 32 run folders" [ "$(wc -l <"$T/m.real")" = 32 ]
check "32-arm matrix: 32 distinct names (no arm shares one)" [ "$(sort -u "$T/m.dry" | wc -l)" = 32 ]
check "32-arm matrix: the folders are named as --dry-run said" cmp -s "$T/m.dry" "$T/m.real"
check "32-arm matrix: names fit (<= 60 characters after the stamp)" \
	bash -c '! awk "length > 60" "$1" | grep -q .' _ "$T/m.real"
