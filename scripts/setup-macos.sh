#!/usr/bin/env bash
# setup-macos.sh: what scripts/setup.sh does on a Mac (it runs this there),
# with Homebrew instead of apt, idempotently. macOS has no containers, KVM,
# BPF or perf to set up (docs/platforms.md, macOS); the C kernels build with
# Apple clang from the Xcode command line tools, which cannot be installed
# unattended, so their absence stops the set-up with the command to run.
# Written for macOS 13+ on Apple silicon and Intel; it has not been run by
# the project (its machine is Linux), only by .github/workflows/platforms.yml
# for whoever hosts that.
set -euo pipefail
what=${1:-test}
cd "$(dirname "$0")/.."

log() { printf 'setup: %s\n' "$*" >&2; }
have() { command -v "$1" >/dev/null 2>&1; }

if ! xcode-select -p >/dev/null 2>&1; then
	log "the Xcode command line tools (clang, the macOS SDK) are missing: run xcode-select --install"
	exit 1
fi
if ! have brew; then
	log "Homebrew is missing (https://brew.sh): it installs the probes' runtimes and the servers"
	exit 1
fi

brew_pkgs=()
want_brew() { # command formula
	have "$1" || brew_pkgs+=("$2")
}
# Runtimes of the ladder's `runtime` rung (the probes under probes/).
want_brew erl erlang
want_brew node node
# /usr/bin/javac is a stub that asks to install a JDK: ask java_home.
/usr/libexec/java_home -v 21+ >/dev/null 2>&1 || brew_pkgs+=(openjdk@21)
if [ "$what" = test ]; then
	want_brew redis-server redis
	compgen -G '/opt/homebrew/opt/postgresql@*/bin/initdb' >/dev/null ||
		compgen -G '/usr/local/opt/postgresql@*/bin/initdb' >/dev/null || brew_pkgs+=(postgresql@17)
fi
if [ ${#brew_pkgs[@]} -gt 0 ]; then
	log "brew install ${brew_pkgs[*]}"
	HOMEBREW_NO_AUTO_UPDATE=1 brew install "${brew_pkgs[@]}" >/tmp/ctxbench-brew.log 2>&1 ||
		{ log "brew install failed, see /tmp/ctxbench-brew.log"; exit 1; }
fi

# The Python probe's greenlet.
if have python3; then
	python3 -c 'import greenlet' 2>/dev/null || { log "pip install greenlet"; python3 -m pip install -q --user greenlet 2>/dev/null || python3 -m pip install -q --user --break-system-packages greenlet; }
fi

# Rust (the tokio and corosensei probes), from rustup into ~/.cargo.
if ! have cargo && [ ! -x "$HOME/.cargo/bin/cargo" ]; then
	log "installing Rust with rustup (https://rustup.rs), minimal profile, into ~/.cargo"
	curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
		sh -s -- -y --profile minimal --no-modify-path >/tmp/ctxbench-rustup.log 2>&1 ||
		{ log "rustup failed, see /tmp/ctxbench-rustup.log"; exit 1; }
fi

go mod download

if [ "$what" = test ]; then
	lint="$(go env GOPATH)/bin/golangci-lint"
	want=2.15.0
	if ! "$lint" version 2>/dev/null | grep -q "version $want"; then
		log "go install golangci-lint v$want"
		go install "github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v$want"
	fi
fi
