#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The fleet playbook (tools/ansible/fleet.yml) for real, on this machine:
# Debian's ansible and openssh-server (installed when missing; root only), a
# private sshd on a loopback port with a throwaway key and its own config,
# a private PostgreSQL (tests/e2e/pg.inc). The inventory is this machine
# under two names, h1 and h2: two work directories and results folders,
# two host names (each host's jobmix runs in a UTS namespace of that name,
# as two machines would record two names). Checks: both hosts' runs are in
# the database with their labels, fetched to the controller, and in the
# closing report; a rerun of the same night runs and changes nothing; a
# host that fails is named and fails the playbook while the other's runs
# go in; a regression in the fleet's history (synthetic nights in another
# database) fails it too; the kernel list's grub-reboot and reboot run in
# --check mode (a fixture grub.cfg; nothing is rebooted).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.inc
. tests/e2e/pg.inc

[ "$(id -u)" = 0 ] || { skip "ansible: not root (sshd, PostgreSQL)"; exit 0; }
if ! command -v ansible-playbook >/dev/null || [ ! -x /usr/sbin/sshd ] || ! command -v ssh >/dev/null; then
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
		ansible openssh-server openssh-client >/dev/null 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq --no-install-recommends \
			ansible openssh-server openssh-client >/dev/null 2>&1; }
fi
for t in ansible-playbook ssh ssh-keygen unshare python3; do
	command -v $t >/dev/null || { skip "ansible: no $t (apt-get install ansible openssh-server)"; exit 0; }
done
[ -x /usr/sbin/sshd ] || { skip "ansible: no sshd (apt-get install openssh-server)"; exit 0; }
pg_install || { skip "ansible: PostgreSQL cannot be installed here (apt-get install postgresql)"; exit 0; }

T=$(mktemp -d /tmp/jobmix-e2e-ansible.XXXXXX)
sshd_pid=
cleanup() {
	# ansible's ssh connection masters (ControlPersist), each told to exit by its socket
	for c in "$T"/cp-*; do [ -S "$c" ] && ssh -o ControlPath="$c" -O exit x >/dev/null 2>&1; done
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null && wait "$sshd_pid" 2>/dev/null
	pg_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
pg_start "$T" || { not_ok "ansible: the PostgreSQL server did not start: $PG_ERR"; exit 0; }

# the private sshd: its own host key, config, pid; root by the throwaway key only
S=$T/ssh
mkdir -p "$S" && chmod 700 "$S"
ssh-keygen -q -t ed25519 -N '' -f "$S/host" && ssh-keygen -q -t ed25519 -N '' -f "$S/id" &&
	cp "$S/id.pub" "$S/authorized_keys" || { not_ok "ansible: ssh-keygen"; exit 0; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$S/sshd_config" <<EOC
Port $port
ListenAddress 127.0.0.1
HostKey $S/host
PidFile none
AuthorizedKeysFile $S/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
EOC
[ -d /run/sshd ] || mkdir -p -m 755 /run/sshd   # sshd's privilege separation directory
/usr/sbin/sshd -D -e -f "$S/sshd_config" 2>"$S/log" &
sshd_pid=$!
ssh_ok() { ssh -p "$port" -i "$S/id" -o BatchMode=yes -o StrictHostKeyChecking=no \
	-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR root@127.0.0.1 true 2>/dev/null; }
for i in $(seq 1 50); do ssh_ok && break; sleep 0.2; done
if ssh_ok; then
	ok "ansible: a private sshd on 127.0.0.1:$port (pid $sshd_pid), root by a throwaway key"
else
	not_ok "ansible: the private sshd: $(tail -3 "$S/log")"; exit 0
fi

# the playbook as written: --syntax-check and Debian's ansible-lint clean
ANSIBLE_NOCOLOR=1 ansible-playbook --syntax-check -i tools/ansible/inventory.example.yml \
	tools/ansible/fleet.yml >"$T/syntax" 2>&1
check "ansible: ansible-playbook --syntax-check fleet.yml" [ $? = 0 ] || sed 's/^/# /' "$T/syntax"
if command -v ansible-lint >/dev/null; then
	(cd tools/ansible && XDG_CACHE_HOME=$T/cache HOME=$T ansible-lint --offline --nocolor fleet.yml) >"$T/lint" 2>&1
	rc=$?
	[ $rc = 0 ] && ok "ansible: ansible-lint (Debian's, production profile) passes fleet.yml and the role" ||
		{ not_ok "ansible: ansible-lint exit $rc"; head -20 "$T/lint" | sed 's/^/# /'; }
else
	skip "ansible: no ansible-lint (apt-get install ansible-lint)"
fi

# two hosts: this machine as h1 and h2 (each jobmix in a UTS namespace of that name)
J=$(cd "$(dirname "$JOBMIX")" && pwd)/$(basename "$JOBMIX")
for h in h1 h2; do
	mkdir -p "$T/$h/work" "$T/$h/results"
	printf '#!/bin/sh\nexec unshare --uts sh -c '\''hostname %s && exec "$0" "$@"'\'' %s "$@"\n' "$h" "$J" >"$T/$h/jobmix"
	chmod 755 "$T/$h/jobmix"
done
inventory() { # inventory FILE [H2'S EXTRA YAML]
	cat >"$1" <<EOI
all:
  vars:
    jobmix_db: "$PG_URL"
    jobmix_install: false
    jobmix_controller_bin: $J
    jobmix_fetch_dir: $T/fetched
    jobmix_workload: $PWD/tests/data/e2e/cpu.yaml
    jobmix_run_opts: -u 1 -j 2 -q --no-warmup
    jobmix_environment: {JOBMIX_STATE_DIR: "$JOBMIX_STATE_DIR"}
  children:
    jobmix:
      hosts:
        h1: {jobmix_bin: $T/h1/jobmix, jobmix_workdir: $T/h1/work, jobmix_results: $T/h1/results}
        h2: {jobmix_bin: $T/h2/jobmix, jobmix_workdir: $T/h2/work, jobmix_results: $T/h2/results${2:+, $2}}
      vars:
        ansible_host: 127.0.0.1
        ansible_port: $port
        ansible_user: root
        ansible_ssh_private_key_file: $S/id
        ansible_python_interpreter: /usr/bin/python3
EOI
}
: >"$T/ansible.cfg"
export ANSIBLE_CONFIG=$T/ansible.cfg ANSIBLE_HOME=$T/ansible ANSIBLE_LOCAL_TEMP=$T/ansible/tmp \
	ANSIBLE_REMOTE_TEMP=$T/ansible/remote ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_PIPELINING=True \
	ANSIBLE_SSH_ARGS="-o ControlMaster=auto -o ControlPersist=20s -o ControlPath=$T/cp-%C -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR" \
	ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_CALLBACK_RESULT_FORMAT=yaml \
	ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3
play() { # play LOG INVENTORY ARGS...: the playbook, its exit code in $rc
	local log=$1 inv=$2; shift 2
	local t0=$SECONDS
	timeout 300 ansible-playbook -i "$inv" tools/ansible/fleet.yml "$@" >"$log" 2>&1
	rc=$?
	echo "# $(basename "$log" .log): ansible-playbook $* (exit $rc, $((SECONDS - t0)) s)"
	[ -n "${ANSIBLE_E2E_LOGS:-}" ] && cp "$log" "$ANSIBLE_E2E_LOGS/"   # kept, to read after a failure
}
runs() { # runs HOST NIGHT: that host's runs of that night in the database
	pgsql -c "select count(*) from labels a join labels b on a.rel = b.rel
		where a.key = 'host' and a.value = '$1' and b.key = 'night' and b.value = '$2'"
}
closing() { sed -n '/TASK \[jobmix : Print the report\]/,/^TASK\|^PLAY RECAP/p' "$1"; }
K=$(uname -r)

# 1. both hosts, night n1
inventory "$T/inv.yml"
play "$T/p1.log" "$T/inv.yml" -e jobmix_night=n1
closing "$T/p1.log" | sed 's/^/# /'
grep -A4 '^PLAY RECAP' "$T/p1.log" | sed 's/^/# /'
check "ansible: the playbook over h1 and h2 exits 0" [ "$rc" = 0 ] || tail -30 "$T/p1.log" | sed 's/^/# /'
[ "$(runs h1 n1)" = 1 ] && [ "$(runs h2 n1)" = 1 ] &&
[ "$(pgsql -c "select count(*) from env where key = 'hostname' and value in ('h1', 'h2')")" = 2 ] &&
[ "$(pgsql -c "select count(*) from labels where key = 'kernel' and value = '$K'")" = 2 ] &&
	ok "ansible: both hosts' runs are in the database (host, night, kernel labels; host names h1, h2)" ||
	not_ok "ansible: runs in the database: $(pgsql -c 'select rel from runs' | tr '\n' ' ')"
[ "$(jq -r '.labels.host + " " + .env.hostname' "$T"/fetched/h1/"$K"/n1/*/run.json 2>/dev/null)" = "h1 h1" ] &&
[ "$(jq -r '.labels.host + " " + .env.hostname' "$T"/fetched/h2/"$K"/n1/*/run.json 2>/dev/null)" = "h2 h2" ] &&
	ok "ansible: each host's run folder fetched to the controller (HOST/KERNEL/NIGHT)" ||
	not_ok "ansible: fetched: $(cd "$T" && find fetched -name run.json | head -4 | tr '\n' ' ')"
closing "$T/p1.log" >"$T/c1"
grep -q "^ *h1 *$K " "$T/c1" && grep -q "^ *h2 *$K " "$T/c1" && grep -q 'hosts that failed: none' "$T/c1" &&
	ok "ansible: the closing report has both hosts (report --db --by hostname,kernel), none failed" ||
	not_ok "ansible: the closing report: $(head -c 600 "$T/c1")"

# 2. the same night again: nothing runs, nothing changes
play "$T/p2.log" "$T/inv.yml" -e jobmix_night=n1
[ "$rc" = 0 ] && [ "$(pgsql -c 'select count(*) from runs')" = 2 ] &&
[ "$(ls -d "$T"/h1/results/"$K"/n1/*/ | wc -l)" = 1 ] &&
grep -Eq '^h1 +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0' "$T/p2.log" &&
grep -Eq '^h2 +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0' "$T/p2.log" &&
grep -A2 'TASK \[jobmix : Run the command\]' "$T/p2.log" | grep -q 'skipping: \[h1\]' &&
	ok "ansible: a rerun of night n1 runs nothing, adds nothing (2 runs), changed=0 on both hosts" ||
	{ not_ok "ansible: rerun (exit $rc, $(pgsql -c 'select count(*) from runs') runs)"; grep -A4 '^PLAY RECAP' "$T/p2.log" | sed 's/^/# /'; }

# 3. night n2 with h2 failing (its work directory cannot be made): named, exit non-zero
inventory "$T/inv-bad.yml" "jobmix_workdir: /proc/jobmix-no-such-dir"
play "$T/p3.log" "$T/inv-bad.yml" -e jobmix_night=n2
closing "$T/p3.log" >"$T/c3"
grep -A1 'Fail when a host failed' "$T/p3.log" | sed 's/^/# /'
[ "$rc" != 0 ] && grep -q 'hosts that failed: h2: ' "$T/c3" && ! grep -q 'failed: h1' "$T/c3" &&
grep -q 'hosts failed: h2: ' "$T/p3.log" &&
	ok "ansible: a failing host is named (h2) and fails the playbook (exit $rc)" ||
	{ not_ok "ansible: a failing host (exit $rc)"; tail -20 "$T/p3.log" | sed 's/^/# /'; }
[ "$(runs h1 n2)" = 1 ] && [ "$(runs h2 n2)" = 0 ] &&
	ok "ansible: ... while the other host's night n2 went in" ||
	not_ok "ansible: night n2: h1 $(runs h1 n2), h2 $(runs h2 n2)"

# 4. a regression in the fleet's history fails the playbook: night n1 again
# (nothing runs) read from a database holding four synthetic nights of three
# hosts, the fourth 15% down (tests/e2e/nights.inc, as pg.sh pushes them)
pgsql -c 'create database regress' >/dev/null
UR="postgresql://jm@/regress?host=$PG_DIR/sock&port=5433"
. tests/e2e/nights.inc
nights_templates
for n in 1 2 3 4; do
	fleet_night "$T/fl" $n
	$JOBMIX push "$T"/fl/h?/$n --db "$UR" -q 2>>"$T/err" || not_ok "ansible: synthetic night $n pushed"
done
play "$T/p5.log" "$T/inv.yml" -e jobmix_night=n1 -e "jobmix_db=$UR"
closing "$T/p5.log" | grep -E 'verdict|REGRESSION|hosts that failed' | sed 's/^/# /'
[ "$rc" != 0 ] && grep -q 'jobmix history exit 1 (a regression)' "$T/p5.log" &&
closing "$T/p5.log" | grep -q 'hosts that failed: none' &&
[ "$(pgsql -c 'select count(*) from runs')" = 3 ] &&
	ok "ansible: a regression in the history fails the playbook (exit $rc), no host failed" ||
	{ not_ok "ansible: a regression (exit $rc)"; tail -12 "$T/p5.log" | sed 's/^/# /'; }

# 5. a kernel list in --check mode: the grub entry found, grub-reboot and the reboot not run
inventory "$T/inv-k.yml"
sed -i "s|^        h1: {|        h1: {jobmix_kernels: [$K, 6.99.0-jobmix], jobmix_grub_cfg: $PWD/tests/data/e2e/grub.cfg, |" "$T/inv-k.yml"
play "$T/p4.log" "$T/inv-k.yml" -e jobmix_night=n3 --check
e='gnulinux-advanced-0b5f>gnulinux-6.99.0-jobmix-advanced-0b5f'
sed -n '/Boot it next/,/^$/p; /Reboot into/,/^$/p' "$T/p4.log" | sed 's/^/# /'
[ "$rc" = 0 ] && grep -A2 "Boot it next (grub-reboot) $e\]" "$T/p4.log" | grep -q 'skipping: \[h1\]' &&
grep -A2 'Reboot into 6.99.0-jobmix\]' "$T/p4.log" | grep -q 'changed: \[h1\]' &&
[ "$(uname -r)" = "$K" ] && [ "$(pgsql -c 'select count(*) from runs')" = 3 ] &&
[ ! -e "$T/h1/results/6.99.0-jobmix" ] &&
	ok "ansible: --check with h1's kernels [$K, 6.99.0-jobmix]: its grub entry found, grub-reboot and reboot in check mode, nothing run" ||
	{ not_ok "ansible: the kernel list in --check mode (exit $rc)"; tail -20 "$T/p4.log" | sed 's/^/# /'; }


# 6. bad input, in --check mode: h1's host label has a space, h2's .deb does
# not exist; each host named with its own failure, nothing run
inventory "$T/inv-bad2.yml" "jobmix_install: true, jobmix_deb: $T/no-such.deb"
sed -i "s|^        h1: {|        h1: {jobmix_host_label: 'h 1', |" "$T/inv-bad2.yml"
play "$T/p6.log" "$T/inv-bad2.yml" -e jobmix_night=n4 --check
closing "$T/p6.log" >"$T/c6"
[ "$rc" != 0 ] && grep -q "hosts that failed: h1: Check the host's settings: h1: .*'h 1'" "$T/c6" &&
grep -q "; h2: Copy the .deb to the host: .*no-such.deb" "$T/c6" &&
[ "$(pgsql -c 'select count(*) from runs')" = 3 ] && [ ! -e "$T/h2/results/$K/n4" ] &&
	ok "ansible: a host label 'h 1' and a .deb that is not there: each host named with its failure, exit $rc" ||
	{ not_ok "ansible: bad input (exit $rc)"; grep 'hosts that failed' "$T/c6" | sed 's/^/# /'; }
