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

// Missing says why kinds have no result: they ran and failed, or they
// cannot run on this machine at all (skipped, with the reason; not a
// failure, so a ladder without root or KVM still succeeds).
type Missing struct {
	Failed, Skipped []result.Failure
}

// eachKind runs one worker block per kind of a lifecycle measurement and
// hands each response to take; only cancellation stops the loop.
func eachKind(ctx context.Context, prefix string, kinds []string, o LifecycleOptions, timeout time.Duration,
	params func(kind string) map[string]int64, take func(name string, c Cell, resp bench.Response) error) (Missing, error) {
	if o.Executor == nil {
		o.Executor = ProcessExecutor{}
	}
	if o.Progress != nil {
		defer o.Progress("")
	}
	var miss Missing
	for _, k := range kinds {
		name := prefix + k
		b := bench.Lookup(name)
		if b == nil {
			miss.Failed = append(miss.Failed, result.Failure{Name: name, Error: "no such measurement"})
			continue
		}
		if ok, why := b.Available(); !ok {
			miss.Skipped = append(miss.Skipped, result.Failure{Name: name, Error: why})
			continue
		}
		if o.Progress != nil {
			o.Progress(name)
		}
		c, err := CellFor(b, bench.Unpinned, o.CPUs)
		if err == nil {
			req := bench.Request{Bench: name, Placement: bench.Unpinned, CPUA: o.CPU, CPUB: -1, Samples: o.Samples, Params: params(k)}
			var resp bench.Response
			if resp, err = o.Executor.Block(ctx, c, req, timeout); err == nil {
				err = take(name, c, resp)
			}
		}
		if ctx.Err() != nil {
			return Missing{}, ctx.Err()
		}
		if err != nil {
			miss.Failed = append(miss.Failed, result.Failure{Name: name, Error: err.Error()})
		}
	}
	return miss, nil
}

// Spawn measures creation cost, one worker per kind.
func Spawn(ctx context.Context, kinds []string, o LifecycleOptions) ([]result.Spawn, Missing, error) {
	var out []result.Spawn
	noParams := func(string) map[string]int64 { return nil }
	miss, err := eachKind(ctx, bench.SpawnPrefix, kinds, o, 10*time.Minute, noParams, func(name string, c Cell, resp bench.Response) error {
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
		return nil
	})
	return out, miss, err
}

// Memory measures what contexts cost to keep, one worker per kind.
func Memory(ctx context.Context, kinds []string, o LifecycleOptions) ([]result.Memory, Missing, error) {
	var out []result.Memory
	params := func(k string) map[string]int64 {
		p := map[string]int64{"n": int64(o.N[k])}
		if o.NoSettle {
			p["nosettle"] = 1
		}
		return p
	}
	o.Samples = 1
	miss, err := eachKind(ctx, bench.MemoryPrefix, kinds, o, 15*time.Minute, params, func(name string, c Cell, resp bench.Response) error {
		var m memory.Result
		if err := json.Unmarshal([]byte(resp.Facts["result"]), &m); err != nil {
			return fmt.Errorf("unreadable memory result: %w", err)
		}
		out = append(out, memoryResult(name, c.Bench.Description, m))
		return nil
	})
	return out, miss, err
}

func memoryResult(name, what string, m memory.Result) result.Memory {
	r := result.Memory{Name: name, Kind: m.Context, Description: what, Label: m.Label,
		Contexts: m.Reached, Requested: m.Requested, RSSBytes: m.Per.RSS, PSSBytes: m.Per.PSS,
		KernelBytes: m.Per.KernelStack + m.Per.PageTables, SlabBytes: m.Per.Slab, VirtBytes: m.Per.Virtual,
		ChargedBytes: m.Per.Charged, ChargedUserBytes: m.Per.ChargedUser, ChargedKernelBytes: m.Per.ChargedKernel,
		CreateNS: m.CreateNs, Limit: m.Limit, Limits: m.Limits, Notes: m.Notes,
		RuntimeBytes: m.Per.Runtime, RuntimeMetric: m.Per.RuntimeMetric}
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
