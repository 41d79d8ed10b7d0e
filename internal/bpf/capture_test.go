//go:build linux && (amd64 || arm64)

package bpf

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/testenv/quiet"
)

// spinnerEnv makes the test binary a competing task (TestMain): on the
// CPU it names, at SCHED_FIFO (so that no woken task preempts it), busy
// for burst microseconds in every period, named spinnerComm.
const (
	spinnerEnv  = "CTXBENCH_BPF_TEST_SPINNER"
	spinnerComm = "ctxb-spinner"
)

// spin is the competing task's body: it prints its TID, then runs its
// bursts until its parent goes (stdin closes) or kills it.
func spin(arg string) {
	var cpu, burst, period int
	if _, err := fmt.Sscanf(arg, "%d,%d,%d", &cpu, &burst, &period); err != nil {
		fmt.Println("error", err)
		return
	}
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		fmt.Println("error", err)
		return
	}
	name, _ := unix.BytePtrFromString(spinnerComm)
	if err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(name)), 0, 0, 0); err != nil {
		fmt.Println("error", err)
		return
	}
	if err := unix.SchedSetAttr(0, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO, Priority: 1}, 0); err != nil {
		fmt.Println("error", err)
		return
	}
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
	fmt.Println("tid", unix.Gettid())
	go func() { // the parent closing stdin ends the spinner
		b := make([]byte, 1)
		os.Stdin.Read(b)
		os.Exit(0)
	}()
	for {
		t0 := time.Now()
		for time.Since(t0) < time.Duration(burst)*time.Microsecond {
		}
		ts := unix.NsecToTimespec(int64(period-burst) * 1000)
		unix.Nanosleep(&ts, nil)
	}
}

// startSpinner starts the competing task on cpu; it is killed at the
// test's end. It returns its TID.
func startSpinner(t testing.TB, cpu, burstUs, periodUs int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d,%d", spinnerEnv, cpu, burstUs, periodUs))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("spinner said nothing: %v", err)
	}
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != "tid" {
		t.Fatalf("spinner: %q", line)
	}
	tid, _ := strconv.Atoi(f[1])
	return tid
}

// captureRun runs a thread pipe ping-pong on cpus a and b under a tracer
// with capture, and reads its hops.
func captureRun(t testing.TB, opts CaptureOptions, a, b int, iters uint64) ([]phase.CapturedHop, phase.CaptureStats) {
	t.Helper()
	opts.Wake, opts.Sleep = phase.KindEnterWrite, phase.KindExitRead
	tr := openTracked(t, Options{Capture: &opts})
	blk := kernels.Block{Iters: iters, Samples: 4, Warmup: 1, CPUA: a, CPUB: b}
	if err := tr.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := kernels.Run(kernels.ThreadPipe, blk); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Snapshot(); err != nil {
		t.Fatal(err)
	}
	hops, st, err := tr.Captured()
	if err != nil {
		t.Fatal(err)
	}
	return hops, st
}

// Captured hops tile their length: every hop's parts add up to it, and the
// parts the model names hold nearly all of it.
func checkClosure(t testing.TB, split func(phase.CapturedHop) phase.HopBreakdown, hops []phase.CapturedHop) []phase.HopBreakdown {
	t.Helper()
	var out []phase.HopBreakdown
	bad := 0
	for _, h := range hops {
		b := split(h)
		sum := 0.0
		for _, p := range b.Phases {
			sum += p.Ns
		}
		if d := sum - float64(b.Ns); d > 1 || d < -1 {
			t.Errorf("hop of %d ns: its parts sum to %.0f ns", b.Ns, sum)
			if os.Getenv("CTXB_DEBUG") != "" {
				t.Logf("hop %+v", struct {
					S, E, W, H uint64
					WC, XC     int
				}{h.Start, h.End, h.Waking, h.Handoff, h.WakerCPU, h.WakeeCPU})
				for c := range 2 {
					for _, e := range h.Entries[c] {
						t.Logf("  [%d] %d +%d (%d) type %d ctx %d %s>%s tid %d %s", c, int64(e.Ts)-int64(h.Start), e.Wall, e.Ns, e.Type, e.Ctx, e.From, e.To, e.TID, e.Comm)
					}
				}
				t.Logf("%s", describe(b))
			}
		}
		if b.Closure < 0.9 || b.Closure > 1.1 {
			bad++
			if bad <= 3 {
				t.Logf("hop of %d ns closes at %.2f: %s", b.Ns, b.Closure, describe(b))
			}
		}
		out = append(out, b)
	}
	// The parts always tile the hop (checked above); the named ones close
	// within 10% on every hop but a rare path the model does not hold (one
	// in 200 at most, each logged).
	if bad > len(hops)/200 {
		t.Errorf("%d of %d captured hops do not close within 10%% of their length", bad, len(hops))
	}
	return out
}

func describe(b phase.HopBreakdown) string {
	var parts []string
	for _, p := range b.Phases {
		parts = append(parts, fmt.Sprintf("%s %s %.0f", p.Cause, p.Name, p.Ns))
	}
	return strings.Join(parts, "; ")
}

// The flight recorder on a quiet ping-pong: samples of every hop come out
// through the ring buffer (and, forced, the perf event array), each closes
// on its length, and the counts add up.
func TestCaptureSamplesClose(t *testing.T) {
	needTracing(t)
	cpu := runtime.NumCPU() - 1
	split, _ := phase.SplitHop("pipe")
	for _, perf := range []bool{false, true} {
		t.Run(map[bool]string{false: "ring buffer", true: "perf event array"}[perf], func(t *testing.T) {
			quiet.Run(t, func(t testing.TB) {
				const iters = 6000 // a short attempt: bursts of other work leave quiet stretches of a few seconds
				hops, st := captureRun(t, CaptureOptions{Quantile: 0.99, SampleEvery: 64, forcePerf: perf}, cpu, cpu, iters)
				want := map[bool]string{false: CaptureRingBuffer, true: CapturePerfArray}[perf]
				if st.Method != want {
					t.Errorf("method %q, want %q", st.Method, want)
				}
				if st.Hops < 5*iters/2 || st.SampleOut == 0 || st.Unreadable > 0 {
					t.Fatalf("stats %+v", st)
				}
				if n := uint64(len(hops)); n != st.SlowOut+st.SampleOut {
					t.Errorf("%d hops read, %d slow and %d samples copied", n, st.SlowOut, st.SampleOut)
				}
				var samples []phase.CapturedHop
				for _, h := range hops {
					if h.Sampled {
						samples = append(samples, h)
					}
				}
				checkClosure(t, split, samples)
				if p50, p99 := phase.HistQuantile(st.Hist, 0.5), phase.HistQuantile(st.Hist, 0.99); !(p50 > 0 && p99 >= p50) {
					t.Errorf("hop p50 %.0f p99 %.0f", p50, p99)
				}
			})
		})
	}
}

// A competing task in bursts of 200 µs on the woken side's CPU (at
// SCHED_FIFO: the woken task cannot preempt it) makes hops slow; the
// captured slow hops name it (comm and pid) and put at least 80% of their
// excess over the median hop on it. Other work on the CPUs (a compile, the
// host) slows hops too, by interrupts and IPIs the spinner is not to
// blame for: an attempt that fails while other work ran is measured again
// (internal/testenv/quiet), a quiet one is judged at once.
func TestCaptureNamesTheCompetitor(t *testing.T) {
	needTracing(t)
	if runtime.NumCPU() < 2 {
		testenv.Skip(t, testenv.CPUs2, "one CPU: the competitor needs the woken side's CPU to itself")
	}
	for _, tc := range []struct {
		name string
		a, b int
	}{{"same-cpu", 1, 1}, {"cross-cpu", 0, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			quiet.Run(t, func(t testing.TB) {
				tid := startSpinner(t, tc.b, 200, 1000)
				hops, st := captureRun(t, CaptureOptions{AboveNs: 60000, SampleEvery: 32}, tc.a, tc.b, 1500)
				split, _ := phase.SplitHop("pipe")
				var slow, typical []phase.HopBreakdown
				var samples []float64
				for _, h := range hops {
					if h.Sampled {
						samples = append(samples, float64(h.Ns()))
					}
				}
				slices.Sort(samples)
				if len(samples) < 20 {
					t.Fatalf("%d samples (stats %+v)", len(samples), st)
				}
				median := samples[len(samples)/2]
				bs := checkClosure(t, split, hops)
				for i, h := range hops {
					if h.Slow {
						slow = append(slow, bs[i])
					} else if float64(h.Ns()) < 1.2*median {
						typical = append(typical, bs[i])
					}
				}
				t.Logf("%d hops, %d past 60 µs, median %.0f ns; %d slow and %d typical kept", st.Hops, st.Past, median, len(slow), len(typical))
				if len(slow) < 5 {
					t.Fatalf("%d slow hops captured (stats %+v)", len(slow), st)
				}
				// A slow hop's excess over the median, and how much of it the
				// spinner took. On a shared machine other tasks take CPUs too
				// (a compiler, another benchmark): a hop they slowed names them,
				// and is judged on its own.
				var byIt, onlyIt, poor int
				var excessSum, itSum float64
				for _, b := range slow {
					excess := float64(b.Ns) - median
					it := otherTask(b, spinnerComm, tid)
					if it == 0 {
						continue
					}
					byIt++
					excessSum += excess
					itSum += it
					if others(b, spinnerComm) > 0 {
						continue
					}
					onlyIt++
					if it < 0.8*excess {
						poor++
						if poor <= 3 {
							t.Logf("slow hop of %d ns: %.0f of its %.0f ns excess on the spinner: %s", b.Ns, it, excess, describe(b))
						}
					}
				}
				t.Logf("%d slow hops name %s (pid %d), %d only it; it took %.0f%% of their excess", byIt, spinnerComm, tid, onlyIt, 100*itSum/excessSum)
				if byIt < len(slow)/2 {
					t.Errorf("only %d of %d slow hops name %s (pid %d)", byIt, len(slow), spinnerComm, tid)
				}
				if itSum < 0.8*excessSum {
					t.Errorf("the hops that name %s put %.0f%% of their excess on it, want at least 80%%", spinnerComm, 100*itSum/excessSum)
				}
				if poor > onlyIt/10 {
					t.Errorf("%d of %d slow hops slowed by %s alone put less than 80%% of their excess on it", poor, onlyIt, spinnerComm)
				}
			})
		})
	}
}

// others is the time a hop spent behind tasks other than comm.
func others(b phase.HopBreakdown, comm string) float64 {
	ns := 0.0
	for _, p := range b.Phases {
		if p.Cause == model.CauseOtherTask && (p.Task == nil || p.Task.Comm != comm) {
			ns += p.Ns
		}
	}
	return ns
}

// otherTask is the time a hop spent behind the named task.
func otherTask(b phase.HopBreakdown, comm string, pid int) float64 {
	ns := 0.0
	for _, p := range b.Phases {
		if p.Cause == model.CauseOtherTask && p.Task != nil && p.Task.Comm == comm && p.Task.PID == pid {
			ns += p.Ns
		}
	}
	return ns
}

// Without capture the programs carry none of it: the verifier removed the
// capture branches (capture_on is a load-time constant), so no program's
// code refers to a map only the capture uses.
func TestCaptureOffIsCompiledOut(t *testing.T) {
	needTracing(t)
	refs := func(opts Options) int {
		tr, err := Open(opts)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		capMaps := map[uint32]bool{}
		for _, m := range []*ebpf.Map{tr.objs.CapOut, tr.objs.CapLogs, tr.objs.CapScratch, tr.objs.CapHops, tr.objs.CapStats, tr.objs.CapHist, tr.objs.CapEsts} {
			info, err := m.Info()
			if err != nil {
				t.Fatal(err)
			}
			id, ok := info.ID()
			if !ok {
				t.Fatal("no map ID")
			}
			capMaps[uint32(id)] = true
		}
		n := 0
		for _, p := range tr.programs() {
			info, err := p.Info()
			if err != nil {
				t.Fatal(err)
			}
			insns, err := info.Instructions()
			if err != nil {
				t.Fatal(err)
			}
			for _, ins := range insns {
				if ins.OpCode == asm.LoadImmOp(asm.DWord) && (ins.Src == asm.PseudoMapFD || ins.Src == asm.PseudoMapValue) && capMaps[uint32(ins.Constant)] {
					n++
				}
			}
		}
		return n
	}
	if n := refs(Options{}); n != 0 {
		t.Errorf("without capture the programs refer to the capture's maps %d times", n)
	}
	if n := refs(Options{Capture: &CaptureOptions{Quantile: 0.99}}); n == 0 {
		t.Error("with capture no program refers to the capture's maps: the test sees nothing")
	}
}
