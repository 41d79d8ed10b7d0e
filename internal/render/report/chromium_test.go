package report_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

// These tests open the report in a real browser (headless Chromium) and
// check what it shows and that it fetches nothing. They skip when no
// Chromium is installed: `apt-get install -y chromium` on Debian.

func chromiumBinary(t *testing.T) string {
	t.Helper()
	testenv.SkipShort(t, "-short: no browser")
	for _, name := range []string{os.Getenv("CTXBENCH_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Skip(t, testenv.Chromium, "no Chromium found (install it with: apt-get install -y chromium), or set CTXBENCH_CHROMIUM")
	return ""
}

// server serves pages from memory on 127.0.0.1 and records every request.
type server struct {
	URL string
	mu  sync.Mutex
	log []string
}

func serve(t *testing.T, pages map[string][]byte) *server {
	t.Helper()
	s := &server{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.Path)
		s.mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(body)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	s.URL = "http://" + ln.Addr().String()
	return s
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.log...)
}

type browsed struct {
	DOM    string
	Stderr string
	// PageRequests are the URLs the page itself asked for (from Chromium's
	// net log: requests whose initiator or top-level site is the page's),
	// as opposed to the browser's own background traffic.
	PageRequests []string
}

// browse loads url in headless Chromium and returns the DOM after load.
// The host resolver maps every name but 127.0.0.1 to nothing, so even the
// browser's own background traffic cannot leave the machine.
func browse(t *testing.T, bin, url string) browsed {
	t.Helper()
	dir := t.TempDir()
	netlog := filepath.Join(dir, "net.json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--no-first-run",
		"--disable-sync", "--disable-extensions", "--disable-default-apps",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
		"--enable-logging=stderr", "--v=0",
		"--log-net-log="+netlog, "--dump-dom", url)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	// Chromium's helper processes share its process group: none may
	// outlive the test.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errb.String()))
	}
	b := browsed{DOM: out.String(), Stderr: errb.String()}
	b.PageRequests = pageRequests(t, netlog, url)
	return b
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// pageRequests reads a Chromium net log and lists the URLs of requests
// started on behalf of the page at pageURL.
func pageRequests(t *testing.T, path, pageURL string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no net log: %v", err)
	}
	var nl struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL           string `json:"url"`
				Initiator     string `json:"initiator"`
				SiteForCookie string `json:"site_for_cookies"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &nl); err != nil {
		t.Fatalf("net log: %v", err)
	}
	start, ok := nl.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("net log has no URL_REQUEST_START_JOB event type")
	}
	origin := strings.TrimSuffix(pageURL, "/"+filepath.Base(pageURL))
	host := strings.Split(strings.TrimPrefix(origin, "http://"), ":")[0]
	var out []string
	for _, e := range nl.Events {
		if e.Type != start {
			continue
		}
		p := e.Params
		if p.URL == pageURL || strings.HasPrefix(p.Initiator, origin) || strings.Contains(p.SiteForCookie, "site=http://"+host) {
			out = append(out, p.URL)
		}
	}
	return out
}

// The check itself must be able to fail: a page that fetches an image from
// its server and one from elsewhere is caught by both the server's log and
// the net log.
func TestChromiumDetectsFetches(t *testing.T) {
	bin := chromiumBinary(t)
	s := serve(t, map[string][]byte{
		"/canary.html": []byte(`<!DOCTYPE html><html><body><p>canary</p><img src="/canary.png"><img src="http://ctxbench.invalid/x.png"></body></html>`),
	})
	b := browse(t, bin, s.URL+"/canary.html")
	reqs := s.requests()
	if !contains(reqs, "/canary.png") {
		t.Errorf("the server did not see the canary image: %v", reqs)
	}
	joined := strings.Join(b.PageRequests, " ")
	if !strings.Contains(joined, "/canary.png") || !strings.Contains(joined, "ctxbench.invalid") {
		t.Errorf("the net log check misses the page's fetches: %v", b.PageRequests)
	}
}

func TestChromiumRendersOffline(t *testing.T) {
	bin := chromiumBinary(t)
	in := inputs(t)
	page := render(t, in)
	s := serve(t, map[string][]byte{"/report.html": page})
	b := browse(t, bin, s.URL+"/report.html")

	if reqs := s.requests(); len(reqs) != 1 || reqs[0] != "/report.html" {
		t.Errorf("the server saw %v, want only /report.html", reqs)
	}
	if len(b.PageRequests) != 1 || b.PageRequests[0] != s.URL+"/report.html" {
		t.Errorf("the page made requests besides itself: %v", b.PageRequests)
	}
	if strings.Contains(b.Stderr, "Content Security Policy") {
		t.Errorf("the browser blocked something under the report's CSP:\n%s", tail(b.Stderr))
	}

	dom := b.DOM
	// Every chart is in the DOM the browser built: one SVG per forest row,
	// axis, legend swatch and panel.
	if n := strings.Count(dom, "<svg"); n < strings.Count(string(page), "<svg") {
		t.Errorf("the browser's DOM has %d SVGs, the page %d", n, strings.Count(string(page), "<svg"))
	}
	for _, want := range []string{
		`id="ladder"`, `id="rings"`, `id="spawn"`, `id="memory"`, `id="pools"`, `id="compare"`, `id="warnings"`, `id="environment"`,
		"one-way ns per hop (log scale)", "Cost per hop against the number of contexts", "Cost per hop against the working set",
		"throughput", "switches per query", "95% of peak",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page does not show %q", want)
		}
	}
	for _, r := range in[0].Doc.Results {
		if !strings.Contains(dom, r.Name) {
			t.Errorf("the rendered ladder misses %s", r.Name)
		}
	}
	// Same-cpu and cross-cpu marks are drawn distinctly.
	if !strings.Contains(dom, `class="p-same"`) || !strings.Contains(dom, `class="p-cross"`) {
		t.Error("the placements are not drawn with distinct classes")
	}
}

// The History section's charts reach the browser's DOM whole, fetch
// nothing and break nothing under the CSP.
func TestChromiumRendersHistory(t *testing.T) {
	bin := chromiumBinary(t)
	in := inputs(t)[:1]
	page := renderHistory(t, in, synthHistory(in[0].Doc))
	s := serve(t, map[string][]byte{"/report.html": []byte(page)})
	b := browse(t, bin, s.URL+"/report.html")
	if reqs := s.requests(); len(reqs) != 1 || len(b.PageRequests) != 1 {
		t.Errorf("the page made requests besides itself: %v, %v", reqs, b.PageRequests)
	}
	if strings.Contains(b.Stderr, "Content Security Policy") {
		t.Errorf("the browser blocked something under the report's CSP:\n%s", tail(b.Stderr))
	}
	dom := section(b.DOM, "history")
	for _, want := range []string{"thread/pipe same-cpu CPUs 0", "one sitting: no trend yet", "level of 4 sitting(s)"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered History section does not show %q", want)
		}
	}
	for _, el := range []string{`<g class="sitting">`, `<g class="step">`, `<g class="level">`, "<svg"} {
		if got, want := strings.Count(dom, el), strings.Count(section(page, "history"), el); got != want || want == 0 {
			t.Errorf("%s: %d in the browser's DOM, %d in the page", el, got, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
