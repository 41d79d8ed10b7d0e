package host

import "testing"

// The RES line is read by the header's CPU columns (an offline CPU has no
// column), summed over the CPUs asked for; a machine without the line, or
// a CPU without a column, gives -1, never a made-up 0.
func TestReschedIPIs(t *testing.T) {
	const text = `           CPU0       CPU2       CPU3
  0:         44          0          0   IO-APIC    2-edge      timer
LOC:    6651371    3964508        100   Local timer interrupts
RES:     466046     452306         17   Rescheduling interrupts
CAL:    3081275    2300597          5   Function call interrupts
`
	for _, c := range []struct {
		cpus []int
		want int64
	}{
		{[]int{0}, 466046},
		{[]int{2, 3}, 452306 + 17},
		{[]int{1}, -1},
		{nil, 0},
	} {
		if got := parseReschedIPIs(text, c.cpus); got != c.want {
			t.Errorf("CPUs %v: %d, want %d", c.cpus, got, c.want)
		}
	}
	if got := parseReschedIPIs("           CPU0\nLOC: 5 Local timer interrupts\n", []int{0}); got != -1 {
		t.Errorf("no RES line: %d, want -1", got)
	}
}
