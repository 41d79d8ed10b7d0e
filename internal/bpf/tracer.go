//go:build linux && (amd64 || arm64)

package bpf

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/ctxbench/ctxbench/internal/phase"
)

// Options says what to attach.
type Options struct {
	// Exclude leaves these probe groups out (GroupCore cannot be left out).
	// Fewer probes, fewer boundaries, less probe cost per hop.
	Exclude []Group

	// Capture turns the flight recorder on (c/capture.h): hops past a
	// threshold, and a sample of all hops, copied out with what ran on
	// their CPUs. Nil compiles it out of the programs.
	Capture *CaptureOptions

	// For tests: the host checks (nil: this machine), an extra required
	// tracepoint attached last (to make Open fail after attaching), and a
	// callback told the IDs of the loaded programs.
	host     host
	extraTP  string
	onLoaded func([]ebpf.ProgramID)
}

// Tracer is the loaded and attached hop tracer. Its methods are safe to
// call from several goroutines.
type Tracer struct {
	mu     sync.Mutex
	objs   hopObjects
	links  []link.Link
	probes []ProbeStatus
	ncpu   int
	gen    uint32
	epoch  uint32
	closed bool
	cap    *captureSetup // nil without capture
}

// Open checks the machine, loads the programs and attaches them. It
// returns a *MissingError (errors.Is one of ErrPrivilege, ErrNoBPF,
// ErrNoBTF, ErrNoRawTracepoint) when the machine cannot trace. Nothing is
// tracked until Track is called. On error nothing stays loaded or
// attached.
func Open(opts Options) (*Tracer, error) {
	h := opts.host
	if h == nil {
		h = realHost{}
	}
	if err := preflight(h); err != nil {
		return nil, err
	}
	// Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK.
	_ = rlimit.RemoveMemlock()
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("bpf: possible CPUs: %w", err)
	}
	t := &Tracer{ncpu: ncpu}
	spec, err := loadHop()
	if err != nil {
		return nil, fmt.Errorf("bpf: the object: %w", err)
	}
	if t.cap, err = prepareSpec(spec, opts.Capture, ncpu); err != nil {
		return nil, fmt.Errorf("bpf: capture: %w", err)
	}
	if err := spec.LoadAndAssign(&t.objs, nil); err != nil {
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("bpf: the kernel's verifier refused the programs: %w", ve)
		}
		return nil, fmt.Errorf("bpf: load: %w", err)
	}
	if opts.onLoaded != nil {
		opts.onLoaded(t.programIDs())
	}
	if t.cap != nil {
		if err := t.startCapture(); err != nil {
			t.Close()
			return nil, err
		}
	}
	if err := t.attach(opts); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// programs maps the C names of the programs to the loaded programs, from
// the generated struct's tags (so a program added in C needs no list here).
func (t *Tracer) programs() map[string]*ebpf.Program {
	out := map[string]*ebpf.Program{}
	v := reflect.ValueOf(t.objs.hopPrograms)
	for i := range v.NumField() {
		if p, ok := v.Field(i).Interface().(*ebpf.Program); ok {
			out[v.Type().Field(i).Tag.Get("ebpf")] = p
		}
	}
	return out
}

func (t *Tracer) programIDs() []ebpf.ProgramID {
	var ids []ebpf.ProgramID
	for _, p := range t.programs() {
		if p == nil {
			continue
		}
		if info, err := p.Info(); err == nil {
			if id, ok := info.ID(); ok {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// attach links every probe not excluded. A core probe that fails fails
// Open; an optional one is reported in Probes. An interrupt's entry and
// exit are kept only as a pair (an entry without its exit would leave the
// CPU "inside an interrupt" for good).
func (t *Tracer) attach(opts Options) error {
	progs := t.programs()
	entryLink := map[string]int{} // entry program -> index in t.links
	table := probeTable
	if opts.extraTP != "" {
		table = append(slices.Clip(table), probeSpec{tracepoint: opts.extraTP, program: "ctxb_sys_enter", group: GroupCore})
	}
	for _, p := range table {
		st := ProbeStatus{Tracepoint: p.tracepoint, Group: p.group}
		if why := p.absentOn(runtime.GOARCH); why != "" {
			st.Reason = why // another architecture's: its program is not in this object
			t.probes = append(t.probes, st)
			continue
		}
		if p.group != GroupCore && slices.Contains(opts.Exclude, p.group) {
			st.Reason = "excluded"
			t.probes = append(t.probes, st)
			continue
		}
		entry, isExit := strings.CutSuffix(p.program, "_out")
		if isExit {
			if _, ok := entryLink[entry+"_in"]; !ok {
				st.Reason = "its entry tracepoint is not attached"
				t.probes = append(t.probes, st)
				continue
			}
		}
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: p.tracepoint, Program: progs[p.program]})
		if err != nil {
			if p.group == GroupCore {
				return fmt.Errorf("bpf: attach raw tracepoint %s: %w", p.tracepoint, err)
			}
			st.Reason = err.Error()
			if isExit { // drop the entry too
				i := entryLink[entry+"_in"]
				t.links[i].Close()
				t.links[i] = nil
				t.probes[slices.IndexFunc(t.probes, func(s ProbeStatus) bool {
					return s.Attached && probeProgram(s.Tracepoint) == entry+"_in"
				})].Attached = false
			}
			t.probes = append(t.probes, st)
			continue
		}
		if strings.HasSuffix(p.program, "_in") {
			entryLink[p.program] = len(t.links)
		}
		t.links = append(t.links, l)
		st.Attached = true
		t.probes = append(t.probes, st)
	}
	t.links = slices.DeleteFunc(t.links, func(l link.Link) bool { return l == nil })
	return nil
}

func probeProgram(tp string) string {
	for _, p := range probeTable {
		if p.tracepoint == tp {
			return p.program
		}
	}
	return ""
}

// Method says how the kernel is probed: "raw tracepoints only" (the only
// method implemented; DetectFeatures tells whether the kernel would allow
// fentry or kprobes for finer boundaries).
func (t *Tracer) Method() string { return MethodRawTracepoints }

// Probes lists every tracepoint and whether it is attached.
func (t *Tracer) Probes() []ProbeStatus {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.probes)
}

// Track adds processes (by TGID: every thread of each) to the traced set.
func (t *Tracer) Track(tgids ...int) error { return t.setTracked(tgids, true) }

// Untrack removes processes from the traced set.
func (t *Tracer) Untrack(tgids ...int) error { return t.setTracked(tgids, false) }

func (t *Tracer) setTracked(tgids []int, on bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	for _, id := range tgids {
		if id <= 0 {
			return fmt.Errorf("bpf: track: bad TGID %d", id)
		}
		k := uint32(id)
		var err error
		if on {
			err = t.objs.Tracked.Put(k, uint8(1))
		} else if err = t.objs.Tracked.Delete(k); errors.Is(err, ebpf.ErrKeyNotExist) {
			err = nil
		}
		if err != nil {
			return fmt.Errorf("bpf: track %d: %w", id, err)
		}
	}
	// A new generation makes every CPU look its current task up again.
	t.gen++
	return t.objs.Gen.Set(t.gen)
}

// Reset clears everything recorded and starts a recording window (Open
// starts one too); each CPU starts afresh at its next event. Events during
// the reset itself (about a millisecond) are lost.
func (t *Tracer) Reset() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return ErrClosed
	}
	if err := t.objs.Paused.Set(uint32(1)); err != nil {
		return err
	}
	// Let programs already past the paused check finish (they run for
	// well under a microsecond).
	time.Sleep(time.Millisecond)
	err := errors.Join(
		zeroPerCPU[hopCell](t.objs.Cells, phase.NumContexts*phase.NumKinds*phase.NumKinds, t.ncpu),
		zeroPerCPU[hopCell](t.objs.Cross, phase.NumKinds, t.ncpu),
		zeroPerCPU[uint64](t.objs.Events, phase.NumKinds, t.ncpu),
		zeroPerCPU[uint64](t.objs.Counters, nCounters, t.ncpu),
		zeroPerCPU[hopKvmReason](t.objs.KvmReasons, numKVMReasons, t.ncpu),
		zeroPerCPU[uint64](t.objs.TlbReasons, numTLBReasons, t.ncpu),
		t.resetCapture(),
	)
	t.epoch++
	err = errors.Join(err, t.objs.Epoch.Set(t.epoch), t.objs.Paused.Set(uint32(0)))
	if err != nil {
		return fmt.Errorf("bpf: reset: %w", err)
	}
	return nil
}

// Table sizes of kinds.h.
const (
	nCounters     = 8
	numKVMReasons = 256
	numTLBReasons = 8
)

func zeroPerCPU[T any](m *ebpf.Map, n, ncpu int) error {
	zero := make([]T, ncpu)
	for k := uint32(0); k < uint32(n); k++ {
		if err := m.Update(k, zero, ebpf.UpdateAny); err != nil {
			return err
		}
	}
	return nil
}

// Snapshot ends the recording window that Reset began and reads it.
// Recording stays stopped until the next Reset: otherwise the reading's
// own syscalls (of a tracked process) and anything running meanwhile would
// land in the window while it is being read, and the cells read first would
// no longer add up to the span read last.
func (t *Tracer) Snapshot() (phase.Snapshot, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return phase.Snapshot{}, ErrClosed
	}
	if err := t.objs.Paused.Set(uint32(1)); err != nil {
		return phase.Snapshot{}, fmt.Errorf("bpf: pause: %w", err)
	}
	time.Sleep(time.Millisecond) // programs already past the check finish
	s := phase.Snapshot{PerCPU: make([]phase.Matrix, t.ncpu)}
	for c := range s.PerCPU {
		s.PerCPU[c].CPU = c
	}
	cells := make([]hopCell, t.ncpu)
	for k := uint32(0); k < phase.NumContexts*phase.NumKinds*phase.NumKinds; k++ {
		if err := t.objs.Cells.Lookup(k, &cells); err != nil {
			return phase.Snapshot{}, fmt.Errorf("bpf: read cells: %w", err)
		}
		x, from, to := k/(phase.NumKinds*phase.NumKinds), k/phase.NumKinds%phase.NumKinds, k%phase.NumKinds
		for c := range cells {
			s.PerCPU[c].Cells[x][from][to] = phase.Cell{Ns: cells[c].Ns, Count: cells[c].Count, Hist: cells[c].Hist}
		}
	}
	for k := uint32(0); k < phase.NumKinds; k++ {
		if err := t.objs.Cross.Lookup(k, &cells); err != nil {
			return phase.Snapshot{}, fmt.Errorf("bpf: read cross cells: %w", err)
		}
		for c := range cells {
			s.PerCPU[c].Cross[k] = phase.Cell{Ns: cells[c].Ns, Count: cells[c].Count, Hist: cells[c].Hist}
		}
	}
	u64 := make([]uint64, t.ncpu)
	for k := uint32(0); k < phase.NumKinds; k++ {
		if err := t.objs.Events.Lookup(k, &u64); err != nil {
			return phase.Snapshot{}, fmt.Errorf("bpf: read events: %w", err)
		}
		for c := range u64 {
			s.PerCPU[c].Events[k] = u64[c]
		}
	}
	for k := uint32(0); k < nCounters; k++ {
		if err := t.objs.Counters.Lookup(k, &u64); err != nil {
			return phase.Snapshot{}, fmt.Errorf("bpf: read counters: %w", err)
		}
		for c := range u64 {
			m := &s.PerCPU[c]
			switch hopCounter(k) {
			case hopCounterCNT_SWITCH_OUT:
				m.SwitchesOut = u64[c]
			case hopCounterCNT_SWITCH_IN:
				m.SwitchesIn = u64[c]
			case hopCounterCNT_PREEMPTED:
				m.Preempted = u64[c]
			case hopCounterCNT_MISORDERED:
				m.Misordered = u64[c]
			case hopCounterCNT_NESTED:
				m.Nested = u64[c]
			case hopCounterCNT_KVM_ISA:
				m.KVMISA = u64[c]
			}
		}
	}
	for k := uint32(0); k < numTLBReasons; k++ {
		if err := t.objs.TlbReasons.Lookup(k, &u64); err != nil {
			return phase.Snapshot{}, fmt.Errorf("bpf: read tlb reasons: %w", err)
		}
		for c := range u64 {
			s.PerCPU[c].TLBFlushes[k] = u64[c]
		}
	}
	kr := make([]hopKvmReason, t.ncpu)
	for k := uint32(0); k < numKVMReasons; k++ {
		if err := t.objs.KvmReasons.Lookup(k, &kr); err != nil {
			return phase.Snapshot{}, fmt.Errorf("bpf: read kvm reasons: %w", err)
		}
		for c := range kr {
			if kr[c].Count > 0 {
				s.PerCPU[c].KVMExits = append(s.PerCPU[c].KVMExits, phase.KVMExit{Reason: k, Count: kr[c].Count, Ns: kr[c].Ns})
			}
		}
	}
	st := make([]hopCpuState, t.ncpu)
	if err := t.objs.State.Lookup(uint32(0), &st); err != nil {
		return phase.Snapshot{}, fmt.Errorf("bpf: read state: %w", err)
	}
	for c := range st {
		// A CPU whose state is from before the reset has recorded nothing.
		if st[c].Epoch != t.epoch || st[c].FirstTs == 0 {
			continue
		}
		m := &s.PerCPU[c]
		m.FirstNs, m.LastNs = st[c].FirstTs, st[c].LastTs
		m.SpanNs = m.LastNs - m.FirstNs
	}
	return phase.NewSnapshot(MethodRawTracepoints, s.PerCPU), nil
}

// Close detaches every probe and unloads everything. The kernel would do
// the same if the process died: nothing is pinned.
func (t *Tracer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	var errs []error
	for _, l := range t.links {
		if l != nil {
			errs = append(errs, l.Close())
		}
	}
	t.links = nil
	if t.cap != nil {
		errs = append(errs, t.cap.close())
	}
	errs = append(errs, t.objs.Close())
	return errors.Join(errs...)
}
