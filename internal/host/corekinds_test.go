package host

import "testing"

// An M1's two levels: 4 performance cores (level 0) and 4 efficiency cores,
// numbered efficiency first; one level is no hybrid.
func TestKindsByLevel(t *testing.T) {
	k := KindsByLevel([]PerfLevel{{"Performance", 4}, {"Efficiency", 4}})
	for cpu, want := range map[int]CoreKind{0: Efficiency, 3: Efficiency, 4: Performance, 7: Performance} {
		if k[cpu] != want {
			t.Errorf("CPU %d: %q, want %q", cpu, k[cpu], want)
		}
	}
	if len(k) != 8 {
		t.Errorf("%d CPUs, want 8", len(k))
	}
	// An M1 Pro: 8 performance cores, 2 efficiency cores.
	k = KindsByLevel([]PerfLevel{{"Performance", 8}, {"Efficiency", 2}})
	if k[0] != Efficiency || k[1] != Efficiency || k[2] != Performance || k[9] != Performance || len(k) != 10 {
		t.Errorf("M1 Pro: %v", k)
	}
	if KindsByLevel([]PerfLevel{{"Performance", 8}}) != nil || KindsByLevel(nil) != nil {
		t.Error("one level is not a hybrid part")
	}
}

func TestDescribeKinds(t *testing.T) {
	k := KindsByLevel([]PerfLevel{{"Performance", 4}, {"Efficiency", 4}})
	for _, c := range []struct {
		cpus []int
		want string
	}{
		{[]int{5, 4}, "P cores 4 and 5"},
		{[]int{0}, "E core 0"},
		{[]int{6, 1, 2, 7}, "P cores 6 and 7; E cores 1 and 2"},
		{[]int{4, 9}, "P core 4; CPU 9"},
		{nil, ""},
	} {
		if got := DescribeKinds(c.cpus, k); got != c.want {
			t.Errorf("DescribeKinds(%v) = %q, want %q", c.cpus, got, c.want)
		}
	}
	if DescribeKinds([]int{1}, nil) != "" {
		t.Error("no kinds, yet a description")
	}
}
