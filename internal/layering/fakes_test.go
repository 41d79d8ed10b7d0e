package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// No production code can tell a fake from the real thing: a type
// assertion or a type switch on a fake (a FakeExecutor, ...) would let a
// dry run take another path than a measurement, which is what it stands
// for. The suites choose a fake for a dry run; nothing below looks.
func TestNoCodeTellsFakesApart(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var typ ast.Expr
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				typ = n.Type
			case *ast.CaseClause:
				for _, e := range n.List {
					if fake(e) {
						typ = e
					}
				}
			}
			if typ != nil && fake(typ) {
				t.Errorf("%s: production code tells a fake apart (%s)", fset.Position(n.Pos()), exprString(typ))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fake says whether a type expression names a fake.
func fake(e ast.Expr) bool { return strings.Contains(exprString(e), "Fake") }

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	}
	return ""
}
