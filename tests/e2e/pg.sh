#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end, against a real PostgreSQL server this script starts (Debian's
# postgresql, installed when missing and root; initdb in a temporary folder,
# a Unix socket only, stopped at the end): two hosts' runs (real runs under
# two host names, `unshare --uts`) pushed at once into an empty database;
# report, history and the trend plot from the database equal the same from
# the folders; a push repeated stores no second copy; a URL with a password,
# a URL that is not PostgreSQL's and --db with paths are refused (exit 2);
# a database of another layout is refused and left as it was (exit 3).
# Clones: two hosts of one name and one run folder name, told apart by
# their machine ids (each run in a mount namespace with its own
# /etc/machine-id), are 2 rows, pushed again still 2; a run without a
# machine id keeps HOST/RUN-ID.  A damaged layout (two or no jobmix_meta
# rows, a column or a table missing) is one line and exit 3, never a
# recursion, and changes nothing.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
. tests/e2e/pg.inc

if [ "$(id -u)" != 0 ]; then skip "pg: not root (the server runs as the postgres user)"; exit 0; fi
if ! pg_install; then
	skip "pg: PostgreSQL cannot be installed here (apt-get install postgresql)"; exit 0
fi
B=$PG_BIN
command -v unshare >/dev/null || { skip "pg: no unshare"; exit 0; }
T=$(mktemp -d /tmp/jobmix-e2e-pg.XXXXXX)
P=$T/pg
cleanup() {
	pg_stop
	rm -rf "$T"
}
trap cleanup EXIT
[ -n "${KEEP_PG:-}" ] && trap - EXIT
trap 'exit 1' INT TERM HUP
if ! pg_start "$T"; then
	not_ok "pg: the server did not start: $PG_ERR"
	exit 0
fi
U=$PG_URL
psql() { pgsql "$@"; }
ok "pg: a PostgreSQL server on a private socket ($($B/postgres --version | awk '{print $3}'))"

# two hosts, two nights each, real runs
W=tests/data/e2e/cpu.yaml
for h in alpha beta; do
	mkdir -p "$T/$h"
	for n in 1 2; do
		unshare --uts sh -c "hostname $h && exec $JOBMIX run $W -u 1 -j 2 -d $T/w-$h -o $T/$h -q -L night=$n" \
			>/dev/null 2>>"$T/err" || not_ok "pg: a run on $h"
	done
done
[ "$(jq -r .env.hostname "$T"/beta/*/run.json | sort -u)" = beta ] &&
	ok "pg: runs recorded under two host names" || not_ok "pg: host names: $(cat "$T/err")"

$JOBMIX push "$T/alpha" --db "$U" >"$T/pa" 2>&1 & pa=$!
$JOBMIX push "$T/beta" --db "$U" >"$T/pb" 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
[ $ra = 0 ] && [ $rb = 0 ] && grep -q "2 runs stored" "$T/pa" && grep -q "2 runs stored" "$T/pb" &&
	ok "pg: two hosts push at once into an empty database" ||
	not_ok "pg: concurrent push: $ra $rb $(cat "$T/pa" "$T/pb")"
[ "$(psql -c 'select count(*) from runs')" = 4 ] &&
[ "$(psql -c "select count(*) from runs where rel like 'alpha/%'")" = 2 ] &&
[ "$(psql -c "select count(*) from labels where key = 'night'")" = 4 ] &&
[ "$(psql -c 'select count(*) from points')" -ge 4 ] &&
	ok "pg: 4 runs keyed HOST/MACHINE-ID/RUN-ID, their points and labels in SQL" ||
	not_ok "pg: tables: $(psql -c 'select rel from runs')"

same() { # same WHAT ARGS...: the command from the database and from the folders
	local what=$1; shift
	$JOBMIX "$@" --db "$U" >"$T/db.out" 2>"$T/db.err"; local a=$?
	$JOBMIX "$@" "$T/alpha" "$T/beta" >"$T/fs.out" 2>"$T/fs.err"; local b=$?
	if [ $a = $b ] && [ -s "$T/fs.out" ] && cmp -s "$T/db.out" "$T/fs.out"; then
		ok "pg: $what from the database equals the same from the folders (exit $a)"
	else
		not_ok "pg: $what differs (exit $a vs $b)"; diff "$T/db.out" "$T/fs.out" | head -5 | sed 's/^/# /'
		sed 's/^/# /' "$T/db.err" | head -3
	fi
}
same "report --by hostname" report --by hostname
same "report -f csv --by hostname,night" report -f csv --by hostname,night
same "history --order night" history --order night
same "the trend plot script" plot --trend --order night --script

# compare: with --db each side is KEY=VALUE filters
side() { for f in "$T"/alpha/*/run.json "$T"/beta/*/run.json; do
	[ "$(jq -r .labels.night "$f")" = "$1" ] && dirname "$f"; done; }
mapfile -t n1 < <(side 1); mapfile -t n2 < <(side 2)
$JOBMIX compare --db "$U" night=1 -- night=2 >"$T/cdb" 2>&1; a=$?
$JOBMIX compare "${n1[@]}" -- "${n2[@]}" >"$T/cfs" 2>&1; b=$?
[ ${#n1[@]} = 2 ] && [ $a = $b ] && grep -q "metrics compared" "$T/cfs" && cmp -s "$T/cdb" "$T/cfs" &&
	ok "pg: compare --db night=1 -- night=2 equals compare of those folders (exit $a)" ||
	{ not_ok "pg: compare --db ($a vs $b)"; diff "$T/cdb" "$T/cfs" | head -5 | sed 's/^/# /'; }
$JOBMIX compare --db "$U" night -- night=2 >/dev/null 2>&1
[ $? = 2 ] && ok "pg: compare --db with a filter that is not KEY=VALUE: exit 2" ||
	not_ok "pg: compare --db bad filter"

$JOBMIX push "$T/alpha" --db "$U" -q >"$T/again" 2>&1
[ $? = 0 ] && [ ! -s "$T/again" ] && [ "$(psql -c 'select count(*) from runs')" = 4 ] &&
	ok "pg: a push repeated replaces, no second copy (quiet with -q)" ||
	not_ok "pg: repeated push: $(cat "$T/again")"

$JOBMIX push "$T/alpha" --db "postgresql://jm:hunter2@/postgres?host=$P/sock&port=5433" >/dev/null 2>"$T/pw"
[ $? = 2 ] && grep -q "pgpass" "$T/pw" && ! grep -q hunter2 "$T/pw" &&
	ok "pg: a URL with a password is refused (exit 2), the password not echoed" ||
	not_ok "pg: password URL: $(cat "$T/pw")"
$JOBMIX report --db "mysql://x/y" >/dev/null 2>&1
[ $? = 2 ] && ok "pg: a URL that is not PostgreSQL's: exit 2" || not_ok "pg: mysql URL"
$JOBMIX report --db "$U" "$T/alpha" >/dev/null 2>&1
[ $? = 2 ] && ok "pg: --db with paths: exit 2" || not_ok "pg: --db with paths"
$JOBMIX push "$T/alpha" >/dev/null 2>&1
[ $? = 2 ] && ok "pg: push without --db: exit 2" || not_ok "pg: push without --db"

# the fleet recipe: the systemd unit's command, as the timer starts it, on a
# third host, pushing tonight to the same database
cmd=$(sed -n "s/^ExecStart=\/bin\/sh -c '\(.*\)'$/\1/p" tools/systemd/jobmix-nightly.service.in |
	sed "s|@BINDIR@/jobmix-nightly|$PWD/tools/nightly.sh|; s/\\$\\$/\\$/g")
mkdir -p "$T/state"
top=$PWD jabs=$(cd "$(dirname "$JOBMIX")" && pwd)/$(basename "$JOBMIX")
(cd "$T/state" && JOBMIX=$jabs JOBMIX_NIGHTLY_OPTS="-w \"$top/$W\" -r 2 -p '$U' -- -u 1 -j 2 --no-warmup -d $T/w-gamma" \
	NIGHTLY_DATE=2026-12-03 unshare --uts sh -c "hostname gamma && $cmd") >"$T/nightly.log" 2>&1
rc=$?
[ $rc = 0 ] && [ "$(psql -c "select count(*) from runs where rel like 'gamma/%'")" = 2 ] &&
	ls "$T"/state/results/nightly/2026-12-03/report.html >/dev/null 2>&1 &&
	ok "pg: the nightly unit's command on a third host runs, reports and pushes tonight" ||
	{ not_ok "pg: the nightly unit's command (exit $rc)"; tail -5 "$T/nightly.log" | sed 's/^/# /'; }
$JOBMIX report --db "$U" --by hostname >"$T/fleet" 2>&1
grep -q '^gamma ' "$T/fleet" && grep -q '^alpha ' "$T/fleet" &&
	ok "pg: one report over all hosts, grouped by host" || not_ok "pg: fleet report: $(head -5 "$T/fleet")"

psql -c 'update jobmix_meta set layout = 1' >/dev/null
$JOBMIX push "$T/beta" --db "$U" >/dev/null 2>"$T/lay"
rc=$?
[ $rc = 3 ] && grep -q "another version" "$T/lay" && [ "$(psql -c 'select count(*) from runs')" = 6 ] &&
	ok "pg: a database of another layout is refused (exit 3) and left as it was" ||
	not_ok "pg: layout: $rc $(cat "$T/lay")"
$JOBMIX report --db "$U" >/dev/null 2>"$T/lay2"
rc=$?
[ $rc = 3 ] && grep -q "another version" "$T/lay2" &&
	ok "pg: report from it: exit 3 (the database refused), not a partial table" ||
	not_ok "pg: report on another layout: $rc $(cat "$T/lay2")"

# clones: one host name, one run folder name, two machine ids (a database of their own)
psql -c 'create database clones' >/dev/null
U2="postgresql://jm@/clones?host=$P/sock&port=5433"
psql2() { "$B/psql" "$U2" -tAq "$@"; }
APP=$(sed -n 's/^#define SYS_ENV_APP_ID "\(.*\)"/\1/p' include/jobmix/sys.h)
want=()
for k in 1 2; do
	head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/mid$k" && echo >>"$T/mid$k"
	unshare --uts --mount --propagation private sh -c "mount --bind $T/mid$k /etc/machine-id &&
		hostname debian && exec $JOBMIX run $W -u 1 -j 2 -d $T/w-c$k -o $T/c$k.tmp -q" \
		>/dev/null 2>>"$T/err" || not_ok "pg: a run on clone $k"
	want[k]=$(unshare --mount --propagation private sh -c "mount --bind $T/mid$k /etc/machine-id &&
		systemd-id128 machine-id --app-specific=$APP" 2>/dev/null)
	mkdir -p "$T/c$k" && mv "$T"/c$k.tmp/*-cpu "$T/c$k/20261206-023000-cpu"
done
m1=$(jq -r .env.machine_id "$T/c1/20261206-023000-cpu/run.json")
m2=$(jq -r .env.machine_id "$T/c2/20261206-023000-cpu/run.json")
[[ $m1 =~ ^[0-9a-f]{32}$ ]] && [[ $m2 =~ ^[0-9a-f]{32}$ ]] && [ "$m1" != "$m2" ] &&
[ "$(jq -r .env.hostname "$T"/c[12]/*/run.json | sort -u)" = debian ] &&
	ok "pg: two clones named debian record two machine ids (env.machine_id)" ||
	not_ok "pg: clones' machine ids: '$m1' '$m2'"
if [ -n "${want[1]:-}" ]; then
	[ "$m1" = "${want[1]}" ] && [ "$m2" = "${want[2]}" ] && ! grep -q "$m1" "$T/mid1" &&
		ok "pg: env.machine_id is systemd's app-specific id of /etc/machine-id, not the id itself" ||
		not_ok "pg: machine_id '$m1' is not systemd-id128's '${want[1]}'"
else
	skip "pg: no systemd-id128 to check env.machine_id against"
fi
$JOBMIX push "$T/c1" "$T/c2" --db "$U2" >"$T/cl1" 2>&1; a=$?
$JOBMIX push "$T/c1" "$T/c2" --db "$U2" >"$T/cl2" 2>&1; b=$?
[ $a = 0 ] && [ $b = 0 ] && grep -q "2 runs stored" "$T/cl1" && grep -q "2 runs stored" "$T/cl2" &&
[ "$(psql2 -c 'select count(*) from runs')" = 2 ] &&
[ "$(psql2 -c "select count(*) from runs where rel = 'debian/$m1/20261206-023000-cpu'")" = 1 ] &&
	ok "pg: two clones' runs of one folder name: 2 runs stored, 2 rows; pushed again, still 2" ||
	not_ok "pg: clones ($a $b): $(cat "$T/cl1" "$T/cl2") rows: $(psql2 -c 'select rel from runs' | tr '\n' ' ')"
mkdir -p "$T/c0/20261206-023000-cpu"
jq 'del(.env.machine_id)' "$T/c1/20261206-023000-cpu/run.json" >"$T/c0/20261206-023000-cpu/run.json"
$JOBMIX push "$T/c0" --db "$U2" -q 2>"$T/cl0"
[ $? = 0 ] && [ "$(psql2 -c "select count(*) from runs where rel = 'debian/20261206-023000-cpu'")" = 1 ] &&
	ok "pg: a run that recorded no machine id keeps its key HOST/RUN-ID" ||
	not_ok "pg: old run's key: $(psql2 -c 'select rel from runs' | tr '\n' ' ') $(cat "$T/cl0")"

# a damaged layout: one line, exit 3, never a recursion (db_schema recursed until it segfaulted)
damaged() { # damaged WHAT WANT: push and report each exit 3 with one line naming WANT, runs kept
	local what=$1 want=$2 before a b
	before=$(psql2 -c 'select count(*) from runs' 2>/dev/null)
	timeout 60 $JOBMIX push "$T/c1" --db "$U2" >/dev/null 2>"$T/dp"; a=$?
	timeout 60 $JOBMIX report --db "$U2" >"$T/dr.out" 2>"$T/dr"; b=$?
	if [ $a = 3 ] && [ $b = 3 ] && [ "$(wc -l <"$T/dp")" = 1 ] && [ "$(wc -l <"$T/dr")" = 1 ] &&
	   grep -q "$want" "$T/dp" && grep -q "$want" "$T/dr" && [ ! -s "$T/dr.out" ] &&
	   [ "$(psql2 -c 'select count(*) from runs' 2>/dev/null)" = "$before" ]; then
		ok "pg: $what: push and report exit 3, one line: $(head -c 100 "$T/dr")"
	else
		not_ok "pg: $what: push $a, report $b: $(head -c 300 "$T/dp"; head -c 300 "$T/dr")"
	fi
}
lay=$(psql2 -c 'select layout from jobmix_meta')
psql2 -c 'insert into jobmix_meta select layout from jobmix_meta' >/dev/null
damaged "two jobmix_meta rows (one INSERT)" "jobmix_meta holds 2 rows"
psql2 -c 'delete from jobmix_meta' >/dev/null
damaged "an empty jobmix_meta" "jobmix_meta holds 0 rows"
psql2 -c "insert into jobmix_meta values ($lay); alter table points drop column jpm" >/dev/null
damaged "a column missing (points.jpm)" "tables are damaged.*jpm"
psql2 -c "alter table points add column jpm double precision; drop table curves" >/dev/null
damaged "a table missing (curves)" "tables are damaged.*curves"

# the fleet's nightly history in the database: three hosts, eight synthetic
# nights pushed night by night into a database of their own; every host falls
# 15% at kernel k2 (night 4), h2 alone 10% more from night 6 (its drift)
psql -c 'create database fleet' >/dev/null
U3="postgresql://jm@/fleet?host=$P/sock&port=5433"
. tests/e2e/nights.inc
nights_templates
codes=
for n in 1 2 3 4 5 6 7 8; do
	fleet_night "$T/fl" $n
	$JOBMIX push "$T"/fl/h?/$n --db "$U3" -q 2>>"$T/err" || not_ok "pg: fleet push of night $n"
	$JOBMIX history --wide --db "$U3" --order night --by hostname >"$T/fl.$n" 2>&1
	codes="$codes$?"
done
sed 's/^/# /' "$T/fl.8"
[ "$("$B/psql" "$U3" -tAq -c 'select count(*) from runs')" = 72 ] &&
	ok "pg: the fleet: 3 hosts x 8 nights x 3 runs, 72 runs in the database" ||
	not_ok "pg: fleet rows: $("$B/psql" "$U3" -tAq -c 'select count(*) from runs')"
check "pg: the fleet from the database: exit 1 on night 4 only, the kernel's ($codes)" [ "$codes" = 00010000 ]
check "pg: ... night 4 on every host: the kernel's (k1 -> k2)" bash -c \
	"[ \$(grep -c 'cause: kernel (kernel k1 -> k2); on every host (3)' '$T/fl.8') = 3 ]"
check "pg: ... h2's drift at night 6: the host's, this host only" bash -c \
	"grep -A1 'change at run 16 (night 6 (h2-' '$T/fl.8' | grep -q 'cause: host .*this host only'"
$JOBMIX history --wide "$T/fl" --order night --by hostname >"$T/fl.fs" 2>&1
check "pg: ... the same history as from the hosts' folders" cmp -s "$T/fl.8" "$T/fl.fs"
