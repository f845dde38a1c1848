#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end: nightly verdicts by block (one night = one sample set), at toy
# scale.  Two real runs (add_long.scale 1 and 1.2) are the templates; eight
# nights of three runs each are written from them with seeded 0.5% noise
# (this machine's own night-to-night noise, shared with other work, is 15%
# and more: real nights would test the machine, not the verdict), and
# `jobmix history ROOT --order night` judges each night as the nightly does:
#   A/A: no change point, exit 0 every night;
#   scale=1.2 from night 5: a `setting` change at night 5, exit 1 on night 5
#     only, `known regression since night 5` on 6-8 (exit 0; --sticky 1);
#     --accept 5 makes night 5 the baseline;
#   CPU hogs beside night 3 only (other work 50% -> 75% of the CPUs, JPM
#     halved): the change into night 3 and out of it are the `host`'s, with
#     the figure, exit 0 every night; the same with night 3's points
#     flagged (summary.interfered): left out of the test, said so;
#   three hosts (folders, --by hostname): every host falls 15% at kernel k2
#     (night 4: `kernel`, on every host, exit 1 on night 4 only, though one
#     night of it is evidence enough on one host alone), h2 alone 10% more
#     at night 6 (`host`, this host only, exit 0); the kernel at night 3
#     instead: exit 1 on night 3 only (night 4's test loses it, 5's finds
#     it again: known).
# And tools/nightly.sh ends with its one closing line, which report.html opens with;
# three nights of it into one root leave one index, the root's, and a 3-run
# index is under 64 KiB.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-e2e-nightly.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
. tests/e2e/nights.inc
W=$NIGHTS_W
nights_templates
judge() { # judge ROOT N [history options]: the exit code into rc, the output into $T/out.N
	local root=$1 n=$2
	shift 2
	$JOBMIX history --wide "$root" --order night --allow-diff add_long.scale "$@" >"$T/out.$n" 2>&1
	rc=$?
}

# A/A
codes=
for n in 1 2 3 4 5 6 7 8; do
	night "$T/aa" $n vm k1 1 1 50 1
	judge "$T/aa" $n; codes="$codes$rc"
done
check "A/A, eight nights: exit 0 every night ($codes)" [ "$codes" = 00000000 ]
check "... no change point, the verdict no regression" bash -c "! grep -q 'change at' '$T/out.8' && grep -q '^verdict: no regression' '$T/out.8'"

# scale=1.2 from night 5
codes=
for n in 1 2 3 4 5 6 7 8; do
	if [ $n -lt 5 ]; then night "$T/sc" $n vm k1 1 1 50 2; else night "$T/sc" $n vm k1 1.2 0.8333 50 2; fi
	judge "$T/sc" $n; codes="$codes$rc"
	cp "$T/out.$n" "$T/sc.$n"
done
sed 's/^/# /' "$T/sc.5"
check "scale=1.2 from night 5: exit 1 on night 5 only ($codes)" [ "$codes" = 00001000 ]
check "... night 5: a setting change there, add_long.scale 1 -> 1.2" grep -q '^    cause: setting (add_long.scale 1 -> 1.2)' "$T/sc.5"
check "... night 5's verdict: REGRESSION since night 5" grep -qE '^verdict: REGRESSION in cpu .* Peak Load JPM -1[67]\.[0-9]% \[-[0-9.]+, -[0-9.]+\] since night 5 \(setting' "$T/sc.5"
check "... nights 6-8: known regression since night 5" bash -c "for n in 6 7 8; do grep -q '^verdict: known regression since night 5' '$T/sc.'\$n || exit 1; done"
judge "$T/sc" 8 --sticky
check "... --sticky: night 8 exits 1" [ $rc = 1 ]
judge "$T/sc" 8 --accept 5
check "... --accept 5: night 5 the baseline, exit 0, no change point" bash -c "[ $rc = 0 ] && ! grep -q 'change at' '$T/out.8' && grep -q '12 runs before the accepted baseline night 5 left out' '$T/out.8'"
check "... kept in the root: .jobmix-history-accept" bash -c "[ \"\$(cat '$T/sc/.jobmix-history-accept')\" = \"\$(printf 'night\t5')\" ]"
judge "$T/sc" 8
check "... read back on the next night: still exit 0, still left out" bash -c "[ $rc = 0 ] && grep -q 'before the accepted baseline night 5' '$T/out.8'"
cp "$T/sc/.jobmix-history-accept" "$T/acc.before"
judge "$T/sc" 8 --accept 99
check "... --accept of a night no run has: exit 2, the state unchanged" bash -c "[ $rc = 2 ] && grep -q \"accept '99'\" '$T/out.8' && cmp -s '$T/acc.before' '$T/sc/.jobmix-history-accept'"

# CPU hogs beside night 3 only
codes=
for n in 1 2 3 4 5 6 7 8; do
	if [ $n = 3 ]; then night "$T/hog" $n vm k1 1 0.5 75 3; else night "$T/hog" $n vm k1 1 1 50 3; fi
	judge "$T/hog" $n; codes="$codes$rc"
	cp "$T/out.$n" "$T/hog.$n"
done
sed 's/^/# /' "$T/hog.8"
check "hogs beside night 3: exit 0 every night ($codes)" [ "$codes" = 00000000 ]
check "... the change into night 3 and out of it: the host's, with the figure" bash -c \
	"[ \$(grep -c '^    cause: host (the CPU other work left the run' '$T/hog.8') = 2 ] && grep -q 'change at run 7 (night 3 ' '$T/hog.8' && grep -q 'change at run 10 (night 4 ' '$T/hog.8'"
check "... the interference listed: other work 50 -> 75" grep -q '^    machine: machine.other_pct 50 -> 75' "$T/hog.8"
check "... night 4's verdict: a host change, not a regression" grep -q '^verdict: host change, not a regression: .*night 4' "$T/hog.4"

# the same hogs, night 3's points flagged by the runs (other work over the
# bound, no re-measure left: summary.interfered): left out of the test, said so
codes=
for n in 1 2 3 4 5 6 7 8; do
	if [ $n = 3 ]; then night "$T/flag" $n vm k1 1 0.5 75 3 1 2; else night "$T/flag" $n vm k1 1 1 50 3; fi
	judge "$T/flag" $n; codes="$codes$rc"
	cp "$T/out.$n" "$T/flag.$n"
done
check "night 3 flagged: exit 0 every night, no change point ($codes)" bash -c \
	"[ $codes = 00000000 ] && ! grep -q 'change at' '$T/flag.8'"
check "... its 3 runs left out of the test, and said so" \
	grep -q '21 runs in order of night (3 left out: points flagged, other work over the run.s bound)' "$T/flag.8"

# A fork-heavy mix loses far more than the CPU share other work takes: a
# fall of three quarters beside other work at 38% of the CPUs is the host's
# when the run's CPU pressure (psi.cpu.some) rose with it, and no host's
# without that evidence (the same fall, pressure flat: a regression).
for psi in 99 1; do
	codes=
	for n in 1 2 3 4; do
		if [ $n = 3 ]; then night "$T/press$psi" $n vm k1 1 0.25 38 5 $psi; else night "$T/press$psi" $n vm k1 1 1 0 5 1; fi
		judge "$T/press$psi" $n; codes="$codes$rc"
		cp "$T/out.$n" "$T/press$psi.$n"
	done
	if [ $psi = 99 ]; then
		check "pressure 1 -> 99 beside other work 0 -> 38: the host's, exit 0 every night ($codes)" \
			bash -c "[ $codes = 0000 ] && grep -q '^    cause: host (the CPU other work left the run' '$T/press$psi.3'"
	else
		check "the same fall with the pressure flat: not the host's, night 3 exits 1 ($codes)" \
			bash -c "[ $codes = 0010 ] && ! grep -q '^    cause: host' '$T/press$psi.3'"
	fi
done

# three hosts: h2 alone falls at night 3; every host falls at kernel k2 (night 5)
codes=
for n in 1 2 3 4 5 6 7 8; do
	fleet_night "$T/fleet" $n
	judge "$T/fleet" $n --by hostname; codes="$codes$rc"
	cp "$T/out.$n" "$T/fleet.$n"
done
sed 's/^/# /' "$T/fleet.8"
check "three hosts: exit 1 on night 4 only, the kernel's night ($codes)" [ "$codes" = 00010000 ]
check "... night 4 on every host: the kernel's (k1 -> k2)" bash -c \
	"[ \$(grep -c 'change at run 10 (night 4 .*' '$T/fleet.8') = 3 ] && [ \$(grep -c 'cause: kernel (kernel k1 -> k2); on every host (3)' '$T/fleet.8') = 3 ]"
check "... h2's own fall at night 6: the host's, this host only, exit 0" bash -c \
	"grep -A1 'change at run 16 (night 6 (h2-' '$T/fleet.6' | grep -q 'cause: host .*this host only: 2 other hosts ran night 6 without it'"
check "... night 4's verdict names the kernel on every host" grep -qE '^verdict: REGRESSION in cpu .* since night 4 \(kernel \(kernel k1 -> k2\); on every host \(3\)\)' "$T/fleet.4"

# kernel k2 from night 3: one night of it is found on one host, the next
# night's test (two nights after, two before) finds it on none, night 5's on
# every host: still the change night 3 alerted for, known
codes=
for n in 1 2 3 4 5 6 7 8; do
	fleet_night "$T/fleet3" $n 3
	judge "$T/fleet3" $n --by hostname; codes="$codes$rc"
	cp "$T/out.$n" "$T/fleet3.$n"
done
check "kernel k2 from night 3: exit 1 on night 3 only, known on 5-8 ($codes)" bash -c \
	"[ $codes = 00100000 ] && grep -q '^verdict: known regression since night 3' '$T/fleet3.5'"

# the nightly's closing line, and report.html opening with it
mkdir -p "$T/nroot"
NIGHTLY_DATE=n1 tools/nightly.sh -w "$W" -r 2 -o "$T/nroot" -- -u 1 -j 6 --no-warmup -d "$T/w" >"$T/n1" 2>&1
rc=$?
sed 's/^/# /' "$T/n1" | tail -3
check "nightly: the last line is the closing line with its exit code ($rc)" bash -c "tail -1 '$T/n1' | grep -qE '^nightly n1: .*: exit $rc\$'"
# the page opens with it: the first bold line, under the title and before any table
check "... report.html opens with it" bash -c "sed -n '1,/<table/p' '$T/nroot/n1/report.html' | grep -m1 '<strong>' | grep -qF \"\$(tail -1 '$T/n1' | sed 's/&/\\&amp;/g; s/</\\&lt;/g; s/>/\\&gt;/g')\""
# one index per root: nights 2 and 3 (one run each) into the same root
for n in n2 n3; do
	NIGHTLY_DATE=$n tools/nightly.sh -w "$W" -r 1 -o "$T/nroot" -- -u 1 -j 6 --no-warmup -d "$T/w" >"$T/$n" 2>&1
done
ixs=$(cd "$T/nroot" && find . -name '.jobmix-index*' | sort | tr '\n' ' ')
check "three nights into one root: one index, the root's ($ixs)" [ "$ixs" = "./.jobmix-index.sqlite " ]
# a 3-run index under 64 KiB (it was 832 KiB: 13 b-trees of 64 KiB pages)
rm -r "$T/nroot/n3"
$JOBMIX report "$T/nroot" >/dev/null 2>&1
runs=$(find "$T/nroot" -name run.json | wc -l) size=$(stat -c %s "$T/nroot/.jobmix-index.sqlite")
check "... its index of $runs runs is under 64 KiB ($size bytes)" bash -c "[ $runs = 3 ] && [ $size -lt 65536 ]"
[ -s "$T/err" ] && sed 's/^/# /' "$T/err" | head -5
true
