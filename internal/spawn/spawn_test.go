package spawn

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

func TestELFIsWellFormed(t *testing.T) {
	// Both architectures' programs are checked on any machine; the one of
	// this machine's architecture is what ExitELF and PauseELF give.
	machines := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	if len(targets) != len(machines) {
		t.Fatalf("programs written for %d architectures, the test knows %d", len(targets), len(machines))
	}
	for arch, tg := range targets {
		for name, code := range map[string][]byte{"exit": tg.exit, "pause": tg.pause} {
			name = arch + " " + name
			prog := ELF(arch, code)
			f, err := elf.NewFile(bytes.NewReader(prog))
			if err != nil {
				t.Fatalf("%s: debug/elf rejects it: %v", name, err)
			}
			if f.Class != elf.ELFCLASS64 || f.Machine != machines[arch] || f.Type != elf.ET_EXEC {
				t.Errorf("%s: class %v machine %v type %v", name, f.Class, f.Machine, f.Type)
			}
			if len(f.Progs) != 2 || f.Progs[0].Type != elf.PT_LOAD || f.Progs[1].Type != elf.PT_GNU_STACK {
				t.Fatalf("%s: program headers %v", name, f.Progs)
			}
			load := f.Progs[0]
			if f.Entry < load.Vaddr || f.Entry >= load.Vaddr+load.Filesz || load.Filesz != uint64(len(prog)) {
				t.Errorf("%s: entry %#x outside the loaded %#x+%d", name, f.Entry, load.Vaddr, load.Filesz)
			}
			if load.Vaddr%load.Align != load.Off%load.Align || load.Align < 0x1000 {
				t.Errorf("%s: segment at %#x, offset %#x, alignment %#x", name, load.Vaddr, load.Off, load.Align)
			}
			if arch == "arm64" && (f.Entry%4 != 0 || len(code)%4 != 0) {
				t.Errorf("%s: arm64 code not in whole aligned words (entry %#x, %d bytes)", name, f.Entry, len(code))
			}
			if f.Progs[1].Flags&elf.PF_X != 0 {
				t.Errorf("%s: executable stack requested", name)
			}
		}
	}
	for name, prog := range map[string][]byte{"exit": ExitELF(), "pause": PauseELF()} {
		f, err := elf.NewFile(bytes.NewReader(prog))
		if err != nil {
			t.Fatalf("this machine's %s program: %v", name, err)
		}
		if f.Machine != machines[runtime.GOARCH] {
			t.Errorf("this machine's %s program is for %v, this is %s", name, f.Machine, runtime.GOARCH)
		}
	}
}

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

func TestLookup(t *testing.T) {
	if _, err := Lookup("nonsense"); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := Run("nonsense", Options{}); err == nil {
		t.Error("Run accepted an unknown kind")
	}
	seen := map[string]bool{}
	contexts := map[string]bool{}
	for _, k := range Kinds() {
		if seen[k.Name] || k.Op == "" {
			t.Errorf("kind %+v: duplicate or undocumented", k.Name)
		}
		seen[k.Name] = true
		contexts[k.Context] = true
	}
	for _, c := range []string{"goroutine", "thread", "process", "container"} {
		if !contexts[c] {
			t.Errorf("no creation kind for %s", c)
		}
	}
}

// TestEveryKindReturnsSamples runs each kind briefly: the requested number
// of positive per-creation samples, and nothing left behind.
func TestEveryKindReturnsSamples(t *testing.T) {
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			if ok, why := k.Available(); !ok {
				testenv.SkipFor(t, why, testenv.Cgo, testenv.Root, testenv.CgroupCPU, testenv.UserNS, testenv.Native)
			}
			if k.heap >= gib {
				testenv.SkipShort(t, "the 1 GiB parent")
			}
			res, err := Run(k.Name, Options{Samples: 3, Warmup: 1, CPU: -1})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Samples) != 3 {
				t.Fatalf("%d samples, want 3", len(res.Samples))
			}
			for _, s := range res.Samples {
				if !(s > 0) {
					t.Errorf("sample %v ns", s)
				}
			}
			if res.Label == "" || res.Op == "" || res.PerSample < 1 {
				t.Errorf("result not labelled: %+v", res)
			}
			assertNothingLeft(t)
		})
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

func assertNothingLeft(t *testing.T) {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range tasks {
		if b, _ := os.ReadFile(f); len(strings.TrimSpace(string(b))) > 0 {
			t.Errorf("child processes left: %s", b)
		}
	}
	if h, err := container.CPUHierarchy(); err == nil {
		if left, _ := container.ListOurs(h); len(left) > 0 {
			t.Errorf("cgroups left: %v", left)
		}
	}
	if d, p := container.Pending(); d != 0 || p != 0 {
		t.Errorf("cleanup registry holds %d dirs, %d processes", d, p)
	}
}
