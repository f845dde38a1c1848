#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shell_rtns_3, run by jobmix as re-aim's system() ran aim_3.sh:
# /bin/sh -c '"$0" 9' <libexec>/shell_rtns_3.sh.  re-aim's work: `ls -l > /dev/null`,
# here of jobmix's libexec directory (re-aim listed its working directory).
[ "$1" = 9 ] || { echo "shell_rtns_3: run without re-aim's argument 9" >&2; exit 1; }
dir=${0%/*}
if ! ls -l "$dir" >/dev/null; then
	echo "shell_rtns_3: 'ls -l $dir' failed" >&2
	exit 1
fi
