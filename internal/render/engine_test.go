package render_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every terminal view goes through the one table engine
// (internal/render/layout): no file of the renderers or of the command
// line imports text/tabwriter, which aligns cells but knows no width, so
// its tables ran together once a terminal wrapped them.
func TestNoSecondTableEngine(t *testing.T) {
	files := 0
	for _, dir := range []string{".", filepath.Join("..", "cli")} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			files++
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "text/tabwriter" {
					t.Errorf("%s imports text/tabwriter: lay the table out with render.Table", path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 40 {
		t.Fatalf("only %d files read: the walk missed the renderers or the command line", files)
	}
}
