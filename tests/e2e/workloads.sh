#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Workloads by name, from the build tree: the search order (a path as given,
# ./NAME.yaml, $XDG_CONFIG_HOME/jobmix/workloads or ~/.config/..., the shipped
# workloads/), `jobmix workloads` and its shadowing, the path in the banner and
# in run.json, and an unknown name (exit 2, every place named, nothing made).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
top=$PWD
JM=$top/${JOBMIX#./}
T=$(mktemp -d /tmp/jobmix-wl.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/cwd" "$T/home" "$T/xdg/jobmix/workloads" "$T/home/.config/jobmix/workloads"
# a quick.yaml whose description says where it is
mine() { sed "s/^description: .*/description: quick from $1/" workloads/quick.yaml >"$2"; }
# jobmix in $T/cwd with HOME=$T/home and no XDG_CONFIG_HOME
jm() { (cd "$T/cwd" && env -u XDG_CONFIG_HOME HOME="$T/home" "$JM" "$@"); }
desc() { jm check "$1" | sed -n 's/^description: //p' | tr -d '"'; }

# 1. shipped: the build tree's workloads/
check "check by name: exit 0" jm check -q fserver
check "a name with .yaml is the same name" jm check -q fserver.yaml
check "shipped quick from the build tree" [ "$(desc quick)" = "small mixed workload for a first run and for the tests" ]
jm check quick >"$T/out"
check "check names the file it read" grep -q "^# $top/workloads/quick.yaml " "$T/out"

# 2. ~/.config/jobmix/workloads shadows the shipped one; XDG_CONFIG_HOME replaces ~/.config
mine home "$T/home/.config/jobmix/workloads/quick.yaml"
check "~/.config/jobmix/workloads before shipped" [ "$(desc quick)" = "quick from home" ]
mine xdg "$T/xdg/jobmix/workloads/quick.yaml"
got=$(cd "$T/cwd" && HOME="$T/home" XDG_CONFIG_HOME="$T/xdg" "$JM" check quick | sed -n 's/^description: //p' | tr -d '"')
check "\$XDG_CONFIG_HOME/jobmix/workloads replaces ~/.config" [ "$got" = "quick from xdg" ]
got=$(cd "$T/cwd" && HOME="$T/home" XDG_CONFIG_HOME=relative "$JM" check quick | sed -n 's/^description: //p' | tr -d '"')
check "a relative XDG_CONFIG_HOME is ignored (XDG): ~/.config" [ "$got" = "quick from home" ]

# 3. ./NAME.yaml before the config directory; a path as given before everything
mine cwd "$T/cwd/quick.yaml"
check "./NAME.yaml before the config directory" [ "$(desc quick)" = "quick from cwd" ]
mine file "$T/cwd/quick"
check "an existing file named as given comes first" [ "$(desc quick)" = "quick from file" ]
rm -f "$T/cwd/quick"
check "a path is taken as given" [ "$(desc "$top/workloads/quick.yaml")" = "small mixed workload for a first run and for the tests" ]
mkdir "$T/cwd/fserver"
check "a directory of that name is not a workload: the name is searched" jm check -q fserver
rmdir "$T/cwd/fserver"

# 4. jobmix workloads: every directory in order, descriptions, shadowing
jm workloads >"$T/list"; rc=$?
check "workloads: exit 0" [ $rc = 0 ]
check "workloads: the three places in search order" \
	[ "$(grep -vE '^ |^$' "$T/list" | sed 1d | cut -d' ' -f1 | tr '\n' ' ')" = ". $T/home/.config/jobmix/workloads $top/workloads " ]
check "workloads: shipped mixes with descriptions" grep -qE '^  fserver +AIM7 file-server mix$' "$T/list"
check "workloads: ./quick.yaml shadows the config one" grep -qE "^  quick +quick from cwd  \[shadows $T/home/.config/jobmix/workloads/quick.yaml\]" "$T/list"
check "workloads: the shipped quick is shadowed by ./quick.yaml" grep -qE "^  quick +small mixed .*\[shadowed by ./quick.yaml\]" "$T/list"
jm workloads --names >"$T/names"
check "workloads --names: each name once" [ "$(sort "$T/names" | uniq -d | wc -l)" = 0 ]
check "workloads --names: every shipped mix" [ "$(ls workloads/*.yaml | sed 's|.*/||; s|\.yaml$||' | sort | comm -23 - "$T/names" | wc -l)" = 0 ]
echo "name: [broken" >"$T/cwd/broken.yaml"
check "workloads: an invalid file is listed as such" grep -qE '^  broken +\(invalid: ' <(jm workloads)
rm -f "$T/cwd/broken.yaml"
jm workloads --bogus >/dev/null 2>&1; rc=$?
check "workloads --bogus: exit 2" [ $rc = 2 ]

# 5. an unknown name: exit 2, each place searched named, a suggestion, nothing created
rm -f "$T/cwd/quick.yaml"
touch "$T/out" "$T/err"
before=$(find "$T" | sort)
jm run fservr -u 1 -j 5 -o "$T/cwd/res" >"$T/out" 2>"$T/err"; rc=$?
check "run unknown name: exit 2" [ $rc = 2 ]
check "run unknown name: names ./NAME.yaml, the config and the shipped directory" \
	grep -qF "none of ./fservr.yaml, $T/home/.config/jobmix/workloads/fservr.yaml, $top/workloads/fservr.yaml exists" "$T/err"
check "run unknown name: did you mean" grep -q "did you mean 'fserver'" "$T/err"
check "run unknown name: nothing created" [ "$(find "$T" | sort)" = "$before" ]
jm check -q nosuch fserver 2>"$T/err"; rc=$?
check "check unknown name among good ones: exit 2" [ $rc = 2 ]
check "check unknown name: said" grep -q "jobmix check: no workload 'nosuch'" "$T/err"
jm run ./nosuch.yaml -u 1 -o "$T/cwd/res" >/dev/null 2>"$T/err"; rc=$?
check "a missing path is not searched by name: exit 2, the loader's message" \
	[ $rc = 2 -a -z "$(grep 'none of' "$T/err")" ]

# 6. a run by name: the path in the banner and in run.json
jm run quick -u 1 -j 5 --no-warmup -d "$T/w" -o "$T/res" >"$T/out" 2>&1; rc=$?
check "run by name: exit 0" [ $rc = 0 ]
check "run by name: the banner prints the file" grep -q "^jobmix .*: quick (/.*/home/.config/jobmix/workloads/quick.yaml)" "$T/out"
j=$(ls "$T"/res/*/run.json 2>/dev/null | head -1)
check "run.json workload.path: the file found" [ "$(jq -r .workload.path "$j")" = "$T/home/.config/jobmix/workloads/quick.yaml" ]
check "run.json workload.found: config" [ "$(jq -r .workload.found "$j")" = config ]
rm -f "$T/home/.config/jobmix/workloads/quick.yaml"
rm -rf "$T/res"
jm run quick -u 1 -j 5 --no-warmup -d "$T/w" -o "$T/res" >/dev/null 2>&1
j=$(ls "$T"/res/*/run.json 2>/dev/null | head -1)
check "run.json: a shipped mix found as shipped" [ "$(jq -r '.workload.found + " " + .workload.path' "$j")" = "shipped $top/workloads/quick.yaml" ]
rm -rf "$T/res"
(cd "$T/cwd" && cp "$top/workloads/quick.yaml" . && HOME="$T/home" "$JM" run ./quick.yaml -u 1 -j 5 --no-warmup -d "$T/w" -o "$T/res" >/dev/null 2>&1)
j=$(ls "$T"/res/*/run.json 2>/dev/null | head -1)
check "run.json: a path given is recorded as given, found: path" [ "$(jq -r '.workload.found + " " + .workload.path' "$j")" = "path ./quick.yaml" ]
check "report reads runs with workload.found" $JOBMIX report "$T/res"
