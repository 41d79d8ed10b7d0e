// Package ringproc runs a ring of processes passing a token (lmbench
// lat_ctx): N-1 member processes and a head chained by pipes or eventfds,
// the head timing whole rounds. The members are this binary re-executed as
// partners (internal/partner) running the ring kernels of
// internal/kernels, each optionally in a container of its own, verified
// from outside before the ring runs. A single-threaded ring's head is a
// partner too and every process is re-executed into C before its Go
// runtime starts; otherwise the members run the ring kernel from Go and
// the head runs in this process, as a multi-threaded service's would.
package ringproc

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/partner"
)

// Config is one process ring.
type Config struct {
	// Ring is the ring's size, working set, links and sample length. The
	// one-context overheads are always measured (Ring.Overhead is not
	// read).
	Ring kernels.RingConfig
	// Block is the head's block: its sampling and Perf; CPUA is the head's
	// CPU and every even member's, CPUB every odd member's.
	Block kernels.Block
	// SingleThreaded: the head and the members are this binary
	// re-executed into st.c's ring roles, so no process of the ring is
	// multi-threaded, and the head measures the overheads in its own
	// process, as lmbench does. Otherwise the head and the overheads run
	// in this process.
	SingleThreaded bool
	// Container, when set, starts every member but the head in a
	// container of its own.
	Container *container.Spec
}

// Containers is what the members' containers were made of and how many
// members were verified from outside to have entered them (zero without
// containers).
type Containers struct {
	Label    string
	Members  int
	Verified int
	Failure  string // the first failed verification's summary
}

// ring is one run's processes, links and containers.
type ring struct {
	cfg       Config
	n         int
	links     links
	self      *container.SelfApplied
	set       *container.Set
	instances []*container.Instance // by member, while it runs in one
	members   []*partner.Process    // members 1..n-1
	head      *partner.Process      // the single-threaded head
	// unlock ends the goroutine that started the partners, whose thread
	// must outlive them (see start).
	unlock chan struct{}
}

// Run starts the ring, runs it, and collects every member's counts. The
// output is the head's (the ring's samples, the head's counts in A, the
// rounds, the token, the one-context overheads) with the members' added as
// a thread ring's are: B their counts summed, Passes, MinPasses and
// MaxPasses what they counted. When a link or a process could not be
// created, Errno is the errno and the error names the limit it hit.
func Run(ctx context.Context, cfg Config) (kernels.RingOutput, Containers, error) {
	r := &ring{cfg: cfg, n: cfg.Ring.Tasks, links: links{ipc: cfg.Ring.IPC}, unlock: make(chan struct{})}
	defer r.close()
	if err := r.enterContainers(); err != nil {
		return kernels.RingOutput{}, Containers{}, err
	}
	// Links (until handed over), one control pipe per partner, its stdin
	// while it starts, and the overhead's own links afterwards (a
	// single-threaded head inherits this limit).
	if err := host.RaiseOpenFiles(uint64(r.n)*(LinkFDs(cfg.Ring.IPC)+2) + 64); err != nil {
		return kernels.RingOutput{}, Containers{}, err
	}
	if err := r.links.open(r.n); err != nil {
		return limited(err)
	}
	if err := r.start(ctx); err != nil {
		r.killAll()
		return limited(err)
	}
	c := r.verifyContainers()
	if err := r.letGo(); err != nil {
		r.killAll()
		return kernels.RingOutput{}, c, err
	}
	out, err := r.runHead(ctx)
	if err == nil {
		err = r.collect(&out)
	}
	if err == nil {
		err = r.overheads(&out)
	}
	return out, c, err
}

// limited is a failure to create part of the ring: its errno, and the
// limit it hit named.
func limited(err error) (kernels.RingOutput, Containers, error) {
	errno := errnoOf(err)
	return kernels.RingOutput{Errno: errno}, Containers{}, fmt.Errorf("%w%s", err, host.LimitHint(errno, "process"))
}

// close ends what a run leaves: the thread that started the partners, this
// process's ends of the links, the members' containers.
func (r *ring) close() {
	close(r.unlock)
	r.links.closeAll()
	for _, in := range r.instances {
		if in != nil {
			in.Release()
		}
	}
	if r.set != nil {
		r.set.Close()
	}
}

// enterContainers prepares the members' containers: what each applies to
// itself before it reports ready, and the set that starts them.
func (r *ring) enterContainers() error {
	r.instances = make([]*container.Instance, r.n)
	if r.cfg.Container == nil {
		return nil
	}
	sa, err := container.SelfApply(*r.cfg.Container)
	if err != nil {
		return err
	}
	r.self = &sa
	set, err := container.NewSet(*r.cfg.Container)
	if err != nil {
		return err
	}
	r.set = set
	return nil
}

// start starts the members and, single-threaded, the head, from one
// goroutine locked to its thread until close: a partner's Pdeathsig fires
// when the thread that started it exits, not the process.
func (r *ring) start(ctx context.Context) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		started <- r.startProcesses(ctx)
		<-r.unlock
		runtime.UnlockOSThread()
	}()
	return <-started
}

func (r *ring) startProcesses(ctx context.Context) error {
	for i := 1; i < r.n; i++ {
		p, err := partner.Start(ctx, r.memberSpec(i))
		r.links.handedOver(i)
		if err != nil {
			return fmt.Errorf("could not start ring member process %d of %d: %w", i+1, r.n, err)
		}
		r.members = append(r.members, p)
	}
	if !r.cfg.SingleThreaded {
		return nil
	}
	var err error
	r.head, err = partner.Start(ctx, partner.Spec{
		Request: partner.Request{Block: r.cfg.Block}, Files: []*os.File{r.links.rd[r.n-1], r.links.wr[0]}, Stderr: os.Stderr,
		SingleThreaded: "ring-head",
		Ring:           &partner.RingHead{Tasks: r.n, MinSampleNS: r.cfg.Ring.MinSampleNS, IPC: r.cfg.Ring.IPC, Overhead: true},
	})
	r.links.closeAll() // every link is in its processes now
	if err != nil {
		return fmt.Errorf("could not start the ring's head process: %w", err)
	}
	return nil
}

// memberSpec is member i: the ring member kernel on the links it reads and
// writes, pinned to CPUB when i is odd and CPUA when even, started into a
// container of its own when the ring has them.
func (r *ring) memberSpec(i int) partner.Spec {
	cpu := r.cfg.Block.CPUA
	if i%2 == 1 {
		cpu = r.cfg.Block.CPUB
	}
	spec := partner.Spec{
		Request: partner.Request{Kernel: kernels.RingMember, Block: kernels.Block{
			Iters: 1, Samples: 1, CPUA: -1, CPUB: cpu, Arg: r.cfg.Ring.WorkingSet, Perf: r.cfg.Block.Perf}},
		Files:  []*os.File{r.links.rd[i-1], r.links.wr[i]},
		Stderr: os.Stderr,
	}
	if r.cfg.SingleThreaded {
		spec.SingleThreaded, spec.Confine = "ring-member", r.self
	}
	if r.set != nil {
		spec.Start = func(cmd *exec.Cmd) error {
			in, err := r.set.Start(cmd, "m"+strconv.Itoa(i))
			r.instances[i] = in
			return err
		}
	}
	return spec
}

func (r *ring) killAll() {
	for _, p := range r.members {
		p.Kill()
	}
	if r.head != nil {
		r.head.Kill()
	}
}

// verifyContainers checks from outside what every member entered.
func (r *ring) verifyContainers() Containers {
	if r.set == nil {
		return Containers{}
	}
	c := Containers{Label: r.set.Label(), Members: len(r.members)}
	bad := 0
	for _, in := range r.instances {
		if in == nil {
			continue
		}
		if v := in.Verify(); !v.OK {
			bad++
			if c.Failure == "" {
				c.Failure = v.Summary()
			}
		}
	}
	c.Verified = len(r.members) - bad
	return c
}

// letGo releases every single-threaded process into its loop, the head
// last.
func (r *ring) letGo() error {
	if !r.cfg.SingleThreaded {
		return nil
	}
	for _, p := range append(slices.Clone(r.members), r.head) {
		if err := p.Go(); err != nil {
			return fmt.Errorf("releasing a ring process: %w", err)
		}
	}
	return nil
}

type headResult struct {
	out kernels.RingOutput
	err error
}

// runHead waits for the head's samples. A member that dies makes the next
// one read end-of-file (pipes); an eventfd has no end-of-file, so the head
// is stopped directly (startHead's abort). A ring that failed names the
// member that died.
func (r *ring) runHead(ctx context.Context) (kernels.RingOutput, error) {
	died := r.watchMembers()
	headCh, abort := r.startHead()
	var h headResult
	var dead *partner.Process
	select {
	case h = <-headCh:
	case dead = <-died:
		abort()
		h = <-headCh
	case <-ctx.Done():
		abort()
		<-headCh
		return kernels.RingOutput{}, ctx.Err()
	}
	if dead == nil && h.err == nil {
		return h.out, nil
	}
	r.killAll()
	if dead == nil {
		dead = r.firstDead()
	}
	if dead != nil {
		if h.err == nil {
			return h.out, fmt.Errorf("a ring member process died: %w", dead.ExitError())
		}
		return h.out, fmt.Errorf("a ring member process died: %w (head: %w)", dead.ExitError(), h.err)
	}
	return h.out, h.err
}

// watchMembers reports every member that exits with an error.
func (r *ring) watchMembers() <-chan *partner.Process {
	died := make(chan *partner.Process, len(r.members))
	for _, p := range r.members {
		go func() {
			<-p.Exited()
			if p.ExitError() != nil {
				died <- p
			}
		}()
	}
	return died
}

func (r *ring) firstDead() *partner.Process {
	for _, p := range r.members {
		if p.ExitError() != nil {
			return p
		}
	}
	return nil
}

// startHead runs the head's loop: the single-threaded head, released with
// the members, is read; otherwise the head runs here, on the last link's
// read end and the first link's write end, without the overheads (they
// are measured after the ring). abort stops it early: it kills the
// partners, and tells a head in this process by a stop token in its own
// link.
func (r *ring) startHead() (<-chan headResult, func()) {
	ch := make(chan headResult, 1)
	if r.cfg.SingleThreaded {
		go func() {
			out, err := r.head.RingOutput()
			ch <- headResult{out, err}
		}()
		return ch, r.killAll
	}
	blk := r.cfg.Block
	blk.FD[0], blk.FD[1] = int(r.links.rd[r.n-1].Fd()), int(r.links.wr[0].Fd())
	cfg := r.cfg.Ring
	cfg.Overhead = false
	go func() {
		out, err := kernels.RingHead(blk, cfg)
		ch <- headResult{out, err}
	}()
	abort := func() {
		r.killAll()
		if last := r.links.rd[r.n-1]; last != nil {
			var stop [8]byte
			binary.NativeEndian.PutUint64(stop[:], 1<<63)
			_, _ = unix.Write(int(last.Fd()), stop[:])
		}
	}
	return ch, abort
}

// collect adds the members' counts to the head's output: B is their counts
// summed (a perf count stays -1 only when no member had it), Passes the
// passes they counted, MinPasses and MaxPasses the fewest and the most of
// one member.
func (r *ring) collect(out *kernels.RingOutput) error {
	out.MinPasses = ^uint64(0)
	if r.n == 1 {
		out.MinPasses = 0
	}
	b := kernels.Counts{PerfSwitches: -1, PerfMigrations: -1, PerfInstructions: -1, PerfCycles: -1}
	for i, p := range r.members {
		c, err := p.Result()
		if err != nil {
			r.killAll()
			return fmt.Errorf("ring member process %d of %d: %w", i+2, r.n, err)
		}
		out.Passes += c.Ops
		out.MinPasses = min(out.MinPasses, c.Ops)
		out.MaxPasses = max(out.MaxPasses, c.Ops)
		b.Voluntary += c.Voluntary
		b.Involuntary += c.Involuntary
		b.CPUsSeen |= c.CPUsSeen
		b.Ops += c.Ops
		addPerf(&b.PerfSwitches, c.PerfSwitches)
		addPerf(&b.PerfMigrations, c.PerfMigrations)
		addPerf(&b.PerfInstructions, c.PerfInstructions)
		addPerf(&b.PerfCycles, c.PerfCycles)
	}
	out.B = b
	return nil
}

func addPerf(sum *int64, v int64) {
	if v < 0 {
		return
	}
	if *sum < 0 {
		*sum = 0
	}
	*sum += v
}

// overheads completes the one-context overheads: the single-threaded head
// measured them in its own process (one per sample); otherwise they are
// measured here, at the ring's rounds per sample.
func (r *ring) overheads(out *kernels.RingOutput) error {
	if r.cfg.SingleThreaded {
		if len(out.OverheadNS) != len(out.NS) {
			return fmt.Errorf("the ring's head reported %d overhead samples for %d samples", len(out.OverheadNS), len(out.NS))
		}
		return nil
	}
	blk := r.cfg.Block
	blk.Iters = out.RoundsPerSample
	ov, err := kernels.RingOverhead(blk, r.cfg.Ring)
	if err != nil {
		return fmt.Errorf("ring overhead: %w", err)
	}
	out.OverheadNS, out.OverheadTSC = ov.OverheadNS, ov.OverheadTSC
	out.HotNS, out.HotTSC = ov.HotNS, ov.HotTSC
	return nil
}
