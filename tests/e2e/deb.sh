#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: `make deb` builds it (in build/deb, from a copy of the
# tree) and lintian finds no error; installed with apt-get, the packaged
# jobmix runs `jobmix run quick` from /usr/bin, finding its shipped mix and
# programs; purging it leaves none of its files.  Needs root and the
# packaging tools (`make deps-tools`): a SKIP line otherwise.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
tools="dpkg-buildpackage dh fakeroot lintian apt-get"
absent=
for t in $tools; do command -v "$t" >/dev/null || absent="$absent $t"; done
if [ "$(id -u)" != 0 ] || [ -n "$absent" ]; then
	skip "the .deb is not built: needs root and${absent:- the packaging tools} (make deps-tools)"
	exit 0
fi
version=$(sed -n 's/^#define JOBMIX_VERSION "\(.*\)"/\1/p' include/jobmix/version.h)
check "debian/changelog's version is jobmix's ($version)" \
	[ "$(dpkg-parsechangelog -l debian/changelog -S Version)" = "$version" ]

T=$(mktemp -d /tmp/jobmix-deb.XXXXXX)
preinstalled=1   # until the lock is held: nothing of ours to purge
cleanup() {
	if [ "$preinstalled" = 0 ] && dpkg-query -W -f='${Status}' jobmix 2>/dev/null | grep -q 'ok installed'; then
		apt-get purge -y -qq -o DPkg::Lock::Timeout=300 jobmix >/dev/null 2>&1
	fi
	rm -rf "$T"
}
trap cleanup EXIT

make -s --no-print-directory deb >"$T/build.log" 2>&1; rc=$?
check "make deb: exit 0 (dpkg-buildpackage, then lintian without errors)" [ $rc = 0 ]
[ $rc = 0 ] || tail -30 "$T/build.log" | sed 's/^/# /'
deb=build/deb/jobmix_${version}_$(dpkg --print-architecture).deb
check "make deb: $deb" [ -f "$deb" ]
check "nothing written beside the tree (dpkg-buildpackage's parent is build/deb)" \
	[ -z "$(ls ../jobmix_* 2>/dev/null)" ]
check "lintian: no errors" [ -f build/deb/lintian.txt -a -z "$(grep '^E:' build/deb/lintian.txt 2>/dev/null)" ]
grep -E '^[EWI]:' build/deb/lintian.txt 2>/dev/null | sed 's/^/# lintian: /'
dpkg -c "$deb" >"$T/contents" 2>&1
missing=
for f in ./usr/bin/jobmix ./usr/libexec/jobmix/exec_test.sh ./usr/libexec/jobmix/shell_rtns_1.sh \
	./usr/share/jobmix/workloads/quick.yaml ./usr/share/man/man1/jobmix.1.gz \
	./usr/share/bash-completion/completions/jobmix ./usr/share/doc/jobmix/copyright; do
	grep -q " $f$" "$T/contents" || missing="$missing $f"
done
check "dpkg -c: binary, libexec, workloads, man page, completion, copyright${missing:+ (missing:$missing)}" [ -z "$missing" ]
missing=
for f in README.md docs/ab.md docs/reports.md bench/README.md; do   # dh_compress gzips the larger
	grep -qE " \./usr/share/doc/jobmix/$f(\.gz)?$" "$T/contents" || missing="$missing $f"
done
check "dpkg -c: the docs under /usr/share/doc/jobmix${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "the package depends on the libraries it links (shlibs)" \
	[ "$(dpkg-deb -f "$deb" Depends | grep -oE 'libyaml-0-2|libjansson4|libssl3' | sort -u | wc -l)" = 3 ]

# The package is machine-wide: one test (of any checkout) installs it at a time.
exec 9>/run/lock/jobmix-deb-test.lock
if ! flock -w 600 9; then
	skip "another checkout's package test held the lock for 10 minutes: not installed"
	exit 0
fi
preinstalled=$(dpkg-query -W -f='${Status}' jobmix 2>/dev/null | grep -c 'ok installed')
if [ "$preinstalled" != 0 ]; then
	skip "a jobmix package is already installed here: not replaced by the test's"
	exit 0
fi
apt-get install -y -qq -o DPkg::Lock::Timeout=300 "./$deb" >"$T/install.log" 2>&1; rc=$?
check "apt-get install ./$deb: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || tail -10 "$T/install.log" | sed 's/^/# /'
mkdir -p "$T/cwd" "$T/home"
(cd "$T/cwd" && env -u XDG_CONFIG_HOME HOME="$T/home" /usr/bin/jobmix run quick -u 1-2 -j 10 \
	-o "$T/res") >"$T/out" 2>&1; rc=$?
check "installed package: jobmix run quick exits 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/out"
check "installed package: the banner names /usr/share/jobmix/workloads/quick.yaml" \
	grep -q '^jobmix .*: quick (/usr/share/jobmix/workloads/quick.yaml)' "$T/out"
j=$(ls "$T"/res/*/run.json 2>/dev/null | head -1)
check "installed package: run.json complete, two points" \
	jq -e '.status == "complete" and (.points | length) == 2 and .workload.found == "shipped"' "$j"
cat >"$T/cwd/exec.yaml" <<'EOF2'
name: exec
mix:
  - {job: exec_test, weight: 1}
  - {job: shell_rtns_1, weight: 1}
EOF2
(cd "$T/cwd" && HOME="$T/home" /usr/bin/jobmix run exec -u 1 -j 4 --no-warmup -o "$T/res2") \
	>"$T/out" 2>&1; rc=$?
check "installed package: exec_test and shell_rtns_1 find /usr/libexec/jobmix" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/out"
check "installed package: man -w jobmix" [ "$(man -w jobmix 2>/dev/null)" = /usr/share/man/man1/jobmix.1.gz ]
apt-get purge -y -qq -o DPkg::Lock::Timeout=300 jobmix >"$T/purge.log" 2>&1; rc=$?
check "apt-get purge jobmix: exit 0" [ $rc = 0 ]
check "purged: no /usr/bin/jobmix, /usr/libexec/jobmix, /usr/share/jobmix" \
	[ ! -e /usr/bin/jobmix -a ! -e /usr/libexec/jobmix -a ! -e /usr/share/jobmix ]
