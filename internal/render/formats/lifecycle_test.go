package formats_test

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// records renders d with write and parses it back as CSV, keyed by column.
func records(t *testing.T, d *result.Document, write func(w *bytes.Buffer, d *result.Document) error) (head []string, rows []map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf, d); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, buf.String())
	}
	head = recs[0]
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, v := range r {
			row[head[i]] = v
		}
		rows = append(rows, row)
	}
	return head, rows
}

func spawnCSV(w *bytes.Buffer, d *result.Document) error  { return formats.SpawnCSV(w, d) }
func memoryCSV(w *bytes.Buffer, d *result.Document) error { return formats.MemoryCSV(w, d) }

// One row per creation kind, its figures as the JSON has them; the
// interval and its level only where the summary has one (too few samples
// leave the extremes in its bounds, which are not an interval).
func TestSpawnCSV(t *testing.T) {
	d := fake(t)
	few := []float64{900, 1000, 1100}
	d.Spawn = append(d.Spawn, result.Spawn{Name: "spawn/few", Kind: "thread", PerCreateNS: stats.Summarize(few), Samples: few,
		Claims: []result.Claim{{Text: "cheap", Source: "folklore"}, {Text: "dear", Differs: "a cold start", Source: "a book"}}})
	_, rows := records(t, d, spawnCSV)
	if len(rows) != len(d.Spawn) {
		t.Fatalf("%d rows for %d kinds", len(rows), len(d.Spawn))
	}
	for i, s := range d.Spawn {
		r, ps := rows[i], s.PerCreateNS
		if r["name"] != s.Name || r["kind"] != s.Kind || r["samples"] != strconv.Itoa(ps.N) {
			t.Errorf("row %d: %v, want %s %s n=%d", i, r, s.Name, s.Kind, ps.N)
		}
		for col, v := range map[string]float64{"per_create_ns_median": ps.Median, "per_create_ns_p10": ps.P10, "per_create_ns_p90": ps.P90} {
			if got, _ := strconv.ParseFloat(r[col], 64); got != v {
				t.Errorf("%s %s = %q, want %v", s.Name, col, r[col], v)
			}
		}
		lo, hi, conf := r["per_create_ns_ci_low"], r["per_create_ns_ci_high"], r["per_create_ns_ci_confidence"]
		if ps.Confidence > 0 {
			if l, _ := strconv.ParseFloat(lo, 64); l != ps.CILow || hi == "" || conf == "" {
				t.Errorf("%s: interval %q–%q @%q, want %v–%v @%v", s.Name, lo, hi, conf, ps.CILow, ps.CIHigh, ps.Confidence)
			}
		} else if lo != "" || hi != "" || conf != "" {
			t.Errorf("%s has no interval, yet the CSV gives %q–%q @%q", s.Name, lo, hi, conf)
		}
	}
	if got := rows[len(rows)-1]["claims"]; got != "cheap (folklore); dear (a book) — not like for like: a cold start" {
		t.Errorf("claims cell %q", got)
	}
	if rows[0]["claims"] != d.Spawn[0].Claim {
		t.Errorf("a file's one-line claim is lost: %q", rows[0]["claims"])
	}
}

func TestSpawnMarkdown(t *testing.T) {
	d := fake(t)
	few := []float64{900, 1000, 1100}
	d.Spawn = append(d.Spawn, result.Spawn{Name: "spawn/few", Kind: "thread", PerCreateNS: stats.Summarize(few), Samples: few,
		Claims: []result.Claim{{Text: "a | b", Source: "folklore"}, {Text: "again", Differs: "x", Source: "folklore"}}})
	var buf bytes.Buffer
	if err := formats.SpawnMarkdown(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	rows := tableRows(out)
	if len(rows) != len(d.Spawn) {
		t.Fatalf("%d table rows for %d kinds:\n%s", len(rows), len(d.Spawn), out)
	}
	for i, s := range d.Spawn {
		if !strings.Contains(rows[i], "`"+s.Name+"`") {
			t.Errorf("row %d lacks %s: %q", i, s.Name, rows[i])
		}
	}
	last := rows[len(rows)-1]
	// No interval: a dash, never the extremes; one source, one number.
	if cells := strings.Split(last, " | "); cells[4] != "—" || !strings.Contains(last, `a \| b [1]; again [1] — not like for like: x`) {
		t.Errorf("row without an interval: %q", last)
	}
	if !strings.Contains(out, "- [1] folklore") || strings.Contains(out, "[2]") {
		t.Errorf("sources not numbered once each:\n%s", out)
	}
}

// tableRows are the body rows of the Markdown table in s.
func tableRows(s string) []string {
	var rows []string
	for _, l := range strings.Split(s, "\n")[4:] {
		if !strings.HasPrefix(l, "| ") {
			break
		}
		rows = append(rows, l)
	}
	return rows
}

// memoryDoc is the fake document with the rows every state needs: a
// runtime probe (its process-level figures not taken), a row without a
// memory cgroup (nothing charged), and one whose kernel and charged
// differences came out negative.
func memoryDoc(t *testing.T) *result.Document {
	t.Helper()
	d := fake(t)
	d.Memory = append(d.Memory,
		result.Memory{Name: "memory/erlang", Kind: "runtime", Contexts: 1000, Requested: 1000, RuntimeBytes: 2700, RuntimeMetric: "erlang:memory(processes)"},
		result.Memory{Name: "memory/vm", Kind: "vm", Contexts: 20, Requested: 20, RSSBytes: 3 << 20, PSSBytes: 2 << 20, KernelBytes: 4096, VirtBytes: 1 << 30},
		result.Memory{Name: "memory/noisy", Kind: "thread", Contexts: 10, Requested: 10, RSSBytes: 9000, PSSBytes: 8000, KernelBytes: -512, VirtBytes: 8 << 20, ChargedBytes: -40,
			Claims: []result.Claim{{Text: "8 MiB a thread", Differs: "a stack reservation, not memory held", Source: "folklore", BytesPerContext: 8 << 20}}},
	)
	return d
}

// Every column of the memory table is in the CSV; a figure not measured
// is empty, and a negative one is empty too and flagged, never written as
// a figure.
func TestMemoryCSV(t *testing.T) {
	d := memoryDoc(t)
	head, rows := records(t, d, memoryCSV)
	for _, col := range []string{"name", "kind", "contexts", "requested", "pss_bytes_per_context", "rss_bytes_per_context",
		"kernel_bytes_per_context", "charged_bytes_per_context", "virtual_bytes_per_context", "runtime_bytes_per_context", "flags", "limit", "claims"} {
		if !slices.Contains(head, col) {
			t.Errorf("no column %s in %v", col, head)
		}
	}
	if len(rows) != len(d.Memory) {
		t.Fatalf("%d rows for %d kinds", len(rows), len(d.Memory))
	}
	byName := map[string]map[string]string{}
	for _, r := range rows {
		byName[r["name"]] = r
	}
	if r := byName["memory/process"]; r["contexts"] != "1500" || r["requested"] != "2000" || r["limit"] == "" || r["pss_bytes_per_context"] != "144000" {
		t.Errorf("a row held short: %v", r)
	}
	if r := byName["memory/goroutine"]; r["claims"] != "a goroutine needs 2 KiB (folklore)" || r["flags"] != "" {
		t.Errorf("claims or flags: %v", r)
	}
	if r := byName["memory/erlang"]; r["pss_bytes_per_context"] != "" || r["rss_bytes_per_context"] != "" || r["runtime_bytes_per_context"] != "2700" || r["flags"] != "" {
		t.Errorf("a runtime row: %v", r)
	}
	if r := byName["memory/vm"]; r["charged_bytes_per_context"] != "" || r["flags"] != "" {
		t.Errorf("nothing charged is no figure: %v", r)
	}
	r := byName["memory/noisy"]
	if r["kernel_bytes_per_context"] != "" || r["charged_bytes_per_context"] != "" || r["flags"] != "negative-kernel;negative-charged" || r["pss_bytes_per_context"] != "8000" {
		t.Errorf("negative differences: %v", r)
	}
	for _, r := range rows {
		for col, v := range r {
			if strings.HasSuffix(col, "_bytes_per_context") && strings.HasPrefix(v, "-") {
				t.Errorf("%s %s written as a figure: %q", r["name"], col, v)
			}
		}
	}
}

func TestMemoryMarkdown(t *testing.T) {
	d := memoryDoc(t)
	var buf bytes.Buffer
	if err := formats.MemoryMarkdown(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	rows := tableRows(out)
	if len(rows) != len(d.Memory) {
		t.Fatalf("%d table rows for %d kinds:\n%s", len(rows), len(d.Memory), out)
	}
	for i, want := range map[int]string{
		2: "| process | `memory/process` | 1500 of 2000 |",
		3: "| runtime | `memory/erlang` | 1000 | — | — | — | — | — | 2.64 KiB |",
		5: "| thread | `memory/noisy` | 10 | 7.81 KiB | 8.79 KiB | n/a* | n/a* | 8.00 MiB | — |",
	} {
		if !strings.HasPrefix(rows[i], want) {
			t.Errorf("row %d: %q, want %q", i, rows[i], want)
		}
	}
	for _, want := range []string{"n/a* the difference came out negative", "`memory/process` — held 1500 of 2000: RLIMIT_NPROC 1500 (fake)",
		"`memory/goroutine` — claim: a goroutine needs 2 KiB (folklore); measured PSS is 1.02× that",
		"`memory/noisy` — claim: 8 MiB a thread (folklore) — not like for like: a stack reservation, not memory held\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// Without a negative row there is nothing to footnote.
	d.Memory = d.Memory[:3]
	buf.Reset()
	_ = formats.MemoryMarkdown(&buf, d)
	if strings.Contains(buf.String(), "n/a*") {
		t.Errorf("n/a* without a negative figure:\n%s", buf.String())
	}
}
