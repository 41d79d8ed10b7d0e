#!/usr/bin/env bash
# arm64-test.sh: what the test command checks of linux/arm64 from an x86-64
# machine (docs/platforms.md). scripts/setup.sh test installs the cross
# compiler and qemu-user and registers qemu-aarch64 with binfmt_misc.
#
#   scripts/arm64-test.sh build  build for arm64 with cgo and without, vet
#                                and lint for arm64 (an x86-only change
#                                fails here)
#   scripts/arm64-test.sh run    the tests that time nothing, under
#                                qemu-aarch64-static; then ctxbench list,
#                                env, a short run of the floor, goroutine,
#                                thread and process rungs, and explain
#                                --dry-run, emulated, and what they say
#                                checked
#
# Under qemu-user nothing is a machine's figure: the run must finish, label
# what it measured, name the counter and its rate, say it ran emulated, and
# leave the history untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: scripts/arm64-test.sh build|run}

export GOARCH=arm64 CC=aarch64-linux-gnu-gcc
# Where qemu-user finds arm64's dynamic loader and C library (the cgo build
# links them); children re-executed through binfmt_misc inherit it.
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
lint="$(go env GOPATH)/bin/golangci-lint"

case "$what" in
build)
	CGO_ENABLED=1 go build ./...
	CGO_ENABLED=0 go build ./...
	CGO_ENABLED=1 go vet ./...
	CGO_ENABLED=1 "$lint" run ./... # depguard's layering holds on arm64 too
	;;
run)
	tmp=$(mktemp -d /tmp/ctxbench-arm64.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	export CGO_ENABLED=1

	# Every package whose tests time nothing runs emulated. Left out, those
	# that run ctxbench, its servers or the runtimes' toolchains end to end:
	# they measure for real (minutes under the emulator), and the host's
	# PostgreSQL, Redis and toolchains are x86-64's, not arm64's; the
	# emulated ctxbench commands below take that path instead.
	#   cmd/ctxbench, internal/cli      the commands end to end, measuring
	#   internal/experiment/ring        real rings of every kind, end to end
	#   internal/memory                 memory and creation of real contexts
	#   internal/probe                  the runtime probes, built by the host
	#   internal/workload/{pgserver,redisserver,pool}   the host's servers
	out='^github.com/ctxbench/ctxbench/(cmd/ctxbench|internal/cli|internal/experiment/ring|internal/memory|internal/probe|internal/workload/(pgserver|redisserver|pool))$'
	mapfile -t pkgs < <(go list ./... | grep -Ev "$out")
	# What an emulated arm64 gives; the rest (native: a real kernel process
	# model; amd64; BTF, perf and KVM, which qemu-user does not pass
	# through; the probes' toolchains) is summed up in one line below.
	skips=$tmp/skips
	: >"$skips"
	CTXBENCH_TEST_CAPS="root cpus2 cgo go util-linux arm64" CTXBENCH_TEST_SKIPS=$skips \
		go test -p 1 -count=1 -timeout 30m -exec qemu-aarch64-static "${pkgs[@]}"
	n=$(sort -u "$skips" | grep -c . || true)
	echo "arm64-test.sh: emulated tests skipped ($n, for what qemu-user cannot give): $(sort -u "$skips" | paste -sd ';' | sed 's/;/; /g')"

	bin=$tmp/ctxbench
	go build -o "$bin" ./cmd/ctxbench
	export CTXBENCH_HISTORY=$tmp/history.db
	"$bin" list --format json >"$tmp/list.json"
	"$bin" env --format json >"$tmp/env.json"
	"$bin" run floor goroutine thread process --quick --runs 2 --wide --export-json "$tmp/run.json" >"$tmp/run.txt"
	"$bin" explain thread/pipe --dry-run --quick -q --export-json "$tmp/explain.json"
	python3 - "$tmp" <<'EOF'
import json, os, sys
tmp = sys.argv[1]
bad = []
def check(ok, what):
    if not ok:
        bad.append(what)
lst = {b["name"]: b for b in json.load(open(tmp + "/list.json"))}
for name, b in lst.items():
    check(b["available"] or (b["reason"] and "\n" not in b["reason"]), f"list: {name} unavailable without a one-line reason")
    if name.split("/")[0] in ("floor", "goroutine", "thread"):
        check(b["available"], f"list: {name} unavailable emulated: {b['reason']}")
    if name.startswith("vm/"):
        check(not b["available"] and "x86-64" in b["reason"], f"list: {name}: {b['reason']!r}")
check(lst["floor/asm-swap"]["available"], "list: the arm64 floor swap is missing")
for doc, where in ((json.load(open(tmp + "/env.json")), "env"), (json.load(open(tmp + "/run.json"))["environment"], "run")):
    tsc = doc["cpu"]["tsc"]
    check(doc["arch"] == "arm64", f"{where}: arch {doc['arch']}")
    check(tsc.get("counter") == "CNTVCT_EL0" and tsc.get("hz", 0) > 0, f"{where}: counter {tsc}")
    check(doc["virtualization"].get("emulated") == "qemu-user", f"{where}: not said emulated: {doc['virtualization']}")
    check("emulated" in [w["code"] for w in doc["warnings"]], f"{where}: no emulated warning")
run = json.load(open(tmp + "/run.json"))
rungs = {r["rung"] for r in run["results"]}
check({"floor", "goroutine", "thread", "process"} <= rungs, f"run: rungs measured {sorted(rungs)}")
for r in run["results"]:
    check(r["label"] and "emulated by qemu-user" in r["label"], f"run: {r['name']} {r['placement']} label {r['label']!r}")
    check(r["one_way_ns"]["median"] > 0 and r["samples"], f"run: {r['name']} {r['placement']} has no figure")
floor = [r for r in run["results"] if r["name"] == "floor/asm-swap"]
check(floor and "counter-resolution" in [w["code"] for w in floor[0].get("warnings") or []], "run: the floor does not state the counter's resolution")
h = run.get("history") or {}
check(not h.get("recorded") and "emulated" in h.get("note", ""), f"run: the history was used: {h}")
text = " ".join(open(tmp + "/run.txt").read().split())
for want in ("emulated by qemu-user", "CNTVCT TICKS", "ticks of CNTVCT_EL0", "MHz"):
    check(want in text, f"run's table does not say {want!r}")
check(not os.path.exists(tmp + "/history.db"), "history: the emulated run opened the machine's history")
check(json.load(open(tmp + "/explain.json"))["results"], "explain --dry-run: no rows")
for b in bad:
    print("arm64-test.sh: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF
	echo "arm64-test.sh: emulated list, env, run (floor, goroutine, thread, process) and explain --dry-run say what they should"
	;;
*)
	echo "arm64-test.sh: unknown step $what (build or run)" >&2
	exit 2
	;;
esac
