package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/testenv/quiet"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
)

func needTracing(t *testing.T) {
	t.Helper()
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
}

// attachDoc runs ctxbench attach with args and decodes its document.
func attachDoc(t testing.TB, args ...string) (*result.Document, string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"attach", "--export-json", "-", "--no-history"}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("attach %v: %v\n%s", args, err, stderr.String())
	}
	doc, err := result.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Attach == nil {
		t.Fatal("no attach section")
	}
	return doc, stderr.String()
}

// A target that does not exist, a duration of zero or below, or no target
// at all: one line on stderr, exit 2, nothing loaded.
func TestAttachRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--pid", "999999999"}, {"--pid", "0"}, {"--pid", "-4"}, {"--pid", "x"},
		{"--cgroup", "ctxbench-no-such-cgroup"}, {"--cgroup", "/tmp"},
		{"--pid", "1", "--duration", "0"}, {"--pid", "1", "--duration", "-2s"}, {"--pid", "1", "--window", "0"},
		{}, {"--all", "--pid", "1"}, {"--pid", "1", "--probes", "most"}, {"--check", "--pid", "1"}, {"--pid", "1", "--check-rate", "5"},
	} {
		cmd := exec.Command(bin, append([]string{"attach"}, args...)...)
		out, _ := cmd.CombinedOutput()
		msg := strings.TrimSpace(string(out))
		if cmd.ProcessState.ExitCode() != 2 || msg == "" || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
			t.Errorf("attach %v: exit %d, output %q: want exit 2 and one line", args, cmd.ProcessState.ExitCode(), msg)
		}
	}
}

// --check: on ctxbench's own known workload the switch rate agrees with
// its /proc counters within 5%; its direct cost per switch lies within 25%
// of the attach's reading of the ladder's thread/pipe hop measured in the
// same sitting; at 50,000 hops per second the attach takes at most 10% of
// its throughput; the JSON names what the contract says; nothing stays
// loaded. Judged on quiet CPUs (a neighbour's burst takes the workload's
// CPU and its throughput with it).
func TestAttachCheckOnTheKnownWorkload(t *testing.T) {
	needTracing(t)
	needCPUs(t, 2)
	quiet.Run(t, func(t testing.TB) {
		doc, _ := attachDoc(t, "--check", "--check-rate", "50000", "--check-rounds", "6", "--duration", "3s")
		a := doc.Attach
		c := a.Check
		if c == nil || len(a.Targets) != 1 {
			t.Fatalf("check %v, %d targets", c, len(a.Targets))
		}
		tg := a.Targets[0]
		if math.Abs(tg.Proc.Agreement-1) > 0.05 {
			t.Errorf("the switches counted are %.3f of the workload's /proc counters'", tg.Proc.Agreement)
		}
		if math.Abs(c.AchievedPerS/c.HopsPerS-1) > 0.05 || math.Abs(tg.SwitchesPerS.Value/c.HopsPerS-1) > 0.05 {
			t.Errorf("stated %v hops/s, made %v, switches counted %v/s", c.HopsPerS, c.AchievedPerS, tg.SwitchesPerS.Value)
		}
		if c.RatioToLadderSwitch < 0.75 || c.RatioToLadderSwitch > 1.25 {
			t.Errorf("the workload's direct cost per switch is %.3f of the ladder's thread/pipe switch's (%v)", c.RatioToLadderSwitch, c.LadderNsPerSwitch)
		}
		if !(c.LadderTracedNs.Median > c.LadderOneWayNs.Median && c.LadderNsPerSwitch.Median > 0 && c.LadderNsPerSwitch.Median < c.LadderTracedNs.Median) {
			t.Errorf("ladder hop untraced %v, traced %v, its switches' direct cost %v", c.LadderOneWayNs, c.LadderTracedNs, c.LadderNsPerSwitch)
		}
		if k := c.ThroughputCost; k.Rounds != 6 || k.Median > 0.10 || !(k.Low <= k.Median && k.Median <= k.High) {
			t.Errorf("the attach took %+v of the workload's throughput: want at most 10%%, with its interval", k)
		}
		if tg.NsPerSwitch.Value <= 0 || tg.ShareLost.Value <= 0 || tg.ShareLost.Value >= 1 || tg.Closure < 0.99 || len(tg.Phases) < 3 {
			t.Errorf("ns per switch %v, share lost %v, closure %v, %d phases", tg.NsPerSwitch, tg.ShareLost, tg.Closure, len(tg.Phases))
		}
		if o := a.Overhead; !o.StatsOn || o.NsPerSwitch <= 0 || len(o.Programs) < 4 || o.CPUShare.Windows < 2 {
			t.Errorf("overhead %+v", o)
		}
		if a.Indirect.Method == "" || (a.Indirect.Share == nil) == a.Indirect.Available {
			t.Errorf("indirect %+v: a figure only with its method, never without", a.Indirect)
		}
	})
	noProgramsLeft(t)
	assertNothingLeft(t)
}

// Contract: the JSON names the switch rate, the direct cost per switch,
// the share lost and the attach's overhead.
func TestAttachContractNames(t *testing.T) {
	needTracing(t)
	cmd := exec.Command(bin, "attach", "--all", "--duration", "1s", "--window", "250ms", "--export-json", "-", "--no-history", "-q")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"switches_per_s"`, `"ns_per_switch"`, `"share_lost"`, `"overhead"`} {
		if !bytes.Contains(out, []byte(name)) {
			t.Errorf("the JSON has no %s", name)
		}
	}
	doc, err := result.Decode(out)
	if err != nil || doc.Attach == nil || len(doc.Attach.Targets) != 1 || doc.Attach.Targets[0].Kind != "all" {
		t.Fatalf("%v %+v", err, doc)
	}
	// The machine's own count (ctxt) holds every switch, to and from idle:
	// set like against like, the programs count the same.
	if ag := doc.Attach.Targets[0].Proc.Agreement; math.Abs(ag-1) > 0.05 {
		t.Errorf("--all counted %.3f of /proc/stat's switches", ag)
	}
	noProgramsLeft(t)
}

// A target that exits mid-run ends the attach early with a summary of
// what was seen (exit 0), its exit time stated.
func TestAttachTargetThatExits(t *testing.T) {
	needTracing(t)
	// A shell that blocks 200 times in wait for a sleep: about 2 s of
	// voluntary switches, then gone.
	sh := exec.Command("sh", "-c", `i=0; while [ $i -lt 200 ]; do sleep 0.01; i=$((i+1)); done`)
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = sh.Wait(); close(done) }()
	defer func() { _ = sh.Process.Kill(); <-done }()
	start := time.Now()
	doc, _ := attachDoc(t, "--pid", strconv.Itoa(sh.Process.Pid), "--duration", "60s", "--window", "200ms")
	if time.Since(start) > 30*time.Second {
		t.Errorf("the attach outlived its target by %v", time.Since(start))
	}
	a := doc.Attach
	tg := a.Targets[0]
	if a.Ended != "targets exited" || tg.ExitedAfterSeconds == nil || tg.Switches == 0 || len(a.Notes) == 0 {
		t.Errorf("ended %q, exited after %v, %d switches, notes %v", a.Ended, tg.ExitedAfterSeconds, tg.Switches, a.Notes)
	}
	noProgramsLeft(t)
}

// Ctrl-C, SIGTERM or SIGKILL of an attach leave no program attached:
// nothing is pinned, so the programs go with the process.
func TestAttachInterruptedLeavesNothing(t *testing.T) {
	needTracing(t)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, os.Kill} {
		cmd := exec.Command(bin, "attach", "--all", "--duration", "5m", "--no-history", "-q")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for !attached(t) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !attached(t) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatal("not attached within 20 s")
		}
		_ = cmd.Process.Signal(sig)
		_ = cmd.Wait()
		if sig != os.Kill && cmd.ProcessState.ExitCode() != 130 {
			t.Errorf("%v: exit %d, want 130", sig, cmd.ProcessState.ExitCode())
		}
		noProgramsLeft(t)
	}
	assertNothingLeft(t)
}

// attached says an attach's programs are loaded (ctxb_in_*).
func attached(t *testing.T) bool {
	for _, p := range ourPrograms(t) {
		if strings.HasPrefix(p, "ctxb_in_") {
			return true
		}
	}
	return false
}

// The pool experiment's throwaway PostgreSQL, in a cpu cgroup of its own,
// under pgbench at two pool sizes: the attach counts the switches the
// backends' own counters count, within 5%, and names every backend. The
// views are logged (docs/inplace.md's worked example is such a run).
func TestAttachPostgresUnderLoad(t *testing.T) {
	needTracing(t)
	needCPUs(t, 2)
	h, err := container.CPUHierarchy()
	if err != nil {
		testenv.Skip(t, testenv.CgroupCPU, "no cpu cgroup controller: %v", err)
	}
	binDir, err := pgserver.FindBinDir()
	if err != nil {
		testenv.Skip(t, testenv.Postgres, "%v", err)
	}
	ctx := context.Background()
	srv, err := pgserver.Start(ctx, pgserver.Options{MaxConnections: 120, Rows: 10000, CPUs: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	cg := filepath.Join(h.Mount, fmt.Sprintf("%s%d-attach", container.NamePrefix, os.Getpid()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Stop() // its processes leave the cgroup empty
		for end := time.Now().Add(10 * time.Second); os.Remove(cg) != nil && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		}
	}()
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(srv.Pid())), 0); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "q.sql")
	if err := os.WriteFile(script, []byte("\\set id random(1, 10000)\nSELECT name FROM names WHERE id = :id;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(strings.Fields(srv.DSN)[0], "host=")
	for _, clients := range []int{8, 64} {
		pgb := exec.Command("taskset", "-c", "1", filepath.Join(binDir, "pgbench"), "-n", "-h", host, "-U", "bench", "-f", script,
			"-M", "prepared", "-c", strconv.Itoa(clients), "-j", "1", "-T", "12", "postgres")
		var pout bytes.Buffer
		pgb.Stdout, pgb.Stderr = &pout, &pout
		if err := pgb.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Second) // its connections open: every backend is there before the first window
		doc, _ := attachDoc(t, "--cgroup", filepath.Base(cg), "--duration", "4s")
		_ = pgb.Wait()
		tg := doc.Attach.Targets[0]
		t.Logf("pool %d: %.0f switches/s (its /proc: %.0f/s), %.0f ns per switch, share lost %.3f, %d processes; pgbench: %s",
			clients, tg.SwitchesPerS.Value, tg.Proc.SwitchesPerS, tg.NsPerSwitch.Value, tg.ShareLost.Value, tg.Processes, lastLine(pout.String()))
		if tg.Switches == 0 || math.Abs(tg.Proc.Agreement-1) > 0.05 {
			t.Errorf("pool %d: %d switches, %.3f of the backends' own counters", clients, tg.Switches, tg.Proc.Agreement)
		}
		if tg.Processes < clients+1 {
			t.Errorf("pool %d: %d processes in the cgroup, want the postmaster and every backend", clients, tg.Processes)
		}
	}
	noProgramsLeft(t)
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return l[len(l)-1]
}
