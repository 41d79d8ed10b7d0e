#!/usr/bin/env bash
# test.sh: set up everything the tests use, then vet, lint and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
test -z "$(gofmt -l $(git ls-files '*.go'))" || { echo "gofmt would change:"; gofmt -l $(git ls-files '*.go'); exit 1; }
go vet ./...
"$(go env GOPATH)/bin/golangci-lint" run ./... # lint, and the layering (depguard, .golangci.yml)
CGO_ENABLED=0 go build ./... # everything but the kernels builds without cgo
# One package at a time: several packages measure, and two measuring at once
# on a 2-vCPU machine disturb each other (and the leftover checks of each).
go test -p 1 -count=1 -timeout 60m ./...
scripts/fleet-test.sh # the fleet playbook, run for real over ssh to this machine (docs/fleet.md)
