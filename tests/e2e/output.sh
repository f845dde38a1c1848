#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What -o does to what is there (atomic.h), through every command that
# writes one: report, compare, plot --script (and PNG with gnuplot), import
# and reaim -l, against a character device, a link to one, a link to a pipe (as
# /dev/stdout is), a FIFO with and without a reader, a hard link, another
# user's 0600 file, a link to a regular file, and the command's own inputs
# (report DIR -o DIR/run.json).  Then recorded strings that would drive a
# terminal (ESC [2J, an OSC title, CR, a C1 CSI) in labels, the work folder,
# a workload's description and a file name: none reaches the terminal raw
# from run, report, compare, workloads or check.  Labels that are not UTF-8
# are stored with those bytes as \xNN (not ??), and read back so.  All in a temp folder; the
# devices and FIFOs made are its own (root only: mknod, chown).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
T=$(mktemp -d /tmp/jobmix-output.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
R=$T/results
ESC=$(printf '\033')

if [ ! -x "$JOBMIX" ]; then
	not_ok "no $JOBMIX binary (run make first)"
	exit 1
fi
JM=$(realpath "$JOBMIX")
note=$(printf 'n\033[2J\033]0;owned\007|=cmd|%s /C calc%s!A0' "'" "'")
$JM run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -m linear -o "$R" -d "$T/w" \
	-L "note=$note" -L "$(printf 'kernel=k\033]0;t\007\r')" -q >/dev/null 2>"$T/run.err"
check "a tiny run" [ $? = 0 ] || sed 's/^/# /' "$T/run.err"
D=$(ls -d "$R"/*/ | head -1)
D=${D%/}
cp "$D/run.json" "$T/run.json.orig"
printf '10 add_int\n' >"$T/workfile"
cp "$T/workfile" "$T/workfile.orig"

kind() { stat -c %F "$1"; }   # "character special file", "fifo", "symbolic link", ...
# each case from the same start (a jobmix that replaced an input must not hide the next case)
fresh() { cp "$T/run.json.orig" "$D/run.json" && cp "$T/workfile.orig" "$T/workfile"; }

# ---- 1. targets ------------------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	skip "device, FIFO and other-user targets: not root (mknod, chown)"
else
	mknod "$T/null" c 1 3 && chmod 666 "$T/null"
	fresh; $JM report "$R" -o "$T/null" 2>"$T/err"
	check "report -o a character device: exits 0" [ $? = 0 ]
	check "the device is still a device" [ "$(kind "$T/null")" = "character special file" ]
	ln -s "$T/null" "$T/null-link"
	fresh; $JM report "$R" -f csv -o "$T/null-link" 2>"$T/err"
	check "report -o a link to a device: exits 0" [ $? = 0 ]
	check "  the link still a link to the device" bash -c "[ -L '$T/null-link' ] && [ -c '$T/null' ]"
	fresh; $JM import "$T/workfile" -o "$T/null" 2>"$T/err"
	check "import -o a device: exits 0, the device is still a device" \
		bash -c "[ $? = 0 ] && [ -c '$T/null' ] && [ ! -L '$T/null' ]"
	fresh; $JM plot "$R" --script -o "$T/null" >/dev/null 2>"$T/err"
	check "plot --script -o a device: exits 0, the device is still a device" \
		bash -c "[ $? = 0 ] && [ -c '$T/null' ]"

	# a link to /proc/self/fd/1 is what /dev/stdout is
	ln -s /proc/self/fd/1 "$T/stdout"
	fresh; $JM report "$R" -o "$T/stdout" 2>"$T/err" | cat >"$T/piped"
	check "report -o a link to a pipe: the table comes down the pipe" grep -q 'Maximum Jobs Per Minute' "$T/piped"
	check "the link is still a link" [ "$(kind "$T/stdout")" = "symbolic link" ]
	fresh; $JM report "$R" -o "$T/stdout" >"$T/tofile" 2>"$T/err"
	check "report -o a link to a regular file (stdout redirected): exit 2" [ $? = 2 ]
	check "  the message names the link and its target" grep -q "symbolic link to '/proc/self/fd/1', a regular file" "$T/err"
	check "  the link is still a link, the file empty" bash -c "[ -L '$T/stdout' ] && [ ! -s '$T/tofile' ]"

	mkfifo "$T/fifo"
	fresh; timeout 20 $JM report "$R" -o "$T/fifo" 2>"$T/err"
	rc=$?
	check "report -o a FIFO with no reader: an error, not a hang" bash -c "[ $rc != 0 ] && [ $rc != 124 ]"
	check "  it says so" grep -q 'FIFO with no reader' "$T/err"
	check "  the FIFO is still a FIFO" [ "$(kind "$T/fifo")" = fifo ]
	rm -f "$T/fifo" && mkfifo "$T/fifo"
	timeout 5 cat "$T/fifo" >"$T/fifo.out" &
	reader=$!
	sleep 0.2
	fresh; timeout 20 $JM report "$R" -o "$T/fifo" 2>"$T/err"
	check "report -o a FIFO with a reader: exits 0" [ $? = 0 ]
	wait $reader
	check "  the reader got the table" grep -q 'Maximum Jobs Per Minute' "$T/fifo.out"
	check "  the FIFO is still a FIFO" [ "$(kind "$T/fifo")" = fifo ]

	echo theirs >"$T/theirs"
	chown 65534:65534 "$T/theirs" && chmod 600 "$T/theirs"
	fresh; $JM report "$R" -o "$T/theirs" 2>"$T/err"
	check "report -o another user's 0600 file: exits 0" [ $? = 0 ]
	check "  it keeps its owner and mode" [ "$(stat -c '%u:%g %a' "$T/theirs")" = "65534:65534 600" ]
	check "  and holds the report" grep -q 'Maximum Jobs Per Minute' "$T/theirs"
fi

echo old >"$T/h1"
ln "$T/h1" "$T/h2"
fresh; $JM report "$R" -o "$T/h2" 2>"$T/err"
check "report -o a hard link: exit 2" [ $? = 2 ]
check "  both names keep the old contents" bash -c "[ \"\$(cat '$T/h1')\" = old ] && [ \"\$(cat '$T/h2')\" = old ] && [ \$(stat -c %h '$T/h1') = 2 ]"
fresh; $JM compare -o "$T/h1" "$R" -- "$R" 2>"$T/err"
check "compare -o a hard link: exit 2" [ $? = 2 ]
check "  both names as they were" bash -c "[ \"\$(cat '$T/h1')\" = old ] && [ \$(stat -c %h '$T/h1') = 2 ]"

echo real >"$T/real"
ln -s "$T/real" "$T/lnk"
fresh; $JM report "$R" -o "$T/lnk" 2>"$T/err"
check "report -o a link to a regular file: exit 2" [ $? = 2 ]
check "  link and file as they were" bash -c "[ -L '$T/lnk' ] && [ \"\$(cat '$T/real')\" = real ]"
check "  the message names the link and its target" grep -q "'$T/lnk' is a symbolic link to '$T/real'" "$T/err"
fresh; $JM plot "$R" --script -o "$T/lnk" >/dev/null 2>"$T/err"
check "plot --script -o a link to a regular file: exit 2" [ $? = 2 ]
check "  the link untouched" bash -c "[ -L '$T/lnk' ] && [ \"\$(cat '$T/real')\" = real ]"

# the command's own inputs
fresh; $JM report "$D" -o "$D/run.json" 2>"$T/err"
check "report DIR -o DIR/run.json: exit 2" [ $? = 2 ]
check "  run.json as it was" cmp -s "$D/run.json" "$T/run.json.orig"
check "  it says why" grep -q "one of this command's inputs" "$T/err"
fresh; $JM report "$R" -o "$D/points.csv" 2>"$T/err"
check "report -o a run's points.csv: exit 2" [ $? = 2 ]
fresh; $JM compare -o "$D/run.json" "$R" -- "$R" 2>"$T/err"
check "compare -o an input's run.json: exit 2" [ $? = 2 ]
check "  run.json as it was" cmp -s "$D/run.json" "$T/run.json.orig"
fresh; $JM plot "$R" --script -o "$D/run.json" >/dev/null 2>"$T/err"
check "plot --script -o an input's run.json: exit 2" [ $? = 2 ]
check "  run.json as it was" cmp -s "$D/run.json" "$T/run.json.orig"
fresh; $JM import "$T/workfile" -o "$T/workfile" 2>"$T/err"
check "import W -o W: exit 2" [ $? = 2 ]
check "  the workfile as it was" cmp -s "$T/workfile" "$T/workfile.orig"
fresh; $JM import "$T/workfile" -o "$T/h2" 2>"$T/err"
check "import -o a hard link: exit 2" [ $? = 2 ]
# reaim -l PREFIX: PREFIX.log a link to someone's file
mkdir -p "$T/rdisk"
printf 'FILESIZE 10k\nPOOLSIZE 64k\nDISKDIR %s\n' "$T/rdisk" >"$T/reaim.config"
echo keep >"$T/victim"
ln -s "$T/victim" "$T/lg.log"
fresh; $JM reaim -s1 -e1 -j 2 -f "$T/workfile" -c "$T/reaim.config" -l "$T/lg" \
	--results "$T/rr" >/dev/null 2>"$T/err"
check "reaim -l PREFIX with PREFIX.log a link: exit 2" [ $? = 2 ]
check "  the file it points to untouched, nothing run" \
	bash -c "[ \"\$(cat '$T/victim')\" = keep ] && [ -L '$T/lg.log' ] && [ ! -e '$T/rr' ]"
if command -v gnuplot >/dev/null; then
	cp "$T/h1" "$T/h.png" && ln -f "$T/h.png" "$T/h2.png"
	fresh; $JM plot "$R" -o "$T/h2.png" >/dev/null 2>"$T/err"
	check "plot -o a hard-linked .png: exit 2" [ $? = 2 ]
	check "  untouched" [ "$(cat "$T/h2.png")" = old ]
	if [ "$(id -u)" = 0 ]; then
		ln -sf "$T/null" "$T/dev.png"
		fresh; $JM plot "$R" -o "$T/dev.png" >/dev/null 2>"$T/err"
		check "plot -o a .png link to a device: exits 0, link and device kept" \
			bash -c "[ $? = 0 ] && [ -L '$T/dev.png' ] && [ -c '$T/null' ]"
	fi
else
	skip "plot png targets: no gnuplot"
fi
check "no temp file left anywhere" [ -z "$(find "$T" -name '.*.tmp')" ]

# ---- 2. terminal injection -------------------------------------------------------------
# (the runs of part 1 may be gone on a jobmix that let -o replace run.json: fresh ones)
R=$T/results2
$JM run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -m linear -o "$R" -d "$T/w" \
	-L "note=$note" -L "$(printf 'kernel=k\033]0;t\007\r')" -q >/dev/null 2>"$T/run.err"
check "another tiny run" [ $? = 0 ] || sed 's/^/# /' "$T/run.err"
# something was printed, and none of it is ESC, CR or a C1 control
noesc() { [ -s "$1" ] && ! LC_ALL=C grep -q "[$ESC$(printf '\r')]" "$1" &&
	! LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$1"; }
for f in text md csv; do
	$JM report "$R" -f $f -b kernel,note >"$T/rep.$f" 2>"$T/err"
	check "report -f $f: no ESC or CR reaches the terminal" noesc "$T/rep.$f"
done
check "  text shows them visibly" grep -qF 'n\x1b[2J\x1b]0;owned\x07|=cmd' "$T/rep.text"
check "  md escapes the pipe" grep -qF 'n\x1b\[2J\x1b\]0;owned\x07\|=cmd\|' "$T/rep.md"
# labels that are not UTF-8 (a value in Latin-1, a key with a stray byte): kept as \xNN, not ??
$JM run tests/data/good/e2e.yaml -u 1 -j 2 --no-warmup -m linear -o "$T/enc" -d "$T/w" \
	-L "$(printf 'enc=lat\351\377')" -L "$(printf 'k\376y=v')" -q >/dev/null 2>"$T/enc.err"
check "a run labelled in another encoding" [ $? = 0 ] || sed 's/^/# /' "$T/enc.err"
ej=$(ls "$T"/enc/*/run.json 2>/dev/null | head -1)
check "  its value stored as lat\\xe9\\xff" [ "$(jq -r .labels.enc "$ej" 2>/dev/null)" = 'lat\xe9\xff' ]
check "  its key stored as k\\xfey" [ "$(jq -r '.labels["k\\xfey"]' "$ej" 2>/dev/null)" = v ]
check "  the command line as well, no ?? anywhere" bash -c \
	"jq -e '.command | index(\"enc=lat\\\\xe9\\\\xff\")' '$ej' && ! grep -q '??' '$ej'"
$JM report "$T/enc" -f csv -b enc >"$T/enc.csv" 2>&1
check "  read back, it groups the report as stored" grep -qF ',lat\xe9\xff,' "$T/enc.csv"
# a workload name is checked when a workload loads, but a run.json can say anything
mkdir "$T/hostile" && jq --arg w "$(printf 'w\033[2J|x\r')" '.workload.name = $w' \
	"$(ls "$R"/*/run.json | head -1)" >"$T/hostile/run.json"
for f in text md csv; do
	$JM compare -f $f "$T/hostile" -- "$T/hostile" >"$T/cmp.$f" 2>&1
	check "compare -f $f: no ESC or CR from the workload's name" noesc "$T/cmp.$f"
done
check "  the name shown visibly" grep -qF 'w\x1b[2J|x\x0d: baseline against candidate' "$T/cmp.text"
mkdir -p "$T/wl"
cat >"$T/wl/evil.yaml" <<'EOF'
name: evil
description: "d\e[2J\e]0;pwned\atitle\rCR\nNL | =cmd|' /C calc'!A0 \u009b31m c1"
users: {start: 1, end: 1, jobs_per_user: 2, mode: linear}
mix:
  - {job: add_int, weight: 1}
EOF
cp "$T/wl/evil.yaml" "$T/wl/$(printf 'x\033[2J').yaml"
(cd "$T/wl" && $JM workloads) >"$T/wls" 2>&1
check "workloads: no ESC or CR in names or descriptions" noesc "$T/wls"
check "  the description shown visibly" grep -qF 'd\x1b[2J\x1b]0;pwned\x07title\x0dCR\x0aNL' "$T/wls"
(cd "$T/wl" && $JM workloads --names) >"$T/wls" 2>&1
check "workloads --names: none raw" noesc "$T/wls"
$JM check "$T/wl/evil.yaml" >"$T/chk" 2>&1
check "check: no ESC or C1 in the resolved workload" noesc "$T/chk"
$JM check "$T/chk" >/dev/null 2>&1
check "  which loads back" [ $? = 0 ]
printf 'name: "e\\e[2Jvil"\nmix: [{job: add_int, weight: 1}]\n' >"$T/wl/bad.yaml"
$JM check "$T/wl/bad.yaml" >"$T/chk" 2>&1
check "check: the loader's message quotes the value visibly" bash -c "noesc() { ! LC_ALL=C grep -q '[$ESC]' \"\$1\"; }; noesc '$T/chk' && grep -qF 'e\\x1b[2Jvil' '$T/chk'"
$JM run "$T/wl/evil.yaml" --no-warmup -o "$T/r2" -d "$T/w$(printf '\033[2J')" >"$T/run.out" 2>&1
check "run: the header and lines carry no ESC (work folder, results path)" noesc "$T/run.out"
check "  the work folder shown visibly" grep -qF 'w\x1b[2J' "$T/run.out"
