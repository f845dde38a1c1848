#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The nightly regression run: each workload run REPEATS times with a fixed
# seed into ROOT/<date>/, then compared with a baseline night; writes
# report.md, report.html, compare.txt and the charts beside the runs, and
# exits with `jobmix compare`'s code (0 no regression and nothing missing,
# 1 a regression, 2 bad input or sides not comparable, 3 evidence missing:
# a run that failed or did not complete, a workload one night lacks), or
# with report's when it fails (2, 3).
#
# usage: tools/nightly.sh [-w "fserver dbase ..."] [-r REPEATS] [-b BASELINE_DIR]
#                         [-o ROOT] [-t THRESHOLD] [-s SEED] [-- jobmix run options]
#   -w  workloads, names from workloads/ or paths (default: fserver dbase shared osync)
#   -r  runs of each workload (default 3: what compare's t-test needs)
#   -b  the baseline night (default: the newest other night under ROOT)
#   -o  root of the nights (default results/nightly)
#   -t  smallest change that counts (default 2%)
#   -s  run seed (default 1)
#   NIGHTLY_DATE names the night (default: today, UTC, YYYY-MM-DD).
# Example cron line (02:30 every night, from the checkout):
#   30 2 * * * cd /opt/jobmix && tools/nightly.sh -- -d /mnt/scratch >>/var/log/jobmix-nightly.log 2>&1
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
JOBMIX=${JOBMIX:-$here/jobmix}
workloads="fserver dbase shared osync"
repeats=3 baseline="" root=results/nightly threshold=2% seed=1

usage() { sed -n '/^# usage:/,/^#   NIGHTLY_DATE/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while getopts "w:r:b:o:t:s:h" opt; do
	case $opt in
	w) workloads=$OPTARG ;;
	r) repeats=$OPTARG ;;
	b) baseline=$OPTARG ;;
	o) root=$OPTARG ;;
	t) threshold=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "nightly: -r '$repeats': a positive number" >&2; exit 2; }
[ -x "$JOBMIX" ] || { echo "nightly: $JOBMIX not built (make)" >&2; exit 2; }

night=${NIGHTLY_DATE:-$(date -u +%F)}
[[ $night =~ ^[A-Za-z0-9._-]+$ ]] || { echo "nightly: NIGHTLY_DATE '$night': letters, digits, . _ -" >&2; exit 2; }
dir=$root/$night

# resolve every workload before anything runs
files=()
for w in $workloads; do
	f=$w
	[ -f "$f" ] || f=$here/workloads/$w.yaml
	[ -f "$f" ] || { echo "nightly: no workload '$w'" >&2; exit 2; }
	"$JOBMIX" check "$f" >/dev/null || exit 2
	files+=("$f")
done

mkdir -p "$dir" || exit 2
failed=0
for f in "${files[@]}"; do
	for i in $(seq 1 "$repeats"); do
		echo "nightly: $(basename "$f" .yaml) run $i of $repeats"
		"$JOBMIX" run "$f" --seed "$seed" -o "$dir" -q -L night="$night" "$@"
		rc=$?
		[ $rc = 0 ] || { echo "nightly: run failed (exit $rc)" >&2; failed=1; [ $rc = 2 ] && exit 2; }
	done
done

# report's own code when it fails: 2 no run read (or bad input), 3 the output failed
"$JOBMIX" report "$dir" -f md -o "$dir/report.md" || exit $?
"$JOBMIX" report "$dir" -f html -o "$dir/report.html" || exit $?
if "$JOBMIX" plot --help >/dev/null 2>&1 && command -v gnuplot >/dev/null; then
	"$JOBMIX" plot "$dir" -o "$dir/chart.svg" || echo "nightly: no chart" >&2
	"$JOBMIX" plot "$root" --trend -o "$dir/trend.svg" || echo "nightly: no trend chart" >&2
fi

if [ -z "$baseline" ]; then
	baseline=$(ls -d "$root"/*/ 2>/dev/null | sed 's:/$::' | grep -vx "$dir" | sort | tail -1)
fi
if [ -z "$baseline" ]; then
	echo "nightly: no baseline night yet under $root; $dir becomes the first"
	[ $failed = 0 ] || exit 3
	exit 0
fi
echo "nightly: $night against $(basename "$baseline")"
"$JOBMIX" compare --threshold "$threshold" "$baseline" -- "$dir" | tee "$dir/compare.txt"
rc=${PIPESTATUS[0]}
"$JOBMIX" compare -f md --threshold "$threshold" "$baseline" -- "$dir" >"$dir/compare.md" 2>/dev/null
{ echo; echo "## Against $(basename "$baseline")"; echo; cat "$dir/compare.md"; } >>"$dir/report.md"
rm -f "$dir/compare.md"
[ $rc = 0 ] && [ $failed = 1 ] && rc=3
exit $rc
