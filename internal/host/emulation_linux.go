package host

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelArch is how the kernel names each architecture ctxbench is built
// for (uname -m, /proc/sys/kernel/arch).
var kernelArch = map[string]string{"amd64": "x86_64", "arm64": "aarch64"}

// Emulation says whether this process runs under a user-mode emulator and
// how that was told, or "" for both when it runs on its own architecture.
// qemu-user (an arm64 build run on an x86-64 kernel through binfmt_misc or
// qemu-aarch64-static) answers uname and /proc/self/exe as the emulated
// program would, but not a thread's exe link, /proc/self/task/TID/exe,
// which names the program the kernel really runs: the emulator. Any other
// emulator shows as a kernel of another architecture than this build's
// (/proc/sys/kernel/arch).
func Emulation(r Root) (name, why string) {
	own := kernelArch[runtime.GOARCH]
	karch := r.Read("proc/sys/kernel/arch")
	exe, _ := os.Readlink(r.Path("proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/exe"))
	if base := filepath.Base(exe); strings.HasPrefix(base, "qemu-") {
		why = base + " runs this " + runtime.GOARCH + " program"
		if karch != "" {
			why += " on an " + karch + " kernel"
		}
		return "qemu-user", why
	}
	if karch != "" && own != "" && karch != own {
		return "emulated", "this " + runtime.GOARCH + " program runs on an " + karch + " kernel"
	}
	return "", ""
}
