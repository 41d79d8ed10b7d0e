package replicate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// ring builds a ring of blocks of per samples each, in rounds 0..len-1,
// around level ns per hop; blocks nil leaves the blocks unrecorded.
func ring(kind string, level float64, blocks, per int, record bool) *result.Ring {
	r := &result.Ring{Kind: kind}
	for b := range blocks {
		for s := range per {
			x := level * (1 + 0.01*float64((b*7+s*3)%5))
			r.Samples = append(r.Samples, x)
			r.OverheadSamples = append(r.OverheadSamples, 0.2*x)
		}
		if record {
			r.BlockInfo = append(r.BlockInfo, result.BlockInfo{Round: b, Samples: per})
		}
	}
	r.RawNS, r.OverheadNS = stats.Summarize(r.Samples), stats.Summarize(r.OverheadSamples)
	r.NetNS = r.RawNS.Median - r.OverheadNS.Median
	return r
}

// The hot-potato ring's verdicts follow the rule: two rounds (--quick and
// the published 20 × 10 samples) give a 50% interval, unrecorded blocks a
// sample-level one; neither says "resolved". Ten rounds do.
func TestHotPotatoVerdicts(t *testing.T) {
	for _, c := range []struct {
		name          string
		blocks, per   int
		record        bool
		want, notWant string
	}{
		{"two rounds", 2, 4, true, "not enough rounds to tell (interval at 50%): processes/threads [", "resolved: processes/threads"},
		{"blocks unknown", 2, 8, false, "sample-level interval: no verdict (processes/threads [", "resolved: processes/threads"},
		{"ten rounds", 10, 2, true, "resolved: processes/threads [", "no verdict"},
	} {
		th, pr := ring("thread", 1000, c.blocks, c.per, c.record), ring("process", 1630, c.blocks, c.per, c.record)
		rep := HotPotato(result.Environment{}, []HotPotatoPoint{{Group: CoreGroup{Name: "one core type"}, Thread: th, Process: pr}}, 10_000)
		if !strings.Contains(rep.Measured, c.want) {
			t.Errorf("%s: measured %q lacks %q", c.name, rep.Measured, c.want)
		}
		if strings.Contains(rep.Measured, c.notWant) {
			t.Errorf("%s: measured %q says %q", c.name, rep.Measured, c.notWant)
		}
		if c.record && c.blocks == 2 && !strings.Contains(rep.Mistake, "not enough rounds to tell (interval at 50%): its share [") {
			t.Errorf("%s: the net share's 50%% interval is not shown as too few rounds: %q", c.name, rep.Mistake)
		}
	}
}

// verdictLiteral is a string that states a verdict.
var verdictLiteral = regexp.MustCompile(`(?i)\b(resolved|different|confirmed|refuted|same|consistent)\s*:|not resolved|holds here|does not hold|no difference resolved|\b(faster|slower)\b`)

// Every verdict is formed by stats.Verdict: a string stating one appears in
// these packages only as a field of a stats.Words literal (the words
// Verdict may give).
func TestVerdictWordsOnlyThroughVerdict(t *testing.T) {
	// The replications and the pool experiment print verdicts.
	own, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := filepath.Glob("../pool/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := append(own, pool...)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		allowed := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if cl, ok := n.(*ast.CompositeLit); ok {
				if isWords(cl.Type) {
					ast.Inspect(cl, func(m ast.Node) bool {
						if b, ok := m.(*ast.BasicLit); ok {
							allowed[b] = true
						}
						return true
					})
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING || allowed[b] {
				return true
			}
			if s, err := strconv.Unquote(b.Value); err == nil && verdictLiteral.MatchString(s) {
				t.Errorf("%s: %q states a verdict outside stats.Verdict()", fset.Position(b.Pos()), s)
			}
			return true
		})
	}
}

// isWords says an expression names stats.Words.
func isWords(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "stats" && sel.Sel.Name == "Words"
}

// The address space's share of the net switch is stored and printed as
// the figure its interval belongs to: the median of the per-round shares.
// Here the rings' block medians pair into shares of +75% once and +90% to
// +94% otherwise, while the ratio of the two nets is +75%, outside the
// per-round interval.
func TestHotPotatoNetShareIsTheFigureOfItsInterval(t *testing.T) {
	build := func(kind string, blockMedians []float64) *result.Ring {
		r := &result.Ring{Kind: kind}
		for k, m := range blockMedians {
			r.Samples = append(r.Samples, m, m, m)
			r.OverheadSamples = append(r.OverheadSamples, 0, 0, 0)
			r.BlockInfo = append(r.BlockInfo, result.BlockInfo{Round: k, Samples: 3})
		}
		sizes := result.BlockSizes(r.BlockInfo)
		r.RawNS, r.OverheadNS = stats.SummarizeBlocks(r.Samples, sizes), stats.SummarizeBlocks(r.OverheadSamples, sizes)
		r.NetNS = r.RawNS.Median - r.OverheadNS.Median
		return r
	}
	th, pr := disagreeingRounds()
	tr, ps := build("thread", th), build("process", pr)
	rep := HotPotato(result.Environment{}, []HotPotatoPoint{{Group: CoreGroup{Name: "one core type"}, Thread: tr, Process: ps}}, 10_000)
	v := rep.Values
	share, lo, hi := v["address_space_overhead_pct_of_net"], v["address_space_overhead_pct_of_net_low"], v["address_space_overhead_pct_of_net_high"]
	if _, ok := v["address_space_overhead_pct_of_net_low"]; !ok {
		t.Fatalf("no interval for the net share: %v", v)
	}
	ofNets := 100 * (ps.NetNS - tr.NetNS) / tr.NetNS
	if ofNets >= lo && ofNets <= hi {
		t.Fatalf("the simulation does not separate the estimators: the ratio of the nets %+.1f%% lies in [%+.1f%%, %+.1f%%]", ofNets, lo, hi)
	}
	if share < lo || share > hi {
		t.Errorf("the net share %+.1f%% lies outside its own interval [%+.1f%%, %+.1f%%]", share, lo, hi)
	}
	if want := fmt.Sprintf("(%+.0f%%) of the net switch", share); !strings.Contains(rep.Mistake, want) {
		t.Errorf("the text does not print the stored share %q: %s", want, rep.Mistake)
	}
}
