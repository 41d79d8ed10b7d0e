#!/usr/bin/env bash
# fleet-test.sh: run the fleet playbook (deploy/ansible/fleet.yml) for real,
# against this machine through its own sshd on two loopback addresses, with a
# third inventory host that is down, and check what comes back:
#   127.0.0.2  node type loop-a, CPU 0, the controller's binary copied over
#   127.0.0.3  node type loop-b, CPU 1, built on the "host" from a source archive
#   127.0.0.4  node type loop-a, nothing listening: must be named as failed
#              without failing the other two
# Each host runs `ctxbench --quick` (the default ladder, quick); the two
# measurements queue on the machine lock, as they would on one machine.
#
# Needs root (sshd, root login by key), ansible-core and openssh-server
# (scripts/setup.sh test installs them). Environment:
#   FLEET_OUT      where the results, the report and the logs go (default: a
#                  new /tmp/ctxbench-fleet.XXXXXX); it is kept, all else removed
#   FLEET_TIMEOUT  seconds the playbook may take (default 1800: a run may wait
#                  for other ctxbench measurements on this machine)
#   FLEET_GO       the go command line for both builds, e.g.
#                  "taskset -c 0 /usr/local/go/bin/go" (default: go, absolute)
# The last line printed is the path of the fleet's HTML report.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
started=$(date +%s)

log() { printf 'fleet-test: %s\n' "$*" >&2; }
die() { log "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root: sshd and a root login by key (run it as root)"
for c in ansible-playbook ssh ssh-keygen python3 timeout; do
	command -v "$c" >/dev/null || die "$c not found (scripts/setup.sh test installs it)"
done
[ -x /usr/sbin/sshd ] || die "/usr/sbin/sshd not found (scripts/setup.sh test installs openssh-server)"
# sshd without PAM refuses an account whose password is locked ("!"), as
# root's is on a Debian installed without a root password; with PAM, only
# PAM's account check applies, which a key login passes. PAM stays off
# otherwise: its session modules (pam_loginuid) fail in some containers.
use_pam=no
grep -q '^root:!' /etc/shadow && use_pam=yes
read -ra go_cmd <<<"${FLEET_GO:-$(command -v go || echo go)}"

tmp=$(mktemp -d /tmp/ctxbench-fleet-test.XXXXXX)
out=${FLEET_OUT:-$(mktemp -d /tmp/ctxbench-fleet.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
results=$out/results
sshd_pid=
play_pid=
made_privsep=0

# pids_matching: every process whose command line or executable names the
# temporary directory — the installed ctxbench and its workers, Ansible's
# module wrappers on the "hosts", ssh's connection masters (their title
# names the control socket) — all started by this test, its name being unique.
pids_matching() {
	local p cmd exe
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ "$p" = $$ ] && continue
		cmd=$(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline") || continue
		exe=$(readlink "/proc/$p/exe" 2>/dev/null) || exe=
		case "$cmd $exe" in *"$tmp"*) echo "$p" ;; esac
	done
}

# descendants PID: the processes under PID (sshd's connections and their sessions).
descendants() {
	ps -e -o pid=,ppid= | awk -v root="$1" '
		{ parent[$1] = $2 }
		END { for (p in parent) { q = p; while (q in parent && q != root && q > 1) q = parent[q]; if (q == root && p != root) print p } }'
}

# stop_pids SECONDS PID...: TERM, wait up to SECONDS for them to go, then KILL.
stop_pids() {
	local wait=$1 p left i
	shift
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null || true
	for ((i = 0; i < wait * 10; i++)); do
		left=
		for p in "$@"; do kill -0 "$p" 2>/dev/null && left=1; done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	kill -KILL "$@" 2>/dev/null || true
}

# stop_all: end everything this test started; safe to call more than once.
stop_all() {
	if [ -n "$play_pid" ] && kill -0 "$play_pid" 2>/dev/null; then
		# timeout(1) passes TERM on to ansible-playbook and its process group.
		kill -TERM "$play_pid" 2>/dev/null || true
		wait "$play_pid" 2>/dev/null || true
	fi
	play_pid=
	# ctxbench first, with time to remove its workers, cgroups and servers;
	# then what is left of the test's processes and sshd's sessions; sshd last.
	mapfile -t pids < <(for p in $(pids_matching); do
		case "$(readlink "/proc/$p/exe" 2>/dev/null)" in "$tmp"/*) echo "$p" ;; esac
	done)
	stop_pids 30 "${pids[@]}"
	mapfile -t pids < <({ pids_matching; [ -n "$sshd_pid" ] && descendants "$sshd_pid"; } | grep -vx "${sshd_pid:-none}" | sort -u)
	stop_pids 10 "${pids[@]}"
	if [ -n "$sshd_pid" ]; then
		stop_pids 10 "$sshd_pid"
		wait "$sshd_pid" 2>/dev/null || true
		sshd_pid=
	fi
}

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	stop_all
	[ -d "$tmp" ] && cp "$tmp/sshd.log" "$out/sshd.log" 2>/dev/null || true
	rm -rf "$tmp"
	[ $made_privsep = 1 ] && rmdir /run/sshd 2>/dev/null || true
	[ $rc -eq 0 ] || log "failed after $(($(date +%s) - started)) s; logs in $out"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the two "hosts": one sshd listening on 127.0.0.2 and 127.0.0.3 ---------

# A port free on both addresses (127.0.0.4 uses it too, with nobody there).
port=$(python3 - <<'EOF'
import socket
for _ in range(50):
    a = socket.socket(); a.bind(("127.0.0.2", 0)); port = a.getsockname()[1]
    b = socket.socket()
    try:
        b.bind(("127.0.0.3", port)); print(port); break
    except OSError:
        pass
    finally:
        a.close(); b.close()
EOF
)
[ -n "$port" ] || die "no port free on both 127.0.0.2 and 127.0.0.3"

ssh-keygen -q -t ed25519 -N '' -C ctxbench-fleet-host -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -C ctxbench-fleet-client -f "$tmp/client_key"
cp "$tmp/client_key.pub" "$tmp/authorized_keys"
# sshd's privilege separation directory, made at boot where sshd is a service.
[ -d /run/sshd ] || { mkdir -m 0755 /run/sshd && made_privsep=1; }

# Root by key only, nothing else. StrictModes is off because the key file
# lives under /tmp, world-writable, which StrictModes refuses.
cat >"$tmp/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.2
ListenAddress 127.0.0.3
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
AllowUsers root
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM $use_pam
StrictModes no
X11Forwarding no
MaxStartups 50
MaxSessions 50
Subsystem sftp internal-sftp
LogLevel VERBOSE
EOF
/usr/sbin/sshd -t -f "$tmp/sshd_config" || die "sshd rejects its configuration"
/usr/sbin/sshd -D -f "$tmp/sshd_config" -E "$tmp/sshd.log" &
sshd_pid=$!
for ((i = 0; ; i++)); do
	kill -0 "$sshd_pid" 2>/dev/null || die "sshd exited: $(tail -3 "$tmp/sshd.log")"
	(: </dev/tcp/127.0.0.2/"$port") 2>/dev/null && (: </dev/tcp/127.0.0.3/"$port") 2>/dev/null && break
	[ $i -lt 100 ] || die "sshd is not listening on port $port after 10 s"
	sleep 0.1
done

# The client reads no ssh config and offers only the test's key; host keys
# go to a known_hosts file of the test's own, never ~/.ssh.
ssh_opts="-F /dev/null -o UserKnownHostsFile=$tmp/known_hosts -o StrictHostKeyChecking=accept-new -o IdentitiesOnly=yes -o IdentityAgent=none -o ConnectTimeout=5 -o LogLevel=ERROR"
# shellcheck disable=SC2086 # ssh_opts is a list of words
ssh $ssh_opts -i "$tmp/client_key" -p "$port" -o BatchMode=yes root@127.0.0.2 true ||
	die "ssh root@127.0.0.2 fails: $(tail -5 "$tmp/sshd.log")"
log "sshd on 127.0.0.2 and 127.0.0.3 port $port"

# --- what the hosts install: a binary, and a source archive ------------------

log "building ctxbench (${go_cmd[*]})"
# The same flags as the playbook's build on a host, so that its build reuses
# this one's compiled packages from Go's cache.
"${go_cmd[@]}" build -trimpath -buildvcs=auto -o "$tmp/ctxbench" ./cmd/ctxbench
# The source as checked out, uncommitted changes included, as the binary is
# (outside a git checkout, e.g. an unpacked release: the whole tree).
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -czf "$tmp/src.tar.gz"
else
	tar --exclude=./.git -czf "$tmp/src.tar.gz" .
fi

# One history for the fleet (--store on every host) and the report's
# History section from it (report --history): the features this test
# checks, asserted of the binary it built, never detected and skipped.
"$tmp/ctxbench" --help | grep -q -- '--store' || die "the ctxbench just built has no --store: the fleet's history cannot be tested"
"$tmp/ctxbench" report --help | grep -q -- '--history' || die "the ctxbench just built has no report --history: the fleet's report cannot be tested"
history_vars="ctxbench_store: $tmp/history.db"$'\n'"    ctxbench_report_history: $tmp/history.db"

cat >"$tmp/inventory.yml" <<EOF
all:
  vars:
    ansible_user: root
    ansible_port: $port
    ansible_ssh_private_key_file: $tmp/client_key
    ansible_ssh_common_args: "$ssh_opts"
    ansible_python_interpreter: /usr/bin/python3
    ctxbench_args: --quick
    ctxbench_timeout: $((${FLEET_TIMEOUT:-1800} - 120))
    ctxbench_results_dir: $results
    ctxbench_report_binary: $tmp/ctxbench
    $history_vars
  hosts:
    127.0.0.2:
      node_type: loop-a
      ctxbench_cpus: "0"
      ctxbench_dir: $tmp/hosts/127.0.0.2
      ctxbench_binary: $tmp/ctxbench
    127.0.0.3:
      node_type: loop-b
      ctxbench_cpus: "1"
      ctxbench_dir: $tmp/hosts/127.0.0.3
      ctxbench_install: source
      ctxbench_source_archive: $tmp/src.tar.gz
      ctxbench_go: "${go_cmd[*]}"
    127.0.0.4:
      node_type: loop-a
      ctxbench_dir: $tmp/hosts/127.0.0.4
      ctxbench_binary: $tmp/ctxbench
EOF
cp "$tmp/inventory.yml" "$out/inventory.yml"

# --- the fleet run ------------------------------------------------------------

# Ansible's files stay in the temporary directory: its home, its temporary
# files on both sides and ssh's connection sockets.
export ANSIBLE_CONFIG=$repo/deploy/ansible/ansible.cfg
export ANSIBLE_HOME=$tmp/ansible
export ANSIBLE_LOCAL_TEMP=$tmp/ansible/local
export ANSIBLE_REMOTE_TEMP=$tmp/ansible/remote
export ANSIBLE_SSH_CONTROL_PATH_DIR=$tmp/ansible/cp
export ANSIBLE_NOCOLOR=1
# Ansible's own log has a time on every line: where the run's time went.
export ANSIBLE_LOG_PATH=$out/ansible.log
mkdir -p "$ANSIBLE_LOCAL_TEMP" "$ANSIBLE_SSH_CONTROL_PATH_DIR"

log "ansible-playbook: 3 hosts (one down), ctxbench --quick; log in $out/ansible.log"
play_started=$(date +%s)
# In the background, so that Ctrl-C or TERM reaches this script's trap at
# once (timeout(1) puts the playbook in a process group of its own).
timeout --kill-after=30 "${FLEET_TIMEOUT:-1800}" \
	ansible-playbook -i "$tmp/inventory.yml" "$repo/deploy/ansible/fleet.yml" >"$out/ansible.out" 2>&1 &
play_pid=$!
play_rc=0
wait "$play_pid" || play_rc=$?
play_pid=
play_took=$(($(date +%s) - play_started))
log "ansible-playbook exited $play_rc after $play_took s"

# --- the checks: judged by the summary and the files --------------------------

fail_check() { tail -40 "$out/ansible.out" >&2; die "$*"; }
case $play_rc in 124 | 137) fail_check "the playbook timed out after ${FLEET_TIMEOUT:-1800} s" ;; esac
[ -s "$results/summary.txt" ] || fail_check "no summary at $results/summary.txt"
cat "$results/summary.txt"
grep -Eq '^ok +loop-a/127\.0\.0\.2 +loop-a/127\.0\.0\.2\.json ' "$results/summary.txt" || fail_check "127.0.0.2 not measured"
grep -Eq '^ok +loop-b/127\.0\.0\.3 +loop-b/127\.0\.0\.3\.json ' "$results/summary.txt" || fail_check "127.0.0.3 not measured"
grep -Eq '^failed +loop-a/127\.0\.0\.4 +unreachable: ' "$results/summary.txt" || fail_check "the down host 127.0.0.4 is not named unreachable"
grep -Eq '^report +report\.html$' "$results/summary.txt" || fail_check "the summary has no report"
grep -Eq '^compare +compare\.txt ' "$results/summary.txt" || fail_check "the summary has no comparison"
# The down host must make the run's exit status say so (the playbook's last task).
[ "$play_rc" -ne 0 ] || fail_check "the playbook exited 0 although 127.0.0.4 is down"
[ ! -e "$results/loop-a/127.0.0.4.json" ] || fail_check "a result file for the down host"

# Each file is this run's, from its host's CPU.
for h in loop-a/127.0.0.2:0 loop-b/127.0.0.3:1; do
	f=$results/${h%:*}.json
	python3 - "$f" "${h#*:}" <<'EOF' || fail_check "$f: not this run's result on CPU ${h#*:}"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["settings"]["cpus"] == [int(sys.argv[2])], d["settings"]["cpus"]
assert "--quick" in d["command"] and d["results"], d["command"]
EOF
done
for label in loop-a/127.0.0.2 loop-b/127.0.0.3; do
	grep -q "$label" "$results/report.html" || fail_check "the report does not name $label"
	grep -q "$label" "$results/compare.txt" || fail_check "the comparison does not name $label"
done
# Both hosts recorded their sitting in the one history.
"$tmp/ctxbench" history --store "$tmp/history.db" --color never >"$out/history.txt" 2>&1 ||
	fail_check "ctxbench history on the fleet's store failed: $(tail -3 "$out/history.txt")"
for cpu in 0 1; do
	grep -q "CPUs $cpu\$" "$out/history.txt" || fail_check "the fleet's history has no cell on CPU $cpu: $out/history.txt"
done
grep -q '<section id="history">' "$results/report.html" || fail_check "the report has no History section"

# Nothing of the run may be left: stop what is (there should be nothing but
# sshd and ssh's connection masters), then look again.
stop_all
left=$(pids_matching)
[ -z "$left" ] || die "processes left running: $left"

log "passed in $(($(date +%s) - started)) s (playbook $play_took s); results in $results"
echo "$results/report.html"
