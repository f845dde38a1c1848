#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: user counts the kernel's task limits cannot hold are refused
# before anything forks (exit 2 within 2 s, no work area, no results, no
# fork in an strace of it), naming the limit that binds with its numbers:
# -u past pid_max / threads-max in process and thread mode, an adaptive
# search's bound; as root, in a pids cgroup of its own (v1 or v2), a count
# whose users fit alone but not with their forking jobs' children.
# Every count run here is one that must be refused: never one that fits.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

T=$(mktemp -d /tmp/jobmix-tasks.XXXXXX)
CG=
cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

pid_max=$(cat /proc/sys/kernel/pid_max)
threads_max=$(cat /proc/sys/kernel/threads-max)
limit=$(( pid_max < threads_max ? pid_max : threads_max ))
name=$( [ "$pid_max" -le "$threads_max" ] && echo pid_max || echo threads-max)
# 200000 as reported, or more than the smaller limit where that is larger
U=$(( limit < 200000 ? 200000 : limit + 1 ))
margin() { local m=$(( ($1 + 9) / 10 )); echo $(( m < 256 ? 256 : m )); }

# Is "$T/err" the refusal of $1 users of $2 tasks each, its numbers consistent?
refused_right() {
	local users=$1 per=$2 line lim used m fit
	line=$(grep -m1 "users need" "$T/err") || return 1
	[[ $line =~ "$users users need $(( users * per )) tasks".*", but "(.*)" is "([0-9]+)" and "([0-9]+)" are in use (with a margin of "([0-9]+)", at most "([0-9]+)" users fit)" ]] || return 1
	lim=${BASH_REMATCH[2]} used=${BASH_REMATCH[3]} m=${BASH_REMATCH[4]} fit=${BASH_REMATCH[5]}
	[ "$m" = "$(margin "$lim")" ] || return 1
	[ "$fit" = $(( lim > used + m ? (lim - used - m) / per : 0 )) ] || return 1
	[ "$fit" -lt "$users" ]
}
# Run jobmix "$@" as a refusal: exit code, seconds, stderr in $T/err
refuse() {
	local t0 t1
	t0=$(date +%s%N)
	$JOBMIX run "$@" -d "$T/w" -o "$T/r" >"$T/out" 2>"$T/err"; rc=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
}
nothing_made() { [ ! -e "$T/w" ] && [ ! -e "$T/r" ]; }

# 1. the reported case: -u 200000 of quick (one task a user)
refuse workloads/quick.yaml -u $U
check "-u $U: exit 2" [ $rc = 2 ]
check "-u $U: refused in under 2 s (${ms} ms)" [ $ms -lt 2000 ]
check "-u $U: names $name, its numbers and the fix" grep -q "^jobmix run: -u $U: $U users need $U tasks, but $name is $limit and [0-9]* are in use (with a margin of $(margin $limit), at most [0-9]* users fit); lower -u$" "$T/err"
check "-u $U: the numbers add up" refused_right $U 1
check "-u $U: no work area, no results" nothing_made
if [ -n "${JOBMIX_SANITIZED:-}" ]; then
	skip "-u $U: forks not watched in a sanitizer build (LeakSanitizer clones at exit)"
elif command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
	strace -f -qq -e trace=fork,vfork,clone,clone3 -o "$T/trace" $JOBMIX run workloads/quick.yaml -u $U -d "$T/w" -o "$T/r" >/dev/null 2>&1
	check "-u $U: nothing forked (strace)" bash -c "! grep -Eq 'clone|fork' '$T/trace'"
else
	skip "-u $U: no usable strace to watch for forks"
fi

# 2. a linear list whose last count is too many, thread mode
refuse workloads/quick.yaml -u 1,2,$U --threads
check "--threads -u 1,2,$U: exit 2" [ $rc = 2 ]
check "--threads -u 1,2,$U: no work area, no results" nothing_made
check "--threads -u 1,2,$U: the largest count refused" refused_right $U 1

# 3. an adaptive search's bound
refuse workloads/quick.yaml -m peak --max-users $U
check "-m peak --max-users $U: exit 2" [ $rc = 2 ]
check "-m peak --max-users $U: no work area, no results" nothing_made
check "-m peak --max-users $U: says so" grep -q "^jobmix run: --max-users $U: .*; lower --max-users$" "$T/err"
check "-m peak --max-users $U: the numbers add up" refused_right $U 1

# 4. as root, in a pids cgroup of 2000 tasks: 400 users fit alone, not with
#    fork_test's children and sync: exec's programs (5 tasks a user)
if [ "$(id -u)" != 0 ]; then
	skip "pids cgroup: not root"
else
	v1=$(awk '$9 == "cgroup" && $NF ~ /(^|,)pids(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$v1" ] && [ -w "$v1" ]; then
		CG=$v1/jobmix-tasks-$$
	elif [ -n "$v2" ] && grep -qw pids "$v2/cgroup.subtree_control" 2>/dev/null; then
		CG=$v2/jobmix-tasks-$$
	fi
	if [ -n "$CG" ] && mkdir "$CG" 2>/dev/null && echo 2000 >"$CG/pids.max"; then
		(echo $BASHPID >"$CG/cgroup.procs" && exec $JOBMIX run tests/data/good/forks.yaml -u 400 -d "$T/w" -o "$T/r") >/dev/null 2>"$T/err"; rc=$?
		check "pids cgroup: -u 400 of a forking mix refused, exit 2" [ $rc = 2 ]
		check "pids cgroup: names the cgroup and 5 tasks a user" grep -q "^jobmix run: -u 400: 400 users need 2000 tasks (5 a user), but pids.max of cgroup $CG is 2000 and [0-9]* are in use (with a margin of 256, at most [0-9]* users fit); lower -u$" "$T/err"
		check "pids cgroup: the numbers add up" refused_right 400 5
		check "pids cgroup: no work area, no results" nothing_made
	else
		CG=
		skip "pids cgroup: cannot make one (no writable v1 pids hierarchy, no pids in v2's subtree_control)"
	fi
fi
