#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Files and values others made, as root reads them (issue "Safe as root"):
# FIFOs, devices and over-large files refused at once (exit 2, the file
# named), a crafted run.json skipped without a crash, nothing echoed from a
# file that is not a workload, import's errors at the workfile's lines,
# reaim's options never cut and -l checked before the run, durations
# capped, -u quoted as given, -P in any order, and the real stop reason of
# a failed or interrupted run.  Every command runs under `timeout`: a hang
# is a failure, not a stuck suite.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
J=$(realpath "$JOBMIX")
T=$(mktemp -d /tmp/jobmix-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT

# expect RC PATTERN WHAT CMD...: the exit code (any: whatever it is, but in time),
# stderr holding PATTERN, within 20 s
expect() {
	local rc=$1 pat=$2 what=$3; shift 3
	timeout 20 "$@" >"$T/out" 2>"$T/err"
	local got=$?
	[ "$rc" = any ] && [ $got != 124 ] && [ $got -lt 128 ] && rc=$got
	if [ "$got" = "$rc" ] && grep -q -- "$pat" "$T/err"; then
		ok "$what: exit $rc, '$pat'"
	else
		not_ok "$what: exit $got (want $rc), stderr: $(head -c 300 "$T/err")"
	fi
}

mkfifo "$T/fifo"
printf '10 add_int\n' >"$T/wf"
printf 'FILESIZE 10K\n' >"$T/cfg"

# 1. import, check and run never read a FIFO or a device (/dev/zero grew to 3.3 GB in 3 s)
# (the old code grew without bound on /dev/zero: memory capped, but not under
# ASan, which reserves terabytes of address space)
( [ -n "${JOBMIX_SANITIZED:-}" ] || ulimit -v 2000000
  expect 2 "/dev/zero: not a regular file (a character device)" "import /dev/zero" "$J" import /dev/zero
  expect 2 "/dev/zero: not a regular file" "import -c /dev/zero" "$J" import "$T/wf" -c /dev/zero
  expect 2 "fifo: not a regular file (a FIFO)" "import FIFO" "$J" import "$T/fifo"
  expect 2 "fifo: not a regular file (a FIFO)" "import -c FIFO" "$J" import "$T/wf" -c "$T/fifo"
  expect 2 "fifo: not a regular file (a FIFO)" "reaim -f FIFO" "$J" reaim -f "$T/fifo" -c "$T/cfg"
  expect 2 "fifo: not a regular file (a FIFO)" "run FIFO" "$J" run "$T/fifo" -o "$T/r0"
)
check "nothing written by the refusals" [ ! -e "$T/r0" ]

# 2. run.json: a FIFO given or found, one over the cap, a crafted n
mkdir -p "$T/res/a" "$T/res/b"
cp tests/data/runs/v1-peak.json "$T/res/a/run.json"
mkfifo "$T/res/b/run.json"
for cmd in report compare plot; do
	args=("$T/res/b/run.json") want=any   # report: a skipped run is a warning
	[ $cmd = compare ] && args=(tests/data/runs/v1-peak.json -- "$T/res/b/run.json") want=2
	[ $cmd = plot ] && args+=(-o "$T/p.svg") want=2
	expect $want "run.json: not a regular file (a FIFO)" "$cmd: a FIFO named run.json" "$J" $cmd "${args[@]}"
done
timeout 20 "$J" report "$T/res" >"$T/out" 2>"$T/err"
check "report: a FIFO named run.json under a results root is passed over (exit 0)" [ $? = 0 ]
check "... and the real run is reported" grep -q "^e2e: Maximum Jobs Per Minute (1 run)" "$T/out"
truncate -s 65M "$T/big.json"
expect any "big.json: too large (68157440 bytes; a run.json is at most 67108864 bytes)" \
	"report: a run.json over 64 MiB" "$J" report "$T/big.json"
timeout 20 "$J" compare tests/data/bad-runs/huge-n.json -- tests/data/runs/v1-peak.json >"$T/out" 2>"$T/err"
rc=$?
check "compare: by_users n = 4294967295 without samples: no crash (exit $rc)" [ $rc = 2 ]
check "... the run named, skipped" grep -q "skipped.*huge-n.json.*0 jpm_samples for n = 4294967295" "$T/err"

# 3. a file that is not a workload: its text is not printed
printf 'root:$6$saltsalt$S3CRETHASH:19000:0:99999:7:::\n' >"$T/shadow"
expect 2 "not a key name" "check a shadow-like file" "$J" check "$T/shadow"
check "... its first line is not echoed" bash -c "! grep -q S3CRET '$T/err'"

# 4. import: errors at the workfile's lines, never in YAML nobody sees
for i in $(seq 1200); do echo "1 add_int"; done >"$T/big.wf"
expect 2 "big.wf:1001: more than 1000 tests listed" "import of 1200 tests" "$J" import "$T/big.wf" -o "$T/out.yaml"
check "... no YAML position cited, nothing written" bash -c "! grep -q 'out.yaml' '$T/err' && [ ! -e '$T/out.yaml' ]"
printf 'STARTUSERS 10\nENDUSERS 5\n' >"$T/back.cfg"
expect 2 "back.cfg:1: STARTUSERS 10 is above ENDUSERS 5 (line 2)" "import: STARTUSERS above ENDUSERS" \
	"$J" import "$T/wf" -c "$T/back.cfg"
printf '10 add_int\n5 add_long\0junk\n' >"$T/nul.wf"
expect 2 "nul.wf:2: a NUL byte at column 11" "import: a NUL byte" "$J" import "$T/nul.wf"
mkdir "$T/$(printf 'x\nseed: 99')"
cp "$T/wf" "$T/$(printf 'x\nseed: 99')/wf"
timeout 20 "$J" import "$T/$(printf 'x\nseed: 99')/wf" -o "$T/nl.yaml" 2>"$T/err"
check "import: a newline in the workfile's path adds no key" bash -c "'$J' check '$T/nl.yaml' | grep -q '^seed: 1$' && ! grep -q '^seed: 99' '$T/nl.yaml'"

# 5. reaim: counts never cut (a 34-character -j became 1), -l checked before the run
mkdir -p "$T/ra" && cd "$T/ra" || exit 1
printf '10 add_int\n' >workfile
printf 'FILESIZE 10K\n' >reaim.config
timeout 60 "$J" reaim -s1 -e1 -j 0000000000000000000000000000000020 --results "$T/ra/res" >"$T/out" 2>"$T/err"
check "reaim -j with 34 characters: exit 0" [ $? = 0 ]
check "... 20 jobs per user, as given" jq -e '[.points[].jobs_per_user] == [20]' "$T"/ra/res/*/run.json
expect 2 "-j '1000000000000000000000000000000000000000': value .* is out of range" \
	"reaim: a -j too large is named" "$J" reaim -j 1000000000000000000000000000000000000000
expect 2 "reaim: -l: cannot create /nonexistent/dir/x.log" "reaim -l in a missing folder" \
	"$J" reaim -s1 -e1 -j 5 -l /nonexistent/dir/x --results "$T/ra/res2"
check "... refused before the run: no results" [ ! -e "$T/ra/res2" ]
cd - >/dev/null || exit 1

# 6. durations capped (every point failed at once), -u quoted as given, -P in any order
expect 2 "--timeout: duration '5200000h' is longer than a year (at most 8784h)" "run --timeout 5200000h" \
	"$J" run workloads/quick.yaml -u 1 --timeout 5200000h -o "$T/r1"
expect 2 "--reap-timeout: duration '1e300h' is longer than a year" "run --reap-timeout 1e300h" \
	"$J" run workloads/quick.yaml -u 1 --reap-timeout 1e300h -o "$T/r1"
expect 2 "cannot parse '1e5%'" "run -u 1e5%" "$J" run workloads/quick.yaml -u 1e5% -o "$T/r1"
expect 2 "-u: empty item" "run -u 1,,2" "$J" run workloads/quick.yaml -u 1,,2 -o "$T/r1"
check "... said once ('-u: -u:' was doubled)" bash -c "! grep -q -- '-u: -u:' '$T/err'"
check "no run folder from the refusals" [ ! -e "$T/r1" ]
for order in "fileio.file_size=4k fileio.block=4k" "fileio.block=4k fileio.file_size=4k"; do
	set -- $order
	timeout 60 "$J" run --job fileio -P "$1" -P "$2" -P fileio.files=1 -P fileio.ops=4 -u 1 -j 1 \
		-d "$T" --no-warmup --no-settle -o "$T/r2" -q >"$T/out" 2>"$T/err"
	check "-P $1 -P $2: exit 0 (the job's check after both)" [ $? = 0 ]
done

# 7. the real stop reason of a failed and of an interrupted run, not "(going)"
timeout 60 "$J" run workloads/quick.yaml -u 1-2 -j 500 --timeout 0.001 -o "$T/r3" >"$T/out" 2>"$T/err"
check "a failing run: exit 3" [ $? = 3 ]
check "... its reason printed: (failed: ...)" grep -q "^failed after .* (failed: .*time limit" "$T/out"
check "... and recorded" jq -e '.summary.stop_reason == "failed"' "$T"/r3/*/run.json
timeout 60 "$J" run workloads/quick.yaml -u 1-64 -j 2000 -o "$T/r4" >"$T/out" 2>"$T/err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
check "an interrupted run: exit 130" [ $? = 130 ]
check "... says so: (interrupted: SIGINT)" grep -q "^interrupted after .* (interrupted: SIGINT)" "$T/out"
check "... and records it" jq -e '.status == "interrupted" and .summary.stop_reason == "interrupted"' "$T"/r4/*/run.json
check "no '(going)' printed" bash -c "! grep -q '(going)' '$T/out'"
