#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The arithmetic kinds' time per job built with -O2 (jobmix's default) and
# with -O3 -march=native: re-aim's dependent chains leave the compiler
# nothing to vectorise or reorder, so the work, and the time, should not
# change (goal: within 10%).
#
#   bench/arith-flags.sh          ROUNDS (7) alternating rounds, REPS (5) jobs
#                                 per kind per round (the median is kept)
#
# Each round runs both builds, in alternating order; the per-round ratio
# O3/O2 of each kind gives the mean ratio and its sd (the noise).  A ratio
# within 2 sd of 1 is no difference.  Also prints whether the two builds'
# inner loops are the same instructions (objdump of the kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-7}
REPS=${REPS:-5}
CC=${CC:-cc}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SRC=(bench/arith-time.c src/jobs/arith.c src/jobs/util.c)
"$CC" -std=c11 -Wall -Wextra -Werror -O2 -D_GNU_SOURCE -Iinclude -Isrc/jobs "${SRC[@]}" -o "$T/o2"
"$CC" -std=c11 -Wall -Wextra -Werror -O3 -march=native -D_GNU_SOURCE -Iinclude -Isrc/jobs \
	"${SRC[@]}" -o "$T/o3"
for r in $(seq 1 "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then
		"$T/o2" "$REPS" >"$T/o2.$r"; "$T/o3" "$REPS" >"$T/o3.$r"
	else
		"$T/o3" "$REPS" >"$T/o3.$r"; "$T/o2" "$REPS" >"$T/o2.$r"
	fi
done
printf '%-12s %12s %12s %14s\n' kind O2_ms O3native_ms "O3/O2 (±sd)"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for k in $(cut -d' ' -f1 "$T/o2.1"); do
	cat "$T"/o2.* | awk -v k="$k" '$1 == k { print $2 }' >"$T/a"
	cat "$T"/o3.* | awk -v k="$k" '$1 == k { print $2 }' >"$T/b"
	read -r m sd < <(paste -d' ' "$T/a" "$T/b" | awk '{ q = $2 / $1; s += q; ss += q * q; n++ }
		END { m = s / n; v = n > 1 ? (ss - n * m * m) / (n - 1) : 0; print m, (v > 0 ? sqrt(v) : 0) }')
	awk -v k="$k" -v a="$(median <"$T/a")" -v b="$(median <"$T/b")" -v m="$m" -v sd="$sd" \
		'BEGIN { printf "%-12s %12.2f %12.2f %8.3f ±%.3f\n", k, a * 1e3, b * 1e3, m, sd }'
done
echo "$ROUNDS alternating rounds, median of $REPS jobs per kind per round; $("$CC" --version | head -1)"
