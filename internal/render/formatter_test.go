package render_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// floatVerb is a float verb of a format string — %f %F %e %E %g %G with or
// without flags, width and precision — found after an even run of '%'
// (an odd one is the verb's own; "%%" is a literal percent sign). The space
// flag is left out: prose such as "95% from" would read as "% f".
var floatVerb = regexp.MustCompile(`(?:^|[^%])(?:%%)*%[-+#0]*(?:\d+|\*)?(?:\.(?:\d+|\*)?)?[fFeEgG]`)

// Every number a renderer shows is formatted by units, so the same figure
// reads the same in every table, the report and compare: no file of
// internal/render (or below) holds a float verb in any string literal (a
// format string, or one passed to a helper) nor calls strconv's float
// formatting. golangci-lint's forbidigo sees calls, not format strings;
// this sees both. %v of a float is beyond an AST walk: none is written.
func TestNumbersOnlyThroughUnits(t *testing.T) {
	fset := token.NewFileSet()
	var files int
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					t.Errorf("%s: %v", fset.Position(n.Pos()), err)
					return true
				}
				if m := floatVerb.FindString(s); m != "" {
					t.Errorf("%s: float verb %q in %s: format the number with units", fset.Position(n.Pos()), m[strings.LastIndex(m, "%"):], n.Value)
				}
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "strconv" && (n.Sel.Name == "FormatFloat" || n.Sel.Name == "AppendFloat") {
					t.Errorf("%s: strconv.%s: format the number with units", fset.Position(n.Pos()), n.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("only %d files read: the walk missed the renderers", files)
	}
}

func TestFloatVerb(t *testing.T) {
	for s, want := range map[string]bool{
		"%.2f": true, "%6.2f ns": true, "%+.1f%%": true, "[%g%% interval]": true, "%.3g": true, "%*.*e": true, "%-8.1F": true, "x %G": true,
		"%d": false, "%s": false, "%5d%%": false, "95%% from": false, "100%f": true, "100%%f": false, "%%%f": true, "%v": false, "95% from": false,
	} {
		if got := floatVerb.MatchString(s); got != want {
			t.Errorf("floatVerb(%q) = %v, want %v", s, got, want)
		}
	}
}
