package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// caveat is what a claim's owner appends to a claim that is not like for
// like with the row beside it (internal/experiment/replicate, claims.go).
const caveat = " — not like for like: that is a stack reservation (address space), this is PSS, the memory held"

// A claim whose size is of something else than the row (a reservation
// beside PSS) gets no multiple of it, and its source sits before what
// differs; a like-for-like claim keeps its multiple.
func TestMemoryClaimNotLikeForLikeHasNoMultiple(t *testing.T) {
	d := &result.Document{Memory: []result.Memory{{Name: "memory/thread", Kind: "thread", Contexts: 10, Requested: 10, PSSBytes: 8500, VirtBytes: 8 << 20,
		Claims: []result.Claim{
			{Text: "100,000 threads would consume ~100 GB", Differs: strings.TrimPrefix(caveat, " — not like for like: "), Source: "src-a", BytesPerContext: 1 << 20},
			{Text: "a thread holds ~8 KB", Source: "src-b", BytesPerContext: 8500}}}}}
	var b bytes.Buffer
	render.Memory(&b, d)
	out := b.String()
	l := tableLine(t, out, "memory/thread — claim: 100,000", "src-a")
	if !strings.Contains(l, "about 100 GB (src-a)"+caveat) {
		t.Errorf("the source is not right after the claim, before what differs:\n%s", l)
	}
	if strings.Contains(l, "× that") || strings.Contains(l, "x that") {
		t.Errorf("a multiple of PSS over a stack reservation:\n%s", l)
	}
	if l := tableLine(t, out, "memory/thread — claim: a thread holds", "src-b"); !strings.Contains(l, "measured PSS is 1.00× that") {
		t.Errorf("a like-for-like claim lost its multiple:\n%s", l)
	}
}

// In the creation table a claim's footnote mark follows the claim, and
// what differs follows the mark.
func TestSpawnClaimMarkBeforeWhatDiffers(t *testing.T) {
	d := &result.Document{Spawn: []result.Spawn{{Name: "spawn/vm", Kind: "vm", PerCreateNS: stats.Summarize([]float64{573e3, 580e3, 566e3}),
		Claims: []result.Claim{{Text: "VM start 1-5 s", Differs: "that is a guest OS boot, this is a minimal VM", Source: "src"}}}}}
	var b bytes.Buffer
	render.Spawn(render.Fit(&b, render.Style{Wide: true}), d)
	if l := tableLine(t, b.String(), "spawn/vm", "VM start"); !strings.Contains(l, "VM start 1-5 s [1] — not like for like: that is a guest OS boot") {
		t.Errorf("the mark is not right after the claim:\n%s", l)
	}
}

// The hierarchy's claims table puts the published text, which may carry
// what differs, last, so MEASURED stays beside the claim's name.
func TestHierarchyClaimsPublishedLast(t *testing.T) {
	m := 100.0
	d := &result.Document{Derived: &result.Derived{
		Hierarchy: []result.HierarchyRow{{Abstraction: "VM", Published: "10,000 ns", PublishedMultiple: "93x", Name: "vm/x", Placement: "same-cpu", MedianNS: &m}},
		Claims: []result.ClaimRow{{Name: "spawn/vm", Measured: "573 µs per creation (median)",
			Published: "VM start 1-5 s (the write-up) — not like for like: that is a guest OS boot, this is a minimal VM"}}}}
	var b bytes.Buffer
	render.Hierarchy(&b, d)
	out := b.String()
	h := tableLine(t, out, "CLAIM", "PUBLISHED")
	if strings.Index(h, "MEASURED") >= strings.Index(h, "PUBLISHED") {
		t.Errorf("PUBLISHED is not last: %q", h)
	}
	l := tableLine(t, out, "spawn/vm", "573 µs")
	if strings.Index(l, "573 µs") >= strings.Index(l, "VM start") {
		t.Errorf("the measured figure is not before the published claim: %q", l)
	}
}
