package report

import "testing"

// Every level of the topology has a mark of its own, distinct from every
// other placement's, so rows at two levels are told apart in a printed
// (grey) report by shape or class, and in colour by both.
func TestLevelsHaveDistinctMarks(t *testing.T) {
	placements := []string{"same-cpu", "cross-cpu", "unpinned", "smt-sibling", "same-llc", "other-llc", "other-node", "other-package", "p-to-e"}
	seen := map[[2]string]string{}
	for _, p := range placements {
		cls, shape := placementClass(p)
		if cls == "p-other" {
			t.Errorf("%s has no mark of its own", p)
		}
		k := [2]string{cls, shape}
		if q, dup := seen[k]; dup {
			t.Errorf("%s and %s share the mark %v", p, q, k)
		}
		seen[k] = p
	}
	if len(levelMarks) != 6 {
		t.Errorf("%d levels marked, want the six of model.Levels", len(levelMarks))
	}
}
