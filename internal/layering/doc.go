// Package layering holds no code: its test walks the import graph of the
// lower layers (go list -deps) and fails when one of them reaches, through
// any chain of imports, a package above it or beside it. depguard
// (.golangci.yml) checks each file's direct imports; this checks what they
// bring with them, so an arrow that runs back up through a third package
// cannot hide. The layers are drawn in docs/architecture.md. A second test
// reads the production code itself: nothing may tell a fake (a dry run's
// executor) from the real thing by its type. A third checks that
// internal/phase, the reader of what the BPF tracer recorded, reaches
// nothing that loads BPF, on any platform.
package layering
