package probe

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

func TestTableConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range All() {
		if seen[b.Name] {
			t.Errorf("duplicate %s", b.Name)
		}
		seen[b.Name] = true
		prefix := map[Kind]string{KindSwitch: "runtime/", KindSpawn: "spawn/", KindMemory: "memory/"}[b.Kind]
		if prefix == "" || !strings.HasPrefix(b.Name, prefix+string(b.Language)+"-") {
			t.Errorf("%s: name does not match kind %s and language %s", b.Name, b.Kind, b.Language)
		}
		if _, ok := recipes[b.Language]; !ok {
			t.Errorf("%s: no recipe for %s", b.Name, b.Language)
		}
		if b.Probe == "" || b.Op == "" || b.Description == "" || b.Switched == "" || b.Mechanism == "" || len(b.Placements) == 0 {
			t.Errorf("%s: incomplete row", b.Name)
		}
		if (b.Kind == KindSwitch) != (b.HopsPerOp > 0) {
			t.Errorf("%s: hops per op %d for kind %s", b.Name, b.HopsPerOp, b.Kind)
		}
		if (b.Kind == KindMemory) != (b.Contexts > 0) {
			t.Errorf("%s: contexts %d for kind %s", b.Name, b.Contexts, b.Kind)
		}
		if b.KernelSwitch && b.Stackless {
			t.Errorf("%s: an OS thread switch is not stackless", b.Name)
		}
		// The probe program must know its bench key.
		src, err := sources(b.Language)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, _ := fs.ReadFile(src, p)
				found = found || strings.Contains(string(data), b.Probe)
			}
			return nil
		})
		if !found {
			t.Errorf("%s: probe key %q not in the %s sources", b.Name, b.Probe, b.Language)
		}
	}
	for _, lang := range Languages {
		src, err := sources(lang)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := fs.ReadDir(src, ".")
		if err != nil || len(entries) == 0 {
			t.Errorf("no embedded sources for %s: %v", lang, err)
		}
	}
}

// firstCPU is the lowest CPU this process may run on.
func firstCPU(t *testing.T) int {
	cpus, err := host.Of(0)
	if err != nil || len(cpus) == 0 {
		t.Fatalf("no CPU: %v", err)
	}
	return cpus[0]
}

// parallelismKey is the setting each probe echoes back for its parallelism knob.
var parallelismKey = map[Language]string{Erlang: "schedulers_online", Rust: "workers", Java: "carriers"}

// TestProbesRun builds every probe whose toolchain is here and runs each bench in quick
// mode: the samples must be sane (positive, finite, counts consistent), the settings must
// echo the parallelism asked for, and the OS switch counts must tell a user-space switch
// from an OS-thread handoff. A bench whose toolchain is missing is skipped with the install
// command, unless the test run declared that toolchain (testenv): then it fails. The README's
// test command installs them all and declares them, so that CI runs every probe.
func TestProbesRun(t *testing.T) {
	testenv.SkipShort(t, "builds and runs every probe")
	cpu := firstCPU(t)
	for _, b := range All() {
		b := b
		t.Run(strings.ReplaceAll(b.Name, "/", "_"), func(t *testing.T) {
			if ok, why := b.Available(); !ok {
				testenv.Skip(t, testenv.Capability(b.Language), "%s", why)
			}
			req := QuickRequest(b)
			if os.Getenv("CTXBENCH_PROBE_FULL") != "" { // full-length runs, for figures
				req = DefaultRequest(b)
				if b.Kind == KindMemory {
					req.Contexts = b.Contexts
				}
			}
			req.Timeout = 3 * time.Minute
			pinned := b.Parallelism != ParallelN
			if pinned {
				req.CPUs = []int{cpu} // same-cpu: the whole probe on one CPU
			}
			res, err := Run(context.Background(), req)
			if err != nil {
				t.Fatalf("%v\ncommand: %v %v", err, res.Env, res.Command)
			}
			t.Logf("%s: %s (wall %v, build cached %v)", b.Name, summary(res), res.Wall.Round(time.Millisecond), res.Built.Cached)
			if res.Rusage.User+res.Rusage.System <= 0 {
				t.Errorf("no rusage: %+v", res.Rusage)
			}
			for _, bl := range res.Blocks {
				checkBlock(t, b, req, res, bl, pinned)
			}
		})
	}
}

func summary(res Result) string {
	var parts []string
	for _, bl := range res.Blocks {
		switch bl.Kind {
		case KindSwitch:
			s := "one-way ns " + fmtMedian(bl.OneWayNs())
			if v, ok := bl.SwitchesPerHop(); ok {
				s += " switches/hop " + strconv.FormatFloat(v, 'g', 3, 64)
			}
			parts = append(parts, s)
		case KindSpawn:
			parts = append(parts, "ns per spawn "+fmtMedian(bl.PerOpNs()))
		case KindMemory:
			parts = append(parts, bl.Metric+": bytes per context "+fmtMedian(bl.BytesPerContext()))
		}
	}
	return strings.Join(parts, "; ")
}

func fmtMedian(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ { // insertion sort: a handful of samples
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return strconv.FormatFloat(s[len(s)/2], 'f', 2, 64)
}

func checkBlock(t *testing.T, b Bench, req Request, res Result, bl Block, pinned bool) {
	t.Helper()
	if bl.Name != string(b.Language)+"/"+b.Probe || bl.Kind != b.Kind {
		t.Errorf("block %s/%s", bl.Name, bl.Kind)
	}
	if len(bl.Settings) == 0 {
		t.Error("no settings echoed")
	}
	if key := parallelismKey[b.Language]; key != "" && res.Parallelism > 0 && b.Kind == KindSwitch {
		if got := bl.Settings[key]; got != strconv.Itoa(res.Parallelism) {
			t.Errorf("setting %s = %q, want %d", key, got, res.Parallelism)
		}
	}
	switch b.Kind {
	case KindSwitch, KindSpawn:
		if len(bl.SamplesNs) != req.Samples {
			t.Errorf("%d samples, asked %d", len(bl.SamplesNs), req.Samples)
		}
		if bl.WarmupSamples < req.Warmup {
			t.Errorf("%d warm-up samples, asked %d", bl.WarmupSamples, req.Warmup)
		}
		if bl.TotalOps < bl.Iterations*int64(len(bl.SamplesNs)) {
			t.Errorf("total ops %d < %d × %d", bl.TotalOps, bl.Iterations, len(bl.SamplesNs))
		}
		for _, v := range bl.PerOpNs() {
			if !(v > 0) || math.IsInf(v, 0) || v > 1e9 {
				t.Errorf("per-op ns %v is not sane", v)
			}
		}
		// Calibration aims each sample at the target; two orders of magnitude off means it
		// did not work (noise on a shared VM moves samples by a few times, not by 100). A
		// probe that caps the contexts alive in a sample may fall short of the target.
		capped := bl.Settings["max_alive"] == strconv.FormatInt(bl.Iterations, 10)
		for _, s := range bl.SamplesNs {
			if (s < float64(req.Target)/100 && !capped) || s > float64(req.Target)*100 {
				t.Errorf("sample of %v ns is nowhere near the %v target", s, req.Target)
			}
		}
	case KindMemory:
		if bl.Iterations != int64(req.Contexts) && (b.Language != Rust || bl.Iterations >= int64(req.Contexts)) {
			t.Errorf("memory block over %d contexts, asked %d", bl.Iterations, req.Contexts)
		}
		if len(bl.SamplesBytes) != req.Samples {
			t.Errorf("%d memory samples, asked %d", len(bl.SamplesBytes), req.Samples)
		}
	}
	if b.Kind == KindMemory && bl.Metric == res.Primary().Metric {
		for _, v := range bl.BytesPerContext() {
			if !(v > 0) || v > 1<<20 {
				t.Errorf("%s: %v bytes per context is not sane", bl.Metric, v)
			}
		}
	}
	if b.Kind != KindSwitch {
		return
	}
	sph, ok := bl.SwitchesPerHop()
	if !ok {
		t.Fatal("switch block without ctx_switches")
	}
	switch {
	case b.KernelSwitch && pinned:
		// Two OS threads on one CPU cannot hand off without the kernel switching.
		if sph < 0.5 {
			t.Errorf("OS-thread handoff on one CPU counted %.3f switches per hop, want about 1", sph)
		}
	case !b.KernelSwitch && b.Parallelism != ParallelN:
		// A user-space switch must not be an OS switch in disguise.
		if sph > 0.2 {
			t.Errorf("user-space switch counted %.3f OS switches per hop", sph)
		}
	}
}

// TestProbeRejectsBadInput checks the probe contract for bad input: exit status 2 and one
// line on stderr, reported as such.
func TestProbeRejectsBadInput(t *testing.T) {
	b, _ := Lookup("runtime/cpp-coroutine")
	if ok, why := b.Available(); !ok {
		testenv.Skip(t, testenv.Cpp, "%s", why)
	}
	b.Probe = "no-such-bench"
	_, err := Run(context.Background(), Request{Bench: b, Samples: 1})
	if err == nil || !strings.Contains(err.Error(), "rejected its input") || !strings.Contains(err.Error(), "no-such-bench") {
		t.Fatalf("want a bad-input error naming the bench, got %v", err)
	}
}

// TestUnavailableIsTyped checks that a bench the machine cannot run gives UnavailableError.
func TestUnavailableIsTyped(t *testing.T) {
	b, _ := Lookup("runtime/python-greenlet")
	b.needs = func(Toolchain) (bool, string) { return false, "install: pip install greenlet" }
	_, err := Run(context.Background(), QuickRequest(b))
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "install") {
		t.Fatalf("want UnavailableError with the install command, got %v", err)
	}
}
