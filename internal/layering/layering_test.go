package layering

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

const module = "github.com/ctxbench/ctxbench/"

// A rule says what its packages may reach through any chain of imports.
// Paths are relative to the module; a path stands for the package and every
// package under it ("internal/experiment" is the contract and every
// experiment), and a root "x/..." is every package under x. A package may
// always reach what is under itself.
type rule struct {
	roots []string
	// strict: of ctxbench, only may is reachable; else never is not.
	strict bool
	// direct: only the roots' own imports are checked, not what those
	// reach (the command line reaches every experiment, but only through
	// a suite).
	direct bool
	may    []string
	never  []string
	why    string
}

var mechanisms = []string{
	"internal/kernels", "internal/container", "internal/kvm", "internal/partner", "internal/spawn",
	"internal/memory", "internal/probe", "internal/ringproc", "internal/bpf", "internal/workload/...", "internal/setup",
}

var rules = []rule{
	{roots: []string{"internal/model", "internal/units", "internal/stats"}, strict: true,
		why: "the vocabulary and the pure packages import nothing of ctxbench"},
	{roots: []string{"internal/host/..."}, strict: true,
		why: "host plumbing is below everything that uses it"},
	{roots: []string{"internal/phase"}, strict: true, may: []string{"internal/model"},
		why: "the phase models and the captured hops' analysis read what the tracer recorded: no loader, no kernel (TestPhaseNeedsNoKernel checks its other imports)"},
	{roots: []string{"internal/inplace"}, strict: true, may: []string{"internal/phase", "internal/model", "internal/result", "internal/stats"},
		why: "attach's aggregation turns what the in-place programs read into the document: no loader, no kernel"},
	{roots: []string{"internal/schedule"}, strict: true, may: []string{"internal/model", "internal/host"},
		why: "the scheduler knows no mechanism, no catalog and no document: it runs blocks the experiments plan"},
	{roots: []string{"internal/render/..."}, strict: true,
		may: []string{"internal/render", "internal/result", "internal/units", "internal/stats", "internal/compare", "internal/model"},
		why: "renderers only render a document: no measuring code, no environment reader"},
	{roots: []string{"internal/render/layout"}, strict: true,
		why: "the table engine knows nothing of ctxbench: the views say what is in its cells"},
	{roots: mechanisms,
		never: []string{"internal/schedule", "internal/catalog", "internal/experiment", "internal/session", "internal/render",
			"internal/compare", "internal/cli", "internal/suite", "internal/result", "internal/machine"},
		why: "mechanisms measure and are driven from above; the document and the environment it records are the session's"},
	{roots: []string{"internal/catalog"},
		never: []string{"internal/schedule", "internal/experiment", "internal/session", "internal/render", "internal/cli", "internal/suite", "internal/machine"},
		why:   "the catalog says what a block is and drives mechanisms; it is below the experiments and the session"},
	{roots: []string{"internal/experiment/..."},
		never: []string{"internal/machine", "internal/session", "internal/render", "internal/cli", "internal/suite"},
		why:   "experiments are below the session: the environment is read once, by the session, and handed down"},
	{roots: []string{"internal/suite"},
		never: []string{"internal/cli", "internal/render"},
		why:   "a suite composes experiments into a session; the command line above it presents the document"},
	{roots: []string{"internal/cli"}, direct: true,
		never: append([]string{"internal/experiment", "internal/schedule"}, mechanisms...),
		why:   "the command line parses flags and presents documents: a suite (internal/suite) composes its experiments and reaches the mechanisms"},
}

// tolerated are imports that break a rule today and are known; the walk
// does not follow them. Each is to go: the test fails when one no longer
// exists, so the list only shrinks. None is left.
var tolerated = []struct{ from, to, why string }{}

type pkg struct {
	root    bool // named by a rule, not only a dependency
	dir     string
	imports []string // ctxbench packages only, relative to the module
}

// under reports whether p is path or below it.
func under(p, path string) bool {
	path = strings.TrimSuffix(path, "/...")
	return p == path || strings.HasPrefix(p, path+"/")
}

func anyUnder(p string, paths []string) bool {
	return slices.ContainsFunc(paths, func(q string) bool { return under(p, q) })
}

// graph runs go list -deps on every rule's roots: the ctxbench packages
// they reach and what each imports.
func graph(t *testing.T) map[string]*pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		testenv.Skip(t, testenv.Go, "the go command is not on PATH: the import graph cannot be listed (depguard in .golangci.yml still checks direct imports)")
	}
	args := []string{"list", "-deps", "-f", "{{.ImportPath}}\t{{not .DepOnly}}\t{{.Dir}}\t{{join .Imports \" \"}}"}
	for _, r := range rules {
		for _, root := range r.roots {
			args = append(args, module+root)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(gobin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	g := map[string]*pkg{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		f := strings.SplitN(line, "\t", 4)
		if len(f) != 4 || !strings.HasPrefix(f[0], module) {
			continue
		}
		p := &pkg{root: f[1] == "true", dir: f[2]}
		for _, imp := range strings.Fields(f[3]) {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				p.imports = append(p.imports, rel)
			}
		}
		slices.Sort(p.imports)
		g[strings.TrimPrefix(f[0], module)] = p
		// go test caches a result by the files the test opened, and go
		// list's reads are not the test's: listing each directory makes
		// an edited or added file run the test again.
		_, _ = os.ReadDir(p.dir)
	}
	return g
}

func isTolerated(from, to string) bool {
	return slices.ContainsFunc(tolerated, func(e struct{ from, to, why string }) bool { return e.from == from && e.to == to })
}

// TestNoLayerReachesAbove walks each rule's packages' imports breadth
// first and names every forbidden package reached, with the shortest chain
// of imports that reaches it. A forbidden package is not walked further, so
// the chain ends at the arrow that broke the rule; a direct rule's walk
// stops at its roots' own imports.
func TestNoLayerReachesAbove(t *testing.T) {
	g := graph(t)
	for _, r := range rules {
		var roots []string
		for _, root := range r.roots {
			n := 0
			for p, info := range g {
				if info.root && (p == root || (strings.HasSuffix(root, "/...") && under(p, root))) {
					roots = append(roots, p)
					n++
				}
			}
			if n == 0 {
				t.Errorf("no package matches %s: update the rules in this test (and .golangci.yml)", root)
			}
		}
		slices.Sort(roots)
		for _, root := range roots {
			forbidden := func(p string) bool {
				switch {
				case under(p, root):
					return false
				case r.strict:
					return !anyUnder(p, r.may)
				}
				return anyUnder(p, r.never)
			}
			parent := map[string]string{root: ""}
			queue := []string{root}
			for len(queue) > 0 {
				p := queue[0]
				queue = queue[1:]
				if forbidden(p) {
					chain := []string{p}
					for q := parent[p]; q != ""; q = parent[q] {
						chain = append(chain, q)
					}
					slices.Reverse(chain)
					t.Errorf("%s reaches %s: %s\n\t(%s)", root, p, strings.Join(chain, " -> "), r.why)
					continue
				}
				info := g[p]
				if info == nil || r.direct && p != root {
					continue
				}
				for _, imp := range info.imports {
					if _, seen := parent[imp]; seen || isTolerated(p, imp) {
						continue
					}
					parent[imp] = p
					queue = append(queue, imp)
				}
			}
		}
	}
	for _, e := range tolerated {
		if info := g[e.from]; info == nil || !slices.Contains(info.imports, e.to) {
			t.Errorf("%s no longer imports %s: remove it from tolerated (%q)", e.from, e.to, e.why)
		}
	}
}

// TestPhaseNeedsNoKernel lists everything internal/phase and
// internal/inplace (attach's aggregation of what the in-place programs
// read) and their tests reach, any module's, here and on a platform with
// no BPF at all (darwin/arm64 without cgo): nothing that loads BPF — no
// cilium/ebpf, no internal/bpf — so the phase models, the capture analysis
// and attach's figures can be read, tested and built anywhere.
func TestPhaseNeedsNoKernel(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		testenv.Skip(t, testenv.Go, "the go command is not on PATH: the import graph cannot be listed (depguard in .golangci.yml still checks direct imports)")
	}
	for _, pkg := range []string{"internal/phase", "internal/inplace"} {
		for _, env := range [][]string{nil, {"GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=0"}} {
			where := "on this platform"
			if env != nil {
				where = "with " + strings.Join(env, " ")
			}
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(gobin, "list", "-deps", "-test", module+pkg)
			cmd.Env = append(os.Environ(), env...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("go list -deps -test %s %s: %v\n%s", pkg, where, err, stderr.String())
			}
			deps := strings.Fields(stdout.String())
			if !slices.Contains(deps, module+"internal/model") {
				t.Fatalf("%s, %s's dependencies lack internal/model: the listing is not the package's (%d lines)", where, pkg, len(deps))
			}
			var bad []string
			for _, d := range deps {
				if under(d, "github.com/cilium/ebpf") || under(d, module+"internal/bpf") {
					bad = append(bad, d)
				}
			}
			if len(bad) > 0 {
				t.Errorf("%s, %s or its tests reach %s: it must load no BPF (that is internal/bpf's)", where, pkg, strings.Join(bad, ", "))
			}
		}
	}
}
