package host

// Emulation says whether this process runs under a user-mode emulator:
// never on macOS as ctxbench counts it. An x86-64 build on Apple silicon
// runs translated by Rosetta 2 (sysctl.proc_translated), which is not an
// emulator of the kernel's interface: its system calls, switches and
// counter are the Mac's own; the environment records the translation
// (internal/machine).
func Emulation(Root) (name, why string) { return "", "" }
