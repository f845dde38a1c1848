#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The job table (docs/jobs.md) and the workload key table (docs/workload.md)
# are generated from the registry and the key table: fail when either is
# stale, or when a kind or a key is missing from its page.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
for f in docs/jobs.md docs/workload.md; do
	if tools/readme-jobs.sh "$f" | cmp -s - "$f"; then
		ok "$f: generated tables match 'jobmix jobs --markdown', 'jobmix check --keys --markdown'"
	else
		not_ok "$f: a generated table is stale: run 'make readme'"
		tools/readme-jobs.sh "$f" | diff "$f" - | head -20
	fi
done
grep -q '<!-- jobs:begin -->' docs/jobs.md && grep -q '<!-- jobs:end -->' docs/jobs.md &&
	ok "docs/jobs.md has the jobs:begin/end markers" || not_ok "docs/jobs.md has the jobs:begin/end markers"
grep -q '<!-- keys:begin -->' docs/workload.md && grep -q '<!-- keys:end -->' docs/workload.md &&
	ok "docs/workload.md has the keys:begin/end markers" || not_ok "docs/workload.md has the keys:begin/end markers"
missing=0
for k in $($JOBMIX jobs | awk '{print $1}'); do
	grep -q "^| \`$k\` |" docs/jobs.md || { not_ok "docs/jobs.md lists job $k"; missing=1; }
done
[ $missing = 0 ] && ok "docs/jobs.md lists every job kind"
missing=0
for k in $($JOBMIX check --keys | awk '{print $1}'); do
	grep -q "^| \`$k\` |" docs/workload.md || { not_ok "docs/workload.md lists workload key $k"; missing=1; }
done
[ $missing = 0 ] && ok "docs/workload.md lists every workload key"
# the README's quick start runs what the Makefile runs, and names every shipped command
run_line=$(sed -n 's/^\t\(\.\/jobmix run .*\)$/\1/p' Makefile)
grep -q 'make run .*workloads/quick.yaml (1-4 users)' README.md && [[ $run_line == *"workloads/quick.yaml -u 1-4"* ]] &&
	ok "README's quick start describes 'make run' ($run_line)" || not_ok "README's quick start describes 'make run' ($run_line)"
missing=0
for c in $($JOBMIX help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	grep -q "^### $c\$" README.md || { not_ok "README.md has a section for 'jobmix $c'"; missing=1; }
done
[ $missing = 0 ] && ok "README.md has a section for every command"
