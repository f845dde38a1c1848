#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Adaptive ramps against a dense sweep, in one run, on a real shipped mix:
#   1. -m peak      (geometric growth, refinement; stops when the peak is established)
#   2. -m converge  (peak, then on until JPM/user <= 60)
#   3. a dense linear sweep, step 1, from 1 to past the peak (to the largest
#      user count the peak run measured)
# The peak run and the sweep share the range 1..DENSE_MAX (a dense sweep to
# hundreds of users takes hours); the converge run is bounded by MAXU only.
# Prints each adaptive run's peak against the dense sweep's best point (error
# in %) and its wall time against the dense sweep's (ratio).
#
#   bench/convergence.sh [WORKLOAD] [DIR]
# Environment: J (jobs per user, default 40), REPEAT (peak -r, default auto),
#              CREPEAT (converge -r, default 1), DREPEAT (dense sweep -r, default 3:
#              the best of single samples is biased up by the noise), DENSE_MAX (default 64),
#              MAXU (user budget, default 4096), KEEP (set: keep the run folders),
#              EXTRA (more `jobmix run` options for all three runs, e.g.
#              "--measure time --duration 2s": fixed-length points, JPM from the
#              jobs completed in the window rather than the slowest user's finish).  Short points are noisy: keep
#              J high enough that a point lasts a second or more.
set -euo pipefail
cd "$(dirname "$0")/.."
WL=${1:-workloads/quick.yaml}
DIR=${2:-/var/tmp/jobmix-bench}
J=${J:-40}
REPEAT=${REPEAT:-auto}
CREPEAT=${CREPEAT:-1}
DREPEAT=${DREPEAT:-3}
DENSE_MAX=${DENSE_MAX:-64}
MAXU=${MAXU:-4096}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix
T=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "keeping the runs in $T"; else trap 'rm -rf "$T"' EXIT; fi

run() { # NAME ARGS... ; leaves $T/NAME.json
	local name=$1; shift
	# shellcheck disable=SC2086
	./jobmix run "$WL" -j "$J" -d "$DIR" -o "$T/$name" -q ${EXTRA:-} "$@" >/dev/null
	cp "$T/$name"/*/run.json "$T/$name.json"
}
f() { jq -r "$1" "$T/$2.json"; }

echo "workload $WL, $J jobs/user, peak -r $REPEAT, converge -r $CREPEAT${EXTRA:+, $EXTRA}, on $(findmnt -n -o SOURCE,FSTYPE -T "$DIR" 2>/dev/null || echo "$DIR")"
run peak -m peak -r "$REPEAT" --max-users "$DENSE_MAX"
run converge -m converge -r "$CREPEAT" --max-users "$MAXU"
top=$(f '[.points[].users] | max' peak)
run dense -m linear -u "1-$top" -r "$DREPEAT"

# the dense sweep's best user count by mean JPM over its samples
best=$(f '[.summary.by_users[] | select(.failed | not)] | max_by(.jpm_mean) | .jpm_mean' dense)
best_u=$(f '[.summary.by_users[] | select(.failed | not)] | max_by(.jpm_mean) | .users' dense)
dense_s=$(f '.summary.wall_s' dense)
printf '\n%-10s %8s %8s %11s %8s %9s %8s %s\n' mode points wall_s peak_JPM users err_% time_x stop
printf '%-10s %8s %8.1f %11.1f %8s %9s %8s %s\n' dense "$(f '.summary.points_measured' dense)" "$dense_s" "$best" "$best_u" - 1.000 "1..$top step 1, -r $DREPEAT"
for m in peak converge; do
	pj=$(f '.summary.peak_jpm' $m); pu=$(f '.summary.peak_users' $m); ws=$(f '.summary.wall_s' $m)
	awk -v m=$m -v n="$(f '.summary.points_measured' $m)" -v w="$ws" -v p="$pj" -v u="$pu" -v b="$best" -v d="$dense_s" -v s="$(f '.summary.stop_reason' $m)" \
		'BEGIN { printf "%-10s %8d %8.1f %11.1f %8s %+9.2f %8.3f %s\n", m, n, w, p, u, (p - b) / b * 100, w / d, s }'
done
cu=$(f '.summary.converge_users // "-"' converge); cj=$(f '.summary.converge_jpm // "-"' converge); cm=$(f '.summary.converge_max_jpm // "-"' converge)
echo "quick convergence: $cj JPM at $cu users (max over that ramp $cm JPM)"
echo "peak established: $(f '.summary.peak_established' peak) (peak run), dense best at $best_u users"
