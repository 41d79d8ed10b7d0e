package store

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Record then read back: every figure, the block order, the grouping by
// key, oldest first, and fingerprints kept apart.
func TestRoundTrip(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s := mustOpen(t, target)
		// Recorded out of start order: History orders by start, not by id.
		var ids []int64
		for _, k := range []int{2, 0, 1} {
			id, err := s.Record(ctx, sittingOf("fp-a", k, 3, 5))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if _, err := s.Record(ctx, sittingOf("fp-b", 7, 2, 4)); err != nil {
			t.Fatal(err)
		}

		h, err := s.History(ctx, "fp-a")
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 3 {
			t.Fatalf("fp-a: %d keys, want 3", len(h))
		}
		for c := 0; c < 3; c++ {
			key := cellOf(0, c, 5).CellKey
			ps := h[key]
			if len(ps) != 3 {
				t.Fatalf("%v: %d pasts, want 3", key, len(ps))
			}
			for i, p := range ps {
				if got := seqOf(p); got != i {
					t.Errorf("%v: past %d is sitting k=%d, want oldest first", key, i, got)
				}
				if want := ids[[]int{1, 2, 0}[i]]; p.SittingID != want {
					t.Errorf("%v: past %d has id %d, want %d", key, i, p.SittingID, want)
				}
				if !p.Started.Equal(epoch.Add(time.Duration(i) * time.Second)) {
					t.Errorf("started %v", p.Started)
				}
				if want := cellOf(i, c, 5); !reflect.DeepEqual(p.Cell, want) {
					t.Errorf("got %+v\nwant %+v", p.Cell, want)
				}
			}
		}
		checkWhole(t, h, 3, 5)

		hb, err := s.History(ctx, "fp-b")
		if err != nil {
			t.Fatal(err)
		}
		if len(hb) != 2 {
			t.Fatalf("fp-b: %d keys, want 2", len(hb))
		}
		for _, ps := range hb {
			if len(ps) != 1 || seqOf(ps[0]) != 7 {
				t.Errorf("fp-b mixed with fp-a: %+v", ps)
			}
		}
		for fp, want := range map[string]int{"fp-a": 3, "fp-b": 1, "fp-none": 0} {
			if n, err := s.Sittings(ctx, fp); err != nil || n != want {
				t.Errorf("Sittings(%s) = %d, %v; want %d", fp, n, err, want)
			}
		}
		if h, err := s.History(ctx, "fp-none"); err != nil || len(h) != 0 {
			t.Errorf("History of an unknown fingerprint: %v, %v", h, err)
		}
	})
}

// What SQLite cannot hold as such still comes back as given: NaN figures,
// a cell without blocks, the largest iteration count, empty placement.
func TestRoundTripEdges(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s := mustOpen(t, target)
		nan := math.NaN()
		st := Sitting{Fingerprint: "fp", Description: `{}`, Started: epoch, Command: "",
			Cells: []Cell{
				{CellKey: CellKey{Name: "a"}, Median: nan, CILow: nan, CIHigh: math.Inf(1), Confidence: 0.9,
					BlockMedians: []float64{1, nan, 3}, Iterations: math.MaxInt64},
				{CellKey: CellKey{Name: "b", Placement: "p", CPUs: "0-1"}, Median: 2},
			}}
		if _, err := s.Record(ctx, st); err != nil {
			t.Fatal(err)
		}
		h, err := s.History(ctx, "fp")
		if err != nil {
			t.Fatal(err)
		}
		a := h[CellKey{Name: "a"}][0]
		if !same(a.Median, nan) || !same(a.CILow, nan) || !math.IsInf(a.CIHigh, 1) || a.Confidence != 0.9 || a.Iterations != math.MaxInt64 {
			t.Errorf("a: %+v", a)
		}
		if len(a.BlockMedians) != 3 || a.BlockMedians[0] != 1 || !math.IsNaN(a.BlockMedians[1]) || a.BlockMedians[2] != 3 {
			t.Errorf("a blocks: %v", a.BlockMedians)
		}
		b := h[CellKey{Name: "b", Placement: "p", CPUs: "0-1"}]
		if len(b) != 1 || b[0].Median != 2 || b[0].BlockMedians != nil {
			t.Errorf("b: %+v", b)
		}
	})
}

// A sitting the store could not give back as given is refused before
// anything is written.
func TestRecordRefuses(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s := mustOpen(t, target)
		good := sittingOf("fp", 0, 2, 2)
		bad := map[string]func(*Sitting){
			"empty fingerprint":    func(st *Sitting) { st.Fingerprint = "" },
			"description not JSON": func(st *Sitting) { st.Description = "cpus=2" },
			"zero start":           func(st *Sitting) { st.Started = time.Time{} },
			"cell without name":    func(st *Sitting) { st.Cells[1].Name = "" },
			"duplicate cell":       func(st *Sitting) { st.Cells[1].CellKey = st.Cells[0].CellKey },
			"iterations overflow":  func(st *Sitting) { st.Cells[0].Iterations = math.MaxInt64 + 1 },
			"command not UTF-8":    func(st *Sitting) { st.Command = "ctxbench run \xff" },
			"NUL in a cell's CPUs": func(st *Sitting) { st.Cells[1].CPUs = "0\x001" },
		}
		for name, spoil := range bad {
			st := good
			st.Cells = append([]Cell(nil), good.Cells...)
			spoil(&st)
			if _, err := s.Record(ctx, st); err == nil {
				t.Errorf("%s: recorded", name)
			}
		}
		if n, _ := s.Sittings(ctx, "fp"); n != 0 {
			t.Errorf("%d sittings after refusals", n)
		}
		// The first description of a fingerprint is the one kept.
		if _, err := s.Record(ctx, good); err != nil {
			t.Fatal(err)
		}
		other := sittingOf("fp", 1, 2, 2)
		other.Description = `{"changed":true}`
		if _, err := s.Record(ctx, other); err != nil {
			t.Fatal(err)
		}
		var desc string
		if err := s.db.QueryRow(`SELECT description FROM fingerprints WHERE fingerprint = 'fp'`).Scan(&desc); err != nil {
			t.Fatal(err)
		}
		if desc != good.Description {
			t.Errorf("description %s, want the first, %s", desc, good.Description)
		}
	})
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	t.Setenv("HOME", "/home/u")
	if p, err := DefaultPath(); err != nil || p != "/data/ctxbench/history.db" {
		t.Errorf("with XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	if p, err := DefaultPath(); err != nil || p != "/home/u/.local/share/ctxbench/history.db" {
		t.Errorf("with HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "")
	if p, err := DefaultPath(); err == nil {
		t.Errorf("with neither: %q", p)
	}
}

// The migrations of both backends are numbered 1, 2, ... and end at
// SchemaVersion, as migrateStep assumes when it takes migrations[version].
func TestMigrationsOrdered(t *testing.T) {
	for _, d := range []dialect{sqliteDialect, postgresDialect} {
		for i, m := range d.migrations {
			if m.to != i+1 {
				t.Errorf("%s: migrations[%d] goes to %d", d.name, i, m.to)
			}
		}
		if last := d.migrations[len(d.migrations)-1].to; last != SchemaVersion {
			t.Errorf("%s: last migration goes to %d, SchemaVersion is %d", d.name, last, SchemaVersion)
		}
	}
}

// doc.go's schema is the schema: every statement SQLite holds for a new
// store appears in it verbatim (up to white space), and it names the
// current version.
func TestSchemaDocumented(t *testing.T) {
	text := flatDoc(t)
	if !strings.Contains(text, flat("# Schema (version "+strconv.Itoa(SchemaVersion)+")")) {
		t.Errorf("doc.go does not name schema version %d", SchemaVersion)
	}
	s := mustOpen(t, tempPath(t))
	rows, err := s.db.Query(`SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var stmt string
		if err := rows.Scan(&stmt); err != nil {
			t.Fatal(err)
		}
		n++
		if !strings.Contains(text, flat(stmt)+";") {
			t.Errorf("doc.go lacks:\n%s;", stmt)
		}
	}
	if n == 0 {
		t.Error("no schema")
	}
}

// A path with characters that mean something in a URI ('?', '#', '%') is
// still one path to SQLite.
func TestPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a?b#c%20d e")
	path := filepath.Join(dir, "history.db")
	s := mustOpen(t, path)
	if _, err := s.Record(ctx, sittingOf("fp", 0, 1, 1)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Name() != "history.db" {
		t.Fatalf("files in %s: %v", dir, es)
	}
	s = mustOpen(t, path)
	if n, err := s.Sittings(ctx, "fp"); err != nil || n != 1 {
		t.Fatalf("%d sittings, %v", n, err)
	}
}

var whiteSpace = regexp.MustCompile(`\s+`)

// flat is s with every run of white space one blank.
func flat(s string) string { return whiteSpace.ReplaceAllString(strings.TrimSpace(s), " ") }

// flatDoc is doc.go's text without comment marks, flattened.
func flatDoc(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		doc.WriteString(strings.TrimPrefix(line, "//"))
		doc.WriteString("\n")
	}
	return flat(doc.String())
}

// Host probe readings round-trip per block, a block without one (0) stays
// 0, and a cell recorded without readings reads back without them.
func TestBlockProbesRoundTrip(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s := mustOpen(t, target)
		st := sittingOf("fp-probe", 0, 2, 3)
		st.Cells[0].BlockProbes = []float64{281000, 0, 402500.5}
		if _, err := s.Record(ctx, st); err != nil {
			t.Fatal(err)
		}
		h, err := s.History(ctx, "fp-probe")
		if err != nil {
			t.Fatal(err)
		}
		got0 := h[st.Cells[0].CellKey][0].BlockProbes
		if !reflect.DeepEqual(got0, st.Cells[0].BlockProbes) {
			t.Errorf("probed cell read back %v, want %v", got0, st.Cells[0].BlockProbes)
		}
		if got1 := h[st.Cells[1].CellKey][0].BlockProbes; got1 != nil {
			t.Errorf("unprobed cell read back %v, want none", got1)
		}
	})
}
