#!/usr/bin/env bash
# test.sh: set up everything the tests use, check that this machine gives
# what its kind declares, then vet, lint and run every test. Its last line
# lists every test that skipped, and why.
set -euo pipefail
cd "$(dirname "$0")/.."

# What this kind of machine gives, once scripts/setup.sh has run (the
# reference: a 2-vCPU KVM guest whose /dev/kvm is the PVM backend, run as
# root, with BTF, the cpu cgroup controller, PostgreSQL, Redis, Chromium and
# every runtime probe's toolchain). A test that would skip for lack of a
# declared capability fails instead (internal/testenv). Another kind of
# machine declares what it gives, e.g. without KVM or PostgreSQL:
#   CTXBENCH_TEST_CAPS="root cpus2 cgo btf cgroup-cpu userns perf util-linux go amd64 native pinning redis chromium erlang rust java node python cpp" scripts/test.sh
# and a real arm64 machine (Graviton, Ampere; no vm rung there: its guests
# are x86-64 programs), set up the same way:
#   CTXBENCH_TEST_CAPS="root cpus2 cgo btf cgroup-cpu userns perf util-linux go arm64 native pinning postgres redis chromium erlang rust java node python cpp" scripts/test.sh
# (the arm64 checks under qemu-user below run from an x86-64 machine only).
# A Mac (docs/platforms.md, macOS) gives no root-only Linux mechanism,
# perf, BTF, KVM or cgroups; its default is what scripts/setup.sh installs
# there, on its own CPU (arm64 on Apple silicon, amd64 on Intel).
os=$(uname -s)
if [ "$os" = Darwin ]; then
	macarch=arm64
	[ "$(uname -m)" = x86_64 ] && macarch=amd64
	: "${CTXBENCH_TEST_CAPS=cpus2 cgo go $macarch native postgres redis erlang rust java node python cpp}"
fi
: "${CTXBENCH_TEST_CAPS=root cpus2 cgo btf kvm=pvm cgroup-cpu userns perf util-linux go amd64 native pinning postgres redis chromium erlang rust java node python cpp}"
export CTXBENCH_TEST_CAPS
# Every skip appends a line here; the last line of the run sums them up.
CTXBENCH_TEST_SKIPS=$(mktemp /tmp/ctxbench-test-skips.XXXXXX)
export CTXBENCH_TEST_SKIPS
skipped() {
	local status=$? n
	n=$(sort -u "$CTXBENCH_TEST_SKIPS" | grep -c . || true)
	if [ "$n" -eq 0 ]; then
		echo "test.sh: skipped: none"
	else
		echo "test.sh: skipped ($n): $(sort -u "$CTXBENCH_TEST_SKIPS" | paste -sd ';' - | sed 's/;/; /g')"
	fi
	rm -f "$CTXBENCH_TEST_SKIPS"
	exit "$status"
}
trap skipped EXIT

scripts/setup.sh test
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH" # rustup's Rust

# The machine gives what is declared, or the run stops here: one line per
# capability it lacks.
if ! out=$(go test -count=1 -run '^TestDeclaredCapabilities$' ./internal/testenv 2>&1); then
	grep -o 'ctxbench-test: .*' <<<"$out" | sed 's/^ctxbench-test: /test.sh: /' >&2 || printf '%s\n' "$out" >&2
	exit 1
fi

test -z "$(gofmt -l $(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $(git ls-files '*.go'); exit 1; }
go vet ./...
"$(go env GOPATH)/bin/golangci-lint" run ./... # lint, and the layering (depguard, .golangci.yml)
CGO_ENABLED=0 go build ./... # everything but the kernels builds without cgo
if [ "$os" = Darwin ]; then
	# On a Mac: its own tests, no Linux tooling (BPF objects, arm64
	# emulation, the fleet's sshd).
	go test -p 1 -count=1 -timeout 60m ./...
	exit 0
fi
# macOS from this Linux machine: the darwin builds without and with cgo
# (zig cc to Mach-O), vet and lint for darwin (scripts/darwin.sh).
scripts/darwin.sh
# The BPF objects of both architectures are generated from one source and
# committed (internal/bpf/gen.go): regenerated here, each must be what is
# committed, byte for byte.
bpfdir=$(mktemp -d /tmp/ctxbench-bpf.XXXXXX)
cp internal/bpf/hop_*_bpfel.* internal/bpf/attach_*_bpfel.* "$bpfdir"/
go generate ./internal/bpf
for f in "$bpfdir"/*; do
	if ! cmp -s "$f" "internal/bpf/${f##*/}"; then
		cp "$bpfdir"/* internal/bpf/ # the tree as it was
		rm -rf "$bpfdir"
		echo "test.sh: internal/bpf/${f##*/} is not what go generate ./internal/bpf makes of c/*.c: regenerate and commit it" >&2
		exit 1
	fi
done
rm -rf "$bpfdir"
# linux/arm64 from an x86-64 machine (docs/platforms.md): it builds, vets
# and lints here; after the tests, its tests that time nothing and a short
# run, under qemu-user. An arm64 machine runs the whole suite natively.
cross=false
[ "$(uname -m)" = x86_64 ] && cross=true
if $cross; then scripts/arm64-test.sh build; fi
# One package at a time: several packages measure, and two measuring at once
# on a 2-vCPU machine disturb each other (and the leftover checks of each).
go test -p 1 -count=1 -timeout 60m ./...
if $cross; then scripts/arm64-test.sh run; fi
# The fleet playbook, run for real over ssh to this machine (docs/fleet.md);
# its logs and results are kept where it fails, removed where it passes.
fleet_out=$(mktemp -d /tmp/ctxbench-fleet.XXXXXX)
FLEET_OUT=$fleet_out scripts/fleet-test.sh
rm -rf "$fleet_out"
