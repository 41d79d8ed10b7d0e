package main

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/testenv/quiet"
)

// ourPrograms lists the loaded BPF programs of ctxbench's hop tracer
// (their names start with ctxb_).
func ourPrograms(t *testing.T) []string {
	t.Helper()
	var out []string
	for id := ebpf.ProgramID(0); ; {
		next, err := ebpf.ProgramGetNextID(id)
		if errors.Is(err, os.ErrNotExist) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		id = next
		p, err := ebpf.NewProgramFromID(id)
		if err != nil {
			continue // unloaded meanwhile
		}
		if info, err := p.Info(); err == nil && strings.HasPrefix(info.Name, "ctxb_") {
			out = append(out, info.Name)
		}
		p.Close()
	}
}

// noProgramsLeft waits for the kernel to free a finished run's programs
// (after an RCU grace period, not at once).
func noProgramsLeft(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := ourPrograms(t)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("BPF programs still loaded: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// explainDoc runs ctxbench explain with args and decodes its document. The
// run measures the contention of every block itself and runs contended
// blocks again after waiting out the burst; where some stayed contended
// its results carry the flag, and the attempt is told so (one CPU of other
// work), so that quiet.Run measures again instead of judging phases that
// other work broke up.
func explainDoc(t testing.TB, args ...string) *result.Document {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"explain"}, args...)...).Output()
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	doc, err := result.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	other := 0.0
	for _, r := range doc.Results {
		for _, f := range r.Flags {
			if f.Code == "contended" {
				other = 1
				t.Logf("%s %s: %s", r.Name, r.Placement, f.Message)
			}
		}
	}
	if a, ok := t.(*quiet.Attempt); ok {
		a.Contention(other)
	}
	return doc
}

// noMapsLeft waits for the kernel to free a finished run's capture maps
// (freed after its programs, in deferred work: under load, a while later).
func noMapsLeft(t *testing.T) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); len(ourMaps(t)) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the capture's maps are still loaded: %v", ourMaps(t))
		}
	}
}

// explain splits a real hop into phases that close on the traced hop, says
// what the probes cost, and leaves no probe attached.
func TestExplainSplitsAHop(t *testing.T) {
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
	quiet.Run(t, func(t testing.TB) {
		doc := explainDoc(t, "thread/pipe", "--runs", "12", "--samples-per-block", "2", "--span", "0", "--export-json", "-", "-q")
		if len(doc.Results) != 1 || doc.Results[0].Explain == nil {
			t.Fatalf("results %+v", doc.Results)
		}
		e := doc.Results[0].Explain
		if e.Method != bpf.MethodRawTracepoints || len(e.Phases) < 4 || e.Blocks != 6 {
			t.Errorf("method %q, %d phases, %d traced blocks; want raw tracepoints, at least 4, 6", e.Method, len(e.Phases), e.Blocks)
		}
		// Structure, not timing: the phases explain most of the traced hop
		// (the wide margin is the shared machine's, not the method's).
		if e.Closure < 0.8 || e.Closure > 1.2 || e.TracedMeanNS <= 0 || e.UntracedOneWayNS <= 0 {
			t.Errorf("closure %.3f of a %.0f ns traced hop (untraced %.0f ns)", e.Closure, e.TracedMeanNS, e.UntracedOneWayNS)
		}
		if !(e.ProbeCostLow <= e.ProbeCost && e.ProbeCost <= e.ProbeCostHigh) {
			t.Errorf("probe cost %.3f outside its interval [%.3f, %.3f]", e.ProbeCost, e.ProbeCostLow, e.ProbeCostHigh)
		}
		if doc.Derived == nil || doc.Derived.Explain == nil || len(doc.Derived.Explain.Claims) == 0 {
			t.Error("no claims judged")
		}
	})
	noProgramsLeft(t)
	assertNothingLeft(t)
}

// Across two CPUs the hop is joined from both CPUs' timelines: phases on
// the waker's CPU, between them and on the wakee's, the waker's CPU's own
// time meanwhile apart, a step against the same-CPU hop and the causes
// judged; nothing left attached.
func TestExplainAcrossCPUs(t *testing.T) {
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() < 2 {
		testenv.Skip(t, testenv.CPUs2, "fewer than two CPUs allowed: nothing to cross")
	}
	quiet.Run(t, func(t testing.TB) {
		doc := explainDoc(t, "thread/pipe", "--placement", "same-cpu,cross-cpu", "--runs", "12",
			"--samples-per-block", "2", "--span", "0", "--export-json", "-", "-q")
		var cross *result.Explain
		for i := range doc.Results {
			if doc.Results[i].Placement == "cross-cpu" {
				cross = doc.Results[i].Explain
			}
		}
		if cross == nil {
			t.Fatalf("no cross-cpu explanation in %d results", len(doc.Results))
		}
		sides := map[string]int{}
		for _, p := range cross.Phases {
			sides[p.CPU]++
		}
		if sides["waker"] == 0 || sides["between"] == 0 || sides["wakee"] == 0 || len(cross.Parallel) == 0 {
			t.Errorf("phases by side %v, %d parallel: want waker, between and wakee phases and the waker's CPU meanwhile", sides, len(cross.Parallel))
		}
		// Structure, not timing: the path explains most of the traced hop.
		if cross.Closure < 0.7 || cross.Closure > 1.3 {
			t.Errorf("closure %.3f", cross.Closure)
		}
		var step, claims bool
		if x := doc.Derived; x != nil && x.Explain != nil {
			for _, s := range x.Explain.Steps {
				step = step || strings.HasPrefix(s.What, "same CPU → cross-cpu")
			}
			for _, c := range x.Explain.Claims {
				claims = claims || strings.HasPrefix(c.Step, "cross-cpu") && c.Rung == "thread"
			}
		}
		if !step || !claims {
			t.Errorf("step %v, cross-CPU claims %v", step, claims)
		}
	})
	noProgramsLeft(t)
	assertNothingLeft(t)
}

// Without root explain refuses in one line, exit 2, saying what is missing.
func TestExplainRefusesWithoutRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "run as root to test dropping to an unprivileged user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		testenv.Skip(t, testenv.UtilLinux, "setpriv (util-linux) not installed")
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "explain", "thread/pipe")
	cmd.Dir = os.TempDir()
	out, _ := cmd.CombinedOutput()
	msg := strings.TrimSpace(string(out))
	if cmd.ProcessState.ExitCode() != 2 || strings.Contains(msg, "\n") || !strings.Contains(msg, "root") {
		t.Fatalf("exit %d, output %q: want exit 2 and one line naming root", cmd.ProcessState.ExitCode(), msg)
	}
}

// A traced run interrupted with Ctrl-C or SIGTERM, or killed, leaves no
// probe attached:
// nothing is pinned, so the programs go with the processes.
func TestExplainInterruptedLeavesNoProbe(t *testing.T) {
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, os.Kill} {
		cmd := exec.Command(bin, "explain", "thread/pipe", "--runs", "400", "--samples-per-block", "2", "--span", "0", "-q")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for len(ourPrograms(t)) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(ourPrograms(t)) == 0 {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("no traced block started within 20 s")
		}
		_ = cmd.Process.Signal(sig)
		_ = cmd.Wait()
		if sig == os.Kill {
			// The worker is in its own process group: a SIGKILLed parent
			// cannot stop it, the worker's parent-death signal does.
			time.Sleep(200 * time.Millisecond)
		}
		noProgramsLeft(t)
	}
	assertNothingLeft(t)
}

// ourMaps lists the loaded BPF maps of the hop tracer's capture (their
// names start with cap_; every tracer has them, small where the capture
// is compiled out).
func ourMaps(t *testing.T) []string { return capMaps(t, false) }

// capturing says a tracer with the capture on is loaded: its buffer
// (cap_out) is sized for a block, not the page of one without.
func capturing(t *testing.T) bool { return len(capMaps(t, true)) > 0 }

func capMaps(t *testing.T, onlyOn bool) []string {
	t.Helper()
	var out []string
	for id := ebpf.MapID(0); ; {
		next, err := ebpf.MapGetNextID(id)
		if errors.Is(err, os.ErrNotExist) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		id = next
		m, err := ebpf.NewMapFromID(id)
		if err != nil {
			continue
		}
		if info, err := m.Info(); err == nil && strings.HasPrefix(info.Name, "cap_") && (!onlyOn || info.Name == "cap_out" && info.MaxEntries >= 1<<20) {
			out = append(out, info.Name)
		}
		m.Close()
	}
}

// explain --capture-above: the capture cell's slow hops come out with their
// parts (ns per part) closing on each hop within 10%, typical hops beside
// them, slow against typical part by part, and the capture's own cost with
// its interval; the breakdown without it still closes; nothing stays
// loaded.
func TestExplainCapturesSlowHops(t *testing.T) {
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
	quiet.Run(t, func(t testing.TB) {
		doc := explainDoc(t, "thread/pipe", "--capture-above", "p99", "--runs", "12", "--samples-per-block", "2", "--span", "0",
			"--export-json", "-", "-q")
		if len(doc.Results) != 1 || doc.Results[0].Explain == nil || doc.Results[0].Explain.Capture == nil {
			t.Fatalf("no capture in %+v (failures %v)", doc.Results, doc.Failures)
		}
		e := doc.Results[0].Explain
		c := e.Capture
		if e.Closure < 0.8 || e.Closure > 1.2 {
			t.Errorf("the breakdown without the capture closes at %.3f", e.Closure)
		}
		if c.Threshold != "p99" || c.Quantile != 0.99 || c.Blocks != 6 || c.Counts.Hops == 0 || doc.Settings.CaptureAbove != "p99" {
			t.Errorf("threshold %q (%v), %d blocks, counts %+v, settings %q", c.Threshold, c.Quantile, c.Blocks, c.Counts, doc.Settings.CaptureAbove)
		}
		// What was copied out is kept or counted.
		if n := c.Counts; n.Kept+n.NotKept+n.Boundary != n.Copied || n.Copied+n.Lost != n.Past {
			t.Errorf("counts do not add up: %+v", n)
		}
		if len(c.Slowest) == 0 || len(c.Typical) == 0 {
			t.Fatalf("%d slowest, %d typical hops", len(c.Slowest), len(c.Typical))
		}
		// Every hop's parts sum to its length; the named ones (all but not
		// attributed and not recorded) within 10% of it on all but a rare path
		// the model does not hold.
		hops := append(append([]result.CapturedHop{}, c.Slowest...), c.Typical...)
		open := 0
		for _, h := range hops {
			sum, known := 0.0, 0.0
			for _, p := range h.Phases {
				sum += p.Ns
				if p.Cause.Known() {
					known += p.Ns
				}
			}
			if math.Abs(sum-h.Ns) > 1 || len(h.Pieces) == 0 {
				t.Errorf("a hop of %.0f ns: its parts sum to %.0f; %d pieces", h.Ns, sum, len(h.Pieces))
			}
			if math.Abs(known/h.Ns-1) > 0.1 {
				open++
				t.Logf("a hop of %.0f ns: its named parts sum to %.0f (closure %.2f)", h.Ns, known, h.Closure)
			}
		}
		if open > len(hops)/20 {
			t.Errorf("%d of %d hops do not close within 10%%", open, len(hops))
		}
		if h := c.Slowest[0]; h.Main == nil || h.ExcessNs <= 0 {
			t.Errorf("the slowest hop has no excess or main part: %+v", h)
		}
		if k := c.Cost; k == nil || !(k.Low <= k.Change && k.Change <= k.High) || k.Confidence <= 0 || k.NSPerHop == nil {
			t.Errorf("the capture's cost %+v", c.Cost)
		}
		if len(c.Phases) == 0 || len(c.Causes) == 0 || c.ExcessNS.Blocks < 2 {
			t.Errorf("%d parts, %d causes compared over %d blocks", len(c.Phases), len(c.Causes), c.ExcessNS.Blocks)
		}
	})
	noProgramsLeft(t)
	noMapsLeft(t)
	assertNothingLeft(t)
}

// Killed while capturing, nothing stays loaded: the programs, the rings and
// the buffer go with the worker (nothing is pinned).
func TestExplainCaptureKilledLeavesNothing(t *testing.T) {
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
	cmd := exec.Command(bin, "explain", "thread/pipe", "--capture-above", "20us", "--runs", "400", "--samples-per-block", "2", "--span", "0", "-q")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !capturing(t) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !capturing(t) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("no capture block started within 30 s")
	}
	_ = cmd.Process.Signal(os.Kill)
	_ = cmd.Wait()
	time.Sleep(200 * time.Millisecond) // the worker's parent-death signal
	noProgramsLeft(t)
	noMapsLeft(t)
	assertNothingLeft(t)
}
