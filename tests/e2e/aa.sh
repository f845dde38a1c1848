#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/aa.sh never skips a trial in silence: an until-decided A/A trial
# runs (arms of identical work, -X description=A,A2; -X ENTRY.scale=1,1 is
# refused by run and used to be dropped without a word), its verdict is
# the run's own closing verdict and its rounds the index's rounds_run; a
# run that fails (here --max-rounds 1, refused) is a failed trial, counted
# and printed, and the script exits 1: never a pass.  POINT_NOISE passes
# --point-noise to its runs.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-aa.XXXXXX)
trap 'rm -rf "$T"' EXIT
small() { AA_TRIALS=0 TRIALS=0 UD_AA_TRIALS=1 UD_TRIALS=0 INJECT= CONDITIONS=quiet JOBS=5 \
	DIR="$T/work" TRIALS_OUT="$T/trials.tsv" bench/aa.sh "$@"; }

out=$(MAX_ROUNDS=2 small 2>&1); rc=$?
check "aa.sh A/A until decided: exit 0" [ $rc = 0 ]
line=$(awk -F'\t' '$1 == "quiet" && $2 == "ud" && $3 == 0' "$T/trials.tsv" 2>/dev/null)
check "aa.sh A/A until decided: the trial ran and completed" grep -q $'\tok\t' <<<"$line"
check "aa.sh A/A until decided: its verdict is the run's (inconclusive or same at 2 rounds)" \
	grep -Eq $'^quiet\tud\t0\t-\t(inconclusive|same)\t' <<<"$line"
check "aa.sh A/A until decided: rounds from the index (2)" \
	[ "$(cut -f9 <<<"$line")" = 2 ]
check "aa.sh A/A until decided: the table counts it" grep -Eq '^quiet +A/A +0 +0/1 ' <<<"$out"

out=$(MAX_ROUNDS=1 small 2>&1); rc=$?
check "aa.sh failed run: exit 1" [ $rc = 1 ]
check "aa.sh failed run: counted as failed" grep -Eq '^quiet +A/A +1 +- ' <<<"$out"
check "aa.sh failed run: said" grep -q 'FAILED: quiet ud 0: 1 trial' <<<"$out"
check "aa.sh failed run: its log kept" [ -s "$T/work/aa-failed.quiet.ud.0.1.log" ]

# POINT_NOISE: every run sizes its points (--point-noise); the trial still runs
rm -f "$T/trials.tsv"
out=$(POINT_NOISE=50% MAX_ROUNDS=2 small 2>&1); rc=$?
check "aa.sh POINT_NOISE: exit 0, said in the banner" \
	bash -c "[ $rc = 0 ] && grep -q 'points sized to 50%' <<<\"\$1\"" _ "$out"
check "aa.sh POINT_NOISE: the trial completed" \
	grep -Eq $'^quiet\tud\t0\t-\t(inconclusive|same)\t' "$T/trials.tsv"
