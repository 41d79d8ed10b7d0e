package cli

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/store"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// preset is a named trade of time for precision.
type preset struct {
	name                string
	runs, block, warmup int
	minTime             time.Duration
	span                time.Duration // the least time a cell's blocks are spread over
}

// The presets. On the reference machine the host's noise comes in phases
// lasting seconds; blocks taken within one phase agree with each other and
// not with the next run, so the default spreads a run's blocks over ten
// seconds (the default ladder takes longer anyway) and --thorough over
// thirty. --quick does not pace: its intervals describe its own second.
var (
	presetQuick    = preset{"quick", 12, 2, 1, time.Millisecond, 0}
	presetDefault  = preset{"default", 40, 4, 1, 2 * time.Millisecond, 10 * time.Second}
	presetThorough = preset{"thorough", 160, 8, 2, 5 * time.Millisecond, 30 * time.Second}
)

// lockFlags say how a measuring command waits for another measurement on
// the machine to finish (they never overlap).
type lockFlags struct {
	noWait  bool
	timeout time.Duration
}

func (l *lockFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&l.noWait, "no-wait", false, "when another ctxbench is measuring on this machine, fail at once instead of waiting for it")
	f.DurationVar(&l.timeout, "lock-timeout", 30*time.Minute, "how long to wait for another ctxbench measuring on this machine")
}

func (l *lockFlags) lock(stderr io.Writer) (*session.Lock, error) {
	if l.timeout <= 0 {
		return nil, usagef("--lock-timeout must be positive, got %v (use --no-wait not to wait)", l.timeout)
	}
	return &session.Lock{Wait: !l.noWait, Timeout: l.timeout, Stderr: stderr}, nil
}

// measureFlags are the flags of every command that measures.
type measureFlags struct {
	lockFlags
	fs                    *pflag.FlagSet // to tell a value given from a default
	runs, warmup, block   int
	minTime, timeout      time.Duration
	iterations            uint64
	placements            []string
	cpus                  string
	quick, thorough       bool
	seed                  seedValue
	dryRun, quiet, noPerf bool
	switchesOnly          bool
	exportJSON            string
	exportCSV             string
	exportMarkdown        string
	exportGoBench         string
	span                  time.Duration
	targetCI              float64 // percent; 0: no target
	targetBudget          time.Duration
	noHistory             bool
	store                 string // --store: where the history is ("" the default)
}

func (m *measureFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	m.fs = f
	f.IntVarP(&m.runs, "runs", "r", 0, "measured samples per benchmark and placement (default: 40; --quick 12; --thorough 160)")
	f.IntVarP(&m.warmup, "warmup", "w", 0, "samples discarded at the start of every block")
	f.Lookup("warmup").DefValue = "1; --thorough 2" // the preset's unless given
	f.IntVar(&m.block, "samples-per-block", 0, "samples per worker process (a block, the unit of every interval); cells are interleaved block by block (default 4: 10 blocks; --quick 2, --thorough 8)")
	f.DurationVar(&m.minTime, "min-time", 0, "target duration of one sample; ops per sample are calibrated to it (default 2ms)")
	f.Uint64Var(&m.iterations, "iterations", 0, "fixed ops per sample instead of calibrating")
	f.StringSliceVarP(&m.placements, "placement", "p", nil, "same-cpu, cross-cpu, unpinned and/or a level of the CPU topology ("+levelNames()+": the pair ctxbench env shows for it) (default: each benchmark's ladder placements, and thread/pipe and process/pipe at each level present)")
	f.StringVar(&m.cpus, "cpus", "", "CPUs to use, e.g. 2,3 or 0-3: same-cpu uses the last, cross-cpu the first and last (default: all allowed)")
	f.BoolVar(&m.quick, "quick", false, "fewer, shorter samples: faster, less precise")
	f.BoolVar(&m.thorough, "thorough", false, "more, longer samples: slower, more precise")
	f.Var(&m.seed, "seed", "seed of the interleaving order, 0 or more (default: from the clock, recorded in the results)")
	f.DurationVar(&m.span, "span", 0, "spread the blocks over at least this long, so they meet the host's slow phases as the next run will (0: no pacing)")
	f.Lookup("span").DefValue = "10s; --quick 0, --thorough 30s"
	f.DurationVar(&m.timeout, "timeout", 0, "watchdog per block: a block that has not finished by then is killed (default: derived from --min-time)")
	f.BoolVar(&m.dryRun, "dry-run", false, "measure nothing: synthetic, deterministic samples (for testing exports)")
	f.BoolVarP(&m.quiet, "quiet", "q", false, "print no table, progress or warnings; only errors")
	f.BoolVar(&m.noPerf, "no-perf-check", false, "skip the extra block per benchmark that cross-checks switch counts with perf events")
	f.StringVar(&m.exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.StringVar(&m.exportCSV, "export-csv", "", "write a summary CSV to `FILE` (- for stdout)")
	f.StringVar(&m.exportMarkdown, "export-markdown", "", "write a Markdown table to `FILE` (- for stdout)")
	f.StringVar(&m.exportGoBench, "export-gobench", "", "write the samples in Go benchmark format, for benchstat, to `FILE` (- for stdout)")
	if cmd.Name() == "ctxbench" {
		f.BoolVar(&m.switchesOnly, "switches-only", false, "run the switch ladder only, without the creation and memory ladders")
	}
	if cmd.Name() == "ctxbench" || cmd.Name() == "run" {
		f.Var((*percentValue)(&m.targetCI), "target-ci", "add interleaved blocks to every cell whose 95% interval (reproducibility where this machine has learned it, else this sitting's) is wider than ±`PCT` percent, until it is not or --target-budget runs out")
		f.DurationVar(&m.targetBudget, "target-budget", time.Minute, "the time --target-ci may add to the run")
	}
	if cmd.Name() == "ctxbench" || cmd.Name() == "run" || cmd.Name() == "aa" {
		f.BoolVar(&m.noHistory, "no-history", false, "neither record this run in the machine's history nor read it (also: "+envNoHistory+"=1); the intervals then cover this sitting only")
		f.StringVar(&m.store, "store", "", "the history to record into and learn from: a file `PATH`, or a postgres:// URL a fleet shares (default: $"+envHistory+", else ctxbench/history.db under $XDG_DATA_HOME or ~/.local/share)")
		cmd.MarkFlagsMutuallyExclusive("no-history", "store")
	}
	cmd.MarkFlagsMutuallyExclusive("quick", "thorough")
	m.lockFlags.register(cmd)
}

// tableExports are the flags of the exports that are one table of results.
var tableExports = []string{"export-csv", "export-markdown", "export-gobench"}

// jsonOnly is for a command whose document is not one table (aa, explain,
// ring): its --help leaves the table exports out, and they stay parsed only
// to be refused, with why, when given anyway.
func (m *measureFlags) jsonOnly(cmd *cobra.Command) {
	for _, name := range tableExports {
		_ = cmd.Flags().MarkHidden(name)
	}
}

// refuseTables refuses a table export given to a JSON-only command: one
// line naming the flag and why.
func (m *measureFlags) refuseTables(why string) error {
	for i, v := range []string{m.exportCSV, m.exportMarkdown, m.exportGoBench} {
		if v != "" {
			return usagef("--%s is not offered: %s", tableExports[i], why)
		}
	}
	return nil
}

// preset is the base preset the flags chose; explicit --runs etc. then
// override parts of it (and the record says "custom").
func (m *measureFlags) preset() preset {
	switch {
	case m.quick:
		return presetQuick
	case m.thorough:
		return presetThorough
	}
	return presetDefault
}

// settings validates the flags into the scheduler's sampling options and
// the document's settings record, with the placements and CPUs asked for.
func (m *measureFlags) settings() (suite.Sampling, result.Settings, []model.Placement, []int, error) {
	o, err := m.sampling()
	if err != nil {
		return suite.Sampling{}, result.Settings{}, nil, nil, err
	}
	set := result.Settings{Preset: o.Preset}
	if o.Given != (suite.Given{}) || o.Iterations > 0 {
		set.Preset = "custom"
	}
	placements, err := m.placementList()
	if err != nil {
		return suite.Sampling{}, set, nil, nil, err
	}
	cpus, err := resolveCPUs(m.cpus)
	if err != nil {
		return suite.Sampling{}, set, nil, nil, err
	}
	if err := checkAll(m.exports(nil)); err != nil {
		return suite.Sampling{}, set, nil, nil, err
	}
	if err := m.checkStore(); err != nil {
		return suite.Sampling{}, set, nil, nil, err
	}
	seed := int64(m.seed)
	if !m.given("seed") {
		seed = time.Now().UnixNano()
	}
	for _, pl := range placements {
		set.Placements = append(set.Placements, string(pl))
	}
	set.CPUs, set.Seed, set.DryRun = cpus, seed, m.dryRun
	return o, o.Record(set), placements, cpus, nil
}

// given says whether the flag name was given on the command line.
func (m *measureFlags) given(name string) bool { return m.fs != nil && m.fs.Changed(name) }

// sampling is the preset the flags chose with each sampling value they
// gave, checked against its range: a value given is used as given or
// refused, never replaced by a default (--runs 0 is an error, not "the
// default"). Given records which were given, so that a command's own
// defaults replace only the preset's.
func (m *measureFlags) sampling() (suite.Sampling, error) {
	p := m.preset()
	o := suite.Sampling{Runs: p.runs, SamplesPerBlock: p.block, Warmup: p.warmup, MinTime: p.minTime, Span: p.span,
		PerfCheck: !m.noPerf, Timeout: m.timeout, Preset: p.name}
	if m.given("runs") {
		if m.runs < 1 || m.runs > 100000 {
			return o, usagef("--runs must be between 1 and 100000, got %d", m.runs)
		}
		o.Runs, o.Given.Runs = m.runs, true
	}
	if m.given("warmup") {
		if m.warmup < 0 || m.warmup > 1000 {
			return o, usagef("--warmup must be between 0 and 1000, got %d", m.warmup)
		}
		o.Warmup, o.Given.Warmup = m.warmup, true
	}
	if m.given("samples-per-block") {
		if m.block < 1 || m.block > 10000 {
			return o, usagef("--samples-per-block must be between 1 and 10000, got %d", m.block)
		}
		o.SamplesPerBlock, o.Given.SamplesPerBlock = m.block, true
	}
	if m.given("min-time") {
		if m.minTime < 10*time.Microsecond || m.minTime > 10*time.Second {
			return o, usagef("--min-time must be between 10µs and 10s, got %v", m.minTime)
		}
		o.MinTime, o.Given.MinTime = m.minTime, true
	}
	if m.given("target-ci") && !(m.targetCI > 0 && m.targetCI < 100) {
		return o, usagef("--target-ci must be a percentage between 0 and 100 (exclusive), got %v", m.targetCI)
	}
	if m.given("target-budget") && (m.targetBudget < time.Second || m.targetBudget > 24*time.Hour) {
		return o, usagef("--target-budget must be between 1s and 24h, got %v", m.targetBudget)
	}
	if m.given("target-budget") && !m.given("target-ci") {
		return o, usagef("--target-budget needs --target-ci")
	}
	if m.given("span") {
		if m.span < 0 || m.span > 24*time.Hour {
			return o, usagef("--span must be between 0 (no pacing) and 24h, got %v", m.span)
		}
		o.Span, o.Given.Span = m.span, true
	}
	if m.given("timeout") && (m.timeout < time.Second || m.timeout > 24*time.Hour) {
		return o, usagef("--timeout must be between 1s and 24h, got %v", m.timeout)
	}
	if m.given("iterations") && (m.iterations < 1 || m.iterations > 1<<40) {
		return o, usagef("--iterations must be between 1 and 2^40, got %d", m.iterations)
	}
	o.Iterations = m.iterations
	if m.targetCI > 0 {
		o.TargetCI, o.TargetBudget = m.targetCI/100, m.targetBudget
	}
	return o, nil
}

// placementList reads --placement: each placement once, in the order
// given; an empty one is refused.
func (m *measureFlags) placementList() ([]model.Placement, error) {
	var placements []model.Placement
	for _, s := range m.placements {
		for _, part := range strings.Split(s, ",") {
			pl, err := model.ParsePlacement(strings.TrimSpace(part)) // "" included: an empty --placement is refused
			if err != nil {
				return nil, &usageError{err.Error()}
			}
			if pin, why := platform.This.Gives(platform.Pinning); !pin && pl != model.Unpinned {
				return nil, usagef("--placement %s: %s", pl, why)
			}
			if !slices.Contains(placements, pl) {
				placements = append(placements, pl)
			}
		}
	}
	if m.given("placement") && len(placements) == 0 {
		return nil, usagef("--placement needs %s", model.PlacementNames("and/or"))
	}
	return placements, nil
}

// resolveCPUs parses --cpus and checks every CPU against this process's
// affinity: asking for a CPU we may not run on is bad input.
func resolveCPUs(s string) ([]int, error) {
	allowed, _ := host.Of(0)
	if strings.TrimSpace(s) == "" {
		return allowed, nil
	}
	if pin, why := platform.This.Gives(platform.Pinning); !pin {
		return nil, usagef("--cpus: %s", why)
	}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			return nil, usagef("--cpus %q has an empty element (examples: 1, 0,1, 0-3)", s)
		}
	}
	cpus := host.ParseCPUList(s)
	if len(cpus) == 0 {
		return nil, usagef("--cpus %q is not a CPU list (examples: 1, 0,1, 0-3)", s)
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			return nil, usagef("--cpus: CPU %d is not available to this process (allowed: %s)", c, formatCPUs(allowed))
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

func formatCPUs(cpus []int) string {
	var parts []string
	for _, c := range cpus {
		parts = append(parts, strconv.Itoa(c))
	}
	return strings.Join(parts, ",")
}

// The history's environment: CTXBENCH_NO_HISTORY=1 turns it off,
// CTXBENCH_HISTORY names another store (a file path or a postgres:// URL).
const (
	envNoHistory = "CTXBENCH_NO_HISTORY"
	envHistory   = "CTXBENCH_HISTORY"
)

// historyPath is where a measuring command records its sittings: "" when
// --no-history or the environment turns the history off, or no home
// directory is known (then one line says so).
func (m *measureFlags) historyPath(stderr io.Writer) string {
	if m.noHistory || m.dryRun || envOn(os.Getenv(envNoHistory)) {
		return ""
	}
	if m.store != "" {
		return m.store
	}
	p, err := storePath()
	if err != nil {
		fmt.Fprintf(stderr, "ctxbench: no history (%v); the intervals cover this sitting only\n", err)
		return ""
	}
	return p
}

// checkStore refuses, before anything is measured, a history the run could
// not open for what it is (an empty --store, a mysql:// URL, a URL that
// does not parse), from the flag or the environment: bad input, unlike a
// store that is down, which the run outlives.
func (m *measureFlags) checkStore() error {
	if m.fs == nil || m.fs.Lookup("store") == nil {
		return nil // a command that keeps no history
	}
	if m.fs.Changed("store") {
		if err := store.CheckTarget(m.store); err != nil {
			return usagef("--store: %v", err)
		}
		return nil
	}
	if p := os.Getenv(envHistory); p != "" {
		if err := store.CheckTarget(p); err != nil {
			return usagef("$%s: %v", envHistory, err)
		}
	}
	return nil
}

// storePath is the machine's history: $CTXBENCH_HISTORY (a file path or a
// postgres:// URL), else store.DefaultPath. The run records there and
// `history` reads there.
func storePath() (string, error) {
	if p := os.Getenv(envHistory); p != "" {
		if err := store.CheckTarget(p); err != nil {
			return "", fmt.Errorf("$%s: %w", envHistory, err)
		}
		return p, nil
	}
	return store.DefaultPath()
}

// envOn reads a boolean environment variable: set and not "0", "false",
// "no" or "off".
func envOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

func versionString() string {
	v := fmt.Sprintf("ctxbench %s (%s, %s/%s, cgo %v)", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, suite.Cgo)
	if c := commit(); c != "" {
		v += " commit " + c
	}
	return v
}

// commit is the VCS revision Go recorded in the binary, "-dirty" when the
// tree had uncommitted changes; "" when it recorded none (go run, tests).
func commit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" && dirty {
		rev += "-dirty"
	}
	return rev
}

// buildHash names this executable by its content: where no clean commit
// does, it keeps two builds of different code out of one history.
func buildHash() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil)[:8])
}

func tool() result.Tool {
	t := result.Tool{Name: "ctxbench", Version: Version, Commit: commit(), GoVersion: runtime.Version(), Cgo: suite.Cgo}
	if t.Commit == "" || strings.HasSuffix(t.Commit, "-dirty") {
		t.Build = buildHash()
	}
	if suite.Cgo {
		t.CC = suite.CCVersion()
	}
	return t
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colorMode is --color: auto, always or never.
type colorMode string

const (
	colorAuto   colorMode = "auto"
	colorAlways colorMode = "always"
	colorNever  colorMode = "never"
)

// Set refuses anything else at parse time, so a bad value is a flag error:
// one line, exit status 2.
func (c *colorMode) Set(s string) error {
	switch m := colorMode(s); m {
	case colorAuto, colorAlways, colorNever:
		*c = m
		return nil
	}
	return fmt.Errorf("want auto, always or never")
}

func (c *colorMode) String() string { return string(*c) }
func (c *colorMode) Type() string   { return "WHEN" }

// colorChoice is the --color of the command line being run. style reads
// it rather than taking it as an argument because every command's renderer
// calls style(w) with only the writer it is about to colour.
var colorChoice atomic.Pointer[colorMode]

// wideChoice is the --wide of the command line being run.
var wideChoice atomic.Pointer[bool]

// style is how a view written to w is coloured and laid out: its width is
// COLUMNS where set to a number, else the terminal's, else 100; --wide lays
// tables out at their natural width. A writer that is already a view's
// (render.Fit) keeps its style.
func style(w io.Writer) render.Style {
	if f, ok := w.(*render.FitWriter); ok {
		return f.Style()
	}
	mode := colorAuto
	if c := colorChoice.Load(); c != nil {
		mode = *c
	}
	return render.Style{Color: colorOn(mode, isTTY(w), os.Getenv("NO_COLOR"), os.Getenv("TERM")),
		Width: termWidth(w, os.Getenv("COLUMNS")), Wide: wideChoice.Load() != nil && *wideChoice.Load()}
}

// termWidth is the width views written to w are laid out for: COLUMNS
// when it is a positive number, else the terminal's, else
// render.DefaultWidth (a file, a pipe).
func termWidth(w io.Writer, columns string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return render.DefaultWidth
}

// view shows a terminal view on w laid out for it: every line fits the
// width, none ends in a space (render.Fit).
func view(w io.Writer, show func(io.Writer)) { viewAs(w, w, show) }

// viewAs is view into w, laid out as for the terminal (or file) like, where
// the view is written once it is whole.
func viewAs(w, like io.Writer, show func(io.Writer)) {
	fw := render.Fit(w, style(like))
	show(fw)
	_ = fw.Flush()
}

// colorOn decides colour. A --color always or never given on the command
// line is obeyed whatever the environment says (no-color.org: a per-run
// argument overrides NO_COLOR); auto colours only a terminal that can
// show it (not TERM=dumb), and only while NO_COLOR is unset or empty,
// which is how no-color.org defines it being present.
func colorOn(mode colorMode, tty bool, noColor, term string) bool {
	switch mode {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	return noColor == "" && tty && term != "dumb"
}

// exports is the table of what a measuring command can write, by flag.
// A document with creation or memory sections (the default ladder) also
// writes them beside the CSV, one file each (their columns differ):
// FILE.csv → FILE-creation.csv, FILE-memory.csv; the Markdown export holds
// every section in one file.
func (m *measureFlags) exports(doc *result.Document) []export {
	ex := append(m.exportsAs(formats.CSV, formats.Markdown)(doc), export{"--export-gobench", m.exportGoBench, formats.GoBench})
	if csv := ex[1]; doc != nil && csv.path != "" && csv.path != "-" {
		if len(doc.Spawn) > 0 {
			ex = append(ex, export{csv.flag, sectionPath(csv.path, "creation"), formats.SpawnCSV})
		}
		if len(doc.Memory) > 0 {
			ex = append(ex, export{csv.flag, sectionPath(csv.path, "memory"), formats.MemoryCSV})
		}
	}
	return ex
}

// exportsAs is the JSON, CSV and Markdown exports of the measure flags,
// the tables written by csv and markdown: a command whose tables are its
// own (load) passes its writers.
func (m *measureFlags) exportsAs(csv, markdown func(io.Writer, *result.Document) error) func(*result.Document) []export {
	return func(*result.Document) []export {
		return []export{jsonExport(m.exportJSON), {"--export-csv", m.exportCSV, csv}, {"--export-markdown", m.exportMarkdown, markdown}}
	}
}

// sectionPath names a section's file beside path: ladder.csv →
// ladder-memory.csv (a path without an extension gets ".csv").
func sectionPath(path, section string) string {
	ext := filepath.Ext(path)
	if ext == "" {
		ext = ".csv"
	}
	return strings.TrimSuffix(path, filepath.Ext(path)) + "-" + section + ext
}

// levelNames is the levels of the CPU topology a placement may name.
func levelNames() string {
	var out []string
	for _, l := range model.Levels {
		out = append(out, string(l))
	}
	return strings.Join(out, ", ")
}
