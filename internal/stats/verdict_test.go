package replicate

import (
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

var rw = words{Above: "resolved", Below: "resolved", Within: "not resolved here"}

// A verdict word comes only from an interval at 95% over blocks or rounds;
// below that the interval is shown with its level and no verdict.
func TestVerdictNeeds95AndBlocksOrRounds(t *testing.T) {
	for _, c := range []struct {
		name    string
		iv      interval
		want    string
		verdict bool // whether one of rw may open the text
	}{
		{"two rounds", interval{What: "ratio", Lo: 0.96, Hi: 0.97, Level: 0.5, Unit: unitPairedRounds, Null: 1, OK: true},
			"not enough rounds to tell (interval at 50%): ratio [0.96, 0.97], rounds paired", false},
		{"just short of 95%", interval{What: "ratio", Lo: 1.2, Hi: 1.3, Level: 0.9375, Unit: unitBlocks, Null: 1, OK: true},
			"not enough rounds to tell (interval at 93.8%): ratio [1.20, 1.30], blocks", false},
		{"samples", interval{What: "processes/threads", Lo: 1.62, Hi: 1.65, Level: 0.95, Unit: stats.IntervalSamples, Null: 1, OK: true},
			"sample-level interval: no verdict (processes/threads [1.62, 1.65] at 95%, samples)", false},
		{"unit not recorded", interval{What: "ratio", Lo: 1.2, Hi: 1.3, Level: 0.99, Null: 1, OK: true},
			"sample-level interval: no verdict (ratio [1.20, 1.30] at 99%, unit not recorded)", false},
		{"no interval", interval{What: "ratio"}, "no interval: no verdict", false},
		{"above at 95%", interval{What: "processes/threads", Lo: 1.62, Hi: 1.65, Level: 0.953125, Unit: unitPairedBlocks, Null: 1, OK: true},
			"resolved: processes/threads [1.62, 1.65] at 95.3%, paired blocks", true},
		{"block medians at 95%", interval{What: "ratio", Lo: 0.5, Hi: 0.9, Level: 0.95, Unit: stats.IntervalBlocks, Null: 1, OK: true},
			"resolved: ratio [0.50, 0.90] at 95%, block-medians", true},
		{"holds the null at 95%", interval{What: "its share", Lo: -3, Hi: 4, Level: 0.96, Unit: unitRounds, Format: "%+.0f%%", OK: true},
			"not resolved here: its share [-3%, +4%] at 96%, rounds", true},
	} {
		got := verdict(c.iv, rw)
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		given := strings.HasPrefix(got, rw.Above+":") || strings.HasPrefix(got, rw.Within+":")
		if given != c.verdict {
			t.Errorf("%s: verdict given = %v, want %v: %q", c.name, given, c.verdict, got)
		}
	}
}

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

// Every verdict is formed by verdict: a string stating one appears in the
// package only as a field of a words literal (the words verdict may give).
func TestVerdictWordsOnlyThroughVerdict(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "verdict.go" {
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
				if id, ok := cl.Type.(*ast.Ident); ok && id.Name == "words" {
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
				t.Errorf("%s: %q states a verdict outside verdict()", fset.Position(b.Pos()), s)
			}
			return true
		})
	}
}
