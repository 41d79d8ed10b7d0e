package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// harness is a page that frames the report at a given width and, once it
// has loaded, measures it: the report itself runs no script (its CSP
// forbids any), so its parent, from the same origin, reads its layout and
// writes what it found into its own DOM, which --dump-dom prints.
const harness = `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="f" src="/report.html" style="width:%dpx;height:900px;border:0"></iframe>
<pre id="out">not measured</pre>
<script>
document.getElementById("f").addEventListener("load", function () {
  var d = this.contentDocument, w = d.documentElement.clientWidth, over = [];
  d.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && r.right > w + 1) {
      over.push(e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? "." + e.className : "") +
        (e.id ? "#" + e.id : "") + " right " + Math.round(r.right) + ": " + (e.textContent || "").trim().slice(0, 60));
    }
  });
  var first = d.querySelector("main section");
  var ovFont = 0;
  d.querySelectorAll("svg.overview text").forEach(function (e) {
    var r = e.getBoundingClientRect(), m = e.getScreenCTM();
    if (r.width === 0 || !m) { return; }
    var px = parseFloat(d.defaultView.getComputedStyle(e).fontSize) * m.a;
    if (ovFont === 0 || px < ovFont) { ovFont = px; }
  });
  document.getElementById("out").textContent = JSON.stringify({width: w, scroll: d.documentElement.scrollWidth,
    first: first ? first.id : "", over: over.slice(0, 40), overCount: over.length, overviewFont: ovFont});
});
</script></body></html>`

type layout struct {
	Width, Scroll int
	First         string
	Over          []string
	OverCount     int
	// OverviewFont is the smallest text of the overview as shown, in CSS
	// pixels (its font size times the drawing's scale).
	OverviewFont float64
}

// chromium runs headless Chromium with the project's flags and args.
func chromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + filepath.Join(dir, "profile"),
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1", "--hide-scrollbars"}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its helpers share its group: none outlives the test
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errb.String()))
	}
	return out.String()
}

var outRe = regexp.MustCompile(`(?s)<pre id="out">(.*?)</pre>`)

// measure frames page at width in Chromium and returns its layout.
func measure(t *testing.T, bin string, page []byte, width int) layout {
	t.Helper()
	s := serve(t, map[string][]byte{"/report.html": page, "/harness.html": []byte(fmt.Sprintf(harness, width))})
	dom := chromium(t, bin, "--virtual-time-budget=10000", "--window-size=1600,1000", "--dump-dom", s.URL+"/harness.html")
	m := outRe.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the harness printed nothing:\n%s", tail(dom))
	}
	var l layout
	text := strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'").Replace(m[1])
	if err := json.Unmarshal([]byte(text), &l); err != nil {
		t.Fatalf("the harness measured nothing (%v): %s", err, text)
	}
	return l
}

// The report fits a laptop's width and a phone's: at 1366 and 390 CSS
// pixels nothing runs past the right edge (no horizontal scrolling, no
// label cut), for the default ladder's file and for three files (a
// ladder, one with rings and pools, and a second ladder) and for a file of
// explained hops with captured slow ones (their CPU lanes), and it opens on
// the picture of the whole ladder, whose smallest text reads at 9 px or
// more. Screenshots at both widths go to
// $CTXBENCH_SCREENSHOTS when set (a directory), else to the test's own.
func TestChromiumReportFitsTheWidth(t *testing.T) {
	bin := chromiumBinary(t)
	ladder := doc(t, testdoc.Options{Seed: 1})
	rich := doc(t, testdoc.Options{Seed: 2, Experiments: true})
	second := doc(t, testdoc.Options{Seed: 3, Scale: 1.1})
	captured := doc(t, testdoc.Options{Seed: 4, Capture: true})
	load := doc(t, testdoc.Options{Seed: 5})
	load.Loads = testdoc.Loads(true)
	inplace := doc(t, testdoc.Options{Seed: 6})
	inplace.Attach = testdoc.Attach(false)
	checked := doc(t, testdoc.Options{Seed: 7})
	checked.Attach = testdoc.Attach(true)
	shots := os.Getenv("CTXBENCH_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	sets := map[string][]compare.Input{
		"ladder": {{Label: "ladder", Path: "ladder.json", Doc: ladder}},
		"three":  {{Label: "ladder", Path: "ladder.json", Doc: ladder}, {Label: "rings-pools", Path: "rich.json", Doc: rich}, {Label: "again", Path: "again.json", Doc: second}},
		// explain with captured slow hops: the lanes of a slow hop beside a typical one
		"captured": {{Label: "captured", Path: "captured.json", Doc: captured}},
		// a load file: its panels, its levels' table and a level's captured wake-ups
		"load": {{Label: "load", Path: "load.json", Doc: load}},
		// ctxbench attach: targets' kinds, a switch's path, the windows, and --check
		"attach": {{Label: "inplace", Path: "inplace.json", Doc: inplace}, {Label: "checked", Path: "checked.json", Doc: checked}},
	}
	for name, in := range sets {
		page := render(t, in)
		for _, width := range []int{1366, 390} {
			t.Run(fmt.Sprintf("%s-%d", name, width), func(t *testing.T) {
				l := measure(t, bin, page, width)
				if l.Width != width {
					t.Errorf("the frame is %d px wide, want %d", l.Width, width)
				}
				t.Logf("%d px of content in %d; the overview's smallest text %.1f px", l.Scroll, l.Width, l.OverviewFont)
				if l.Scroll > l.Width {
					t.Errorf("the page scrolls sideways: %d px of content in %d", l.Scroll, l.Width)
				}
				if l.OverCount > 0 {
					t.Errorf("%d elements run past the right edge, first:\n%s", l.OverCount, strings.Join(l.Over, "\n"))
				}
				if l.First != "overview" {
					t.Errorf("the report opens on %q, not the picture of the ladder", l.First)
				}
				// The overview's names and ticks are read, not guessed: no
				// text of it smaller than 9 px as shown (a phone scaled the
				// laptop's drawing down to 4 px).
				if l.OverviewFont < 9 {
					t.Errorf("the overview's smallest text is %.1f px at %d px", l.OverviewFont, width)
				}
				s := serve(t, map[string][]byte{"/report.html": page})
				png := filepath.Join(shots, fmt.Sprintf("report-%s-%d.png", name, width))
				chromium(t, bin, fmt.Sprintf("--window-size=%d,2400", width), "--screenshot="+png, s.URL+"/report.html")
				if st, err := os.Stat(png); err != nil || st.Size() < 10000 {
					t.Errorf("no screenshot at %d px: %v", width, err)
				}
			})
		}
	}
}
