package render_test

import (
	"io"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
)

// On arm64 the ticks column counts CNTVCT_EL0: the ladder, the ring view
// and the Markdown export name it, the ladder says its rate and tick in one
// legend line, the env view shows the counter, the cores and their
// features instead of x86's family and microcode; all within 80 and 100
// columns. A document that names the TSC, or no counter, reads as before.
func TestArm64Counter(t *testing.T) {
	d := fake(t)
	d.Environment.Arch = "arm64"
	d.Environment.CPU.TSC = result.TSCInfo{Constant: true, Nonstop: true, Usable: true, Counter: "CNTVCT_EL0", Hz: 25e6, Trapped: true}
	d.Environment.CPU.Model, d.Environment.CPU.Vendor, d.Environment.CPU.ModelID = "ARM Neoverse-N1", "ARM", 0xd0c
	d.Environment.CPU.Features = []string{"fp", "asimd", "atomics"}
	for _, width := range []int{80, 100} {
		st := render.Style{Width: width}
		ladder := shown(st, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) })
		fits(t, "arm64 ladder", ladder, width)
		if strings.Contains(ladder, "TSC") {
			t.Errorf("%d columns: the arm64 ladder speaks of the TSC:\n%s", width, ladder)
		}
		flat := strings.Join(strings.Fields(ladder), " ") // legends wrap
		if !strings.Contains(flat, "CNTVCT TICKS") || !strings.Contains(flat, "ticks of CNTVCT_EL0") || !strings.Contains(flat, "25.0 MHz: 40.0 ns a tick") {
			t.Errorf("%d columns: no CNTVCT column or legend:\n%s", width, ladder)
		}
		env := shown(st, func(w io.Writer, st render.Style) { render.Environment(w, d.Environment, st) })
		fits(t, "arm64 env", env, width)
		flatEnv := strings.Join(strings.Fields(env), " ")
		for _, want := range []string{"CNTVCT_EL0 at 25.0 MHz (40.0 ns a tick)", "its reads trap", "part 0xd0c", "fp asimd atomics"} {
			if !strings.Contains(flatEnv, want) {
				t.Errorf("%d columns: env lacks %q:\n%s", width, want, env)
			}
		}
		if strings.Contains(env, "microcode") || strings.Contains(env, "tsc ") {
			t.Errorf("%d columns: x86 facts in the arm64 env:\n%s", width, env)
		}
	}
	var md strings.Builder
	if err := formats.Markdown(&md, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| CNTVCT ticks |") {
		t.Errorf("markdown head: %s", strings.SplitN(md.String(), "\n", 4)[2])
	}

	x86 := fake(t)
	plain := shown(render.Style{Width: 100}, func(w io.Writer, st render.Style) { render.Ladder(w, x86, st) })
	x86.Environment.CPU.TSC.Counter = "TSC"
	named := shown(render.Style{Width: 100}, func(w io.Writer, st render.Style) { render.Ladder(w, x86, st) })
	if plain != named || !strings.Contains(plain, "TSC TICKS") {
		t.Error("a document naming the TSC reads differently from one that does not")
	}
}
