package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/store"
)

func newHistoryCmd(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	var storePath, format, importDir string
	cmd := &cobra.Command{
		Use:   "history [NAME...]",
		Short: "show each cell's medians over time per machine, and the steps in them",
		Long: `History reads the store of sittings every measuring run records into, and
shows, for each machine fingerprint (host, CPU, kernel, ctxbench build and
the settings that change a figure), each cell's median in every sitting with
its precision interval, and the steps found in them: binary segmentation with
a t test on the log medians, against the series' own spread between sittings
(docs/methodology.md, "History"). NAME keeps those cells (a rung, "thread",
keeps all of its cells).

--store names the history: a file, or a PostgreSQL database a fleet of
machines records into (postgres://user@host/db; a password is best kept in
~/.pgpass or PGPASSWORD, and is never printed). Showing the history only
reads it: a --store where nothing was recorded is an error (exit 2), and no
store is ever created by reading. A NAME that is no benchmark, rung or
recorded cell is an error too.

--import DIR records the result files under DIR (*.json, recursively) as the
runs that wrote them would have: invalid files and dry runs are skipped with
one line each, and a sitting already recorded is not recorded again.`,
		Example: `  ctxbench history
  ctxbench history thread/pipe --format json
  ctxbench history --import results/ --store fleet.db
  ctxbench history thread/pipe --store postgres://bench@db.example/fleet`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("store") && storePath == "" {
				return usagef("--store needs a file path or a postgres:// URL")
			}
			if format != "text" && format != "json" {
				return usagef("--format must be text or json, got %q", format)
			}
			if importDir != "" {
				if len(args) > 0 {
					return usagef("--import takes no NAME: it records every cell of the files")
				}
				if fi, err := os.Stat(importDir); err != nil || !fi.IsDir() {
					return usagef("--import %s: not a directory", importDir)
				}
			}
			path, err := storeFlagPath("store", storePath)
			if err != nil {
				return err
			}
			// Only --import records; showing the history reads it, and
			// reading never creates a store where there is none.
			open := store.OpenExisting
			if importDir != "" {
				open = store.Open
			}
			st, notes, err := open(ctx, path)
			for _, n := range notes {
				fmt.Fprintf(stderr, "ctxbench: history: %s\n", n)
			}
			if errors.Is(err, store.ErrNoStore) {
				if storePath != "" {
					return usagef("--store %s: no history there (nothing has been recorded at that path)", storePath)
				}
				if err := knownNames(args, nil); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "nothing is recorded in %s yet: every measuring run records its figures there (ctxbench history --import DIR loads result files)\n", path)
				return nil
			}
			if err != nil {
				return err
			}
			defer st.Close()
			if importDir != "" {
				return importResults(ctx, st, importDir, stdout, stderr)
			}
			return showHistory(ctx, st, args, format, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&storePath, "store", "", "the history to read: a file `PATH` or a postgres:// URL (default: $"+envHistory+", else the file every run records into)")
	f.StringVar(&format, "format", "text", "output format: text, or json (the points and steps of every cell)")
	f.StringVar(&importDir, "import", "", "record the result files (*.json) under `DIR` into the history instead of showing it")
	return cmd
}

// storeFlagPath is the store history reads: --store, else the one the run
// records into ($CTXBENCH_HISTORY, else store.DefaultPath); a file path or
// a postgres:// URL. What cannot be a store (another scheme's URL, a URL
// that does not parse) is a usage error, which shows no password.
// name is the flag the value came from, as the error names it.
func storeFlagPath(name, flag string) (string, error) {
	if flag != "" {
		if err := store.CheckTarget(flag); err != nil {
			return "", usagef("--%s: %v", name, err)
		}
		return flag, nil
	}
	p, err := storePath()
	if err != nil {
		return "", usagef("no history (%v): give --%s PATH or URL", err, name)
	}
	return p, nil
}

// knownNames refuses a NAME that is no benchmark or rung of this ctxbench
// and no cell of the history (ms: every machine's cells; a cell of a
// benchmark since renamed can still be asked for by its name).
func knownNames(names []string, ms []store.Machine) error {
	for _, n := range names {
		if _, err := catalog.Select([]string{n}); err == nil {
			continue
		}
		recorded := false
		for _, m := range ms {
			for k := range m.Cells {
				recorded = recorded || k.Name == n || !strings.Contains(n, "/") && strings.HasPrefix(k.Name, n+"/")
			}
		}
		if !recorded {
			return usagef("no benchmark, rung or recorded cell is named %q (ctxbench list shows the benchmarks)", n)
		}
	}
	return nil
}

func showHistory(ctx context.Context, st *store.Store, names []string, format string, stdout io.Writer) error {
	ms, err := st.Every(ctx, names)
	if err != nil {
		return err
	}
	if err := knownNames(names, ms); err != nil {
		return err
	}
	h := historyView(st.Path(), ms)
	if format == "json" {
		return formats.HistoryJSON(stdout, h)
	}
	if len(h.Machines) == 0 {
		what := "nothing is recorded"
		if len(names) > 0 {
			what = "no cell of " + strings.Join(names, ", ") + " is recorded"
		}
		view(stdout, func(w io.Writer) {
			fmt.Fprintf(w, "%s in %s: every measuring run records its figures there (ctxbench history --import DIR loads result files)\n", what, st.Path())
		})
		return nil
	}
	view(stdout, func(w io.Writer) { render.HistoryText(w, h) })
	return nil
}

// historyView turns the store's machines into what history shows: each
// cell's points and, from its uncontended points, the steps.
func historyView(path string, ms []store.Machine) *render.History {
	h := &render.History{Store: path, Machines: []render.HistoryMachine{}}
	// The machine part of each fingerprint, how many builds share it, and
	// the usual host probe reading of each machine (the lower quartile of
	// its uncontended sittings' readings, as the runs take it).
	builds, readings := map[string]int{}, map[string][]float64{}
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i], _ = result.MachineKeyOf([]byte(m.Description))
		builds[keys[i]]++
		for _, ps := range m.Cells {
			for _, p := range ps {
				if p.Contended { // the runs leave contended sittings out of the reading too
					continue
				}
				for _, r := range p.BlockProbes {
					if r > 0 {
						readings[keys[i]] = append(readings[keys[i]], r)
					}
				}
			}
		}
	}
	for i, m := range ms {
		hm := render.HistoryMachine{Fingerprint: m.Fingerprint, Machine: keys[i], Builds: builds[keys[i]], First: m.First, Cells: []render.HistoryCell{}}
		// A description that is not the fields' JSON (written by another
		// version) leaves them empty rather than hiding the cells.
		_ = json.Unmarshal([]byte(m.Description), &hm.Fields)
		usual := stats.UsualReading(readings[keys[i]])
		cellKeys := make([]store.CellKey, 0, len(m.Cells))
		for k := range m.Cells {
			cellKeys = append(cellKeys, k)
		}
		sort.Slice(cellKeys, func(i, j int) bool {
			a, b := cellKeys[i], cellKeys[j]
			return a.Name < b.Name || a.Name == b.Name && (a.Placement < b.Placement || a.Placement == b.Placement && a.CPUs < b.CPUs)
		})
		for _, k := range cellKeys {
			hm.Cells = append(hm.Cells, historyCell(k, m.Cells[k], usual))
		}
		h.Machines = append(h.Machines, hm)
	}
	return h
}

func historyCell(k store.CellKey, ps []store.Past, usual float64) render.HistoryCell {
	c := render.HistoryCell{Name: k.Name, Placement: k.Placement, CPUs: k.CPUs, Points: []render.HistoryPoint{}, Steps: []render.HistoryStep{}}
	var series []stats.Point
	for _, p := range ps {
		pt := render.HistoryPoint{At: p.Started, Median: p.Median, Low: finiteOrNil(p.CILow), High: finiteOrNil(p.CIHigh),
			Confidence: p.Confidence, Blocks: len(p.BlockMedians), Contended: p.Contended}
		var probes []float64
		for _, r := range p.BlockProbes {
			if r > 0 {
				probes = append(probes, r)
			}
		}
		if len(probes) > 0 && usual > 0 {
			slow := stats.Median(probes)/usual - 1
			pt.HostSlow = &slow
		}
		c.Points = append(c.Points, pt)
		if !p.Contended {
			series = append(series, stats.Point{At: p.Started, Median: p.Median})
		}
	}
	c.Searched = len(series) >= 2*stats.MinSegment
	for _, s := range stats.Steps(series) {
		c.Steps = append(c.Steps, render.HistoryStep{At: s.At, Change: s.Change, Low: s.Low, High: s.High,
			Confidence: stats.Confidence, Before: s.Before, After: s.After})
	}
	return c
}

// finiteOrNil is a figure as JSON can carry it: NaN (not recorded) is null.
func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// importResults records every result file under dir. A file that is not a
// valid result, or a dry run, is skipped with one line; the command fails
// (exit 1) only when the store cannot be written.
func importResults(ctx context.Context, st *store.Store, dir string, stdout, stderr io.Writer) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return usagef("--import %s: %v", dir, err)
	}
	slices.Sort(files)
	var sittings, docs, skipped int
	for _, p := range files {
		d, err := result.Load(p, nil)
		if err != nil {
			msg := oneLine(err.Error())
			if !strings.Contains(msg, p) { // a format error names its file already
				msg = p + ": " + msg
			}
			fmt.Fprintf(stderr, "ctxbench: skipped %s\n", msg)
			skipped++
			continue
		}
		if d.Settings.DryRun {
			fmt.Fprintf(stderr, "ctxbench: skipped %s: a dry run (its figures are synthetic)\n", p)
			skipped++
			continue
		}
		n, err := session.Import(ctx, st, d)
		if err != nil {
			return fmt.Errorf("importing %s: %w", p, err)
		}
		sittings += n
		docs++
	}
	fmt.Fprintf(stdout, "%d sitting(s) of %d result file(s) recorded in %s; %d file(s) skipped\n", sittings, docs, st.Path(), skipped)
	return nil
}
