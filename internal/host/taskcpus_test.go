package host

import (
	"os"
	"testing"
)

// The processor field is read after the command, whatever the command
// holds; this process's own threads ran on CPUs it may use.
func TestTaskCPUs(t *testing.T) {
	line := "42 (a (weird) name) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 100 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 7 0 0 0 0 0"
	if cpu, ok := lastCPU(line); !ok || cpu != 7 {
		t.Errorf("lastCPU = %d, %v; want 7", cpu, ok)
	}
	if _, ok := lastCPU("42 (no closing"); ok {
		t.Error("a line without ')' gave a CPU")
	}
	allowed, err := Of(0)
	if err != nil {
		t.Fatal(err)
	}
	m := TaskCPUs(os.Getpid())
	if m == 0 {
		t.Fatal("no CPU read for this process")
	}
	var set uint64
	for _, c := range allowed {
		set |= 1 << uint(c)
	}
	if m&^set != 0 {
		t.Errorf("threads seen on CPUs %b outside the allowed %v", m, allowed)
	}
	if TaskCPUs(1<<30) != 0 {
		t.Error("a process that does not exist was seen")
	}
}
