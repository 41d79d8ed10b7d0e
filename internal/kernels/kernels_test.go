//go:build cgo && linux

package kernels

import (
	"runtime"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host/counter"
)

// Each in-process kernel runs a small block and reports the counts the
// harness relies on: one sample per requested sample, ops as requested, and
// for two-sided kernels the partner's ops equal to side A's.
func TestInProcessKernels(t *testing.T) {
	last := runtime.NumCPU() - 1
	cases := []struct {
		k       Kernel
		cpuB    int
		twoSide bool
	}{
		{FloorAsm, -1, true},
		{FloorSwapcontext, -1, true},
		{ThreadPipe, last, true},
		{ThreadEventfd, last, true},
		{ThreadFutex, last, true},
		{ThreadFutexSpin, last, true},
		{RefSyscall, -1, false},
		{RefMutex, -1, false},
		{RefAtomic, -1, false},
		{RefPipeSelf, -1, false},
	}
	for _, c := range cases {
		t.Run(string(c.k), func(t *testing.T) {
			blk := Block{Iters: 200, Samples: 4, Warmup: 1, CPUA: last, CPUB: c.cpuB}
			out, err := Run(c.k, blk)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.NS) != 4 || len(out.TSC) != 4 {
				t.Fatalf("got %d/%d samples, want 4", len(out.NS), len(out.TSC))
			}
			for i, ns := range out.NS {
				if ns == 0 {
					t.Errorf("sample %d is zero", i)
				}
				// The C kernels read the counter internal/host/counter
				// names (clock.h): a zero where there is one is a clock
				// not read.
				if counter.Name() != "" && out.TSC[i] == 0 {
					t.Errorf("sample %d: no %s ticks", i, counter.Name())
				}
			}
			if want := uint64(5 * 200); out.A.Ops != want {
				t.Errorf("side A ops = %d, want %d", out.A.Ops, want)
			}
			if c.twoSide && out.B.Ops != out.A.Ops {
				t.Errorf("side B ops = %d, want %d (one echo per round trip)", out.B.Ops, out.A.Ops)
			}
			if out.A.CPUsSeen != 1<<uint(last) {
				t.Errorf("side A ran on CPU mask %b, pinned to CPU %d", out.A.CPUsSeen, last)
			}
		})
	}
}

// On one CPU a blocking pipe ping-pong switches once per hop: 2 per round
// trip over both sides. The margin is wide: a stray kernel thread preempting
// either side adds involuntary switches.
func TestThreadPipeSwitchesPerHop(t *testing.T) {
	cpu := runtime.NumCPU() - 1
	for _, k := range []Kernel{ThreadPipe, ThreadEventfd} {
		out, err := Run(k, Block{Iters: 2000, Samples: 5, Warmup: 1, CPUA: cpu, CPUB: cpu})
		if err != nil {
			t.Fatal(err)
		}
		hops := float64(out.A.Ops * 2)
		perHop := float64(out.A.Switches()+out.B.Switches()) / hops
		if perHop < 0.8 || perHop > 1.2 {
			t.Fatalf("%s: switches per hop = %.3f (A %+v, B %+v), want about 1", k, perHop, out.A, out.B)
		}
	}
}

func TestRunRejectsEmptyBlock(t *testing.T) {
	if _, err := Run(RefAtomic, Block{Iters: 0, Samples: 1}); err == nil {
		t.Fatal("a block with zero iterations was accepted")
	}
	if _, err := Run(Kernel("nope"), Block{Iters: 1, Samples: 1}); err == nil {
		t.Fatal("an unknown kernel was accepted")
	}
}
