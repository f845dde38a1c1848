#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A quiet build: `make` prints "  CC      src/x.c" a file, V=1 the full
# command lines, and the compiler's warnings show either way.  Built into a
# private BUILD directory, one file at a time (never the tree's build/).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-build.XXXXXX)
trap 'rm -rf "$T"' EXIT
src=src/util/escape.c
[ -f "$src" ] || src=$(ls src/util/*.c | head -1)
obj=$T/b/${src%.c}.o
mk() { make --no-print-directory NODEPS=1 BUILD="$T/b" "$@" "$obj" 2>&1; }

out=$(mk); rc=$?
check "make: exit 0 ($rc)" [ "$rc" = 0 ]
check "make: one short line, '  CC      $src'" [ "$out" = "  CC      $src" ]
check "make: the object built" [ -s "$obj" ]
out=$(mk -B V=1); rc=$?
check "make V=1: exit 0 ($rc)" [ "$rc" = 0 ]
check "make V=1: the full compiler line" grep -qE -- " -Werror .* -c -o $obj $src\$" <<<"$out"
check "make V=1: no short line" bash -c '! grep -q "^  CC  " <<<"$1"' _ "$out"
# a warning (a macro redefined on the command line) is shown, and -Werror fails the file
out=$(mk -B OPT="-O2 -DJM_BUILD_T=1 -DJM_BUILD_T=2"); rc=$?
check "make with a warning: exit not 0 (-Werror)" [ "$rc" != 0 ]
check "make with a warning: the compiler's diagnostic is visible" grep -q 'JM_BUILD_T.* redefined' <<<"$out"
check "make with a warning: the short line names the file" grep -qxF "  CC      $src" <<<"$out"

# make test and make check-long between them run every e2e script, each once,
# and CI (.ci/run) runs both
e2e() { make --no-print-directory -n "$1" 2>/dev/null | sed -n 's/.*E2E="\([^"]*\)".*/\1/p' | tr ' ' '\n' | grep .; }
all=$(ls tests/e2e/*.sh | sort)
both=$( (e2e test; e2e check-long) | sort)
check "make test + make check-long: every e2e script once" [ "$both" = "$all" ]
check "make check-long: the long scripts ($(e2e check-long | wc -l))" [ "$(e2e check-long | wc -l)" -ge 1 ]
check ".ci/run runs make test, make check-long and make check-san" \
	bash -c 'grep -qx "make test" .ci/run && grep -qx "make check-long" .ci/run && grep -qx "make check-san" .ci/run'
