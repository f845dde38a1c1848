#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs each libFuzzer target for a bounded time on a corpus seeded from the
# tree's own files (copied into the build folder: the tree is never written)
# and prints one line per target: executions, executions per second, the
# corpus size and the verdict.  Exits 1 when any target found a crash, a
# leak or a hang; the input is left in BUILD/artifacts/.
#   usage: tests/fuzz/run.sh BUILD SECONDS
set -u
build=${1:?usage: run.sh BUILD SECONDS}
secs=${2:-60}
cd "$(dirname "$0")/../.."

# target and the folders its corpus is seeded from
targets=(
	"fuzz_workload workloads tests/data/good tests/data/bad tests/data/e2e"
	"fuzz_results tests/data/runs tests/data/report tests/data/bad-runs"
	"fuzz_import tests/data/reaim tests/data/import"
	"fuzz_config tests/data/reaim tests/data/import"
	"fuzz_reaim_args tests/data/reaim-args"
)
failed=0
rm -rf "$build/artifacts" && mkdir -p "$build/artifacts"
for t in "${targets[@]}"; do
	set -- $t
	name=$1; shift
	bin=$build/$name corpus=$build/corpus/$name log=$build/$name.log
	mkdir -p "$corpus"
	for d in "$@"; do
		[ -d "$d" ] && find "$d" -maxdepth 1 -type f -exec cp -n {} "$corpus/" \;
	done
	# A dictionary of the keys the seeds use: YAML "key:" and JSON "key" tokens,
	# re-aim's config keys and options (words of NUL-separated argv seeds).
	{ cat "$corpus"/* 2>/dev/null | grep -aoE '"[a-z_][a-z0-9_.]*"|[a-z_][a-z0-9_]*:|^[A-Z]+ '
	  cat "$corpus"/* 2>/dev/null | tr '\0' '\n' | grep -aoE '^--?[a-z]+=?'
	} | sort -u | sed 's/"//g; s/\\/\\\\/g; s/.*/"&"/' >"$build/$name.dict"
	dict=()
	[ -s "$build/$name.dict" ] && dict=(-dict="$build/$name.dict")
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		"${dict[@]}" -artifact_prefix="$build/artifacts/$name-" \
		"$corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
	# stopped early by a finding: no "Done" line; the time is executions / rate
	[ -z "$took" ] && [ "${rate:-0}" -gt 0 ] 2>/dev/null && took=$((execs / rate))
	units=$(find "$corpus" -type f | wc -l)
	if [ $rc = 0 ]; then
		verdict="no crash, leak or hang"
	else
		verdict="FAILED (exit $rc): $(grep -aE '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | head -1)"
		failed=1
	fi
	echo "fuzz: $name: ${execs:-?} execs in ${took:-$secs} s, ${rate:-?} exec/s, corpus $units; $verdict"
	if [ $rc != 0 ]; then
		grep -a 'Test unit written to' "$log" | sed 's/^/    /'
		sed 's/^/    /' "$log" | grep -av '^    #[0-9]' | tail -40
	fi
done
exit $failed
