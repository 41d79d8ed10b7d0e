package ringproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/partner"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// TestMain makes the test binary the partner the ring re-executes (this
// binary, as ctxbench's own is in a real run): a member or, single-
// threaded, a side st.c takes over before Go starts.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == partner.Arg {
		os.Exit(partner.Main(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// fds counts this process's open descriptors.
func fds(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/dev/fd") // /proc/self/fd on Linux; the same on macOS
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// A ring's links take the descriptors LinkFDs says; handing a member its
// ends drops this process's, and closeAll leaves none behind.
func TestLinksHandOverAndClose(t *testing.T) {
	if emu, _ := host.Emulation(""); emu != "" {
		testenv.Skip(t, testenv.Native, "emulated by %s, whose own descriptors share the process's table and move the count", emu)
	}
	for _, ipc := range []kernels.RingIPC{kernels.RingPipe, kernels.RingEventfd} {
		before := fds(t)
		l := links{ipc: ipc}
		const n = 5
		if err := l.open(n); err != nil {
			t.Fatal(err)
		}
		if got, want := fds(t)-before, n*int(LinkFDs(ipc)); got != want {
			t.Errorf("%s: %d descriptors for %d links, want %d", ipc, got, n, want)
		}
		l.handedOver(1)
		l.handedOver(2)
		if ipc == kernels.RingPipe && fds(t)-before != 2*n-4 {
			t.Errorf("pipes: after two members took their ends, %d descriptors left, want %d", fds(t)-before, 2*n-4)
		}
		if ipc == kernels.RingEventfd && fds(t)-before != n-1 {
			t.Errorf("eventfds: after two members took their ends, %d descriptors left, want %d (the link both hold is dropped)", fds(t)-before, n-1)
		}
		l.closeAll()
		l.closeAll() // twice is harmless
		if got := fds(t); got != before {
			t.Errorf("%s: %d descriptors after closeAll, %d before", ipc, got, before)
		}
	}
}

// A failure to create part of the ring keeps its cause in the chain (the
// errno is still errors.Is-able), records the errno, and names the limit.
func TestLimitedKeepsTheCause(t *testing.T) {
	cause := fmt.Errorf("creating link 3 of 9: %w", unix.EMFILE)
	out, _, err := limited(cause)
	if !errors.Is(err, unix.EMFILE) || !errors.Is(err, cause) {
		t.Errorf("%v: the cause is lost", err)
	}
	if out.Errno != int(unix.EMFILE) || errnoOf(err) != int(unix.EMFILE) {
		t.Errorf("errno %d, errnoOf %d, want EMFILE", out.Errno, errnoOf(err))
	}
	if !strings.Contains(err.Error(), "creating link 3 of 9") || len(err.Error()) <= len(cause.Error()) {
		t.Errorf("%q: want the cause and the limit's hint", err)
	}
	if errnoOf(errors.New("no errno")) != 0 {
		t.Error("an error without an errno has one")
	}
}

// A small ring of processes runs: every member passes the token once per
// round, the head times the samples and the one-context overheads, and no
// member is left when Run returns. Structure only: no time is asserted.
func TestRingOfProcessesRuns(t *testing.T) {
	if !kernels.Built {
		testenv.Skip(t, testenv.Cgo, "the ring kernels are C")
	}
	cpu := runtime.NumCPU() - 1
	for _, st := range []bool{false, true} {
		for _, ipc := range []kernels.RingIPC{kernels.RingPipe, kernels.RingEventfd} {
			t.Run(fmt.Sprintf("single-threaded=%v %s", st, ipc), func(t *testing.T) {
				if emu, _ := host.Emulation(""); st && emu != "" {
					testenv.Skip(t, testenv.Native, "emulated by %s, which runs a thread of its own in every process", emu)
				}
				const tasks, samples = 4, 3
				cfg := Config{
					Ring:           kernels.RingConfig{Tasks: tasks, IPC: ipc},
					Block:          kernels.Block{Iters: 200, Samples: samples, Warmup: 1, CPUA: cpu, CPUB: cpu},
					SingleThreaded: st,
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				out, c, err := Run(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if c.Members != 0 || c.Label != "" {
					t.Errorf("containers %+v without a container", c)
				}
				if len(out.NS) != samples || len(out.OverheadNS) != samples {
					t.Errorf("%d samples and %d overheads, want %d each", len(out.NS), len(out.OverheadNS), samples)
				}
				if out.MinPasses != out.MaxPasses || out.Passes != (tasks-1)*out.MinPasses || out.MinPasses == 0 {
					t.Errorf("passes %d (min %d, max %d): every one of the %d members passes once per round", out.Passes, out.MinPasses, out.MaxPasses, tasks-1)
				}
				if out.B.CPUsSeen != 1<<uint(cpu) {
					t.Errorf("members seen on CPUs %b, pinned to %d", out.B.CPUsSeen, cpu)
				}
				deadline := time.Now().Add(5 * time.Second)
				for len(children(t)) > 0 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if left := children(t); len(left) > 0 {
					t.Errorf("members left: %v", left)
				}
			})
		}
	}
}

// A ring that cannot start its members says which and why, with the cause
// in the chain: here the context is cancelled before the ring starts.
func TestRingCancelledLeavesNothing(t *testing.T) {
	if !kernels.Built {
		testenv.Skip(t, testenv.Cgo, "the ring kernels are C")
	}
	before := fds(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Run(ctx, Config{Ring: kernels.RingConfig{Tasks: 3, IPC: kernels.RingPipe},
		Block: kernels.Block{Iters: 100, Samples: 2, CPUA: -1, CPUB: -1}})
	if err == nil {
		t.Fatal("a cancelled ring ran")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v: the cancellation is not in the chain", err)
	}
	time.Sleep(100 * time.Millisecond)
	if left := children(t); len(left) > 0 {
		t.Errorf("members left: %v", left)
	}
	if got := fds(t); got != before {
		t.Errorf("%d descriptors after the run, %d before", got, before)
	}
}
