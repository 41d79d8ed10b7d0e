package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
)

// ctxbench env shows each level of the topology with its pair, one row
// each, nearest first; an environment without one shows no row.
func TestEnvironmentTopology(t *testing.T) {
	e := result.Environment{Topology: []result.TopologyLevel{
		{Name: "smt-sibling", CPUs: [2]int{7, 15}, Description: "two hardware threads of one core (core 3, package 1), sharing L1d, L1i, L2, L3"},
		{Name: "other-package", CPUs: [2]int{11, 15}, Description: "different packages (0 and 1) and NUMA nodes (0 and 1)"},
		{Name: "cross-cpu", CPUs: [2]int{0, 15}, Description: "any two CPUs: the first and the last (here other-package)"},
	}}
	var buf bytes.Buffer
	render.Environment(&buf, e, render.Style{Wide: true})
	var rows []string
	for _, line := range strings.Split(buf.String(), "\n") {
		if strings.Contains(line, " CPUs ") && strings.Contains(line, ": ") {
			rows = append(rows, strings.Join(strings.Fields(line), " "))
		}
	}
	want := []string{
		"topology smt-sibling CPUs 7,15: two hardware threads of one core (core 3, package 1), sharing L1d, L1i, L2, L3",
		"other-package CPUs 11,15: different packages (0 and 1) and NUMA nodes (0 and 1)",
		"cross-cpu CPUs 0,15: any two CPUs: the first and the last (here other-package)",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("topology rows:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	buf.Reset()
	render.Environment(&buf, result.Environment{}, render.Style{})
	if strings.Contains(buf.String(), "topology") {
		t.Errorf("an environment without a topology shows one:\n%s", buf.String())
	}
}
