package testenv_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Every skip in the module's tests goes through testenv, so that a skip
// for something the machine declares fails and every skip is counted: a
// t.Skip, t.Skipf or t.SkipNow anywhere else fails here, with where it is.
func TestSkipsGoThroughTestenv(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules" || path == filepath.Join(root, "internal", "testenv")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		n++
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(node ast.Node) bool {
			call, ok := node.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch sel.Sel.Name {
			case "Skip", "Skipf", "SkipNow":
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "testenv" {
					t.Errorf("%s: a skip that is not testenv's: use testenv.Skip with the capability it lacks", fset.Position(call.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("read %d test files: the walk missed the module", n)
	}
}
