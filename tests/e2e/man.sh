#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# jobmix(1) is generated ('jobmix help --man') from the commands table, each
# command's help and the job registry: fail when docs/jobmix.1 is stale, when
# a command, option or job is missing from it, or when groff warns about it.
# 'jobmix help COMMAND' is the command's --help.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-man.XXXXXX)
trap 'rm -rf "$T"' EXIT
$JOBMIX help --man >"$T/page"; rc=$?
check "help --man: exit 0" [ $rc = 0 ]
if cmp -s "$T/page" docs/jobmix.1; then
	ok "docs/jobmix.1 matches 'jobmix help --man'"
else
	not_ok "docs/jobmix.1 is stale: run 'make man'"
	diff docs/jobmix.1 "$T/page" | head -20 | sed 's/^/# /'
fi

# an option as the page's option lines write it: "\fB--opt ARG\fR", "-x, --opt", ...
has_option() {
	local e pre suf
	e=$(sed 's/-/\\-/g' <<<"$1")
	for pre in '\fB' ', '; do
		for suf in ' ' ',' '\fR' '[' '='; do
			grep -qF -- "$pre$e$suf" "$2" && return 0
		done
	done
	return 1
}
cmds=$($JOBMIX help | awk '/^  [a-z]/ { print $1 }')
check "the command list is not empty" [ -n "$cmds" ]
missing=
for c in $cmds; do
	grep -q "^\.SS \"jobmix $c\"$" "$T/page" || missing="$missing $c"
done
check "every command has its section${missing:+ (missing:$missing)}" [ -z "$missing" ]
syn=$(sed -n '/^\.SH SYNOPSIS$/,/^\.SH DESCRIPTION$/p' "$T/page")
missing=
for c in $cmds; do
	grep -qF "\fBjobmix $c\fR" <<<"$syn" || missing="$missing $c"
done
check "the synopsis holds every command's usage line${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "the synopsis has every usage form (run --job, check --keys)" \
	[ -n "$(grep -F '\fBjobmix run\fR \-\-job' <<<"$syn")" -a -n "$(grep -F '\fBjobmix check\fR \-\-keys' <<<"$syn")" ]
check "options from the tables: names bold, values italic" grep -qxF '\fB\-u\fR, \fB\-\-users\fR \fISPEC\fR' "$T/page"
check "a table's section heading (run's A/B)" grep -qxF '\fIIO\-scheduler A/B (root):\fR' "$T/page"
check "a footer's indented lines stay prose (compare's exit)" [ -z "$(grep -F '\fB(or sides' "$T/page")" ]
check "hidden rows stay out (help --values, reaim -b)" [ -z "$(grep -e '\\-\\-values' -e '\\-\\-brief' "$T/page")" ]
missing=
for c in $cmds; do
	for o in $($JOBMIX help "$c" | grep -oE '^ {2,7}(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
		has_option "$o" "$T/page" || missing="$missing $c:$o"
	done
done
check "every command's long options are in the page${missing:+ (missing:$missing)}" [ -z "$missing" ]
missing=
for k in $($JOBMIX jobs | awk '{ print $1 }'); do
	grep -qF "\\fB$k\\fR (" "$T/page" || missing="$missing $k"
done
check "every job kind is in the JOBS section${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "fileio's parameters are listed" grep -qF '\fBfsync_every\fR (int, default 100' "$T/page"
check "the workload keys have their section (issue 12 fills it)" grep -q '^\.SH WORKLOAD KEYS$' "$T/page"
check "the search order of workload names is in the page" grep -qF '$XDG_CONFIG_HOME/jobmix/workloads' "$T/page"
if command -v groff >/dev/null; then
	groff -man -ww -z -Tutf8 "$T/page" 2>"$T/warn"
	check "groff -ww: no warnings" [ ! -s "$T/warn" ]
	sed 's/^/# /' "$T/warn" | head -5
	LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$T/page" 2>/dev/null >"$T/txt"
	check "man renders it: NAME, SYNOPSIS, COMMANDS, JOBS" \
		[ "$(grep -cE '^(NAME|SYNOPSIS|COMMANDS|JOBS|EXIT STATUS)$' "$T/txt")" = 5 ]
else
	skip "groff not installed: the page is not rendered"
fi

# jobmix help COMMAND
diffs=
for c in $cmds; do
	[ "$c" = help ] && continue
	cmp -s <($JOBMIX help "$c") <($JOBMIX "$c" --help) || diffs="$diffs $c"
done
check "jobmix help COMMAND is COMMAND --help${diffs:+ (differ:$diffs)}" [ -z "$diffs" ]
$JOBMIX help nosuch >/dev/null 2>"$T/err"; rc=$?
check "help unknown command: exit 2, named" [ $rc = 2 -a -n "$(grep "unknown command 'nosuch'" "$T/err")" ]
$JOBMIX help run check >/dev/null 2>&1; rc=$?
check "help with two commands: exit 2" [ $rc = 2 ]
check "jobmix --help lists workloads and help" [ "$($JOBMIX --help | grep -cE '^  (workloads|help) ')" = 2 ]

# EXAMPLES: a ramp, an A/B, a matrix, compare, a nightly, history; each in
# `help CMD` and the page alike (one table per command drives both)
ex=$(sed -n '/^\.SH EXAMPLES$/,/^\.SH /p' docs/jobmix.1)
for what in 'a ramp' 'an A/B' 'a matrix' 'a nightly' 'history:'; do
	check "man page EXAMPLES: $what" grep -q "^$what" <<<"$ex"
done
missing=
for c in run compare history report; do
	lines=$($JOBMIX help "$c" | sed -n '/^examples:$/,$p' | grep '^  jobmix ')
	[ -n "$lines" ] || missing="$missing $c:none"
	while read -r l; do
		[ -z "$l" ] && continue
		grep -qF "\\fB$(sed 's/-/\\-/g' <<<"$l")\\fR" <<<"$ex" || missing="$missing $c:'$l'"
	done <<<"$lines"
done
check "help CMD's examples are the page's${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "help compare: the nightly example" grep -q '^  jobmix compare results/nightly/' <($JOBMIX help compare)
