#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The --metric help of report, compare, plot and history lists every metric
# `jobmix report --metrics` prints (both come from rep_metrics[]; the help's
# list is src/cli/reporting.c's rep_metric_help, made by rep_metric_names):
# a metric missing from the help fails here, naming the file.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

# the help of --metric, its lines joined ('|' at a line's end joins tight)
metric_help() {
	$JOBMIX "$1" --help | awk '
		/^  (-., )?--metric NAME/ { on = 1; sub(/^.*--metric NAME */, ""); text = $0; next }
		on && /^      *-/ { on = 0 }
		on && /^                 / { sub(/^ */, ""); text = text (text ~ /\|$/ ? "" : " ") $0 }
		END { print text }'
}
names=$($JOBMIX report --metrics | awk 'NR > 1 && $5 ~ /^(summary\.|points\[\])/ { print $1 }')
check "report --metrics lists the metrics ($(wc -l <<<"$names") of them)" [ "$(wc -l <<<"$names")" -gt 30 ]
for cmd in report compare plot history; do
	help=$(metric_help "$cmd")
	missing=
	for n in $names; do
		n=${n#ENTRY.}
		case $n in
		dev.*) group=dev; tail=${n#dev.} ;;
		*.*) group=${n%%.*}; tail=${n#*.} ;;
		*) group= tail=$n ;;
		esac
		grep -qE "(^|[ (|.,])${tail//./\\.}([|,); ]|$)" <<<"$help" || { missing="$missing $n"; continue; }
		[ -z "$group" ] || grep -qE "(^|[ (,])$group(\[\.DEVICE\])?\." <<<"$help" || missing="$missing $n"
	done
	check "$cmd --metric's help lists every metric${missing:+ (src/cli/reporting.c lacks:$missing)}" [ -z "$missing" ]
done
