package suite

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/result"
)

// Every published experiment runs: by its own program, or, derived, by
// the suite's table; the table holds nothing else.
func TestEveryPublishedExperimentIsComposed(t *testing.T) {
	names := map[string]bool{}
	for _, x := range replicate.Experiments() {
		names[x.Name] = true
		_, derived := derivedExperiments[x.Name]
		switch {
		case x.Run != nil && derived:
			t.Errorf("%s has a program and a derivation", x.Name)
		case x.Run == nil && !derived:
			t.Errorf("%s has neither a program nor a derivation: replicate would fail it", x.Name)
		case x.Derived != derived:
			t.Errorf("%s: Derived %v, but the suite's table says %v", x.Name, x.Derived, derived)
		}
	}
	for name := range derivedExperiments {
		if !names[name] {
			t.Errorf("the suite derives %s, which is no published experiment", name)
		}
	}
}

func reps(names ...string) []result.Replication {
	var out []result.Replication
	for _, n := range names {
		out = append(out, result.Replication{Name: n})
	}
	return out
}

func repNames(rs []result.Replication) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// A derived experiment's replications take its place among the others',
// as when each experiment printed its own; a failed one has none.
func TestReplicationsKeepTheExperimentsOrder(t *testing.T) {
	x := func(name string) replicate.Experiment { return replicate.Experiment{Name: name} }
	p := &published{
		xs:  []replicate.Experiment{x("a"), x("derived"), x("failed"), x("c")},
		own: []int{2, 0, 0, 1},
		derive: []deriveReplications{nil, func(d *result.Document) []result.Replication {
			return reps("derived from " + d.Results[0].Name)
		}, nil, nil},
	}
	d := &result.Document{Results: []result.Result{{Name: "thread/pipe"}}, Replications: reps("a1", "a2", "c1")}
	p.replications(d)
	want := []string{"a1", "a2", "derived from thread/pipe", "c1"}
	if got := repNames(d.Replications); !slices.Equal(got, want) {
		t.Errorf("replications %v, want %v", got, want)
	}
}

// A failed experiment is a failure named after it, said once, counted by
// FailedPublished; the others go on. Cancellation stops the run.
func TestReplicationStepFailures(t *testing.T) {
	boom := errors.New("boom")
	var stderr bytes.Buffer
	p := &published{
		xs: []replicate.Experiment{
			{Name: "ok", Run: func(context.Context, experiment.Env, bool) ([]result.Replication, error) { return reps("ok1"), nil }},
			{Name: "bad", Run: func(context.Context, experiment.Env, bool) ([]result.Replication, error) { return nil, boom }},
			{Name: "unknown"},
		},
		stderr: &stderr, own: make([]int, 3), derive: make([]deriveReplications, 3),
	}
	env := experiment.Env{Log: io.Discard}
	var all experiment.Part
	for i := range p.xs {
		part, err := p.step(i)(context.Background(), env)
		if err != nil {
			t.Fatalf("%s: %v", p.xs[i].Name, err)
		}
		all.Add(part)
	}
	d := &result.Document{Replications: all.Replications, Failures: append(all.Failures, result.Failure{Name: "thread/pipe", Placement: "same-cpu"})}
	p.replications(d)
	if got := repNames(d.Replications); !slices.Equal(got, []string{"ok1"}) {
		t.Errorf("replications %v, want the one that ran", got)
	}
	if n := FailedPublished(d, []string{"ok", "bad", "unknown"}); n != 2 {
		t.Errorf("%d experiments failed, want 2 (a row's failure is not an experiment's)", n)
	}
	for _, want := range []string{"ctxbench: bad failed: boom", "ctxbench: unknown failed: no way to run unknown"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q does not say %q", stderr.String(), want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.step(1)(ctx, env); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v, want the cancellation", err)
	}
}

// The hot-potato derivation finds each core type's two rings by their size
// and CPU, whatever else the document holds.
func TestHotPotatoPointFindsItsRings(t *testing.T) {
	rings := []result.Ring{
		{Kind: "thread", Tasks: replicate.HotPotatoTasks, CPUs: []int{3}},
		{Kind: "thread", Tasks: replicate.HotPotatoTasks, CPUs: []int{1}},
		{Kind: "process", Tasks: 8, CPUs: []int{1}},
		{Kind: "process", Tasks: replicate.HotPotatoTasks, CPUs: []int{1}},
	}
	pt := hotPotatoPoint(rings, replicate.CoreGroup{Name: "one"}, 1)
	if pt.Thread != &rings[1] || pt.Process != &rings[3] {
		t.Errorf("CPU 1: thread %v, process %v", pt.Thread, pt.Process)
	}
	if pt := hotPotatoPoint(rings, replicate.CoreGroup{}, 3); pt.Thread != &rings[0] || pt.Process != nil {
		t.Errorf("CPU 3: thread %v, process %v; want the thread ring only", pt.Thread, pt.Process)
	}
}

// SelectPublished resolves "all" and nothing to every experiment, in order,
// and refuses an unknown name.
func TestSelectPublished(t *testing.T) {
	var all []string
	for _, x := range PublishedExperiments() {
		all = append(all, x.Name)
	}
	for _, args := range [][]string{nil, {"all"}} {
		if got, err := SelectPublished(args); err != nil || !slices.Equal(got, all) {
			t.Errorf("%v: %v, %v; want %v", args, got, err, all)
		}
	}
	if _, err := SelectPublished([]string{"nope"}); err == nil {
		t.Error("an unknown experiment was accepted")
	}
}

// A command line's own arguments are no child's.
func TestChildOnlyForHiddenArguments(t *testing.T) {
	for _, args := range [][]string{nil, {"run", "thread/pipe"}, {"--help"}} {
		if _, ok := Child(args, nil, io.Discard, io.Discard); ok {
			t.Errorf("%v was taken for a child", args)
		}
	}
}
