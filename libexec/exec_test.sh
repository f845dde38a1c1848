#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# exec_test's program (as re-aim's scripts/true): exec'd directly, so the
# kernel starts /bin/sh on it; it lists a directory with ls -l (re-aim's
# listed its current one; this one its own, libexec, the same everywhere)
# and exits with the status given as its argument, which exec_test checks.
ls -l "${0%/*}" >/dev/null 2>&1
exit "${1:-0}"
