package compare

// hints.go: what a comparison as a whole rests on, in sentences.

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/units"
)

func hints(c *Comparison, o Options) []string {
	var h []string
	if len(c.Inputs) > 1 && c.Tests() > 0 {
		repro := 0
		for _, t := range c.Tables {
			repro += t.Reproducible
		}
		adjusted := 0
		for _, t := range c.Tables {
			adjusted += t.HostAdjusted
		}
		switch {
		case repro == 0 && !sameMachines(c.Inputs):
			h = append(h, "the files come from different machines (the machine part of their fingerprints differs: host, CPU, virtualisation or boot settings): each change is tested against the two files' within-sitting precision only, and a row called different may differ by machine as much as by change")
		case repro == 0 && len(c.Synthetic) > 0:
			// dry runs are never recorded: nothing to learn, nothing to say about it
		case repro == 0:
			h = append(h, "only within-sitting precision was available (the machine had not learned how far its sittings move): identical runs can be called different more often than α; `ctxbench aa` on this machine learns the rest, after which compare tests against reproducibility")
		case repro < c.Tests():
			h = append(h, fmt.Sprintf("%d of %d changes were tested against reproducibility (the between-sitting spread learned on this machine); the rest against within-sitting precision only (their cells were not learned: `ctxbench aa NAME...` learns them)", repro, c.Tests()))
		default:
			h = append(h, "every change was tested against reproducibility: the two sittings' precision plus the between-sitting spread this machine has shown")
		}
		if repro > 0 && !sameFingerprint(c.Inputs) && sameMachines(c.Inputs) {
			h = append(h, "one machine, different builds under test ("+strings.Join(buildParts(c.Inputs), ", ")+"): each change is tested against the spread this machine's sittings have shown across its builds")
		}
		if adjusted > 0 {
			h = append(h, fmt.Sprintf("%d of %d changes were tested on host-adjusted figures: every block timed the host probe, and the host's speed (which moves every figure of a sitting together) was taken out before testing; the table shows the measured medians, the change is the adjusted one (docs/methodology.md, \"The host's state\")", adjusted, c.Tests()))
		}
	}
	if r := c.Resolvable(); r > 0 {
		h = append(h, fmt.Sprintf("resolvable: a change of about %s or more is found in 80%% of comparisons like these (the median over the rows); a smaller real change often shows as ≈ (not resolved)", units.Percent(100*r, 1)))
	}
	if n := c.Tests(); n >= 10 {
		h = append(h, fmt.Sprintf("%d tests at α=%s: about %s of them can show as significant by chance alone; do not re-run until a row turns significant", n, units.Digits(c.Alpha, -1), units.Fixed(float64(n)*c.Alpha, 1)))
	}
	if len(c.Inputs) > 1 && c.Tests() == 0 && len(c.Attach) == 0 {
		msg := "no benchmark appears in the base and another file, so nothing was compared"
		if !o.IgnorePlacement && sameNames(c) {
			msg += "; the names match but the placements differ: --ignore-placement compares them by name"
		}
		h = append(h, msg)
	}
	return h
}

func sameNames(c *Comparison) bool {
	names := make([]map[string]bool, len(c.Inputs))
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for i, cell := range r.Cells {
				if cell.Present {
					if names[i] == nil {
						names[i] = map[string]bool{}
					}
					names[i][r.Name] = true
				}
			}
		}
	}
	for n := range names[0] {
		for i := 1; i < len(names); i++ {
			if names[i][n] {
				return true
			}
		}
	}
	return false
}
