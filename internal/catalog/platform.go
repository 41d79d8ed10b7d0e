package catalog

// platform.go: which rows need what of the platform, decided by its
// answers (internal/host/platform), in one place. A row of one platform's
// own primitive (Linux's futex and eventfd; macOS's wait-on-address and
// kqueue user event) is listed only where the primitive exists, and its
// counterpart stands in its place; a row of a whole rung the platform does
// not have (containers, virtual machines) is listed everywhere, and where
// it cannot run it says why.

import (
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
)

// primitive is the platform primitive of each row that has one.
var primitive = map[string]platform.Mechanism{
	"thread/eventfd":    platform.Eventfd,
	"thread/futex":      platform.Futex,
	"thread/futex-spin": platform.Futex,
	"process/futex":     platform.Futex,
	"process/futex-mt":  platform.Futex,

	// The load generator wakes its contexts through futexes.
	LoadThread:  platform.Futex,
	LoadProcess: platform.Futex,
	LoadWork:    platform.Futex,

	"thread/kqueue-user":      platform.KqueueUser,
	"thread/wait-on-address":  platform.WaitOnAddress,
	"process/wait-on-address": platform.WaitOnAddress,
}

// rungNeeds is what every row of a rung needs of the platform.
var rungNeeds = map[model.Rung]platform.Mechanism{
	model.Container: platform.Containers,
	model.VM:        platform.KVM,
}

// family is the family of C kernels a row runs (kernels.Families), where a
// platform's C kernels may not have it: macOS's have no rings yet.
var family = map[string]string{RingThread: "rings", RingProcess: "rings", RingProcessMT: "rings"}

// platformNeeds puts the platform's answer before b's own checks: what the
// platform does not give is the reason, whatever else is missing too.
func platformNeeds(b *model.Benchmark) {
	if f, ok := family[b.Name]; ok {
		then := b.Needs
		b.Needs = func() (bool, string) {
			if ok, why := then(); !ok {
				return ok, why
			}
			if !kernels.Families()[f] {
				return false, "the " + f + " kernels are in ctxbench's Linux C code only: this platform's C kernels do not have them"
			}
			return true, ""
		}
	}
	m, ok := primitive[b.Name]
	if !ok {
		if m, ok = rungNeeds[b.Rung]; !ok {
			return
		}
	}
	then := b.Needs
	b.Needs = func() (bool, string) {
		if ok, why := platform.This.Gives(m); !ok {
			return false, why
		}
		if then == nil {
			return true, ""
		}
		return then()
	}
}

// native reports whether b belongs to this platform's list: a row of a
// primitive the platform lacks does not (its counterpart does).
func native(b *model.Benchmark) bool {
	m, ok := primitive[b.Name]
	if !ok {
		return true
	}
	gives, _ := platform.This.Gives(m)
	return gives
}
