#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The lkp-tests program and jobs (tools/lkp): parse on a recorded run
# program's output (a real 1-2 user run of the disk mix) gives the golden
# stats; the run program, under a stand-in of the two lkp libraries it
# sources, runs jobmix and its output parsed gives run.json's own figures;
# bad input to parse is named (exit 2); the job files parse as YAML with
# the keys lkp requires, their parameters are the program's (run's
# `# - NAME` header, meta.yaml) and their tests jobmix's shipped workloads.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
L=tools/lkp
P=$L/programs/jobmix
for t in jq python3; do command -v $t >/dev/null || { skip "lkp: no $t"; exit 0; }; done
T=$(mktemp -d /tmp/jobmix-e2e-lkp.XXXXXX)
trap 'rm -rf "$T"' EXIT

# 1. the golden stats
"$P/parse" <tests/data/lkp/jobmix-disk.out >"$T/stats" 2>"$T/err"
rc=$?
if [ $rc = 0 ] && cmp -s "$T/stats" tests/data/lkp/jobmix-disk.stats; then
	ok "lkp: parse on a disk-mix run's output gives the golden stats ($(wc -l <"$T/stats") lines)"
else
	not_ok "lkp: parse (exit $rc) differs from tests/data/lkp/jobmix-disk.stats: $(cat "$T/err")"
	diff "$T/stats" tests/data/lkp/jobmix-disk.stats | head -5 | sed 's/^/# /'
fi
check "lkp: every stats line is lkp's 'key: number'" \
	bash -c "! grep -Ev '^[A-Za-z0-9_.-]+: -?[0-9][0-9.e+-]*$' '$T/stats'"

# 2. the run program for real (lkp's die and log_cmd stood in for), then parse
mkdir -p "$T/lkp/lib" "$T/res" "$T/tmp"
echo 'die() { echo "$*" >&2; exit 1; }' >"$T/lkp/lib/debug.sh"
echo 'log_cmd() { echo "$*"; "$@"; }' >"$T/lkp/lib/reproduce-log.sh"
J=$(cd "$(dirname "$JOBMIX")" && pwd)/$(basename "$JOBMIX")
lkp_run() { env LKP_SRC="$T/lkp" TMP_RESULT_ROOT="$T/res" TMP="$T/tmp" JOBMIX="$J" "$@" "$P/run"; }
lkp_run test="$PWD/tests/data/e2e/cpu.yaml" nr_task=1-2 nr_job=4 testbox=tb1 >"$T/out" 2>"$T/run.err"
rc=$?
j=$(ls "$T"/res/jobmix.results/*/run.json 2>/dev/null | head -1)
[ $rc = 0 ] && [ -f "$j" ] && grep -q '^complete after 2 points' "$T/out" &&
[ "$(jq -r '.labels.testbox + " " + (.users.spec)' "$j")" = "tb1 1-2" ] &&
	ok "lkp: programs/jobmix/run runs jobmix (nr_task 1-2 users, testbox label) into TMP_RESULT_ROOT" ||
	{ not_ok "lkp: the run program (exit $rc)"; tail -5 "$T/out" "$T/run.err" | sed 's/^/# /'; }
"$P/parse" <"$T/out" >"$T/live" 2>"$T/err"
get() { sed -n "s/^$1: //p" "$T/live"; }
pu=$(jq '.summary.peak_users' "$j" 2>/dev/null)
approx "$(get jobs_per_min)" "$(jq '.summary.peak_jpm' "$j" 2>/dev/null)" 1e-8 &&
approx "$(get max_jobs_per_min)" "$(jq '.summary.max_jpm' "$j")" 1e-8 &&
[ "$(get peak_users)" = "$pu" ] &&
approx "$(get jti)" "$(jq ".points[] | select(.users == $pu) | .jti" "$j")" 1e-8 &&
approx "$(get sieve.p99_ms)" "$(jq ".points[] | select(.users == $pu) | .jobs_by_kind.sieve.p99_ms" "$j")" 1e-8 &&
approx "$(get add_long.mean_ms)" "$(jq ".points[] | select(.users == $pu) | .jobs_by_kind.add_long.mean_ms" "$j")" 1e-8 &&
[ "$(get pass)" = 1 ] &&
	ok "lkp: its output parsed: jobs_per_min $(get jobs_per_min), the peak's JTI and entries' latencies are run.json's, pass: 1" ||
	{ not_ok "lkp: live parse"; head -12 "$T/live" "$T/err" | sed 's/^/# /'; }
lkp_run nr_task=1 >/dev/null 2>"$T/notest"
[ $? != 0 ] && grep -q 'test is empty' "$T/notest" && ok "lkp: run without a test dies naming it" ||
	not_ok "lkp: run without test: $(cat "$T/notest")"

# 3. bad input to parse: named, exit 2, nothing printed
printf 'jobmix 0.1.0: x\njobmix-run-json: {"summary": \n' | "$P/parse" >"$T/bad.out" 2>"$T/bad"
[ $? = 2 ] && grep -q '^parse: stdin:2: not a run.json' "$T/bad" && [ ! -s "$T/bad.out" ] &&
	ok "lkp: parse on a run line that is not JSON: exit 2 naming stdin:2" || not_ok "lkp: bad JSON: $(cat "$T/bad")"
echo 'jobmix run: no workload' | "$P/parse" >"$T/none.out" 2>"$T/none"
[ $? = 2 ] && grep -q 'no jobmix-run-json line' "$T/none" && [ ! -s "$T/none.out" ] &&
	ok "lkp: parse on output without a run: exit 2, said" || not_ok "lkp: no run: $(cat "$T/none")"

# 4. the job files and the program's meta files, as lkp reads them
cat >"$T/check.py" <<'PY'
import os, re, sys, yaml
lkp = sys.argv[1]
prog = os.path.join(lkp, "programs", "jobmix")
bad = []
run_params = re.findall(r"^# - (\w+)$", open(os.path.join(prog, "run")).read(), re.M)
meta = yaml.safe_load(open(os.path.join(prog, "meta.yaml")))
for k in ("short_description", "description", "parameters", "results"):
    if k not in meta:
        bad.append("meta.yaml: no %s" % k)
if sorted(meta.get("parameters", {})) != sorted(run_params):
    bad.append("meta.yaml parameters %s != run's # - header %s" % (sorted(meta["parameters"]), run_params))
golden = {l.split(":")[0] for l in open("tests/data/lkp/jobmix-disk.stats")} | {"converge_jobs_per_min", "fail"}
for r in meta.get("results", {}):
    if not r.startswith("jobmix.") or r[len("jobmix."):] not in golden:
        bad.append("meta.yaml result %s: not a jobmix.KEY parse prints" % r)
for f in ("run", "parse"):
    if not os.access(os.path.join(prog, f), os.X_OK):
        bad.append("programs/jobmix/%s not executable" % f)
jobs = sorted(os.listdir(os.path.join(lkp, "jobs", "jobmix")))
for name in jobs:
    path = os.path.join(lkp, "jobs", "jobmix", name)
    if not re.match(r"^jobmix(-[a-z0-9-]+)?\.yaml$", name):
        bad.append("%s: not jobs/jobmix/jobmix[-NAME].yaml" % path)
    docs = list(yaml.safe_load_all(open(path)))
    job = docs[0]
    for k in ("suite", "testcase", "category"):
        if k not in job:
            bad.append("%s: no %s" % (path, k))
    if job.get("testcase") != "jobmix" or job.get("category") != "benchmark":
        bad.append("%s: testcase %s category %s" % (path, job.get("testcase"), job.get("category")))
    params = dict(job.get("jobmix") or {})
    for k in ("nr_task", "nr_job", "runtime", "iterations", "mode"):
        if k in job:
            params[k] = job[k]
    for k in params:
        if k not in run_params:
            bad.append("%s: parameter %s is not one of run's %s" % (path, k, run_params))
    tests = params.get("test")
    if not isinstance(tests, list) or not tests:
        bad.append("%s: jobmix.test is not a list of workloads" % path)
    for t in tests or []:
        if not os.path.exists(os.path.join("workloads", "%s.yaml" % t)):
            bad.append("%s: test %s is not a shipped workload" % (path, t))
print("jobs: %s; run parameters: %s" % (" ".join(jobs), " ".join(run_params)))
for b in bad:
    print("BAD", b)
sys.exit(1 if bad else 0)
PY
python3 "$T/check.py" "$L" >"$T/yaml" 2>&1
rc=$?
[ $rc = 0 ] && ok "lkp: job files and meta.yaml as lkp reads them ($(cat "$T/yaml"))" ||
	{ not_ok "lkp: job files"; sed 's/^/# /' "$T/yaml"; }
# the checker can fail: a job whose parameter the run program does not take
mkdir -p "$T/badtree/programs" "$T/badtree/jobs/jobmix"
cp -r "$P" "$T/badtree/programs/" && cp "$L"/jobs/jobmix/jobmix.yaml "$T/badtree/jobs/jobmix/"
printf 'jobmix:\n  test: [fserver]\n  nr_threads: 8\n' >"$T/badtree/jobs/jobmix/jobmix-x.yaml"
python3 "$T/check.py" "$T/badtree" >"$T/yaml.bad" 2>&1
[ $? = 1 ] && grep -q 'jobmix-x.yaml: parameter nr_threads is not one of' "$T/yaml.bad" &&
grep -q 'jobmix-x.yaml: no suite' "$T/yaml.bad" &&
	ok "lkp: ... and a job with a parameter run does not take, and no suite, is refused" ||
	{ not_ok "lkp: the job checker passed a bad job"; sed 's/^/# /' "$T/yaml.bad"; }
