#!/usr/bin/env bash
# darwin.sh: what a Linux machine can check of the macOS build (scripts/test.sh
# runs it; docs/platforms.md says what it does not check). For Apple silicon
# (arm64) and Intel Macs (amd64):
#   - the whole tree builds for darwin without cgo, and go vet passes;
#   - golangci-lint passes for darwin (the C kernels' Go side included);
#   - cmd/ctxbench builds with cgo — the C kernels compiled for macOS — through
#     zig cc (pinned, installed by scripts/setup.sh from the Python package
#     registry), and the result is a Mach-O executable for that CPU.
# Nothing built here can run here: running needs a Mac.
#
# Linking with zig needs stand-ins: Go asks the linker for libresolv and
# the CoreFoundation and Security frameworks (crypto/x509 calls them on
# macOS), which zig's macOS SDK stubs do not include. So dynamic libraries
# with the real install names are made for the link, exporting the symbols
# the link asks for — CF* from CoreFoundation, Sec* from Security, read
# from the first link's errors — and the binary then binds to the real ones
# on a Mac (two-level namespace: each symbol by its library). -ldflags=-w
# leaves out DWARF, which would need Apple's dsymutil and strip.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf 'darwin: %s\n' "$*" >&2; }

zig_version=0.17.0
if ! python3 -m ziglang version 2>/dev/null | grep -qx "$zig_version"; then
	log "zig $zig_version is missing (scripts/setup.sh test installs it: pip install ziglang==$zig_version)"
	exit 1
fi

work=$(mktemp -d /tmp/ctxbench-darwin.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/cc" <<'EOF'
#!/bin/sh
exec python3 -m ziglang cc "$@"
EOF
chmod +x "$work/cc"
: >"$work/empty.c"

# The Mach-O header's first eight bytes: the 64-bit magic (cf fa ed fe) and
# the CPU type (arm64 0x0100000c, x86-64 0x01000007), little-endian.
declare -A magic=([arm64]="cf fa ed fe 0c 00 00 01" [amd64]="cf fa ed fe 07 00 00 01")
declare -A target=([arm64]=aarch64-macos [amd64]=x86_64-macos)
lint="$(go env GOPATH)/bin/golangci-lint"

for arch in arm64 amd64; do
	log "$arch: go build ./... and go vet ./... without cgo"
	GOOS=darwin GOARCH=$arch CGO_ENABLED=0 go build ./...
	GOOS=darwin GOARCH=$arch CGO_ENABLED=0 go vet ./...

	cc="$work/cc -target ${target[$arch]}"
	stubs="$work/stubs-$arch"
	mkdir -p "$stubs/CoreFoundation.framework" "$stubs/Security.framework"
	: >"$work/CoreFoundation.c"
	: >"$work/Security.c"
	make_stubs() {
		$cc -shared -o "$stubs/libresolv.dylib" -Wl,-install_name,/usr/lib/libresolv.9.dylib "$work/empty.c"
		for fw in CoreFoundation Security; do
			$cc -shared -o "$stubs/$fw.framework/$fw" \
				-Wl,-install_name,/System/Library/Frameworks/$fw.framework/Versions/A/$fw "$work/$fw.c"
		done
	}
	make_stubs
	export GOOS=darwin GOARCH=$arch CGO_ENABLED=1 CC="$cc" CGO_LDFLAGS="-L$stubs -F$stubs"
	# The first link names the symbols the stand-ins must export.
	if ! go build -ldflags=-w -o "$work/ctxbench-$arch" ./cmd/ctxbench 2>"$work/link.log"; then
		for sym in $(grep -o 'undefined symbol: _[A-Za-z0-9_]*' "$work/link.log" | sed 's/.*: _//' | sort -u); do
			case $sym in
			CF* | kCF*) echo "void $sym(void) {}" >>"$work/CoreFoundation.c" ;;
			Sec* | kSec*) echo "void $sym(void) {}" >>"$work/Security.c" ;;
			*) log "$arch: the link wants $sym, of no library darwin.sh stands in for"; cat "$work/link.log" >&2; exit 1 ;;
			esac
		done
		make_stubs
	fi

	log "$arch: go vet and golangci-lint with cgo (zig cc -target ${target[$arch]})"
	go vet ./...
	"$lint" run ./...

	log "$arch: cmd/ctxbench with cgo, to Mach-O"
	go build -ldflags=-w -o "$work/ctxbench-$arch" ./cmd/ctxbench
	got=$(od -An -tx1 -N8 "$work/ctxbench-$arch" | tr -s ' ' | sed 's/^ //; s/ $//')
	if [ "$got" != "${magic[$arch]}" ]; then
		log "$arch: cmd/ctxbench is not a Mach-O $arch executable (header $got)"
		exit 1
	fi
	unset GOOS GOARCH CGO_ENABLED CC CGO_LDFLAGS
done
log "arm64 and amd64: builds, vet and lint pass; cmd/ctxbench links to Mach-O with the C kernels (not run: that needs a Mac)"
