package replicate

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// claimsDoc is a document with the creation and memory rows the claims
// tables name, at figures like the reference machine's.
func claimsDoc() *result.Document {
	d := &result.Document{}
	for _, s := range []struct {
		kind string
		ns   float64
	}{{"goroutine", 400}, {"thread", 20e3}, {"fork", 400e3}, {"container-ns", 200e3}, {"container-full", 696e3}, {"vm", 573e3}} {
		d.Spawn = append(d.Spawn, result.Spawn{Name: "spawn/" + s.kind, Kind: s.kind, PerCreateNS: stats.Summarize([]float64{s.ns, s.ns * 1.01, s.ns * 0.99})})
	}
	for _, m := range []struct {
		kind      string
		pss, virt float64
	}{{"goroutine", 2760, 8192}, {"thread", 8500, 8 << 20}, {"process", 78e3, 1 << 20}, {"container", 179e3, 1 << 20}, {"vm", 300e3, 2 << 20}} {
		d.Memory = append(d.Memory, result.Memory{Name: "memory/" + m.kind, Kind: m.kind, Contexts: 100, Requested: 100, PSSBytes: m.pss, RSSBytes: m.pss, VirtBytes: m.virt})
	}
	Claims(d)
	return d
}

// lineOf is the first line of out that holds all of parts.
func lineOf(t *testing.T, out string, parts ...string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return l
		}
	}
	t.Fatalf("no line with %q in\n%s", parts, out)
	return ""
}

// A published figure beside a row that measures something else says what
// differs, in the creation table and in the hierarchy's claims: a
// container runtime's cold start is not the kernel's isolation alone, a
// guest OS boot is not a minimal VM's first exit.
func TestClaimsNotLikeForLike(t *testing.T) {
	d := claimsDoc()
	var b bytes.Buffer
	render.Spawn(render.Fit(&b, render.Style{Wide: true}), d) // one line per row: --wide
	out := b.String()
	for _, c := range []struct{ row, claim, differs string }{
		{"spawn/container-full", "container start 100-500 ms [", "not like for like: that is a runtime's cold start with image and network, this is namespaces + cgroup + seccomp alone (no image, no runtime)"},
		{"spawn/container-full", "crun 17 ms, runc 33 ms per /bin/true container [", "not like for like: that is an OCI runtime with a root file system"},
		{"spawn/container-ns", "container start 100-500 ms [", "this is namespaces alone (no image, no runtime)"},
		{"spawn/vm", "VM start 1-5 s [", "not like for like: that is a guest OS boot, this is a minimal VM to its first exit (no OS booted)"},
		{"spawn/vm", "Firecracker boots a microVM to init in <= 125 ms [", "not like for like: that is a VMM booting a kernel to init"},
	} {
		l := lineOf(t, out, c.row, c.claim)
		if !strings.Contains(l, c.differs) {
			t.Errorf("the creation table's %s line cites %q without %q:\n%s", c.row, c.claim, c.differs, l)
		}
	}
	_, rows := Hierarchy(d)
	for _, r := range rows {
		if (strings.Contains(r.Name, "container") || strings.Contains(r.Name, "vm")) && strings.Contains(r.Published, "start") &&
			!strings.Contains(r.Published, "not like for like") {
			t.Errorf("the hierarchy's %s claim does not say what differs: %q", r.Name, r.Published)
		}
	}
}

// figure is a published figure with its unit.
var figure = regexp.MustCompile(`[~<=]*\s*\d[\d,.]*(-\d[\d,.]*)?\s*(ns|µs|ms|s|B|KiB|MiB|GiB|kB|MB|GB)\b`)

// The creation and memory tables and the published hierarchy's claims
// read one table: the hierarchy words a row's claim as the creation or
// memory table does, cites no figure that table does not, and never says
// "no published figure" where that table cites one.
func TestClaimsTablesAgree(t *testing.T) {
	d := claimsDoc()
	_, rows := Hierarchy(d)
	if len(rows) != len(hierarchyCreation)+len(hierarchyMemory) {
		t.Fatalf("%d hierarchy claim rows, want %d", len(rows), len(hierarchyCreation)+len(hierarchyMemory))
	}
	beside := map[string][]result.Claim{}
	for _, s := range d.Spawn {
		beside[s.Name] = s.Claims
	}
	for _, m := range d.Memory {
		beside[m.Name] = m.Claims
	}
	for _, r := range rows {
		if len(beside[r.Name]) > 0 && strings.Contains(r.Published, "no published figure") {
			t.Errorf("%s: the hierarchy says %q, the creation or memory table cites %q", r.Name, r.Published, beside[r.Name][0].Text)
		}
		starts := false
		for _, c := range beside[r.Name] {
			starts = starts || strings.HasPrefix(r.Published, strings.SplitN(c.Text, " — ", 2)[0])
		}
		if !starts {
			t.Errorf("%s: the hierarchy cites %q, worded unlike any claim the creation or memory table cites", r.Name, r.Published)
		}
		var texts []string
		for _, c := range beside[r.Name] {
			texts = append(texts, c.Text)
		}
		for _, fig := range figure.FindAllString(r.Published, -1) {
			if !strings.Contains(strings.Join(texts, "\n"), fig) {
				t.Errorf("%s: the hierarchy cites %q, which the creation or memory table does not: %q", r.Name, fig, texts)
			}
		}
	}
	for _, rep := range HierarchyReplications(d) {
		if strings.Contains(rep.Published, "no published figure") {
			t.Errorf("%s: %q", rep.Name, rep.Published)
		}
	}
}

// A stack reservation set beside PSS is not like for like either: the
// memory lines say what differs and print no multiple of it, while a
// claim that is like for like keeps its multiple.
func TestMemoryClaimsNotLikeForLike(t *testing.T) {
	d := claimsDoc()
	var b bytes.Buffer
	render.Memory(render.Fit(&b, render.Style{Wide: true}), d) // one line per claim: --wide
	out := b.String()
	l := lineOf(t, out, "memory/thread — claim: 100,000 threads would consume about 100 GB") // ~ is the noise mark: written "about"
	if !strings.Contains(l, "not like for like: that is a stack reservation (address space), this is PSS, the memory held") {
		t.Errorf("the reservation claim does not say what differs:\n%s", l)
	}
	if strings.Contains(l, "× that") || strings.Contains(l, "x that") {
		t.Errorf("a multiple of PSS over a stack reservation is printed:\n%s", l)
	}
	if l := lineOf(t, out, "memory/goroutine — claim: 2.583 kB per goroutine"); !strings.Contains(l, "measured PSS is 1.07× that") {
		t.Errorf("a like-for-like claim lost its multiple:\n%s", l)
	}
	if l := lineOf(t, out, "memory/vm — claim: Firecracker"); !strings.Contains(l, "not like for like") {
		t.Errorf("the Firecracker overhead beside a minimal VM does not say what differs:\n%s", l)
	}
}
