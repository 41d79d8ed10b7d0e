package probe

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestExecProbePinsChild(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	cpu := -1
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			cpu = c
			break
		}
	}
	out, ru, err := execProbe(context.Background(), []string{"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; sleep 0.3"},
		os.Environ(), []int{cpu}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// Seen from outside while it ran: on its one CPU and nowhere else.
	if ru.CPUsSeen != 1<<uint(cpu) {
		t.Errorf("the pinned child was seen on CPUs %b, want only CPU %d", ru.CPUsSeen, cpu)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Cpus_allowed_list:")); got != strconv.Itoa(cpu) {
		t.Fatalf("child allowed CPUs %q, want %d", got, cpu)
	}
	// The calling thread got its mask back: a later unpinned child sees every CPU.
	out, _, err = execProbe(context.Background(), []string{"/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status"},
		os.Environ(), nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if set.Count() > 1 && strings.Contains(string(out), "\t"+strconv.Itoa(cpu)+"\n") {
		t.Fatalf("affinity leaked into an unpinned start: %s", out)
	}
}
