package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// The runtime rung (and the coroutine rung's C++ and Rust rows): other
// languages' own switches, timed by a probe program in that language
// (probes/, internal/probe). A worker runs the probe pinned like any block;
// the probe calibrates its own samples and prints them in the shared line
// format. Probes are built once, in the parent, before any block (Prepare),
// and cached.

// probeRung puts user-level coroutines (stackful or stackless, no
// scheduler) on the coroutine rung and every runtime's scheduler on the
// runtime rung.
func probeRung(b probe.Bench) model.Rung {
	switch b.Name {
	case "runtime/cpp-coroutine", "runtime/rust-corosensei":
		return model.Coroutine
	}
	return model.Runtime
}

func probePlacements(b probe.Bench) (all, ladder []model.Placement) {
	for _, p := range b.Placements {
		if pl, err := model.ParsePlacement(p); err == nil {
			all = append(all, pl)
		}
	}
	if !b.Ladder || strings.Contains(b.Name, "-ring-") {
		return all, nil // rings are for `ctxbench run runtime`; they are not pair switches
	}
	want := model.SameCPU
	if b.Parallelism == probe.ParallelN {
		want = model.Unpinned
	}
	if slices.Contains(all, want) {
		ladder = []model.Placement{want}
	}
	return all, ladder
}

// workerCPUs is this process's affinity: the placement the runner gave it.
func workerCPUs() []int {
	cpus, _ := host.Of(0)
	return cpus
}

// probeRequest is the probe's full-length request (its own JIT warm-up,
// its bench's number of parked contexts) shaped by the block: samples,
// warm-up, sample length, fixed iterations (--iterations), contexts (--n).
// Not QuickRequest: a short JIT warm-up times the interpreter.
func probeRequest(b probe.Bench, req model.Request) probe.Request {
	r := probe.DefaultRequest(b)
	r.CPUs = workerCPUs()
	if req.Samples > 0 {
		r.Samples = req.Samples
	}
	r.Warmup = max(req.Warmup, 1)
	if t := req.TargetNS; t > 0 {
		r.Target = time.Duration(t)
	}
	if req.Iters > 0 {
		r.Iterations = int64(req.Iters)
	}
	if req.Memory != nil && req.Memory.N > 0 {
		r.Contexts = req.Memory.N
	}
	r.Timeout = 3 * time.Minute
	return r
}

func probeSwitch(b probe.Bench) func(context.Context, model.Request) (model.Response, error) {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		res, err := probe.Run(ctx, probeRequest(b, req))
		if err != nil {
			return model.Response{}, err
		}
		bl := res.Primary()
		r := model.Response{Iters: uint64(bl.Iterations), NS: make([]uint64, len(bl.SamplesNs)), TSC: make([]uint64, len(bl.SamplesNs))}
		for i, v := range bl.SamplesNs {
			r.NS[i] = uint64(v + 0.5)
		}
		r.A.Ops = uint64(bl.Iterations) * uint64(len(bl.SamplesNs))
		r.A.PerfSwitches, r.A.PerfMigrations, r.A.PerfInstructions, r.A.PerfCycles = -1, -1, -1, -1
		// Both sides run in the probe's one process: where its threads were
		// seen (from outside, while it ran) is where both sides ran.
		r.A.CPUsSeen = res.Rusage.CPUsSeen
		r.B = r.A
		r.B.Ops = 0
		if bl.CtxSwitches != nil {
			// The probe counts its whole process over the timed samples,
			// voluntary and involuntary together; the sum is what the
			// verification uses, and switch_method says it is not split.
			r.A.Voluntary = *bl.CtxSwitches
		}
		settings := bl.SettingsList()
		r.Label = &model.Label{What: b.Switched, Mechanism: b.Mechanism, Settings: settings, Stackless: b.Stackless}
		if b.Stackless {
			r.Label.Caveat = "stackless: resumes a heap frame, switches no stack"
		}
		r.SwitchMethod = "the probe's own count of its whole process's OS context switches (voluntary and involuntary " +
			"together, reported under voluntary) over the timed samples"
		r.Evidence = map[string]string{
			"language": string(b.Language),
			"command":  strings.Join(res.Command, " "),
			"settings": strings.Join(settings, " "),
			"probe_process": fmt.Sprintf("%d voluntary and %d involuntary switches, %v user and %v system CPU, max RSS %d KiB, %v wall (wait4 of the whole probe run, start-up included)",
				res.Rusage.Voluntary, res.Rusage.Involuntary, res.Rusage.User, res.Rusage.System, res.Rusage.MaxRSSKiB, res.Wall.Round(time.Millisecond)),
		}
		return r, nil
	}
}

func probeSpawn(b probe.Bench) func(context.Context, model.Request) (model.Response, error) {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		if req.Samples == 0 {
			req.Samples = 10 // enough for a 95% interval of the median
		}
		res, err := probe.Run(ctx, probeRequest(b, req))
		if err != nil {
			return model.Response{}, err
		}
		bl := res.Primary()
		per := bl.PerOpNs()
		r := model.Response{NS: make([]uint64, len(per)), TSC: make([]uint64, len(per))}
		for i, v := range per {
			r.NS[i] = uint64(v + 0.5)
		}
		r.Spawn = &model.SpawnData{Label: b.Mechanism + " — " + strings.Join(bl.SettingsList(), ", "), Op: b.Op,
			Context: "runtime (" + string(b.Language) + ")"}
		return r, nil
	}
}

func probeMemory(b probe.Bench) func(context.Context, model.Request) (model.Response, error) {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		pr := probeRequest(b, req)
		pr.Samples = 1
		if pr.Contexts == 0 && b.Contexts > 0 {
			pr.Contexts = b.Contexts
		}
		res, err := probe.Run(ctx, pr)
		if err != nil {
			return model.Response{}, err
		}
		// The first block is the runtime's own counter; a "VmRSS delta"
		// block, where the probe prints one, is the resident memory.
		var m model.MemoryData
		var notes []string
		for i, bl := range res.Blocks {
			v := bl.BytesPerContext()
			if len(v) == 0 {
				continue
			}
			x := stats.Quantile(v, 0.5)
			switch {
			case i == 0:
				m.Runtime, m.RuntimeMetric = x, bl.Metric
				m.Requested, m.Reached = int(bl.Iterations), int(bl.Iterations)
			case strings.HasPrefix(bl.Metric, "VmRSS delta"):
				m.RSS = x
			}
			notes = append(notes, fmt.Sprintf("%s: %.0f bytes per context", bl.Metric, x))
		}
		if m.RuntimeMetric == "" {
			return model.Response{}, errors.New(b.Name + ": the probe reported no memory figure")
		}
		m.Kind, m.Context = strings.TrimPrefix(b.Name, MemoryPrefix), "runtime ("+string(b.Language)+")"
		m.Label, m.Notes = b.Description+" — "+b.Mechanism, notes
		return model.Response{NS: []uint64{0}, TSC: []uint64{0}, Memory: &m}, nil
	}
}

// probeRows are the runtime and coroutine rungs' rows, one per probe bench
// of internal/probe's table, and the probes' hidden creation and memory
// rows.
func probeRows() []*model.Benchmark {
	var rows []*model.Benchmark
	for _, pb := range probe.All() {
		pb := pb
		avail := func() (bool, string) {
			if emu := emulation(); emu != "" {
				// The probe's toolchain is the host's: its figures would be
				// the host's native ones beside an emulated ladder.
				return false, "emulated by " + emu + ": the " + string(pb.Language) + " toolchain is the host's, and would run natively"
			}
			return pb.Available()
		}
		prepare := func(ctx context.Context) error {
			if ok, _ := avail(); !ok {
				return nil
			}
			_, err := probe.Build(ctx, pb.Language)
			return err
		}
		switch pb.Kind {
		case probe.KindSwitch:
			all, ladder := probePlacements(pb)
			settings := append([]string{}, pb.Settings...)
			rows = append(rows, &model.Benchmark{
				Name: pb.Name, Rung: probeRung(pb), Kind: model.Switch,
				Description: pb.Description, Op: pb.Op, HopsPerOp: float64(pb.HopsPerOp),
				Switched: pb.Switched, Mechanism: pb.Mechanism, Placements: all, Ladder: ladder,
				PlacementNote: "a probe is pinned as a whole process; its runtime places its own threads",
				ExpectSwitch:  pb.KernelSwitch, Settings: settings,
				SelfCalibrating: true, MaxBlocks: probeBlocks, Prepare: prepare,
				Needs: avail, Run: probeSwitch(pb),
			})
		case probe.KindSpawn:
			rows = append(rows, &model.Benchmark{Name: pb.Name, Rung: model.Runtime, Kind: model.RefKind, Hidden: true,
				Description: pb.Description, Op: pb.Op, HopsPerOp: 1, Placements: []model.Placement{model.SameCPU, model.Unpinned},
				SelfCalibrating: true, Prepare: prepare, Needs: avail, Run: probeSpawn(pb)})
		case probe.KindMemory:
			rows = append(rows, &model.Benchmark{Name: pb.Name, Rung: model.Runtime, Kind: model.RefKind, Hidden: true,
				Description: pb.Description, Op: pb.Op, HopsPerOp: 1, Placements: []model.Placement{model.Unpinned},
				Prepare: prepare, Needs: avail, Run: probeMemory(pb)})
		}
	}
	return rows
}

// probeBlocks is how many processes a probe cell runs in: every block
// starts the whole runtime (a JVM, a BEAM), so its interval spans
// invocations of the runtime. Three keep the default ladder within its
// minute on a busy host (six, the fewest for a 95% interval, took it to
// 63 s here, four to 56 s); the interval is then the range of three block
// medians, at 75%, and says so.
const probeBlocks = 3
