// Package probes carries the source of the runtime-rung probes: one small program per
// language that times its own runtime's switch and prints the ctxbench-probe/1 line format
// (docs/probes.md). The sources are embedded so an installed ctxbench binary can build them
// on the machine it runs on; internal/probe extracts, builds, caches and runs them.
package probes

import "embed"

// FS holds every probe's source, under its language's directory.
//
//go:embed erlang/ctxbench_probe.erl
//go:embed rust/Cargo.toml rust/Cargo.lock rust/src/main.rs
//go:embed java/Probe.java
//go:embed node/probe.cjs
//go:embed python/probe.py
//go:embed cpp/probe.cpp
var FS embed.FS
