#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The peak search against a dense sweep on simulated noisy curves (see
# bench/ramp-sim.c): TRIALS trials per curve (default 400), in seconds; then
# how the judgement of bench/convergence.sh (several rounds of dense sweeps
# as the reference) compares with the truth, on the same curves.
#
#   bench/ramp-sim.sh [TRIALS] [noisy|quick]   (only the noisy-curve or quick-convergence table)
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build/libjobmix.a
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cc -O2 -D_GNU_SOURCE -Iinclude -std=c11 -Wall -Wextra -o "$out" bench/ramp-sim.c build/libjobmix.a -lm
"$out" "${1:-400}" ${2:+"$2"}
