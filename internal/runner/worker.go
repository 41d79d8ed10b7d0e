// Package runner orchestrates measurements: it plans the cells (benchmark ×
// placement), calibrates how many ops make a sample, runs blocks of samples
// in worker processes, interleaves the cells, enforces a watchdog, and turns
// what the blocks counted into results with verified switch counts.
//
// Every block runs in a worker: this binary re-executed with the hidden
// argument "__worker", started with the CPU affinity of its placement, in its
// own process group. A worker that hangs, or whose partner dies, is killed
// with its whole group; nothing of a block survives it. The harness itself
// never runs inside a timed loop.
package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctxbench/ctxbench/internal/bench"
)

// WorkerArg is the hidden argument that makes the binary run WorkerMain.
const WorkerArg = "__worker"

// ExitStopped is a worker's exit status after the runner stopped it.
const ExitStopped = 3

// WorkerMain runs one block: a bench.Request on stdin, a bench.Response on
// stdout. It exits 1 when the block failed (the response says why).
func WorkerMain(stdin io.Reader, stdout io.Writer) int {
	// A terminal's Ctrl-C goes to the parent only (the worker has its own
	// process group), so a signal here is the runner saying "stop now": the
	// block is cancelled and, at once, what it started is cleaned up
	// (bench.WorkerCleanups) — a hung kernel may never return to do it —
	// and the worker exits. The runner kills the group after a grace period.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	go func() {
		<-sig
		cancel()
		for _, f := range bench.WorkerCleanups {
			f()
		}
		os.Exit(ExitStopped)
	}()
	var req bench.Request
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return reply(stdout, bench.Response{Error: "bad request: " + err.Error()})
	}
	b := bench.Lookup(req.Bench)
	if b == nil {
		return reply(stdout, bench.Response{Error: fmt.Sprintf("unknown benchmark %q", req.Bench)})
	}
	resp, err := b.Run(ctx, req)
	if err != nil {
		resp = bench.Response{Error: err.Error()}
	}
	return reply(stdout, resp)
}

func reply(w io.Writer, r bench.Response) int {
	if err := json.NewEncoder(w).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "ctxbench worker:", err)
		return 1
	}
	if r.Error != "" {
		return 1
	}
	return 0
}
