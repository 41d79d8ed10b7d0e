package catalog

import (
	"runtime"
	"strings"
	"testing"
)

// Every row that cannot run here says why in one line. On another
// architecture than x86-64 the vm rows say that their guests are x86-64
// programs; under an emulator the rows whose sides are single-threaded
// processes, the container rows and the runtime probes say the emulator;
// the floor's swap exists on x86-64 and arm64.
func TestAbsencesAreSaid(t *testing.T) {
	emu := emulation()
	for _, b := range All() {
		if b.Needs == nil {
			continue
		}
		ok, why := b.Needs()
		if !ok && (why == "" || strings.ContainsAny(why, "\n")) {
			t.Errorf("%s: unavailable, reason %q: want one line", b.Name, why)
		}
		if ok {
			continue
		}
		switch {
		case strings.HasPrefix(b.Name, "vm/") && runtime.GOARCH != "amd64":
			if !strings.Contains(why, "x86-64 programs") {
				t.Errorf("%s on %s: %q", b.Name, runtime.GOARCH, why)
			}
		case emu != "" && (b.Name == "process/pipe" || b.Name == "process/futex" || strings.HasPrefix(b.Name, "container/") || strings.HasPrefix(b.Name, "runtime/")):
			if !strings.Contains(why, "emulated by "+emu) {
				t.Errorf("%s under %s: %q", b.Name, emu, why)
			}
		case b.Name == "floor/asm-swap" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"):
			t.Errorf("%s unavailable on %s: %q", b.Name, runtime.GOARCH, why)
		}
	}
}
