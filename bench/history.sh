#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Change points against night-against-night: synthetic nightly series with
# the noise this machine's runs show (5-15% a run; bench/aa.sh measures it)
# and known shifts (2%, 5%, 10%, 20%) at known nights, plus A/A series with
# none (see bench/history-sim.c for the model).  Prints the recall and the
# precision of the change points found, the share of 60-night A/A series
# with a false change point, and, on the same A/A nights, the share a
# night-against-night compare would have called worse.  Seconds; seeded.
#
#   bench/history.sh [TRIALS] [NIGHTS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/libjobmix.a
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cc -O2 -D_GNU_SOURCE -Iinclude -std=c11 -Wall -Wextra -o "$out" bench/history-sim.c build/libjobmix.a -lm
"$out" "${1:-400}" "${2:-60}" "${3:-3}"
# the nightly verdict by blocks (history --order night): A/A false alarms,
# judged night by night, at the noise bench/aa.sh and tests/e2e/history.sh
# measured here (10% a run, 5% night to night) and at a quiet machine's
cc -O2 -D_GNU_SOURCE -Iinclude -std=c11 -Wall -Wextra -o "$out" bench/history-blocks.c build/libjobmix.a -lm
"$out" 400 30 3 0.10 0.05
"$out" 400 30 3 0.10 0
"$out" 400 30 3 0.01 0.005
