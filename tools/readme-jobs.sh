#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Print FILE (docs/jobs.md or docs/workload.md) with its generated tables
# regenerated: the job table (between the jobs:begin/end markers) from
# `jobmix jobs --markdown`, and the workload key table (between keys:begin/end)
# from `jobmix check --keys --markdown`.  A file without markers is printed
# unchanged.  `make readme` rewrites both files; tests/e2e/readme.sh fails
# when either is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: tools/readme-jobs.sh FILE}
jobmix=${JOBMIX:-./jobmix}
table=$("$jobmix" jobs --markdown)
keys=$("$jobmix" check --keys --markdown)
awk -v table="$table" -v keys="$keys" '
	/<!-- jobs:begin -->/ { print; print table; skip = 1; next }
	/<!-- jobs:end -->/ { skip = 0 }
	/<!-- keys:begin -->/ { print; print keys; skip = 1; next }
	/<!-- keys:end -->/ { skip = 0 }
	!skip { print }
' "$file"
