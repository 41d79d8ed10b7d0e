package cli

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/suite"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// stderrLines splits stderr into its lines.
func stderrLines(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// The old spellings of renamed flags still work for this release: each
// prints exactly one line on stderr saying what to use (however often it
// is given), nothing on stdout, and its value reaches the checks of the
// new name. Every row ends in --lock-timeout 0s, so nothing is measured:
// the command got past every other check.
func TestRenamedFlagsStillWork(t *testing.T) {
	stop := []string{"--lock-timeout", "0s"}
	const stopped = "ctxbench: --lock-timeout must be positive"
	for _, c := range []struct {
		args []string
		note string
	}{
		{[]string{"spawn", "goroutine", "--samples", "5"}, "ctxbench: --samples is deprecated; use --runs"},
		{[]string{"memory", "goroutine", "--n", "goroutine=1000", "--n", "thread=10"}, "ctxbench: --n is deprecated; use --contexts"},
		{[]string{"pool", "--server", "redis", "--repetitions", "3"}, "ctxbench: --repetitions is deprecated; use --runs"},
		{[]string{"pool", "--server", "redis", "--warmup", "100ms"}, "ctxbench: --warmup is deprecated; use --warmup-time"},
	} {
		args := append(append([]string{}, c.args...), stop...)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, args...)
			lines := stderrLines(stderr)
			if code != ExitUsage || len(lines) != 2 || lines[0] != c.note || !strings.HasPrefix(lines[1], stopped) {
				t.Fatalf("exit %d, stderr %q: want the note %q, then the stop", code, stderr, c.note)
			}
			if stdout != "" {
				t.Errorf("stdout %q: the note belongs on stderr", stdout)
			}
		})
	}
	// A bad value under an old spelling is refused by the new name's check,
	// which names the spelling given, after the one note.
	for _, c := range []struct {
		args      []string
		note, err string
	}{
		{[]string{"spawn", "goroutine", "--samples", "0"}, "--samples is deprecated", "ctxbench: --samples must be between 1 and 100000"},
		{[]string{"memory", "goroutine", "--n", "goroutine=0"}, "--n is deprecated", `ctxbench: --n "goroutine=0": want KIND=COUNT`},
		{[]string{"pool", "--server", "redis", "--repetitions", "0"}, "--repetitions is deprecated", "ctxbench: --repetitions must be between 1 and 100000"},
		{[]string{"pool", "--server", "redis", "--warmup", "-1s"}, "--warmup is deprecated", "ctxbench: pool: negative warm-up"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := run(t, c.args...)
			lines := stderrLines(stderr)
			if code != ExitUsage || len(lines) != 2 || !strings.Contains(lines[0], c.note) || !strings.HasPrefix(lines[1], c.err) {
				t.Fatalf("exit %d, stderr %q: want a note with %q, then %q", code, stderr, c.note, c.err)
			}
		})
	}
	// Both spellings at once: one of the values would be lost, so refused.
	for _, args := range [][]string{
		{"spawn", "goroutine", "--samples", "5", "--runs", "6"},
		{"memory", "goroutine", "--n", "goroutine=5", "--contexts", "thread=6"},
		{"pool", "--server", "redis", "--repetitions", "3", "-r", "4"},
		{"pool", "--server", "redis", "--warmup", "1s", "--warmup-time", "2s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := run(t, args...)
			if lines := stderrLines(stderr); code != ExitUsage || len(lines) != 1 || !strings.Contains(lines[0], "is the old spelling of") {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
		})
	}
}

// The old spellings are bound to the new names' values: pool's sweep gets
// them.
func TestRenamedPoolFlagsReachTheSweep(t *testing.T) {
	for _, args := range [][]string{
		{"--repetitions", "7", "--warmup", "300ms"},
		{"--runs", "7", "--warmup-time", "300ms"},
		{"-r", "7", "--warmup-time", "300ms", "--quick"},
	} {
		cfg, _ := poolConfig(t, args...)
		if cfg.Repetitions != 7 || cfg.Warmup != 300*time.Millisecond {
			t.Errorf("%v: %d windows a point, warm-up %v; want 7 and 300ms", args, cfg.Repetitions, cfg.Warmup)
		}
	}
}

// poolConfig parses pool's flags and returns the sweep they ask for and its
// settings record.
func poolConfig(t *testing.T, args ...string) (suite.PoolConfig, result.Settings) {
	t.Helper()
	pf := &poolFlags{}
	cmd := &cobra.Command{Use: "pool"}
	pf.register(cmd)
	if err := cmd.ParseFlags(append([]string{"--server", "redis"}, args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	cfg, err := pf.config(cmd.Flags())
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return cfg, pf.settings(cfg)
}

// A sampling flag makes pool's preset "custom", as it does run's.
func TestPoolPresetRecordsSamplingFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "default"},
		{[]string{"--quick"}, "quick"},
		{[]string{"--runs", "7"}, "custom"},
		{[]string{"--quick", "--duration", "2s"}, "custom"},
		{[]string{"--warmup-time", "300ms"}, "custom"},
		{[]string{"--pool-sizes", "1,2"}, "default"}, // what is swept, not how each point is sampled
	} {
		if _, set := poolConfig(t, c.args...); set.Preset != c.want {
			t.Errorf("%v: preset %q, want %q", c.args, set.Preset, c.want)
		}
	}
}

// Pool's seed behaves as run's: not given, it comes from the clock (no
// longer a fixed 1) and is recorded; given, even 0, it is used as given.
func TestPoolSeedFromTheClock(t *testing.T) {
	a, setA := poolConfig(t)
	time.Sleep(time.Microsecond)
	b, _ := poolConfig(t)
	if a.Seed == b.Seed || a.Seed <= 1 {
		t.Errorf("seeds %d and %d: not from the clock", a.Seed, b.Seed)
	}
	if setA.Seed != int64(a.Seed) {
		t.Errorf("settings record seed %d, the sweep used %d", setA.Seed, a.Seed)
	}
	for _, seed := range []uint64{0, 7} {
		cfg, set := poolConfig(t, "--seed", map[uint64]string{0: "0", 7: "7"}[seed])
		if cfg.Seed != seed || set.Seed != int64(seed) {
			t.Errorf("--seed %d: the sweep used %d, the settings record %d", seed, cfg.Seed, set.Seed)
		}
	}
}

// Every --help gives the real default of the new flags and hides the old
// spellings.
func TestHelpOfRenamedFlags(t *testing.T) {
	for _, c := range []struct {
		path      []string
		want      []string
		forbidden *regexp.Regexp
	}{
		{nil, []string{`--color WHEN .*\(default auto\)`}, nil},
		{[]string{"spawn"}, []string{`-r, --runs int .*default: each kind's own`, `--export-csv FILE`, `--export-markdown FILE`, `--color WHEN`}, regexp.MustCompile(`--samples\b`)},
		{[]string{"memory"}, []string{`--contexts strings`, `--export-csv FILE`, `--export-markdown FILE`}, regexp.MustCompile(`--n\b`)},
		{[]string{"pool"}, []string{`-r, --runs int .*\(default 5; --quick 3\)`, `--warmup-time duration .*\(default 500ms; --quick 200ms\)`,
			`--seed SEED .*from the clock, recorded in the results`, `--duration duration .*\(default 1s; --quick 500ms\)`},
			regexp.MustCompile(`--repetitions|--warmup\s`)},
	} {
		_, out, _ := run(t, append(append([]string{}, c.path...), "--help")...)
		for _, w := range c.want {
			if !regexp.MustCompile(w).MatchString(out) {
				t.Errorf("%v --help: no line matching %q:\n%s", c.path, w, out)
			}
		}
		if c.forbidden != nil && c.forbidden.MatchString(out) {
			t.Errorf("%v --help lists an old spelling (%s):\n%s", c.path, c.forbidden, out)
		}
	}
}

// --color always colours even off a terminal and over NO_COLOR; never
// and auto off a terminal do not. The dry run's banner is painted.
func TestColorFlag(t *testing.T) {
	const sgr = "\x1b["
	for _, c := range []struct {
		color, noColor string
		want           bool
	}{
		{"", "", false}, // auto, and a buffer is no terminal
		{"auto", "", false},
		{"always", "", true},
		{"always", "1", true},
		{"never", "", false},
	} {
		t.Setenv("NO_COLOR", c.noColor)
		args := []string{"run", "thread/pipe", "--dry-run", "--no-history"}
		if c.color != "" {
			args = append(args, "--color", c.color)
		}
		code, out, stderr := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
		if got := strings.Contains(out, sgr); got != c.want {
			t.Errorf("%v with NO_COLOR=%q: colour %v, want %v", args, c.noColor, got, c.want)
		}
	}
}

func TestColorOn(t *testing.T) {
	for _, c := range []struct {
		mode          colorMode
		tty           bool
		noColor, term string
		want          bool
	}{
		{colorAuto, true, "", "xterm", true},
		{colorAuto, false, "", "xterm", false},
		{colorAuto, true, "1", "xterm", false},
		{colorAuto, true, "", "dumb", false},
		{colorAuto, true, "", "", true},
		{colorAlways, false, "1", "dumb", true},
		{colorNever, true, "", "xterm", false},
	} {
		if got := colorOn(c.mode, c.tty, c.noColor, c.term); got != c.want {
			t.Errorf("colorOn(%s, tty %v, NO_COLOR=%q, TERM=%q) = %v, want %v", c.mode, c.tty, c.noColor, c.term, got, c.want)
		}
	}
}

// spawn and memory write their CSV and Markdown tables beside the JSON;
// an export on stdout sends the terminal table to stderr.
func TestLifecycleExports(t *testing.T) {
	doc, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name          string
		csv, markdown func(w io.Writer, d *result.Document) error
		show          func(io.Writer, *result.Document)
		rows          int
		mdWants       string
	}{
		{"spawn", formats.SpawnCSV, formats.SpawnMarkdown, render.Spawn, len(doc.Spawn), "| Context | Measurement | Per creation (median) |"},
		{"memory", formats.MemoryCSV, formats.MemoryMarkdown, render.Memory, len(doc.Memory), "| Context | Measurement | Held | PSS |"},
	} {
		ex := lifecycleExports{json: filepath.Join(dir, c.name+".json"), csv: filepath.Join(dir, c.name+".csv"), markdown: filepath.Join(dir, c.name+".md")}
		var out, errb bytes.Buffer
		if err := lifecycle(nil, nil, false, false, ex.list(c.csv, c.markdown), nil, c.show).present(doc, &out, &errb); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := result.Load(ex.json, nil); err != nil {
			t.Errorf("%s JSON: %v", c.name, err)
		}
		f, err := os.Open(ex.csv)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || len(recs) != c.rows+1 {
			t.Errorf("%s CSV: %d records (want a header and %d rows), %v", c.name, len(recs), c.rows, err)
		}
		if md, _ := os.ReadFile(ex.markdown); !strings.Contains(string(md), c.mdWants) {
			t.Errorf("%s Markdown:\n%s", c.name, md)
		}
		if !strings.Contains(out.String(), "ctxbench — ") || errb.Len() != 0 {
			t.Errorf("%s: the table belongs on stdout: stdout %q, stderr %q", c.name, out.String(), errb.String())
		}
		// The CSV on stdout: stdout is CSV only, the table goes to stderr.
		out.Reset()
		errb.Reset()
		ex = lifecycleExports{csv: "-"}
		if err := lifecycle(nil, nil, false, false, ex.list(c.csv, c.markdown), nil, c.show).present(doc, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if recs, err := csv.NewReader(&out).ReadAll(); err != nil || len(recs) != c.rows+1 {
			t.Errorf("%s CSV on stdout: %d records, %v", c.name, len(recs), err)
		}
		if !strings.Contains(errb.String(), "ctxbench — ") {
			t.Errorf("%s: with the CSV on stdout the table belongs on stderr, got %q", c.name, errb.String())
		}
	}
}
