package result

import (
	"fmt"
	"strconv"
)

// SizeLabel writes a byte count the way the command line takes it (0,
// 4KiB, 1MiB, 1GiB, or bytes): the working set in ring point names.
func SizeLabel(b int64) string {
	switch {
	case b == 0:
		return "0"
	case b%(1<<30) == 0:
		return strconv.FormatInt(b>>30, 10) + "GiB"
	case b%(1<<20) == 0:
		return strconv.FormatInt(b>>20, 10) + "MiB"
	case b%(1<<10) == 0:
		return strconv.FormatInt(b>>10, 10) + "KiB"
	}
	return strconv.FormatInt(b, 10) + "B"
}

// RingPoint is the name a ring point goes by in progress, failures and
// comparisons, e.g. "ring/thread N=16 ws=64KiB" (the placement apart).
func RingPoint(kind string, tasks int, workingSet int64) string {
	return fmt.Sprintf("ring/%s N=%d ws=%s", kind, tasks, SizeLabel(workingSet))
}

// Point is the ring point's name (RingPoint).
func (r Ring) Point() string { return RingPoint(r.Kind, r.Tasks, r.WorkingSetB) }
