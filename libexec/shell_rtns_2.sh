#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shell_rtns_2 (run by jobmix as: /bin/sh <libexec>/shell_rtns_2.sh):
# a three-stage pipeline whose output is checked, then a 10 ms sleep
# (re-aim slept 5 s here, which made the job idle time rather than work).
sum=$(printf '%s\n' delta alpha echo charlie bravo | sort | cksum)
if [ "$sum" != "$(printf '%s\n' alpha bravo charlie delta echo | cksum)" ]; then
	echo "shell_rtns_2: sort | cksum gave '$sum'" >&2
	exit 1
fi
sleep 0.01
