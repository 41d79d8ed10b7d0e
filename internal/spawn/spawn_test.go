package spawn

import (
	"bytes"
	"debug/elf"
	"runtime"
	"testing"

	"github.com/ctxbench/ctxbench/internal/container"
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

func assertNothingLeft(t *testing.T) {
	t.Helper()
	if left := childrenLeft(); left != "" {
		t.Errorf("child processes left: %s", left)
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
