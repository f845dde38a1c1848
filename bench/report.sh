#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reporting at scale: N (1000) synthetic run folders, then the wall time and
# peak memory of `jobmix report DIR` and `jobmix plot DIR --script` (and, for
# information, the trend script and real PNG charts through gnuplot),
# measured with /usr/bin/time -v, against the goal: under 1 s and 100 MB.
# The results root's index (.jobmix-index.sqlite): the first report builds
# it (timed once, and a report without it: JOBMIX_INDEX=off), then every
# command reads through it; with N above 1000 also compare and history, and
# the goal is the index's: each under 2 s and 200 MB once indexed.
#
#   bench/report.sh [DIR]     DIR: where the runs are made (default: a temp
#                             folder, removed after)
# Environment: N (1000), KEEP (set: keep the runs), REPEAT (3; the best of
#   REPEAT runs of each command), REUSE (set: DIR's runs from an earlier
#   KEEP run are used as they are), PLAIN=0 (skip the timing without the
#   index).  N=100000 writes ~4 GB of run.json, and its index ~3.7 GB.
#
# The runs are valid jobmix-run/1 documents of a realistic size (~20 KB):
# 12-18 load points (a geometric ramp with repeats at some user counts),
# each with its user-time figures and jobs_by_kind for three kinds, the
# summary with by_users and its samples, the resolved workload and the
# environment.  Four workloads x five kernels x three schedulers, dates over
# 30 nights, JPM curves that rise to a peak and fall, with noise.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-1000}
[ -x ./jobmix ] || { echo "bench/report.sh: build first (make)" >&2; exit 2; }
if [ ! -x /usr/bin/time ]; then
	echo "bench/report.sh: /usr/bin/time is missing (Debian: apt-get install time)" >&2
	exit 2
fi
if [ $# -ge 1 ]; then
	D=$1; mkdir -p "$D"
else
	D=$(mktemp -d /tmp/jobmix-bench-report.XXXXXX)
	[ -n "${KEEP:-}" ] || trap 'rm -rf "$D"' EXIT
fi
R=$D/results
mkdir -p "$R"
# a copy: a rebuild while this runs does not change what is measured
J=$D/jobmix
cp ./jobmix "$J"

# ---- the runs: one awk process writes every run.json ----
[ -n "${REUSE:-}" ] && [ "$(ls "$R" | wc -l)" -ge "$N" ] || awk -v n="$N" -v root="$R" '
function jnum(v) { return sprintf("%.10g", v) }
function kind(name, runs, el,    ms, b) {
	ms = 0.5 + rand() * 4; b = runs * 65536
	return sprintf("\"%s\": {\"job\": \"%s\", \"runs\": %d, \"job_time_s\": %s, \"mean_ms\": %s, " \
		"\"p50_ms\": %s, \"p99_ms\": %s, \"max_ms\": %s, \"rbytes\": %d, \"wbytes\": %d, " \
		"\"rops\": %d, \"wops\": %d, \"read_mb_s\": %s, \"write_mb_s\": %s, \"iops\": %s, " \
		"\"read_mb_s_job\": %s, \"write_mb_s_job\": %s, \"iops_job\": %s}",
		name, name, runs, jnum(runs * ms / 1000), jnum(ms), jnum(ms * 0.9), jnum(ms * 3),
		jnum(ms * 4), b, b, runs * 16, runs * 16, jnum(b / el / 1048576), jnum(b / el / 1048576),
		jnum(runs * 32 / el), jnum(b / (runs * ms / 1000) / 1048576),
		jnum(b / (runs * ms / 1000) / 1048576), jnum(runs * 32 / (runs * ms / 1000)))
}
function rundir(r,    w, day, hh, mm) {
	w = wl[r % 4 + 1]; day = 1 + int(r / 60) % 30; hh = int(r / 2) % 24; mm = r % 60
	return sprintf("%s/202610%02d-%02d%02d00-%s-%04d", root, day, hh, mm, w, r)
}
BEGIN {
	srand(42)
	split("fserver dbase shared osync", wl, " ")
	split("6.1.0 6.2.0 6.3.0 6.4.0 6.5.0-rc1", kern, " ")
	split("mq-deadline bfq kyber", sch, " ")
	split("1 2 4 8 12 16 24 32 48 64 96 128 160 192 256 320 384 512", ul, " ")
	for (r = 0; r < n; r++) {
		w = wl[r % 4 + 1]; k = kern[int(r / 4) % 5 + 1]; s = sch[int(r / 20) % 3 + 1]
		day = 1 + int(r / 60) % 30; hh = int(r / 2) % 24; mm = r % 60
		started = sprintf("2026-10-%02dT%02d:%02d:00Z", day, hh, mm)
		dir = rundir(r)
		if (r % 500 == 0) {   # the next 500 folders with one mkdir
			cmd = "mkdir -p"
			for (q = r; q < r + 500 && q < n; q++)
				cmd = cmd " \"" rundir(q) "\""
			system(cmd)
		}
		f = dir "/run.json"
		base = 8000 + 500 * (r % 4) - 300 * (int(r / 4) % 5) + 200 * (int(r / 20) % 3)
		knee = 24 + 8 * (r % 5)
		np = 12 + r % 7
		printf "{\n  \"schema\": \"jobmix-run/1\",\n  \"status\": \"complete\",\n" > f
		printf "  \"started\": \"%s\",\n  \"finished\": \"%s\",\n", started, started > f
		printf "  \"command\": [\"run\", \"-m\", \"converge\", \"-L\", \"kernel=%s\", \"workloads/%s.yaml\"],\n", k, w > f
		printf "  \"workload\": {\"path\": \"workloads/%s.yaml\", \"sha256\": \"%064d\", \"name\": \"%s\", " \
			"\"description\": \"synthetic %s mix\", \"resolved\": {\"filesize\": 10240, \"poolsize\": 1048576, " \
			"\"dirs\": [\"./jobmix-work\"], \"users\": {\"start\": 1, \"end\": 512, \"mode\": \"converge\", " \
			"\"jobs_per_user\": 100}, \"sync\": \"exec\", \"seed\": 1, \"mix\": [{\"job\": \"disk_rr\", " \
			"\"weight\": 30}, {\"job\": \"sync_disk_wrt\", \"weight\": 5}, {\"job\": \"add_int\", \"weight\": 10}]}},\n", w, r, w, w > f
		printf "  \"labels\": {\"kernel\": \"%s\"},\n", k > f
		printf "  \"env\": {\"kernel\": \"%s\", \"hostname\": \"bench\", \"machine\": \"x86_64\", \"cpus\": 16, " \
			"\"mem_bytes\": 68719476736, \"fs_type\": \"xfs\", \"mount_point\": \"/mnt/t\", \"mount_options\": " \
			"\"rw,relatime\", \"device\": \"nvme0n1\", \"scheduler\": \"%s\", \"schedulers\": " \
			"\"none mq-deadline kyber bfq\", \"jobmix_version\": \"0.1.0\"},\n", k, s > f
		printf "  \"points\": [\n" > f
		nb = 0; peak = 0; pu = 0; cu = 0; cj = 0; cmax = 0
		for (i = 1; i <= np; i++) {
			u = ul[i] + 0
			reps = (i % 3 == 0) ? 2 : 1
			for (q = 0; q < reps; q++) {
				jpm = base * u / (u + knee / 6) * exp(-u / (knee * 12)) * (1 + (rand() - 0.5) * 0.04)
				el = u * 100 * 60 / jpm
				printf "%s    {\"users\": %d, \"sample\": %d, \"jobs_per_user\": 100, \"jobs\": %d, " \
					"\"elapsed_s\": %s, \"jpm\": %s, \"jpm_per_user\": %s, \"user_time_s\": {\"min\": %s, " \
					"\"max\": %s, \"mean\": %s, \"stddev\": %s}, \"jti\": 97.5, \"user_cpu_s\": %s, " \
					"\"sys_cpu_s\": %s, \"failed\": false, \"failed_users\": 0, \"reason\": null, " \
					"\"interrupted\": false, \"steady\": null, \"jobs_by_kind\": {%s, %s, %s}}",
					(nb++ ? ",\n" : ""), u, q, u * 100, jnum(el), jnum(jpm), jnum(jpm / u),
					jnum(el * 0.9), jnum(el), jnum(el * 0.95), jnum(el * 0.02), jnum(el * u * 0.3),
					jnum(el * u * 0.4), kind("disk_rr", u * 67, el), kind("sync_disk_wrt", u * 11, el),
					kind("add_int", u * 22, el) > f
				sam[i, q] = jpm
			}
			nrep[i] = reps
		}
		printf "\n  ],\n" > f
		printf "  \"summary\": {" > f
		by = ""
		for (i = 1; i <= np; i++) {
			u = ul[i] + 0; m = 0
			for (q = 0; q < nrep[i]; q++) m += sam[i, q]
			m /= nrep[i]
			sd = nrep[i] > 1 ? (sam[i, 0] > sam[i, 1] ? sam[i, 0] - sam[i, 1] : sam[i, 1] - sam[i, 0]) / sqrt(2) : 0
			if (m > peak) { peak = m; pu = u }
			if (m > cmax) cmax = m
			if (!cu && m / u <= 60) { cu = u; cj = m }
			smp = jnum(sam[i, 0]); if (nrep[i] > 1) smp = smp ", " jnum(sam[i, 1])
			by = by sprintf("%s{\"users\": %d, \"n\": %d, \"jpm_mean\": %s, \"jpm_sd\": %s, \"ci95_lo\": %s, " \
				"\"ci95_hi\": %s, \"failed\": false, \"jpm_samples\": [%s]}", (i > 1 ? ", " : ""),
				u, nrep[i], jnum(m), jnum(sd), jnum(m - 2 * sd), jnum(m + 2 * sd), smp)
		}
		printf "\"max_jpm\": %s, \"max_jpm_users\": %d, \"peak_jpm\": %s, \"peak_users\": %d, " \
			"\"peak_established\": true, \"peak_flat\": false, \"peak_beaten\": false, " \
			"\"converge_threshold\": 60, \"converge_jpm\": %s, \"converge_users\": %s, " \
			"\"best_jpm\": %s, \"points_measured\": %d, \"wall_s\": 600, \"stop_reason\": " \
			"\"converged\", \"noise_sd_rel\": 0.012, \"noise_df\": 4, \"by_users\": [%s]}\n}\n",
			jnum(peak), pu, jnum(peak), pu, cu ? jnum(cj) : "null", cu ? cu : "null", jnum(cmax), nb, by > f
		close(f)
	}
}'
bytes=$(du -sb --exclude=.jobmix-index.sqlite "$R" | cut -f1)
echo "runs: $N run folders, $((bytes / 1024 / 1024)) MiB ($((bytes / N / 1024)) KiB each on average) in $R"

# measure LABEL COMMAND...: wall time, CPU time (user + sys) and peak RSS, the
# best of 3 runs each (the machine may be shared: CPU time is the steadier figure)
measure() {
	local label=$1; shift
	local best_w="" best_c="" best_r="" i w c r
	for i in $(seq "${TIMES:-${REPEAT:-3}}"); do
		# exit 1 is an answer (compare, history: a regression found), 2 and up a failure
		local rc=0
		/usr/bin/time -v -o "$D/time" "$@" >/dev/null 2>"$D/err" || rc=$?
		[ $rc -le 1 ] || { echo "$label: failed"; cat "$D/err"; return 1; }
		w=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$D/time" |
			awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
		c=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s }' "$D/time")
		r=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$D/time")
		if [ -z "$best_w" ] || awk -v a="$w" -v b="$best_w" 'BEGIN { exit !(a < b) }'; then best_w=$w; fi
		if [ -z "$best_c" ] || awk -v a="$c" -v b="$best_c" 'BEGIN { exit !(a < b) }'; then best_c=$c; fi
		if [ -z "$best_r" ] || [ "$r" -lt "$best_r" ]; then best_r=$r; fi
	done
	local mb; mb=$(awk -v k="$best_r" 'BEGIN { printf "%.1f", k / 1024 }')
	local verdict=""
	if [ -n "${GOAL:-}" ]; then
		if awk -v w="$best_w" -v m="$mb" -v gw="$GOAL_S" -v gm="$GOAL_MB" 'BEGIN { exit !(w < gw && m < gm) }'; then verdict="  goal met"
		else verdict="  GOAL MISSED"; fi
	fi
	printf '%-46s wall %5.2f s  cpu %5.2f s  peak RSS %6.1f MB%s\n' "$label" "$best_w" "$best_c" "$mb" "$verdict"
}

if [ "$N" -gt 1000 ]; then GOAL_S=2 GOAL_MB=200; else GOAL_S=1 GOAL_MB=100; fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
rm -f "$R/.jobmix-index.sqlite"
[ "${PLAIN:-1}" = 0 ] ||
	TIMES=1 measure "jobmix report DIR, no index (JOBMIX_INDEX=off)" env JOBMIX_INDEX=off $J report "$R"
TIMES=1 measure "jobmix report DIR, first: builds the index" env JOBMIX_INDEX=stats $J report "$R"
grep 'index:' "$D/err" | sed 's/^/  /'
grep -v 'index:' "$D/err" | head -3 | grep . && { echo "jobmix report warned"; exit 3; }
echo "  index: $(du -k "$R/.jobmix-index.sqlite" | cut -f1) KiB"
echo "goal: wall < $GOAL_S s and peak RSS < $GOAL_MB MB; best of ${REPEAT:-3} runs each:"
GOAL=1 measure "jobmix report DIR" $J report "$R"
GOAL=1 measure "jobmix report DIR --format html" $J report "$R" --format html
GOAL=1 measure "jobmix plot DIR --script" $J plot "$R" --script -o "$D/chart.gp"
GOAL=1 measure "jobmix plot DIR --trend --script" $J plot "$R" --trend --script -o "$D/trend.gp"
if [ "$N" -gt 1000 ]; then
	GOAL=1 measure "jobmix compare --by kernel,scheduler DIR -- DIR" $J compare --by kernel,scheduler "$R" -- "$R"
	GOAL=1 measure "jobmix history DIR" $J history "$R"
fi
if command -v gnuplot >/dev/null; then
	measure "jobmix plot DIR -o chart.png (4 gnuplot runs)" $J plot "$R" -o "$D/chart.png"
fi
echo "scripts: $(ls "$D"/chart-*.gp | wc -l) charts, $(cat "$D"/chart-*.gp | wc -c) bytes"
