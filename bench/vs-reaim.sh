#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# jobmix against re-aim-7, side by side: every AIM7 job alone at 1 user,
# then the fserver, dbase and shared mixes at 1, 4 and 16 users, the same
# jobs per user, file sizes and directory, the sync modes matched; runs
# alternated.  Prints the JPM of both, jobmix/re-aim and its noise.
#
#   REAIM=/path/to/reaim bench/vs-reaim.sh [DIR]
#
# REAIM: a re-aim-7 binary you built (no re-aim code ships with jobmix).  To
# build one outside this repository (Debian, no autotools needed):
#   git clone https://github.com/davidlohr/areaim /tmp/areaim
#   cd /tmp/areaim/osdl-aim-7/src
#   sed -i 's/^static int sigcount;/static volatile int sigcount;/' creat_clo.c
#   gcc -O2 -w -fcommon -D_GNU_SOURCE -I.. -I../include \
#     driver.c ram.c rand.c times_ms.c add.c creat_clo.c drv_funcs.c div.c disk_funcs.c \
#     pipe_test.c mul.c num_fcns.c int_fcns.c disk1.c disk_src.c fun.c funcal.c \
#     ../lib/forker.c ../lib/tst_sig.c ../lib/tst_res.c ../lib/parse_opts.c -o ../reaim -lm
#   REAIM=/tmp/areaim/osdl-aim-7/reaim bench/vs-reaim.sh
# re-aim reads its data (fakeh.tgz, workfile.<mix>) from REAIM_DATA, by
# default the data/ folder beside the binary.  Its exec_test and
# shell_rtns_* run scripts from the path compiled into it,
# /usr/local/share/reaim/osdl-aim-7/scripts (copy its scripts/ there); without
# them those rows compare against a failing exec (a note says so).  The sed
# line fixes re-aim's signal_test, which hangs under -O2 (its counter is not
# volatile), and with it every mix that contains signal_test.  Built so, its
# array_rtns loop crosses a 64-byte line (about 1.4x slower: bench/README.md); add
# -falign-loops=64 to compare array_rtns' work rather than code placement.
#
# DIR: the work directory of both (default /var/tmp/jobmix-bench-reaim).
# Environment: SYNC (exec: re-aim's default system("sync") against jobmix
#   sync: exec; none: re-aim -y against sync: none), REPS (3), TARGET_S
#   (1: each single-job run is sized to take about this long), KINDS (all
#   AIM7 kinds), MIXES ("fserver dbase shared"), USERS ("1 4 16"), JOBS (100,
#   jobs per user in the mixes), RA_TIMEOUT (120 s per re-aim run: an
#   unpatched re-aim's signal_test hangs when built with -O2).
#
# Each repeat runs both tools, in alternating order (re-aim first on odd
# repeats); its ratio is jobmix JPM / re-aim JPM of that pair.  The table
# prints the mean JPM of each, the mean ratio and the sd of the ratios
# (the noise): a ratio within 2 sd of 1 is no difference.  re-aim times a
# point with times() (10 ms ticks), so runs shorter than a second are
# coarse; raise TARGET_S on a quiet machine.
#
# re-aim's driver also spends time around every job that is not the job's
# work: two times(2) system calls, two sprintf and a random draw, measured
# here by bench/reaim-harness.c (HARNESS_US overrides it).  Where a job
# takes a few microseconds and system calls are dear (about 1 us each in a
# paravirtualised guest) that is a large part of re-aim's time per job, so
# the single-job rows also print `harness_adj`: the ratio with that cost
# taken out of re-aim's time per job (60 s / JPM at 1 user).  jobmix's own
# bookkeeping (two vDSO clock reads, tens of ns) stays in.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${REAIM:-}" ]; then
	echo "bench/vs-reaim.sh: set REAIM=/path/to/reaim (a re-aim-7 binary you built;" \
	     "the header of this script says how)" >&2
	exit 2
fi
if [ ! -x "$REAIM" ]; then
	echo "bench/vs-reaim.sh: REAIM=$REAIM is not an executable file" >&2
	exit 2
fi
REAIM=$(realpath "$REAIM")
REAIM_DATA=$(realpath "${REAIM_DATA:-$(dirname "$REAIM")/data}" 2>/dev/null || true)
if [ ! -f "$REAIM_DATA/fakeh.tgz" ]; then
	echo "bench/vs-reaim.sh: no fakeh.tgz in REAIM_DATA=${REAIM_DATA:-?} (re-aim's data/ folder)" >&2
	exit 2
fi
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)" >&2; exit 2; }
DIR=${1:-/var/tmp/jobmix-bench-reaim}
SYNC=${SYNC:-exec}
REPS=${REPS:-3}
TARGET_S=${TARGET_S:-1}
MIXES=${MIXES-fserver dbase shared}
USERS=${USERS:-1 4 16}
JOBS=${JOBS:-100}
case $SYNC in
exec) YFLAG=() ;;
none) YFLAG=(-y) ;;
*) echo "bench/vs-reaim.sh: SYNC must be exec or none" >&2; exit 2 ;;
esac
[ -x ./jobmix ] || make -s jobmix
if [ -z "${KINDS:-}" ]; then
	KINDS=$(./jobmix jobs | awk '$2 != "io" { print $1 }')
fi
mkdir -p "$DIR"
T=$(mktemp -d)
RA=$T/reaim
mkdir -p "$RA/disk" "$DIR/jm"
ln -s "$REAIM_DATA" "$RA/data"
ln -s "$(dirname "$REAIM")/scripts" "$RA/scripts" 2>/dev/null || true
trap 'rm -rf "$T"; rmdir "$DIR/jm" "$DIR" 2>/dev/null || true' EXIT
printf 'FILESIZE 10k\nPOOLSIZE 1m\nDISKDIR %s\n' "$RA/disk" >"$RA/cfg"
if [ -z "${HARNESS_US:-}" ]; then
	"${CC:-cc}" -std=c11 -O2 -Wall bench/reaim-harness.c -o "$T/harness" &&
		HARNESS_US=$("$T/harness" 200000 | cut -d' ' -f1) || HARNESS_US=0
fi

# ra_run WORKFILE USERS JOBS -> JPM
ra_run() {
	(cd "$RA" && rm -f reaim.* && timeout "${RA_TIMEOUT:-120}" "$REAIM" -s"$2" -e"$2" -j"$3" -f "$1" -c cfg \
		"${YFLAG[@]}" </dev/null >out 2>err)
	# a run shorter than re-aim's clock tick reports "inf": no figure
	awk '/^Max Jobs per Minute/ && $5 + 0 > 0 && $5 !~ /inf/ { print $5; found = 1 } END { exit !found }' "$RA/out"
}

# jm_run WORKLOAD USERS JOBS -> JPM
jm_run() {
	rm -rf "$T/res"
	./jobmix run "$1" -u "$2" -j "$3" -d "$DIR/jm" --sync "$SYNC" -o "$T/res" -q >/dev/null \
		2>"$T/jm.err" || return 1
	jq -r '.points[0].jpm' "$T"/res/*/run.json
}

# size_jobs JPM -> jobs per user that take about TARGET_S (5 to 1,000,000)
size_jobs() {
	awk -v p="$1" -v t="$TARGET_S" 'BEGIN { n = int(p * t / 60 + 0.5); print n < 5 ? 5 : (n > 1000000 ? 1000000 : n) }'
}

# pair NAME RA_WORKFILE JM_WORKLOAD USERS JOBS: REPS alternating pairs, one table row
pair() {
	local name=$1 wf=$2 wl=$3 u=$4 j=$5 rep a b
	: >"$T/pairs"
	for rep in $(seq 1 "$REPS"); do
		if [ $((rep % 2)) = 1 ]; then
			a=$(ra_run "$wf" "$u" "$j") || a=; b=$(jm_run "$wl" "$u" "$j") || b=
		else
			b=$(jm_run "$wl" "$u" "$j") || b=; a=$(ra_run "$wf" "$u" "$j") || a=
		fi
		[ -n "$a" ] && [ -n "$b" ] && echo "$a $b" >>"$T/pairs"
	done
	if [ ! -s "$T/pairs" ]; then
		printf '%-22s %5s %6s %12s %12s   failed (%s)\n' "$name" "$u" "$j" - - \
			"$(tail -1 "$RA/err" "$T/jm.err" 2>/dev/null | tr '\n' ' ' | cut -c1-60)"
		return
	fi
	awk -v n="$name" -v u="$u" -v j="$j" -v h="$HARNESS_US" '
		{ a += $1; b += $2; q = ($1 > 0 ? $2 / $1 : 0); s += q; ss += q * q; k++
		  # re-aim time per job (us) less its bookkeeping; 1 user only
		  t = 60e6 / $1 - h; qa = t > 0 ? $2 * t / 60e6 : 0; sa += qa; ssa += qa * qa }
		END { m = s / k; v = k > 1 ? (ss - k * m * m) / (k - 1) : 0; sd = v > 0 ? sqrt(v) : 0
		      ma = sa / k; va = k > 1 ? (ssa - k * ma * ma) / (k - 1) : 0; sda = va > 0 ? sqrt(va) : 0
		      # judged on the adjusted ratio where there is one
		      jm = u == 1 ? ma : m; js = u == 1 ? sda : sd
		      flag = (jm - 1 > 2 * js || 1 - jm > 2 * js) ? (jm < 0.9 || jm > 1.1 ? "  outside 0.9-1.1" : "") : ""
		      adj = u == 1 ? sprintf("%8.3f ±%.3f", ma, sda) : sprintf("%15s", "-")
		      printf "%-22s %5d %6d %12.1f %12.1f %8.3f ±%.3f %s (%d)%s\n", n, u, j, a / k, b / k, m, sd, adj, k, flag }' \
		"$T/pairs"
}

RA_SCRIPTS=/usr/local/share/reaim/osdl-aim-7/scripts
[ -x "$RA_SCRIPTS/true" ] || echo "note: no $RA_SCRIPTS/true: re-aim's exec_test and shell_rtns_* rows are not valid (see the header)" >&2
echo "re-aim's bookkeeping per job: $HARNESS_US us (bench/reaim-harness.c)"
printf '%-22s %5s %6s %12s %12s %15s %15s\n' job/mix users jobs reaim_JPM jobmix_JPM "jobmix/reaim ±sd" "harness_adj ±sd (n)"
for k in $KINDS; do
	printf 'FILESIZE 10k\nPOOLSIZE 1m\n1 %s\n' "$k" >"$RA/wf.$k"
	cat >"$T/$k.yaml" <<-YAML
	name: vsreaim-$k
	files: {filesize: 10k, poolsize: 1m, dirs: ["$DIR/jm"]}
	users: {start: 1, end: 1, jobs_per_user: 1}
	mix:
	  - {job: $k, weight: 1}
	YAML
	# size the run: jobs that take about TARGET_S at 1 user, by a short jobmix
	# run, then (for fast kinds, whose 5 jobs take too little time to tell)
	# by a run of a tenth of that
	jpm=$(jm_run "$T/$k.yaml" 1 5) || { printf '%-22s jobmix failed: %s\n' "$k" "$(tail -1 "$T/jm.err")"; continue; }
	j=$(size_jobs "$jpm")
	if [ "$j" -ge 100 ]; then
		jpm=$(jm_run "$T/$k.yaml" 1 $((j / 10))) && j=$(size_jobs "$jpm")
	fi
	pair "$k" "wf.$k" "$T/$k.yaml" 1 "$j"
done
for m in $MIXES; do
	[ -f "$REAIM_DATA/workfile.$m" ] || { echo "$m: no workfile.$m in $REAIM_DATA" >&2; continue; }
	{ printf 'FILESIZE 10k\nPOOLSIZE 1m\n'; grep -v '^FILESIZE\|^POOLSIZE' "$REAIM_DATA/workfile.$m"; } >"$RA/wf.$m"
	sed "s|dirs: \[./jobmix-work\]|dirs: [\"$DIR/jm\"]|" "workloads/$m.yaml" >"$T/$m.yaml"
	for u in $USERS; do
		pair "$m" "wf.$m" "$T/$m.yaml" "$u" "$JOBS"
	done
done
echo "sync: re-aim $([ "$SYNC" = none ] && echo '-y' || echo 'default (system("sync"))'), jobmix --sync $SYNC;" \
	"$REPS alternating pairs; FILESIZE 10k, POOLSIZE 1m; $(findmnt -n -o SOURCE,FSTYPE -T "$DIR")"
