package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// Blocks records a cell's blocks for the result (round, samples, what else
// took the CPUs) and, when blocks stayed contended after their re-runs, the
// flag that keeps the figure from passing as clean: which blocks, how much
// of which CPUs other work took.
func Blocks(blocks []schedule.Block) ([]result.BlockInfo, *result.Flag) {
	out := make([]result.BlockInfo, len(blocks))
	var hit []int
	worst := 0.0
	var cpus []int
	for i, b := range blocks {
		c := b.Resp.Contention
		out[i] = result.BlockInfo{Round: b.Round, Samples: len(b.Resp.NS), OtherShare: c.OtherShare(), StealShare: c.StealShare(),
			Reruns: b.Reruns, Contended: b.Contended, HostProbeNS: b.Resp.HostProbe.NS()}
		if c != nil {
			out[i].NeighbourBusy = c.NeighbourBusy
			if n := c.WakeupIPIs; n >= 0 {
				out[i].WakeupIPIs = &n
			}
		}
		if b.Contended {
			hit = append(hit, i)
			if s := c.OtherShare(); s > worst {
				worst, cpus = s, c.CPUs
			}
		}
	}
	if len(hit) == 0 {
		return out, nil
	}
	return out, &result.Flag{Code: "contended", Message: fmt.Sprintf(
		"other work took up to %.0f%% of CPU %s in %d of %d blocks, even after re-running each up to %d times: this figure is not a clean measurement",
		100*worst, cpuList(cpus), len(hit), len(blocks), schedule.DefaultReruns)}
}

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range slices.Sorted(slices.Values(cpus)) {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}
