#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The nightly regression run (installed as jobmix-nightly): each workload run
# REPEATS times with a fixed seed into ROOT/<date>/, labelled night=<date>;
# then tonight is judged against the history of every night under ROOT
# (`jobmix history --order night`: the change points of each series of
# comparable runs, and whether the newest segment is a regression), and,
# as a secondary line, against one baseline night (`jobmix compare`).
# A line a run says (another run's lock on one of its devices, a warning)
# is said once a night, however many runs say it.
# Ends with one closing line, "nightly NIGHT: VERDICT: exit N" (the
# history's verdict: a REGRESSION with its change, interval, night and
# cause; a known one; a host change; none), which report.html opens with.
# Writes report.md (table, history, comparison), report.html (the verdict,
# tonight's table, the history and the trend by night with its change points
# marked), history.txt, compare.txt and the charts beside the runs, and exits with history's code
# (0 no regression, 1 the newest segment of a series fell by the threshold
# or more, 3 evidence missing: a run that failed or did not complete), 2 on
# bad input, or report's when it fails (2, 3).  One night against another
# only informs: a single night at 5-15% run-to-run noise goes red by chance
# within weeks, a change point needs 5 runs either side (2 nights of 3).
#
# usage: jobmix-nightly [-w "fserver dbase ..."] [-r REPEATS] [-b BASELINE_DIR]
#                       [-o ROOT] [-t THRESHOLD] [-s SEED] [-p DB_URL]
#                       [-u|--until-decided] [-m MORE] [-a KEYS] [-S|--sticky]
#                       [-- jobmix run options]
#   -w  workloads, names from workloads/ or paths (default: fserver dbase shared osync)
#   -r  runs of each workload (default 3: what compare's t-test needs)
#   -b  the baseline night (default: the newest other night under ROOT)
#   -o  root of the nights (default results/nightly)
#   -t  smallest change that counts (default 2%)
#   -s  run seed (default 1)
#   -p  also push tonight's runs to this PostgreSQL (postgresql://USER@HOST/DB;
#       the password from ~/.pgpass or PGPASSFILE): a fleet's one database,
#       read by `jobmix report|history|plot --db URL`; a failed push exits 3
#   -u, --until-decided  while tonight against the baseline night is
#       inconclusive for a workload, run it once more (at most MORE times);
#       every comparison with the baseline then holds worse and better to
#       alpha 0.05 / (MORE + 1) (Bonferroni over the looks: valid however
#       early the runs stop), and the ones still undecided are listed
#   -m  --until-decided's budget: more runs of a workload tonight (default 6)
#   -a  settings that may change from night to night within one series
#       (history --allow-diff KEYS: a change there is classified `setting`)
#   -S, --sticky  exit 1 every night a regression stands, not only the night
#       it first appears (or deepens by the threshold); `jobmix history ROOT
#       --order night --accept NIGHT` makes a night the new baseline
#   NIGHTLY_DATE names the night (default: today, UTC, YYYY-MM-DD).
# Example cron line (02:30 every night, from the checkout):
#   30 2 * * * cd /opt/jobmix && tools/nightly.sh -- -d /mnt/scratch >>/var/log/jobmix-nightly.log 2>&1
# Installed, a systemd timer does the same: jobmix-nightly.timer (options in
# /etc/default/jobmix-nightly; systemctl enable --now jobmix-nightly.timer).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
# installed: jobmix beside this script; in a checkout: the tree's
if [ -z "${JOBMIX:-}" ]; then
	JOBMIX=$here/jobmix
	[ -x "$(dirname "$0")/jobmix" ] && JOBMIX=$(dirname "$0")/jobmix
fi
workloads="fserver dbase shared osync"
repeats=3 baseline="" root=results/nightly threshold=2% seed=1 db="" until=0 more=6

usage() { sed -n '/^# usage:/,/^#   NIGHTLY_DATE/p' "$0" | sed 's/^# \{0,1\}//' >&"${1:-2}"; exit "${2:-2}"; }
[ "${1:-}" = "--help" ] && usage 1 0
# the one long option, before getopts sees it (up to the run options' --)
args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	case $1 in
	--until-decided) args+=(-u) ;;
	--sticky) args+=(-S) ;;
	*) args+=("$1") ;;
	esac
	shift
done
set -- "${args[@]}" "$@"
histopts=()
while getopts "w:r:b:o:t:s:p:m:a:uSh" opt; do
	case $opt in
	w) workloads=$OPTARG ;;
	r) repeats=$OPTARG ;;
	b) baseline=$OPTARG ;;
	o) root=$OPTARG ;;
	t) threshold=$OPTARG ;;
	s) seed=$OPTARG ;;
	p) db=$OPTARG ;;
	u) until=1 ;;
	m) more=$OPTARG ;;
	a) histopts+=(--allow-diff "$OPTARG") ;;
	S) histopts+=(--sticky) ;;
	h) usage 1 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "nightly: -r '$repeats': a positive number" >&2; exit 2; }
[[ $more =~ ^[1-9][0-9]*$ ]] || { echo "nightly: -m '$more': a positive number" >&2; exit 2; }
alpha=()
[ $until = 1 ] && alpha=(--alpha "$(awk -v m="$more" 'BEGIN { printf "%.6g", 0.05 / (m + 1) }')")
[ -x "$JOBMIX" ] || { echo "nightly: $JOBMIX not built (make)" >&2; exit 2; }

# the database URL judged before anything runs (report checks --db as it parses it)
[ -z "$db" ] || "$JOBMIX" report --db "$db" --metrics >/dev/null || exit 2

night=${NIGHTLY_DATE:-$(date -u +%F)}
[[ $night =~ ^[A-Za-z0-9._-]+$ ]] || { echo "nightly: NIGHTLY_DATE '$night': letters, digits, . _ -" >&2; exit 2; }
dir=$root/$night

# resolve every workload before anything runs
files=() names=()
for w in $workloads; do
	f=$w   # a path, or a name jobmix finds (./, your config, the shipped ones)
	[ -f "$f" ] || [ ! -f "$here/workloads/$w.yaml" ] || f=$here/workloads/$w.yaml
	name=$("$JOBMIX" check "$f" 2>/dev/null | awk '/^name:/ { print $2; exit }')
	[ -n "$name" ] || { echo "nightly: no workload '$w'" >&2; exit 2; }
	files+=("$f")
	names+=("$name")
done

mkdir -p "$dir" || exit 2
if [ -z "$baseline" ]; then
	baseline=$(ls -d "$root"/*/ 2>/dev/null | sed 's:/$::' | grep -vx "$dir" | sort | tail -1)
fi
failed=0
declare -A said   # what the runs said tonight: another run's lock on a device, once a night
run_one() { # run_one FILE WHAT
	echo "nightly: $(basename "$1" .yaml) $2"
	local errs="$dir/.run-stderr.$$" line
	"$JOBMIX" run "$1" --seed "$seed" -o "$dir" -q -L night="$night" "${runopts[@]}" 2>"$errs"
	local rc=$?
	while IFS= read -r line; do
		[ -n "${said[$line]:-}" ] || echo "$line" >&2
		said[$line]=1
	done <"$errs"
	rm -f "$errs"
	[ $rc = 0 ] || { echo "nightly: run failed (exit $rc)" >&2; failed=1; [ $rc = 2 ] && exit 2; }
}
runopts=("$@")
for f in "${files[@]}"; do
	for i in $(seq 1 "$repeats"); do
		run_one "$f" "run $i of $repeats"
	done
done

# the root's index first (made or refreshed): every read of a night below reads
# through it, and no night folder gets an index of its own
"$JOBMIX" report "$root" -f csv >/dev/null 2>&1

# --until-decided: the workloads still inconclusive against the baseline get one more run each
undecided() {
	"$JOBMIX" compare -f csv --threshold "$threshold" "${alpha[@]}" "$baseline" -- "$dir" 2>/dev/null |
		awk -F, 'NR > 1 && $1 != "gmean" && $14 != "" && $17 == "inconclusive" { print $1 }' | sort -u
}
if [ $until = 1 ] && [ -n "$baseline" ]; then
	for k in $(seq 1 "$more"); do
		open=$(undecided)
		[ -n "$open" ] || break
		for i in "${!files[@]}"; do
			grep -qxF "${names[$i]}" <<<"$open" && run_one "${files[$i]}" "one more run ($k of $more): undecided against $(basename "$baseline")"
		done
	done
	open=$(undecided)
	if [ -z "$open" ]; then
		echo "nightly: every tested comparison with $(basename "$baseline") decided (alpha ${alpha[1]} a look)"
	else
		echo "nightly: still undecided against $(basename "$baseline") after $more more runs: $(tr '\n' ' ' <<<"$open")"
	fi
fi

# report's own code when it fails: 2 no run read (or bad input), 3 the output failed
"$JOBMIX" report "$dir" -f md -o "$dir/report.md" || exit $?
"$JOBMIX" report "$dir" -f html -o "$dir/report.html.tmp" || exit $?
trends=()
if "$JOBMIX" plot --help >/dev/null 2>&1 && command -v gnuplot >/dev/null; then
	"$JOBMIX" plot "$dir" -o "$dir/chart.svg" || echo "nightly: no chart" >&2
	# every night of the root by night, the change points history finds marked
	"$JOBMIX" plot "$root" --trend --order night -o "$dir/trend.svg" >"$dir/trend.list" ||
		echo "nightly: no trend chart" >&2
	mapfile -t trends <"$dir/trend.list"
	rm -f "$dir/trend.list"
fi

# the verdict: tonight within the history of every night (change points between
# nights; alert once: a regression already known exits 0 unless --sticky)
"$JOBMIX" history "$root" --order night --threshold "$threshold" "${histopts[@]}" | tee "$dir/history.txt"
rc=${PIPESTATUS[0]}
[ $rc = 2 ] && { rm -f "$dir/report.html.tmp"; exit 2; }
{ echo; echo "## History (change points, by night)"; echo; echo '```'; cat "$dir/history.txt"; echo '```'; } >>"$dir/report.md"

# report.html: the verdict first, then tonight's table, then the trend charts
# (the verdict line wraps at 100 columns: its indented continuation joined)
verdict=$(awk '/^verdict: / { v = substr($0, 10); on = 1; next }
	on && /^  / { sub(/^ +/, ""); v = v " " $0; next } { on = 0 } END { print v }' "$dir/history.txt")
[ -n "$verdict" ] || verdict="no verdict (history exit $rc)"
[ $rc = 0 ] && [ $failed = 1 ] && rc=3
closing="nightly $night: $verdict: exit $rc"
esc() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'; }
case $rc in 0) vclass=same ;; 1) vclass=worse ;; *) vclass=inconclusive ;; esac
{
	# the page opens with the night's closing line: under the title, before the tables
	sed -n '1,/^<h1>/p' "$dir/report.html.tmp"
	echo "<div class=\"verdict $vclass\" id=\"nightly-verdict\"><h2>Nightly verdict, $(esc <<<"$night")</h2>"
	echo "<p><strong>$(esc <<<"$closing")</strong></p></div>"
	sed '1,/^<h1>/d; /<\/body>/,$d' "$dir/report.html.tmp"
	echo "<h2>History (change points, by night)</h2>"
	echo "<pre>"; esc <"$dir/history.txt"; echo "</pre>"
	for t in "${trends[@]}"; do
		[ -f "$t" ] && echo "<p><img src=\"$(basename "$t" | esc)\" alt=\"trend by night\"></p>"
	done
	sed -n '/<\/body>/,$p' "$dir/report.html.tmp"
} >"$dir/report.html" && rm -f "$dir/report.html.tmp"

# secondary: tonight against one night
if [ -z "$baseline" ]; then
	echo "nightly: no baseline night yet under $root; $dir becomes the first"
else
	echo "nightly: secondary, $night against $(basename "$baseline") (informs; the verdict is the history's)"
	"$JOBMIX" compare --threshold "$threshold" "${alpha[@]}" "$baseline" -- "$dir" | tee "$dir/compare.txt"
	"$JOBMIX" compare -f md --threshold "$threshold" "${alpha[@]}" "$baseline" -- "$dir" >"$dir/compare.md" 2>/dev/null
	{ echo; echo "## Against $(basename "$baseline")"; echo; cat "$dir/compare.md"; } >>"$dir/report.md"
	rm -f "$dir/compare.md"
fi
if [ -n "$db" ]; then
	"$JOBMIX" push "$dir" --db "$db" || { echo "nightly: the push to the fleet's database failed" >&2; failed=1; }
fi
[ $rc = 0 ] && [ $failed = 1 ] && rc=3
# the one closing line: the outcome and the exit code, last of all
echo "nightly $night: $verdict: exit $rc"
exit $rc
