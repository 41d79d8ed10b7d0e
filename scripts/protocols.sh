#!/usr/bin/env bash
# protocols.sh: the checks behind docs/methodology.md's claims that the
# default sampling is faithful (it reads what back-to-back blocks and the
# classic tools read) and sharp (compare sees the changes a user needs to
# see, and no others). Each protocol alternates its conditions so that
# the host's drift reaches both alike, writes every result file under OUT,
# and prints one verdict line a check.
#
#   scripts/protocols.sh pacing  OUT [PAIRS]   default run vs --span 0s (no cell above by > 1%)
#   scripts/protocols.sh perf    OUT [ROUNDS]  run process/pipe vs perf bench sched pipe (ratio <= 1.01)
#   scripts/protocols.sh latctx  OUT [ROUNDS]  process ring vs lmbench lat_ctx (LAT_CTX=path; ratio <= 1.02)
#   scripts/protocols.sh repro   OUT [RUNS]    aa, then RUNS invocations: coverage, false changes,
#                                              relabelled differences found, interval width, aa's promise
#   scripts/protocols.sh builds  OUT [PAIRS]   two builds of identical code alternating
#   scripts/protocols.sh ab      OUT           interleaved A/A and an A/B of a known cost
#
# It measures (minutes each); run it on a machine doing nothing else.
# CTXBENCH names the binary (default: built from this tree into OUT); CPU
# the CPU the same-CPU cells use (default 1). lmbench is not built here:
# LAT_CTX must name a lat_ctx binary you built from its public source.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: scripts/protocols.sh pacing|perf|latctx|repro|builds|ab OUT [N]}
out=${2:?an output directory}
n=${3:-}
cpu=${CPU:-1}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=${CTXBENCH:-}
if [ -z "$bin" ]; then
	go build -o "$out/ctxbench" ./cmd/ctxbench
	bin=$out/ctxbench
fi
cells3="thread/pipe process/pipe thread/futex"
# The cells of the reproducibility protocol: the three above and a ladder of
# container cells a few per cent apart, for differences of graded size.
cells8="$cells3 container/pipe-plain container/pipe-ns container/pipe-seccomp-allow container/pipe-seccomp-args container/pipe-cg1 container/pipe-cg2 container/pipe-cg4"
shuffle() { python3 -c 'import random,sys; l=sys.argv[1:]; random.shuffle(l); print(" ".join(l))' "$@"; }

case $what in
pacing)
	for r in $(seq 1 "${n:-7}"); do
		for k in $(shuffle paced b2b); do
			span=()
			[ "$k" = b2b ] && span=(--span 0s)
			"$bin" run $cells3 --placement same-cpu --cpus "$cpu" --no-history -q "${span[@]}" --export-json "$out/$k-$r.json" >/dev/null
		done
	done
	;;
perf)
	for r in $(seq 1 "${n:-8}"); do
		for k in $(shuffle ctxbench perf); do
			if [ "$k" = perf ]; then
				# As long as the run measured: its blocks' samples, about 10 s.
				taskset -c "$cpu" perf bench sched pipe -l 2000000 >"$out/perf-$r.txt" 2>&1
			else
				"$bin" run process/pipe --placement same-cpu --cpus "$cpu" --no-history -q --export-json "$out/ctxbench-$r.json" >/dev/null
			fi
		done
	done
	;;
latctx)
	[ -x "${LAT_CTX:-}" ] || { echo "protocols: LAT_CTX must name a lat_ctx binary (lmbench, built from its public source)" >&2; exit 2; }
	for r in $(seq 1 "${n:-8}"); do
		for k in $(shuffle ring lat); do
			if [ "$k" = lat ]; then
				taskset -c "$cpu" "$LAT_CTX" -N 5 -s 0 2 8 >"$out/lat-$r.txt" 2>&1
			else
				"$bin" ring --kind process --tasks 2,8 --working-set 0 --cpus "$cpu" -q --export-json "$out/ring-$r.json" >/dev/null
			fi
		done
	done
	;;
repro)
	store=$out/history.db
	"$bin" aa $cells8 --placement same-cpu --cpus "$cpu" --sittings 10 --store "$store" -q --export-json "$out/aa.json" >/dev/null
	for r in $(seq 1 "${n:-10}"); do
		"$bin" run $cells8 --placement same-cpu --cpus "$cpu" --store "$store" -q --export-json "$out/run-$r.json" >/dev/null
	done
	;;
builds)
	# Two builds of the code at HEAD: the second from a commit that adds
	# nothing, so its fingerprint (the build under test) differs.
	wt=$(mktemp -d)
	trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
	git worktree add -q --detach "$wt" HEAD
	git -C "$wt" -c user.name=protocols -c user.email=protocols@localhost commit -q --allow-empty -m "protocols: an identical build"
	(cd "$wt" && go build -o "$out/ctxbench-b" ./cmd/ctxbench)
	"$bin" aa $cells3 --placement same-cpu --cpus "$cpu" --sittings 6 --store "$out/history.db" -q --export-json "$out/aa.json" >/dev/null
	for r in $(seq 1 "${n:-6}"); do
		for k in $(shuffle a b); do
			b=$bin
			[ "$k" = b ] && b=$out/ctxbench-b
			"$b" run $cells3 --placement same-cpu --cpus "$cpu" --store "$out/history.db" -q --export-json "$out/$k-$r.json" >/dev/null
		done
	done
	;;
ab)
	"$bin" ab $cells3 --placement same-cpu --cpus "$cpu" --setup-a true --setup-b true -q --export-json "$out/aa-interleaved.json" >/dev/null
	tr=/sys/kernel/tracing
	[ -d $tr/events ] || mount -t tracefs nodev $tr
	ev=$tr/events/sched/sched_switch/enable
	"$bin" ab $cells3 --placement same-cpu --cpus "$cpu" --setup-a "echo 0 > $ev" --setup-b "echo 1 > $ev" --cleanup "echo 0 > $ev" -q --export-json "$out/ab-tracepoint.json" >/dev/null
	;;
*)
	echo "protocols: unknown protocol $what" >&2
	exit 2
	;;
esac
python3 scripts/protocols.py "$what" "$out"
