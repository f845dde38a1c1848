#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, faults and limits: a user SIGKILL cannot end (frozen in a
# cgroup-v1 freezer, as in uninterruptible sleep), SIGKILL of jobmix itself
# (the next run removes the stale work area by its marker), the process
# limits (RLIMIT_NOFILE refused up front or raised), work directories that
# are refused (system directories, symlinks), an unwritable results folder,
# and the modes of what jobmix creates.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-faults.XXXXXX)
FRZ=/sys/fs/cgroup/freezer/jobmix-test.$$
BG=
cleanup() {
	if [ -d "$FRZ" ]; then
		echo THAWED >"$FRZ/freezer.state" 2>/dev/null
		for p in $(cat "$FRZ/tasks" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		sleep 0.2
		rmdir "$FRZ" 2>/dev/null
	fi
	[ -n "$BG" ] && kill -KILL $BG 2>/dev/null
	umount "$T/ro" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
W=$T/work
mkdir -p "$W"

# The first child of pid $1 (a user), waiting up to 5 s for it.
first_user() {
	local u=
	for _ in $(seq 1 100); do
		u=$(pgrep -P "$1" | head -1)
		[ -n "$u" ] && break
		sleep 0.05
	done
	echo "$u"
}

# 1. A user SIGKILL cannot end: jobmix waits --reap-timeout, names it, stops.
if [ "$(id -u)" = 0 ] && [ -d /sys/fs/cgroup/freezer ] && mkdir "$FRZ" 2>/dev/null; then
	for how in timeout sigint; do
		extra=()
		[ $how = timeout ] && extra=(--timeout 2s)
		start=$(date +%s)
		$JOBMIX run tests/data/good/slow.yaml -u 2 -j 4000 --no-warmup --reap-timeout 2s \
			"${extra[@]}" -d "$W" -o "$T/r-$how" -q >/dev/null 2>"$T/err" &
		BG=$!
		victim=$(first_user $BG)
		sleep 0.5
		echo "$victim" >"$FRZ/tasks"
		echo FROZEN >"$FRZ/freezer.state"
		[ $how = sigint ] && { sleep 0.3; kill -INT $BG; }
		# jobmix must come back by itself: the test gives it 20 s
		for _ in $(seq 1 200); do kill -0 $BG 2>/dev/null || break; sleep 0.1; done
		if kill -0 $BG 2>/dev/null; then
			not_ok "stuck user ($how): jobmix still waiting after 20 s"
			kill -KILL $BG
		fi
		wait $BG; rc=$?; BG=
		secs=$(( $(date +%s) - start ))
		f=$(ls "$T"/r-$how/*/run.json 2>/dev/null | head -1)
		check "stuck user ($how): still in D state when jobmix gave up" grep -q '^State:.*D' "/proc/$victim/status"
		check "stuck user ($how): jobmix ended within its limits (${secs}s)" [ "$secs" -le 15 ]
		check "stuck user ($how): the message names the pid" grep -q "pid $victim.*left behind" "$T/err"
		check "stuck user ($how): run.json parses" jq -e . "$f"
		if [ $how = timeout ]; then
			check "stuck user (timeout): exit 3, status failed" bash -c "[ $rc = 3 ] && jq -e '.status == \"failed\"' '$f' >/dev/null"
			check "stuck user (timeout): the point records it and no point follows" jq -e '(.points | length) == 1 and .points[0].failed and .points[0].stuck_users == 1 and (.points[0].reason | test("left behind"))' "$f"
		else
			check "stuck user (sigint): exit 130, status interrupted" bash -c "[ $rc = 130 ] && jq -e '.status == \"interrupted\"' '$f' >/dev/null"
		fi
		echo THAWED >"$FRZ/freezer.state"
		for _ in $(seq 1 50); do [ -e "/proc/$victim" ] || break; sleep 0.1; done
		check "stuck user ($how): gone once thawed (the SIGKILL was pending)" [ ! -e "/proc/$victim" ]
		check "stuck user ($how): work area removed" empty_dir "$W"
	done
	rmdir "$FRZ"
else
	skip "stuck user: needs root and the cgroup-v1 freezer (/sys/fs/cgroup/freezer)"
fi

# 2. SIGKILL of jobmix: its points so far stay readable; the next run in the
# same directory finds the stale work area by its marker and removes it.
$JOBMIX run tests/data/good/e2e.yaml -m linear -u 1-12 -j 40 --no-warmup -d "$W" -o "$T/k" -q >/dev/null 2>&1 &
BG=$!
f=
for _ in $(seq 1 300); do
	f=$(ls "$T"/k/*/run.json 2>/dev/null | head -1)
	[ -n "$f" ] && [ "$(jq '.points | length' "$f" 2>/dev/null || echo 0)" -ge 1 ] && break
	sleep 0.1
done
kill -KILL $BG; wait $BG 2>/dev/null; BG=
sleep 0.3
stale=$(ls -d "$W"/jobmix.* 2>/dev/null | head -1)
check "SIGKILL: run.json parses and holds the points before the kill" jq -e '.status == "running" and (.points | length) >= 1 and all(.points[]; .failed == false)' "$f"
check "SIGKILL: the work area is left, with its marker naming the pid" grep -q "^pid " "$stale/.jobmix-area"
mkdir "$W/jobmix.999999.0"   # not ours: no marker
$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -d "$W" -o "$T/k2" -q >/dev/null 2>"$T/err"; rc=$?
check "SIGKILL: the next run exits 0" [ $rc = 0 ]
check "SIGKILL: the next run says it removed the stale area" grep -q "removed the work area '$stale'" "$T/err"
check "SIGKILL: the stale area is gone; a directory without a marker is left alone" [ "$(ls -A "$W")" = jobmix.999999.0 ]
rmdir "$W/jobmix.999999.0"

# 3. RLIMIT_NOFILE: 200 thread users x 16 open files cannot fit a hard limit
# of 1024 (refused before anything starts); a low soft limit is raised.
if command -v prlimit >/dev/null; then
	before=$(find "$T" | sort | md5sum)
	prlimit --nofile=1024:1024 $JOBMIX run tests/data/good/fds.yaml -u 200 -d "$T/fw" -o "$T/fr" >/dev/null 2>"$T/err"; rc=$?
	check "RLIMIT_NOFILE too low: exit 2" [ $rc = 2 ]
	check "RLIMIT_NOFILE too low: the message names the limit, the need and the hard limit" grep -q "needs [0-9]* open files (RLIMIT_NOFILE) but the hard limit is 1024" "$T/err"
	check "RLIMIT_NOFILE too low: nothing created" [ "$(find "$T" | sort | md5sum)" = "$before" ]
	prlimit --nofile=256:16384 $JOBMIX run tests/data/good/fds.yaml -u 200 --no-warmup -d "$T/fw" -o "$T/fr" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls "$T"/fr/*/run.json 2>/dev/null | head -1)
	check "RLIMIT_NOFILE soft 256, hard 16384: the soft limit is raised and 200 thread users run" bash -c "[ $rc = 0 ] && jq -e '.points[0].users == 200 and (.points[0].failed | not)' '$f' >/dev/null"
	[ $rc = 0 ] || cat "$T/err"
	prlimit --nofile=1024:1024 $JOBMIX run tests/data/good/fds.yaml -m converge --no-warmup --max-points 1 -d "$T/fw" -o "$T/fa" -q >/dev/null 2>"$T/err"; rc=$?
	check "RLIMIT_NOFILE: users.end auto is bounded by the limit instead of refused" [ $rc = 0 ]
else
	skip "RLIMIT_NOFILE: prlimit (util-linux) not found"
fi

# 4. Work directories jobmix refuses, before it changes anything.
ln -s /etc "$T/etc-link"
before=$(find "$T" | sort | md5sum)
for d in / /etc /usr/local/jobmix-work "$T/etc-link/jobmix-work" /proc/self; do
	$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 -d "$d" -o "$T/rd" >/dev/null 2>"$T/err"; rc=$?
	check "work directory $d: refused, exit 2" [ $rc = 2 ]
	check "work directory $d: the message says why" grep -Eq "system directory|symlink" "$T/err"
done
check "refused work directories: nothing created anywhere" bash -c "[ '$(find "$T" | sort | md5sum)' = '$before' ] && [ ! -e /etc/jobmix-work ] && [ ! -e /usr/local/jobmix-work ]"

# 5. An unwritable results folder: a clear error before any load starts.
if [ "$(id -u)" = 0 ] && mkdir -p "$T/ro" && mount -t tmpfs -o ro,size=1m tmpfs "$T/ro" 2>/dev/null; then
	$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 -d "$T/rw" -o "$T/ro/results" >/dev/null 2>"$T/err"; rc=$?
	check "unwritable results folder: exit 2" [ $rc = 2 ]
	check "unwritable results folder: the message names it" grep -q "$T/ro/results.*Read-only file system" "$T/err"
	check "unwritable results folder: no work directory made, no load run" [ ! -e "$T/rw" ]
	umount "$T/ro"
else
	skip "unwritable results folder: needs root to mount a read-only tmpfs"
fi

# 6. What jobmix creates in the work directory: folders 0700, files 0600.
$JOBMIX run tests/data/good/slow.yaml -u 2 -j 4000 --no-warmup -d "$T/new" -o "$T/m" -q >/dev/null 2>&1 &
BG=$!
for _ in $(seq 1 100); do [ -n "$(find "$T/new" -type f 2>/dev/null | head -1)" ] && break; sleep 0.05; done
sleep 0.3
modes=$(find "$T/new" -mindepth 0 \( -type d -printf 'd %m\n' \) -o \( -type f -printf 'f %m\n' \) | sort -u)
kill -INT $BG; wait $BG 2>/dev/null; BG=
check "work area modes: folders 0700, files 0600 (saw: $(echo $modes))" bash -c "[ -n '$modes' ] && ! grep -vqE '^(d 700|f 600)$' <<<'$modes'"
check "a work directory jobmix made is removed with its area" [ ! -e "$T/new" ]
