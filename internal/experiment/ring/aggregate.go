package ring

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Aggregate turns the blocks of one point into a result.Ring: per-hop
// samples of the ring and of the one-context overheads, their differences
// block by block (never clamped), the hop counts against the expected, the
// switches per hop, and where N × working set sits against the caches.
func Aggregate(c Cell, run schedule.CellRun, env result.Environment, host string) result.Ring {
	resps := make([]model.Response, len(run.Blocks))
	for i, b := range run.Blocks {
		resps[i] = b.Resp
	}
	r := result.Ring{
		Name: c.Bench.Name, Kind: string(c.Kind), Placement: string(c.Placement),
		Tasks: c.Tasks, WorkingSetB: c.WorkingSet, FootprintB: int64(c.Tasks) * c.WorkingSet,
		Blocks: len(resps), Flags: []result.Flag{}, Settings: append([]string(nil), c.Bench.Settings...),
	}
	if c.Kind != Goroutine {
		r.Settings = append(r.Settings, "links: "+c.IPC.String())
	}
	b := readBlocks(&r, c, resps)
	b.summarize(&r)
	r.HopsCounted, r.HopsExpected = b.counted, b.expected
	r.Verified = len(resps) > 0
	if b.counted != b.expected || b.uneven != "" {
		r.Verified = false
		r.Flags = append(r.Flags, result.Flag{Code: "hop-count", Message: fmt.Sprintf("%.0f hops counted, %.0f expected (tasks × rounds)%s", b.counted, b.expected, b.uneven)})
	}
	verifyRingSwitches(&r, c, b.switches, b.expected)
	perfPerHop(&r, c, run.Perf)
	if r.NetNS <= 0 {
		r.Flags = append(r.Flags, result.Flag{Code: "net-nonpositive", Message: fmt.Sprintf(
			"net %s per hop: the one-context overhead (%s) costs as much as or more than a whole ring hop (%s), so the subtraction says nothing about the switch; read raw and overhead instead (lmbench's own table has such entries)",
			units.SignedTime(r.NetNS), units.Time(r.OverheadNS.Median), units.Time(r.RawNS.Median))})
	}
	r.FitsIn, r.LLCBytes = fits(r.FootprintB, env.CPU.Caches)
	describe(&r, c, resps)
	for _, resp := range resps {
		if len(resp.Flags) > 0 {
			r.Verified = false
			r.Flags = append(r.Flags, resp.Flags[0])
			break
		}
	}
	var contended *result.Flag
	r.BlockInfo, contended = experiment.Blocks(run.Blocks)
	if contended != nil {
		r.Flags = append(r.Flags, *contended)
		r.Verified = false
	}
	r.Label = Label(c, r, host)
	return r
}

// ringBlocks are a point's blocks read once: per-hop samples of the ring
// (ns and TSC), of the one-context overhead (ns and TSC) and of the hot
// overhead, in blocks of sizes samples (blocks are the unit of every
// interval); the hops counted and expected, how unevenly the members
// passed the token, the switches counted, and whether every sample had
// TSC readings.
type ringBlocks struct {
	raw, rawCyc, ovh, ovhCyc, hot []float64
	sizes                         []int
	counted, expected             float64
	uneven                        string
	switches                      int64
	tscOK                         bool
}

// readBlocks reads the blocks' responses, and sets r's rounds per sample
// and its voluntary and involuntary switches.
func readBlocks(r *result.Ring, c Cell, resps []model.Response) ringBlocks {
	b := ringBlocks{sizes: make([]int, len(resps)), tscOK: true}
	for bi, resp := range resps {
		b.sizes[bi] = len(resp.NS)
		d := resp.Ring
		perSample := float64(d.RoundsPerSample) * float64(c.Tasks)
		r.RoundsPerSample = append(r.RoundsPerSample, d.RoundsPerSample)
		for i := range resp.NS {
			b.raw = append(b.raw, float64(resp.NS[i])/perSample)
			b.rawCyc = append(b.rawCyc, float64(resp.TSC[i])/perSample)
			b.ovh = append(b.ovh, float64(d.OverheadNS[i])/perSample)
			b.ovhCyc = append(b.ovhCyc, float64(d.OverheadTSC[i])/perSample)
			b.hot = append(b.hot, float64(d.HotNS[i])/perSample)
			if resp.TSC[i] == 0 || d.OverheadTSC[i] == 0 {
				b.tscOK = false
			}
		}
		// Hops: the head counts its rounds, every member its passes; the
		// token's own count was checked against N × rounds by the kernel.
		b.counted += float64(d.Rounds + d.Passes)
		b.expected += float64(c.Tasks) * float64(d.Rounds)
		if c.Tasks > 1 && (d.MinPasses != d.Rounds || d.MaxPasses != d.Rounds) && b.uneven == "" {
			b.uneven = fmt.Sprintf("; members passed the token %d to %d times in a block of %d rounds, once per round expected", d.MinPasses, d.MaxPasses, d.Rounds)
		}
		r.Voluntary += resp.A.Voluntary + resp.B.Voluntary
		r.Involuntary += resp.A.Involuntary + resp.B.Involuntary
		b.switches += resp.A.Switches() + resp.B.Switches()
	}
	return b
}

// summarize sets r's samples, their summaries and the nets (in TSC cycles
// too where every sample had them).
func (b ringBlocks) summarize(r *result.Ring) {
	r.Samples, r.OverheadSamples = b.raw, b.ovh
	r.RawNS, r.OverheadNS = stats.SummarizeBlocks(b.raw, b.sizes), stats.SummarizeBlocks(b.ovh, b.sizes)
	hs := stats.SummarizeBlocks(b.hot, b.sizes)
	r.OverheadHotNS = &hs
	r.NetNS, r.NetInterval = net(b.raw, b.ovh, b.sizes)
	netHot, _ := net(b.raw, b.hot, b.sizes)
	r.NetHotNS = &netHot
	if b.tscOK && len(b.rawCyc) > 0 {
		rc, oc := stats.SummarizeBlocks(b.rawCyc, b.sizes), stats.SummarizeBlocks(b.ovhCyc, b.sizes)
		r.RawCycles, r.OverheadCycles = &rc, &oc
		nc, _ := net(b.rawCyc, b.ovhCyc, b.sizes)
		r.NetCycles = &nc
	}
}

// describe sets where the point ran and the settings its blocks reported
// (the Go runtime's GOMAXPROCS, the container runtime), and warns of a
// noisy figure and of an odd ring across two CPUs.
func describe(r *result.Ring, c Cell, resps []model.Response) {
	if c.Placement != model.Unpinned && c.CPUA >= 0 {
		r.CPUs = []int{c.CPUA}
		if c.Tasks > 1 && c.CPUB != c.CPUA {
			r.CPUs = append(r.CPUs, c.CPUB)
		}
	}
	if len(resps) > 0 && resps[0].GOMAXPROCS > 0 {
		for i, s := range r.Settings {
			if strings.HasPrefix(s, "GOMAXPROCS=CPUs") {
				r.Settings[i] = fmt.Sprintf("GOMAXPROCS=%d", resps[0].GOMAXPROCS)
			}
		}
	}
	if r.RawNS.CV >= CVWarn {
		r.Warnings = append(r.Warnings, result.Warning{Code: "noise-cv", Message: fmt.Sprintf("high variation (CV %.0f%%): the median is robust, the mean is not", 100*r.RawNS.CV)})
	}
	if c.Placement.TwoCPUs() && c.Tasks%2 == 1 && c.Kind != Goroutine {
		r.Warnings = append(r.Warnings, result.Warning{Code: "odd-cross-cpu", Message: "odd ring on two CPUs: the hop from the last member back to the head stays on one CPU"})
	}
	if len(resps) > 0 && resps[0].Ring.Container != "" {
		r.Settings = append(r.Settings, "container: "+resps[0].Ring.Container)
	}
}

// net is raw − base per hop, taken block by block (both are timed in
// every sample of a block, so a block's host noise reaches both): the
// median of the per-block differences of block medians, with its interval
// — the figure the interval belongs to and the tables print; the
// difference of the two medians can lie outside it. With fewer than two
// blocks there is no interval, and the figure is the difference of the
// medians (with one block, the same number). Never clamped. The point's
// three nets (against the overhead, the hot overhead, and in TSC cycles)
// are all taken this way.
func net(raw, base []float64, sizes []int) (float64, *result.Interval) {
	rounds := make([]int, len(sizes))
	for i := range rounds {
		rounds[i] = i // raw and base come from the same blocks: pair them block by block
	}
	w := stats.PerRound(func(m []float64) float64 { return m[0] - m[1] },
		stats.Series{Values: raw, Sizes: sizes, Rounds: rounds}, stats.Series{Values: base, Sizes: sizes, Rounds: rounds})
	if !w.OK {
		return stats.SummarizeBlocks(raw, sizes).Median - stats.SummarizeBlocks(base, sizes).Median, nil
	}
	return w.Median, &result.Interval{Median: w.Median, Low: w.Lo, High: w.Hi, Confidence: w.Confidence, Rounds: w.N}
}

// verifyRingSwitches sets the switches per hop and their figures per
// switch, and flags a ring whose hops did not all switch.
func verifyRingSwitches(r *result.Ring, c Cell, switches int64, expected float64) {
	if expected > 0 {
		perHop := float64(switches) / expected
		if c.Bench.ExpectSwitch {
			r.SwitchesPerHop = &perHop
			if perHop > 0 {
				raw, net := r.RawNS.Median/perHop, r.NetNS/perHop
				r.RawNSPerSwitch, r.NetNSPerSwitch = &raw, &net
				r.RawPerSwitchInterval = &result.Interval{Median: raw, Low: r.RawNS.CILow / perHop, High: r.RawNS.CIHigh / perHop,
					Confidence: r.RawNS.Confidence, Rounds: r.RawNS.Blocks}
				if iv := r.NetInterval; iv != nil {
					r.NetPerSwitchInterval = &result.Interval{Median: iv.Median / perHop, Low: iv.Low / perHop, High: iv.High / perHop,
						Confidence: iv.Confidence, Rounds: iv.Rounds}
				}
			}
			// A ring hop is verified when it switched at least once: a
			// token that arrives before its reader sleeps is no switch.
			// More than one per hop is the scheduler's order on one CPU
			// (the woken member preempts the waker, which runs again only
			// to block): reported, not flagged, since every hop did switch.
			switch {
			case perHop < 1-SwitchTolerance:
				r.Verified = false
				r.Flags = append(r.Flags, switchFlag(c, perHop, r.Voluntary, r.Involuntary))
			case perHop > 1+SwitchTolerance:
				r.Warnings = append(r.Warnings, result.Warning{Code: "switches-above-one", Message: switchFlag(c, perHop, r.Voluntary, r.Involuntary).Message})
			}
		} else {
			r.OSSwitchesPerHop = &perHop
		}
	}
}

// perfPerHop sets the perf block's switches, instructions and cycles per
// hop, where every side counted them.
func perfPerHop(r *result.Ring, c Cell, perf *model.Response) {
	if perf != nil && perf.Ring != nil && perf.Ring.Rounds > 0 {
		hops := float64(c.Tasks) * float64(perf.Ring.Rounds)
		// Every side must have counted: a missing members' count would
		// divide the head's alone by all the hops.
		if perf.A.PerfSwitches >= 0 && perf.B.PerfSwitches >= 0 {
			x := float64(perf.A.PerfSwitches+perf.B.PerfSwitches) / hops
			r.PerfSwitchesPerHop = &x
		}
		if perf.A.PerfInstructions >= 0 && perf.B.PerfInstructions >= 0 {
			x := float64(perf.A.PerfInstructions+perf.B.PerfInstructions) / hops
			r.InstructionsPerHop = &x
		}
		if perf.A.PerfCycles >= 0 && perf.B.PerfCycles >= 0 {
			x := float64(perf.A.PerfCycles+perf.B.PerfCycles) / hops
			r.CyclesPerHop = &x
		}
	}
}

func switchFlag(c Cell, perHop float64, vol, invol int64) result.Flag {
	f := result.Flag{Code: "switch-count"}
	if perHop < 1-SwitchTolerance {
		f.Message = fmt.Sprintf("%.2f switches per hop, fewer than one: some members found the token already there and never blocked; those hops were not context switches", perHop)
		return f
	}
	share := 0.0
	if vol+invol > 0 {
		share = float64(invol) / float64(vol+invol)
	}
	f.Message = fmt.Sprintf("%.2f switches per hop, more than one (%.0f%% involuntary): a woken member preempted the one that woke it inside write(), which later ran again only to block, or other tasks took the CPU; the figure is still the cost per hop of this ring", perHop, 100*share)
	if c.Placement == model.Unpinned {
		f.Message += "; unpinned members also migrate"
	}
	return f
}

// fits names the smallest data cache that holds the footprint, and the
// last level's size. With no working set the question does not arise.
func fits(footprint int64, caches []result.Cache) (string, int64) {
	var llc int64
	best := ""
	for _, c := range caches {
		if c.Type == "Instruction" {
			continue
		}
		if c.SizeBytes > llc {
			llc = c.SizeBytes
		}
	}
	if footprint == 0 {
		return "", llc
	}
	for lvl := 1; lvl <= 4 && best == ""; lvl++ {
		for _, c := range caches {
			if c.Level == lvl && c.Type != "Instruction" && c.SizeBytes >= footprint {
				best = fmt.Sprintf("L%d", lvl)
				if lvl == 1 {
					best = "L1d"
				}
			}
		}
	}
	if best == "" {
		if llc == 0 {
			return "", 0
		}
		best = "memory"
	}
	return best, llc
}

// Label is the description of a ring point.
func Label(c Cell, r result.Ring, host string) model.Label {
	link := "pipes"
	if c.IPC == model.RingEventfd {
		link = "eventfds"
	}
	what := map[Kind]string{
		Goroutine: "goroutines passing an 8-byte token through one-slot channels",
		Thread:    "threads of one process passing an 8-byte token through " + link,
		Process:   "single-threaded processes passing an 8-byte token through " + link + " (separate address spaces)",
		ProcessMT: "multi-threaded (Go) processes passing an 8-byte token through " + link + " (separate address spaces)",
		Container: "single-threaded processes passing an 8-byte token through " + link + ", all but the timing head each in a container of its own",
	}[c.Kind]
	l := model.Label{What: fmt.Sprintf("ring of %d %s", c.Tasks, what), Workload: "no working set", Settings: r.Settings, Host: host}
	if c.WorkingSet > 0 {
		ws := fmt.Sprintf("%s summed per context per pass (%s in all", result.SizeLabel(c.WorkingSet), result.SizeLabel(r.FootprintB))
		if r.FitsIn != "" {
			ws += ": " + map[bool]string{true: "beyond the last-level cache", false: "fits in " + r.FitsIn}[r.FitsIn == "memory"]
		}
		l.Workload = ws + ")"
	}
	switch c.Placement {
	case model.SameCPU:
		l.Placement = fmt.Sprintf("all on one CPU (%d)", c.Affinity[0])
	case model.CrossCPU, model.SMTSibling, model.SameLLC, model.OtherLLC, model.OtherNode, model.OtherPackage, model.PToE:
		if c.CPUA >= 0 {
			l.Placement = fmt.Sprintf("alternating between CPUs %d and %d", c.CPUA, c.CPUB)
		} else {
			l.Placement = fmt.Sprintf("on CPUs %v, the runtime choosing", c.Affinity)
		}
		if c.Level != "" {
			l.Placement += fmt.Sprintf(" (%s: %s)", c.Level, c.LevelWords)
		}
	default:
		l.Placement = fmt.Sprintf("unpinned among CPUs %v", c.Affinity)
	}
	return l
}

// SwitchTolerance is how far switches per hop may be from one before a
// figure is flagged.
const SwitchTolerance = 0.05

// CVWarn is the coefficient of variation above which a point gets a noise
// warning.
const CVWarn = 0.10
