package store

import (
	"context"
	"reflect"
	"testing"
)

// Every reads all fingerprints, in the order first recorded, each with its
// description and its cells oldest first, the same as History gives; names
// keep only their cells, a rung all of its own; an empty store gives none.
func TestEvery(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		s := mustOpen(t, target)
		if ms, err := s.Every(ctx, nil); err != nil || len(ms) != 0 {
			t.Fatalf("an empty store: %d machines, err %v", len(ms), err)
		}
		for _, r := range []struct {
			fp string
			k  int
		}{{"fp-b", 3}, {"fp-a", 2}, {"fp-b", 1}, {"fp-a", 0}} {
			st := sittingOf(r.fp, r.k, 3, 4)
			st.Cells[2].Name = "thread/pipe"
			if _, err := s.Record(ctx, st); err != nil {
				t.Fatal(err)
			}
		}
		ms, err := s.Every(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[0].Fingerprint != "fp-b" || ms[1].Fingerprint != "fp-a" {
			t.Fatalf("machines %+v, want fp-b then fp-a", ms)
		}
		for _, m := range ms {
			if m.Description != sittingOf(m.Fingerprint, 0, 0, 0).Description || m.First.IsZero() {
				t.Errorf("%s: description %q, first %v", m.Fingerprint, m.Description, m.First)
			}
			h, err := s.History(ctx, m.Fingerprint)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m.Cells, h) {
				t.Errorf("%s: Every's cells differ from History's", m.Fingerprint)
			}
			for key, ps := range m.Cells {
				if len(ps) != 2 || !ps[0].Started.Before(ps[1].Started) {
					t.Errorf("%s %v: %d sittings, not oldest first", m.Fingerprint, key, len(ps))
				}
			}
		}
		for _, c := range []struct {
			names []string
			cells int
		}{{[]string{"thread/pipe"}, 1}, {[]string{"thread"}, 1}, {[]string{"kernel-0", "kernel-1"}, 2}, {[]string{"thread/pip"}, 0}, {[]string{"kernel"}, 0}} {
			ms, err := s.Every(ctx, c.names)
			if err != nil {
				t.Fatal(err)
			}
			if c.cells == 0 {
				if len(ms) != 0 {
					t.Errorf("%v: %d machines, want none", c.names, len(ms))
				}
				continue
			}
			if len(ms) != 2 || len(ms[0].Cells) != c.cells || len(ms[1].Cells) != c.cells {
				t.Errorf("%v: %d machines, want 2 of %d cells each", c.names, len(ms), c.cells)
			}
		}
	})
}
