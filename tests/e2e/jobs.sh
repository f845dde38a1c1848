#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The catalogue: every AIM7 job of the reference plus the parametrised I/O
# jobs is listed, and `jobmix jobs NAME` documents each parameter.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
want="disk_rr disk_rw disk_rd disk_wrt disk_cp disk_src sync_disk_rw sync_disk_wrt sync_disk_cp
sync_disk_update disk_brr disk_brw disk_brd disk_bwrt disk_bcp disk_dio_rr disk_dio_rw disk_dio_rd
disk_dio_wrt disk_dio_cp creat_clo link_test fifo_test pipe_cpy stream_pipe dgram_pipe tcp_test
udp_test shared_memory fork_test exec_test shell_rtns_1 shell_rtns_2 shell_rtns_3 page_test brk_test
jmp_test signal_test add_double add_float add_long add_int add_short mul_double mul_float mul_long
mul_int mul_short div_double div_float div_long div_int div_short fun_cal fun_cal1 fun_cal2 fun_cal15
sieve num_rtns_1 trig_rtns series_1 new_raph matrix_rtns array_rtns string_rtns mem_rtns_1 mem_rtns_2
ram_copy sort_rtns_1 misc_rtns_1 dir_rtns_1 fileio seqread streams"
listed=$($JOBMIX jobs | awk '{print $1}')
missing=
for k in $want; do grep -qx "$k" <<<"$listed" || missing="$missing $k"; done
check "jobmix jobs lists every reference job and fileio, seqread, streams${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "68 kinds or more" [ "$(wc -l <<<"$listed")" -ge 68 ]
undocumented=
for k in $listed; do
	out=$($JOBMIX jobs "$k") || { undocumented="$undocumented $k"; continue; }
	# each parameter line "  name type default D range" is followed by a help line
	n_params=$(grep -cE '^  [a-z_0-9]+ +(int|size|bool|enum|flags|number|range|ratios) ' <<<"$out")
	n_help=$(grep -cE '^                 +[A-Za-z0-9(]' <<<"$out")
	[ "$n_params" -le "$n_help" ] || undocumented="$undocumented $k"
done
check "jobmix jobs NAME documents each parameter${undocumented:+ (not:$undocumented)}" [ -z "$undocumented" ]
out=$($JOBMIX jobs streams)
check "streams: write_size takes a range" grep -qE '^  write_size +range ' <<<"$out"
check "streams: rates, per-stream weights" grep -qE '^  rates +ratios ' <<<"$out"
check "the job table shows the streams' new parameters" bash -c "$JOBMIX jobs --markdown | grep '^| \`streams\`' | grep -q '\`rates\`='"
T=$(mktemp)
$JOBMIX jobs disk_rx >/dev/null 2>"$T.err"; rc=$?
check "unknown job: exit 2 with a suggestion" [ $rc = 2 ]
check "unknown job: did you mean" grep -q "did you mean 'disk_rr'" "$T.err"
rm -f "$T" "$T.err"
