#!/usr/bin/env bash
# neighbour.sh: a noisy neighbour for testing the tests. One busy loop that
# keeps a CPU busy in bursts of a few seconds, about half the time, as a
# compile beside the tests does (issue: "tests that hold on a busy machine").
#   scripts/neighbour.sh [--cpu N] [--on SECONDS] [--off SECONDS] [-- CMD...]
# With a command, the neighbour runs for the command's whole life and the
# script exits with the command's status; without one it runs until killed.
# --cpu pins the loop (taskset); by default the scheduler places it.
set -euo pipefail
cpu="" on=2 off=2
while [ $# -gt 0 ]; do
	case "$1" in
	--cpu) cpu=$2; shift 2 ;;
	--on) on=$2; shift 2 ;;
	--off) off=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "neighbour.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
# A busy loop for $on seconds, then idle for $off seconds, forever, in a
# session of its own so that one kill of its group ends every part of it.
burst='while :; do timeout "$0" sh -c "while :; do :; done"; sleep "$1"; done'
pin=()
[ -n "$cpu" ] && pin=(taskset -c "$cpu")
setsid "${pin[@]}" bash -c "$burst" "$on" "$off" &
pid=$!
trap 'kill -- -$pid 2>/dev/null || true' EXIT
if [ $# -eq 0 ]; then
	wait "$pid"
else
	"$@"
fi
