#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: `make deb` builds it (in build/deb, from a copy of the
# tree) and lintian finds no error; installed with `dpkg --root` into a
# throwaway root (its own dpkg database, never the machine's), the packaged
# jobmix runs `jobmix run quick` from ROOT/usr/bin, finding its shipped mix
# and programs beside it; purging it leaves none of its files.  The
# machine's dpkg database and /usr are not touched (checked).  Needs root
# and the packaging tools (`make deps-tools`): a SKIP line otherwise.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
tools="dpkg-buildpackage dh fakeroot lintian dpkg"
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
trap 'rm -rf "$T"' EXIT
# the machine's package state, to show the test left it alone
host_state() {
	dpkg-query -W -f='${Status}' jobmix 2>/dev/null
	ls -d /usr/bin/jobmix /usr/libexec/jobmix /usr/share/jobmix 2>/dev/null
}
host_before=$(host_state)

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
	./usr/share/bash-completion/completions/jobmix ./usr/share/doc/jobmix/copyright \
	./usr/share/jobmix/ansible/fleet.yml ./usr/share/jobmix/lkp/programs/jobmix/parse; do
	grep -q " $f$" "$T/contents" || missing="$missing $f"
done
check "dpkg -c: binary, libexec, workloads, man page, completion, copyright, fleet tools${missing:+ (missing:$missing)}" [ -z "$missing" ]
missing=
for f in README.md docs/ab.md docs/reports.md bench/README.md; do   # dh_compress gzips the larger
	grep -qE " \./usr/share/doc/jobmix/$f(\.gz)?$" "$T/contents" || missing="$missing $f"
done
check "dpkg -c: the docs under /usr/share/doc/jobmix${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "the package depends on the libraries it links (shlibs)" \
	[ "$(dpkg-deb -f "$deb" Depends | grep -oE 'libyaml-0-2|libjansson4|libssl3' | sort -u | wc -l)" = 3 ]

# A throwaway root with an empty dpkg database: the package's files go
# there, its record into ROOT/var/lib/dpkg, dpkg's log beside them.  The
# libraries it depends on are the machine's (--force-depends): the root is
# not a system, the binary runs with the host's loader.
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/log"
: >"$R/var/lib/dpkg/status"
: >"$R/var/lib/dpkg/available"
rdpkg() { dpkg --root="$R" --log="$R/var/log/dpkg.log" --force-depends --force-not-root "$@"; }
rdpkg -i "$deb" >"$T/install.log" 2>&1; rc=$?
check "dpkg --root ROOT -i $deb: exit 0" [ $rc = 0 ]
[ $rc = 0 ] || tail -10 "$T/install.log" | sed 's/^/# /'
check "ROOT's own database lists jobmix installed" \
	[ "$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f='${Status}' jobmix 2>/dev/null)" = "install ok installed" ]
mkdir -p "$T/cwd" "$T/home"
(cd "$T/cwd" && env -u XDG_CONFIG_HOME HOME="$T/home" "$R/usr/bin/jobmix" run quick -u 1-2 -j 10 \
	-o "$T/res") >"$T/out" 2>&1; rc=$?
check "installed package: jobmix run quick exits 0" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/out"
check "installed package: the banner names ROOT/usr/share/jobmix/workloads/quick.yaml" \
	grep -q "^jobmix .*: quick ($R/usr/share/jobmix/workloads/quick.yaml)" "$T/out"
j=$(ls "$T"/res/*/run.json 2>/dev/null | head -1)
check "installed package: run.json complete, two points" \
	jq -e '.status == "complete" and (.points | length) == 2 and .workload.found == "shipped"' "$j"
cat >"$T/cwd/exec.yaml" <<'EOF2'
name: exec
mix:
  - {job: exec_test, weight: 1}
  - {job: shell_rtns_1, weight: 1}
EOF2
(cd "$T/cwd" && HOME="$T/home" "$R/usr/bin/jobmix" run exec -u 1 -j 4 --no-warmup -o "$T/res2") \
	>"$T/out" 2>&1; rc=$?
check "installed package: exec_test and shell_rtns_1 find ROOT/usr/libexec/jobmix" [ $rc = 0 ]
[ $rc = 0 ] || sed 's/^/# /' "$T/out"
check "installed package: man -w finds its page under ROOT" \
	[ "$(MANPATH="$R/usr/share/man" man -w jobmix 2>/dev/null)" = "$R/usr/share/man/man1/jobmix.1.gz" ]
rdpkg --purge jobmix >"$T/purge.log" 2>&1; rc=$?
check "dpkg --root ROOT --purge jobmix: exit 0" [ $rc = 0 ]
check "purged: no ROOT/usr/bin/jobmix, ROOT/usr/libexec/jobmix, ROOT/usr/share/jobmix" \
	[ ! -e "$R/usr/bin/jobmix" -a ! -e "$R/usr/libexec/jobmix" -a ! -e "$R/usr/share/jobmix" ]
check "the machine's dpkg database and /usr as they were" [ "$(host_state)" = "$host_before" ]
