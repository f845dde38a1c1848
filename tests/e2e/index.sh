#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: a results root's index (.jobmix-index.sqlite).  Real runs
# (histograms, devices, machine counters, a failed point) and old-schema
# files in one root: report (every format, a pivot), compare, history and
# plot print the same through the index (made, then read back) as without
# it; a rewritten run is read afresh, a removed one dropped, a new one
# added; a damaged index or one of another layout is made afresh; a
# symlink in the index's place is never followed; a root written by others
# gets no index; two reports at once both answer; JOBMIX_INDEX=off makes
# none.  A same-size rewrite with its old mtime put back is read afresh
# (ctime); an index owned by another user (nobody, holding a forged row) or
# writable by others is ignored with one line and left unwritten.  A
# night folder inside a root with an index reads through it (the same
# output), gets none of its own, and drops only its own gone runs.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
command -v sqlite3 >/dev/null && SQL=1 || SQL=
T=$(mktemp -d /tmp/jobmix-e2e-index.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
R=$T/results
W=tests/data/e2e/cpu.yaml
IX=$R/.jobmix-index.sqlite
J() { JOBMIX_INDEX=${MODE:-stats} JOBMIX_READ=${READ:-} $JOBMIX "$@"; }
# times F: a run.json's every JPM (points, summary, curve) times F, so its summary still agrees
times() { jq --argjson f "$1" 'def x: if type == "number" then . * $f else . end;
	.points[].jpm |= x | .summary |= (.peak_jpm |= x | .max_jpm |= x | .best_jpm |= x |
	.converge_jpm |= x | .by_users[] |= (.jpm_mean |= x | .jpm_samples |= map(x)))' "$2"; }

mkdir -p "$R"
for i in 1 2 3 1 2; do   # nights 1 and 2 twice: rows of 2 runs, their evidence tested
	$JOBMIX run "$W" -u 1-2 -j 2 -d "$T/w" -o "$R" -q -L night=$i >/dev/null 2>>"$T/err" ||
		not_ok "index: run $i"
done
$JOBMIX run workloads/fserver.yaml -u 1 -j 2 -d "$T/w" -o "$R" -q -L night=4 >/dev/null 2>>"$T/err" ||
	not_ok "index: fserver run"
for f in tests/data/runs/*.json; do
	d=$R/old-$(basename "$f" .json); mkdir -p "$d"; cp "$f" "$d/run.json"
done
n=$(find "$R" -name run.json | wc -l)
[ ! -e "$IX" ] && ok "index: none before a report" || not_ok "index: one before any report"

# same output: without an index, building it, reading it back
CMDS=("report $R" "report $R --format json" "report $R --format csv" "report $R --format html"
      "report $R --metric jpm,elapsed --cols night"
      "report $R --metric dev.kib_req --metric machine.other_pct --metric psi.cpu.some --metric cpu.user --cols night"
      "report $R --metric disk_rr.p99_ms --metric disk_rr.extents --metric vm.pgmajfault_s --cols night"
      "report $R --metric sieve.p50_ms --metric sieve.p99_ms --metric add_long.p99_ms --format csv" "history $R --order night"
      "compare $R $R" "plot $R --script -o $T/p.gp" "plot $R --trend --script -o $T/t.gp"
      "report $R --by night" "compare --format json --by night $R -- $R"
      "history $R --order night --format json")
run_all() { # run_all TAG MODE
	local i=0 c
	for c in "${CMDS[@]}"; do
		# shellcheck disable=SC2086
		MODE=$2 J $c >"$T/$1.$i.out" 2>"$T/$1.$i.err"; echo $? >"$T/$1.$i.rc"
		[ -f "$T/p.gp" ] && cat "$T"/p*.gp >>"$T/$1.$i.out" 2>/dev/null
		[ -f "$T/t.gp" ] && cat "$T"/t*.gp >>"$T/$1.$i.out" 2>/dev/null
		rm -f "$T"/p*.gp "$T"/t*.gp
		i=$((i + 1))
	done
}
same() { # same A B: every command's output and exit code equal
	local i=0 bad=0 c
	for c in "${CMDS[@]}"; do
		if ! cmp -s "$T/$1.$i.out" "$T/$2.$i.out" || ! cmp -s "$T/$1.$i.rc" "$T/$2.$i.rc"; then
			echo "# differs ($1 vs $2): $c"; diff "$T/$1.$i.out" "$T/$2.$i.out" | head -5 | sed 's/^/# /'
			bad=1
		fi
		i=$((i + 1))
	done
	return $bad
}
run_all plain off
[ ! -e "$IX" ] && ok "index: JOBMIX_INDEX=off makes none" || not_ok "index: made with JOBMIX_INDEX=off"
MODE=stats J report "$R" >/dev/null 2>"$T/first.err"
grep -q "0 runs from the index, $n parsed" "$T/first.err" && [ -f "$IX" ] &&
	ok "index: the first report parses all $n runs and makes the index" ||
	not_ok "index: first build: $(cat "$T/first.err")"
run_all indexed stats
grep -q " $n runs from the index, 0 parsed" "$T/indexed.0.err" &&
	ok "index: read back: all $n runs from the index, none parsed" ||
	not_ok "index: read back: $(cat "$T/indexed.0.err")"
same plain indexed && ok "index: report, compare, history and plot print the same through the index" ||
	not_ok "index: output differs through the index"
# a run-level read (the default of these commands) against every part of every run read
READ=points run_all full stats
same indexed full && ok "index: a run-level read prints what a read of every point prints" ||
	not_ok "index: run-level read differs from the full read"
jq -e '[.evidence[] | select(.group == "night=2" and .looked > 0 and .tested > 0)] | length == 1' \
	"$T/indexed.13.out" >/dev/null &&
	ok "index: compare's evidence of nights of 2 runs looked at and tested (from the peak's points)" ||
	not_ok "index: no tested evidence: $(grep -o '"evidence.*' "$T/indexed.13.out" | head -c 300)"
[ "$(cat "$T/plain.0.rc")" = 0 ] && grep -q "Peak" "$T/plain.0.out" &&
[ "$(cat "$T/plain.5.rc")" = 0 ] && grep -q "dev.kib_req" "$T/plain.5.out" &&
[ "$(cat "$T/plain.6.rc")" = 0 ] && grep -q "disk_rr.p99_ms" "$T/plain.6.out" &&
	ok "index: the reports compared are real tables (classic, device/machine, latency pivots)" ||
	not_ok "index: a report compared failed: $(cat "$T"/plain.[056].rc | tr '\n' ' ')"
if [ -n "$SQL" ]; then
	[ "$(sqlite3 "$IX" 'select count(*) from runs')" = "$n" ] &&
	[ "$(sqlite3 "$IX" "select count(*) from labels where key = 'night'")" = 6 ] &&
	[ "$(sqlite3 "$IX" 'select count(*) from points')" -ge "$n" ] &&
		ok "index: SQL tables: runs, points, labels" || not_ok "index: SQL tables"
	cols=$(sqlite3 "$IX" "select count(*) from pragma_table_info('runs') where name in
		('summary_peak_jpm','workload_name','sched_scheduler','warmup_jpm','status')")
	[ "$cols" = 5 ] && ok "index: runs has the schema's columns (summary_peak_jpm, workload_name, ...)" ||
		not_ok "index: runs columns ($cols of 5)"
fi

# a run rewritten (its JPM doubled), one removed, one added
one=$(find "$R" -path '*cpu*' -name run.json | sort | head -1)
gone=$(find "$R" -path '*cpu*' -name run.json | sort | sed -n 2p)
times 2 "$one" >"$T/x" && cat "$T/x" >"$one"
rm -r "$(dirname "$gone")"
mkdir -p "$R/old-again" && cp tests/data/runs/v1-peak.json "$R/old-again/run.json"
MODE=off J report "$R" --format json >"$T/plain2" 2>/dev/null
MODE=stats J report "$R" --format json >"$T/ix2" 2>"$T/ix2.err"
grep -q " $((n - 2)) runs from the index, 2 parsed, 1 dropped" "$T/ix2.err" &&
	ok "index: rewritten and new runs parsed, the removed one dropped" ||
	not_ok "index: refresh: $(cat "$T/ix2.err")"
cmp -s "$T/plain2" "$T/ix2" && ok "index: the refreshed report equals the one without an index" ||
	not_ok "index: refreshed report differs"
MODE=stats J report "$R" >/dev/null 2>"$T/ix3.err"
grep -q " $n runs from the index, 0 parsed, 0 dropped" "$T/ix3.err" &&
	ok "index: after the refresh all from the index" || not_ok "index: after refresh: $(cat "$T/ix3.err")"

# damaged, another layout, rebuild asked
head -c 4096 /dev/urandom >"$IX"
MODE=stats J report "$R" --format json >"$T/ix4" 2>"$T/ix4.err"
cmp -s "$T/plain2" "$T/ix4" && grep -q "0 runs from the index, $n parsed.*rebuilt" "$T/ix4.err" &&
	ok "index: a damaged index is made afresh, the report unchanged" ||
	not_ok "index: damaged: $(cat "$T/ix4.err")"
if [ -n "$SQL" ]; then
	sqlite3 "$IX" 'PRAGMA user_version = 7'
	MODE=stats J report "$R" >/dev/null 2>"$T/ix5.err"
	grep -q "$n parsed.*rebuilt" "$T/ix5.err" && ok "index: another layout's index is rebuilt" ||
		not_ok "index: layout: $(cat "$T/ix5.err")"
fi

# two at once (one waits for the other's refresh, or reads without)
rm -f "$IX"
MODE=stats J report "$R" --format json >"$T/c1" 2>"$T/c1.err" &
MODE=stats J report "$R" --format json >"$T/c2" 2>"$T/c2.err" &
wait
cmp -s "$T/plain2" "$T/c1" && cmp -s "$T/plain2" "$T/c2" &&
	ok "index: two reports at once both answer, the same" || not_ok "index: concurrent reports"

# bad input changes nothing on disk: no index made, none refreshed
rm -f "$IX"
MODE=stats J report "$R" --by nonesuch >/dev/null 2>"$T/bad.err"
[ $? = 2 ] && [ ! -e "$IX" ] && [ ! -e "$IX-journal" ] &&
	ok "index: a report refused for bad input (--by nonesuch, exit 2) leaves no index behind" ||
	not_ok "index: bad input made an index: $(ls -a "$R" | head -3)"
MODE=stats J report "$R" >/dev/null 2>&1
before=$(sqlite3 "$IX" 'select count(*) from runs' 2>/dev/null)
rm -r "$R/old-again"
MODE=stats J history "$R" --order nonesuch >/dev/null 2>&1
[ $? = 2 ] && [ -z "$SQL" -o "$(sqlite3 "$IX" 'select count(*) from runs' 2>/dev/null)" = "$before" ] &&
	ok "index: a command refused after reading (--order nonesuch) does not refresh it" ||
	not_ok "index: refreshed on bad input"
MODE=stats J report "$R" >/dev/null 2>"$T/after.err"
grep -q "1 dropped" "$T/after.err" && ok "index: the next good command drops the removed run" ||
	not_ok "index: after bad input: $(cat "$T/after.err")"
MODE=off J report "$R" --format json >"$T/plain2" 2>/dev/null

# never follow a symlink in the index's place; no index in a root others may write
rm -f "$IX"; echo keep >"$T/victim"; ln -s "$T/victim" "$IX"
MODE=stats J report "$R" --format json >"$T/s1" 2>"$T/s1.err"
[ "$(cat "$T/victim")" = keep ] && [ -L "$IX" ] && cmp -s "$T/plain2" "$T/s1" &&
	grep -q "0 root(s)" "$T/s1.err" &&
	ok "index: a symlink in its place is left alone, the runs read without" ||
	not_ok "index: symlink: $(cat "$T/s1.err")"
rm -f "$IX"; chmod 777 "$R"
MODE=stats J report "$R" >/dev/null 2>"$T/s2.err"
[ ! -e "$IX" ] && grep -q "0 root(s)" "$T/s2.err" &&
	ok "index: none made in a root others may write" || not_ok "index: world-writable root"
chmod 755 "$R"
MODE=stats J report "$R/old-v1-peak" >/dev/null 2>"$T/s3.err"
[ ! -e "$R/old-v1-peak/.jobmix-index.sqlite" ] && ok "index: none for one run's folder" ||
	not_ok "index: made in a run folder"
# a run.json rewritten with the same size and its old mtime put back (touch -d): read afresh,
# as ctime (which no user can set back) is part of the identity the index keeps
three=$(find "$R" -path '*cpu*' -name run.json | sort | tail -1)
nv=$(jq -r .labels.night "$three")
MODE=stats J report "$R" >/dev/null 2>&1
size=$(stat -c %s "$three") mt=$(stat -c %.9Y "$three")
sed "s/\"night\": \"$nv\"/\"night\": \"7\"/" "$three" >"$T/x" && cat "$T/x" >"$three" &&
	touch -d "@$mt" "$three"
MODE=stats J report "$R" --by night --format csv >"$T/ct.out" 2>"$T/ct.err"
if [ "$(stat -c '%s %.9Y' "$three")" != "$size $mt" ]; then
	not_ok "index: the same-size rewrite changed size or mtime ($(stat -c '%s %.9Y' "$three") vs $size $mt)"
elif grep -q "1 parsed" "$T/ct.err" && grep -q '^cpu,,7,' "$T/ct.out"; then
	ok "index: a same-size rewrite with its old mtime restored is read afresh (ctime differs)"
else
	not_ok "index: stale row served after touch -d: $(cat "$T/ct.err"); $(cut -d, -f3 "$T/ct.out" | tr '\n' ' ')"
fi

# an index another user owns (or others may write) is neither read nor written
if [ "$(id -u)" != 0 ] || [ -z "$SQL" ]; then
	skip "index: a forged row in another user's index (needs root and sqlite3)"
else
	rel=${three#"$R"/}
	F=$T/forge && mkdir -p "$F/$(dirname "$rel")"
	times 1000 "$three" >"$F/$rel"
	MODE=on J report "$F" >/dev/null 2>&1
	MODE=off J report "$R" --format json >"$T/true.json" 2>/dev/null
	MODE=on J report "$R" >/dev/null 2>&1
	forge() { sqlite3 "$IX" "attach '$F/.jobmix-index.sqlite' as f;
		update runs set rec = (select rec from f.runs where rel = '$rel') where rel = '$rel';
		update pts set pts = (select pts from f.pts where rel = '$rel') where rel = '$rel';
		update curves set curves = (select curves from f.curves where rel = '$rel') where rel = '$rel';"; }
	forge
	MODE=on J report "$R" --format json >"$T/forged.json" 2>/dev/null
	if cmp -s "$T/true.json" "$T/forged.json"; then
		not_ok "index: the forged row did not take (the test's premise)"
	else
		ok "index: a forged row in root's own index is served (the premise: the index is trusted)"
	fi
	forge
	chown nobody "$IX"
	sum=$(sha256sum <"$IX")
	MODE=stats J report "$R" --format json >"$T/nb.json" 2>"$T/nb.err"
	cmp -s "$T/true.json" "$T/nb.json" && grep -q "owned by another user.*ignored" "$T/nb.err" &&
	[ "$(grep -c warning "$T/nb.err")" = 1 ] && grep -q "0 root(s)" "$T/nb.err" &&
	[ "$(sha256sum <"$IX")" = "$sum" ] && [ ! -e "$IX-journal" ] &&
		ok "index: one owned by nobody with a forged row is ignored (one line said), not written" ||
		not_ok "index: nobody's index: $(cat "$T/nb.err")"
	chown root "$IX" && chmod 666 "$IX"
	MODE=stats J report "$R" --format json >"$T/ww.json" 2>"$T/ww.err"
	cmp -s "$T/true.json" "$T/ww.json" && grep -q "writable by others.*ignored" "$T/ww.err" &&
		ok "index: one that others may write is ignored" || not_ok "index: writable index: $(cat "$T/ww.err")"
	chmod 644 "$IX"
fi

# one index per root: night folders inside a root with an index read through it, make none
N=$T/nest
for d in $(find "$R" -path '*cpu*' -name run.json | sort | head -4 | xargs -n1 dirname); do
	k=n1; [ -d "$N/n1" ] && [ "$(ls "$N/n1" | wc -l)" -ge 2 ] && k=n2
	mkdir -p "$N/$k" && cp -r "$d" "$N/$k/"
done
MODE=stats J report "$N" >/dev/null 2>&1
MODE=off J report "$N/n1" --format json >"$T/n1.off" 2>/dev/null
MODE=stats J report "$N/n1" --format json >"$T/n1.ix" 2>"$T/n1.err"
MODE=off J compare "$N/n1" -- "$N/n2" >"$T/cmp.off" 2>/dev/null
MODE=stats J compare "$N/n1" -- "$N/n2" >"$T/cmp.ix" 2>"$T/cmp.err"
MODE=off J history "$N/n2" --order started >"$T/h.off" 2>/dev/null
MODE=stats J history "$N/n2" --order started >"$T/h.ix" 2>"$T/h.err"
cmp -s "$T/n1.off" "$T/n1.ix" && cmp -s "$T/cmp.off" "$T/cmp.ix" && cmp -s "$T/h.off" "$T/h.ix" &&
	grep -q "^peak " "$T/cmp.ix" && ok "index: a night folder read through the root's index prints the same (report, compare, history)" ||
	not_ok "index: night through the root differs"
[ "$(find "$N" -name .jobmix-index.sqlite | wc -l)" = 1 ] && [ -e "$N/.jobmix-index.sqlite" ] &&
	grep -q " 2 runs from the index, 0 parsed, 0 dropped" "$T/n1.err" &&
	[ "$(grep -c " 2 runs from the index, 0 parsed" "$T/cmp.err")" -ge 1 ] &&
	ok "index: the night folders get no index of their own, their runs come from the root's" ||
	not_ok "index: night folders: $(find "$N" -name '.jobmix-index*' | tr '\n' ' '); $(cat "$T/n1.err" "$T/cmp.err")"
rm -r "$(find "$N/n2" -name run.json | sort | head -1 | xargs dirname)"
MODE=stats J report "$N/n2" >/dev/null 2>"$T/n2.err"
if [ -n "$SQL" ]; then
	grep -q " 1 runs from the index, 0 parsed, 1 dropped" "$T/n2.err" &&
	[ "$(sqlite3 "$N/.jobmix-index.sqlite" "select count(*) from runs where rel like 'n1/%'")" = 2 ] &&
	[ "$(sqlite3 "$N/.jobmix-index.sqlite" "select count(*) from runs where rel like 'n2/%'")" = 1 ] &&
		ok "index: a run gone from a night is dropped from the root's index, the other night's rows kept" ||
		not_ok "index: drop in a night: $(cat "$T/n2.err")"
fi
[ ! -s "$T/err" ] || { echo "# run stderr:"; sed 's/^/# /' "$T/err" | head; }
