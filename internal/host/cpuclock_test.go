package host

import "testing"

// The RES and CAL lines are read by the header's CPU columns (an offline
// CPU has no column), summed over the CPUs asked for; a machine without
// the lines, or a CPU without a column, gives -1, never a made-up 0.
func TestWakeupIPIs(t *testing.T) {
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
		{[]int{0}, 466046 + 3081275},
		{[]int{2, 3}, 452306 + 17 + 2300597 + 5},
		{[]int{1}, -1},
		{nil, 0},
	} {
		if got := parseWakeupIPIs(text, c.cpus); got != c.want {
			t.Errorf("CPUs %v: %d, want %d", c.cpus, got, c.want)
		}
	}
	if got := parseWakeupIPIs("           CPU0\nLOC: 5 Local timer interrupts\nRES: 4 Rescheduling interrupts\n", []int{0}); got != -1 {
		t.Errorf("no CAL line: %d, want -1", got)
	}
}
