#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shell_rtns_2, run by jobmix as re-aim's system() ran aim_2.sh:
# /bin/sh -c '"$0" 9' <libexec>/shell_rtns_2.sh.  A three-stage pipeline whose
# output is checked, then a 10 ms sleep (re-aim slept 5 s here, which made
# the job idle time rather than work).
[ "$1" = 9 ] || { echo "shell_rtns_2: run without re-aim's argument 9" >&2; exit 1; }
sum=$(printf '%s\n' delta alpha echo charlie bravo | sort | cksum)
if [ "$sum" != "$(printf '%s\n' alpha bravo charlie delta echo | cksum)" ]; then
	echo "shell_rtns_2: sort | cksum gave '$sum'" >&2
	exit 1
fi
sleep 0.01
