package schedule

import (
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// account measures, in a worker, where the time of its CPUs went during a
// block: the CPUs' idle time (cpuidle residency), the worker's own CPU time
// and its reaped children's (getrusage: the sides, partners, a probe's
// runtime), and steal. What is left was other work on the measured CPUs —
// seen per block, so a contended block is re-run or flagged, never averaged
// in (Options.ContentionLimit).
type account struct {
	cpus, others  []int
	clock, oclock host.CPUClock
	own           int64
	ipis          int64 // wake-up IPIs of cpus (host.ReadWakeupIPIs)
}

func beginAccount() account {
	cpus, _ := host.Of(0)
	others := host.OtherCPUs(cpus)
	return account{cpus: cpus, others: others, clock: host.ReadCPUClock(cpus), oclock: host.ReadCPUClock(others), own: host.OwnCPU(),
		ipis: host.ReadWakeupIPIs(cpus)}
}

func (a account) end() *model.Contention {
	own := host.OwnCPU()
	c := host.ReadCPUClock(a.cpus)
	ipis := host.ReadWakeupIPIs(a.cpus)
	ct := &model.Contention{
		WallNS: c.At.Sub(a.clock.At).Nanoseconds(), CPUs: a.cpus,
		IdleNS: c.IdleNS - a.clock.IdleNS, OwnNS: own - a.own, StealNS: c.StealNS - a.clock.StealNS,
		IdlePrecise: c.IdlePrecise && a.clock.IdlePrecise, WakeupIPIs: -1,
	}
	if ipis >= 0 && a.ipis >= 0 {
		ct.WakeupIPIs = ipis - a.ipis
	}
	if len(a.others) > 0 {
		o := host.ReadCPUClock(a.others)
		// Not idle is busy: cpuidle's residency counts in microseconds
		// where /proc/stat's busy ticks (10 ms) are coarser than a block.
		if wall := o.At.Sub(a.oclock.At).Nanoseconds() * int64(len(a.others)); wall > 0 {
			ct.NeighbourBusy = min(1, max(0, 1-float64(o.IdleNS-a.oclock.IdleNS)/float64(wall)))
		}
	}
	return ct
}
