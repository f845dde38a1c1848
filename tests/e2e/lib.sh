# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the end-to-end scripts: TAP-style lines the runner counts.
JOBMIX=${JOBMIX:-./jobmix}
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
check() { # check "what" command...
	local what=$1; shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}
skip() { echo "SKIP - $*"; }
# Is the directory empty (no entries at all)?
empty_dir() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; }
# Float comparison: approx A B RELTOL
approx() { [[ $1 =~ ^-?[0-9] && $2 =~ ^-?[0-9] ]] || return 1; awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (b < 0 ? -b : b); exit !(d <= t * m + 1e-9) }'; }
