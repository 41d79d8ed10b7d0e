package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// PoolWorkers names a worker rule: a count, or as many as connections.
func PoolWorkers(w int) string {
	if w == 0 {
		return "workers = pool"
	}
	return fmt.Sprintf("%d workers", w)
}

// Pools prints the connection-pool curves, one table per series, with
// each curve's knee and fit, the published comparison and the verdicts.
func Pools(w io.Writer, res *result.Pools) {
	num := func(p *float64, decimals int) string {
		if p == nil {
			return "-"
		}
		return units.Fixed(*p, decimals)
	}
	for _, sr := range res.Servers {
		for _, s := range sr.Series {
			fmt.Fprintf(w, "\n%s — %s, %s, %s (server CPUs %v, client CPUs %v, GOMAXPROCS %d)\n", sr.Version, s.Client, s.Placement,
				PoolWorkers(s.Workers), s.ServerCPUs, s.ClientCPUs, s.GOMAXPROCS)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "pool\tq/s\tp50 µs\tp99 µs\twait µs\theld µs\tsrv vol/q\tsrv invol/q\taux/q\tclient/q\tsrv CPU µs/q\tclient CPU µs/q\tsrv%\tclient%\tflags\t")
			for _, p := range s.Points {
				var flags []string
				if p.ClientBound {
					flags = append(flags, "client-bound")
				}
				if p.ForeignUtil > 0.1 {
					flags = append(flags, "busy "+units.Percent(p.ForeignUtil*100, 0))
				}
				for _, win := range p.Windows {
					if !win.Conns.Stable {
						flags = append(flags, "reconnected")
						break
					}
				}
				cpuUs := func(v *float64) *float64 {
					if v == nil {
						return nil
					}
					x := *v / 1e3
					return &x
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p.Pool, units.Fixed(p.QPS.Median, 0),
					units.Fixed(p.LatencyNs.P50.Median/1e3, 0), units.Fixed(p.LatencyNs.P99.Median/1e3, 0), units.Fixed(p.PoolWaitNs/1e3, 0), units.Fixed(p.HeldNs/1e3, 0),
					num(p.PerQuery.ServerVoluntary, 2), num(p.PerQuery.ServerInvoluntary, 2), num(p.PerQuery.ServerAux, 3),
					units.Fixed(p.PerQuery.ClientVoluntary+p.PerQuery.ClientInvoluntary, 2), num(cpuUs(p.PerQuery.ServerCPUNs), 1),
					units.Fixed(p.PerQuery.ClientCPUNs/1e3, 1), units.Fixed(p.ServerUtil*100, 0), units.Fixed(p.ClientUtil*100, 0), strings.Join(flags, ","))
			}
			tw.Flush()
			if s.Knee != nil {
				u := s.Uncertainty
				line := fmt.Sprintf("knee: N95 = %d", s.Knee.N95)
				if u != nil && u.N95 != nil {
					line += fmt.Sprintf(" [%d, %d]", u.N95[0], u.N95[1])
				}
				line += fmt.Sprintf(", peak %s q/s at pool %d", units.Fixed(s.Knee.PeakX, 0), s.Knee.PeakN)
				switch {
				case s.Knee.Kneedle != nil:
					line += fmt.Sprintf(", Kneedle %d", *s.Knee.Kneedle)
				case u != nil && u.Resamples > 0:
					line += ", no Kneedle knee"
				}
				if s.USL != nil && s.USL.Error == "" {
					line += fmt.Sprintf("; USL λ=%s α=%s%s β=%s%s N*=%s R²=%s", units.Fixed(s.USL.Lambda, 0), units.Digits(s.USL.Alpha, 3), pair(u, true), units.Digits(s.USL.Beta, 3), pair(u, false), num(s.USL.NStar, 0), units.Fixed(s.USL.R2, 2))
				}
				fmt.Fprintf(w, "%s; %s\n", line, s.Shape)
				if s.Note != "" {
					fmt.Fprintf(w, "  note: %s\n", s.Note)
				}
			}
		}
		for _, c := range sr.Published {
			fmt.Fprintf(w, "published (%s, %s, %s): %s\n", c.Client, c.Placement, PoolWorkers(c.Workers), c.Summary)
		}
	}
	fmt.Fprintln(w, "\nSwitches per query: per-task /proc counters of the server's processes and getrusage of the client, idle baseline subtracted (docs/pool.md).")
	for _, v := range res.Verdicts {
		fmt.Fprintln(w, "verdict: "+v)
	}
	for _, x := range res.Warnings {
		fmt.Fprintln(w, "warning: "+x)
	}
}

// pair is a USL parameter's bootstrap interval (alpha or beta), or "".
func pair(u *result.PoolShapeUncertainty, alpha bool) string {
	if u == nil {
		return ""
	}
	iv := u.Beta
	if alpha {
		iv = u.Alpha
	}
	if iv == nil {
		return ""
	}
	return " [" + units.Digits(iv[0], 3) + ", " + units.Digits(iv[1], 3) + "]"
}
