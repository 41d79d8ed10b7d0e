package compare

// attach.go: two attaches compared (before and after a configuration
// change): each target of the base against the same target in another
// file, figure by figure, the change tested on the windows (two
// independent samples of windows: the Hodges–Lehmann ratio and the
// interval that inverts the Mann–Whitney test).

import (
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// AttachChange is one target of the base's attach against the same target
// in another file.
type AttachChange struct {
	Target, Input string
	Figures       []AttachDelta
}

// AttachDelta is one figure of an AttachChange: the whole runs' values,
// and the change of the windows' values, other over base − 1, with its
// interval at Confidence (Resolved: it excludes no change; Windows the
// windows of each side).
type AttachDelta struct {
	Figure                 string
	Base, Cur              float64
	Change, Lo, Hi         float64
	Confidence             float64
	Resolved, Tested       bool
	BaseWindows, CurWindow int
}

// attachFigures are the figures compared, each read from a target's
// windows (nil where a window has none).
var attachFigures = []struct {
	name   string
	whole  func(t *result.AttachTarget) float64
	window func(w result.AttachWindow) *float64
}{
	{"switches per second", func(t *result.AttachTarget) float64 { return t.SwitchesPerS.Value },
		func(w result.AttachWindow) *float64 { return &w.SwitchesPerS }},
	{"ns per switch", func(t *result.AttachTarget) float64 { return t.NsPerSwitch.Value },
		func(w result.AttachWindow) *float64 { return w.NsPerSwitch }},
	{"share lost", func(t *result.AttachTarget) float64 { return t.ShareLost.Value },
		func(w result.AttachWindow) *float64 { return w.ShareLost }},
	{"run-queue wait per second", func(t *result.AttachTarget) float64 { return t.RunQueue.ShareOfWall.Value },
		func(w result.AttachWindow) *float64 { return &w.RunQueueShare }},
}

// attachKey is what matches a target across files: its kind and its
// cgroup, or its process's name (a pid changes from run to run).
func attachKey(t *result.AttachTarget) string {
	switch t.Kind {
	case "cgroup":
		return "cgroup\x00" + t.Cgroup
	case "pid":
		name := t.Name
		if i := strings.Index(name, "("); i >= 0 {
			name = name[i:]
		}
		return "pid\x00" + name
	}
	return t.Kind
}

// attachChanges pairs the base's attach targets with each other file's.
func attachChanges(inputs []Input, alpha float64) []AttachChange {
	if len(inputs) < 2 || inputs[0].Doc.Attach == nil {
		return nil
	}
	base := inputs[0].Doc.Attach.Targets
	var out []AttachChange
	for _, in := range inputs[1:] {
		if in.Doc.Attach == nil {
			continue
		}
		cur := in.Doc.Attach.Targets
		for i := range base {
			for j := range cur {
				one := len(base) == 1 && len(cur) == 1
				if !one && attachKey(&base[i]) != attachKey(&cur[j]) {
					continue
				}
				out = append(out, attachChange(&base[i], &cur[j], in.Label, alpha))
			}
		}
	}
	return out
}

func attachChange(b, c *result.AttachTarget, input string, alpha float64) AttachChange {
	ch := AttachChange{Target: b.Name, Input: input}
	if c.Name != b.Name {
		ch.Target += " → " + c.Name
	}
	for _, f := range attachFigures {
		d := AttachDelta{Figure: f.name, Base: f.whole(b), Cur: f.whole(c)}
		bw, cw := windowValues(b, f.window), windowValues(c, f.window)
		d.BaseWindows, d.CurWindow = len(bw), len(cw)
		if d.Base > 0 {
			d.Change = d.Cur/d.Base - 1
		}
		if r := stats.HLRatio(bw, cw, 1-alpha); r.OK {
			d.Tested = true
			d.Change, d.Lo, d.Hi, d.Confidence = r.Estimate-1, r.Lo-1, r.Hi-1, r.Confidence
			d.Resolved = d.Lo > 0 || d.Hi < 0
		}
		ch.Figures = append(ch.Figures, d)
	}
	return ch
}

func windowValues(t *result.AttachTarget, get func(result.AttachWindow) *float64) []float64 {
	var out []float64
	for _, w := range t.Windows {
		if v := get(w); v != nil && *v > 0 {
			out = append(out, *v)
		}
	}
	return out
}
