package catalog

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/model"
)

// asPlatform runs f with p's answers in place of the running platform's.
func asPlatform(t *testing.T, p platform.Platform, f func()) {
	t.Helper()
	saved := platform.This
	platform.This = p
	defer func() { platform.This = saved }()
	f()
}

// What a darwin build lists, decided by the macOS answers (run here, on
// Linux): every rung, Linux's primitives replaced by macOS's, the
// container and vm rows unavailable with the platform's reason.
func TestListOnDarwin(t *testing.T) {
	asPlatform(t, platform.Darwin, func() {
		rungs := map[model.Rung]int{}
		for _, b := range All() {
			rungs[b.Rung]++
			if _, ok := primitive[b.Name]; ok && strings.Contains(b.Name, "futex") {
				t.Errorf("%s is listed on macOS", b.Name)
			}
			ok, why := b.Available()
			switch b.Rung {
			case model.Container:
				if ok || !strings.Contains(why, "Linux virtual machine") {
					t.Errorf("%s on macOS: available %v, %q", b.Name, ok, why)
				}
			case model.VM:
				if ok || !strings.Contains(why, "KVM is Linux's") {
					t.Errorf("%s on macOS: available %v, %q", b.Name, ok, why)
				}
			}
		}
		for _, r := range []model.Rung{model.Floor, model.Goroutine, model.Runtime, model.Thread, model.Process, model.Container, model.VM, model.Reference} {
			if rungs[r] == 0 {
				t.Errorf("no %s row listed on macOS", r)
			}
		}
		for _, n := range []string{"thread/kqueue-user", "thread/wait-on-address", "process/wait-on-address"} {
			if b := Lookup(n); b == nil || !native(b) {
				t.Errorf("%s is not listed on macOS", n)
			}
		}
		// Asked for by name, a Linux primitive says what stands in for it.
		b := Lookup("thread/futex")
		if ok, why := b.Available(); ok || !strings.Contains(why, "wait-on-address") {
			t.Errorf("thread/futex on macOS: %v %q", ok, why)
		}
		if ok, why := Lookup("thread/eventfd").Available(); ok || !strings.Contains(why, "kqueue") {
			t.Errorf("thread/eventfd on macOS: %v %q", ok, why)
		}
	})
	// Linux lists its own primitives, as before.
	asPlatform(t, platform.Linux, func() {
		names := map[string]bool{}
		for _, b := range All() {
			names[b.Name] = true
		}
		for n := range primitive {
			if Lookup(n).Hidden {
				continue // another experiment's row: never listed
			}
			if gives, _ := platform.Linux.Gives(primitive[n]); gives != names[n] {
				t.Errorf("%s: listed on Linux %v, its primitive there %v", n, names[n], gives)
			}
		}
		if ok, why := Lookup("thread/wait-on-address").Available(); ok || !strings.Contains(why, "futex") {
			t.Errorf("thread/wait-on-address on Linux: %v %q", ok, why)
		}
	})
}
