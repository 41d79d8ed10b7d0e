package layering

// The platform boundary (docs/platforms.md, "The boundary"): Linux's
// mechanisms live in platform files, and every other file builds and means
// the same on Linux and macOS.
//
// A file is a platform file when it is built for one of the two systems
// and never for the other (a _linux or _darwin suffix, or a build
// constraint that excludes one of them under every architecture and cgo
// setting). Every other Go file of the module, its tests included, is
// portable, and a portable file:
//
//  1. imports no package that builds on Linux only (cilium/ebpf's loader,
//     or a package of this module none of whose files builds on macOS);
//  2. names no identifier of syscall or golang.org/x/sys/unix that Linux
//     declares and macOS does not (unix.SchedSetaffinity, unix.Eventfd,
//     unix.SYS_FUTEX, ...), nor a field only Linux's SysProcAttr has
//     (Pdeathsig, Cloneflags, UidMappings, ...) — the names are read from
//     the two packages' own sources for both systems, not listed by hand;
//  3. opens no path under /proc or /sys: no string literal that is such a
//     path is an argument of a call (a parser of their text may be
//     portable, its reader may not);
//  4. never compares runtime.GOOS (a platform differs by file, not by a
//     branch inside shared code; printing it is fine).
//
// The darwin build in scripts/test.sh checks that what is compiled for
// macOS compiles; this test names the rule each misplaced line breaks,
// for every file at once.

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// linuxOnlyPackages cannot be imported by a portable file whatever this
// module's packages are.
var linuxOnlyPackages = []string{"github.com/cilium/ebpf"}

// configs are the builds a portable file must belong to on each system.
var configs = func() (out []build.Context) {
	for _, arch := range []string{"amd64", "arm64"} {
		for _, cgo := range []bool{false, true} {
			c := build.Default
			c.GOARCH, c.CgoEnabled = arch, cgo
			out = append(out, c)
		}
	}
	return out
}()

// builtOn reports whether file name in dir is built for goos under some
// architecture and cgo setting.
func builtOn(t *testing.T, dir, name, goos string) bool {
	for _, c := range configs {
		c.GOOS = goos
		ok, err := c.MatchFile(dir, name)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Join(dir, name), err)
		}
		if ok {
			return true
		}
	}
	return false
}

// declared lists the exported top-level names, and the fields of
// SysProcAttr, that the Go files of dir declare for goos (any arch).
func declared(t *testing.T, dir, goos string) (names, fields map[string]bool) {
	names, fields = map[string]bool{}, map[string]bool{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || !builtOn(t, dir, n, goos) {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.IsExported() {
								names[id.Name] = true
							}
						}
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names[s.Name.Name] = true
						}
						if st, ok := s.Type.(*ast.StructType); ok && s.Name.Name == "SysProcAttr" {
							for _, fl := range st.Fields.List {
								for _, id := range fl.Names {
									fields[id.Name] = true
								}
							}
						}
					}
				}
			}
		}
	}
	return names, fields
}

// linuxOnly is what syscall and x/sys/unix declare for Linux and not for
// macOS: package path → names, and the SysProcAttr fields.
func linuxOnly(t *testing.T) (map[string]map[string]bool, map[string]bool) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/sys").Output()
	if err != nil {
		t.Fatalf("go list -m golang.org/x/sys: %v", err)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	dirs := map[string]string{
		"syscall":               filepath.Join(strings.TrimSpace(string(goroot)), "src", "syscall"),
		"golang.org/x/sys/unix": filepath.Join(strings.TrimSpace(string(out)), "unix"),
	}
	names := map[string]map[string]bool{}
	fields := map[string]bool{}
	for pkg, dir := range dirs {
		ln, lf := declared(t, dir, "linux")
		dn, df := declared(t, dir, "darwin")
		names[pkg] = map[string]bool{}
		for n := range ln {
			if !dn[n] {
				names[pkg][n] = true
			}
		}
		for f := range lf {
			if !df[f] {
				fields[f] = true
			}
		}
	}
	if !names["golang.org/x/sys/unix"]["SchedSetaffinity"] || !names["syscall"]["SYS_FUTEX"] || !fields["Pdeathsig"] || names["golang.org/x/sys/unix"]["Getrusage"] {
		t.Fatalf("the Linux-only names were not read right (SchedSetaffinity, SYS_FUTEX, Pdeathsig should be among them, Getrusage not)")
	}
	return names, fields
}

// procPath is an absolute path under /proc or /sys (a path: no spaces).
var procPath = regexp.MustCompile(`^/(proc|sys)(/[^ ]*)?$`)

func TestPlatformBoundary(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	names, fields := linuxOnly(t)

	// Pass 1: the files of every package, and which packages build on
	// macOS at all.
	type file struct{ dir, name string }
	var portable []file
	pkgDarwin := map[string]bool{} // import path → some non-test file builds on darwin
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // another module (a probe's program)
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		dir, name := filepath.Dir(p), filepath.Base(p)
		rel, _ := filepath.Rel(root, dir)
		pkg := strings.TrimSuffix(module+filepath.ToSlash(rel), "/.")
		onLinux, onDarwin := builtOn(t, dir, name, "linux"), builtOn(t, dir, name, "darwin")
		if onDarwin && !strings.HasSuffix(name, "_test.go") {
			pkgDarwin[pkg] = true
		}
		if onLinux && onDarwin {
			portable = append(portable, file{dir, name})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Pass 2: the rules, on every portable file.
	fset := token.NewFileSet()
	for _, f := range portable {
		path := filepath.Join(f.dir, f.name)
		rel, _ := filepath.Rel(root, path)
		af, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		bad := func(n ast.Node, format string, args ...any) {
			pos := fset.Position(n.Pos())
			t.Errorf("%s:%d: "+format, append([]any{rel, pos.Line}, args...)...)
		}
		local := map[string]string{} // the name a file gives an import → its path
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			local[name] = p
			for _, l := range linuxOnlyPackages {
				if p == l || strings.HasPrefix(p, l+"/") {
					bad(imp, "imports %s, which only Linux has (rule 1: a platform file's import)", p)
				}
			}
			if strings.HasPrefix(p, module) && !pkgDarwin[p] && !strings.HasSuffix(p, "/testdata") {
				if _, err := os.Stat(filepath.Join(root, strings.TrimPrefix(p, module))); err == nil {
					bad(imp, "imports %s, which builds on Linux only (rule 1)", p)
				}
			}
		}
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					if p, ok := local[x.Name]; ok && names[p][n.Sel.Name] {
						bad(n, "names %s.%s, which only Linux declares (rule 2)", x.Name, n.Sel.Name)
						return true
					}
					if p, ok := local[x.Name]; ok && p == "runtime" && n.Sel.Name == "GOOS" {
						return true // checked where it is compared
					}
				}
				if fields[n.Sel.Name] {
					bad(n, "names SysProcAttr.%s, which only Linux has (rule 2)", n.Sel.Name)
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && fields[k.Name] {
					bad(n, "sets SysProcAttr.%s, which only Linux has (rule 2)", k.Name)
				}
			case *ast.CallExpr:
				for _, a := range n.Args {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil && procPath.MatchString(strings.SplitN(s, "%", 2)[0]) {
							bad(lit, "opens %s, a Linux path (rule 3)", s)
						}
					}
				}
			case *ast.BinaryExpr:
				if n.Op == token.EQL || n.Op == token.NEQ {
					for _, e := range []ast.Expr{n.X, n.Y} {
						if isGOOS(e, local) {
							bad(n, "compares runtime.GOOS (rule 4)")
						}
					}
				}
			case *ast.SwitchStmt:
				if n.Tag != nil && isGOOS(n.Tag, local) {
					bad(n, "switches on runtime.GOOS (rule 4)")
				}
			}
			return true
		})
	}
	if len(portable) < 100 {
		t.Fatalf("only %d portable files found under %s: the walk is wrong", len(portable), root)
	}
}

func isGOOS(e ast.Expr, local map[string]string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := s.X.(*ast.Ident)
	return ok && local[x.Name] == "runtime" && s.Sel.Name == "GOOS"
}
