package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/memory"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// LifecycleOptions control the creation and memory measurements.
type LifecycleOptions struct {
	Samples  int   // creation samples per kind; 0 = each kind's default
	CPU      int   // pin the creating thread; -1 leaves it
	CPUs     []int // the CPUs a worker may use
	N        map[string]int
	NoSettle bool // memory: don't wait for /proc/meminfo to settle
	Executor Executor
	Progress func(kind string)
}

func lifecycleCell(name string, cpus []int) (Cell, error) {
	b := bench.Lookup(name)
	if b == nil {
		return Cell{}, fmt.Errorf("no measurement %s", name)
	}
	if ok, why := b.Available(); !ok {
		return Cell{}, fmt.Errorf("%s", why)
	}
	return CellFor(b, bench.Unpinned, cpus)
}

// Spawn measures creation cost, one worker per kind.
func Spawn(ctx context.Context, kinds []string, o LifecycleOptions) ([]result.Spawn, []result.Failure, error) {
	if o.Executor == nil {
		o.Executor = ProcessExecutor{}
	}
	var out []result.Spawn
	var fails []result.Failure
	for _, k := range kinds {
		name := bench.SpawnPrefix + k
		if o.Progress != nil {
			o.Progress(name)
		}
		c, err := lifecycleCell(name, o.CPUs)
		if err != nil {
			fails = append(fails, result.Failure{Name: name, Error: err.Error()})
			continue
		}
		req := bench.Request{Bench: name, Placement: bench.Unpinned, CPUA: o.CPU, CPUB: -1, Samples: o.Samples}
		resp, err := o.Executor.Block(ctx, c, req, 10*time.Minute)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			fails = append(fails, result.Failure{Name: name, Error: err.Error()})
			continue
		}
		s := result.Spawn{Name: name, Kind: resp.Facts["context"], Description: c.Bench.Description, Op: resp.Facts["op"],
			Label: resp.Facts["label"], Claim: resp.Facts["claim"]}
		for _, ns := range resp.NS {
			s.Samples = append(s.Samples, float64(ns))
		}
		s.PerCreateNS = stats.Summarize(s.Samples)
		if n := strings.TrimSpace(resp.Facts["notes"]); n != "" {
			s.Notes = strings.Split(n, "\n")
		}
		out = append(out, s)
	}
	return out, fails, nil
}

// Memory measures what contexts cost to keep, one worker per kind.
func Memory(ctx context.Context, kinds []string, o LifecycleOptions) ([]result.Memory, []result.Failure, error) {
	if o.Executor == nil {
		o.Executor = ProcessExecutor{}
	}
	var out []result.Memory
	var fails []result.Failure
	for _, k := range kinds {
		name := bench.MemoryPrefix + k
		if o.Progress != nil {
			o.Progress(name)
		}
		c, err := lifecycleCell(name, o.CPUs)
		if err != nil {
			fails = append(fails, result.Failure{Name: name, Error: err.Error()})
			continue
		}
		params := map[string]int64{"n": int64(o.N[k])}
		if o.NoSettle {
			params["nosettle"] = 1
		}
		req := bench.Request{Bench: name, Placement: bench.Unpinned, CPUA: o.CPU, CPUB: -1, Samples: 1, Params: params}
		resp, err := o.Executor.Block(ctx, c, req, 15*time.Minute)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			fails = append(fails, result.Failure{Name: name, Error: err.Error()})
			continue
		}
		var m memory.Result
		if err := json.Unmarshal([]byte(resp.Facts["result"]), &m); err != nil {
			fails = append(fails, result.Failure{Name: name, Error: "unreadable memory result: " + err.Error()})
			continue
		}
		out = append(out, memoryResult(name, c.Bench.Description, m))
	}
	return out, fails, nil
}

func memoryResult(name, what string, m memory.Result) result.Memory {
	r := result.Memory{Name: name, Kind: m.Context, Description: what, Label: m.Label,
		Contexts: m.Reached, Requested: m.Requested, RSSBytes: m.Per.RSS, PSSBytes: m.Per.PSS,
		KernelBytes: m.Per.KernelStack + m.Per.PageTables, SlabBytes: m.Per.Slab, VirtBytes: m.Per.Virtual,
		ChargedBytes: m.Per.Charged, ChargedUserBytes: m.Per.ChargedUser, ChargedKernelBytes: m.Per.ChargedKernel,
		CreateNS: m.CreateNs, Limit: m.Limit, Limits: m.Limits, Notes: m.Notes}
	if r.Label == "" {
		r.Label = what
	}
	var claims []string
	for _, c := range m.Claims {
		r.Claims = append(r.Claims, result.Claim{Text: c.Text, Source: c.Source, BytesPerContext: c.BytesPerContext})
		claims = append(claims, c.Text+" ("+c.Source+")")
	}
	r.Claim = strings.Join(claims, "; ")
	return r
}
