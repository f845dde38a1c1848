#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shell_rtns_1 (run by jobmix as: /bin/sh <libexec>/shell_rtns_1.sh):
# list jobmix's own libexec directory and count the lines.
dir=${0%/*}
n=$(ls -l "$dir" | wc -l)
# "total" plus at least the three shell_rtns scripts
if [ "$n" -lt 4 ]; then
	echo "shell_rtns_1: 'ls -l $dir' gave $n lines" >&2
	exit 1
fi
