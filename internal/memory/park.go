package memory

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// ParkSubcommand is the hidden subcommand the CLI dispatches to ParkMain:
//
//	ctxbench __park goroutine N   park N goroutines
//	ctxbench __park thread N      park N OS threads (default attributes)
//	ctxbench __park idle          a Go process that only waits
//
// The child writes JSON lines on stdout: a "base" line once it is up, and
// (goroutine, thread) a "parked" line after it has created its contexts,
// which it does when it reads a line on stdin. It exits when stdin closes.
const ParkSubcommand = "__park"

// SelfCommand builds the command that runs ParkMain in a fresh copy of this
// program. Tests whose TestMain dispatches ParkSubcommand can keep the
// default, which re-executes this binary (host.SelfExe).
var SelfCommand = func(args ...string) *exec.Cmd {
	return exec.Command(host.SelfExe(), append([]string{ParkSubcommand}, args...)...)
}

// goStats is the Go runtime's own account of the child's memory.
type goStats struct {
	StackInuse   uint64 `json:"stack_inuse"`
	Sys          uint64 `json:"sys"`
	HeapInuse    uint64 `json:"heap_inuse"`
	StartingSize uint64 `json:"starting_stack"` // /gc/stack/starting-size:bytes
}

// parkReport is one JSON line from the child.
type parkReport struct {
	Phase    string  `json:"phase"`
	Created  int     `json:"created"`
	CreateNs int64   `json:"create_ns"`
	Err      string  `json:"err,omitempty"`
	Go       goStats `json:"go"`
}

func readGoStats() goStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(s)
	g := goStats{StackInuse: ms.StackInuse, Sys: ms.Sys, HeapInuse: ms.HeapInuse}
	if s[0].Value.Kind() == metrics.KindUint64 {
		g.StartingSize = s[0].Value.Uint64()
	}
	return g
}

// ParkMain is the child side of a memory measurement; args are what
// follows ParkSubcommand. It returns the exit status (2 on bad arguments).
func ParkMain(args []string) int {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "ctxbench "+ParkSubcommand+": want goroutine N, thread N or idle")
		return 2
	}
	kind := args[0]
	n := 0
	if kind != "idle" {
		if len(args) != 2 {
			fmt.Fprintf(os.Stderr, "ctxbench %s %s: want a count\n", ParkSubcommand, kind)
			return 2
		}
		var err error
		n, err = strconv.Atoi(args[1])
		if err != nil || n < 0 {
			fmt.Fprintf(os.Stderr, "ctxbench %s %s: bad count %q\n", ParkSubcommand, kind, args[1])
			return 2
		}
	}
	if kind != "idle" && kind != "goroutine" && kind != "thread" {
		fmt.Fprintf(os.Stderr, "ctxbench %s: unknown kind %q (want goroutine, thread or idle)\n", ParkSubcommand, kind)
		return 2
	}
	out := json.NewEncoder(os.Stdout)
	in := bufio.NewReader(os.Stdin)
	runtime.GC()
	if err := out.Encode(parkReport{Phase: "base", Go: readGoStats()}); err != nil {
		return 1
	}
	if kind == "idle" {
		_, _ = io.Copy(io.Discard, in)
		return 0
	}
	if _, err := in.ReadString('\n'); err != nil {
		return 0 // the parent gave up
	}
	rep := parkReport{Phase: "parked"}
	var release func()
	t0 := time.Now()
	switch kind {
	case "goroutine":
		rep.Created, release = parkGoroutines(n)
	case "thread":
		var err error
		rep.Created, err = kernels.SpawnParkThreads(n, 0)
		if err != nil {
			rep.Err = err.Error()
		}
		release = func() { kernels.SpawnReleaseThreads() }
	}
	rep.CreateNs = time.Since(t0).Nanoseconds()
	runtime.GC()
	rep.Go = readGoStats()
	if err := out.Encode(rep); err != nil {
		release()
		return 1
	}
	_, _ = io.Copy(io.Discard, in)
	release()
	return 0
}

// parkGoroutines starts n goroutines, each blocked on a channel receive,
// and returns once all of them have run up to that receive.
func parkGoroutines(n int) (int, func()) {
	gate := make(chan struct{})
	var started, exited sync.WaitGroup
	started.Add(n)
	exited.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			started.Done()
			<-gate
			exited.Done()
		}()
	}
	started.Wait()
	return n, func() {
		close(gate)
		exited.Wait()
	}
}
