#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The start barrier's release spread (first to last user leaving it) of
# jobmix against the ideal: bench/barrier.c, processes that do nothing but
# the barrier.  The ideal's spread is what this machine charges to wake N
# processes and run each once (scheduler, address-space switch, the
# hypervisor's share of both); the ratio is what jobmix adds.
#
#   bench/barrier.sh         USERS ("500 1000 2000"), ROUNDS (5) alternating
#                            rounds of one jobmix point and one ideal release
#
# Prints per user count the median spread of each side, the noise (the
# relative sd of each side over the rounds) and the mean per-round ratio
# jobmix/ideal with its sd.  Run it on idle CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
USERS=${USERS:-"500 1000 2000"}
ROUNDS=${ROUNDS:-5}
CC=${CC:-cc}
JOBMIX=${JOBMIX:-./jobmix}
[ -x "$JOBMIX" ] || { echo "bench/barrier.sh: $JOBMIX is not built (make)" >&2; exit 2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$CC" -std=c11 -Wall -Wextra -Werror -O2 bench/barrier.c -o "$T/ideal"

jobmix_spread() {
	rm -rf "$T/r"
	"$JOBMIX" run tests/data/good/many.yaml -u "$1" -d "$T/w" -o "$T/r" -q >/dev/null 2>"$T/err" ||
		{ cat "$T/err" >&2; exit 1; }
	jq '.points[0].release_spread_ms' "$T"/r/*/run.json
}
ideal_spread() { "$T/ideal" "$1" | cut -d' ' -f1; }

for n in $USERS; do
	: >"$T/pairs.$n"
	for r in $(seq 1 "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			j=$(jobmix_spread "$n"); i=$(ideal_spread "$n")
		else
			i=$(ideal_spread "$n"); j=$(jobmix_spread "$n")
		fi
		echo "$j $i" >>"$T/pairs.$n"
	done
done
printf '# %s, %s CPUs, %s rounds\n' "$(uname -r)" "$(nproc)" "$ROUNDS"
printf '%6s %12s %9s %12s %9s %18s\n' users jobmix_ms noise ideal_ms noise "jobmix/ideal (±sd)"
for n in $USERS; do
	awk -v n="$n" '
		function median(a, k,   i, j, t) {
			for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		function rsd(s, ss, k,   m, v) { m = s / k; v = k > 1 ? (ss - k * m * m) / (k - 1) : 0; return (v > 0 ? sqrt(v) : 0) / m }
		{ j[NR] = $1; i[NR] = $2; sj += $1; ssj += $1 * $1; si += $2; ssi += $2 * $2
		  q = $1 / $2; sq += q; ssq += q * q }
		END {
			k = NR; mq = sq / k; vq = k > 1 ? (ssq - k * mq * mq) / (k - 1) : 0
			printf "%6d %12.1f %8.1f%% %12.1f %8.1f%% %10.2f (±%.2f)\n", n, median(j, k), 100 * rsd(sj, ssj, k),
				median(i, k), 100 * rsd(si, ssi, k), mq, (vq > 0 ? sqrt(vq) : 0)
		}' "$T/pairs.$n"
done
