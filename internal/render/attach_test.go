package render_test

import (
	"io"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// attach's view fits 80 and 100 columns (and --wide leaves nothing out),
// and shows, per target, the share lost, the run-queue wait, the rate by
// kind, the cost per switch and its biggest phase, the what-if, and the
// attach's own cost; with --check, its comparison.
func TestAttachView(t *testing.T) {
	for _, check := range []bool{false, true} {
		d := &result.Document{Attach: testdoc.Attach(check), Results: []result.Result{}}
		for _, st := range []render.Style{{Width: 80}, {Width: 100}, {Wide: true}} {
			out := shown(st, func(w io.Writer, _ render.Style) { render.Attach(w, d) })
			if !st.Wide {
				fits(t, "attach", out, st.Width)
			}
			for _, want := range []string{"share lost to switching", "run-queue wait", "KIND", "away: blocked", "in: woken, other CPU",
				"cost per switch", "biggest phase", "the attach's own cost", "indirect cost: not given"} {
				if !strings.Contains(out, want) {
					t.Errorf("check %v, %+v: no %q in\n%s", check, st, want, out)
				}
			}
			if check != strings.Contains(out, "the check against ctxbench's known workload") {
				t.Errorf("check %v: the check's block shown %v", check, !check)
			}
			if !check && (!strings.Contains(out, "what if: at the ladder's bare hops") || !strings.Contains(out, "exited after")) {
				t.Errorf("no what-if or no exited target in\n%s", out)
			}
		}
	}
	var b strings.Builder
	render.Attach(&b, &result.Document{})
	if !strings.Contains(b.String(), "no attach") {
		t.Error("a document without an attach says nothing")
	}
}
