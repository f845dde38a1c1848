#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Print README.md with the job table (between the jobs:begin/end markers)
# regenerated from `jobmix jobs --markdown`.
set -euo pipefail
cd "$(dirname "$0")/.."
table=$(./jobmix jobs --markdown)
awk -v table="$table" '
	/<!-- jobs:begin -->/ { print; print table; skip = 1; next }
	/<!-- jobs:end -->/ { skip = 0 }
	!skip { print }
' README.md
