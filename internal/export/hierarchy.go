package export

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
)

// HierarchyRow maps a row of the published hierarchy table (shared/seeds
// 000) to the ctxbench figure that measures it.
type HierarchyRow struct {
	Abstraction string
	Published   string // per switch
	PublishedX  string // multiple of the baseline
	Name        string // ctxbench result
	Placement   string
}

// Hierarchy is the published table, top to bottom.
var Hierarchy = []HierarchyRow{
	{"goroutine (single-threaded)", "108 ns", "1x (baseline)", "goroutine/chan-gomaxprocs1", "same-cpu"},
	{"goroutine (multi-threaded)", "152 ns", "1.4x", "goroutine/chan-gomaxprocsN", "unpinned"},
	{"OS thread", "1,000-3,000 ns", "9-28x", "thread/pipe", "same-cpu"},
	{"process", "5,000-10,000 ns", "46-93x", "process/pipe", "same-cpu"},
	{"container", "5,000-15,000 ns", "46-139x", "container/pipe-full", "same-cpu"},
	{"VM (hardware)", "10,000-50,000 ns", "93-463x", "vm/switch-user", "same-cpu"},
}

// HierarchyCreation and HierarchyMemory put the published claims about
// creation and memory beside the measurement that answers them.
var (
	HierarchyCreation = [][2]string{
		{"spawn/goroutine", "goroutines are \"nearly free\": create millions"},
		{"spawn/thread", "(no published figure)"},
		{"spawn/fork", "(no published figure)"},
		{"spawn/container-full", "container start 100-500 ms"},
		{"spawn/vm", "VM start 1-5 s"},
	}
	HierarchyMemory = [][2]string{
		{"memory/goroutine", "goroutines: practical limit millions"},
		{"memory/thread", "100,000 threads would consume ~100 GB (1 MB stack each)"},
		{"memory/process", "processes: dozens to hundreds"},
		{"memory/container", "containers: dozens"},
		{"memory/vm", "VMs: few to dozens"},
	}
)

func find(d *result.Document, name, placement string) *result.Result {
	for i := range d.Results {
		if d.Results[i].Name == name && d.Results[i].Placement == placement {
			return &d.Results[i]
		}
	}
	return nil
}

// PrintHierarchy prints the published hierarchy with what this machine
// measured beside each row, and the creation and memory claims.
func PrintHierarchy(w io.Writer, d *result.Document) {
	var base *result.Result
	if i := Baseline(d); i >= 0 {
		base = &d.Results[i]
	}
	fmt.Fprintln(w, "\nthe published hierarchy, measured here (one-way per switch; × as in the table above)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ABSTRACTION\tPUBLISHED\tPUBLISHED ×\tMEASURED\t×\tSWITCHES/HOP\tFROM\t")
	for _, h := range Hierarchy {
		r := find(d, h.Name, h.Placement)
		if r == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\tnot measured\t—\t—\t%s %s\t\n", h.Abstraction, h.Published, h.PublishedX, h.Name, h.Placement)
			continue
		}
		x := "—"
		if base != nil && base.OneWayNS.Median > 0 {
			x = fmt.Sprintf("%.1fx", r.OneWayNS.Median/base.OneWayNS.Median)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s %s\t\n", h.Abstraction, h.Published, h.PublishedX, FormatNS(r.OneWayNS.Median), x, switchesCell(*r), h.Name, h.Placement)
	}
	tw.Flush()
	if r := find(d, "vm/switch-user", "same-cpu"); r != nil && strings.Contains(r.Label, "NOT a hardware") {
		fmt.Fprintln(w, "  the VM row is not a hardware VM switch on this host (see its label): the published row assumed hardware virtualization")
	}
	var rows [][3]string
	for _, c := range HierarchyCreation {
		for _, s := range d.Spawn {
			if s.Name == c[0] {
				rows = append(rows, [3]string{c[0], c[1], FormatNS(s.PerCreateNS.Median) + " per creation (median)"})
			}
		}
	}
	for _, c := range HierarchyMemory {
		for _, m := range d.Memory {
			if m.Name == c[0] {
				rows = append(rows, [3]string{c[0], c[1], fmt.Sprintf("%s PSS, %s virtual per context, %d held", FormatBytes(m.PSSBytes), FormatBytes(m.VirtBytes), m.Contexts)})
			}
		}
	}
	if len(rows) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "\nCLAIM\tPUBLISHED\tMEASURED\t")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", r[0], r[1], r[2])
		}
		tw.Flush()
	}
}
