package host

import (
	"os/exec"
	"slices"
	"testing"
)

func TestSetListRoundTrip(t *testing.T) {
	for _, cpus := range [][]int{{0}, {0, 3, 64, 1023}, nil} {
		if got := List(Set(cpus)); !slices.Equal(got, cpus) {
			t.Errorf("List(Set(%v)) = %v", cpus, got)
		}
	}
}

// The child starts inside the placement and the caller's thread is
// restored; a CPU outside the allowed set is an error and starts nothing.
func TestStartPinned(t *testing.T) {
	allowed, err := Of(0)
	if err != nil || len(allowed) == 0 {
		t.Fatalf("allowed: %v %v", allowed, err)
	}
	want := allowed[len(allowed)-1:]
	cmd := exec.Command("sleep", "10")
	if err := StartPinned(cmd, want); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if got, _ := Of(cmd.Process.Pid); !slices.Equal(got, want) {
		t.Errorf("child affinity %v, want %v", got, want)
	}
	if got, _ := Of(0); !slices.Equal(got, allowed) {
		t.Errorf("caller affinity %v after StartPinned, want %v", got, allowed)
	}
	bad := exec.Command("true")
	if err := StartPinned(bad, []int{1023}); err == nil || bad.Process != nil {
		t.Errorf("CPU 1023 (not allowed here): err %v, process %v", err, bad.Process)
	}
}
