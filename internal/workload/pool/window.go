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

// window runs one measured window and returns its record, in the steps of
// docs/pool.md ("What is timed"): ready (pin, quiet), open the pool and
// read its connections, start the load, warm up, measure (the only timed
// part), stop the load, check the connections, then the figures.
func (r *runner) window(ctx context.Context, t *target, spec WindowSpec, pl placement, base Baseline) (w Window, err error) {
	if w, err = r.ready(ctx, t, spec, pl); err != nil {
		return w, err
	}
	// Setting up a pool is bounded, so a hung server fails the window instead
	// of hanging the run. (The checks after the window get their own bound:
	// this one may have run out during a long window.)
	bound := r.timeout()
	sctx, scancel := context.WithTimeout(ctx, 2*bound)
	defer scancel()
	cl, err := r.open(sctx, t, spec)
	if err != nil {
		return w, err
	}
	var closeOnce sync.Once
	closeClient := func() { closeOnce.Do(cl.close) }
	defer func() {
		closeClient()
		t.waitClosed()
	}()
	before, err := readConns(sctx, t, cl)
	if err != nil {
		return w, err
	}

	ld := r.startLoad(ctx, cl, spec)
	defer ld.cancel()
	defer func() {
		if ld.phase.Load() != phaseStop {
			ld.cancel()
			_ = ld.stop(bound, closeClient, t.kind)
		}
	}()
	if err := sleep(ctx, t, r.cfg.Warmup); err != nil {
		return w, err
	}
	if err := ld.err(); err != nil {
		return w, err
	}

	pc := r.perfCounter(pl)
	if pc != nil {
		defer pc.Close()
	}
	m, err := measure(ctx, r.cfg.Duration, t, cl, pl, pc, before.ids, &ld.phase)
	if err != nil {
		return w, err
	}
	if err := ld.stop(bound, closeClient, t.kind); err != nil {
		return w, err
	}
	if m.werr != nil {
		return w, m.werr
	}
	if err := ld.err(); err != nil {
		return w, err
	}
	if m.cerr != nil {
		return w, m.cerr
	}

	actx, acancel := context.WithTimeout(ctx, bound)
	defer acancel()
	if w.Conns, err = checkConns(actx, t, cl, spec, before); err != nil {
		return w, err
	}
	return w, figures(&w, ld.workers, &m, base, pl, spec)
}

// timeout bounds a pool's set-up and the workers' stop (WindowTimeout, or 30 s).
func (r *runner) timeout() time.Duration {
	if r.cfg.WindowTimeout == 0 {
		return 30 * time.Second
	}
	return r.cfg.WindowTimeout
}

// ready checks the server is up, pins the placement and waits, if asked,
// for the CPUs to be quiet; the record starts with what that decided.
func (r *runner) ready(ctx context.Context, t *target, spec WindowSpec, pl placement) (w Window, err error) {
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
	return w, nil
}

// open opens the window's pool of exactly spec.Pool connections, each
// holding the prepared query. A server that died meanwhile says so rather
// than the client's error.
func (r *runner) open(ctx context.Context, t *target, spec WindowSpec) (client, error) {
	cl, err := newClient(ctx, spec.Client, t, spec.Pool)
	if err != nil {
		if aerr := t.alive(); aerr != nil {
			return nil, aerr
		}
		return nil, fmt.Errorf("%s pool of %d: %w", spec.Client, spec.Pool, err)
	}
	if rc, ok := cl.(*redisClient); ok {
		rc.setKeys(r.cfg.Rows)
	}
	return cl, nil
}

// conns is what the pool's connections looked like before the window,
// for checkConns to compare after it.
type conns struct {
	ids      []int64 // server-side ids, sorted
	stats    clientStats
	children []int // PostgreSQL: the postmaster's children
	received int64 // Redis: total_connections_received
}

// readConns holds every connection at once and reads the ids, then the
// library's and the server's own counts.
func readConns(ctx context.Context, t *target, cl client) (c conns, err error) {
	if c.ids, err = cl.ids(ctx); err != nil {
		return c, fmt.Errorf("read connection ids: %w", err)
	}
	c.stats = cl.stats()
	c.children = t.children()
	if rc, ok := cl.(*redisClient); ok {
		c.received = rc.connectionsReceived(ctx)
	}
	return c, nil
}

// load is a window's workers: goroutines that query without pause from
// the warm-up until stop, and record only while the phase is phaseMeasure.
type load struct {
	phase   atomic.Int32
	failed  atomic.Pointer[error] // the first query error; workers stop on it and the window fails
	wg      sync.WaitGroup
	cancel  context.CancelFunc
	workers []workerState
}

// startLoad starts the window's workers (spec.Workers, or one per
// connection), each with its own seeded ids and histograms reset.
func (r *runner) startLoad(ctx context.Context, cl client, spec WindowSpec) *load {
	nw := spec.Workers
	if nw == 0 {
		nw = spec.Pool
	}
	if cap(r.workers) < nw {
		r.workers = make([]workerState, nw)
	}
	ld := &load{workers: r.workers[:nw]}
	for i := range ld.workers {
		ld.workers[i].lat.Reset()
		ld.workers[i].wait.Reset()
	}
	wctx, cancel := context.WithCancel(ctx)
	ld.cancel = cancel
	seed := r.cfg.Seed ^ uint64(spec.Rep)<<32 ^ uint64(spec.Pool)<<16
	rows := r.cfg.Rows
	for i := range ld.workers {
		ld.wg.Add(1)
		go func(st *workerState, rng *rand.Rand) {
			defer ld.wg.Done()
			for ld.phase.Load() != phaseStop {
				id := rng.IntN(rows) + 1
				t0 := time.Now()
				waitNs, err := cl.query(wctx, id)
				el := time.Since(t0)
				if err != nil {
					ld.failed.CompareAndSwap(nil, &err)
					return
				}
				if ld.phase.Load() == phaseMeasure {
					st.lat.Record(int64(el))
					if waitNs >= 0 {
						st.wait.Record(waitNs)
					}
				}
			}
		}(&ld.workers[i], rand.New(rand.NewPCG(seed, uint64(i))))
	}
	return ld
}

// stop ends the load and waits for the workers. A server that does not
// answer within timeout hangs the window: the workers' queries are
// cancelled, and the client's sockets closed if that does not free them.
func (ld *load) stop(timeout time.Duration, closeClient func(), kind string) error {
	ld.phase.Store(phaseStop)
	done := make(chan struct{})
	go func() { ld.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(timeout):
		ld.cancel()
		select {
		case <-done:
		case <-time.After(min(5*time.Second, timeout)):
			// go-redis does not abort a blocked read on cancellation; closing the
			// client's sockets does.
			closeClient()
			<-done
		}
		return fmt.Errorf("%s did not answer within %v after the window ended (hung)", kind, timeout)
	}
}

// err is the first query error of the load, if any.
func (ld *load) err() error {
	if e := ld.failed.Load(); e != nil {
		return fmt.Errorf("query failed: %w", *e)
	}
	return nil
}

// edges is what measure read at either end of the window.
type edges struct {
	t0, t1             time.Time // the client's window
	r0a, r0b, r1a, r1b time.Time // around the reads of the server's counters
	s0, a0, s1, a1     procs.Counters
	cs0, cs1           clientStats
	used               []int // the placement's CPUs
	ct0, ct1           procs.CPUTime
	ru                 procs.Rusage // the client's, over the window
	p0, p1             uint64       // the server CPU's perf count
	server, perf       bool         // the server's counters and the perf count were read
	werr               error        // the window's wait: the server exited or ctx ended
	cerr               error        // reading the server's counters at the end
}

// measure is the timed part: it opens the window (server counters, then
// the client's, then the clock, so reading /proc falls outside the
// client's window), lets the load run for d with the workers recording,
// and closes it in the reverse order. The workers keep the load on,
// unrecorded, while the end's counters are read. An error reading the
// server's counters at the start is returned; later errors are in the
// edges, for the caller to report after the load has stopped.
func measure(ctx context.Context, d time.Duration, t *target, cl client, pl placement, pc *procs.CPUSwitches,
	ids0 []int64, phase *atomic.Int32) (m edges, err error) {
	// Reading hundreds of /proc files from a goroutine that shares one CPU with a
	// thousand busy ones takes a while; each end's read is timed, and the server's
	// counters are scaled by the interval between the two reads' midpoints.
	m.server, m.perf = t.hasProcs(), pc != nil
	m.r0a = time.Now()
	if t.hasProcs() {
		if m.s0, m.a0, err = t.counters(ids0ForCounters(t, ids0)); err != nil {
			return m, err
		}
	}
	m.r0b = time.Now()
	m.cs0 = cl.stats()
	m.used = pl.cpus()
	m.ct0, _ = procs.ReadCPUTime(m.used)
	ru0 := procs.Self()
	if pc != nil {
		m.p0, _ = pc.Read()
	}
	m.t0 = time.Now()
	phase.Store(phaseMeasure)

	m.werr = sleep(ctx, t, d)

	phase.Store(phaseEnd)
	m.t1 = time.Now()
	if pc != nil {
		m.p1, _ = pc.Read()
	}
	m.ru = procs.Self().Sub(ru0)
	m.ct1, _ = procs.ReadCPUTime(m.used)
	m.cs1 = cl.stats()
	m.r1a = time.Now()
	if t.hasProcs() && m.werr == nil {
		m.s1, m.a1, m.cerr = t.counters(ids0ForCounters(t, ids0))
	}
	m.r1b = time.Now()
	return m, nil
}

// checkConns is the evidence the window kept its connections: the same
// server-side ids, no library-side opens or closes, no other backend or
// accepted connection.
func checkConns(ctx context.Context, t *target, cl client, spec WindowSpec, before conns) (ConnCheck, error) {
	ids1, err := cl.ids(ctx)
	if err != nil {
		return ConnCheck{}, fmt.Errorf("read connection ids after the window: %w", err)
	}
	st0, st1 := before.stats, cl.stats()
	c := ConnCheck{Opened: len(before.ids)}
	var problems []string
	if len(before.ids) != spec.Pool || !slices.Equal(before.ids, ids1) {
		problems = append(problems, fmt.Sprintf("server-side ids changed (%d before, %d after)", len(before.ids), len(ids1)))
	}
	if st1.created != st0.created || st1.closed != st0.closed {
		problems = append(problems, fmt.Sprintf("library opened %d and closed %d connections during the window", st1.created-st0.created, st1.closed-st0.closed))
	}
	if t.kind == Postgres && t.hasProcs() {
		if c1 := t.children(); !slices.Equal(sortedInts(before.children), sortedInts(c1)) {
			problems = append(problems, fmt.Sprintf("postmaster children changed (%d before, %d after)", len(before.children), len(c1)))
		}
	}
	if rc, ok := cl.(*redisClient); ok {
		if recv1 := rc.connectionsReceived(ctx); recv1 != before.received {
			problems = append(problems, fmt.Sprintf("server accepted %d connections during the window", recv1-before.received))
		}
	}
	c.Stable = len(problems) == 0
	if c.Stable {
		what := "backend pids"
		if t.kind == Redis {
			what = "client ids"
		}
		c.Detail = fmt.Sprintf("%d %s identical before and after; %s opened no connection", len(before.ids), what, spec.Client)
	} else {
		c.Detail = fmt.Sprint(problems)
	}
	return c, nil
}

// figures turns the workers' histograms and the window's edges into the
// record: throughput and latency, then the client's, the server's and
// everything else's share of the CPUs.
func figures(w *Window, ws []workerState, m *edges, base Baseline, pl placement, spec WindowSpec) error {
	secs, fq, err := latencies(w, ws, m, spec)
	if err != nil {
		return err
	}
	w.Client = m.ru
	pq := &w.PerQuery
	// net takes the idle baseline's rate over the window off a count and
	// divides by the queries (clamped at 0).
	net := func(count uint64, perSec float64) float64 {
		return max(0, (float64(count)-perSec*secs)/fq)
	}
	// The idle client's switches (nearly all voluntary: timers, sysmon) come off the
	// voluntary count.
	pq.ClientVoluntary = net(m.ru.Voluntary, base.ClientSwitchesPerSec)
	pq.ClientInvoluntary = float64(m.ru.Involuntary) / fq
	pq.ClientCPUNs = max(0, float64(m.ru.CPUNs())-base.ClientCPUPerSec*1e9*secs) / fq
	w.ClientUtil = float64(m.ru.CPUNs()) / 1e9 / (secs * float64(len(pl.client)))
	w.ClientBound = w.ClientUtil >= ClientBoundUtil
	w.CounterReadNs = [2]int64{int64(m.r0b.Sub(m.r0a)), int64(m.r1b.Sub(m.r1a))}
	if m.server {
		serverCosts(w, m, base, pl)
	}
	// Everything else that ran on this window's CPUs: the trust indicator for a shared
	// machine. /proc/stat has 10 ms ticks, so small values are noise.
	capNs := secs * 1e9 * float64(len(m.used))
	other := float64(m.ct1.BusyNs-m.ct0.BusyNs) - float64(m.ru.CPUNs())
	if w.Serving != nil {
		other -= float64(w.Serving.CPUNs+w.Aux.CPUNs) * secs / w.ServerSeconds
	}
	w.ForeignUtil = max(0, other/capNs)
	w.StealUtil = float64(m.ct1.StealNs-m.ct0.StealNs) / capNs
	if m.perf {
		n := m.p1 - m.p0
		w.PerfSwitch = &n
		var rate float64
		if base.PerfSwitchesPerSec != nil {
			rate = *base.PerfSwitchesPerSec
		}
		v := net(n, rate)
		pq.PerfCPUSwitches = &v
	}
	return nil
}

// latencies merges the workers' histograms into the window's throughput,
// latency and pool wait; it returns the window's length and the queries
// completed in it, which every per-query figure divides by.
func latencies(w *Window, ws []workerState, m *edges, spec WindowSpec) (secs, fq float64, err error) {
	var lat, wait hist.H
	for i := range ws {
		lat.Merge(&ws[i].lat)
		wait.Merge(&ws[i].wait)
	}
	secs = m.t1.Sub(m.t0).Seconds()
	q := lat.Count()
	w.Seconds = secs
	w.Queries = q
	if q == 0 {
		return secs, 0, fmt.Errorf("no query completed in a %.3f s window (%s, pool %d)", secs, spec.Client, spec.Pool)
	}
	fq = float64(q)
	w.QPS = fq / secs
	w.Latency = Latency{Mean: lat.Mean(), P50: lat.Quantile(0.50), P90: lat.Quantile(0.90), P99: lat.Quantile(0.99),
		P999: lat.Quantile(0.999), Max: lat.Max()}
	if wait.Count() > 0 {
		w.PoolWaitNs = wait.Mean()
		p99 := wait.Quantile(0.99)
		w.PoolWaitP99Ns = &p99
	} else {
		w.PoolWaitNs = float64(m.cs1.waitNs-m.cs0.waitNs) / fq
	}
	w.HeldNs = w.Latency.Mean - w.PoolWaitNs
	return secs, fq, nil
}

// serverCosts divides the server's counter deltas by the queries of the
// span they cover: between the midpoints of the two reads, the queries in
// it being qps × span.
func serverCosts(w *Window, m *edges, base Baseline, pl placement) {
	s, a := m.s1.Sub(m.s0), m.a1.Sub(m.a0)
	w.Serving, w.Aux = &s, &a
	span := (m.r1a.Sub(m.r0a) + m.r1b.Sub(m.r0b)).Seconds() / 2
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
	pq := &w.PerQuery
	pq.ServerVoluntary, pq.ServerInvoluntary, pq.ServerAux = &sv, &si, &ax
	pq.ServerCPUNs, pq.ServerAuxCPUNs, pq.ServerRunqWaitNs = &scpu, &acpu, &rq
	w.ServerUtil = float64(s.CPUNs+a.CPUNs) / 1e9 / (span * float64(len(pl.server)))
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

func sortedInts(v []int) []int {
	s := slices.Clone(v)
	slices.Sort(s)
	return s
}

// waitClosed waits (up to 10 s) until the backends of a closed PostgreSQL pool have
// exited, so the next window starts with only the server's own processes.
func (t *target) waitClosed() {
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
