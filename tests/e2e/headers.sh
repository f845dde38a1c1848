#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The include structure: every public header (include/jobmix/*.h) compiles on
# its own, so it includes what it uses; nothing outside src/cli includes a
# cli header; the unit tests and fuzz targets reach cli only through public
# headers (the engine's record.h, session.h and run_opts.h until they move
# to src/run behind include/jobmix/run.h).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
CC=${CC:-cc}
bad=
n=0
for h in include/jobmix/*.h; do
	n=$((n + 1))
	printf '#include "%s"\n' "${h#include/}" |
		$CC -D_GNU_SOURCE -Iinclude -std=c11 -Wall -Wextra -Werror -fsyntax-only -x c - 2>/dev/null ||
		bad="$bad ${h#include/jobmix/}"
done
check "all $n public headers compile on their own${bad:+ (not:$bad)}" [ -z "$bad" -a $n -gt 20 ]
out=$(grep -rnE '^#include "[^"]*cli/' src --include='*.[ch]' | grep -v '^src/cli/')
check "no file outside src/cli includes a cli header${out:+ ($out)}" [ -z "$out" ]
out=$(grep -rnE '^#include "[^"]*src/cli/' tests/unit tests/fuzz)
check "tests include no private cli header${out:+ ($out)}" [ -z "$out" ]
out=$(grep -rnE '^#include "\.\./|^#include "[^"]*src/' tests/unit tests/fuzz)
check "tests include public headers only (jobmix/*.h)${out:+ ($out)}" [ -z "$out" ]
check "the reaim parser is public (include/jobmix/reaim.h)" grep -q 'int reaim_parse' include/jobmix/reaim.h
check "JOBMIX_VERSION is in version.h alone" \
	[ "$(grep -rl 'define JOBMIX_VERSION' include src)" = include/jobmix/version.h ]
check "ramp.h does not take workload.h" [ -z "$(grep -n 'workload.h' include/jobmix/ramp.h)" ]
