#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the block tracer (src/trace, docs/tracing.md) costs: the same
# I/O-heavy point with and without it, alternating (PAIRS pairs, the order
# swapped every pair so that drift favours neither), on a memory-backed
# loop device (its file in /dev/shm): fileio random 4 KiB O_DIRECT reads
# of the raw device by USERS users (the CPUs), DURATION seconds a point.
# Prints each pair's IOPS (the device's, /sys/block over the window) and
# the users' CPU microseconds per request, each traced/untraced ratio,
# then per figure the geometric mean of the pairs' ratios with its 95%
# interval (t on the logs), the median and the pairs' spread (the noise).
# BPF_STATS=1 also prints the programs' own run time per call (the
# kernel's bpf_stats, switched on for the bench and put back at exit), in
# all and per program (iot_insert, iot_issue, iot_complete, ...).
# SCHED names the loop device's IO scheduler (default: the kernel's,
# none; mq-deadline: every request inserted, three calls a request).
# TRACE_ARGS adds options to the traced and untraced runs alike (e.g.
# "--trace-sample 1": every request timed; the default samples 1 in 16).
# Root; needs losetup, jq.
set -u
cd "$(dirname "$0")/.."
JOBMIX=${JOBMIX:-./jobmix}
PAIRS=${PAIRS:-6}
DURATION=${DURATION:-4s}
USERS=${USERS:-$(nproc)}
[ "$(id -u)" = 0 ] || { echo "bench/trace.sh: needs root (the tracer, a loop device)"; exit 2; }
T=$(mktemp -d /tmp/jobmix-bench-trace.XXXXXX)
IMG=$(mktemp /dev/shm/jobmix-bench-trace.XXXXXX)
DEV=
STATS0=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)
cleanup() {
	[ "${BPF_STATS:-0}" = 1 ] && [ -n "$STATS0" ] && echo "$STATS0" >/proc/sys/kernel/bpf_stats_enabled
	[ -n "$DEV" ] && losetup -d "$DEV"; rm -f "$IMG"; rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
truncate -s 256M "$IMG"
dd if=/dev/zero of="$IMG" bs=1M count=256 conv=notrunc status=none
DEV=$(losetup -f --show "$IMG") || { DEV=; echo "bench/trace.sh: losetup failed"; exit 1; }
NAME=${DEV#/dev/}
if [ -n "${SCHED:-}" ]; then
	echo "$SCHED" >/sys/block/"$NAME"/queue/scheduler || { echo "bench/trace.sh: no scheduler $SCHED"; exit 1; }
fi
cat >"$T/w.yaml" <<YAML
name: tracecost
files: {filesize: 10k, poolsize: 0, dirs: [./w]}
users: {start: $USERS, end: $USERS, jobs_per_user: 100000, mode: linear}
sync: none
seed: 1
mix:
  - {job: fileio, name: rd, weight: 1, mode: rndrd, files: 1, file_size: 256m, block: 4k,
     ops: 2000, flags: direct, device: $DEV}
YAML
[ "${BPF_STATS:-0}" = 1 ] && echo 1 >/proc/sys/kernel/bpf_stats_enabled
echo "# $(uname -r), $(nproc) CPUs, $USERS users, $PAIRS pairs of $DURATION points, $NAME in /dev/shm," \
	"scheduler $(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/"$NAME"/queue/scheduler)," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
# the BPF programs' own time (BPF_STATS=1: kernel.bpf_stats_enabled on for
# the bench, put back at exit): run_time_ns and run_cnt of each program
# jobmix holds (by its id, named by one bpftool while it is loaded), read
# from its descriptors' fdinfo every 0.25 s; the last reading of a point kept
bpfstat() {
	local pid=$1 last= id
	declare -A name=()
	while kill -0 "$pid" 2>/dev/null; do
		local now
		now=$(awk 'FNR == 1 { id = "" } /^prog_id:/ { id = $2 }
			/^run_cnt:/ && id != "" { print id, ns, $2 } /^run_time_ns:/ { ns = $2 }' \
			/proc/"$pid"/fdinfo/* 2>/dev/null | sort -u)
		if [ -n "$now" ]; then
			last=$now
			for id in $(echo "$now" | cut -d' ' -f1); do
				[ -n "${name[$id]:-}" ] && continue
				# one bpftool a point: every program's name at once
				while read -r k v; do name[$k]=$v; done < <(bpftool prog show -j 2>/dev/null |
					jq -r '.[] | "\(.id) \(.name // "?")"')
				break
			done
		fi
		sleep 0.25
	done
	echo "$last" | while read -r id ns n; do
		[ -n "$id" ] && echo "${name[$id]:-prog$id} $ns $n"
	done >>"$T/bpfstat"
	echo >>"$T/bpfstat"
}
# one point: its IOPS (the device's), the users' CPU microseconds per request
# and the requests the tracer counted (null: not traced)
point() {
	local out=$T/$1 pid
	"$JOBMIX" run "$T/w.yaml" -d "$T/work" -o "$out" --device "$NAME" --measure time \
		--duration "$DURATION" --no-warmup -q ${TRACE_ARGS:-} $2 >/dev/null 2>"$T/err" &
	pid=$!
	[ "${BPF_STATS:-0}" = 1 ] && [ -z "$2" ] && bpfstat $pid
	wait $pid || { cat "$T/err" >&2; return 1; }
	jq -r --arg d "$NAME" '.points[0] | .devices[$d] as $v |
		[$v.iops, 1e6 * (.user_cpu_s + .sys_cpu_s) / ($v.read_ios + $v.write_ios),
		 ($v.blk.requests // "null")] | @tsv' "$out"/*/run.json
}
printf '%-5s %-9s %10s %10s %8s %9s %9s %8s %10s\n' pair first iops_on iops_off ratio \
	cpu_us_on cpu_us_off ratio requests
: >"$T/ratios"
for p in $(seq "$PAIRS"); do
	if [ $((p % 2)) = 1 ]; then
		read -r on con req < <(point on$p "") || exit 1
		read -r off coff _ < <(point off$p --no-trace) || exit 1
		first=traced
	else
		read -r off coff _ < <(point off$p --no-trace) || exit 1
		read -r on con req < <(point on$p "") || exit 1
		first=untraced
	fi
	r=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.4f", a / b }')
	c=$(awk -v a="$con" -v b="$coff" 'BEGIN { printf "%.4f", a / b }')
	echo "$r $c" >>"$T/ratios"
	printf '%-5s %-9s %10.0f %10.0f %8s %9.2f %9.2f %8s %10s\n' "$p" "$first" "$on" "$off" "$r" \
		"$con" "$coff" "$c" "$req"
done
# the geometric mean of the pairs' ratios with its 95% interval (t on the logs), and the median
awk 'function summary(what, col,   i, m, v, sd, t, h, n, y, k, j, tmp) {
	n = NR; m = 0; v = 0
	for (i = 1; i <= n; i++) { y[i] = log(x[i, col]); m += y[i] }
	m /= n
	for (i = 1; i <= n; i++) v += (y[i] - m) ^ 2
	sd = n > 1 ? sqrt(v / (n - 1)) : 0
	t = n - 1 <= 10 ? tq[n - 1] : 2; h = n > 1 ? t * sd / sqrt(n) : 0
	for (i = 1; i <= n; i++) y[i] = x[i, col]
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (y[j] < y[i]) { tmp = y[i]; y[i] = y[j]; y[j] = tmp }
	k = n % 2 ? y[(n + 1) / 2] : (y[n / 2] + y[n / 2 + 1]) / 2
	printf "%s traced/untraced: %.4f (95%% CI %.4f .. %.4f; median %.4f; pairs sd x/%.3f, %d pairs): %+.2f%%\n",
		what, exp(m), exp(m - h), exp(m + h), k, exp(sd), n, 100 * (exp(m) - 1)
}
{ x[NR, 1] = $1; x[NR, 2] = $2 }
END {
	split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23", tq, " ")
	summary("IOPS", 1); summary("users'"'"' CPU per request", 2)
}' "$T/ratios"
# the programs' own time per call, in all and per program (every device's calls)
[ -s "$T/bpfstat" ] && awk '
	NF == 3 { ns += $2; n += $3; pns[$1] += $2; pn[$1] += $3 } NF == 0 { points++ }
	END {
		if (!n) exit
		printf "BPF programs: %.0f ns a call over %d calls (all devices), %.0f calls a point\n", ns / n, n, n / points
		for (p in pn) if (pn[p])
			printf "  %-16s %6.0f ns a call, %9.0f calls a point\n", p, pns[p] / pn[p], pn[p] / points
	}' "$T/bpfstat"
exit 0
