package spawn

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

func TestELFRuns(t *testing.T) {
	exit, err := Memfd("test-exit", ExitELF())
	if err != nil {
		t.Fatal(err)
	}
	defer exit.Close()
	if out, err := exec.Command(MemfdPath(exit)).CombinedOutput(); err != nil {
		t.Fatalf("exit ELF: %v %q", err, out)
	}
	if _, err := exit.Write([]byte{0}); err == nil {
		t.Error("the memfd is not sealed against writes")
	}
	pause, err := Memfd("test-pause", PauseELF())
	if err != nil {
		t.Fatal(err)
	}
	defer pause.Close()
	cmd := exec.Command(MemfdPath(pause))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && s[i+2] == 'S' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pause ELF not asleep: %q", s)
		}
		time.Sleep(time.Millisecond)
	}
	_ = cmd.Process.Kill()
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("pause ELF ended with %v, want killed", err)
	}
}

// TestForkGrowsWithHeap is the one timing assertion, a ratio with a wide
// margin: fork from a 256 MiB parent is slower than fork from a small one.
func TestForkGrowsWithHeap(t *testing.T) {
	testenv.SkipShort(t, "forks from a 256 MiB parent")
	if !kernels.Built {
		testenv.Skip(t, testenv.Cgo, "needs the C kernels")
	}
	if emu, _ := host.Emulation(""); emu != "" {
		testenv.Skip(t, testenv.Native, "a ratio of times: emulated by %s, the times are the emulator's", emu)
	}
	small, err := Run("fork", Options{Samples: 9, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	big, err := Run("fork-256m", Options{Samples: 5, CPU: -1})
	if err != nil {
		t.Fatal(err)
	}
	if median(big.Samples) < 2*median(small.Samples) {
		t.Errorf("fork from 256 MiB (%.0f ns) not clearly dearer than from a small parent (%.0f ns)", median(big.Samples), median(small.Samples))
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// TestCleanupStopsContainerKernel is the Ctrl-C path: CleanupAll, called
// while the container kernel runs, stops it and leaves nothing behind.
func TestCleanupStopsContainerKernel(t *testing.T) {
	k, _ := Lookup("container-cgroup")
	if ok, why := k.Available(); !ok {
		testenv.SkipFor(t, why, testenv.Cgo, testenv.Root, testenv.CgroupCPU)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := Run("container-cgroup", Options{Samples: 100000, CPU: -1})
		errc <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if err := container.CleanupAll(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "stopped") {
			t.Errorf("run ended with %v, want stopped", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("kernel did not stop")
	}
	assertNothingLeft(t)
}

// childrenLeft lists this process's children, "" when it has none
// (/proc/PID/task/*/children).
func childrenLeft() string {
	var left []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range tasks {
		if b, _ := os.ReadFile(f); len(strings.TrimSpace(string(b))) > 0 {
			left = append(left, strings.TrimSpace(string(b)))
		}
	}
	return strings.Join(left, " ")
}
