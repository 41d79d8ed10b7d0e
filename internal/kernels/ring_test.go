//go:build cgo && linux

package kernels

import (
	"os"
	"runtime"
	"sync"
	"testing"
)

// checkRing asserts the counts every ring kind must get exactly right: the
// token counted tasks x rounds hops, every member passed it once per round,
// and the samples and overheads are all there.
func checkRing(t *testing.T, out RingOutput, tasks, samples, warmup int, overhead bool) {
	t.Helper()
	if len(out.NS) != samples || len(out.TSC) != samples {
		t.Fatalf("got %d/%d samples, want %d", len(out.NS), len(out.TSC), samples)
	}
	for i, v := range out.NS {
		if v == 0 {
			t.Errorf("sample %d is zero", i)
		}
	}
	if out.RoundsPerSample == 0 {
		t.Fatal("no rounds per sample")
	}
	if least := uint64(samples+warmup) * out.RoundsPerSample; out.Rounds < least {
		t.Errorf("head made %d rounds, fewer than the %d its samples need", out.Rounds, least)
	}
	if out.Token != uint64(tasks)*out.Rounds {
		t.Errorf("token counted %d hops, want %d x %d", out.Token, tasks, out.Rounds)
	}
	if out.Passes != uint64(tasks-1)*out.Rounds {
		t.Errorf("members passed %d times, want %d x %d", out.Passes, tasks-1, out.Rounds)
	}
	if tasks > 1 && (out.MinPasses != out.Rounds || out.MaxPasses != out.Rounds) {
		t.Errorf("member passes range %d..%d, want each %d", out.MinPasses, out.MaxPasses, out.Rounds)
	}
	if out.A.Ops != out.Rounds {
		t.Errorf("head ops %d, rounds %d", out.A.Ops, out.Rounds)
	}
	if overhead {
		if len(out.OverheadNS) != samples || len(out.HotNS) != samples {
			t.Fatalf("overhead samples %d/%d, want %d", len(out.OverheadNS), len(out.HotNS), samples)
		}
		for i := range out.OverheadNS {
			if out.OverheadNS[i] == 0 || out.HotNS[i] == 0 {
				t.Errorf("overhead sample %d is zero", i)
			}
		}
	}
}

func TestRingThreadsCounts(t *testing.T) {
	cpu := runtime.NumCPU() - 1
	for _, c := range []struct {
		tasks int
		ws    int64
		iters uint64
		ipc   RingIPC
	}{{2, 0, 50, RingPipe}, {7, 4096, 20, RingPipe}, {33, 0, 0, RingPipe}, {1, 64, 10, RingPipe}, {9, 64, 0, RingEventfd}, {2, 0, 30, RingEventfd}} {
		blk := Block{Iters: c.iters, Samples: 3, Warmup: 1, CPUA: cpu, CPUB: cpu}
		out, err := RingThreads(blk, RingConfig{Tasks: c.tasks, WorkingSet: c.ws, StackBytes: 64 << 10, MinSampleNS: 200_000, Overhead: true, IPC: c.ipc})
		if err != nil {
			t.Fatalf("%d tasks: %v", c.tasks, err)
		}
		checkRing(t, out, c.tasks, 3, 1, true)
		if c.iters != 0 && out.RoundsPerSample != c.iters {
			t.Errorf("rounds per sample %d, asked %d", out.RoundsPerSample, c.iters)
		}
		if c.iters != 0 && out.Rounds != 4*c.iters {
			t.Errorf("rounds %d, want exactly %d without calibration", out.Rounds, 4*c.iters)
		}
		// On one CPU every hop is a blocking handoff: at least one switch
		// per hop among all members (preemptions may add some).
		if c.tasks > 1 {
			sw := float64(out.A.Switches()+out.B.Switches()) / float64(out.Token)
			if sw < 0.9 || sw > 3 {
				t.Errorf("%d tasks: %.2f switches per hop", c.tasks, sw)
			}
		}
	}
}

func TestRingGoCounts(t *testing.T) {
	for _, tasks := range []int{1, 2, 5, 1000} {
		out, err := RingGo(Block{Samples: 3, Warmup: 1}, RingConfig{Tasks: tasks, WorkingSet: 64, MinSampleNS: 200_000, Overhead: true})
		if err != nil {
			t.Fatalf("%d tasks: %v", tasks, err)
		}
		checkRing(t, out, tasks, 3, 1, true)
	}
}

// The process ring's two kernels, with the members run as threads of this
// process on the same descriptors: the head and member logic that partner
// processes run, checked without starting any.
func TestRingHeadAndMembers(t *testing.T) {
	const tasks = 4
	var r, w [tasks]*os.File
	for i := range r {
		var err error
		if r[i], w[i], err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
		defer r[i].Close()
		defer w[i].Close()
	}
	var wg sync.WaitGroup
	members := make([]Output, tasks)
	errs := make([]error, tasks)
	for i := 1; i < tasks; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			blk := Block{Iters: 1, Samples: 1, CPUA: -1, CPUB: -1, Arg: 256}
			blk.FD[0], blk.FD[1] = int(r[i-1].Fd()), int(w[i].Fd())
			members[i], errs[i] = Run(RingMember, blk)
		}(i)
	}
	blk := Block{Iters: 25, Samples: 4, Warmup: 1, CPUA: -1, CPUB: -1}
	blk.FD[0], blk.FD[1] = int(r[tasks-1].Fd()), int(w[0].Fd())
	out, err := RingHead(blk, RingConfig{Tasks: tasks, WorkingSet: 256})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < tasks; i++ {
		if errs[i] != nil {
			t.Fatalf("member %d: %v", i, errs[i])
		}
		out.Passes += members[i].B.Ops
		if members[i].B.Ops != out.Rounds {
			t.Errorf("member %d passed %d times, head made %d rounds", i, members[i].B.Ops, out.Rounds)
		}
	}
	out.MinPasses, out.MaxPasses = out.Rounds, out.Rounds
	checkRing(t, out, tasks, 4, 1, false)
	if out.Rounds != 5*25 {
		t.Errorf("rounds %d, want 125", out.Rounds)
	}
	ov, err := RingOverhead(Block{Iters: out.RoundsPerSample, Samples: 4, Warmup: 1, CPUA: -1}, RingConfig{Tasks: tasks, WorkingSet: 256})
	if err != nil {
		t.Fatal(err)
	}
	if len(ov.OverheadNS) != 4 || len(ov.HotNS) != 4 || ov.OverheadNS[0] == 0 {
		t.Errorf("overhead samples %v / %v", ov.OverheadNS, ov.HotNS)
	}
}

// A member whose neighbour vanishes ends with an error instead of hanging.
func TestRingMemberSeesDeadNeighbour(t *testing.T) {
	r, w, _ := os.Pipe()
	r2, w2, _ := os.Pipe()
	defer r2.Close()
	w.Close() // nobody will ever write the token
	blk := Block{Iters: 1, Samples: 1, CPUA: -1, CPUB: -1}
	blk.FD[0], blk.FD[1] = int(r.Fd()), int(w2.Fd())
	_, err := Run(RingMember, blk)
	r.Close()
	w2.Close()
	if err == nil {
		t.Fatal("a member with no previous context reported success")
	}
}

func TestRingRejectsBadConfig(t *testing.T) {
	if _, err := RingThreads(Block{Samples: 0}, RingConfig{Tasks: 2, MinSampleNS: 1}); err == nil {
		t.Error("zero samples accepted")
	}
	if _, err := RingGo(Block{Samples: 1}, RingConfig{Tasks: 0, MinSampleNS: 1}); err == nil {
		t.Error("zero tasks accepted")
	}
	if _, err := RingOverhead(Block{Samples: 1}, RingConfig{Tasks: 2}); err == nil {
		t.Error("overhead without rounds per sample accepted")
	}
}
