#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# jobmix's I/O jobs against fio (psync engine), side by side in one run:
# the same file size, block size, direct/buffered mode and concurrency, on
# the same filesystem.  Prints IOPS and bandwidth for both and our/fio.
#
#   bench/vs-fio.sh [DIR]        DIR: where both put their files
#                                (default /var/tmp/jobmix-bench, on a real disk)
# Environment: USERS (2), SIZE (1g), SECS (8, per fio run), REPS (3);
# PLAN=1 prints each case's preparation and jobmix entry, runs nothing.
#
# How: fio runs time-based for SECS; jobmix then runs a fixed job count sized
# from fio's rate to take about as long (jobmix's default AIM7 measure: all
# users run J jobs; throughput = bytes or requests / elapsed until the last
# user finishes, harness overhead included).  Runs alternate fio, jobmix,
# REPS times; the medians are compared.
#
# The two files are made the same way: written sequentially in the same
# requests and fsynced (jobmix's prepare; dd for fio): fileio's prepare
# writes in its `block` requests (as sysbench prepare), seqread's in 1 MiB
# ones, and fio's file is laid out again for each case as jobmix's is, so
# both sit in the page cache in the same state.  This matters: buffered 4k
# random writes read about 10x apart when fio's file was written in 1 MiB
# requests and jobmix's in 4 KiB ones (prepared alike: 0.995 +- 0.046).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/var/tmp/jobmix-bench}
USERS=${USERS:-2}
SIZE=${SIZE:-1g}
SECS=${SECS:-8}
REPS=${REPS:-3}
PLAN=${PLAN:-}
if [ -z "$PLAN" ]; then
	command -v fio >/dev/null || { echo "fio not installed (apt-get install fio)"; exit 2; }
	command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
	[ -x ./jobmix ] || make -s jobmix
	mkdir -p "$DIR"
fi
T=$(mktemp -d)
trap 'rm -rf "$T" "$DIR/fio.dat"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# fio_run RW BS DIRECT -> "iops bw_bytes_per_s"
fio_run() {
	fio --name=bench --filename="$DIR/fio.dat" --size="$SIZE" --rw="$1" --bs="$2" \
		--direct="$3" --ioengine=psync --numjobs="$USERS" --time_based \
		--runtime="$SECS" --invalidate=0 --group_reporting --output-format=json \
		>"$T/fio.json" 2>"$T/fio.err"
	jq -r '.jobs[0] | "\(.read.iops + .write.iops) \(.read.bw_bytes + .write.bw_bytes)"' "$T/fio.json"
}

# jm_run ENTRY JOBS -> "iops bw_bytes_per_s"; ENTRY is the YAML flow mapping of the mix entry
jm_run() {
	cat >"$T/wl.yaml" <<-YAML
	name: vsfio
	files: {filesize: 10k, poolsize: 0, dirs: ["$DIR"]}
	users: {start: $USERS, end: $USERS, jobs_per_user: $2}
	sync: none
	mix:
	  - $1
	YAML
	rm -rf "$T/res"
	./jobmix run "$T/wl.yaml" -u "$USERS" -o "$T/res" -q >/dev/null
	jq -r '.points[0] as $p | [$p.jobs_by_kind[]] | add as $k
		| "\(($k.rops + $k.wops) / $p.elapsed_s) \(($k.rbytes + $k.wbytes) / $p.elapsed_s)"' \
		"$T"/res/*/run.json
}

# prep_fio BS: fio's file written sequentially in BS requests and fsynced,
# as jobmix's prepare writes its own for the case (again only when BS changes)
PREPPED=
prep_fio() {
	[ "$PREPPED" = "$1" ] && return 0
	PREPPED=$1
	local bs
	bs=$(numfmt --from=iec "${1^^}")
	echo "preparing $DIR/fio.dat ($SIZE, $1 sequential writes, fsync)" >&2
	dd if=/dev/urandom of="$DIR/fio.dat" bs="$bs" iflag=fullblock \
		count=$(( $(numfmt --from=iec "${SIZE^^}") / bs )) conv=fsync status=none
}

[ -n "$PLAN" ] ||
printf '%-22s %12s %12s %7s %10s %10s %7s\n' case fio_IOPS jobmix_IOPS ratio fio_MB/s jobmix_MB/s ratio
run_case() { # NAME FIO_RW BS DIRECT ENTRY_TEMPLATE(with OPS placeholder) OPS_PER_REQ PREP_BS
	local name=$1 rw=$2 bs=$3 direct=$4 tmpl=$5 per=$6 prep=$7
	if [ -n "$PLAN" ]; then
		printf '%s\tfio prepared in %s\tjobmix %s\n' "$name" "$prep" "$tmpl"
		return 0
	fi
	prep_fio "$prep"
	: >"$T/f.iops"; : >"$T/f.bw"; : >"$T/j.iops"; : >"$T/j.bw"
	for _ in $(seq 1 "$REPS"); do
		read -r fi fb < <(fio_run "$rw" "$bs" "$direct")
		echo "$fi" >>"$T/f.iops"; echo "$fb" >>"$T/f.bw"
		# size the jobmix run to take about SECS: requests per user at fio's rate
		local reqs jobs ops
		reqs=$(awk -v i="$fi" -v s="$SECS" -v u="$USERS" 'BEGIN { printf "%d", i * s / u }')
		if [ "$per" = file ]; then
			ops=1
			jobs=$(awk -v b="$fb" -v s="$SECS" -v u="$USERS" -v z="$(numfmt --from=iec "${SIZE^^}")" 'BEGIN { j = int(b * s / u / z + 0.5); print j < 2 ? 2 : j }')
		else
			jobs=50
			ops=$(( reqs / jobs )); [ "$ops" -ge 1 ] || ops=1
		fi
		read -r ji jb < <(jm_run "${tmpl//OPS/$ops}" "$jobs")
		echo "$ji" >>"$T/j.iops"; echo "$jb" >>"$T/j.bw"
	done
	local f_i f_b j_i j_b
	f_i=$(median <"$T/f.iops"); f_b=$(median <"$T/f.bw")
	j_i=$(median <"$T/j.iops"); j_b=$(median <"$T/j.bw")
	awk -v n="$name" -v fi="$f_i" -v ji="$j_i" -v fb="$f_b" -v jb="$j_b" 'BEGIN {
		printf "%-22s %12.0f %12.0f %7.3f %10.1f %10.1f %7.3f\n", n, fi, ji, ji / fi, fb / 1e6, jb / 1e6, jb / fb }'
}

F="{job: fileio, files: 1, file_size: $SIZE, shared: true, fsync_every: 0, ops: OPS"
# the last: the request size jobmix's prepare writes the case's file in (fileio:
# its block, the first fileio entry's for the one file they share; seqread: 1m)
run_case "rndrd 4k buffered" randread 4k 0 "$F, mode: rndrd, block: 4k}" req 4k
run_case "rndrd 4k direct" randread 4k 1 "$F, mode: rndrd, block: 4k, flags: direct}" req 4k
run_case "rndwr 4k buffered" randwrite 4k 0 "$F, mode: rndwr, block: 4k}" req 4k
run_case "rndwr 4k direct" randwrite 4k 1 "$F, mode: rndwr, block: 4k, flags: direct}" req 4k
run_case "seqread 1m direct" read 1m 1 "{job: seqread, file_size: $SIZE, block: 1m, direct: true, shared: true}" file 1m
[ -n "$PLAN" ] ||
echo "users $USERS, file $SIZE on $(findmnt -n -o SOURCE,FSTYPE -T "$DIR"), fio $(fio --version), $REPS alternating runs each, medians"
