package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/store"
	"github.com/ctxbench/ctxbench/internal/testdoc"
	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
)

// An empty store says so, and exits 0.
func TestHistoryEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	st, _, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, stderr := run(t, "history", "--store", path)
	if code != 0 || !strings.Contains(out, "nothing is recorded") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	t.Setenv(envHistory, path) // the run's variable names the store too
	if code, out, _ := run(t, "history", "thread/pipe"); code != 0 || !strings.Contains(out, "no cell of thread/pipe") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
}

// history only reads: a --store where nothing was recorded is bad input
// (exit 2, one line) and is not created; the default history not yet
// recorded says so, exit 0, and is not created either; a NAME that is no
// benchmark, rung or recorded cell is bad input.
func TestHistoryReadsOnly(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "typo", "h.db")
	code, out, stderr := run(t, "history", "--store", missing)
	if code != ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, missing) {
		t.Errorf("missing --store: exit %d, stdout %q, stderr %q; want 2 and one line naming it", code, out, stderr)
	}
	t.Setenv(envHistory, filepath.Join(dir, "default", "h.db"))
	if code, out, stderr := run(t, "history"); code != ExitOK || !strings.Contains(out, "nothing is recorded") {
		t.Errorf("no default history yet: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("reading created %v", left)
	}
	path, _ := plantedStore(t)
	for _, args := range [][]string{
		{"history", "nosuch/bench", "--store", path},
		{"history", "nosuch/bench"}, // the default history, not recorded yet
		{"history", "thread/pipe", "nosuchrung", "--store", path},
	} {
		code, out, stderr := run(t, args...)
		if code != ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "nosuch") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line naming it", args, code, out, stderr)
		}
	}
	// A benchmark of the catalog not recorded yet is no error.
	if code, out, _ := run(t, "history", "thread/yield", "--store", path); code != ExitOK || !strings.Contains(out, "no cell of thread/yield") {
		t.Errorf("thread/yield: exit %d, stdout %q", code, out)
	}
}

// plantedStore records twelve sittings of the test machine: thread/pipe
// steps up 20% at the seventh (noise 2%), process/pipe is flat. It returns
// the store's path and the seventh sitting's time.
func plantedStore(t *testing.T) (string, time.Time) {
	t.Helper()
	doc, err := testdoc.Doc(testdoc.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, fp, desc := result.FingerprintOf(doc)
	path := filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	st, _, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rng := rand.New(rand.NewSource(1))
	t0 := time.Date(2026, 11, 19, 14, 3, 0, 0, time.UTC)
	cell := func(name string, m float64) store.Cell {
		m *= math.Exp(0.02 * rng.NormFloat64())
		return store.Cell{CellKey: store.CellKey{Name: name, Placement: "same-cpu", CPUs: "0"}, Median: m, CILow: m * 0.99, CIHigh: m * 1.01,
			Confidence: 0.95, BlockMedians: []float64{m, m}, Iterations: 1000}
	}
	for k := 0; k < 12; k++ {
		m := 1000.0
		if k >= 6 {
			m = 1200
		}
		s := store.Sitting{Fingerprint: fp, Description: string(desc), Started: t0.Add(time.Duration(k) * 24 * time.Hour), Command: "ctxbench run",
			Cells: []store.Cell{cell("thread/pipe", m), cell("process/pipe", 2000)}}
		if _, err := st.Record(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return path, t0.Add(6 * 24 * time.Hour)
}

// A planted step is found where it was planted, a flat cell has none, the
// machine's fields are shown, and --format json carries the same.
func TestHistoryFindsPlantedStep(t *testing.T) {
	path, at := plantedStore(t)
	code, out, stderr := run(t, "history", "--store", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"host testhost", "kernel 6.1.0-test", "ctxbench test", "thread/pipe same-cpu CPUs 0", "process/pipe same-cpu CPUs 0",
		"step at " + at.Format("2006-01-02 15:04") + ": +", "no step"} {
		if !strings.Contains(out, want) {
			t.Errorf("the history lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "step at "); n != 1 {
		t.Errorf("%d steps shown, want 1:\n%s", n, out)
	}

	code, out, stderr = run(t, "history", "thread", "--store", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var h render.History
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Machines) != 1 || len(h.Machines[0].Cells) != 1 || h.Machines[0].Fields.Host != "testhost" {
		t.Fatalf("json: %+v", h)
	}
	c := h.Machines[0].Cells[0]
	if c.Name != "thread/pipe" || len(c.Points) != 12 || !c.Searched || len(c.Steps) != 1 || !c.Steps[0].At.Equal(at) ||
		c.Steps[0].Low > 0.2 || c.Steps[0].High < 0.2 {
		t.Fatalf("json cell: %+v", c)
	}
}

// --import records result files as sittings (twice adds nothing), and
// skips a dry run and an invalid file with one line each. testdoc's
// documents are dry runs; they are marked measured here, as a run's file
// would be.
func TestHistoryImport(t *testing.T) {
	dir := t.TempDir()
	for k := 0; k < 3; k++ {
		writeResult(t, filepath.Join(dir, []string{"a", "b", "c"}[k]+".json"), k, k == 2) // the third stays a dry run: skipped
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "h.db")
	code, out, stderr := run(t, "history", "--import", dir, "--store", path)
	if code != 0 || !strings.HasPrefix(out, "2 sitting(s) of 2 result file(s)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 2 || !strings.Contains(stderr, "broken.json") || !strings.Contains(stderr, "c.json: a dry run") {
		t.Errorf("stderr should name the two skipped files, one line each: %q", stderr)
	}
	if code, out, _ := run(t, "history", "--import", dir, "--store", path); code != 0 || !strings.HasPrefix(out, "0 sitting(s)") {
		t.Errorf("a second import: exit %d, %q", code, out)
	}
	code, out, stderr = run(t, "history", "thread/pipe", "--store", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var h render.History
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Machines) != 1 || len(h.Machines[0].Cells) == 0 {
		t.Fatalf("imported history: %s", out)
	}
	for _, c := range h.Machines[0].Cells {
		if len(c.Points) != 2 || c.Searched {
			t.Errorf("%s %s: %d points (searched %v), want the two files' and no search", c.Name, c.Placement, len(c.Points), c.Searched)
		}
	}
	var text bytes.Buffer
	render.HistoryText(&text, &h)
	if !strings.Contains(text.String(), "steps not searched: 2 clean sitting(s)") {
		t.Errorf("two sittings should say no search was possible:\n%s", text.String())
	}
}

// writeResult saves testdoc's document of sitting k (an hour after sitting
// k-1) at path, as a measured run's file unless dry.
func writeResult(t *testing.T, path string, k int, dry bool) {
	t.Helper()
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Redraw: int64(k + 1)})
	if err != nil {
		t.Fatal(err)
	}
	d.Settings.DryRun = dry
	d.StartedAt = d.StartedAt.Add(time.Duration(k) * time.Hour)
	d.FinishedAt = d.StartedAt.Add(time.Minute)
	if err := d.Save(path, nil); err != nil {
		t.Fatal(err)
	}
}

// pgPassword is in the test's PostgreSQL URL; the server's trust
// authentication ignores it, and ctxbench must never print it.
const pgPassword = "s3cr3t-pw"

// pgStore starts a throwaway PostgreSQL for one test and returns the URL
// of its database, password included.
func pgStore(t *testing.T) string {
	t.Helper()
	if _, err := pgserver.FindBinDir(); err != nil {
		testenv.Skip(t, testenv.Postgres, "PostgreSQL missing; install with: %s", pgserver.InstallHint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := pgserver.Start(ctx, pgserver.Options{Rows: 1, MaxConnections: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	return "postgres://bench:" + pgPassword + "@/postgres?host=" + srv.Dir() + "&sslmode=disable"
}

// The same history in PostgreSQL: three result files imported into it
// (--import --store URL) are three points of thread/pipe, read back with
// --store and with $CTXBENCH_HISTORY, and the password is never printed.
func TestHistoryPostgres(t *testing.T) {
	url := pgStore(t)
	dir := t.TempDir()
	for k := 0; k < 3; k++ {
		writeResult(t, filepath.Join(dir, fmt.Sprintf("r%d.json", k)), k, false)
	}
	code, out, stderr := run(t, "history", "--import", dir, "--store", url)
	if code != 0 || !strings.HasPrefix(out, "3 sitting(s) of 3 result file(s) recorded in postgres://bench:xxxxx@/postgres") {
		t.Fatalf("import: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	noPassword(t, out+stderr)
	code, out, stderr = run(t, "history", "thread/pipe", "--store", url, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	noPassword(t, out+stderr)
	var h render.History
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Machines) != 1 || len(h.Machines[0].Cells) == 0 || strings.Contains(h.Store, pgPassword) {
		t.Fatalf("history in PostgreSQL: %s", out)
	}
	for _, c := range h.Machines[0].Cells {
		if c.Name != "thread/pipe" || len(c.Points) != 3 {
			t.Errorf("%s %s: %d points, want the three files'", c.Name, c.Placement, len(c.Points))
		}
	}
	t.Setenv(envHistory, url)
	code, out, stderr = run(t, "history", "thread/pipe")
	if code != 0 || !strings.Contains(out, "thread/pipe") {
		t.Fatalf("with $%s: exit %d, stdout %q, stderr %q", envHistory, code, out, stderr)
	}
	noPassword(t, out+stderr)
}

func noPassword(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, pgPassword) {
		t.Errorf("the password is printed: %q", s)
	}
}

// A history that is down fails `ctxbench history` in one line (exit 1, not
// a usage error), without the password.
func TestHistoryPostgresDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	code, out, stderr := run(t, "history", "--store", fmt.Sprintf("postgres://bench:%s@127.0.0.1:%d/fleet?sslmode=disable", pgPassword, port))
	if code != ExitFailure || out != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "bench:xxxxx@127.0.0.1") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	noPassword(t, stderr)
}

// What cannot be a store is bad input, refused in one line before anything
// is measured or opened, from the flag or the environment, with no
// password shown. --dry-run keeps a run that got past the check from
// measuring.
func TestStoreBadInput(t *testing.T) {
	mysql := "mysql://root:" + pgPassword + "@db.example/h"
	for _, c := range []struct {
		env  string
		args []string
	}{
		{"", []string{"history", "--store", ""}},
		{"", []string{"history", "--store", mysql}},
		{"", []string{"history", "--store", "postgres://bench:" + pgPassword + "@db.example:99999/h"}},
		{mysql, []string{"history"}},
		{"", []string{"run", "thread/pipe", "--dry-run", "--store", ""}},
		{"", []string{"run", "thread/pipe", "--dry-run", "--store", mysql}},
		{"", []string{"run", "thread/pipe", "--dry-run", "--store", "h.db", "--no-history"}},
		{mysql, []string{"run", "thread/pipe", "--dry-run"}},
		{"", []string{"aa", "thread/pipe", "--dry-run", "--store", "sqlite:///h.db"}},
	} {
		t.Setenv(envHistory, c.env)
		code, out, stderr := run(t, c.args...)
		if code != ExitUsage || out != "" || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q with $%s=%q: exit %d, stdout %q, stderr %q; want exit 2 and one line", c.args, envHistory, c.env, code, out, stderr)
		}
		noPassword(t, stderr)
	}
}

// A measuring command records into --store, else $CTXBENCH_HISTORY, else
// the default file; --dry-run and --no-history record nowhere.
func TestMeasureStoreFlag(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"", nil, "/data/ctxbench/history.db"},
		{"postgres://db.example/fleet", nil, "postgres://db.example/fleet"},
		{"postgres://db.example/fleet", []string{"--store", "/tmp/h.db"}, "/tmp/h.db"},
		{"", []string{"--store", "postgres://bench@db.example/fleet"}, "postgres://bench@db.example/fleet"},
		{"", []string{"--store", "postgres://db.example/fleet", "--dry-run"}, ""},
		{"postgres://db.example/fleet", []string{"--no-history"}, ""},
	} {
		t.Setenv(envHistory, c.env)
		cmd := &cobra.Command{Use: "run"}
		var mf measureFlags
		mf.register(cmd)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		if _, _, _, _, err := mf.settings(); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		var stderr bytes.Buffer
		if got := mf.historyPath(&stderr); got != c.want || stderr.Len() != 0 {
			t.Errorf("%q with $%s=%q: %q (%q), want %q", c.args, envHistory, c.env, got, stderr.String(), c.want)
		}
	}
}

// The host's usual reading that history judges sittings against is the
// runs' own: from uncontended sittings only. A contended sitting whose
// probe read five times as fast (its blocks ran beside other work, not the
// host's usual state) leaves it unchanged.
func TestHistoryUsualReadingLeavesContendedOut(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cell := func(i int, probe float64, contended bool) store.Past {
		return store.Past{SittingID: int64(i), Started: at.Add(time.Duration(i) * time.Hour), Cell: store.Cell{
			CellKey: store.CellKey{Name: "thread/pipe", Placement: "same-cpu", CPUs: "1"}, Median: 2500,
			BlockMedians: []float64{2500, 2500, 2500}, BlockProbes: []float64{probe, probe, probe}, Contended: contended}}
	}
	key := store.CellKey{Name: "thread/pipe", Placement: "same-cpu", CPUs: "1"}
	m := store.Machine{Fingerprint: "f", Description: "{}", First: at, Cells: map[store.CellKey][]store.Past{
		key: {cell(0, 50000, false), cell(1, 50000, false), cell(2, 10000, true), cell(3, 10000, true)}}}
	h := historyView("x", []store.Machine{m})
	pts := h.Machines[0].Cells[0].Points
	if len(pts) != 4 || pts[0].HostSlow == nil || math.Abs(*pts[0].HostSlow) > 1e-9 || pts[2].HostSlow == nil || math.Abs(*pts[2].HostSlow+0.8) > 1e-9 {
		t.Fatalf("host slow of the points: %v; want 0 for the uncontended, −80%% for the contended ones", pts)
	}
}
