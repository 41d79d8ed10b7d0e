// worker.go: the other end of ProcessExecutor. Every block runs in a
// worker: this binary re-executed with the hidden argument "__worker",
// started with the CPU affinity of its placement, in its own process group.
// A worker that hangs, or whose partner dies, is killed with its whole
// group; nothing of a block survives it. The harness itself never runs
// inside a timed loop.

package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// WorkerArg is the hidden argument that makes the binary run WorkerMain.
const WorkerArg = "__worker"

// ExitStopped is a worker's exit status after the runner stopped it.
const ExitStopped = 3

// WorkerMain runs one block: a model.Request on stdin, a model.Response on
// stdout; lookup finds the benchmark by name, cleanup stops what a block
// started when the worker is asked to stop, probe times the host probe on
// each of the given CPUs (nil: none) — run on the worker's CPUs just before
// and just after the block, outside anything it times. It exits 1 when the
// block failed (the response says why).
func WorkerMain(stdin io.Reader, stdout io.Writer, lookup func(name string) *model.Benchmark, cleanup func(), probe func(cpus []int) []float64) int {
	// A terminal's Ctrl-C goes to the parent only (the worker has its own
	// process group), so a signal here is the runner saying "stop now": the
	// block is cancelled and, at once, what it started is cleaned up
	// (cleanup) — a hung kernel may never return to do it —
	// and the worker exits. The runner kills the group after a grace period.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	go func() {
		<-sig
		cancel()
		if cleanup != nil {
			cleanup()
		}
		os.Exit(ExitStopped)
	}()
	var req model.Request
	if err := json.NewDecoder(stdin).Decode(&req); err != nil {
		return reply(stdout, model.Response{Error: "bad request: " + err.Error()})
	}
	b := lookup(req.Bench)
	if b == nil {
		return reply(stdout, model.Response{Error: fmt.Sprintf("unknown benchmark %q", req.Bench)})
	}
	acct := beginAccount()
	var hp *model.HostProbe
	if probe != nil {
		if cpus, err := host.Of(0); err == nil {
			hp = &model.HostProbe{CPUs: cpus, BeforeNS: probe(cpus)}
		}
	}
	resp, err := b.Run(ctx, req)
	if err != nil {
		resp = model.Response{Error: err.Error()}
	}
	if hp != nil {
		hp.AfterNS = probe(hp.CPUs)
		resp.HostProbe = hp
	}
	resp.Contention = acct.end()
	return reply(stdout, resp)
}

func reply(w io.Writer, r model.Response) int {
	if err := json.NewEncoder(w).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "ctxbench worker:", err)
		return 1
	}
	if r.Error != "" {
		return 1
	}
	return 0
}
