#!/usr/bin/env bash
# ladder.sh: set up, build and run the default ladder. Arguments go to ctxbench.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh ladder
go build -buildvcs=auto -o ./ctxbench ./cmd/ctxbench # the commit goes into --version and every result, even where GOFLAGS turns stamping off
# Build the runtime probes once, outside the ladder's time budget. A probe
# that cannot build is not fatal: the ladder records it as skipped, with why.
./ctxbench prepare >/dev/null || echo "ladder: some runtime probes could not be built (see 'ctxbench prepare'); the ladder says which" >&2
exec ./ctxbench "$@"
