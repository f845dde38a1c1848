#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: real runs of small workloads on a temporary directory; checks
# run.json's keys and numbers, points.csv, the work area, failures, timeouts
# and signals.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e.XXXXXX)
trap 'umount "$T/ramfs" "$T/small" 2>/dev/null; rm -rf "$T"' EXIT
W=$T/work; R=$T/results
mkdir -p "$W"

# 1. a linear ramp of 1-3 users
out=$($JOBMIX run tests/data/good/e2e.yaml -u 1-3 -j 10 -d "$W" -o "$R" 2>"$T/err")
rc=$?
check "run exits 0" [ $rc = 0 ]
[ $rc = 0 ] || cat "$T/err"
run=$(ls -d "$R"/*-e2e 2>/dev/null | head -1)
j=$run/run.json
check "run folder named <timestamp>-<workload>" [ -n "$run" ]
check "output names the run folder" grep -q "results: $run" <<<"$out"
check "output has one line per load point" [ "$(grep -cE '^ +[0-9]+ +[0-9.]+ +[0-9.]+ ' <<<"$out")" = 3 ]
check "schema jobmix-run/10" [ "$(jq -r .schema "$j")" = jobmix-run/10 ]
check "status complete" [ "$(jq -r .status "$j")" = complete ]
check "three points" [ "$(jq '.points | length' "$j")" = 3 ]
check "users 1,2,3" [ "$(jq -c '[.points[].users]' "$j")" = "[1,2,3]" ]
check "env.kernel is uname -r" [ "$(jq -r .env.kernel "$j")" = "$(uname -r)" ]
check "env has cpus, mem, fs, device, scheduler" jq -e '.env | .cpus >= 1 and .mem_bytes > 0 and (.fs_type | length) > 0 and has("device") and has("scheduler") and has("mount_options") and has("hostname") and has("jobmix_version")' "$j"
check "workload sha256 matches the file" [ "$(jq -r .workload.sha256 "$j")" = "$(sha256sum tests/data/good/e2e.yaml | cut -d' ' -f1)" ]
check "labels present" jq -e 'has("labels")' "$j"
for i in 0 1 2; do
	p=".points[$i]"
	u=$(jq "$p.users" "$j"); jpu=$(jq "$p.jobs_per_user" "$j"); el=$(jq "$p.elapsed_s" "$j"); jpm=$(jq "$p.jpm" "$j")
	check "point $i: jpm = users x jobs x 60 / elapsed" approx "$jpm" "$(awk -v u="$u" -v n="$jpu" -v e="$el" 'BEGIN { print u * n * 60 / e }')" 0.001
	check "point $i: jpm_per_user = jpm / users" approx "$(jq "$p.jpm_per_user" "$j")" "$(awk -v a="$jpm" -v u="$u" 'BEGIN { print a / u }')" 0.001
	check "point $i: metrics present and sane" jq -e "$p | .failed == false and .failed_users == 0 and .jti >= 0 and .jti <= 100 and .user_time_s.max <= .elapsed_s + 1e-6 and .user_time_s.min > 0 and .user_cpu_s >= 0 and .sys_cpu_s >= 0" "$j"
	check "point $i: per-kind figures" jq -e "$p.jobs_by_kind.disk_rr | .runs > 0 and .p50_ms > 0 and .p99_ms >= .p50_ms and .rbytes > 0" "$j"
done
check "single samples: the 95% CI is unknown (null), not zero-width" jq -e '.summary.by_users | length == 3 and all(.n == 1 and .ci95_lo == null and .ci95_hi == null)' "$j"
check "jobs per user after rounding (weights 20,20,10,10,10,10 of 80 x 10: 3+3+1+1+1+1)" [ "$(jq '.points[0].jobs_per_user' "$j")" = 10 ]
check "summary max_jpm is the largest point" [ "$(jq '.summary.max_jpm == ([.points[].jpm] | max)' "$j")" = true ]
check "summary max_jpm_users" [ "$(jq '.summary.max_jpm_users as $u | [.points[] | select(.users == $u)] | length' "$j")" -ge 1 ]
check "points.csv: header + 3 rows" [ "$(wc -l <"$run/points.csv")" = 4 ]
check "no temp files left in the run folder" [ -z "$(ls "$run" | grep -v -e '^run.json$' -e '^points.csv$')" ]
check "work area empty afterwards" empty_dir "$W"
check "every point records its settling: dirty and writeback bytes at its start, the wait" jq -e '.points | length == 3 and all(.settle | (.dirty_bytes | type) == "number" and (.writeback_bytes | type) == "number" and .wait_s >= 0 and .wait_s < 11 and (.drained | type) == "boolean" and .dropped == false)' "$j"
check "the warm-up is recorded: the first point's users, not a point" jq -e '.warmup.users == 1 and .warmup.failed == false and .warmup.jpm > 0 and (.points | length) == 3' "$j"
check "settle and warm-up in the resolved workload" jq -e '.workload.resolved.measure | .settle == true and .warmup == true and .settle_timeout_s == 10 and .drop_caches == false' "$j"

# 1b. --order shuffle measures the list in a seeded order; --no-warmup, --no-settle
$JOBMIX run tests/data/good/e2e.yaml -m linear -u 1-5 -j 4 --order shuffle --seed 3 --no-warmup -d "$W" -o "$T/sh" -q >/dev/null 2>&1
$JOBMIX run tests/data/good/e2e.yaml -m linear -u 1-5 -j 4 --order shuffle --seed 3 --no-settle -d "$W" -o "$T/sh2" -q >/dev/null 2>&1
f1=$(ls "$T"/sh/*/run.json); f2=$(ls "$T"/sh2/*/run.json)
check "shuffle: every user count once, not ascending" jq -e '[.points[].users] as $u | ($u | sort) == [1,2,3,4,5] and $u != [1,2,3,4,5]' "$f1"
check "shuffle: the same seed gives the same order" [ "$(jq -c '[.points[].users]' "$f1")" = "$(jq -c '[.points[].users]' "$f2")" ]
check "shuffle: by_users still by users" jq -e '[.summary.by_users[].users] == [1,2,3,4,5]' "$f1"
check "--no-warmup: warmup null" jq -e '.warmup == null' "$f1"
check "--no-settle: a plain sync, timed; nothing else known" jq -e 'all(.points[]; .settle.wait_s >= 0 and .settle.dirty_bytes == null and .settle.drained == null)' "$f2"
$JOBMIX run tests/data/good/e2e.yaml -m peak --order shuffle -d "$W" -o "$T/sh3" >/dev/null 2>"$T/err"; rc=$?
check "--order shuffle with an adaptive ramp: exit 2, nothing written" bash -c "[ $rc = 2 ] && [ ! -e '$T/sh3' ]"
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then
	$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 4 --drop-caches --no-warmup -d "$W" -o "$T/dc" -q >/dev/null 2>&1
	check "--drop-caches: each point dropped the page cache" jq -e 'all(.points[]; .settle.dropped == true)' "$(ls "$T"/dc/*/run.json)"
else
	skip "--drop-caches: needs root"
fi

# 2. a second run never overwrites the first
$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 4 -d "$W" -o "$R" -q >/dev/null 2>&1
check "second run gets its own folder" [ "$(ls -d "$R"/*-e2e* | wc -l)" = 2 ]

# 3. bad input: exit 2, nothing created
before=$(find "$T" | sort | md5sum)
$JOBMIX run tests/data/good/e2e.yaml -u 3-1 -d "$W" -o "$R" >/dev/null 2>"$T/err"; rc=$?
check "bad -u: exit 2" [ $rc = 2 ]
check "bad -u: message names it" grep -q -- "-u" "$T/err"
$JOBMIX run tests/data/good/e2e.yaml -m sideways -d "$W" -o "$R" >/dev/null 2>&1; rc=$?
check "bad -m: exit 2" [ $rc = 2 ]
$JOBMIX run tests/data/good/e2e.yaml --sync maybe -d "$W" -o "$R" >/dev/null 2>&1; rc=$?
check "bad --sync: exit 2" [ $rc = 2 ]
check "bad input changed nothing on disk" [ "$(find "$T" | sort | md5sum)" = "$before" ]

# 4. a job that fails: O_DIRECT on ramfs (tmpfs takes O_DIRECT on new kernels)
if [ "$(id -u)" = 0 ] && mkdir -p "$T/ramfs" && mount -t ramfs ramfs "$T/ramfs" 2>/dev/null; then
	S=$T/ramfs
	$JOBMIX run tests/data/good/dio.yaml -u 1-2 -d "$S" -o "$T/wf" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls -d "$T"/wf/*-dio | head -1)/run.json
	check "failed warm-up: exit 3, status failed, no point" bash -c "[ $rc = 3 ] && jq -e '.status == \"failed\" and (.points | length) == 0' '$f' >/dev/null"
	check "failed warm-up: recorded with its reason" jq -e '.warmup.failed and (.warmup.reason | test("O_DIRECT"))' "$f"
	check "failed warm-up: work area empty" empty_dir "$S"
	$JOBMIX run tests/data/good/dio.yaml -u 1-2 --no-warmup -d "$S" -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls -d "$R"/*-dio | head -1)/run.json
	check "failed point: exit 3" [ $rc = 3 ]
	check "failed point: status failed" [ "$(jq -r .status "$f")" = failed ]
	check "failed point: reason names O_DIRECT" jq -e '.points[-1].failed and (.points[-1].reason | test("O_DIRECT"))' "$f"
	check "failed point: not counted in max_jpm" jq -e '.summary.max_jpm == null or .summary.max_jpm == 0' "$f"
	check "failed point: work area empty" empty_dir "$S"
	umount "$S"
else
	skip "not root (or no ramfs): the O_DIRECT failure case needs a ramfs mount"
fi

# 4a. a failed point does not end the run: the ramp brackets below it (ENOSPC above ~5 users)
if [ "$(id -u)" = 0 ] && mkdir -p "$T/small" && mount -t tmpfs -o size=6m tmpfs "$T/small" 2>/dev/null; then
	$JOBMIX run tests/data/good/fill.yaml -m converge --max-users 64 --no-warmup -d "$T/small/w" -o "$T/fill" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls "$T"/fill/*/run.json)
	check "failed points in a ramp: exit 3, status failed" bash -c "[ $rc = 3 ] && jq -e '.status == \"failed\"' '$f' >/dev/null"
	check "failed points in a ramp: measured on below the first failure" jq -e '(.points | map(.failed) | index(true)) as $i | $i != null and (.points[$i].users) as $fu | ([.points[$i + 1:][] | select(.failed | not)] | length) >= 1 and all(.points[$i + 1:][]; .users < $fu)' "$f"
	check "failed points in a ramp: every failure above every success" jq -e '([.points[] | select(.failed | not) | .users] | max) < ([.points[] | select(.failed) | .users] | min)' "$f"
	check "failed points in a ramp: each failure names ENOSPC" jq -e '[.points[] | select(.failed)] | length >= 1 and all(.reason | test("No space left on device"))' "$f"
	check "failed points in a ramp: the work dir jobmix made is gone" [ ! -e "$T/small/w" ]
	umount "$T/small"
else
	skip "not root (or no tmpfs): the failed-point ramp case needs a small tmpfs"
fi

# 4b. a user that crashes (SIGABRT from outside, as a failed assertion would; the
# sanitizer build turns SIGSEGV into an exit status) fails the point
$JOBMIX run tests/data/good/slow.yaml -u 2 -j 2000 --no-warmup -d "$W" -o "$R" -q >/dev/null 2>"$T/err" &
pid=$!
victim=
for _ in $(seq 1 100); do
	victim=$(pgrep -P $pid | head -1)
	[ -n "$victim" ] && break
	sleep 0.05
done
sleep 0.3
[ -n "$victim" ] && kill -ABRT "$victim"
wait $pid; rc=$?
f=$(ls -d "$R"/*-slow | tail -1)/run.json
check "crashed user: exit 3" [ $rc = 3 ]
check "crashed user: reason names the signal" jq -e '.points[-1].failed and (.points[-1].reason | test("signal 6"))' "$f"
check "crashed user: its jobs not counted" jq -e '.summary.max_jpm == null or .summary.max_jpm == 0' "$f"
check "crashed user: work area empty" empty_dir "$W"
rm -rf "$R"

# 5. the time limit kills users that outlive it
$JOBMIX run tests/data/good/slow.yaml -u 4 -j 2000 --timeout 1s --no-warmup -d "$W" -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
f=$(ls -d "$R"/*-slow | tail -1)/run.json
check "time limit: exit 3" [ $rc = 3 ]
check "time limit: reason says so" jq -e '.points[-1].failed and (.points[-1].reason | test("time limit"))' "$f"
check "time limit: work area empty" empty_dir "$W"
check "time limit: no user process left" [ -z "$(pgrep -f -- "-d $W" )" ]

# 6. SIGINT and SIGTERM mid-run: status interrupted, what was measured is kept
for sig in INT TERM; do
	rm -rf "$R"
	$JOBMIX run tests/data/good/slow.yaml -u 1-64 -j 40 -d "$W" -o "$R" -q >/dev/null 2>"$T/err" &
	pid=$!
	for _ in $(seq 1 300); do
		f=$(ls "$R"/*/run.json 2>/dev/null | head -1)
		[ -n "$f" ] && [ "$(jq '.points | length' "$f" 2>/dev/null || echo 0)" -ge 1 ] && break
		sleep 0.1
	done
	kill -$sig $pid
	wait $pid; rc=$?
	want=130; [ $sig = TERM ] && want=143
	check "SIG$sig: exit $want" [ $rc = $want ]
	check "SIG$sig: status interrupted" [ "$(jq -r .status "$f")" = interrupted ]
	check "SIG$sig: measured points kept" [ "$(jq '.points | length' "$f")" -ge 1 ]
	check "SIG$sig: work area empty" empty_dir "$W"
	check "SIG$sig: no user process left" [ -z "$(pgrep -f -- "-d $W")" ]
done

# 6b. SysV semaphores of users killed mid-job are removed by the parent
sems() { grep -c . /proc/sysvipc/sem; }
before=$(sems)
for i in 1 2 3; do
	$JOBMIX run tests/data/good/shm.yaml --no-warmup -d "$W" -o "$T/shm" -q >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		[ "$(pgrep -P $pid | wc -l)" -ge 3 ] && break
		sleep 0.05
	done
	sleep 0.3
	kill -TERM $pid
	wait $pid
done
check "SIGTERM during shared_memory: no semaphore set left (3 runs x 3 users)" [ "$(sems)" = "$before" ]

# 7. users as threads, and fixed-duration points
rm -rf "$R"
$JOBMIX run tests/data/good/e2e.yaml -u 2 -j 10 --threads -d "$W" -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
f=$(ls "$R"/*/run.json | head -1)
check "threads: exit 0" [ $rc = 0 ]
check "threads: recorded as threads" [ "$(jq -r .workload.resolved.users.as "$f")" = threads ]
check "threads: work area empty" empty_dir "$W"
rm -rf "$R"
$JOBMIX run tests/data/good/e2e.yaml -u 2 --measure time --duration 2s -d "$W" -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
f=$(ls "$R"/*/run.json | head -1)
check "time mode: exit 0" [ $rc = 0 ]
check "time mode: elapsed is the duration" approx "$(jq '.points[0].elapsed_s' "$f")" 2 0.001
check "time mode: jpm = jobs x 60 / duration" approx "$(jq '.points[0].jpm' "$f")" "$(jq '.points[0].jobs * 30' "$f")" 0.001
check "time mode: JTI from the jobs each user completed, not a constant" approx "$(jq '.points[0].jti' "$f")" "$(jq '.points[0].user_jobs | ([0, (1 - .stddev / .mean) * 100] | max)' "$f")" 0.0001
check "time mode: jobs per user add up" jq -e '.points[0] | (.user_jobs.mean * .users - .jobs | fabs) < 1e-6' "$f"
check "time mode: work area empty" empty_dir "$W"
# the warm-up lasts a quarter of the duration, whatever jobs_per_user says
# (before: a quarter of -j jobs, here 25,000 of them)
rm -rf "$R"
t0=$(date +%s.%N)
out=$($JOBMIX run tests/data/good/e2e.yaml -u 2 -j 100000 --measure time --duration 2s -d "$W" -o "$R" 2>&1); rc=$?
t1=$(date +%s.%N)
f=$(ls "$R"/*/run.json | head -1)
check "time mode warm-up: exit 0" [ $rc = 0 ]
check "time mode warm-up: duration / 4 (0.5 s) recorded" jq -e '.warmup | .failed == false and .elapsed_s == 0.5 and .jpm > 0' "$f"
check "time mode warm-up: said so" grep -q "warm-up: 2 users for 0.5 s" <<<"$out"
check "time mode warm-up: the run took about warm-up + point ($(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s)" \
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 8) }'

# 8. sync: exec runs re-aim's sync program at every sync point, in users and threads
for as in "" --threads; do
	rm -rf "$R"
	$JOBMIX run tests/data/good/e2e.yaml -u 2 -j 10 $as --sync exec -d "$W" -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls "$R"/*/run.json | head -1)
	check "sync exec${as:+ $as}: exit 0" [ $rc = 0 ]
	check "sync exec${as:+ $as}: recorded" [ "$(jq -r .workload.resolved.sync "$f")" = exec ]
	# disk_rr: 2 sync points a run, disk_wrt 2, disk_cp 3; no fsync of a file
	check "sync exec${as:+ $as}: syncs counted per kind" jq -e '.points[0].jobs_by_kind | (.disk_rr.syncs == 2 * .disk_rr.runs) and (.disk_wrt.syncs == 2 * .disk_wrt.runs) and (.disk_cp.syncs == 3 * .disk_cp.runs) and .disk_rr.fsyncs == 0' "$f"
	check "sync exec${as:+ $as}: work area empty" empty_dir "$W"
done
for m in fserver new_fserver shared dbase new_dbase compute five_sec high_systime disk; do
	check "$m: re-aim's default sync (exec)" [ "$($JOBMIX check workloads/$m.yaml | sed -n 's/^sync: //p')" = exec ]
done
for m in $(grep -l '^  mode: converge\|mode: converge' workloads/*.yaml); do
	check "$m converges: users.end auto" [ "$($JOBMIX check "$m" | sed -n 's/^  end: //p')" = auto ]
done

# 9. users share each work directory (files.layout: shared, the default), or not
for l in shared per_user; do
	rm -rf "$R"
	sed "s|dirs: \[./jobmix-work\]}|dirs: [./jobmix-work], layout: $l}|" tests/data/good/shared_dir.yaml >"$T/sd.yaml"
	$JOBMIX run "$T/sd.yaml" -d "$W" -d "$W/second" -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls "$R"/*/run.json | head -1)
	check "layout $l: 6 users, own file names never collide (exit 0)" [ $rc = 0 ]
	[ $rc = 0 ] || cat "$T/err"
	check "layout $l: recorded" [ "$(jq -r .workload.resolved.layout "$f")" = $l ]
	check "layout $l: work area empty" empty_dir "$W"
done
rm -rf "$R"

# 10. one user's rates (*_user) are an entry's own, its rates (all users')
# res_entry_rate's: two entries of very different speed in one mix (O_DIRECT
# reads in 1 MiB and in 4 KiB requests, the same bytes per job)
cat >"$T/rates.yaml" <<YAML
name: rates
files: {filesize: 10k, poolsize: 0, dirs: ["$W"]}
users: {start: 1, end: 1, jobs_per_user: 4, mode: linear}
sync: none
seed: 1
mix:
  - {job: seqread, name: fast-1m, weight: 1, file_size: 8m, block: 1m, direct: true}
  - {job: seqread, name: slow-4k, weight: 1, file_size: 8m, block: 4k, direct: true}
YAML
out=$($JOBMIX run "$T/rates.yaml" --no-warmup -v -o "$R" 2>"$T/err"); rc=$?
if [ $rc != 0 ] && grep -q "O_DIRECT\|Invalid argument" "$T/err"; then
	skip "entry rates: O_DIRECT not supported in $W"
else
	check "rates: run exits 0" [ $rc = 0 ]
	[ $rc = 0 ] || cat "$T/err"
	f=$(ls "$R"/*-rates/run.json | head -1)
	k='.points[0].jobs_by_kind'
	check "rates: both entries read the same bytes, so the point's shares are equal" \
		jq -e "$k | .\"fast-1m\".rbytes == .\"slow-4k\".rbytes and .\"fast-1m\".read_mb_s_point == .\"slow-4k\".read_mb_s_point" "$f"
	check "rates: 1 MiB requests read faster than 4 KiB ones ($(jq -c "[$k[].read_mb_s_user]" "$f") MB/s)" \
		jq -e "$k | .\"fast-1m\".read_mb_s_user > 2 * .\"slow-4k\".read_mb_s_user" "$f"
	for e in fast-1m slow-4k; do
		x="$k.\"$e\""
		check "rates $e: read_mb_s_user = rbytes / read_time_s / 1e6" approx \
			"$(jq "$x.read_mb_s_user" "$f")" "$(jq "$x.rbytes / $x.read_time_s / 1e6" "$f")" 1e-9
		check "rates $e: reads_s_user = rops / read_time_s" approx \
			"$(jq "$x.reads_s_user" "$f")" "$(jq "$x.rops / $x.read_time_s" "$f")" 1e-9
		check "rates $e: read_mb_s = rbytes over the read phases' wall time" approx \
			"$(jq "$x.read_mb_s" "$f")" \
			"$(jq "$x.rbytes / 1e6 * ($x.job_time_s / .points[0].elapsed_s) / $x.read_time_s" "$f")" 1e-9
		check "rates $e: its own read time is within its job time" \
			jq -e "$x | .read_time_s > 0 and .read_time_s <= .job_time_s" "$f"
		check "rates $e: read_mb_s_point = rbytes / point elapsed / 1e6" approx \
			"$(jq "$x.read_mb_s_point" "$f")" "$(jq "$x.rbytes / .points[0].elapsed_s / 1e6" "$f")" 1e-9
		v=$(sed -n "s/^ *$e .* read *\([0-9.]*\) MB\/s.*/\1/p" <<<"$out")
		check "rates $e: -v prints its rate, all users' ($v MB/s)" [ "$v" = "$(jq -r "$x.read_mb_s * 10 | round / 10 | tostring" "$f" | sed 's/^\([0-9]*\)$/\1.0/')" ]
	done
fi
rm -rf "$R"

# 11. streams with variable write sizes and per-stream rates; each entry's
# extents per file after its write phase (FIEMAP on the work dir's file system)
cat >"$T/st.yaml" <<YAML
name: st
files: {filesize: 10k, poolsize: 0, dirs: ["$W"]}
users: {start: 1, end: 1, jobs_per_user: 2, mode: linear}
sync: none
seed: 1
mix:
  - {job: streams, name: one, weight: 1, n: 1, write_size: 4k, file_size: 1m}
  - {job: streams, name: two, weight: 1, n: 2, write_size: 4k-64k, file_size: 1m, rates: "1:20"}
YAML
for s in 1 1 2; do
	rm -rf "$R"
	$JOBMIX run "$T/st.yaml" --no-warmup --seed $s -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
	f=$(ls "$R"/*-st/run.json | head -1)
	jq -c '.points[0].jobs_by_kind.two.wops' "$f" >>"$T/wops.$s"
done
check "streams: exit 0" [ $rc = 0 ]
check "streams rates 1:20: the streams write 1m + 1m/20 per job" \
	jq -e '.points[0].jobs_by_kind.two | .wbytes == .runs * (1048576 + 52428) and .rbytes == .wbytes' "$f"
check "streams 4k-64k: fewer writes than 4k ones would take, more than 64k ones" \
	jq -e '.points[0].jobs_by_kind.two | .wops > .runs * 1101004 / 65536 and .wops < .runs * 1101004 / 4096' "$f"
check "streams 4k-64k: the same writes for a seed ($(sort -u "$T/wops.1" | tr '\n' ' ')), others for another ($(cat "$T/wops.2"))" \
	bash -c "[ \$(sort -u '$T/wops.1' | wc -l) = 1 ] && ! cmp -s <(sort -u '$T/wops.1') '$T/wops.2'"
check "streams: the resolved workload keeps the range and the rates" \
	jq -e '.workload.resolved.mix[1].params | .write_size == "4k-64k" and .rates == "1:20"' "$f"
if [ "$(jq '.points[0].jobs_by_kind.one.extents' "$f")" = null ]; then
	skip "streams extents: FIEMAP not supported in $W ($(stat -f -c %T "$W"))"
else
	check "streams extents: a number per file, at least 1 ($(jq -c '[.points[0].jobs_by_kind[].extents]' "$f"))" \
		jq -e 'all(.points[0].jobs_by_kind[]; .extents >= 1)' "$f"
fi
check "every entry carries the extents key" jq -e '.points[0].jobs_by_kind | all(.[]; has("extents"))' "$f"
$JOBMIX run "$T/st.yaml" -P two.rates=1:0 -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
check "streams: a bad weight is refused naming it (exit 2)" bash -c "[ $rc = 2 ] && grep -q \"weight '0' in '1:0'\" '$T/err'"
$JOBMIX run "$T/st.yaml" -P two.write_size=64k-4k -o "$R" -q >/dev/null 2>"$T/err"; rc=$?
check "streams: a range ending below its start is refused naming it (exit 2)" bash -c "[ $rc = 2 ] && grep -q \"range '64k-4k'\" '$T/err'"
rm -rf "$R"
