// Package memory measures what an execution context costs to keep: N
// parked goroutines, threads, processes or containers, and per context the
// resident and proportional set size, the kernel's stacks, page tables and
// slab from /proc/meminfo, and the virtual reservation (reported apart from
// what is resident). Goroutines and threads are parked in a re-executed
// copy of this program (ParkMain) and measured as the difference between
// that child before and after; processes and containers are N children
// summed, each the minimal static ELF parked in pause(2) (or, for
// "process-go", an idle re-executed Go program).
package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/spawn"
	"golang.org/x/sys/unix"
)

// Kind is one memory measurement.
type Kind struct {
	Name    string `json:"name"`
	Context string `json:"context"`
	What    string `json:"what"`
	Default int    `json:"default_n"`
}

var kinds = []Kind{
	{Name: "goroutine", Context: "goroutine", Default: 100000,
		What: "goroutines parked on a channel receive in a re-executed ctxbench process"},
	{Name: "thread", Context: "thread", Default: 10000,
		What: "pthreads with default attributes blocked in pthread_cond_wait in a re-executed ctxbench process"},
	{Name: "process", Context: "process", Default: 1000,
		What: "processes running the minimal static ELF, asleep in pause(2)"},
	{Name: "process-go", Context: "process", Default: 1000,
		What: "re-executed ctxbench processes (Go runtime started) blocked reading stdin"},
	{Name: "container", Context: "container", Default: 100,
		What: "the minimal static ELF asleep in pause(2), each in its own pid+net+mnt+ipc+uts+cgroup namespaces and own cpu cgroup at depth 2"},
}

// Available says whether kind can run here, and if not, why.
func (k Kind) Available() (bool, string) {
	switch k.Name {
	case "thread":
		if !kernels.Built {
			return false, kernels.ErrNoCgo.Error()
		}
		if !kernels.SpawnBuilt {
			return false, "the threads are parked by the creation kernels (spawn_park.c), which are in ctxbench's Linux C code only"
		}
	case "process":
		if ok, why := platform.This.Gives(platform.ExecTarget); !ok {
			return false, why
		}
	case "container":
		if err := container.Check(containerSpec); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}

// containerSpec is what each parked container gets.
var containerSpec = container.Spec{PID: true, Net: true, Mnt: true, IPC: true, UTS: true, CgroupNS: true, CgroupDepth: 2}

// Kinds lists the memory measurements.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// Lookup finds a kind by name.
func Lookup(name string) (Kind, error) {
	for _, k := range kinds {
		if k.Name == name {
			return k, nil
		}
	}
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	return Kind{}, fmt.Errorf("unknown memory kind %q (want one of %s)", name, strings.Join(names, ", "))
}

// Options tune a run.
type Options struct {
	N       int           // contexts to park; 0: the kind's default
	Timeout time.Duration // for the whole run; 0: 5 minutes
	// NoSettle skips waiting for /proc/meminfo to settle before each
	// reading (up to ~13 s per run on a busy machine): faster, noisier
	// kernel figures. The cgroup-charged figures are unaffected.
	NoSettle bool
}

// PerContext is bytes per context.
type PerContext struct {
	RSS     float64 `json:"rss"`     // resident set (smaps_rollup Rss), shared pages counted in full
	PSS     float64 `json:"pss"`     // proportional set (smaps_rollup Pss), shared pages split
	Virtual float64 `json:"virtual"` // address space reserved (VmSize): not memory used
	// From /proc/meminfo deltas over the whole machine (noisy: anything
	// else running moves them too).
	KernelStack float64 `json:"kernel_stack"`
	PageTables  float64 `json:"page_tables"`
	Slab        float64 `json:"slab"`
	SystemUsed  float64 `json:"system_used"` // MemTotal - MemAvailable
	// Resident is PSS + kernel stack + page tables: what a context keeps
	// in RAM, without slab (too noisy at small N to add in).
	Resident float64 `json:"resident"`
	// Charged to the memory cgroup the contexts were born in (exact, not
	// disturbed by the rest of the machine): user pages and kernel memory
	// (stacks, page tables, slab). Zero when no memory cgroup was usable.
	ChargedUser   float64 `json:"charged_user"`
	ChargedKernel float64 `json:"charged_kernel"`
	Charged       float64 `json:"charged"`
	// Go's own account (goroutine kind): runtime.MemStats deltas.
	GoStackInuse float64 `json:"go_stack_inuse,omitempty"`
	GoSys        float64 `json:"go_sys,omitempty"`
	// Runtime is another runtime's own count of what one parked context
	// takes (a probe's first memory metric, named by RuntimeMetric).
	Runtime       float64 `json:"runtime,omitempty"`
	RuntimeMetric string  `json:"runtime_metric,omitempty"`
}

// Result is one memory measurement.
type Result struct {
	Kind      string     `json:"kind"`
	Context   string     `json:"context"`
	Label     string     `json:"label"`
	Requested int        `json:"requested"`
	Reached   int        `json:"reached"`
	Limit     string     `json:"limit,omitempty"` // why fewer than requested
	Per       PerContext `json:"per_context"`
	// CreateNs is the time to create the N contexts divided by N, in a
	// fresh process: first-touch creation, including page faults.
	CreateNs float64  `json:"create_ns_per_context,omitempty"`
	Limits   []string `json:"limits"` // the system limits that bound N, as read
	Notes    []string `json:"notes,omitempty"`
}

// Run measures kind. Runs must not overlap (each reads machine-wide
// counters).
func Run(name string, opt Options) (Result, error) {
	k, err := Lookup(name)
	if err != nil {
		return Result{}, err
	}
	n := opt.N
	if n == 0 {
		n = k.Default
	}
	if n < 1 {
		return Result{}, fmt.Errorf("memory %s: need at least one context, got %d", name, n)
	}
	if ok, why := k.Available(); !ok {
		return Result{}, fmt.Errorf("memory %s: %s", name, why)
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res := Result{Kind: k.Name, Context: k.Context, Requested: n}
	res.Limits, res.Notes = prepareLimits(k, n)
	res.Notes = append(res.Notes, platformNotes()...)
	settle = !opt.NoSettle
	if !settle {
		res.Notes = append(res.Notes, "meminfo read without waiting for it to settle")
	}
	a, why := newAcct()
	if a == nil {
		res.Notes = append(res.Notes, "no memory cgroup accounting (charged_* are 0): "+why)
	} else {
		defer a.close()
	}
	switch k.Name {
	case "goroutine", "thread":
		err = runInChild(ctx, k, n, a, &res)
	case "process":
		err = runELFs(ctx, n, nil, a, &res)
	case "container":
		spec := containerSpec
		err = runELFs(ctx, n, &spec, a, &res)
	case "process-go":
		err = runGoProcs(ctx, n, a, &res)
	}
	if err != nil {
		return Result{}, fmt.Errorf("memory %s: %w", name, err)
	}
	if res.Reached < res.Requested && res.Limit == "" {
		res.Limit = "stopped early for an unknown reason"
	}
	res.Per.Resident = res.Per.PSS + res.Per.KernelStack + res.Per.PageTables
	if p := res.Per; p.KernelStack < 0 || p.PageTables < 0 || p.Slab < 0 || p.SystemUsed < 0 {
		res.Notes = append(res.Notes, "some /proc/meminfo deltas are negative: other activity on the machine (or asynchronous frees from earlier runs, e.g. net namespaces) outweighed these contexts; trust the charged_* figures, which only count the contexts' own memory cgroup")
	}
	return res, nil
}

// runInChild parks n goroutines or threads in a re-executed child and
// measures the child before and after.
func runInChild(ctx context.Context, k Kind, n int, a *acct, res *Result) error {
	cmd := SelfCommand(k.Name, fmt.Sprint(n))
	cmd.SysProcAttr = host.DieWithParent(&syscall.SysProcAttr{Setpgid: true})
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := startAccounted(cmd, a); err != nil {
		return fmt.Errorf("starting the parking child: %w", err)
	}
	forget := container.TrackProcess(-cmd.Process.Pid)
	defer func() {
		stdin.Close()
		waitOrKill(cmd, 10*time.Second)
		forget()
	}()
	lines := bufio.NewReader(stdout)
	base, err := readReport(ctx, lines, "base")
	if err != nil {
		return err
	}
	pid := cmd.Process.Pid
	p0, r0, err := a.readChild(pid)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		return fmt.Errorf("releasing the parking child: %w", err)
	}
	parked, err := readReport(ctx, lines, "parked")
	if err != nil {
		return err
	}
	p1, r1, err := a.readChild(pid)
	if err != nil {
		return err
	}
	res.Reached = parked.Created
	if parked.Err != "" {
		res.Limit = explainLimit(k, parked.Err)
	}
	if res.Reached == 0 {
		return fmt.Errorf("no context could be created: %s", parked.Err)
	}
	d := float64(res.Reached)
	res.Per = perContext(p1.minus(p0), r0, r1, res.Reached)
	res.CreateNs = float64(parked.CreateNs) / d
	switch k.Name {
	case "goroutine":
		res.Per.GoStackInuse = float64(int64(parked.Go.StackInuse)-int64(base.Go.StackInuse)) / d
		res.Per.GoSys = float64(int64(parked.Go.Sys)-int64(base.Go.Sys)) / d
		res.Label = fmt.Sprintf("%d goroutines parked on a channel receive in one process (Go starting stack %d B); per-goroutine = difference of the process before/after / N",
			res.Reached, parked.Go.StartingSize)
	case "thread":
		res.Label = fmt.Sprintf("%d pthreads (default attributes, stack reservation = RLIMIT_STACK) blocked in pthread_cond_wait in one process; per-thread = difference before/after / N", res.Reached)
	}
	return nil
}

// readReport reads the child's next JSON line, expecting phase.
func readReport(ctx context.Context, r *bufio.Reader, phase string) (parkReport, error) {
	type answer struct {
		rep parkReport
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := r.ReadString('\n')
		if err != nil {
			ch <- answer{err: fmt.Errorf("the parking child ended before its %q report", phase)}
			return
		}
		var rep parkReport
		if err := json.Unmarshal([]byte(line), &rep); err != nil || rep.Phase != phase {
			ch <- answer{err: fmt.Errorf("unexpected line from the parking child: %q", strings.TrimSpace(line))}
			return
		}
		ch <- answer{rep: rep}
	}()
	select {
	case a := <-ch:
		return a.rep, a.err
	case <-ctx.Done():
		return parkReport{}, fmt.Errorf("timed out waiting for the parking child's %q report", phase)
	}
}

func waitOrKill(cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		// Its group if it leads one, and itself in any case: the later
		// children of a batch join the first one's group, and kill(-pid)
		// is then ESRCH.
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		_ = cmd.Process.Kill()
		<-done
	}
}

// runELFs parks n processes running the pause ELF, each in spec's
// container when spec is not nil, and sums what they hold.
func runELFs(ctx context.Context, n int, spec *container.Spec, a *acct, res *Result) error {
	prog, err := spawn.Memfd("ctxbench-pause", spawn.PauseELF())
	if err != nil {
		return err
	}
	defer prog.Close()
	path := spawn.MemfdPath(prog)
	var set *container.Set
	if spec != nil {
		if set, err = container.NewSet(*spec); err != nil {
			return err
		}
		defer set.Close()
		a = accountSet(set, a, res)
	}
	r0, err := a.takeReading()
	if err != nil {
		return err
	}
	var group procGroup
	kids := startELFs(ctx, n, path, set, &group, a, res)
	defer reapELFs(kids, &group)
	if len(kids) == 0 {
		return fmt.Errorf("no process could be started: %s", res.Limit)
	}
	if err := waitPaused(ctx, kids); err != nil {
		return err
	}
	if set != nil {
		v := kids[0].in.Verify()
		res.Notes = append(res.Notes, "first container: "+v.Summary())
		if !v.OK {
			return fmt.Errorf("container not verified: %s", v.Summary())
		}
	}
	pids := make([]int, len(kids))
	for i, c := range kids {
		pids[i] = c.cmd.Process.Pid
	}
	if _, err := measureParked(pids, r0, a, res); err != nil {
		return err
	}
	if set != nil {
		res.Label = fmt.Sprintf("%d containers (%s), each the static pause ELF; sums over the processes / N", res.Reached, set.Label())
		res.Notes = append(res.Notes, "no seccomp filter or capability drop: the ELF cannot enter them itself (both cost a few KiB of kernel memory at most)")
	} else {
		res.Label = fmt.Sprintf("%d processes running the static pause ELF (%d bytes, shared page cache); sums over the processes / N", res.Reached, len(spawn.PauseELF()))
	}
	return nil
}

// accountSet makes the containers of set members of the accounting cgroup
// a too, and returns a; or, where it cannot, says why in res and returns
// nil (no accounting).
func accountSet(set *container.Set, a *acct, res *Result) *acct {
	switch {
	case a != nil && set.H.Mount == a.cg.H.Mount:
		// One hierarchy holds both the containers' own cgroups and the
		// accounting one (cgroup v2 only, or v1 with cpu and memory
		// co-mounted): a process is in one cgroup per hierarchy, so
		// the members cannot also be born in the accounting cgroup.
		res.Notes = append(res.Notes, fmt.Sprintf("no memory cgroup accounting (charged_* are 0): the containers' cgroups and "+
			"the accounting cgroup share the hierarchy %s, and a process is in one cgroup per hierarchy", set.H.Mount))
		return nil
	case a != nil:
		set.Extra = []*container.Cgroup{a.cg}
	}
	return a
}

// elfKid is one parked pause process, and its container when it has one.
type elfKid struct {
	cmd *exec.Cmd
	in  *container.Instance
}

// startELFs starts up to n pause processes from path, each in a container
// of set when set is not nil, else in group; where it stops early, res.Limit
// says why. It returns those it started.
func startELFs(ctx context.Context, n int, path string, set *container.Set, group *procGroup, a *acct, res *Result) []elfKid {
	var kids []elfKid
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			res.Limit = "the run's time limit"
			break
		}
		cmd := &exec.Cmd{Path: path, Args: []string{"ctxbench-park"}}
		var in *container.Instance
		var err error
		if set != nil {
			in, err = set.Start(cmd, fmt.Sprintf("c%d", i))
		} else {
			err = group.start(cmd, a)
		}
		if err != nil {
			res.Limit = explainLimit(Kind{Context: res.Context}, err.Error())
			break
		}
		kids = append(kids, elfKid{cmd, in})
	}
	return kids
}

// reapELFs kills and reaps the pause processes, then releases their
// containers and takes their group off CleanupAll's list.
func reapELFs(kids []elfKid, group *procGroup) {
	for _, c := range kids {
		_ = c.cmd.Process.Kill()
	}
	for _, c := range kids {
		_ = c.cmd.Wait()
		if c.in != nil {
			c.in.Release()
		}
	}
	group.forget()
}

// waitPaused waits until every child sleeps in pause(2), so that what they
// hold is read once they hold all of it.
func waitPaused(ctx context.Context, kids []elfKid) error {
	for _, c := range kids {
		for {
			st, err := procState(c.cmd.Process.Pid)
			if err != nil {
				return fmt.Errorf("child %d: %w", c.cmd.Process.Pid, err)
			}
			if st == 'S' {
				break
			}
			if ctx.Err() != nil {
				return errors.New("timed out waiting for the children to park")
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}

// runGoProcs parks n idle re-executed Go processes. They share one pipe for
// their ready lines and one for stdin, so the parent holds two descriptors.
func runGoProcs(ctx context.Context, n int, a *acct, res *Result) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		return err
	}
	defer outR.Close()
	r0, err := a.takeReading()
	if err != nil {
		inR.Close()
		outW.Close()
		return err
	}
	var kids []*exec.Cmd
	var group procGroup
	defer func() {
		inW.Close()
		for _, c := range kids {
			waitOrKill(c, 10*time.Second)
		}
		group.forget()
	}()
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			res.Limit = "the run's time limit"
			break
		}
		cmd := SelfCommand("idle")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
		if err := group.start(cmd, a); err != nil {
			res.Limit = explainLimit(Kind{Context: "process"}, err.Error())
			break
		}
		kids = append(kids, cmd)
	}
	inR.Close()
	outW.Close()
	if len(kids) == 0 {
		return fmt.Errorf("no process could be started: %s", res.Limit)
	}
	lines := bufio.NewReader(outR)
	for range kids {
		if _, err := readReport(ctx, lines, "base"); err != nil {
			return err
		}
	}
	pids := make([]int, len(kids))
	for i, c := range kids {
		pids[i] = c.Process.Pid
	}
	sum, err := measureParked(pids, r0, a, res)
	if err != nil {
		return err
	}
	res.Label = fmt.Sprintf("%d idle ctxbench processes (Go runtime up, %.1f threads each on average); sums over the processes / N", res.Reached, float64(sum.Threads)/float64(res.Reached))
	return nil
}

// procGroup starts the parked processes in one process group, the first
// one's, which CleanupAll kills from the first start on.
type procGroup struct {
	pgid    int
	tracked func()
}

// start starts cmd in the group (see startAccounted).
func (g *procGroup) start(cmd *exec.Cmd, a *acct) error {
	cmd.SysProcAttr = host.DieWithParent(&syscall.SysProcAttr{Setpgid: true, Pgid: g.pgid})
	if err := startAccounted(cmd, a); err != nil {
		return err
	}
	if g.pgid == 0 {
		g.pgid = cmd.Process.Pid
		g.tracked = container.TrackProcess(-g.pgid)
	}
	return nil
}

// forget takes the group off CleanupAll's list, once its processes are reaped.
func (g *procGroup) forget() {
	if g.tracked != nil {
		g.tracked()
	}
}

// startAccounted starts cmd inside the accounting cgroup (a nil: plainly).
func startAccounted(cmd *exec.Cmd, a *acct) error {
	if a == nil {
		return cmd.Start()
	}
	return container.StartIn(cmd, a.cg)
}

// measureParked sums what the parked processes pids hold, takes the
// machine's reading again, and sets res.Reached and res.Per against r0, the
// reading before the processes were made. It returns the sum.
func measureParked(pids []int, r0 reading, a *acct, res *Result) (procMem, error) {
	var sum procMem
	for _, pid := range pids {
		m, err := readProcMem(pid)
		if err != nil {
			return sum, err
		}
		sum.RSS += m.RSS
		sum.PSS += m.PSS
		sum.Virt += m.Virt
		sum.Threads += m.Threads
	}
	r1, err := a.takeReading()
	if err != nil {
		return sum, err
	}
	res.Reached = len(pids)
	res.Per = perContext(sum, r0, r1, res.Reached)
	return sum, nil
}

// reading is the machine's memory at one moment: /proc/meminfo and what
// the accounting cgroup was charged.
type reading struct {
	sys          sysMem
	user, kernel int64
}

// takeReading reads /proc/meminfo once it has settled, then the charges.
func (a *acct) takeReading() (reading, error) {
	s, err := settledSysMem()
	if err != nil {
		return reading{}, err
	}
	u, k := a.read()
	return reading{sys: s, user: u, kernel: k}, nil
}

// readChild reads what the process pid holds, then takes the machine's
// reading.
func (a *acct) readChild(pid int) (procMem, reading, error) {
	p, err := readProcMem(pid)
	if err != nil {
		return procMem{}, reading{}, err
	}
	r, err := a.takeReading()
	return p, r, err
}

// perContext is held (what the contexts' processes hold) and the machine's
// growth from r0 to r1, divided by the n contexts.
func perContext(held procMem, r0, r1 reading, n int) PerContext {
	d := float64(n)
	sd := r1.sys.minus(r0.sys)
	p := PerContext{RSS: float64(held.RSS) / d, PSS: float64(held.PSS) / d, Virtual: float64(held.Virt) / d,
		KernelStack: float64(sd.KernelStack) / d, PageTables: float64(sd.PageTables) / d,
		Slab: float64(sd.Slab) / d, SystemUsed: float64(sd.Used) / d}
	p.charge(r1.user-r0.user, r1.kernel-r0.kernel, d)
	return p
}

// minus is what a process grew by from b to a.
func (a procMem) minus(b procMem) procMem {
	return procMem{RSS: a.RSS - b.RSS, PSS: a.PSS - b.PSS, Virt: a.Virt - b.Virt, Threads: a.Threads - b.Threads}
}

// read is usage that tolerates a nil acct and read errors (zeros).
func (a *acct) read() (user, kernel int64) {
	if a == nil {
		return 0, 0
	}
	u, k, err := a.usage()
	if err != nil {
		return 0, 0
	}
	return u, k
}

func (p *PerContext) charge(user, kernel int64, n float64) {
	p.ChargedUser = float64(user) / n
	p.ChargedKernel = float64(kernel) / n
	p.Charged = p.ChargedUser + p.ChargedKernel
}
