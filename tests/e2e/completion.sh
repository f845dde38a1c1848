#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bash completion (tools/jobmix.bash-completion): sub-commands, options from
# each command's help, workload names, job kinds, option values, and the IO
# schedulers of the devices present.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
. tools/jobmix.bash-completion
JM=${JOBMIX}
# comp WORD...: the completions of the last word, one a line
comp() {
	COMP_WORDS=("$JM" "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_jobmix
	printf '%s\n' "${COMPREPLY[@]}"
}
# has "words" WORD...: every one of words is offered
has() {
	local want=$1 w out
	shift
	out=$(comp "$@")
	for w in $want; do grep -qx -- "$w" <<<"$out" || return 1; done
}

check "complete -F _jobmix jobmix is registered" [ "$(complete -p jobmix 2>/dev/null)" = "complete -F _jobmix jobmix" ]
check "sub-commands from jobmix help" has "run check workloads jobs sched restore report compare plot import reaim help" ""
check "sub-commands by prefix" [ "$(comp r | tr '\n' ' ')" = "run restore report reaim " ]
check "run options from its help" has "--users --mode --sync --sched --device --rounds --no-warmup -u -j" run -
check "run --s: only --s options" [ "$(comp run --s | tr '\n' ' ')" = "--set --seed --sync --settle-timeout --sched --scratch " ]
check "an option listed once" [ "$(comp run --or | tr '\n' ' ')" = "--order " ]
check "report options" has "--format --by --baseline --device-stats" report --
check "sched options" [ "$(comp sched -- | tr '\n' ' ')" = "--restore " ]
check "workload names for run" has "fserver quick high_systime" run ""
check "workload names by prefix" [ "$(comp run fse)" = fserver ]
check "workload names for check" has "dbase" check db
check "workload names for report -w" has "fserver" report -w f
check "job kinds for jobs" has "exec_test" jobs exe
check "every job kind is offered" [ "$(comp jobs "" | wc -l)" = "$($JM jobs | wc -l)" ]
check "commands for help" [ "$(comp help wo)" = workloads ]
check "-m values" [ "$(comp run -m c | tr '\n' ' ')" = "converge crossover " ]
check "--sync values" has "none file global exec" run --sync ""
check "--format values" has "text md csv json html" report -f ""
check "--opt=value: bash's split at '='" [ "$(comp run --sync = gl)" = global ]

scheds=$(cat /sys/block/*/queue/scheduler 2>/dev/null | tr -d '[]' | tr ' ' '\n' | sed '/^$/d' | sort -u)
if [ -n "$scheds" ]; then
	check "-s: every scheduler the devices offer, and all" has "all $scheds" run -s ""
	first=$(head -1 <<<"$scheds")
	check "-s A,: the list's next element" has "$first,$(tail -1 <<<"$scheds")" run -s "$first,"
	check "-s A,: no 'all' inside a list" [ -z "$(comp run -s "$first," | grep -x "$first,all")" ]
else
	skip "no /sys/block/*/queue/scheduler here: scheduler completion not checked"
fi
dev=$(ls /sys/block 2>/dev/null | head -1)
if [ -n "$dev" ]; then
	check "--device: block devices" has "$dev" run --device ""
	check "sched DEVICE: block devices" has "$dev" sched ""
else
	skip "no /sys/block devices: device completion not checked"
fi

# option values come from each command's option table (jobmix help --values)
check "help --values run -m: the table's modes" [ "$($JM help --values run -m | tr '\n' ' ')" = "linear peak converge crossover " ]
check "help --values: --mode and --mode= alike" [ "$($JM help --values run --mode=)" = "$($JM help --values run -m)" ]
$JM help --values run --threads >/dev/null 2>&1; rc=$?
check "help --values on a flag: exit 2" [ $rc = 2 ]
$JM help --values run --nosuch >/dev/null 2>&1; rc=$?
check "help --values on an unknown option: exit 2" [ $rc = 2 ]
$JM help --values nosuch -x >/dev/null 2>&1; rc=$?
check "help --values on an unknown command: exit 2" [ $rc = 2 ]
$JM help --values reaim -d >/dev/null 2>&1; rc=$?
check "help --values on an optional value (reaim -d): exit 2" [ $rc = 2 ]
check "help --values run --seed: a value, nothing to offer" [ -z "$($JM help --values run --seed)" ]
check "help --values is not listed in help's help" [ -z "$($JM help help | grep -e --values)" ]
check "the script lists no option value of its own" [ -z "$(grep -nE 'crossover|sequential|converge max|png svg|text md' tools/jobmix.bash-completion)" ]
check "--progress values: the table's, reaim included" has "auto plain json none reaim" run --progress ""
check "compare -f: no html (its own row of the shared table)" [ "$(comp compare -f h)" = "" ]
check "report -f h: html" [ "$(comp report -f h)" = html ]
check "plot -t values" [ "$(comp plot --term "" | tr '\n' ' ')" = "png svg " ]
check "--qc values, shared by report, compare and plot" [ "$(comp compare --qc m)" = max ]
check "run --job: job kinds" has exec_test run --job exe
check "run --job A,: the list's next kind" has "exec_test,add_long" run --job exec_test,add_l
check "a value with nothing to offer: nothing" [ -z "$(comp run --seed "")" ]
check "after a flag: the positional words again" [ "$(comp run --threads fse)" = fserver ]
# every option the help lists with a value takes one by the table, every flag none
bad=
for c in $($JM help | awk '/^  [a-z]/ { print $1 }'); do
	while read -r o v; do
		$JM help --values "$c" "$o" >/dev/null 2>&1; rc=$?
		if [ -n "$v" ] && [ $rc != 0 ] || [ -z "$v" ] && [ $rc = 0 ]; then bad="$bad $c:$o"; fi
	done < <($JM help "$c" | awk 'match($0, /^ +-/) && RLENGTH <= 8 { sub(/^ +/, ""); sub(/  .*/, "")
		n = split($0, part, /, /); split(part[n], last, " ")
		for (i = 1; i <= n; i++) { split(part[i], w, " "); if (w[1] ~ /^-/) print w[1], last[2] } }')
done
check "help's value column and the table's agree${bad:+ (differ:$bad)}" [ -z "$bad" ]
