package partner

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// A single-threaded side's report reads into its counts and samples; a
// report that says an error, or does not add up, is an error.
func TestParseSide(t *testing.T) {
	out, err := parseSide("ok 10 2 -1 -1 -1 -1 2 500 2 1000 2600 1100 2860\n")
	if err != nil {
		t.Fatal(err)
	}
	if out.A.Voluntary != 10 || out.A.Involuntary != 2 || out.A.PerfSwitches != -1 || out.A.CPUsSeen != 2 || out.A.Ops != 500 ||
		len(out.NS) != 2 || out.NS[1] != 1100 || out.TSC[0] != 2600 || out.B != out.A || out.Rounds != 0 || out.OverheadNS != nil {
		t.Errorf("parsed %+v", out)
	}
	// A ring head adds its rounds per sample, rounds and token, and may
	// add its overheads, four numbers per sample.
	out, err = parseSide("ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 ring 100 500 4000\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.NS) != 1 || out.RoundsPerSample != 100 || out.Rounds != 500 || out.Token != 4000 {
		t.Errorf("parsed %+v", out)
	}
	out, err = parseSide("ok 10 2 -1 -1 -1 -1 2 500 2 1000 2600 1100 2860 ring 100 500 4000 overhead 700 1800 650 1700 710 1820 660 1710\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(out.OverheadNS) != 2 || out.OverheadNS[1] != 710 || out.OverheadTSC[0] != 1800 || out.HotNS[1] != 660 || out.HotTSC[1] != 1710 {
		t.Errorf("parsed %+v", out)
	}
	for _, bad := range []string{"error partner closed the pipe\n", "ok 1 2 3\n", "ok 1 2 -1 -1 -1 -1 2 500 2 1000\n", "hello\n",
		"ok x 2 -1 -1 -1 -1 2 500 0\n", "ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 ring 100 500\n",
		"ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 rung 100 500 4000\n", "ok 10 2 -1 -1 -1 -1 2 500 -1\n",
		"ok 10 2 -1 -1 -1 -1 2 500 0 ring x 1 2\n",
		"ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 ring 100 500 4000 overhead 700 1800 650\n",
		"ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 ring 100 500 4000 overhead 700 1800 650 1700 1\n",
		"ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 ring 100 500 4000 overheads 700 1800 650 1700\n",
		"ok 10 2 -1 -1 -1 -1 2 500 1 1000 2600 extra\n"} {
		if _, err := parseSide(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("a multi-line error for %q", bad)
		}
	}
}

// A single-threaded side's request is its environment: the block, a ring
// head's parameters, and a container's self-applied part encoded as st.c
// reads it (the filter as little-endian struct sock_filter bytes).
func TestSideEnv(t *testing.T) {
	s := Spec{Request: Request{Block: kernels.Block{Iters: 0, Samples: 3, CPUA: 1, CPUB: -1, Arg: 4096}},
		SingleThreaded: "ring-head", Ring: &RingHead{Tasks: 8, MinSampleNS: 2e6, IPC: kernels.RingEventfd, Overhead: true},
		Confine: &container.SelfApplied{DropCaps: true, KeepCaps: 0xa80425fb, LastCap: 40,
			Seccomp: []container.Filter{{Code: 0x20, K: 4}, {Code: 0x15, Jt: 1, Jf: 2, K: 0xc000003e}}}}
	env := strings.Join(stEnv(s), " ")
	for _, want := range []string{"CTXBENCH_ST=ring-head", "CTXBENCH_ST_ITERS=0", "CTXBENCH_ST_SAMPLES=3", "CTXBENCH_ST_CPU_A=1",
		"CTXBENCH_ST_CPU_B=-1", "CTXBENCH_ST_ARG=4096", "CTXBENCH_ST_RING_N=8", "CTXBENCH_ST_RING_MIN_NS=2000000",
		"CTXBENCH_ST_RING_IPC=1", "CTXBENCH_ST_RING_OVERHEAD=1", "CTXBENCH_ST_CAPS=a80425fb:40",
		"CTXBENCH_ST_SECCOMP=20000000040000001500010" + "23e0000c0"} {
		if !strings.Contains(env, want) {
			t.Errorf("environment lacks %s: %s", want, env)
		}
	}
	plain := strings.Join(stEnv(Spec{SingleThreaded: "pipe-a"}), " ")
	if strings.Contains(plain, "CAPS") || strings.Contains(plain, "SECCOMP") || strings.Contains(plain, "RING") {
		t.Errorf("a plain side asks for more than its block: %s", plain)
	}
}
