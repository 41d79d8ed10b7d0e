//go:build linux && (amd64 || arm64)

package bpf

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// needTracing skips a test on a machine that cannot trace, saying why.
func needTracing(t testing.TB) {
	t.Helper()
	if err := Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
}

// The Go kinds are those of the object: same values, same names.
func TestKindsMatchObject(t *testing.T) {
	spec, err := loadHop()
	if err != nil {
		t.Fatal(err)
	}
	var enum *btf.Enum
	if err := spec.Types.TypeByName("kind", &enum); err != nil {
		t.Fatal(err)
	}
	for _, v := range enum.Values {
		name, ok := strings.CutPrefix(v.Name, "KIND_")
		if !ok || name == "IRQ_FIRST" || name == "COUNT" {
			// The defined kinds are those below KIND_COUNT.
			if n := len(phase.AllKinds()); name == "COUNT" && v.Value != uint64(n) {
				t.Errorf("KIND_COUNT = %d, Go has %d kinds", v.Value, n)
			}
			continue
		}
		want := strings.ReplaceAll(strings.ToLower(name), "_", "-")
		if got := phase.Kind(v.Value).String(); got != want {
			t.Errorf("%s = %d is %q in Go, want %q", v.Name, v.Value, got, want)
		}
	}
	if got := spec.Maps["cells"].MaxEntries; got != phase.NumContexts*phase.NumKinds*phase.NumKinds {
		// NCTX is 2, so CTX_TASK and CTX_IDLE are 0 and 1 as in Go (the
		// enum is not in the object's BTF: only its constants are used).
		t.Errorf("cells has %d entries, want NumContexts*NumKinds^2 = %d", got, phase.NumContexts*phase.NumKinds*phase.NumKinds)
	}
	if got := spec.Maps["events"].MaxEntries; got != phase.NumKinds {
		t.Errorf("events has %d entries, want NumKinds = %d", got, phase.NumKinds)
	}
	if got := len(hopCell{}.Hist); got != phase.NumBuckets {
		t.Errorf("the object's histograms have %d buckets, want NumBuckets = %d", got, phase.NumBuckets)
	}
}

// fakeHost refuses one thing at a time.
type fakeHost struct {
	caps                     uint64
	capsErr, bpf, btf, rawTP error
}

func (h fakeHost) effectiveCaps() (uint64, error) { return h.caps, h.capsErr }
func (h fakeHost) bpfSyscall() error              { return h.bpf }
func (h fakeHost) kernelBTF() error               { return h.btf }
func (h fakeHost) rawTracepoint() error           { return h.rawTP }

// Each missing piece is refused before anything loads, with its own
// sentinel and a one-line message that says what is missing.
func TestOpenRefusesWhatIsMissing(t *testing.T) {
	root := uint64(1 << capSysAdmin)
	cases := []struct {
		name string
		h    fakeHost
		want error
		says string
	}{
		{"not root", fakeHost{caps: 0}, ErrPrivilege, "CAP_BPF and CAP_PERFMON"},
		{"bpf without perfmon", fakeHost{caps: 1 << capBPF}, ErrPrivilege, "need root"},
		{"caps unreadable", fakeHost{capsErr: os.ErrNotExist}, ErrPrivilege, "capabilities"},
		{"no bpf syscall", fakeHost{caps: root, bpf: syscall.ENOSYS}, ErrNoBPF, "CONFIG_BPF_SYSCALL"},
		{"bpf refused", fakeHost{caps: root, bpf: syscall.EPERM}, ErrNoBPF, "refused"},
		{"no btf", fakeHost{caps: root, btf: os.ErrNotExist}, ErrNoBTF, "/sys/kernel/btf/vmlinux"},
		{"no raw tracepoints", fakeHost{caps: root, rawTP: ebpf.ErrNotSupported}, ErrNoRawTracepoint, "raw tracepoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Open(Options{host: c.h})
			if err == nil {
				tr.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, c.want) {
				t.Errorf("error %v is not %v", err, c.want)
			}
			var me *MissingError
			if !errors.As(err, &me) {
				t.Errorf("error %T is not a *MissingError", err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, c.says) {
				t.Errorf("message %q: want one line that says %q", msg, c.says)
			}
		})
	}
	// CAP_BPF with CAP_PERFMON is enough: the refusal comes later.
	_, err := Open(Options{host: fakeHost{caps: 1<<capBPF | 1<<capPerfmon, bpf: syscall.ENOSYS}})
	if !errors.Is(err, ErrNoBPF) {
		t.Errorf("CAP_BPF+CAP_PERFMON: %v, want the later ErrNoBPF", err)
	}
}

// gone waits until none of ids is a loaded program or the program of a
// link (the kernel frees them after an RCU grace period, so not at once).
func gone(t *testing.T, ids []ebpf.ProgramID) {
	t.Helper()
	if len(ids) == 0 {
		t.Fatal("no program IDs to check")
	}
	want := map[ebpf.ProgramID]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var left []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left = left[:0]
		for _, id := range ids {
			p, err := ebpf.NewProgramFromID(id)
			if err == nil {
				p.Close()
				left = append(left, fmt.Sprintf("program %d", id))
			} else if !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("program %d: %v", id, err)
			}
		}
		var it link.Iterator
		for it.Next() {
			if info, err := it.Link.Info(); err == nil && want[info.Program] {
				left = append(left, fmt.Sprintf("link %d of program %d", it.ID, info.Program))
			}
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still loaded: %s", strings.Join(left, ", "))
		}
	}
}

// The programs load and attach on this kernel; Close detaches and unloads
// every one of them.
func TestOpenAttachesAndCloseDetaches(t *testing.T) {
	needTracing(t)
	var ids []ebpf.ProgramID
	tr, err := Open(Options{onLoaded: func(p []ebpf.ProgramID) { ids = p }})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Method() != "raw tracepoints only" {
		t.Errorf("method %q", tr.Method())
	}
	for _, p := range tr.Probes() {
		if p.Group == GroupCore && !p.Attached {
			t.Errorf("core probe %s not attached: %s", p.Tracepoint, p.Reason)
		}
		if !p.Attached {
			t.Logf("not attached here: %s (%s)", p.Tracepoint, p.Reason)
		}
	}
	if len(ids) != len(probesOn(runtime.GOARCH)) {
		t.Errorf("%d programs loaded, %d in the probe table for %s", len(ids), len(probesOn(runtime.GOARCH)), runtime.GOARCH)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, ids)
	if _, err := tr.Snapshot(); !errors.Is(err, ErrClosed) {
		t.Errorf("Snapshot after Close: %v", err)
	}
}

// A failure after some probes are attached leaves nothing behind.
func TestOpenFailureLeavesNothing(t *testing.T) {
	needTracing(t)
	var ids []ebpf.ProgramID
	tr, err := Open(Options{extraTP: "ctxbench_no_such_tracepoint", onLoaded: func(p []ebpf.ProgramID) { ids = p }})
	if err == nil {
		tr.Close()
		t.Fatal("Open attached a tracepoint that does not exist")
	}
	if !strings.Contains(err.Error(), "ctxbench_no_such_tracepoint") {
		t.Errorf("error %q does not name the tracepoint", err)
	}
	gone(t, ids)
}

const childEnv = "CTXBENCH_BPF_TEST_CHILD"

// TestMain runs the test binary as TestKilledTracerLeavesNothing's child
// when that test starts it so: open, print the program IDs, wait to be
// killed.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		holdTracer()
		os.Exit(0)
	}
	if arg := os.Getenv(spinnerEnv); arg != "" {
		spin(arg)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func holdTracer() {
	var ids []ebpf.ProgramID
	tr, err := Open(Options{onLoaded: func(p []ebpf.ProgramID) { ids = p }})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	_ = tr.Track(os.Getpid())
	var s []string
	for _, id := range ids {
		s = append(s, strconv.Itoa(int(id)))
	}
	fmt.Println("ids", strings.Join(s, " "))
	time.Sleep(time.Minute)
}

// A tracing process that is SIGKILLed leaves no program or link: nothing
// is pinned, so the kernel drops everything with the process's fds.
func TestKilledTracerLeavesNothing(t *testing.T) {
	needTracing(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said nothing: %v", err)
	}
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "ids" {
		t.Fatalf("child: %q", line)
	}
	var ids []ebpf.ProgramID
	for _, f := range fields[1:] {
		n, _ := strconv.Atoi(f)
		ids = append(ids, ebpf.ProgramID(n))
	}
	// Attached while the child lives.
	if p, err := ebpf.NewProgramFromID(ids[0]); err != nil {
		t.Fatalf("the child's program %d is not loaded: %v", ids[0], err)
	} else {
		p.Close()
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	gone(t, ids)
}

// openTracked opens a tracer that tracks this process, closed at the end.
func openTracked(t testing.TB, opts Options) *Tracer {
	t.Helper()
	needTracing(t)
	if !kernels.Built {
		testenv.Skip(t, testenv.Cgo, "the C kernels need cgo")
	}
	tr, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	if err := tr.Track(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	return tr
}

// A real trace: this process's C pipe ping-pong between two threads on one
// CPU. Structure only (the machine is shared): about one switch in and out
// per hop, the cells tile the CPU's span, and the pipe model explains the
// hop time within 5%.
func TestThreadPipeTrace(t *testing.T) {
	tr := openTracked(t, Options{})
	cpu := runtime.NumCPU() - 1
	blk := kernels.Block{Iters: 20000, Samples: 4, Warmup: 1, CPUA: cpu, CPUB: cpu}
	if err := tr.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := kernels.Run(kernels.ThreadPipe, blk); err != nil {
		t.Fatal(err)
	}
	s, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	m := s.CPU(cpu)
	hops := 2 * blk.Iters * uint64(blk.Samples+blk.Warmup)
	for name, n := range map[string]uint64{"switches out": m.SwitchesOut, "switches in": m.SwitchesIn} {
		if r := float64(n) / float64(hops); r < 0.9 || r > 1.2 {
			t.Errorf("%s per hop %.3f, want about 1", name, r)
		}
	}
	if got, want := m.Events[phase.KindEnterWrite], hops; got < want || got > want+want/10 {
		t.Errorf("%d write entries for %d hops", got, want)
	}
	// The cells tile the span, up to the few segments a nested probe spoils
	// and the interrupts after the last boundary.
	if d := math.Abs(float64(m.SpanNs) - float64(m.TracedNs())); m.SpanNs == 0 || d/float64(m.SpanNs) > 0.01 {
		t.Errorf("cells sum to %d ns, the span is %d ns (misordered %d)", m.TracedNs(), m.SpanNs, m.Misordered)
	}
	b := phase.PipeHop(m, hops)
	t.Logf("\n%s", b.String())
	if b.Closure < 0.95 || b.Closure > 1.0001 {
		for i, u := range b.Unattributed {
			if i < 10 {
				t.Logf("unattributed %s -> %s: %d times, %.1f ns/hop", u.From, u.To, u.Count, float64(u.Ns)/float64(hops))
			}
		}
		t.Errorf("closure %.3f, want within 5%% of 1", b.Closure)
	}
	for _, want := range []phase.Kind{phase.KindSwitch, phase.KindEnterWrite, phase.KindWaking} {
		found := false
		for _, p := range b.Phases {
			found = found || p.From == want
		}
		if !found {
			t.Errorf("no phase starts at %s", want)
		}
	}
	// The same trace summed over CPUs holds at least this CPU's.
	if s.Sum.TracedNs() < m.TracedNs() || s.Sum.SwitchesIn < m.SwitchesIn {
		t.Error("the sum over CPUs is smaller than one CPU")
	}
}

// Reset empties everything; an untracked process records nothing.
func TestResetAndUntrack(t *testing.T) {
	tr := openTracked(t, Options{Exclude: []Group{GroupKVM, GroupInterrupts}})
	cpu := runtime.NumCPU() - 1
	blk := kernels.Block{Iters: 2000, Samples: 2, CPUA: cpu, CPUB: cpu}
	if _, err := kernels.Run(kernels.ThreadPipe, blk); err != nil {
		t.Fatal(err)
	}
	if err := tr.Untrack(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := kernels.Run(kernels.ThreadPipe, blk); err != nil {
		t.Fatal(err)
	}
	s, err := tr.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Sum.Events[phase.KindEnterWrite]; n != 0 {
		t.Errorf("%d writes recorded from an untracked process", n)
	}
	for _, p := range tr.Probes() {
		if p.Group == GroupKVM && p.Attached {
			t.Errorf("%s attached though its group is excluded", p.Tracepoint)
		}
	}
}
