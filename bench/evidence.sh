#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What collecting the evidence costs: the same run with the machine's
# counters read at every point's window edges (CPU states, PSI, vmstat,
# loadavg: the default) and without (JOBMIX_NO_EVIDENCE=1), alternated
# (on first in odd rounds, off first in even ones), ROUNDS rounds per mix;
# per round the JPM ratio on/off of each user count, then per mix the
# geometric mean ratio (the mean of log ratios: a plain mean of ratios leans
# above 1 when the denominator is noisy), its sd over rounds (on the log
# scale, as a relative spread) and the 2-sd-of-the-mean band: a ratio inside
# it is no difference.  In jobs mode the reads happen before the release and
# after the last user ends, so the expected ratio is 1.
#
#   bench/evidence.sh [DIR]
#
# Environment: ROUNDS (6), MIXES ("cpu disk").
set -uo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)" >&2; exit 2; }
[ -x ./jobmix ] || make -s jobmix
ROUNDS=${ROUNDS:-6}
MIXES=${MIXES:-cpu disk}
DIR=${1:-/var/tmp/jobmix-bench-evidence}
T=$(mktemp -d)
trap 'rm -rf "$T" "$DIR/w"' EXIT
mkdir -p "$DIR"
declare -A CMD
CMD[cpu]="tests/data/e2e/cpu.yaml -u 2,4 -j 60 -m linear"
CMD[disk]="tests/data/good/e2e.yaml -u 1-3 -j 10 -m linear"

# one run: JPM at each user count, "users jpm" lines
one() { # one SIDE MIX ROUND
	local out=$T/$2-$3-$1
	if [ "$1" = off ]; then
		JOBMIX_NO_EVIDENCE=1 ./jobmix run ${CMD[$2]} -d "$DIR/w" -o "$out" -q >/dev/null 2>&1
	else
		./jobmix run ${CMD[$2]} -d "$DIR/w" -o "$out" -q >/dev/null 2>&1
	fi
	jq -r '.points[] | select(.failed | not) | "\(.users) \(.jpm)"' "$out"/*/run.json
}

echo "evidence on / off, $ROUNDS rounds alternated; $(nproc) CPUs, $(uname -r)"
for mix in $MIXES; do
	: >"$T/ratios-$mix"
	for r in $(seq 1 "$ROUNDS"); do
		if ((r % 2)); then a=$(one on $mix $r); b=$(one off $mix $r)
		else b=$(one off $mix $r); a=$(one on $mix $r); fi
		join <(sort <<<"$a") <(sort <<<"$b") | awk -v r=$r '{ printf "%d %s %.6f\n", r, $1, $2 / $3 }' >>"$T/ratios-$mix"
	done
	awk -v mix=$mix '
		{ l = log($3); s[$2] += l; ss[$2] += l * l; n[$2]++; all += l; all2 += l * l; na++ }
		END {
			for (u in n) {
				m = s[u] / n[u]; sd = n[u] > 1 ? sqrt((ss[u] - n[u] * m * m) / (n[u] - 1)) : 0
				printf "%-5s %3s users: on/off %.3f, sd %.1f%% (n %d)\n", mix, u, exp(m), 100 * sd, n[u]
			}
			m = all / na; sd = na > 1 ? sqrt((all2 - na * m * m) / (na - 1)) : 0; band = 2 * sd / sqrt(na)
			printf "%-5s all: on/off %.3f, sd %.1f%% (n %d); 2 sd of the mean %.1f%%: %s\n", mix, exp(m),
				100 * sd, na, 100 * band,
				(m < band && -m < band) ? "no difference within the noise" : "a difference beyond the noise"
		}' "$T/ratios-$mix"
done
