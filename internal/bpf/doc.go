// Package bpf is the kernel phase tracer's loader: BPF programs on raw
// tracepoints that add up, in the kernel, the time between consecutive
// events on each CPU, and the Go side that loads them, attaches them,
// tracks processes and reads back what they recorded. What the recording
// means — the event kinds, the per-CPU transition matrices, the phase
// models that read them as hops and the analysis of captured hops — is
// internal/phase, which needs no kernel.
//
// # How
//
// Each CPU keeps its last event (kind, time). The next event on that CPU
// adds (now - last) to the cell [last kind][this kind] of a per-CPU
// transition matrix (phase.Matrix): sum, count and a log2 histogram.
// Nothing is streamed to user space; Snapshot reads the matrices at the end
// of a window. Only tracked processes (TGIDs given to Track) contribute; a
// switch to or from an untracked task or the idle task is an event of its
// own kind, and interrupts are nested intervals (see internal/phase for
// what the cells hold and the events, phase.Kind).
//
// # Use
//
//	t, err := bpf.Open(bpf.Options{})    // *MissingError if the machine cannot trace
//	defer t.Close()                      // detaches everything
//	t.Track(pid)                         // processes whose threads count
//	t.Reset()                            // start a recording window
//	... run the hops, pinned to cpu ...
//	s, err := t.Snapshot()               // end the window and read it
//	b := phase.PipeHop(s.CPU(cpu), hops) // phases per hop, closure, gaps
//
// Open checks privileges (root, or CAP_BPF and CAP_PERFMON), the bpf()
// syscall, the kernel's BTF and raw tracepoint support first, and refuses
// with a *MissingError wrapping ErrPrivilege, ErrNoBPF, ErrNoBTF or
// ErrNoRawTracepoint: one line, meant for an exit status of 2. Check runs
// the same checks alone. Nothing is pinned, so the kernel detaches
// everything when the process exits, however it exits.
//
// # Method
//
// Raw tracepoints only (Tracer.Method): they attach by name without
// tracefs, on kernels without fentry or kprobes, such as the reference
// machine's. DetectFeatures says whether a kernel would also allow fentry
// or kprobes; the phase models name, as phase.Gap, the work they cannot
// split with tracepoints and the boundary that would split it (for the
// per-cgroup-level put_prev_entity/set_next_entity of a pick, fentry on
// those functions). Kinds from KIND_COUNT to phase.NumKinds are reserved
// for such finer boundaries.
//
// # Capture
//
// With Options.Capture the programs carry the slow-hop flight recorder
// (c/capture.h, compiled out otherwise): per-CPU rings of segments,
// interrupts and switches, and a hop past the threshold (or one of its
// samples) copied out to a ring buffer or, on older kernels, a perf event
// array. Captured reads them after the window as phase.CapturedHop, which
// phase.SplitHop reads through the hop's model.
//
// The C source is c/hop.bpf.c; the generated Go and object files are
// committed (see gen.go), so building needs no clang.
package bpf
