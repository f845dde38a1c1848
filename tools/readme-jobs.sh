#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Print README.md with the job table (between the jobs:begin/end markers)
# regenerated from `jobmix jobs --markdown`, and the workload key table
# (between keys:begin/end) from `jobmix check --keys --markdown`.
set -euo pipefail
cd "$(dirname "$0")/.."
table=$(./jobmix jobs --markdown)
keys=$(./jobmix check --keys --markdown)
awk -v table="$table" -v keys="$keys" '
	/<!-- jobs:begin -->/ { print; print table; skip = 1; next }
	/<!-- jobs:end -->/ { skip = 0 }
	/<!-- keys:begin -->/ { print; print keys; skip = 1; next }
	/<!-- keys:end -->/ { skip = 0 }
	!skip { print }
' README.md
