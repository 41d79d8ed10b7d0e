// Package inplace turns what ctxbench attach read of its targets — the
// in-place programs' aggregates (phase.InPlaceTarget) and the targets' own
// counters, at the edges of its time windows — into the document's attach
// section: switches per second by kind, run-queue waits, the direct cost
// per switch and its phases, the share of CPU time lost to switching and
// the share of wall time spent waiting, each with its interval over the
// windows, the attach's own cost, and what the switch rate would cost at
// this machine's ladder figures and pool curve. It needs no kernel: it
// imports nothing that loads BPF, and its tests feed it synthetic
// readings.
package inplace

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Counters are a target's own counters at one moment (the kernel's
// accounts: /proc, schedstat, a cgroup's cpu.stat).
type Counters struct {
	// Switches is nvcsw + nivcsw of its threads (for the machine, /proc/stat's
	// ctxt: every switch, to and from idle too).
	Switches, CPUNs, RunQueueNs uint64
	Processes, Threads          int
}

// Edge is one target read at a window's edge.
type Edge struct {
	AtNs uint64 // CLOCK_MONOTONIC
	BPF  phase.InPlaceTarget
	Proc Counters
	// Self is ctxbench's own switches (the machine's ctxt holds them; the
	// programs leave ctxbench out).
	Self uint64
}

// Target is one target's readings.
type Target struct {
	Kind        string // pid, cgroup, all
	Name        string
	Pid         int
	Cgroup      string
	CgroupDepth int
	// Edges are the readings at the windows' edges, the first at the start.
	Edges []Edge
	// ExitedAfterNs is when the target was found gone, from the first edge
	// (0: it ran to the end).
	ExitedAfterNs uint64
	ProcMethod    string
	Preempters    []phase.Preempter
}

// Programs is the programs' cost read at one edge (cumulative).
type Programs struct {
	AtNs uint64
	Cost []phase.ProgramCost
}

// Ladder is a ladder figure of this machine from its history.
type Ladder struct {
	Name, Placement string
	OneWayNs        float64
	Sittings        int
	At              string
}

// Run is everything one attach read.
type Run struct {
	Method, Probes  string
	ProbeStatus     []result.AttachProbe
	DurationSeconds float64
	WindowSeconds   float64
	RateLimit       float64
	Ended           string
	Targets         []Target
	Programs        []Programs // at each edge
	StatsOn         bool
	// Arch names syscall numbers (amd64, arm64).
	Arch string
	// HardwareCounters says whether the machine has them (HWNote why not).
	HardwareCounters bool
	HWNote           string
	// Ladder are this machine's bare hops from its history (none: not
	// recorded); Pool a pool experiment's series of this machine, and the
	// file it came from.
	Ladder   []Ladder
	Pool     *result.PoolSeries
	PoolFile string
	Notes    []string
	// Self is ctxbench's own process (its reading may preempt a target).
	Self int
}

// IndirectMethod is the method an indirect cost would be measured with.
const IndirectMethod = "instructions per cycle in the first microseconds after a switch-in against the task's steady state (hardware performance counters)"

// Aggregate builds the attach section from what the run read.
func Aggregate(r Run) *result.Attach {
	a := &result.Attach{Method: r.Method, Probes: r.Probes, ProbeStatus: r.ProbeStatus, DurationSeconds: r.DurationSeconds,
		WindowSeconds: r.WindowSeconds, RateLimit: r.RateLimit, Ended: r.Ended, Targets: []result.AttachTarget{},
		Notes: r.Notes}
	if a.ProbeStatus == nil {
		a.ProbeStatus = []result.AttachProbe{}
	}
	var switches uint64
	for _, t := range r.Targets {
		at := target(t, r)
		switches += at.Switches
		a.Seconds = max(a.Seconds, seconds(t.Edges))
		a.Targets = append(a.Targets, at)
	}
	a.Overhead = overhead(r, switches)
	a.Indirect = result.AttachIndirect{Method: IndirectMethod}
	if r.HardwareCounters {
		a.Indirect.Reason = "this build does not measure it: the direct share only"
	} else {
		a.Indirect.Reason = "this machine has no hardware performance counters (" + r.HWNote + "): the direct share only"
	}
	return a
}

func seconds(edges []Edge) float64 {
	if len(edges) < 2 {
		return 0
	}
	return float64(edges[len(edges)-1].AtNs-edges[0].AtNs) / 1e9
}

// ratio is a/b, 0 where b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ptr(v float64) *float64 { return &v }

// figure is the whole run's value with the windows' median and interval.
func figure(value float64, windows []float64) result.AttachFigure {
	f := result.AttachFigure{Value: value, Windows: len(windows)}
	switch w := stats.MedianInterval(windows); {
	case w.OK:
		f.Median, f.Low, f.High, f.Confidence = w.Median, w.Lo, w.Hi, w.Confidence
	case len(windows) == 1:
		f.Median, f.Low, f.High = windows[0], windows[0], windows[0]
	default:
		f.Median, f.Low, f.High = value, value, value
	}
	return f
}

// scaledDirect is a window's direct time with the switches the rate limit
// left untimed counted at the timed ones' mean.
func scaledDirect(d *phase.InPlaceTarget) float64 {
	s := d.TimedShare()
	if s == 0 {
		return 0
	}
	return float64(d.DirectNs()) / s
}

// runQueueNs is a window's run-queue wait, the untimed switch-ins counted
// at the timed ones' mean.
func runQueueNs(d *phase.InPlaceTarget) float64 {
	var ns float64
	for k := range phase.NumRunQueueKinds {
		ns += float64(d.Counts[phase.CountRunQueueNs+phase.Counter(k)])
	}
	if in, timed := d.Counts[phase.CountIn], d.Counts[phase.CountInTimed]; timed > 0 && in > timed {
		ns *= float64(in) / float64(timed)
	}
	return ns
}

func target(t Target, r Run) result.AttachTarget {
	at := result.AttachTarget{Kind: t.Kind, Name: t.Name, Pid: t.Pid, Cgroup: t.Cgroup, CgroupDepth: t.CgroupDepth,
		Kinds: []result.AttachKind{}, Phases: []result.AttachPhase{}, BlockedIn: []result.AttachSyscall{},
		Windows: []result.AttachWindow{}}
	at.Proc.Method = t.ProcMethod
	if t.ExitedAfterNs > 0 {
		at.ExitedAfterSeconds = ptr(float64(t.ExitedAfterNs) / 1e9)
	}
	at.Preemptions.Top = []result.AttachPreempter{}
	at.RunQueue.Kinds = []result.AttachWait{}
	if len(t.Edges) < 2 {
		return at
	}
	first, last := t.Edges[0], t.Edges[len(t.Edges)-1]
	whole := last.BPF.Sub(&first.BPF)
	secs := seconds(t.Edges)
	at.Switches = whole.Switches()
	all := t.Kind == "all"
	var rate, nsPer, share, runq []float64
	for i := 1; i < len(t.Edges); i++ {
		e0, e1 := t.Edges[i-1], t.Edges[i]
		d := e1.BPF.Sub(&e0.BPF)
		s := float64(e1.AtNs-e0.AtNs) / 1e9
		if s <= 0 {
			continue
		}
		at.Processes, at.Threads = max(at.Processes, e1.Proc.Processes), max(at.Threads, e1.Proc.Threads)
		w := result.AttachWindow{StartSeconds: float64(e0.AtNs-first.AtNs) / 1e9, Seconds: s,
			SwitchesPerS: float64(d.Switches()) / s, RunQueueShare: runQueueNs(&d) / (s * 1e9)}
		cpu := sub(e1.Proc.CPUNs, e0.Proc.CPUNs)
		w.CPUPerS = float64(cpu) / (s * 1e9)
		w.ProcSwitchesPerS = procSwitches(e0, e1, all) / s
		if !all && (e1.Proc.Switches < e0.Proc.Switches || e1.Proc.CPUNs < e0.Proc.CPUNs) {
			at.Proc.ExitedInAWindow = true // a task's counts left with it
		}
		if timed := d.Counts[phase.CountTimed]; timed > 0 {
			w.NsPerSwitch = ptr(float64(d.DirectNs()) / float64(timed))
			nsPer = append(nsPer, *w.NsPerSwitch)
		}
		if cpu > 0 {
			w.ShareLost = ptr(scaledDirect(&d) / float64(cpu))
			share = append(share, *w.ShareLost)
		}
		rate = append(rate, w.SwitchesPerS)
		runq = append(runq, w.RunQueueShare)
		at.Windows = append(at.Windows, w)
	}
	at.SwitchesPerS = figure(float64(at.Switches)/secs, rate)
	timed := whole.Counts[phase.CountTimed]
	at.TimedShare = whole.TimedShare()
	direct := 0.0
	if timed > 0 {
		direct = float64(whole.DirectNs()) / float64(timed)
	}
	at.NsPerSwitch = figure(direct, nsPer)
	cpu := sub(last.Proc.CPUNs, first.Proc.CPUNs)
	at.CPUPerS = float64(cpu) / (secs * 1e9)
	at.ShareLost = figure(ratio(scaledDirect(&whole), float64(cpu)), share)
	at.RunQueue.ShareOfWall = figure(runQueueNs(&whole)/(secs*1e9), runq)
	at.RunQueue.Kinds = waits(&whole)
	at.Kinds = kinds(&whole, secs)
	at.Wakeups = wakeups(&whole, secs)
	at.Preemptions = preemptions(&whole, t.Preempters, secs, r.Self)
	at.Percentiles = percentiles(&whole)
	at.Phases, at.Closure = phases(&whole)
	at.BlockedIn = blockedIn(&whole, r.Arch)
	procTotal := procSwitches(first, last, all)
	at.Proc.SwitchesPerS = procTotal / secs
	counted := float64(at.Switches)
	if all {
		// The machine's ctxt counts every switch: away from idle too, and
		// from idle to ctxbench itself (its switches away are in Self).
		counted += float64(whole.Counts[phase.CountInFromIdle] + whole.Counts[phase.CountSelfFromIdle])
	}
	at.Proc.Agreement = ratio(counted, procTotal)
	at.Proc.RunQueueShare = float64(sub(last.Proc.RunQueueNs, first.Proc.RunQueueNs)) / (secs * 1e9)
	at.Proc.CPUPerS = at.CPUPerS
	at.WhatIf = whatIf(at, &whole, r)
	return at
}

// procSwitches is the target's own count of switches between two edges
// (for the machine, ctxt less ctxbench's own switches, which the programs
// leave out).
func procSwitches(e0, e1 Edge, all bool) float64 {
	n := float64(sub(e1.Proc.Switches, e0.Proc.Switches))
	if all {
		n -= float64(sub(e1.Self, e0.Self))
	}
	return max(n, 0)
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

// kinds are the switches by kind: away (voluntary, involuntary, to idle),
// in (how the task came, from idle), and migrations.
func kinds(w *phase.InPlaceTarget, secs float64) []result.AttachKind {
	out := []result.AttachKind{}
	outs := w.Switches()
	ins := w.Counts[phase.CountIn]
	var inTimed uint64
	for c := phase.ClassWokenSame; c <= phase.ClassUnknown; c++ {
		inTimed += w.Classes[c].Count
	}
	add := func(key string, n uint64, of uint64, perS float64, c *phase.SwitchClass) {
		k := result.AttachKind{Kind: key, Switches: n, PerS: perS, Share: ratio(float64(n), float64(of))}
		if c != nil && w.Classes[*c].Count > 0 {
			cl := w.Classes[*c]
			h := w.ClassHist[*c]
			k.NsPerSwitch = ptr(float64(cl.Ns) / float64(cl.Count))
			k.P50, k.P99 = ptr(h.Quantile(0.5)), ptr(h.Quantile(0.99))
		}
		out = append(out, k)
	}
	for _, c := range []phase.SwitchClass{phase.ClassVoluntary, phase.ClassInvoluntary} {
		n := w.Counts[phase.CountOutVoluntary]
		if c == phase.ClassInvoluntary {
			n = w.Counts[phase.CountOutInvoluntary]
		}
		c := c
		add(c.Key(), n, outs, float64(n)/secs, &c)
	}
	add("to_idle", w.Counts[phase.CountOutToIdle], outs, float64(w.Counts[phase.CountOutToIdle])/secs, nil)
	for c := phase.ClassWokenSame; c <= phase.ClassUnknown; c++ {
		n := w.Classes[c].Count
		if n == 0 && c >= phase.ClassNew {
			continue
		}
		sh := ratio(float64(n), float64(inTimed))
		c := c
		add(c.Key(), n, inTimed, sh*float64(ins)/secs, &c)
	}
	add("from_idle", w.Counts[phase.CountInFromIdle], ins, float64(w.Counts[phase.CountInFromIdle])/secs, nil)
	mig := w.Counts[phase.CountMigrated]
	add("migrated", mig, w.Counts[phase.CountInTimed], ratio(float64(mig), float64(w.Counts[phase.CountInTimed]))*float64(ins)/secs, nil)
	return out
}

func wakeups(w *phase.InPlaceTarget, secs float64) result.AttachWakeups {
	n := float64(w.Counts[phase.CountWakeups])
	out := result.AttachWakeups{PerS: n / secs, BySameShare: ratio(float64(w.Counts[phase.CountWakeupsBySame]), n),
		RemoteShare: ratio(float64(w.Counts[phase.CountWakeRemote]), n)}
	if m := w.Counts[phase.CountWakeN]; m > 0 {
		out.NsPerWakeup = ptr(float64(w.Counts[phase.CountWakeNs]) / float64(m))
	}
	return out
}

func preemptions(w *phase.InPlaceTarget, who []phase.Preempter, secs float64, self int) result.AttachPreemptions {
	n := float64(w.Counts[phase.CountOutInvoluntary])
	p := result.AttachPreemptions{PerS: n / secs, BySame: float64(w.Counts[phase.CountPreemptBySame]) / secs,
		ByTarget: float64(w.Counts[phase.CountPreemptByTarget]) / secs, ByKernelThread: float64(w.Counts[phase.CountPreemptByKthread]) / secs,
		ByOther: float64(w.Counts[phase.CountPreemptByOther]) / secs, Top: []result.AttachPreempter{}}
	who = slices.Clone(who)
	sort.SliceStable(who, func(i, j int) bool { return who[i].N > who[j].N })
	for i, q := range who {
		if i == 5 {
			break
		}
		comm := q.Comm
		if self > 0 && q.TGID == self {
			comm += " (this ctxbench, reading the programs)"
		}
		p.Top = append(p.Top, result.AttachPreempter{Comm: comm, Pid: q.TGID, PerS: float64(q.N) / secs, Share: ratio(float64(q.N), n)})
	}
	return p
}

func waits(w *phase.InPlaceTarget) []result.AttachWait {
	out := []result.AttachWait{}
	for k := range phase.RunQueueKind(phase.NumRunQueueKinds) {
		h := &w.RunQueue[k]
		n := w.Counts[phase.CountRunQueueN+phase.Counter(k)]
		if n == 0 {
			continue
		}
		out = append(out, result.AttachWait{Kind: k.Key(), Waits: n,
			MeanNs: float64(w.Counts[phase.CountRunQueueNs+phase.Counter(k)]) / float64(n),
			P50:    h.Quantile(0.5), P90: h.Quantile(0.9), P99: h.Quantile(0.99), P99_9: h.Quantile(0.999)})
	}
	return out
}

// percentiles of one switch's path: the histograms of the switches away
// (each switch's path once).
func percentiles(w *phase.InPlaceTarget) *result.AttachPercentiles {
	var h phase.Hist
	for _, c := range []phase.SwitchClass{phase.ClassVoluntary, phase.ClassInvoluntary} {
		for i := range h {
			h[i] += w.ClassHist[c][i]
		}
	}
	if h.Count() == 0 {
		return nil
	}
	return &result.AttachPercentiles{P50: h.Quantile(0.5), P90: h.Quantile(0.9), P99: h.Quantile(0.99)}
}

func phases(w *phase.InPlaceTarget) ([]result.AttachPhase, float64) {
	out := []result.AttachPhase{}
	timed := w.Counts[phase.CountTimed]
	b := phase.InPlaceBreakdown(w, timed)
	sum := b.SumPhases()
	for _, p := range b.Phases {
		out = append(out, result.AttachPhase{Name: p.Name, What: p.What, Kinds: p.Kinds, From: p.From.String(), To: p.To.String(),
			Ns: p.NsPerHop, PerSwitch: p.PerHop, Share: ratio(p.NsPerHop, sum)})
	}
	return out, b.Closure
}

func blockedIn(w *phase.InPlaceTarget, arch string) []result.AttachSyscall {
	type nr struct {
		n     int
		count uint64
	}
	var all []nr
	var total uint64
	for i, c := range w.Blocked {
		if c > 0 {
			all = append(all, nr{i, c})
			total += c
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].count > all[j].count })
	out := []result.AttachSyscall{}
	for i, s := range all {
		if i == 5 {
			break
		}
		out = append(out, result.AttachSyscall{Syscall: SyscallName(arch, s.n), Share: ratio(float64(s.count), float64(total))})
	}
	return out
}

func overhead(r Run, switches uint64) result.AttachOverhead {
	o := result.AttachOverhead{StatsOn: r.StatsOn, Programs: []result.AttachProgram{},
		Method: "the kernel's BPF run-time statistics (kernel.bpf_stats_enabled, on while attached): each program's runs and run time; " +
			"the tracepoints' dispatch and what the programs do to the caches of the work around them are not in them"}
	if len(r.Programs) < 2 {
		return o
	}
	p0, p1 := r.Programs[0], r.Programs[len(r.Programs)-1]
	secs := float64(p1.AtNs-p0.AtNs) / 1e9
	var runs, ns uint64
	for _, c := range p1.Cost {
		var b phase.ProgramCost
		for _, x := range p0.Cost {
			if x.Name == c.Name {
				b = x
			}
		}
		dr, dn := sub(c.Runs, b.Runs), sub(c.RunNs, b.RunNs)
		runs += dr
		ns += dn
		o.Missed += sub(c.Missed, b.Missed)
		if dr == 0 || secs <= 0 {
			continue
		}
		o.Programs = append(o.Programs, result.AttachProgram{Name: c.Name, RunsPerS: float64(dr) / secs, NsPerRun: float64(dn) / float64(dr)})
	}
	o.NsPerRun = ratio(float64(ns), float64(runs))
	o.NsPerSwitch = ratio(float64(ns), float64(switches))
	var per []float64
	for i := 1; i < len(r.Programs); i++ {
		var d uint64
		for _, c := range r.Programs[i].Cost {
			for _, x := range r.Programs[i-1].Cost {
				if x.Name == c.Name {
					d += sub(c.RunNs, x.RunNs)
				}
			}
		}
		if s := float64(r.Programs[i].AtNs - r.Programs[i-1].AtNs); s > 0 {
			per = append(per, float64(d)/s)
		}
	}
	if secs > 0 {
		o.CPUShare = figure(float64(ns)/(secs*1e9), per)
	}
	return o
}

// whatIf sets the target's switch rate beside this machine's ladder hops
// and, where a pool experiment's curve is given, its switches per query.
func whatIf(at result.AttachTarget, w *phase.InPlaceTarget, r Run) *result.AttachWhatIf {
	wi := &result.AttachWhatIf{Ladder: []result.AttachLadder{}, Why: []string{}}
	find := func(name, placement string) *Ladder {
		for i := range r.Ladder {
			if r.Ladder[i].Name == name && r.Ladder[i].Placement == placement {
				return &r.Ladder[i]
			}
		}
		return nil
	}
	same, cross := find("thread/pipe", "same-cpu"), find("thread/pipe", "cross-cpu")
	for _, l := range []*Ladder{same, cross} {
		if l != nil {
			wi.Ladder = append(wi.Ladder, result.AttachLadder{Name: l.Name, Placement: l.Placement, OneWayNs: l.OneWayNs, Sittings: l.Sittings, At: l.At})
		}
	}
	var crossShare float64
	for _, k := range at.Kinds {
		if k.Kind == phase.ClassWokenCross.Key() {
			crossShare = k.Share
		}
	}
	// Priced at the same-cpu hop only: that is a switch's direct cost. The
	// cross-cpu hop is mostly the wait for the other CPU (the IPI's flight,
	// an idle vCPU's wake-up), time no CPU spends: a reason, not a price.
	if same != nil && at.CPUPerS > 0 {
		wi.ShareAtLadder = ptr(at.SwitchesPerS.Value * same.OneWayNs / (at.CPUPerS * 1e9))
	} else if same == nil {
		wi.Note = "this machine's history holds no thread/pipe same-cpu ladder figure: run `ctxbench run thread/pipe --placement same-cpu,cross-cpu` to set one beside it"
	}
	if crossShare > 0.05 {
		why := fmt.Sprintf("%.0f%% of its switches in were woken from another CPU: the wakeup is sent by an IPI and the woken CPU often leaves an idle state", 100*crossShare)
		if cross != nil && same != nil {
			why += fmt.Sprintf(" (the ladder's cross-cpu hop here takes %s, %.1f× its same-cpu one, mostly waiting)", fmtNs(cross.OneWayNs), cross.OneWayNs/same.OneWayNs)
		}
		wi.Why = append(wi.Why, why)
	}
	ins := float64(w.Counts[phase.CountIn])
	if fi := ratio(float64(w.Counts[phase.CountInFromIdle]), ins); fi > 0.05 {
		wi.Why = append(wi.Why, fmt.Sprintf("%.0f%% of its switches in came out of idle: the CPU left an idle state for them", 100*fi))
	}
	if at.CgroupDepth > 1 {
		wi.Why = append(wi.Why, fmt.Sprintf("its tasks run %d cgroup levels deep: a switch walks a scheduling entity per level", at.CgroupDepth))
	}
	if r.Pool != nil {
		wi.Pool = pool(r.Pool, r.PoolFile, at.NsPerSwitch.Value)
	}
	return wi
}

// fmtNs is a time for a sentence (the document's prose, not a table: the
// views format their own figures).
func fmtNs(ns float64) string {
	if ns >= 1000 {
		return fmt.Sprintf("%.1f µs", ns/1000)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// pool reads a pool series' points at the target's measured cost per
// switch: the server's switches per query times that cost, over its CPU
// time per query.
func pool(s *result.PoolSeries, file string, nsPerSwitch float64) *result.AttachPool {
	p := &result.AttachPool{File: file, Server: s.Server, Series: s.Client + " " + s.Placement, Points: []result.AttachPoolPoint{}}
	for _, pt := range s.Points {
		q := pt.PerQuery
		if q.ServerVoluntary == nil || q.ServerInvoluntary == nil {
			continue
		}
		spq := *q.ServerVoluntary + *q.ServerInvoluntary
		pp := result.AttachPoolPoint{Pool: pt.Pool, QueriesPerS: pt.QPS.Median, SwitchesPerQuery: spq, SwitchesPerS: spq * pt.QPS.Median}
		if q.ServerCPUNs != nil && *q.ServerCPUNs > 0 && nsPerSwitch > 0 {
			pp.ShareLost = ptr(spq * nsPerSwitch / *q.ServerCPUNs)
		}
		p.Points = append(p.Points, pp)
	}
	return p
}

// SyscallName names a syscall number of arch; an unnamed one is its
// number.
func SyscallName(arch string, nr int) string {
	if nr == phase.InPlaceSyscalls-1 {
		return fmt.Sprintf("syscall %d or above", nr)
	}
	if n, ok := syscalls[arch][nr]; ok {
		return n
	}
	return fmt.Sprintf("syscall %d", nr)
}

// syscalls are the numbers of the calls a task commonly blocks in, per
// architecture (the kernel's unistd tables).
var syscalls = map[string]map[int]string{
	"amd64": {0: "read", 1: "write", 7: "poll", 16: "ioctl", 17: "pread64", 19: "readv", 20: "writev", 23: "select",
		24: "sched_yield", 34: "pause", 35: "nanosleep", 42: "connect", 43: "accept", 44: "sendto", 45: "recvfrom",
		46: "sendmsg", 47: "recvmsg", 61: "wait4", 65: "semop", 70: "msgrcv", 73: "flock", 74: "fsync", 75: "fdatasync",
		128: "rt_sigtimedwait", 130: "rt_sigsuspend", 202: "futex", 220: "semtimedop", 230: "clock_nanosleep",
		232: "epoll_wait", 247: "waitid", 270: "pselect6", 271: "ppoll", 281: "epoll_pwait", 288: "accept4",
		426: "io_uring_enter", 441: "epoll_pwait2", 449: "futex_waitv", 454: "futex_wake", 455: "futex_wait"},
	"arm64": {22: "epoll_pwait", 29: "ioctl", 56: "openat", 63: "read", 64: "write", 65: "readv", 66: "writev",
		67: "pread64", 72: "pselect6", 73: "ppoll", 82: "fsync", 83: "fdatasync", 98: "futex", 101: "nanosleep",
		115: "clock_nanosleep", 124: "sched_yield", 133: "rt_sigsuspend", 137: "rt_sigtimedwait", 192: "semtimedop",
		202: "accept", 203: "connect", 206: "sendto", 207: "recvfrom", 211: "sendmsg", 212: "recvmsg", 242: "accept4",
		260: "wait4", 426: "io_uring_enter", 441: "epoll_pwait2", 449: "futex_waitv", 454: "futex_wake", 455: "futex_wait"},
}
