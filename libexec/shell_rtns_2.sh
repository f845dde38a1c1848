#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shell_rtns_2, run by jobmix as re-aim's system() ran aim_2.sh:
# /bin/sh -c '"$0" 9' <libexec>/shell_rtns_2.sh.  re-aim's work: sleep 5 s
# when the argument is below 10 (re-aim always passes 9), else 1 s.
case $1 in
'' | *[!0-9]*)
	echo "shell_rtns_2: run without re-aim's argument (9), got '$1'" >&2
	exit 1 ;;
esac
if [ "$1" -lt 10 ]; then
	sleep 5
else
	sleep 1
fi
