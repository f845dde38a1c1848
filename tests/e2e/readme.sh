#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's job table is generated from the registry: fail when it is stale.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
if tools/readme-jobs.sh | cmp -s - README.md; then
	ok "README job and key tables match 'jobmix jobs --markdown', 'jobmix check --keys --markdown'"
else
	not_ok "README job table is stale: run 'make readme'"
	tools/readme-jobs.sh | diff README.md - | head -20
fi
missing=0
for k in $($JOBMIX jobs | awk '{print $1}'); do
	grep -q "^| \`$k\` |" README.md || { not_ok "README lists job $k"; missing=1; }
done
[ $missing = 0 ] && ok "README lists every job kind"
missing=0
for k in $($JOBMIX check --keys | awk '{print $1}'); do
	grep -q "^| \`$k\` |" README.md || { not_ok "README lists workload key $k"; missing=1; }
done
[ $missing = 0 ] && ok "README lists every workload key"
