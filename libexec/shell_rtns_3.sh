#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shell_rtns_3 (run by jobmix as: /bin/sh <libexec>/shell_rtns_3.sh):
# list /usr/bin, sort it by size and keep the three largest entries.
n=$(ls -l /usr/bin | sort -n -k5,5 | tail -n 3 | wc -l)
if [ "$n" -ne 3 ]; then
	echo "shell_rtns_3: 'ls -l /usr/bin | sort | tail -n 3' gave $n lines" >&2
	exit 1
fi
