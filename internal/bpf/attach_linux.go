//go:build linux && (amd64 || arm64)

package bpf

// attach_linux.go: the in-place programs' loader (c/attach.bpf.c): what
// ctxbench attach measures of processes it did not start. Open checks the
// machine as the hop tracer does, loads the programs with the target set's
// shape (every task, or TGIDs filled with SetTargets), attaches them and
// turns the kernel's BPF run-time statistics on for as long as they are
// loaded; Read adds every CPU's aggregates up into a phase.InPlaceReading.
// Nothing is pinned: when the process exits, however it exits, the kernel
// detaches and frees everything.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/phase"
)

// InPlace is the loaded and attached in-place programs. Its methods are
// safe to call from several goroutines.
type InPlace struct {
	mu     sync.Mutex
	objs   attachObjects
	links  []link.Link
	probes []ProbeStatus
	ncpu   int
	gen    uint32
	stats  io.Closer // the kernel's BPF run-time statistics, on while loaded
	closed bool
}

// OpenInPlace checks the machine, loads the in-place programs and attaches
// them. It refuses with a *MissingError as Open does. Nothing is a target
// until SetTargets (or with opts.All, every task but ctxbench's own).
func OpenInPlace(opts InPlaceOptions) (*InPlace, error) {
	if err := preflight(realHost{}); err != nil {
		return nil, err
	}
	_ = rlimit.RemoveMemlock()
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("bpf: possible CPUs: %w", err)
	}
	spec, err := loadAttach()
	if err != nil {
		return nil, fmt.Errorf("bpf: the in-place object: %w", err)
	}
	self := opts.Self
	switch {
	case self == 0:
		self = unix.Getpid()
	case self < 0:
		self = 0 // no task's TGID is 0: nothing is left out
	}
	if err := errors.Join(
		spec.Variables["all_tasks"].Set(uint32(boolInt(opts.All))),
		spec.Variables["self_tgid"].Set(uint32(self)),
		spec.Variables["rate_limit"].Set(opts.RateLimit),
		spec.Variables["full"].Set(uint32(boolInt(opts.Full))),
	); err != nil {
		return nil, fmt.Errorf("bpf: in-place settings: %w", err)
	}
	p := &InPlace{ncpu: ncpu}
	if err := spec.LoadAndAssign(&p.objs, nil); err != nil {
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("bpf: the kernel's verifier refused the in-place programs: %w", ve)
		}
		return nil, fmt.Errorf("bpf: load: %w", err)
	}
	// The statistics are on machine-wide while someone holds them: their
	// two clock reads per run are part of what every program costs then,
	// ours included, and are in the figures they give.
	if c, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME)); err == nil && os.Getenv("ZZNOSTATS") == "" {
		p.stats = c
	}
	if err := p.attach(opts.Full, opts.All); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *InPlace) programs() map[string]*ebpf.Program {
	out := map[string]*ebpf.Program{}
	v := reflect.ValueOf(p.objs.attachPrograms)
	for i := range v.NumField() {
		if pr, ok := v.Field(i).Interface().(*ebpf.Program); ok {
			out[v.Type().Field(i).Tag.Get("ebpf")] = pr
		}
	}
	return out
}

// attach links every probe; a core probe that fails fails the open, an
// optional one is reported in Probes and its boundary merges away.
func (p *InPlace) attach(full, all bool) error {
	progs := p.programs()
	attached := map[string]bool{}
	for _, s := range inPlaceProbes {
		st := ProbeStatus{Tracepoint: s.tracepoint, Group: s.group}
		if why := s.absentOn(runtime.GOARCH); why != "" {
			st.Reason = why
			p.probes = append(p.probes, st)
			continue
		}
		fallback := !attached["sched_entry_tp"] || !attached["x86_fpu_regs_activated"]
		// With every task a target, __schedule's exit ends a kernel
		// thread's path (it never returns to user space); without the
		// FPU restore (arm64), it closes the switch of a task resumed in
		// user space, which no syscall's return ends.
		if s.group == groupFull && !full && !all && !fallback || s.group == groupSyscalls && !full && !fallback {
			st.Reason = "not in the light set"
			p.probes = append(p.probes, st)
			continue
		}
		l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: s.tracepoint, Program: progs[s.program]})
		if err != nil {
			if s.group == GroupCore || s.group == groupSyscalls {
				return fmt.Errorf("bpf: attach raw tracepoint %s: %w", s.tracepoint, err)
			}
			st.Reason = err.Error()
			p.probes = append(p.probes, st)
			continue
		}
		p.links = append(p.links, l)
		st.Attached = true
		attached[s.tracepoint] = true
		p.probes = append(p.probes, st)
	}
	// The programs read what is attached at their next run; a boundary
	// whose probe is missing merges into the segment around it.
	return errors.Join(
		p.objs.FpuAttached.Set(uint32(boolInt(attached["x86_fpu_regs_activated"]))),
		p.objs.ExitAttached.Set(uint32(boolInt(attached["sched_exit_tp"]))),
	)
}

// Probes lists every tracepoint and whether it is attached.
func (p *InPlace) Probes() []ProbeStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.probes)
}

// SetTargets makes the processes of tgids (TGID -> target index, below
// phase.InPlaceTargets) the targets, replacing the set before.
func (p *InPlace) SetTargets(tgids map[int]int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	var old []uint32
	var k, v uint32
	it := p.objs.Targets.Iterate()
	for it.Next(&k, &v) {
		if _, keep := tgids[int(k)]; !keep {
			old = append(old, k)
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("bpf: targets: %w", err)
	}
	for _, k := range old {
		if err := p.objs.Targets.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("bpf: targets: %w", err)
		}
	}
	for tgid, t := range tgids {
		if tgid <= 0 || t < 0 || t >= phase.InPlaceTargets {
			return fmt.Errorf("bpf: targets: bad TGID %d or target %d", tgid, t)
		}
		if err := p.objs.Targets.Put(uint32(tgid), uint32(t)); err != nil {
			return fmt.Errorf("bpf: targets %d: %w", tgid, err)
		}
	}
	p.gen++
	return p.objs.Gen.Set(p.gen)
}

// Read adds up every CPU's aggregates for the first n targets, with the
// preempters and each program's cost so far.
func (p *InPlace) Read(n int) (phase.InPlaceReading, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return phase.InPlaceReading{}, ErrClosed
	}
	n = min(max(n, 1), phase.InPlaceTargets)
	r := phase.InPlaceReading{Targets: make([]phase.InPlaceTarget, n), StatsOn: p.stats != nil}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err == nil {
		r.AtNs = uint64(ts.Nano())
	}
	per := make([]attachAgg, p.ncpu)
	for t := range n {
		if err := p.objs.Aggs.Lookup(uint32(t), &per); err != nil {
			return r, fmt.Errorf("bpf: read target %d: %w", t, err)
		}
		out := &r.Targets[t]
		for c := range per {
			addAgg(out, &per[c])
		}
	}
	var pk attachPreempterKey
	var pv attachPreempter
	it := p.objs.Preempters.Iterate()
	for it.Next(&pk, &pv) {
		if int(pk.Tgt) < n {
			r.Preempters = append(r.Preempters, phase.Preempter{Target: int(pk.Tgt), TGID: int(pk.Tgid), Comm: cString(pv.Comm[:]), N: pv.N})
		}
	}
	if err := it.Err(); err != nil {
		return r, fmt.Errorf("bpf: read preempters: %w", err)
	}
	for name, pr := range p.programs() {
		st, err := pr.Stats()
		if err != nil {
			continue
		}
		r.Programs = append(r.Programs, phase.ProgramCost{Name: name, Runs: st.RunCount, RunNs: uint64(st.Runtime.Nanoseconds()),
			Missed: st.RecursionMisses})
	}
	slices.SortFunc(r.Programs, func(a, b phase.ProgramCost) int { return strings.Compare(a.Name, b.Name) })
	return r, nil
}

func addAgg(t *phase.InPlaceTarget, a *attachAgg) {
	for i := range t.Counts {
		t.Counts[i] += a.Cnt[i]
	}
	for i := range a.Cell {
		for j := range a.Cell[i] {
			t.Cells[i][j].Ns += a.Cell[i][j].Ns
			t.Cells[i][j].Count += a.Cell[i][j].Count
		}
	}
	for c := range a.Cls {
		t.Classes[c].Ns += a.Cls[c].Ns
		t.Classes[c].Count += a.Cls[c].Count
		for b := range a.Hpath[c] {
			t.ClassHist[c][b] += a.Hpath[c][b]
		}
	}
	for r := range a.Hrunq {
		for b := range a.Hrunq[r] {
			t.RunQueue[r][b] += a.Hrunq[r][b]
		}
	}
	for i := range a.Blocked {
		t.Blocked[i] += a.Blocked[i]
	}
}

func cString(b []int8) string {
	var sb strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		sb.WriteByte(byte(c))
	}
	return sb.String()
}

// Close detaches every probe, unloads everything and turns the statistics
// off (for this process). The kernel would do the same if the process
// died: nothing is pinned.
func (p *InPlace) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	var errs []error
	for _, l := range p.links {
		errs = append(errs, l.Close())
	}
	p.links = nil
	errs = append(errs, p.objs.Close())
	if p.stats != nil {
		errs = append(errs, p.stats.Close())
	}
	return errors.Join(errs...)
}
