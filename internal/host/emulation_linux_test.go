package host

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// Emulation tells qemu-user by a thread's exe link and any other emulator
// by the kernel's architecture, on recorded trees; and on this machine it
// agrees with what the kernel says of itself.
func TestEmulation(t *testing.T) {
	own := kernelArch[runtime.GOARCH]
	if own == "" {
		t.Fatalf("no kernel name known for %s: add it to kernelArch", runtime.GOARCH)
	}
	other := "aarch64"
	if own == other {
		other = "x86_64"
	}
	tree := func(karch, exe string) Root {
		root := t.TempDir()
		if karch != "" {
			p := filepath.Join(root, "proc/sys/kernel/arch")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(karch+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if exe != "" {
			p := filepath.Join(root, "proc/self/task", strconv.Itoa(unix.Gettid()), "exe")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(exe, p); err != nil {
				t.Fatal(err)
			}
		}
		return Root(root)
	}
	for _, c := range []struct {
		karch, exe, want string
	}{
		{own, "/usr/local/bin/ctxbench", ""},
		{"", "", ""},
		{other, "/usr/libexec/qemu-binfmt/aarch64-binfmt-P", "emulated"},
		{other, "/usr/bin/qemu-aarch64-static", "qemu-user"},
		{"", "/usr/bin/qemu-aarch64", "qemu-user"},
	} {
		// The thread must stay the one whose exe link the tree holds.
		runtime.LockOSThread()
		name, why := Emulation(tree(c.karch, c.exe))
		runtime.UnlockOSThread()
		if name != c.want || (name == "") != (why == "") {
			t.Errorf("kernel %q, exe %q: %q (%q), want %q", c.karch, c.exe, name, why, c.want)
		}
	}
	name, why := Emulation("/")
	karch := Root("/").Read("proc/sys/kernel/arch")
	if karch != "" && (name != "") != (karch != own) {
		t.Errorf("this machine: kernel %s, built for %s, Emulation says %q (%s)", karch, runtime.GOARCH, name, why)
	}
	t.Logf("this machine: %q %s", name, why)
}
