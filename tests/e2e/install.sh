#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make install into a temporary DESTDIR with a PREFIX, then the installed
# jobmix run from there (so not from PREFIX: a relocated tree) on a shipped
# mix by name whose jobs exec libexec's programs; a copy moved elsewhere still
# finds its files; make uninstall leaves no file behind.  `make SANITIZE=1`
# builds build/san/jobmix and never writes ./jobmix (its recipe, make -n -B:
# the sanitizer build itself takes minutes).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
P=/opt/jobmix-e2e
D=$T/dest
I=$D$P
mkdir -p "$T/cwd" "$T/home"

# every command `make SANITIZE=1` would run (-B: as if nothing were built)
make -n -B --no-print-directory SANITIZE=1 >"$T/san" 2>&1; rc=$?
if [ $rc = 0 ] && grep -qE -- '-o build/san/jobmix ' "$T/san" &&
   ! grep -qE -- '-o (\./)?jobmix( |$)' "$T/san"; then
	ok "make SANITIZE=1 links build/san/jobmix, never ./jobmix"
else
	not_ok "make SANITIZE=1 (exit $rc): $(grep -E -- '-o [^ ]*jobmix' "$T/san" | cut -c1-120)"
fi
make -n -B --no-print-directory SANITIZE=1 jobmix >"$T/san" 2>&1
check "make SANITIZE=1 jobmix: refused, saying so, nothing linked" bash -c \
	"grep -q 'SANITIZE=1 builds build/san/jobmix' '$T/san' && ! grep -qE -- '-o (\./)?jobmix( |\$)' '$T/san'"

make -s --no-print-directory install DESTDIR="$D" PREFIX="$P" >"$T/log" 2>&1; rc=$?
check "make install DESTDIR PREFIX: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/log"
missing=
for f in bin/jobmix libexec/jobmix/exec_test.sh libexec/jobmix/shell_rtns_1.sh \
	libexec/jobmix/shell_rtns_2.sh libexec/jobmix/shell_rtns_3.sh \
	share/jobmix/workloads/quick.yaml share/jobmix/workloads/high_systime.yaml \
	share/man/man1/jobmix.1 share/bash-completion/completions/jobmix; do
	[ -f "$I/$f" ] || missing="$missing $f"
done
check "installed: bin, libexec/jobmix, share/jobmix/workloads, man page, completion${missing:+ (missing:$missing)}" [ -z "$missing" ]
# the fleet tools (docs/fleet.md): the playbook and role, lkp's program and jobs
missing=
for f in ansible/fleet.yml ansible/roles/jobmix/tasks/main.yml lkp/jobs/jobmix/jobmix.yaml \
	lkp/programs/jobmix/meta.yaml; do
	[ -f "$I/share/jobmix/$f" ] || missing="$missing $f"
done
for f in ansible/roles/jobmix/files/grub-entry.sh lkp/programs/jobmix/run lkp/programs/jobmix/parse; do
	[ -x "$I/share/jobmix/$f" ] || missing="$missing $f(executable)"
done
check "installed: share/jobmix/ansible and share/jobmix/lkp${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "installed: jobmix, exec_test.sh and the scripts executable" \
	[ -x "$I/bin/jobmix" -a -x "$I/libexec/jobmix/exec_test.sh" -a -x "$I/libexec/jobmix/shell_rtns_1.sh" ]
check "installed: the nightly's systemd service and timer, the service naming the installed jobmix-nightly" \
	grep -q "exec $P/bin/jobmix-nightly -o results/nightly" "$I/lib/systemd/system/jobmix-nightly.service"
if command -v systemd-analyze >/dev/null && systemd-analyze verify --man=no /dev/null 2>/dev/null; [ $? -le 1 ]; then
	check "installed: systemd-analyze verify passes the service and the timer" \
		systemd-analyze verify --man=no "$I/lib/systemd/system/jobmix-nightly.service" \
		"$I/lib/systemd/system/jobmix-nightly.timer"
fi
missing=
for f in README.md $(cd docs && ls *.md | sed 's|^|docs/|') bench/README.md; do
	cmp -s "$f" "$I/share/doc/jobmix/$f" || missing="$missing $f"
done
check "installed: the docs under share/doc/jobmix (README, docs/*.md, bench/README.md)${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "installed: README.md's links to docs/ hold there" [ -f "$I/share/doc/jobmix/docs/ab.md" ]
check "installed: every shipped workload" diff <(cd workloads && ls *.yaml) <(cd "$I/share/jobmix/workloads" && ls)
check "installed: the man page is docs/jobmix.1" cmp -s docs/jobmix.1 "$I/share/man/man1/jobmix.1"
check "installed: nothing outside DESTDIR/PREFIX" [ -z "$(find "$D" ! -type d | grep -v "^$I/")" ]
check "installed: nothing from the source tree's libexec/ but the programs" \
	[ -z "$(ls "$I/libexec/jobmix" | grep -v -e '^exec_test\.sh$' -e '^shell_rtns_[123]\.sh$')" ]

# the installed binary, from where it lies (not from PREFIX), in a scratch dir
jm() { (cd "$T/cwd" && env -u XDG_CONFIG_HOME HOME="$T/home" "$1" "${@:2}"); }
jm "$I/bin/jobmix" workloads >"$T/list" 2>&1
check "installed workloads: the share directory next to the binary" grep -q "^$I/share/jobmix/workloads (shipped)$" "$T/list"
check "installed workloads: lists high_systime with its description" grep -qE '^  high_systime +AIM7 high_systime mix' "$T/list"
check "installed: jobmix-nightly, its --help" bash -c "[ -x '$I/bin/jobmix-nightly' ] && '$I/bin/jobmix-nightly' --help | grep -q '^usage: jobmix-nightly'"
(cd "$T/cwd" && env -u JOBMIX -u XDG_CONFIG_HOME HOME="$T/home" NIGHTLY_DATE=2026-12-02 "$I/bin/jobmix-nightly" -w high_systime -r 1 -o "$T/nights" -- -m linear -u 1 -j 5 --no-warmup -d "$T/nw" >"$T/nightly.log" 2>&1)
check "installed jobmix-nightly: runs the installed jobmix on a shipped workload by name (exit 0)" [ $? = 0 ]
check "... and writes its history" grep -q 'Peak Load JPM, 1 run in order of night' "$T/nights/2026-12-02/history.txt"
jm "$I/bin/jobmix" run high_systime -m linear -u 1 -j 20 --no-warmup -d "$T/work" -o "$T/res" \
	>"$T/out" 2>&1; rc=$?
check "installed: jobmix run high_systime (by name) exits 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/out"
check "installed: the banner names the shipped file" grep -q "^jobmix .*: high_systime ($I/share/jobmix/workloads/high_systime.yaml)" "$T/out"
j=$(ls "$T"/res/*/run.json 2>/dev/null | head -1)
check "installed: run.json records the shipped path, found: shipped" \
	[ "$(jq -r '.workload.found + " " + .workload.path' "$j" 2>/dev/null)" = "shipped $I/share/jobmix/workloads/high_systime.yaml" ]
check "installed: exec_test ran libexec/jobmix/exec_test.sh" \
	jq -e '.points[0].failed == false and .points[0].jobs_by_kind.exec_test.runs >= 1' "$j"
check "installed: shell_rtns_1..3 ran libexec/jobmix's scripts" \
	jq -e '[.points[0].jobs_by_kind | .shell_rtns_1.runs, .shell_rtns_2.runs, .shell_rtns_3.runs] | all(. >= 1)' "$j"
check "installed: the work area is gone (jobmix made it)" [ ! -e "$T/work" ]
check "installed: help --man is the installed page" cmp -s <("$I/bin/jobmix" help --man) "$I/share/man/man1/jobmix.1"

# the tree moved elsewhere still finds its libexec and workloads
cp -a "$I" "$T/moved"
jm "$T/moved/bin/jobmix" run quick -u 1 -j 5 --no-warmup -d "$T/work" -o "$T/res2" >"$T/out" 2>&1; rc=$?
j=$(ls "$T"/res2/*/run.json 2>/dev/null | head -1)
check "relocated: run quick exits 0, the moved tree's quick.yaml" \
	[ $rc = 0 -a "$(jq -r .workload.path "$j" 2>/dev/null)" = "$T/moved/share/jobmix/workloads/quick.yaml" ]
rm -rf "$T/moved/libexec"
cat >"$T/cwd/exec.yaml" <<'EOF'
name: exec
mix:
  - {job: exec_test, weight: 1}
EOF
jm "$T/moved/bin/jobmix" run exec -u 1 -j 1 --no-warmup -d "$T/work" -o "$T/res3" >"$T/out" 2>&1; rc=$?
check "relocated without libexec: exec_test fails the run (exit 3) naming libexec/jobmix/exec_test.sh" \
	[ $rc = 3 -a -n "$(grep -F "$T/moved/libexec/jobmix/exec_test.sh" "$T/out")" ]

make -s --no-print-directory uninstall DESTDIR="$D" PREFIX="$P" >"$T/log" 2>&1; rc=$?
check "make uninstall: exit 0" [ $rc = 0 ]
left=$(find "$D" ! -type d)
check "make uninstall: no file left under DESTDIR${left:+ ($left)}" [ -z "$left" ]
check "make uninstall: jobmix's own directories removed" \
	[ ! -e "$I/libexec/jobmix" -a ! -e "$I/share/jobmix" -a ! -e "$I/share/doc/jobmix" ]
