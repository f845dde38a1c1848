#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Safe as root (issue [secure]), end to end:
# 1. work directories another user could change (an ancestor or the work
#    directory itself owned by someone else, or group/other-writable and not
#    a sticky root directory) are refused, exit 2, nothing created;
# 2. the work-directory race: while a run's users write their disk_wrt.u*
#    files, a racer keeps exchanging the work directory (renameat2
#    RENAME_EXCHANGE) with a tree of symlinks to a root-owned file under the
#    names the jobs use; the file keeps its bytes and mtime;
# 3. two runs on one work directory: each warns, naming the other's pid;
# 4. a work directory jobmix made and could not remove is taken over and
#    removed by the next run that finds it empty of live areas;
# 5. a frozen filesystem (fsfreeze on a loop device, as root): the run ends
#    within a bound, its run.json final, the IO scheduler restored.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc

if [ "$(id -u)" != 0 ]; then skip "secure-race: not root (ownership and fsfreeze cases)"; exit 0; fi
command -v cc >/dev/null || { skip "secure-race: no cc for the racer"; exit 0; }

T=$(mktemp -d /tmp/jobmix-secrace.XXXXXX)
BG= BG2= RACER= DEV= M=$T/mnt SCHED= ORIG= FROZEN=
cleanup() {
	[ -n "$RACER" ] && kill -KILL $RACER 2>/dev/null && wait $RACER 2>/dev/null
	[ -n "$FROZEN" ] && fsfreeze -u "$M" 2>/dev/null
	for p in $BG $BG2; do kill -KILL $p 2>/dev/null && wait $p 2>/dev/null; done
	[ -n "$ORIG" ] && [ -n "$SCHED" ] && echo "$ORIG" >"$SCHED" 2>/dev/null
	if mountpoint -q "$M"; then
		# processes left in D state while frozen finish once thawed
		for _ in $(seq 1 50); do umount "$M" 2>/dev/null && break; sleep 0.2; done
		mountpoint -q "$M" && umount -l "$M"
	fi
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ---- 1. untrusted work directories ----------------------------------------
if id nobody >/dev/null 2>&1; then
	mkdir -p "$T/theirs" && chown nobody "$T/theirs" && chmod 0755 "$T/theirs"
	mkdir -m 0777 "$T/open"; chmod 0777 "$T/open"
	mkdir -m 0775 "$T/group"; chmod 0775 "$T/group"
	mkdir -m 0777 "$T/open-wd"; chmod 0777 "$T/open-wd"
	mkdir "$T/sticky"; chmod 1777 "$T/sticky"
	: >"$T/err"
	before=$(find "$T" | sort | md5sum)
	for c in "theirs/w:'$T/theirs' (owner nobody" "open/w:'$T/open' (owner root (uid 0), mode 0777)" \
		 "group/w:mode 0775) is writable by its group" "open-wd:'$T/open-wd' (owner root (uid 0), mode 0777)"; do
		d=${c%%:*} want=${c#*:}
		$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -d "$T/$d" -o "$T/r1" >/dev/null 2>"$T/err"; rc=$?
		check "work directory $d another user can change: refused, exit 2 (rc $rc)" [ $rc = 2 ]
		check "work directory $d: the message names the component, owner and mode" grep -qF "$want" "$T/err"
	done
	check "refused work directories: nothing created" [ "$(find "$T" | sort | md5sum)" = "$before" ]
	$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -d "$T/sticky/w" -o "$T/r1" -q >/dev/null 2>"$T/err"; rc=$?
	check "a sticky root-owned parent (as /tmp) is fine (rc $rc)" [ $rc = 0 ]
	check "... and the work directory jobmix made there is gone" [ ! -e "$T/sticky/w" ]
else
	skip "untrusted work directories: no user nobody"
fi

# ---- 2. the race ---------------------------------------------------------
# The racer: exchange A and B as fast as it can; after each exchange plant
# the links again in the tree now at B's name (the jobs' unlinks take them).
cat >"$T/racer.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	/* racer A B TARGET LEAF...: LEAFs are paths below the tree's top; racer A B: one exchange */
	char p[4096];
	if (argc < 4)
		return renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) ? 1 : 0;
	for (int fake_at_a = 0;; fake_at_a = !fake_at_a) {
		if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE))
			return 2;
		for (int i = 4; i < argc; i++) {
			struct stat st;
			snprintf(p, sizeof(p), "%s/%s", fake_at_a ? argv[2] : argv[1], argv[i]);
			if (!lstat(p, &st) && !S_ISLNK(st.st_mode))
				unlink(p);
			symlink(argv[3], p);
		}
	}
}
EOF
if cc -O2 -o "$T/racer" "$T/racer.c" 2>"$T/err"; then
	W=$T/top/w F=$T/top/fake V=$T/victim
	mkdir -p "$W" "$F"
	printf 'root only: never to change\n' >"$V"; chmod 0600 "$V"; touch -d '2001-01-01' "$V"
	vsum=$(md5sum <"$V") vtime=$(stat -c %Y "$V")
	cat >"$T/wrt.yaml" <<'EOF'
name: wrt
files: {filesize: 4k, poolsize: 0}
sync: none
mix:
  - {job: disk_wrt}
  - {job: creat_clo}
EOF
	$JOBMIX run "$T/wrt.yaml" -m linear -u 2 --measure time --duration 2s --no-warmup --no-settle \
		-d "$W" -o "$T/r2" -q >/dev/null 2>"$T/err" &
	BG=$!
	for _ in $(seq 1 100); do root=$(ls -d "$W"/jobmix.* 2>/dev/null | head -1); [ -n "$root" ] && [ -d "$root/work" ] && break; sleep 0.05; done
	leaf=${root##*/}
	mkdir -p "$F/$leaf/work" "$F/$leaf/shared"
	"$T/racer" "$W" "$F" "$V" "$leaf/work/disk_wrt.u0" "$leaf/work/disk_wrt.u1" \
		"$leaf/work/creat_clo.u0" "$leaf/work/creat_clo.u1" &
	RACER=$!
	sleep 1.5
	kill -KILL $RACER; wait $RACER 2>/dev/null; RACER=
	# the real tree back at its name (the run needs it not: it holds its directories)
	[ -e "$W/$leaf/.jobmix-area" ] || "$T/racer" "$W" "$F"
	wait $BG; rc=$?; BG=
	check "race: the victim keeps its bytes" [ "$(md5sum <"$V")" = "$vsum" ]
	check "race: the victim keeps its mtime" [ "$(stat -c %Y "$V")" = "$vtime" ]
	check "race: the run completed in its real area (rc $rc)" [ $rc = 0 ]
	check "race: the symlink tree was neither followed nor removed" [ -L "$F/$leaf/work/disk_wrt.u0" ]
else
	not_ok "race: cannot build the racer: $(head -3 "$T/err")"
fi

# ---- 3. two runs on one work directory -------------------------------------
W3=$T/two
mkdir -p "$W3"
$JOBMIX run tests/data/good/slow.yaml -u 1 -j 4000 --no-warmup -d "$W3" -o "$T/r3" -q >/dev/null 2>"$T/err3a" &
BG=$!
for _ in $(seq 1 100); do [ -n "$(ls -d "$W3"/jobmix.* 2>/dev/null)" ] && break; sleep 0.05; done
$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -d "$W3" -o "$T/r3" -q >/dev/null 2>"$T/err3b"; rc=$?
kill -INT $BG; wait $BG 2>/dev/null; BG=
check "two runs on one work directory: the second still runs (rc $rc)" [ $rc = 0 ]
check "two runs on one work directory: it warns, naming the other's pid" grep -q "warning: another jobmix run (pid [0-9]*) is working in '$W3'" "$T/err3b"

# ---- 4. a work directory jobmix made and left ------------------------------
W4=$T/made/w
mkdir -p "$T/made"
$JOBMIX run tests/data/good/slow.yaml -u 1 -j 4000 --no-warmup -d "$W4" -o "$T/r4" -q >/dev/null 2>&1 &
BG=$!
for _ in $(seq 1 100); do [ -n "$(ls -d "$W4"/jobmix.* 2>/dev/null)" ] && break; sleep 0.05; done
kill -KILL $BG; wait $BG 2>/dev/null; BG=
sleep 0.2
check "a SIGKILLed run leaves the work directory it made" [ -d "$W4" ]
$JOBMIX run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -d "$W4" -o "$T/r4" -q >/dev/null 2>"$T/err"; rc=$?
check "the next run there completes (rc $rc)" [ $rc = 0 ]
check "... says it takes the work directory over" grep -q "the work directory '$W4' was made by jobmix pid" "$T/err"
check "... and removes it, empty, at its end" [ ! -e "$W4" ]

# ---- 5. a frozen filesystem -------------------------------------------------
freeze_case() {
	for t in losetup mkfs.ext4 fsfreeze truncate jq mountpoint; do
		command -v $t >/dev/null || { skip "frozen filesystem: no $t"; return; }
	done
	[ -e /dev/loop-control ] || { skip "frozen filesystem: no loop device support"; return; }
	mkdir -p "$M"
	truncate -s 64M "$T/img"
	DEV=$(losetup -f --show "$T/img" 2>/dev/null) || { DEV=; skip "frozen filesystem: losetup failed"; return; }
	if ! mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 || ! mount "$DEV" "$M"; then
		skip "frozen filesystem: cannot make or mount ext4 on $DEV"; return
	fi
	local name=${DEV#/dev/} s=
	SCHED=/sys/block/$name/queue/scheduler
	ORIG=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED")
	s=$(tr -d '[]' <"$SCHED" | tr ' ' '\n' | grep -v -x -e "$ORIG" -e '' | head -1)
	local sopt=()
	[ -n "$s" ] && sopt=(-s "$s")
	local start=$SECONDS
	$JOBMIX run tests/data/good/slow.yaml -m linear -u 2 -j 100000 --no-warmup --no-settle \
		--timeout 3s --reap-timeout 2s "${sopt[@]}" -d "$M/w" -o "$T/r5" >/dev/null 2>"$T/err5" &
	BG=$!
	# in its points: a user's file in the work directory
	for _ in $(seq 1 1000); do
		[ -n "$(find "$M/w" -path '*/work/*' -type f 2>/dev/null | head -1)" ] && break
		sleep 0.02
	done
	[ -n "$s" ] && check "frozen filesystem: the run switched $name to $s" grep -q "\[$s\]" "$SCHED"
	fsfreeze -f "$M" && FROZEN=1
	local waited=0 rc=
	while kill -0 $BG 2>/dev/null && [ $waited -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
	if kill -0 $BG 2>/dev/null; then
		not_ok "frozen filesystem: jobmix still running 30 s after the freeze (state $(cut -d' ' -f3 /proc/$BG/stat))"
	else
		wait $BG; rc=$?; BG=
		ok "frozen filesystem: jobmix ended within 30 s of the freeze ($((SECONDS - start)) s in all)"
		check "frozen filesystem: exit 3, the point failed (rc $rc)" [ "$rc" = 3 ]
	fi
	# still frozen: what the run left must already be final
	local f; f=$(ls -d "$T"/r5/*/run.json 2>/dev/null | head -1)
	check "frozen filesystem: run.json is final (status failed, not running)" \
		[ "$(jq -r .status "$f" 2>/dev/null)" = failed ]
	check "frozen filesystem: it names the users left behind" grep -q "left behind" "$T/err5"
	check "frozen filesystem: it says the work area was left, and where" grep -q "work area '$M/w/jobmix\.[0-9.]*' left in place" "$T/err5"
	if [ -n "$s" ]; then
		check "frozen filesystem: the scheduler is back to $ORIG" grep -q "\[$ORIG\]" "$SCHED"
		check "frozen filesystem: run.json says it was restored" \
			[ "$(jq -r '[.. | objects | select(has("restored")) | .restored] | first' "$f" 2>/dev/null)" = true ]
	else
		skip "frozen filesystem: $name offers no second scheduler"
	fi
	fsfreeze -u "$M"; FROZEN=
	if [ -n "$BG" ]; then wait $BG; BG=; fi
	sed 's/^/# jobmix: /' "$T/err5"   # what the run said, for a failure's reader
	# thawed, the removal left to its child finishes: a user left in D state
	# may finish creating a file after the child's first pass, which passes
	# again (on a loaded machine all this has taken over 5 s)
	for _ in $(seq 1 300); do [ ! -e "$M/w" ] && break; sleep 0.1; done
	check "frozen filesystem: once thawed, the work area is removed" [ ! -e "$M/w" ]
	if [ -e "$M/w" ]; then find "$M/w" -maxdepth 3 | head -5 | sed 's/^/# left: /'; fi
}
freeze_case
true
