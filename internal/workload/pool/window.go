package pool

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctxbench/ctxbench/internal/workload/hist"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// placement is where the server and the client may run for a window.
type placement struct {
	name   string
	server []int
	client []int
}

// Workers query in every phase but phaseStop and record only in
// phaseMeasure: the load runs on, unrecorded, while the counters at either
// end of the window are read, so the server's counters see the same load
// the client's do.
const (
	phaseWarmup int32 = iota
	phaseMeasure
	phaseEnd // the clock has stopped; the end counters are being read
	phaseStop
)

// workerState is one worker's private record: no sharing, no allocation while timing.
type workerState struct {
	lat, wait hist.H
	_         [64]byte // keep neighbours' hot fields off this cache line
}

type runner struct {
	cfg     *Config
	perfOK  bool
	workers []workerState
	retried []string
}

// apply pins the server's processes and this process's threads, and sets GOMAXPROCS to
// the number of client CPUs (the runtime reads affinity only at start-up).
func (r *runner) apply(t *target, pl placement) error {
	if t.hasProcs() {
		if err := t.pin(pl.server); err != nil {
			return fmt.Errorf("pin %s to CPUs %v: %w", t.kind, pl.server, err)
		}
	}
	if err := procs.PinSelf(pl.client); err != nil {
		return fmt.Errorf("pin client to CPUs %v: %w", pl.client, err)
	}
	runtime.GOMAXPROCS(len(pl.client))
	return nil
}

// sleep waits d unless ctx ends or the server exits first.
func sleep(ctx context.Context, t *target, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.exitedOrNever():
		return t.alive()
	}
}

func (t *target) exitedOrNever() <-chan struct{} {
	if t.exited == nil {
		return nil
	}
	return t.exited
}

// perfCounter opens the per-CPU switch counter for a pinned placement, or returns nil.
func (r *runner) perfCounter(pl placement) *procs.CPUSwitches {
	if !r.cfg.Perf || !r.perfOK || pl.name == Unpinned || len(pl.server) != 1 {
		return nil
	}
	c, err := procs.OpenCPUSwitches(pl.server[0])
	if err != nil {
		return nil
	}
	return c
}

// baseline measures an idle window: server running, no pool open, client idle.
func (r *runner) baseline(ctx context.Context, t *target, pl placement) (Baseline, error) {
	b := Baseline{Placement: pl.name}
	if err := r.apply(t, pl); err != nil {
		return b, err
	}
	if r.cfg.QuietWait > 0 {
		if _, err := waitQuiet(ctx, pl.cpus(), r.cfg.QuietWait); err != nil {
			return b, err
		}
	}
	d := r.cfg.Baseline
	if d == 0 {
		d = r.cfg.Duration
	}
	pc := r.perfCounter(pl)
	if pc != nil {
		defer pc.Close()
	}
	var s0, a0, s1, a1 procs.Counters
	var err error
	if t.hasProcs() {
		if s0, a0, err = t.counters(nil); err != nil {
			return b, err
		}
	}
	var p0, p1 uint64
	if pc != nil {
		p0, _ = pc.Read()
	}
	used := pl.cpus()
	ct0, _ := procs.ReadCPUTime(used)
	ru0 := procs.Self()
	t0 := time.Now()
	if err := sleep(ctx, t, d); err != nil {
		return b, err
	}
	secs := time.Since(t0).Seconds()
	ru := procs.Self().Sub(ru0)
	ct1, _ := procs.ReadCPUTime(used)
	if pc != nil {
		p1, _ = pc.Read()
		v := float64(p1-p0) / secs
		b.PerfSwitchesPerSec = &v
	}
	if t.hasProcs() {
		if s1, a1, err = t.counters(nil); err != nil {
			return b, err
		}
		b.ServingSwitchesPerSec = float64(s1.Sub(s0).Switches()) / secs
		b.AuxSwitchesPerSec = float64(a1.Sub(a0).Switches()) / secs
	}
	b.Seconds = secs
	b.ForeignUtil = max(0, (float64(ct1.BusyNs-ct0.BusyNs)-float64(ru.CPUNs())-float64(s1.Sub(s0).CPUNs+a1.Sub(a0).CPUNs))/(secs*1e9*float64(len(used))))
	b.ClientSwitchesPerSec = float64(ru.Voluntary+ru.Involuntary) / secs
	b.ClientCPUPerSec = float64(ru.CPUNs()) / 1e9 / secs
	return b, nil
}

// window runs one measured window and returns its record.
func (r *runner) window(ctx context.Context, t *target, spec WindowSpec, pl placement, base Baseline) (w Window, err error) {
	if err := t.alive(); err != nil {
		return w, err
	}
	if testHookWindow != nil {
		if err := testHookWindow(spec); err != nil {
			return w, err
		}
	}
	if err := r.apply(t, pl); err != nil {
		return w, err
	}
	if r.cfg.QuietWait > 0 {
		waited, err := waitQuiet(ctx, pl.cpus(), r.cfg.QuietWait)
		if err != nil {
			return w, err
		}
		w.QuietWaitNs = int64(waited)
	}
	w.GOMAXPROCS = runtime.GOMAXPROCS(0)
	w.Rep = spec.Rep

	// Setting up a pool is bounded, so a hung server fails the window instead
	// of hanging the run. (The checks after the window get their own bound:
	// this one may have run out during a long window.)
	setupTimeout := r.cfg.WindowTimeout
	if setupTimeout == 0 {
		setupTimeout = 30 * time.Second
	}
	sctx, scancel := context.WithTimeout(ctx, 2*setupTimeout)
	defer scancel()
	cl, err := newClient(sctx, spec.Client, t, spec.Pool)
	if err != nil {
		if aerr := t.alive(); aerr != nil {
			return w, aerr
		}
		return w, fmt.Errorf("%s pool of %d: %w", spec.Client, spec.Pool, err)
	}
	if rc, ok := cl.(*redisClient); ok {
		rc.setKeys(r.cfg.Rows)
	}
	var closeOnce sync.Once
	closeClient := func() { closeOnce.Do(cl.close) }
	defer func() {
		closeClient()
		r.waitClosed(t)
	}()
	ids0, err := cl.ids(sctx)
	if err != nil {
		return w, fmt.Errorf("read connection ids: %w", err)
	}
	st0 := cl.stats()
	children0 := t.children()
	var recv0 int64
	if rc, ok := cl.(*redisClient); ok {
		recv0 = rc.connectionsReceived(sctx)
	}

	nw := spec.Workers
	if nw == 0 {
		nw = spec.Pool
	}
	if cap(r.workers) < nw {
		r.workers = make([]workerState, nw)
	}
	ws := r.workers[:nw]
	for i := range ws {
		ws[i].lat.Reset()
		ws[i].wait.Reset()
	}
	// The first query error; workers stop on it and the window fails.
	var failed atomic.Pointer[error]

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var phase atomic.Int32
	var wg sync.WaitGroup
	seed := r.cfg.Seed ^ uint64(spec.Rep)<<32 ^ uint64(spec.Pool)<<16
	rows := r.cfg.Rows
	for i := range ws {
		wg.Add(1)
		go func(st *workerState, rng *rand.Rand) {
			defer wg.Done()
			for phase.Load() != phaseStop {
				id := rng.IntN(rows) + 1
				t0 := time.Now()
				waitNs, err := cl.query(wctx, id)
				el := time.Since(t0)
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				if phase.Load() == phaseMeasure {
					st.lat.Record(int64(el))
					if waitNs >= 0 {
						st.wait.Record(waitNs)
					}
				}
			}
		}(&ws[i], rand.New(rand.NewPCG(seed, uint64(i))))
	}
	stopWorkers := func() error {
		phase.Store(phaseStop)
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		timeout := r.cfg.WindowTimeout
		if timeout == 0 {
			timeout = 30 * time.Second
		}
		select {
		case <-done:
			return nil
		case <-time.After(timeout):
			cancel()
			select {
			case <-done:
			case <-time.After(min(5*time.Second, timeout)):
				// go-redis does not abort a blocked read on cancellation; closing the
				// client's sockets does.
				closeClient()
				<-done
			}
			return fmt.Errorf("%s did not answer within %v after the window ended (hung)", t.kind, timeout)
		}
	}
	defer func() {
		if phase.Load() != phaseStop {
			cancel()
			_ = stopWorkers()
		}
	}()

	if err := sleep(ctx, t, r.cfg.Warmup); err != nil {
		return w, err
	}
	if err := firstErr(&failed); err != nil {
		return w, err
	}

	// Open the window: server counters, then client rusage, then the clock, so the
	// reading of /proc falls outside the client's window.
	pc := r.perfCounter(pl)
	if pc != nil {
		defer pc.Close()
	}
	// Reading hundreds of /proc files from a goroutine that shares one CPU with a
	// thousand busy ones takes a while; each end's read is timed, and the server's
	// counters are scaled by the interval between the two reads' midpoints.
	var s0, a0 procs.Counters
	r0a := time.Now()
	if t.hasProcs() {
		if s0, a0, err = t.counters(ids0ForCounters(t, ids0)); err != nil {
			return w, err
		}
	}
	r0b := time.Now()
	cs0 := cl.stats()
	used := pl.cpus()
	ct0, _ := procs.ReadCPUTime(used)
	ru0 := procs.Self()
	var p0 uint64
	if pc != nil {
		p0, _ = pc.Read()
	}
	t0 := time.Now()
	phase.Store(phaseMeasure)

	werr := sleep(ctx, t, r.cfg.Duration)

	phase.Store(phaseEnd)
	t1 := time.Now()
	var p1 uint64
	if pc != nil {
		p1, _ = pc.Read()
	}
	ru := procs.Self().Sub(ru0)
	ct1, _ := procs.ReadCPUTime(used)
	cs1 := cl.stats()
	var s1, a1 procs.Counters
	var cerr error
	r1a := time.Now()
	if t.hasProcs() && werr == nil {
		s1, a1, cerr = t.counters(ids0ForCounters(t, ids0))
	}
	r1b := time.Now()
	if err := stopWorkers(); err != nil {
		return w, err
	}
	if werr != nil {
		return w, werr
	}
	if err := firstErr(&failed); err != nil {
		return w, err
	}
	if cerr != nil {
		return w, cerr
	}

	// Connections: same server-side ids, no library-side opens or closes, no other
	// backend appeared.
	actx, acancel := context.WithTimeout(ctx, setupTimeout)
	defer acancel()
	ids1, err := cl.ids(actx)
	if err != nil {
		return w, fmt.Errorf("read connection ids after the window: %w", err)
	}
	st1 := cl.stats()
	w.Conns = ConnCheck{Opened: len(ids0)}
	var problems []string
	if len(ids0) != spec.Pool || !slices.Equal(ids0, ids1) {
		problems = append(problems, fmt.Sprintf("server-side ids changed (%d before, %d after)", len(ids0), len(ids1)))
	}
	if st1.created != st0.created || st1.closed != st0.closed {
		problems = append(problems, fmt.Sprintf("library opened %d and closed %d connections during the window", st1.created-st0.created, st1.closed-st0.closed))
	}
	if t.kind == Postgres && t.hasProcs() {
		if c1 := t.children(); !slices.Equal(sortedInts(children0), sortedInts(c1)) {
			problems = append(problems, fmt.Sprintf("postmaster children changed (%d before, %d after)", len(children0), len(c1)))
		}
	}
	if rc, ok := cl.(*redisClient); ok {
		if recv1 := rc.connectionsReceived(actx); recv1 != recv0 {
			problems = append(problems, fmt.Sprintf("server accepted %d connections during the window", recv1-recv0))
		}
	}
	w.Conns.Stable = len(problems) == 0
	if w.Conns.Stable {
		what := "backend pids"
		if t.kind == Redis {
			what = "client ids"
		}
		w.Conns.Detail = fmt.Sprintf("%d %s identical before and after; %s opened no connection", len(ids0), what, spec.Client)
	} else {
		w.Conns.Detail = fmt.Sprint(problems)
	}

	// Figures.
	var lat, wait hist.H
	for i := range ws {
		lat.Merge(&ws[i].lat)
		wait.Merge(&ws[i].wait)
	}
	secs := t1.Sub(t0).Seconds()
	q := lat.Count()
	w.Seconds = secs
	w.Queries = q
	if q == 0 {
		return w, fmt.Errorf("no query completed in a %.3f s window (%s, pool %d)", secs, spec.Client, spec.Pool)
	}
	fq := float64(q)
	w.QPS = fq / secs
	w.Latency.Mean = lat.Mean()
	w.Latency.P50 = lat.Quantile(0.50)
	w.Latency.P90 = lat.Quantile(0.90)
	w.Latency.P99 = lat.Quantile(0.99)
	w.Latency.P999 = lat.Quantile(0.999)
	w.Latency.Max = lat.Max()
	if wait.Count() > 0 {
		w.PoolWaitNs = wait.Mean()
		p99 := wait.Quantile(0.99)
		w.PoolWaitP99Ns = &p99
	} else {
		w.PoolWaitNs = float64(cs1.waitNs-cs0.waitNs) / fq
	}
	w.HeldNs = w.Latency.Mean - w.PoolWaitNs

	w.Client = ru
	pq := &w.PerQuery
	net := func(count uint64, perSec float64) float64 {
		return max(0, (float64(count)-perSec*secs)/fq)
	}
	// The idle client's switches (nearly all voluntary: timers, sysmon) come off the
	// voluntary count.
	pq.ClientVoluntary = net(ru.Voluntary, base.ClientSwitchesPerSec)
	pq.ClientInvoluntary = float64(ru.Involuntary) / fq
	pq.ClientCPUNs = max(0, float64(ru.CPUNs())-base.ClientCPUPerSec*1e9*secs) / fq
	w.ClientUtil = float64(ru.CPUNs()) / 1e9 / (secs * float64(len(pl.client)))
	w.ClientBound = w.ClientUtil >= ClientBoundUtil
	w.CounterReadNs = [2]int64{int64(r0b.Sub(r0a)), int64(r1b.Sub(r1a))}
	if t.hasProcs() {
		s, a := s1.Sub(s0), a1.Sub(a0)
		w.Serving, w.Aux = &s, &a
		// Server deltas cover the span between the reads' midpoints; the queries in
		// that span are qps × span.
		span := (r1a.Sub(r0a) + r1b.Sub(r0b)).Seconds() / 2
		w.ServerSeconds = span
		sq := w.QPS * span
		snet := func(count uint64, perSec float64) float64 {
			return max(0, (float64(count)-perSec*span)/sq)
		}
		sv := snet(s.Voluntary, base.ServingSwitchesPerSec)
		si := float64(s.Involuntary) / sq
		ax := snet(a.Switches(), base.AuxSwitchesPerSec)
		scpu := float64(s.CPUNs) / sq
		acpu := float64(a.CPUNs) / sq
		rq := float64(s.RunqWaitNs) / sq
		pq.ServerVoluntary, pq.ServerInvoluntary, pq.ServerAux = &sv, &si, &ax
		pq.ServerCPUNs, pq.ServerAuxCPUNs, pq.ServerRunqWaitNs = &scpu, &acpu, &rq
		w.ServerUtil = float64(s.CPUNs+a.CPUNs) / 1e9 / (span * float64(len(pl.server)))
	}
	// Everything else that ran on this window's CPUs: the trust indicator for a shared
	// machine. /proc/stat has 10 ms ticks, so small values are noise.
	capNs := secs * 1e9 * float64(len(used))
	other := float64(ct1.BusyNs-ct0.BusyNs) - float64(ru.CPUNs())
	if w.Serving != nil {
		other -= float64(w.Serving.CPUNs+w.Aux.CPUNs) * secs / w.ServerSeconds
	}
	w.ForeignUtil = max(0, other/capNs)
	w.StealUtil = float64(ct1.StealNs-ct0.StealNs) / capNs
	if pc != nil {
		n := p1 - p0
		w.PerfSwitch = &n
		var rate float64
		if base.PerfSwitchesPerSec != nil {
			rate = *base.PerfSwitchesPerSec
		}
		v := net(n, rate)
		pq.PerfCPUSwitches = &v
	}
	return w, nil
}

// cpus is the union of the server's and the client's CPUs.
func (pl placement) cpus() []int {
	u := slices.Clone(pl.server)
	for _, c := range pl.client {
		if !slices.Contains(u, c) {
			u = append(u, c)
		}
	}
	slices.Sort(u)
	return u
}

// quietShare is the share of the CPUs other processes may use for them to count as quiet.
const quietShare = 0.10

// waitQuiet samples the CPUs' busy time over 200 ms while this run is idle (no pool
// open, server idle) until the share is below quietShare or limit has passed.
func waitQuiet(ctx context.Context, cpus []int, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		a, err := procs.ReadCPUTime(cpus)
		if err != nil {
			return 0, nil //nolint:nilerr // no /proc/stat: nothing to wait for, and no reason to fail the window
		}
		t0 := time.Now()
		select {
		case <-ctx.Done():
			return time.Since(start), ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		b, _ := procs.ReadCPUTime(cpus)
		share := float64(b.BusyNs-a.BusyNs) / (float64(time.Since(t0)) * float64(len(cpus)))
		if share < quietShare || time.Since(start) >= limit {
			return time.Since(start), nil
		}
	}
}

// ClientBoundUtil is the client CPU share from which a point is flagged client-bound.
const ClientBoundUtil = 0.9

// ids0ForCounters returns the backend pids whose counters are the serving tasks.
func ids0ForCounters(t *target, ids []int64) []int64 {
	if t.kind == Postgres {
		return ids
	}
	return nil
}

func firstErr(failed *atomic.Pointer[error]) error {
	if e := failed.Load(); e != nil {
		return fmt.Errorf("query failed: %w", *e)
	}
	return nil
}

func sortedInts(v []int) []int {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// waitClosed waits (up to 10 s) until the backends of a closed PostgreSQL pool have
// exited, so the next window starts with only the server's own processes.
func (r *runner) waitClosed(t *target) {
	if t.kind != Postgres || !t.hasProcs() {
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, p := range t.children() {
			if !t.isAux(p) {
				n++
			}
		}
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
