#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Does the order of the points change what they measure?
#
# The same user counts measured ascending, descending and shuffled (-m linear
# --order ...), ROUNDS times with the three orders rotated from round to round
# (so slow drift favours none of them), twice: with the settling before every
# point and the warm-up on (the default) and with both off (--no-settle
# --no-warmup).  For every user count it prints each order's mean JPM, the
# spread due to order (sd of the three order means, % of their mean) against
# the spread expected from the noise alone (the within-order sd over rounds,
# pooled, divided by sqrt(ROUNDS): the standard error of one order's mean),
# and their ratio; then the first-point effect: the first point of every run
# against the same user count measured later in the other runs.
# Goal: the order effect no larger than the noise (median ratio <= 1) with
# the settling and the warm-up on.
#
#   bench/order.sh [WORKLOAD] [DIR]
# Environment: USERS ("8,16,24,32"), ROUNDS (3), POINTS ("--measure time
#   --duration 2s"), EXTRA (more `jobmix run` options), KEEP (set: keep the
#   runs), FROM (a folder KEEP left: analyse those runs again, run nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
WL=${1:-workloads/fserver.yaml}
DIR=${2:-/var/tmp/jobmix-bench}
USERS=${USERS:-8,16,24,32}
ROUNDS=${ROUNDS:-3}
POINTS=${POINTS:---measure time --duration 2s}
FROM=${FROM:-}
command -v jq >/dev/null || { echo "jq not installed (apt-get install jq)"; exit 2; }
[ -x ./jobmix ] || make -s jobmix
if [ -n "$FROM" ]; then
	T=$FROM
elif T=$(mktemp -d) && [ -n "${KEEP:-}" ]; then
	echo "keeping the runs in $T"
else
	trap 'rm -rf "$T"' EXIT
fi

orders=(ascending descending shuffle)
if [ -z "$FROM" ]; then
	for setting in on off; do
		opts=""
		[ $setting = off ] && opts="--no-settle --no-warmup"
		for r in $(seq 1 "$ROUNDS"); do
			for k in 0 1 2; do
				o=${orders[$(((k + r - 1) % 3))]}
				out=$T/$setting.$o.$r
				# shellcheck disable=SC2086
				./jobmix run "$WL" -m linear -u "$USERS" --order "$o" --seed "$r" \
					-d "$DIR" -o "$out" -q $POINTS $opts ${EXTRA:-} >/dev/null
				cp "$out"/*/run.json "$T/$setting.$o.$r.json"
				rm -rf "$out"
				echo "  $setting $o round $r done" >&2
			done
		done
	done
fi

for setting in on off; do
	files=("$T"/$setting.*.json)
	[ -e "${files[0]}" ] || continue
	if [ $setting = on ]; then
		echo "settling before every point and warm-up: on"
	else
		echo "settling and warm-up: off (--no-settle --no-warmup)"
	fi
	# one line per run: order, round, then users:jpm in measured order
	jq -r --arg f "" '[input_filename, ([.points[] | select(.failed | not) | "\(.users):\(.jpm)"] | join(" "))] | join(" ")' \
		"${files[@]}" | awk -v rounds="$ROUNDS" '
	{
		n = split($1, p, "/"); split(p[n], q, ".")    # on.ORDER.ROUND.json
		o = q[2]
		for (i = 2; i <= NF; i++) {
			split($i, uv, ":"); u = uv[1]; v = uv[2]
			users[u] = 1
			s[u, o] += v; ss[u, o] += v * v; c[u, o]++
			if (i == 2) { first[u] += v; nfirst[u]++ } else { later[u] += v; nlater[u]++ }
		}
	}
	END {
		split("ascending descending shuffle", ord, " ")
		printf "%6s %11s %11s %11s %9s %9s %7s\n", "users", "ascending", "descending", "shuffle", "order_%", "noise_%", "ratio"
		nu = 0
		for (u in users) list[++nu] = u + 0
		for (i = 1; i <= nu; i++) for (j = i + 1; j <= nu; j++) if (list[j] < list[i]) { t = list[i]; list[i] = list[j]; list[j] = t }
		nr = 0
		for (i = 1; i <= nu; i++) {
			u = list[i]; m = 0; k = 0; pooled = 0; df = 0
			for (j = 1; j <= 3; j++) {
				o = ord[j]
				if (!c[u, o]) continue
				mu[j] = s[u, o] / c[u, o]; m += mu[j]; k++
				if (c[u, o] > 1) { pooled += ss[u, o] - c[u, o] * mu[j] * mu[j]; df += c[u, o] - 1 }
			}
			if (k < 3) continue
			m /= k
			between = 0
			for (j = 1; j <= 3; j++) between += (mu[j] - m) ^ 2
			osd = sqrt(between / 2) / m * 100
			nsd = df ? sqrt(pooled / df) / sqrt(rounds) / m * 100 : 0
			ratio = nsd > 0 ? osd / nsd : 0
			r[++nr] = ratio
			printf "%6d %11.0f %11.0f %11.0f %8.2f%% %8.2f%% %7.2f\n", u, mu[1], mu[2], mu[3], osd, nsd, ratio
		}
		for (i = 1; i <= nr; i++) for (j = i + 1; j <= nr; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
		med = nr ? (nr % 2 ? r[(nr + 1) / 2] : (r[nr / 2] + r[nr / 2 + 1]) / 2) : 0
		fe = 0; fn = 0
		for (u in users) if (nfirst[u] && nlater[u]) { fe += (first[u] / nfirst[u]) / (later[u] / nlater[u]) - 1; fn++ }
		printf "median ratio of order spread to noise: %.2f (%s)\n", med, med <= 1 ? "order effect within the noise" : "order effect larger than the noise"
		if (fn)
			printf "first-point effect: a run'"'"'s first point against the same users measured later: %+.1f%% (mean over %d user counts)\n", fe / fn * 100, fn
		print ""
	}'
done
