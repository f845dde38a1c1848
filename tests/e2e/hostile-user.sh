#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A hostile local user against jobmix run as root ([secure]): an unprivileged
# user (nobody, through setpriv) races the work directory with
# renameat2(RENAME_EXCHANGE) and a tree of symlinks, offers a work directory
# of its own, pre-creates and holds the lock files, and points -o at a FIFO and
# a symlink it made (and at a device node made for the test).  Nothing outside
# the test's own files changes: a root-owned 0600 victim keeps its bytes and
# mtime, $JM_STATE stays root's.  Root only (SKIP otherwise).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
if [ "$(id -u)" != 0 ]; then skip "hostile user: needs root (to be attacked as root)"; exit 0; fi
for t in setpriv cc timeout md5sum; do
	command -v $t >/dev/null || { skip "hostile user: no $t"; exit 0; }
done
id nobody >/dev/null 2>&1 || { skip "hostile user: no user nobody"; exit 0; }
NB=$(id -u nobody) NG=$(id -g nobody)
as_nobody() { setpriv --reuid="$NB" --regid="$NG" --clear-groups "$@"; }
T=$(mktemp -d /tmp/jobmix-e2e-hostile.XXXXXX)
H=$(as_nobody mktemp -d /tmp/jobmix-e2e-theirs.XXXXXX)   # the attacker's own folder
W=/tmp/jobmix-e2e-ours.$$                                 # root's work directory in sticky /tmp
RACER= RACER2= BG=
cleanup() {
	[ -n "$RACER" ] && kill -KILL "$RACER" 2>/dev/null
	[ -n "$RACER2" ] && kill -KILL "$RACER2" 2>/dev/null
	pkill -KILL -u nobody -f "$T/racer" 2>/dev/null
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T" "$H" "$W"
}
trap cleanup EXIT
chmod 0755 "$T"
V=$T/victim
printf 'root only: never to change\n' >"$V"
chmod 0600 "$V"
touch -d '2001-01-01' "$V"
vsum=$(md5sum <"$V") vtime=$(stat -c %Y "$V")
victim_intact() { [ "$(md5sum <"$V")" = "$vsum" ] && [ "$(stat -c %Y "$V")" = "$vtime" ]; }
cat >"$T/wrt.yaml" <<'EOF'
name: wrt
files: {filesize: 4k, poolsize: 0}
sync: none
mix:
  - {job: disk_wrt}
  - {job: creat_clo}
EOF
chmod 0644 "$T/wrt.yaml"

# 1. a work directory the attacker owns (or could change) is refused before anything
as_nobody mkdir "$H/w"
before=$(ls -A "$H/w")
$JOBMIX run "$T/wrt.yaml" -u 1 -j 2 -d "$H/w" -o "$T/r1" -q >/dev/null 2>"$T/err"
check "a work directory below nobody's folder: exit 2" [ $? = 2 ]
check "... naming the folder and its owner" grep -q "owner nobody" "$T/err"
check "... nothing made there, no results" bash -c "[ '$(ls -A "$H/w")' = '$before' ] && [ ! -e '$T/r1' ]"

# 2. the race: nobody exchanges root's work directory in /tmp for a tree of symlinks to
# the victim, as fast as it can, while root's run writes
cat >"$T/racer.c" <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
/* racer A B: exchange A and B until killed; prints how many exchanges worked */
int main(int argc, char **argv)
{
	unsigned long ok = 0, tries = 0;
	(void)argc;
	for (;;) {
		if (!renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE))
			ok++;
		if (++tries % 100000 == 0) {
			printf("%lu %lu\n", ok, tries);
			fflush(stdout);
		}
	}
}
EOF
if cc -O2 -o "$T/racer" "$T/racer.c" 2>"$T/err"; then
	chmod 0755 "$T/racer"
	mkdir -m 0755 "$W"
	as_nobody mkdir -p "$H/fake"
	$JOBMIX run "$T/wrt.yaml" -m linear -u 2 --measure time --duration 2s --no-warmup \
		--no-settle -d "$W" -o "$T/r2" -q >/dev/null 2>"$T/err2" &
	BG=$!
	for _ in $(seq 1 100); do area=$(ls -d "$W"/jobmix.* 2>/dev/null | head -1); [ -n "$area" ] && break; sleep 0.05; done
	leaf=${area##*/}
	as_nobody mkdir -p "$H/fake/$leaf/work"
	for u in 0 1; do
		for k in disk_wrt creat_clo; do as_nobody ln -s "$V" "$H/fake/$leaf/work/$k.u$u"; done
	done
	# (setpriv directly, not the function: $! must be the racer itself)
	setpriv --reuid="$NB" --regid="$NG" --clear-groups "$T/racer" "$W" "$H/fake" >"$T/racer.out" &
	RACER=$!
	setpriv --reuid="$NB" --regid="$NG" --clear-groups "$T/racer" "$W/$leaf" "$H/fake/$leaf" \
		>"$T/racer2.out" 2>/dev/null &
	RACER2=$!
	wait $BG; rc=$?; BG=
	kill -KILL $RACER $RACER2 2>/dev/null; wait $RACER $RACER2 2>/dev/null; RACER= RACER2=
	check "race: root's run completes (rc $rc)" [ $rc = 0 ]
	check "race: the victim keeps its bytes and mtime" victim_intact
	check "race: not one exchange of root's directories succeeded" bash -c "! grep -qv '^0 ' '$T/racer.out' '$T/racer2.out'"
	check "race: the symlinks were neither followed nor removed" [ -L "$H/fake/$leaf/work/disk_wrt.u0" ]
	check "race: the work area is gone" bash -c "[ -z \"\$(ls -A '$W' 2>/dev/null)\" ] || [ ! -e '$W' ]"
else
	not_ok "race: cannot build the racer: $(head -3 "$T/err")"
fi

# 3. lock files: the old location pre-created and held by nobody; the new one is root's
OLD=/run/lock/jobmix-sched-hostile$$.lock
if [ -d /run/lock ] && [ -w /run/lock ]; then
	as_nobody sh -c "touch '$OLD' 2>/dev/null" || true
fi
$JOBMIX sched --restore >"$T/restore" 2>&1
check "sched --restore with nobody's lock file about: exit 0" [ $? = 0 ]
if [ -e $JM_STATE ]; then
	check "... $JM_STATE is root's, 0700" bash -c "[ \"\$(stat -c '%u %a' $JM_STATE)\" = '0 700' ]"
else   # a fresh machine: no A/B has made it, and --restore does not
	check "... no $JM_STATE made by --restore, and nobody cannot make one" bash -c "[ ! -e $JM_STATE ] && ! setpriv --reuid=$NB --regid=$NG --clear-groups mkdir $JM_STATE 2>/dev/null"
fi
check "... nobody cannot make a record or a lock there" bash -c "! setpriv --reuid=$NB --regid=$NG --clear-groups touch $JM_STATE/lock/x $JM_STATE/sched/x 2>/dev/null"
rm -f "$OLD"

# 4. -o at what the attacker made: a FIFO with no reader, a symlink to the victim, and a
# device node made for the test; report must neither hang nor write through the link
mkdir -p "$T/res"
$JOBMIX run "$T/wrt.yaml" -u 1 -j 2 -d "$T/w4" -o "$T/res" -q >/dev/null 2>&1
as_nobody mkfifo "$H/fifo"
as_nobody ln -s "$V" "$H/link"
mknod "$T/null" c 1 3
timeout 20 $JOBMIX report "$T/res" -o "$H/fifo" >/dev/null 2>"$T/err"
rc=$?
check "-o a FIFO with no reader: an error, not a hang (rc $rc)" [ $rc = 2 ]
check "... the FIFO is still a FIFO" [ -p "$H/fifo" ]
timeout 20 $JOBMIX report "$T/res" -o "$H/link" >/dev/null 2>"$T/err"
check "-o a symlink to root's file: refused, exit 2" [ $? = 2 ]
check "... the link is still a link, the victim intact" bash -c "[ -L '$H/link' ]" && victim_intact
timeout 20 $JOBMIX report "$T/res" -o "$T/null" >/dev/null 2>"$T/err"
check "-o a character device: written in place (exit 0)" [ $? = 0 ]
check "... still a device" [ -c "$T/null" ]
check "the victim, at the end, is what it was" victim_intact
