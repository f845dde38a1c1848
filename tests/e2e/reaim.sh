#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# re-aim compatibility end to end: `jobmix reaim` run the way lkp-tests runs
# re-aim, its output read by a copy of the numeric-line rule of lkp's
# programs/reaim/parse (stats/reaim until 2023) and checked against the
# run.json of the same run;
# -l's result files; `jobmix import`; `jobmix run --job` and `-u N%`; and
# the refusals (bad workfile, missing config, unknown re-aim option: exit 2,
# the line named, nothing written).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
J=$(realpath "$JOBMIX")   # it cd's into a run folder: an absolute path
T=$(mktemp -d /tmp/jobmix-reaim.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/run" "$T/disk"
printf '# lkp-style config\nFILESIZE 10k\nPOOLSIZE 1m\nDISKDIR %s\n' "$T/disk" >"$T/run/reaim.config"
printf '# a single-job workfile, as lkp writes them\n10 disk_rr\n' >"$T/run/workfile.disk_rr"

# The numeric-line rule of lkp-tests' programs/reaim/parse: lines matching
# ^[ \d.]+$, fields in re-aim's order; "Max Jobs per Minute N" (the old
# stats/reaim read it; programs/reaim/parse takes the largest jobs_per_min,
# which for one point is the same figure).
lkp_rule() {
	perl -ne '
		if (/^[ \d.]+$/) {
			my @f = split;
			my @k = qw(num parent_time child_systime child_utime jobs_per_min
				   jobs_per_min_child std_dev_time std_dev_percent jti);
			print join(" ", map { "$k[$_]=$f[$_]" } 0..$#f), "\n";
		} elsif (/^Max Jobs per Minute ([\d.]+)/) {
			print "max_jobs_per_min=$1\n";
		}'
}

# 1. lkp's command line; its output through lkp's rule; the figures against run.json
(cd "$T/run" && "$J" reaim -s1 -e2 -i1 -j 10 -f workfile.disk_rr) >"$T/out" 2>"$T/err"
rc=$?
check "reaim -s1 -e2 -i1 -j 10 -f WORKFILE: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
lkp_rule <"$T/out" >"$T/parsed"
check "lkp's rule finds two numeric lines" [ "$(grep -c '^num=' "$T/parsed")" = 2 ]
check "every numeric line has nine fields" bash -c "grep '^num=' '$T/parsed' | awk '{ if (NF != 9) exit 1 }'"
check "lkp's rule finds Max Jobs per Minute" grep -q '^max_jobs_per_min=' "$T/parsed"
check "the header is re-aim's" grep -q '^Num     Parent   Child   Child  Jobs per   Jobs/min/  Std_dev  Std_dev  JTI' "$T/out"
check "sync: re-aim's default message" grep -q 'Using default sync behavior' "$T/out"
run=$(ls -d "$T/run/results/"*-disk_rr 2>/dev/null | head -1)
j=$run/run.json
check "a jobmix run folder beside it (./results)" [ -f "$j" ]
check "stderr names the run folder" grep -q "results: results/$(basename "$run")" "$T/err"
check "run.json: sync exec, jobs 10, users 1..2" jq -e '.workload.resolved.sync == "exec" and .workload.resolved.users.jobs_per_user == 10 and ([.points[].users] == [1,2]) and .status == "complete"' "$j"
# two decimals as printed: equal to run.json's value rounded the same way
same2() { [ "$1" = "$(awk -v v="$2" 'BEGIN { printf "%.2f", v }')" ]; }
i=0
while read -r line; do
	declare -A f=()
	for kv in $line; do f[${kv%%=*}]=${kv#*=}; done
	p=".points[$i]"
	check "line $i: Num = users" [ "${f[num]}" = "$(jq "$p.users" "$j")" ]
	check "line $i: Parent_Time = elapsed_s" same2 "${f[parent_time]}" "$(jq "$p.elapsed_s" "$j")"
	check "line $i: Child_SysTime = sys_cpu_s" same2 "${f[child_systime]}" "$(jq "$p.sys_cpu_s" "$j")"
	check "line $i: Child_UTime = user_cpu_s" same2 "${f[child_utime]}" "$(jq "$p.user_cpu_s" "$j")"
	check "line $i: Jobs/min = jpm" same2 "${f[jobs_per_min]}" "$(jq "$p.jpm" "$j")"
	check "line $i: Jobs/min/child = jpm_per_user" same2 "${f[jobs_per_min_child]}" "$(jq "$p.jpm_per_user" "$j")"
	check "line $i: Std_dev_Time = user_time_s.stddev" same2 "${f[std_dev_time]}" "$(jq "$p.user_time_s.stddev" "$j")"
	check "line $i: Std_dev_Percent = stddev / mean" same2 "${f[std_dev_percent]}" "$(jq "$p.user_time_s | if .mean > 0 then 100 * .stddev / .mean else 0 end" "$j")"
	check "line $i: JTI = jti, whole" [ "${f[jti]}" = "$(jq "$p.jti | floor" "$j")" ]
	i=$((i + 1))
done < <(grep '^num=' "$T/parsed")
check "Max Jobs per Minute = summary.max_jpm" same2 "$(sed -n 's/^max_jobs_per_min=//p' "$T/parsed")" "$(jq .summary.max_jpm "$j")"
check "the numeric lines are the largest JPM's" same2 "$(sed -n 's/^max_jobs_per_min=//p' "$T/parsed")" "$(jq '[.points[].jpm] | max' "$j")"

# 2. -l PREFIX: re-aim's result files; -y: sync none
(cd "$T/run" && "$J" reaim -s2 -e2 -j 5 -f workfile.disk_rr -c reaim.config -l "$T/run/lg" -y --results "$T/res2") >"$T/out2" 2>"$T/err2"
check "-l -y: exit 0" [ $? = 0 ]
check "-l: PREFIX.log with re-aim's header and one row" bash -c "grep -q '^Forks  Jobs/min' '$T/run/lg.log' && [ \$(grep -cE '^2 ' '$T/run/lg.log') = 1 ]"
check "-l: PREFIX.csv with re-aim's columns and one row" bash -c "head -1 '$T/run/lg.csv' | grep -q '^Forks,JPM,JPM_C,JPS_C,parent_tm' && [ \$(wc -l <'$T/run/lg.csv') = 2 ]"
j2=$(ls "$T"/res2/*/run.json 2>/dev/null | head -1)
check "-y: sync none in run.json, and re-aim's message" bash -c "[ \"\$(jq -r .workload.resolved.sync '$j2')\" = none ] && grep -q 'Not executing sync' '$T/out2'"
check "-l: the csv's JPM is run.json's" same2 "$(sed -n '2p' "$T/run/lg.csv" | cut -d, -f2)" "$(jq '.points[0].jpm' "$j2")"

# 3. refusals: exit 2, the line named, nothing written
refuse() { # refuse WHAT PATTERN CMD... (run in $T/run; nothing may appear in $T/run/results-x)
	local what=$1 pat=$2; shift 2
	local before after
	before=$(ls -R "$T/run" | md5sum)
	(cd "$T/run" && "$@") >"$T/rout" 2>"$T/rerr"
	local rc=$?
	after=$(ls -R "$T/run" | md5sum)
	if [ $rc = 2 ] && grep -q -- "$pat" "$T/rerr" && [ "$before" = "$after" ]; then
		ok "$what: exit 2, '$pat', nothing written"
	else
		not_ok "$what: rc $rc, stderr: $(head -3 "$T/rerr")"
	fi
}
printf '10 disk_rr\n5 disk_frobnicate\n' >"$T/run/bad.wf"
printf '10 disk_rr\nFILESIZE 10K\n' >"$T/run/bad2.wf"
refuse "reaim, unknown test in the workfile" "bad.wf:2: unknown test 'disk_frobnicate'" "$J" reaim -f bad.wf -c reaim.config
refuse "reaim, malformed workfile line" "bad2.wf:2: expected 'WEIGHT TESTNAME'" "$J" reaim -f bad2.wf -c reaim.config
refuse "reaim, missing config" "nope.config: cannot open: No such file" "$J" reaim -f workfile.disk_rr -c nope.config
refuse "reaim, unknown re-aim option" "unknown re-aim option '-k'" "$J" reaim -k -f workfile.disk_rr
refuse "reaim, unknown long option" "unknown re-aim option '--frob'" "$J" reaim --frob -f workfile.disk_rr
refuse "reaim, AIM9 mode refused" "not supported" "$J" reaim -o -f workfile.disk_rr
refuse "reaim, -s above -e" "Cannot run backwards" "$J" reaim -s4 -e2 -f workfile.disk_rr
printf 'FILESIZE 10k\nBOGUS 1\n' >"$T/run/bad.config"
refuse "reaim, bad config line" "bad.config:2: unknown line 'BOGUS'" "$J" reaim -f workfile.disk_rr -c bad.config
refuse "import, bad workfile" "bad.wf:2: unknown test" "$J" import bad.wf -o out.yaml
refuse "import, missing config" "nope.config: cannot open: No such file" "$J" import workfile.disk_rr -c nope.config -o out.yaml
refuse "run --job, unknown kind" "unknown job 'disk_r' (did you mean 'disk_rr'?)" "$J" run --job disk_r -u 1 -o results
refuse "run --job with a file too" "without a workload file" "$J" run --job disk_rr workfile.disk_rr

# 4. import: every shipped AIM7 mix's workfile; the YAML checks and runs
for w in fserver dbase shared compute five_sec high_systime disk new_fserver new_dbase; do
	"$J" import "tests/data/reaim/workfile.$w" -c "$T/run/reaim.config" -o "$T/$w.yaml" 2>/dev/null
	check "import workfile.$w, then check it" "$J" check -q "$T/$w.yaml"
	check "import workfile.$w: the shipped mix's jobs and weights" bash -c "diff <('$J' check '$T/$w.yaml' | awk '/- job:/ {j=\$3} /weight:/ && j {print j, \$2; j=\"\"}') <('$J' check workloads/$w.yaml | awk '/- job:/ {j=\$3} /weight:/ && j {print j, \$2; j=\"\"}')"
done
check "import names its source in a comment" grep -q "^# imported by .jobmix import. from the re-aim workfile tests/data/reaim/workfile.fserver" "$T/fserver.yaml"
check "import to stdout" bash -c "'$J' import tests/data/reaim/workfile.five_sec | grep -q '^name: five_sec$'"

# 5. run --job and -u N%: the same results as a file
cpus=$(nproc)
"$J" run --job disk_rr:3,creat_clo -u 100% -j 4 -d "$T/w" -o "$T/res3" -P files.filesize=20k -q >/dev/null 2>"$T/err3"
check "run --job ... -u 100%: exit 0" [ $? = 0 ]
j3=$(ls "$T"/res3/*-adhoc/run.json 2>/dev/null | head -1)
check "--job: the resolved mix in run.json" jq -e '[.workload.resolved.mix[] | [.job, .weight]] == [["disk_rr",3],["creat_clo",1]] and .workload.resolved.filesize == 20480' "$j3"
check "-u 100%: users = online CPUs, recorded with the spec" jq -e --argjson c "$cpus" '.users.spec == "100%" and .users.cpus == $c and .users.resolved == ($c | tostring) and [.points[].users] == [$c]' "$j3"
