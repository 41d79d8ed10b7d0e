package phase

// check.go: the phase models as checked data. Every model is a set of
// transitions and the paths hops take through them; check proves what
// attribution relies on, so that a model edited by hand cannot quietly
// attribute a cell to the wrong phase: no transition twice (attribution
// takes the first match), no phase off every path (a phase nothing can
// reach), every path closed (a CPU's timeline comes back to where it
// began) and made of the model's phases, and, across CPUs, every path
// holding the CPU's turn as the wakee and as the waker.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/model"
)

// oneCPU and acrossCPUs are x86-64's models by the name a benchmark's
// Phases gives (model.Benchmark.Phases); byArch (arch.go) holds them with
// arm64's, every model there is, so the tests that check them miss none.
// Split and SplitFor (arch.go) are the way in.
var (
	oneCPU = map[string]*phaseModel{
		"pipe": &pipeModel, "futex": &futexModel, "yield": &yieldModel,
		"kvm-exit": &kvmModel, "vm-switch-user": &vmSwitchUserModel,
	}
	acrossCPUs = map[string]*phaseModel{"pipe": &crossPipeModel, "futex": &crossFutexModel}
)

// key is a transition's identity in a model: its context and its events.
type key struct {
	ctx      Context
	from, to Kind
}

func (k key) String() string {
	s := k.from.String() + " -> " + k.to.String()
	if k.ctx != CtxTask {
		s += " (" + k.ctx.String() + ")"
	}
	return s
}

// checkEdges reports through bad every transition of md that is there
// twice, is not one between two events, or has no phase kind, and returns
// each transition's index (the one model check and the in-place chains
// share it).
func (md *phaseModel) checkEdges(bad func(string, ...any)) map[key]int {
	kinds := model.PhaseKinds()
	edges := map[key]int{}
	for i, e := range md.edges {
		k := key{e.ctx, e.from, e.to}
		if j, ok := edges[k]; ok {
			bad("%s twice: %q and %q", k, md.edges[j].name, e.name)
		}
		edges[k] = i
		if e.from >= kindCount || e.to >= kindCount || e.from == KindNone || e.to == KindNone || e.from.IsInterrupt() || e.to.IsInterrupt() {
			bad("%s: not a transition between two events", k)
		}
		if e.ctx >= NumContexts {
			bad("%s: context %d", k, e.ctx)
		}
		if !slices.Contains(kinds, e.kind) {
			bad("%s: kind %q is not a phase kind", k, e.kind)
		}
	}
	return edges
}

// check says everything wrong with md, nil when nothing is.
func (md *phaseModel) check() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(md.name+": "+format, a...)) }
	edges := md.checkEdges(bad)
	names := map[string]bool{}
	for _, e := range md.edges {
		k := key{e.ctx, e.from, e.to}
		if e.name == "" || e.what == "" || strings.Contains(e.what, "\n") {
			bad("%s needs a name and a one-line what", k)
		}
		if names[string(e.side)+e.name] {
			bad("%q names two phases", e.name)
		}
		names[string(e.side)+e.name] = true
		switch {
		case md.cross && e.side != SideWaker && e.side != SideWakee:
			bad("%s: side %q, want the waker's or the wakee's", k, e.side)
		case md.cross && e.parallel && e.side != SideWaker:
			bad("%s: in parallel with the hop on the wakee's CPU", k)
		case !md.cross && (e.side != "" || e.parallel || e.ctx != CtxTask):
			bad("%s: a side, a parallel or an idle context on one CPU", k)
		}
	}
	onPath := make([]bool, len(md.edges))
	for _, p := range md.paths {
		if err := md.checkPath(p, edges, onPath); err != nil {
			bad("path %q: %v", p.name, err)
		}
	}
	for i, used := range onPath {
		if !used {
			e := md.edges[i]
			bad("%s (%q) is on none of the paths: unreachable", key{e.ctx, e.from, e.to}, e.name)
		}
	}
	if len(md.paths) == 0 {
		bad("no paths")
	}
	if len(md.gaps) == 0 {
		bad("no gaps named")
	}
	return errors.Join(errs...)
}

// checkPath checks that p is closed and made of md's phases (across CPUs,
// also of another task's time on a busy CPU), holding the wakee's and the
// waker's turn across CPUs; it marks the phases it goes through.
func (md *phaseModel) checkPath(p path, edges map[key]int, onPath []bool) error {
	n := p.nodes
	if len(n) < 3 {
		return errors.New("fewer than two steps")
	}
	if n[0] != n[len(n)-1] {
		return fmt.Errorf("not closed: it begins at %s and ends at %s", n[0].kind, n[len(n)-1].kind)
	}
	sides := map[model.Side]bool{}
	for i := range len(n) - 1 {
		k := key{n[i].ctx, n[i].kind, n[i+1].kind}
		if j, ok := edges[k]; ok {
			onPath[j] = true
			if e := md.edges[j]; !e.parallel {
				sides[e.side] = true
			}
			continue
		}
		if md.cross && isOtherTask(k.from) && isOtherTask(k.to) {
			continue // another task's time on a busy CPU
		}
		return fmt.Errorf("step %d, %s, is not a phase of the model", i+1, k)
	}
	if md.cross && (!sides[SideWaker] || !sides[SideWakee]) {
		return errors.New("a CPU's round across CPUs holds its turn as the waker and as the wakee")
	}
	return nil
}
