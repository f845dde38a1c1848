#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# usage: grub-entry.sh KVER [GRUB_CFG]
# Prints the id grub-reboot takes for the first menu entry whose linux line
# boots /vmlinuz-KVER (SUBMENU_ID>ENTRY_ID inside a submenu), recovery
# entries left out; exit 2 naming the file when there is none.
kver=${1:?usage: grub-entry.sh KVER [GRUB_CFG]}
cfg=${2:-/boot/grub/grub.cfg}
[ -r "$cfg" ] || { echo "grub-entry: cannot read $cfg" >&2; exit 2; }
awk -v k="$kver" '
function id(line,   s) {   # the $menuentry_id_option argument, else the title
	if (match(line, /\$menuentry_id_option +\x27[^\x27]*\x27/)) {
		s = substr(line, RSTART, RLENGTH); sub(/^[^\x27]*\x27/, "", s); sub(/\x27$/, "", s); return s
	}
	if (match(line, /\x27[^\x27]*\x27/)) return substr(line, RSTART + 1, RLENGTH - 2)
	return ""
}
/^[ \t]*submenu[ \t]/ { sub_id = id($0); sub_depth = depth + 1 }
/^[ \t]*menuentry[ \t]/ { ent = id($0); rec = ($0 ~ /recovery mode/); ent_depth = depth + 1 }
/^[ \t]*linux(16|efi)?[ \t]/ && ent != "" && !rec {
	t = "/vmlinuz-" k
	if (substr($2, length($2) - length(t) + 1) == t) { print (sub_id != "" ? sub_id ">" : "") ent; found = 1; exit }
}
{
	n = gsub(/{/, "{"); depth += n; n = gsub(/}/, "}"); depth -= n
	if (ent != "" && depth < ent_depth) ent = ""
	if (sub_id != "" && depth < sub_depth) sub_id = ""
}
END { exit !found }' "$cfg" || { echo "grub-entry: no menu entry boots $kver in $cfg" >&2; exit 2; }
