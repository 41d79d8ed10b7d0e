package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// The captured hops' text view fits 100 columns (and 60), prints the
// slowest hop one line and then its parts, names the other task and the
// capture's cost with its interval, and says what was not kept.
func TestCaptureText(t *testing.T) {
	for _, cross := range []bool{false, true} {
		for _, width := range []int{100, 60} {
			var b strings.Builder
			Capture(&b, testdoc.Capture(cross), Style{Width: width})
			out := b.String()
			for _, l := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("cross %v, width %d: a line of %d: %q", cross, width, n, l)
				}
			}
			if width < 100 {
				continue
			}
			for _, want := range []string{"1.02k not kept", "the capture's own cost: +12.1% [+10.4%, +13.3%]", "#1, 214 µs", "kworker/1:1 (pid 77)",
				"a typical hop, 4.20 µs", "by cause:", "p99.9 61.0 µs"} {
				if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
					t.Errorf("cross %v: the view does not say %q:\n%s", cross, want, out)
				}
			}
		}
	}
}

// The capture says how many slow hops the kernel's buffer refused only
// where it refused some: "0 lost: the buffer was full" claimed a full
// buffer that never was.
func TestCaptureLostOnlyWhenLost(t *testing.T) {
	for _, lost := range []uint64{0, 7} {
		c := testdoc.Capture(false)
		c.Counts.Lost = lost
		var b strings.Builder
		Capture(&b, c, Style{Wide: true})
		out := b.String()
		switch {
		case lost == 0 && strings.Contains(out, "lost"):
			t.Errorf("nothing was lost, yet the view says:\n%s", out)
		case lost > 0 && !strings.Contains(out, "1.18k copied out (7 lost: the buffer was full), 160 kept"):
			t.Errorf("7 hops lost, not said where they were copied:\n%s", out)
		}
	}
}
