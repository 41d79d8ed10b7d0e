package probe

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/probes"
)

// Built is a probe ready to run.
type Built struct {
	Language  Language
	Dir       string // the cache entry: src/ holds the sources, plus the build outputs
	Key       string
	Cached    bool // true when an earlier build was reused
	Toolchain Toolchain
	BuildTime time.Duration // zero when cached
}

// recipe is how one language's probe is built and started.
type recipe struct {
	// describe is the build recipe in words; it is part of the cache key.
	describe string
	// build turns dir/src into the runnable probe inside dir.
	build func(ctx context.Context, tc Toolchain, dir string) error
	// command is the argv that runs the probe, and the extra environment.
	command func(tc Toolchain, dir string, b Bench, parallelism int) (argv, env []string)
	// unset lists inherited variables that would change the result.
	unset []string
}

const javaHeap = "-Xms256m -Xmx2g"

var recipes = map[Language]recipe{
	Erlang: {
		describe: "erlc -o ebin src/ctxbench_probe.erl",
		build: func(ctx context.Context, tc Toolchain, dir string) error {
			if err := os.MkdirAll(filepath.Join(dir, "ebin"), 0o755); err != nil {
				return err
			}
			return runTool(ctx, dir, nil, tc.Tools["erlc"], "-o", filepath.Join(dir, "ebin"), filepath.Join(dir, "src", "ctxbench_probe.erl"))
		},
		command: func(tc Toolchain, dir string, b Bench, par int) ([]string, []string) {
			if par < 1 {
				par = 1
			}
			s := fmt.Sprintf("%d:%d", par, par)
			return []string{tc.Tools["erl"], "-noinput", "+S", s, "-pa", filepath.Join(dir, "ebin"), "-s", "ctxbench_probe", "main"}, nil
		},
		unset: []string{"ERL_FLAGS", "ERL_AFLAGS", "ERL_ZFLAGS", "ERL_LIBS"},
	},
	Rust: {
		describe: "cargo build --release --locked (Cargo.lock pins tokio 1.54.1, corosensei 0.3.4)",
		build: func(ctx context.Context, tc Toolchain, dir string) error {
			src := filepath.Join(dir, "src")
			target := filepath.Join(dir, "target")
			env := []string{"CARGO_TARGET_DIR=" + target, "CTXBENCH_RUSTC_VERSION=" + strings.SplitN(tc.Version, ";", 2)[0]}
			if err := runTool(ctx, src, env, tc.Tools["cargo"], "build", "--release", "--locked", "--quiet"); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
				return err
			}
			// Keep the binary, drop the (large) target directory.
			if err := os.Rename(filepath.Join(target, "release", "ctxbench-probe"), filepath.Join(dir, "bin", "ctxbench-probe")); err != nil {
				return err
			}
			return os.RemoveAll(target)
		},
		command: func(tc Toolchain, dir string, b Bench, par int) ([]string, []string) {
			return []string{filepath.Join(dir, "bin", "ctxbench-probe")}, []string{fmt.Sprintf("CTXBENCH_PARALLELISM=%d", par)}
		},
		unset: []string{"TOKIO_WORKER_THREADS", "RUST_MIN_STACK"},
	},
	Java: {
		describe: "javac --release 17 -d classes src/Probe.java",
		build: func(ctx context.Context, tc Toolchain, dir string) error {
			return runTool(ctx, dir, nil, tc.Tools["javac"], "--release", "17", "-d", filepath.Join(dir, "classes"), filepath.Join(dir, "src", "Probe.java"))
		},
		command: func(tc Toolchain, dir string, b Bench, par int) ([]string, []string) {
			argv := []string{tc.Tools["java"], "-XX:+UseG1GC"}
			argv = append(argv, strings.Fields(javaHeap)...)
			if par > 0 {
				argv = append(argv, fmt.Sprintf("-Djdk.virtualThreadScheduler.parallelism=%d", par))
			}
			return append(argv, "-cp", filepath.Join(dir, "classes"), "Probe"), nil
		},
		unset: []string{"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH"},
	},
	Node: {
		describe: "node --check src/probe.cjs",
		build: func(ctx context.Context, tc Toolchain, dir string) error {
			return runTool(ctx, dir, nil, tc.Tools["node"], "--check", filepath.Join(dir, "src", "probe.cjs"))
		},
		command: func(tc Toolchain, dir string, b Bench, par int) ([]string, []string) {
			return []string{tc.Tools["node"], "--expose-gc", filepath.Join(dir, "src", "probe.cjs")}, nil
		},
		unset: []string{"NODE_OPTIONS", "UV_THREADPOOL_SIZE"},
	},
	Python: {
		describe: "python3: parse src/probe.py",
		build: func(ctx context.Context, tc Toolchain, dir string) error {
			return runTool(ctx, dir, nil, tc.Tools["python"], "-c",
				"import ast,sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])", filepath.Join(dir, "src", "probe.py"))
		},
		command: func(tc Toolchain, dir string, b Bench, par int) ([]string, []string) {
			return []string{tc.Tools["python"], filepath.Join(dir, "src", "probe.py")}, nil
		},
		unset: []string{"PYTHONDEVMODE", "PYTHONASYNCIODEBUG", "PYTHONTRACEMALLOC", "PYTHONMALLOC", "PYTHONWARNINGS", "PYTHONOPTIMIZE"},
	},
	Cpp: {
		describe: "g++ -std=c++20 -O2 -o bin/ctxbench-probe src/probe.cpp",
		build: func(ctx context.Context, tc Toolchain, dir string) error {
			if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
				return err
			}
			return runTool(ctx, dir, nil, tc.Tools["g++"], "-std=c++20", "-O2", "-o", filepath.Join(dir, "bin", "ctxbench-probe"), filepath.Join(dir, "src", "probe.cpp"))
		},
		command: func(tc Toolchain, dir string, b Bench, par int) ([]string, []string) {
			return []string{filepath.Join(dir, "bin", "ctxbench-probe")}, nil
		},
	},
}

// runTool runs a build command; on failure the error carries the end of its output.
func runTool(ctx context.Context, dir string, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", filepath.Base(name), strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	return nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return s
}

// sources returns the embedded source tree of lang's probe.
func sources(lang Language) (fs.FS, error) {
	return fs.Sub(probes.FS, string(lang))
}

// extract copies the embedded sources into dir.
func extract(src fs.FS, dir string) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// Build builds lang's probe into the default cache, or reuses an earlier build.
func Build(ctx context.Context, lang Language) (Built, error) {
	c, err := DefaultCache()
	if err != nil {
		return Built{}, err
	}
	return c.Build(ctx, lang)
}

// Build builds lang's probe into c, or reuses the entry an earlier build left for the same
// sources, toolchain and recipe. Safe for concurrent use, across processes too.
func (c Cache) Build(ctx context.Context, lang Language) (Built, error) {
	r, ok := recipes[lang]
	if !ok {
		return Built{}, fmt.Errorf("unknown probe language %q", lang)
	}
	tc, err := Detect(lang)
	if err != nil {
		return Built{}, err
	}
	src, err := sources(lang)
	if err != nil {
		return Built{}, err
	}
	key, err := buildKey(lang, src, tc.Version, r.describe)
	if err != nil {
		return Built{}, err
	}
	start := time.Now()
	dir, cached, err := c.entry(ctx, string(lang)+"-"+key, func(ctx context.Context, dir string) error {
		if err := extract(src, filepath.Join(dir, "src")); err != nil {
			return err
		}
		if err := r.build(ctx, tc, dir); err != nil {
			return fmt.Errorf("building the %s probe: %w", lang, err)
		}
		return nil
	})
	if err != nil {
		return Built{}, err
	}
	b := Built{Language: lang, Dir: dir, Key: key, Cached: cached, Toolchain: tc}
	if !cached {
		b.BuildTime = time.Since(start)
	}
	return b, nil
}
