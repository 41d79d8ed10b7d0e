package host

// corekinds.go: which CPUs are performance cores and which efficiency
// cores, where a placement cannot be chosen and the CPUs a side was seen on
// are all a reader has (macOS). Linux reads it from sysfs (Topology);
// macOS names its performance levels (sysctl hw.perflevelN), each with its
// count of logical CPUs, but not which CPU numbers are in which: on Apple
// silicon the CPU numbers pthread_cpu_number_np returns run through the
// efficiency cluster first, then the performance clusters, and
// KindsByLevel assumes that order (what it assumes is in its note).

import (
	"sort"
	"strconv"
	"strings"
)

// PerfLevel is one of macOS's performance levels: hw.perflevelN.name
// ("Performance", "Efficiency") and hw.perflevelN.logicalcpu. Level 0 is
// the most performant.
type PerfLevel struct {
	Name string
	CPUs int
}

// KindsByLevelNote says how KindsByLevel numbers the CPUs.
const KindsByLevelNote = "core types by CPU number assume macOS's order on Apple silicon: efficiency cores first, then performance cores"

// KindsByLevel maps CPU numbers to core types from the performance levels,
// the least performant level's CPUs numbered first. A single level (an
// Intel Mac, a part of one core type) is no hybrid: nil.
func KindsByLevel(levels []PerfLevel) map[int]CoreKind {
	if len(levels) < 2 {
		return nil
	}
	out := map[int]CoreKind{}
	cpu := 0
	for i := len(levels) - 1; i >= 0; i-- {
		kind := Efficiency
		if i == 0 {
			kind = Performance
		}
		for range levels[i].CPUs {
			out[cpu] = kind
			cpu++
		}
	}
	return out
}

// DescribeKinds says which core types a set of CPUs holds, e.g. "P cores
// 4, 5 and E core 0"; "" without kinds.
func DescribeKinds(cpus []int, kinds map[int]CoreKind) string {
	if len(kinds) == 0 || len(cpus) == 0 {
		return ""
	}
	by := map[CoreKind][]int{}
	for _, c := range cpus {
		by[kinds[c]] = append(by[kinds[c]], c)
	}
	var parts []string
	for _, k := range []CoreKind{Performance, Efficiency, ""} {
		cs := by[k]
		if len(cs) == 0 {
			continue
		}
		sort.Ints(cs)
		name := string(k) + " core"
		if k == "" {
			name = "CPU"
		}
		if len(cs) > 1 {
			name += "s"
		}
		parts = append(parts, name+" "+listInts(cs))
	}
	return strings.Join(parts, "; ")
}

func listInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return joinAnd(s)
}

// joinAnd writes "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
