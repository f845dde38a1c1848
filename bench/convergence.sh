#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Adaptive ramps against a dense sweep, in one run, on a real shipped mix:
#   1. -m peak      (geometric growth, refinement; stops when the peak is established)
#   2. -m converge  (peak, then on until JPM/user <= 60)
#   3. a dense linear sweep, step 1, from 1 to past the peak (to the largest
#      user count the peak run measured)
# Prints each adaptive run's peak against the dense sweep's best point (error
# in %) and its wall time against the dense sweep's (ratio).
#
#   bench/convergence.sh [WORKLOAD] [DIR]
# Environment: J (jobs per user, default 20), REPEAT (adaptive -r, default auto),
#              MAXU (user budget, default 256).
set -euo pipefail
cd "$(dirname "$0")/.."
WL=${1:-workloads/quick.yaml}
DIR=${2:-/var/tmp/jobmix-bench}
J=${J:-20}
REPEAT=${REPEAT:-auto}
MAXU=${MAXU:-256}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

run() { # NAME ARGS... ; leaves $T/NAME.json
	local name=$1; shift
	./jobmix run "$WL" -j "$J" -d "$DIR" -o "$T/$name" -q "$@" >/dev/null
	cp "$T/$name"/*/run.json "$T/$name.json"
}
f() { jq -r "$1" "$T/$2.json"; }

echo "workload $WL, $J jobs/user, adaptive repeat $REPEAT, on $(findmnt -n -o SOURCE,FSTYPE -T "$DIR" 2>/dev/null || echo "$DIR")"
run peak -m peak -r "$REPEAT" --max-users "$MAXU"
run converge -m converge -r "$REPEAT" --max-users "$MAXU"
top=$(f '[.points[].users] | max' peak)
run dense -m linear -u "1-$top"

best=$(f '.summary.max_jpm' dense); best_u=$(f '.summary.max_jpm_users' dense); dense_s=$(f '.summary.wall_s' dense)
printf '\n%-10s %8s %8s %11s %8s %9s %8s %s\n' mode points wall_s peak_JPM users err_% time_x stop
printf '%-10s %8s %8.1f %11.1f %8s %9s %8s %s\n' dense "$(f '.summary.points_measured' dense)" "$dense_s" "$best" "$best_u" - 1.000 "1..$top step 1"
for m in peak converge; do
	pj=$(f '.summary.peak_jpm' $m); pu=$(f '.summary.peak_users' $m); ws=$(f '.summary.wall_s' $m)
	awk -v m=$m -v n="$(f '.summary.points_measured' $m)" -v w="$ws" -v p="$pj" -v u="$pu" -v b="$best" -v d="$dense_s" -v s="$(f '.summary.stop_reason' $m)" \
		'BEGIN { printf "%-10s %8d %8.1f %11.1f %8s %+9.2f %8.3f %s\n", m, n, w, p, u, (p - b) / b * 100, w / d, s }'
done
cu=$(f '.summary.converge_users // "-"' converge); cj=$(f '.summary.converge_jpm // "-"' converge); cm=$(f '.summary.converge_max_jpm // "-"' converge)
echo "quick convergence: $cj JPM at $cu users (max over that ramp $cm JPM)"
echo "peak established: $(f '.summary.peak_established' peak) (peak run), dense best at $best_u users"
