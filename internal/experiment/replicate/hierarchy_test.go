package replicate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

// The published table's numbers are its text: each row's low and high
// (what the report draws) are the figures its text states, so the picture
// and the table never disagree; and Hierarchy carries them into every row.
func TestHierarchyNumbersAreItsText(t *testing.T) {
	for _, h := range hierarchyTable {
		text, ok := strings.CutSuffix(strings.ReplaceAll(h.Published, ",", ""), " ns")
		if !ok {
			t.Fatalf("%s: %q is not in ns", h.Abstraction, h.Published)
		}
		a, b, isRange := strings.Cut(text, "-")
		lo, err1 := strconv.ParseFloat(a, 64)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.ParseFloat(b, 64)
		}
		if err1 != nil || err2 != nil || lo != h.Low || hi != h.High || h.Low <= 0 || h.High < h.Low {
			t.Errorf("%s: %q, numbers %v–%v", h.Abstraction, h.Published, h.Low, h.High)
		}
	}
	rows, _ := Hierarchy(&result.Document{})
	for i, r := range rows {
		if r.PublishedLowNS == nil || r.PublishedHighNS == nil || *r.PublishedLowNS != hierarchyTable[i].Low || *r.PublishedHighNS != hierarchyTable[i].High {
			t.Errorf("%s: the derived row does not carry the published numbers", r.Abstraction)
		}
	}
}
