package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/memory"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/spawn"
)

// Creation cost and memory per context run in workers like every block, as
// hidden entries: a fork from a parent holding 1 GiB, or 100,000 parked
// goroutines, must not happen in the process that runs the harness. Their
// model.Response carries one value per sample in NS (nanoseconds per creation) or
// the measurement as JSON in Facts["result"]; internal/cli turns them into
// the document's spawn and memory sections.

// SpawnPrefix and MemoryPrefix name the hidden entries.
const (
	SpawnPrefix  = "spawn/"
	MemoryPrefix = "memory/"
)

// SpawnKinds lists the creation measurements, VMs included.
func SpawnKinds() []string {
	var out []string
	for _, k := range spawn.Kinds() {
		out = append(out, k.Name)
	}
	out = append(out, "vm")
	for _, pb := range probe.All() {
		if pb.Kind == probe.KindSpawn {
			out = append(out, strings.TrimPrefix(pb.Name, SpawnPrefix))
		}
	}
	return out
}

// MemoryKinds lists the memory measurements, VMs included.
func MemoryKinds() []string {
	var out []string
	for _, k := range memory.Kinds() {
		out = append(out, k.Name)
	}
	out = append(out, "vm")
	for _, pb := range probe.All() {
		if pb.Kind == probe.KindMemory {
			out = append(out, strings.TrimPrefix(pb.Name, MemoryPrefix))
		}
	}
	return out
}

func spawnRun(kind string) func(context.Context, model.Request) (model.Response, error) {
	return func(_ context.Context, req model.Request) (model.Response, error) {
		res, err := spawn.Run(kind, spawn.Options{Samples: req.Samples, Warmup: req.Warmup, CPU: req.CPUA})
		if err != nil {
			return model.Response{}, err
		}
		r := model.Response{NS: make([]uint64, len(res.Samples)), TSC: make([]uint64, len(res.Samples))}
		for i, v := range res.Samples {
			r.NS[i] = uint64(v + 0.5)
		}
		r.Spawn = &model.SpawnData{Label: res.Label, Op: res.Op, Context: res.Context, Notes: res.Notes}
		return r, nil
	}
}

// vmSpawn creates VMs (KVM_CREATE_VM, memory, vCPU, first run to the first
// exit), a few per sample; teardown is not timed.
func vmSpawn(_ context.Context, req model.Request) (model.Response, error) {
	const perSample = 4
	if req.Samples == 0 {
		req.Samples, req.Warmup = 40, 3
	}
	mode := kernels.KVMGuestUser
	blk := kernels.Block{Iters: perSample, Samples: req.Samples, Warmup: req.Warmup, CPUA: req.CPUA, CPUB: -1, Arg: kernels.KVMArg(mode, 0)}
	out, _, err := kernels.KVMRun(kernels.KVMCreate, blk)
	if err != nil {
		return model.Response{}, err
	}
	r := model.Response{NS: make([]uint64, len(out.NS)), TSC: make([]uint64, len(out.NS))}
	for i, ns := range out.NS {
		r.NS[i] = ns / perSample
	}
	d := detectOnce()
	f, _ := kvm.FigureByID("create")
	label := f.What + " — " + d.BackendDescription(kvm.GuestMode(mode), nil)
	r.Spawn = &model.SpawnData{Label: label, Op: f.What, Context: "vm",
		Notes: []string{"a minimal VM, not a booted operating system: no guest kernel, no devices; compare with the claims only as the floor under them"}}
	return r, nil
}

func memoryRun(kind string) func(context.Context, model.Request) (model.Response, error) {
	return func(_ context.Context, req model.Request) (model.Response, error) {
		var p model.MemoryParams
		if req.Memory != nil {
			p = *req.Memory
		}
		res, err := memory.Run(kind, memory.Options{N: p.N, NoSettle: p.NoSettle})
		if err != nil {
			return model.Response{}, err
		}
		m := memoryData(res)
		return model.Response{NS: []uint64{uint64(res.CreateNs)}, TSC: []uint64{0}, Memory: &m}, nil
	}
}

// VMMemory is the memory measurement of minimal VMs, in the same shape as
// memory.Result so the caller treats all kinds alike.
func vmMemory(_ context.Context, req model.Request) (model.Response, error) {
	n := 0
	if req.Memory != nil {
		n = req.Memory.N
	}
	if n == 0 {
		n = 100
	}
	m, err := kernels.KVMMemory(n, kernels.KVMGuestUser, req.CPUA)
	if err != nil {
		return model.Response{}, err
	}
	per, err := kvm.PerVM(m.Before, m.After, m.Created, m.Requested, m.Limit)
	if err != nil {
		return model.Response{}, err
	}
	kb := func(v float64) float64 { return v * 1024 }
	res := memory.Result{Kind: "vm", Context: "vm", Requested: n, Reached: m.Created, Limit: m.Limit,
		Label: fmt.Sprintf("minimal KVM VMs (64 KiB of guest memory touched by a CPL3 guest run to its first exit, one vCPU each) held open by one VMM process — %s", detectOnce().BackendDescription(kvm.GuestUser, nil)),
		Notes: []string{fmt.Sprintf("kernel memory accounted per VM: %.0f KiB (slab %.0f, kernel stack %.0f, KVM page tables %.0f, vmalloc %.0f, percpu %.0f); free memory fell by %.0f KiB per VM (machine-wide)",
			per.KernelAccountedKB, per.SlabKB, per.KernelStackKB, per.SecPageTablesKB, per.VmallocKB, per.PercpuKB, per.MemFreeDropKB)},
	}
	res.Per.RSS, res.Per.PSS, res.Per.Virtual = kb(per.RSSKB), kb(per.PSSKB), kb(per.VirtualKB)
	res.Per.KernelStack, res.Per.PageTables, res.Per.Slab = kb(per.KernelStackKB), kb(per.PageTablesKB+per.SecPageTablesKB), kb(per.SlabKB)
	res.Per.Resident = res.Per.PSS + res.Per.KernelStack + res.Per.PageTables
	d := memoryData(res)
	return model.Response{NS: []uint64{0}, TSC: []uint64{0}, Memory: &d}, nil
}

// memoryData is the wire form of a memory measurement.
func memoryData(m memory.Result) model.MemoryData {
	d := model.MemoryData{Kind: m.Kind, Context: m.Context, Label: m.Label, Requested: m.Requested, Reached: m.Reached, Limit: m.Limit,
		RSS: m.Per.RSS, PSS: m.Per.PSS, Virtual: m.Per.Virtual, KernelStack: m.Per.KernelStack, PageTables: m.Per.PageTables, Slab: m.Per.Slab,
		Charged: m.Per.Charged, ChargedUser: m.Per.ChargedUser, ChargedKernel: m.Per.ChargedKernel,
		Runtime: m.Per.Runtime, RuntimeMetric: m.Per.RuntimeMetric, CreateNS: m.CreateNs, Limits: m.Limits, Notes: m.Notes}
	return d
}

// spawnRows are the hidden creation measurements, one per kind.
func spawnRows() []*model.Benchmark {
	var rows []*model.Benchmark
	for _, k := range spawn.Kinds() {
		rows = append(rows, &model.Benchmark{Name: SpawnPrefix + k.Name, Rung: model.Reference, Kind: model.RefKind, Hidden: true,
			Description: k.Op, Op: "one creation", HopsPerOp: 1, Placements: []model.Placement{model.SameCPU, model.Unpinned},
			Needs: k.Available, Run: spawnRun(k.Name)})
	}
	return append(rows, &model.Benchmark{Name: SpawnPrefix + "vm", Rung: model.VM, Kind: model.RefKind, Hidden: true,
		Description: "a minimal VM created and run to its first exit", Op: "one creation", HopsPerOp: 1,
		Placements: []model.Placement{model.SameCPU, model.Unpinned}, Needs: needsKVM, Run: vmSpawn})
}

// memoryRows are the hidden memory measurements, one per kind.
func memoryRows() []*model.Benchmark {
	var rows []*model.Benchmark
	for _, k := range memory.Kinds() {
		rows = append(rows, &model.Benchmark{Name: MemoryPrefix + k.Name, Rung: model.Reference, Kind: model.RefKind, Hidden: true,
			Description: k.What, Op: "hold N contexts", HopsPerOp: 1, Placements: []model.Placement{model.Unpinned},
			Needs: k.Available, Run: memoryRun(k.Name)})
	}
	return append(rows, &model.Benchmark{Name: MemoryPrefix + "vm", Rung: model.VM, Kind: model.RefKind, Hidden: true,
		Description: "minimal VMs held open by one VMM", Op: "hold N VMs", HopsPerOp: 1,
		Placements: []model.Placement{model.Unpinned}, Needs: needsKVM, Run: vmMemory})
}
