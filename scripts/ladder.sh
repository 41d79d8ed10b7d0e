#!/usr/bin/env bash
# ladder.sh: set up, build and run the default ladder. Arguments go to ctxbench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh ladder
go build -o ./ctxbench ./cmd/ctxbench
./ctxbench prepare >/dev/null # build the runtime probes once, outside the ladder's time budget
exec ./ctxbench "$@"
