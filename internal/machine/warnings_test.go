package machine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/result"
)

// haltpoll finds the haltpoll warning.
func haltpoll(t *testing.T, ws []result.Warning) result.Warning {
	t.Helper()
	for _, w := range ws {
		if w.Code == "haltpoll" {
			return w
		}
	}
	t.Fatalf("no haltpoll warning in %+v", ws)
	return result.Warning{}
}

// The haltpoll warning says what the guest's idle vCPUs do, from the
// governor's real poll limit: polling for so long, or not polling at all
// (then a cross-CPU wake-up of an idle vCPU is a halt and a trip through
// the host). sysfs is the value in force; the boot command line is read
// where sysfs does not say.
func TestHaltpollWarningReadsThePollLimit(t *testing.T) {
	env := result.Environment{Idle: result.IdleInfo{Driver: "haltpoll"}}

	on := fakeRoot(t, map[string]string{"sys/module/haltpoll/parameters/guest_halt_poll_ns": "200000\n"})
	w := haltpoll(t, warnings(env, host.Root(on)))
	if !strings.Contains(w.Message, "polling is on (guest_halt_poll_ns=200000, sysfs)") || !strings.Contains(w.Message, "polls for up to 200 µs") {
		t.Errorf("polling configured: %q", w.Message)
	}

	off := fakeRoot(t, map[string]string{"sys/module/haltpoll/parameters/guest_halt_poll_ns": "0\n"})
	w = haltpoll(t, warnings(env, host.Root(off)))
	if !strings.Contains(w.Message, "polling is off (guest_halt_poll_ns=0, sysfs)") || !strings.Contains(w.Message, "a halt and a trip through the host") ||
		strings.Contains(w.Message, "polls before") || strings.Contains(w.Message, "hides") {
		t.Errorf("polling off: %q", w.Message)
	}

	// Booted with polling off, no sysfs parameter to read; what follows
	// "--" is init's, not the kernel's.
	boot := env
	boot.Cmdline = "console=ttyS0 haltpoll.guest_halt_poll_ns=0 quiet -- haltpoll.guest_halt_poll_ns=5"
	w = haltpoll(t, warnings(boot, host.Root(t.TempDir())))
	if !strings.Contains(w.Message, "polling is off (guest_halt_poll_ns=0, kernel command line)") {
		t.Errorf("polling off on the command line: %q", w.Message)
	}
	// sysfs, writable at run time, wins over the command line.
	w = haltpoll(t, warnings(boot, host.Root(on)))
	if !strings.Contains(w.Message, "polling is on") {
		t.Errorf("sysfs does not win over the command line: %q", w.Message)
	}

	// Neither says: the warning does not claim either.
	w = haltpoll(t, warnings(env, host.Root(t.TempDir())))
	if !strings.Contains(w.Message, "could not be read") || strings.Contains(w.Message, "an idle vCPU polls") {
		t.Errorf("poll limit unknown: %q", w.Message)
	}

	// Another idle driver: no haltpoll warning whatever the parameter.
	for _, x := range warnings(result.Environment{Idle: result.IdleInfo{Driver: "acpi_idle"}}, host.Root(on)) {
		if x.Code == "haltpoll" {
			t.Errorf("a haltpoll warning without the haltpoll driver: %q", x.Message)
		}
	}
}

// How an idle CPU waits is read from the configuration: no driver halts,
// idle=poll polls, haltpoll by its poll limit, any other driver's governor
// chooses (nil).
func TestIdleHalts(t *testing.T) {
	zero, some := uint64(0), uint64(200000)
	for _, c := range []struct {
		driver, cmdline string
		poll            *uint64
		want            string
	}{
		{"none", "quiet", nil, "true"},
		{"none+mwait", "quiet", nil, "nil"}, // the default idle may be MWAIT, which polls
		{"none", "quiet idle=poll", nil, "false"},
		{"none", "quiet -- idle=poll", nil, "true"}, // init's argument, not the kernel's
		{"haltpoll", "", &zero, "true"},
		{"haltpoll", "", &some, "false"},
		{"haltpoll", "", nil, "nil"},
		{"intel_idle", "", nil, "nil"},
		{"", "", nil, "nil"},
	} {
		driver, mwait := strings.CutSuffix(c.driver, "+mwait")
		env := result.Environment{Cmdline: c.cmdline, Idle: result.IdleInfo{Driver: driver, HaltPollNS: c.poll}}
		got := "nil"
		if h := idleHalts(env, mwait); h != nil {
			got = fmt.Sprint(*h)
		}
		if got != c.want {
			t.Errorf("driver %q, cmdline %q, poll %v: halts %s, want %s", c.driver, c.cmdline, c.poll, got, c.want)
		}
	}
}
