package procs

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

func TestProcessCountsEveryThread(t *testing.T) {
	c, err := Process(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	if c.Threads < 1 || c.Threads > len(tasks)+8 {
		t.Errorf("threads = %d, /proc/self/task has %d", c.Threads, len(tasks))
	}
	if HaveSchedstat() && c.CPUNs == 0 {
		t.Error("no CPU time for a running test process")
	}
	if _, err := Process(1 << 30); err == nil {
		t.Error("absurd pid read without error")
	}
}

// A thread that sleeps N times switches out voluntarily at least N times; the per-thread
// counter and getrusage must both see it.
func TestVoluntarySwitchesCounted(t *testing.T) {
	const n = 50
	done := make(chan [2]uint64)
	ru0 := Self()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := syscall.Gettid()
		c0, _ := Thread(os.Getpid(), tid)
		for i := 0; i < n; i++ {
			ts := syscall.NsecToTimespec(int64(200 * time.Microsecond))
			syscall.Nanosleep(&ts, nil)
		}
		c1, _ := Thread(os.Getpid(), tid)
		done <- [2]uint64{c0.Voluntary, c1.Voluntary}
	}()
	v := <-done
	if d := v[1] - v[0]; d < n || d > 3*n {
		t.Errorf("thread voluntary switches over %d sleeps = %d", n, d)
	}
	if d := Self().Sub(ru0).Voluntary; d < n {
		t.Errorf("getrusage voluntary = %d, want >= %d", d, n)
	}
}

func TestChildrenGroupAndPinning(t *testing.T) {
	allowed, err := Allowed()
	if err != nil || len(allowed) == 0 {
		t.Fatalf("allowed CPUs: %v %v", allowed, err)
	}
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	want := allowed[len(allowed)-1:]
	if err := host.StartPinned(cmd, want); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	if !slices.Contains(Children(os.Getpid()), pid) {
		t.Errorf("child %d not among Children(self)", pid)
	}
	if g := Group(pid); !slices.Equal(g, []int{pid}) {
		t.Errorf("group %d = %v", pid, g)
	}
	if got, _ := Affinity(pid); !slices.Equal(got, want) {
		t.Errorf("child started pinned to %v has affinity %v", want, got)
	}
	// The starting thread's own affinity was restored.
	if got, _ := Allowed(); !slices.Equal(got, allowed) {
		t.Errorf("caller affinity %v after StartPinned, want %v", got, allowed)
	}
	if err := PinProcess(pid, allowed); err != nil {
		t.Fatal(err)
	}
	if got, _ := Affinity(pid); !slices.Equal(got, allowed) {
		t.Errorf("re-pinned child has %v", got)
	}
	st, err := ReadStat(pid)
	if err != nil || st.PPid != os.Getpid() || st.Pgrp != pid {
		t.Errorf("stat %+v %v", st, err)
	}
	if !Alive(pid, st.StartTicks) || Alive(pid, st.StartTicks+1) {
		t.Error("Alive does not tell the process apart by start time")
	}
}

func TestPinSelf(t *testing.T) {
	allowed, _ := Allowed()
	defer PinSelf(allowed)
	one := allowed[:1]
	if err := PinSelf(one); err != nil {
		t.Fatal(err)
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, e := range tasks {
		var tid int
		for _, ch := range e.Name() {
			tid = tid*10 + int(ch-'0')
		}
		if got, err := Affinity(tid); err == nil && !slices.Equal(got, one) {
			t.Errorf("thread %d has %v after PinSelf(%v)", tid, got, one)
		}
	}
}

func TestCPUTimeAndPerf(t *testing.T) {
	allowed, _ := Allowed()
	a, err := ReadCPUTime(allowed)
	if err != nil || a.BusyNs == 0 {
		t.Fatalf("cpu time %+v %v", a, err)
	}
	ok, why := PerfUsable()
	if !ok {
		testenv.Skip(t, testenv.Perf, "perf counter unavailable: %s", why)
	}
	c, err := OpenCPUSwitches(allowed[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v0, _ := c.Read()
	time.Sleep(50 * time.Millisecond)
	v1, _ := c.Read()
	if v1 < v0 {
		t.Errorf("counter went backwards %d -> %d", v0, v1)
	}
}

// This process's start time reads the same from every thread (under
// qemu-user, which the test command runs this package in for arm64, each
// thread's own reading differs by the time the thread was made).
func TestOwnStartTimeFromEveryThread(t *testing.T) {
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // a thread of its own, made now
			defer runtime.UnlockOSThread()
			st, err := ReadStat(os.Getpid())
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			seen[st.StartTicks] = true
			mu.Unlock()
			time.Sleep(time.Second) // hold the thread while the next is made
		}()
		time.Sleep(30 * time.Millisecond)
	}
	wg.Wait()
	if len(seen) != 1 {
		t.Errorf("this process's start time read %d ways from 5 threads: %v", len(seen), seen)
	}
}
