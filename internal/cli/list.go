package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/render"
)

// listEntry is one object of `ctxbench list --json` (a contract: name,
// rung, description, available, reason).
type listEntry struct {
	Name        string   `json:"name"`
	Rung        string   `json:"rung"`
	Kind        string   `json:"kind"`
	Description string   `json:"description"`
	Op          string   `json:"op"`
	HopsPerOp   float64  `json:"hops_per_op"`
	Placements  []string `json:"placements"`
	Ladder      []string `json:"ladder_placements"`
	Verified    bool     `json:"verified_switch"`
	Available   bool     `json:"available"`
	Reason      string   `json:"reason"`
}

func newList(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "list the benchmarks, what one op of each is, and whether it can run here",
		Example: `  ctxbench list
  ctxbench list --json | jq -r '.[] | select(.available | not) | .name + ": " + .reason'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var entries []listEntry
			for _, b := range catalog.All() {
				ok, why := b.Available()
				e := listEntry{Name: b.Name, Rung: string(b.Rung), Kind: string(b.Kind), Description: b.Description,
					Op: b.Op, HopsPerOp: b.HopsPerOp, Verified: b.ExpectSwitch, Available: ok, Reason: why,
					Placements: []string{}, Ladder: []string{}}
				for _, p := range b.Placements {
					e.Placements = append(e.Placements, string(p))
				}
				for _, p := range b.Ladder {
					e.Ladder = append(e.Ladder, string(p))
				}
				entries = append(entries, e)
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUNG\tBENCHMARK\tPLACEMENTS\tONE OP\t")
			for _, e := range entries {
				op := e.Op
				if !e.Available {
					op = "unavailable: " + e.Reason
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", e.Rung, e.Name, strings.Join(e.Placements, ","), op)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array, one object per benchmark")
	return cmd
}

func newEnv(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "env",
		Short: "show the machine facts every result records, and the settings that blur measurements",
		Long: `Env prints what ctxbench records about the machine with every result: CPU,
core types, SMT, governor, virtualization and the KVM backend, clocksource,
kernel and command line, mitigations, cgroups, idle driver, perf counters,
load. Each risky setting is followed by a one-line fix. It changes nothing.`,
		Example: "  ctxbench env\n  ctxbench env --json | jq .virtualization",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env := machine.Collect(machine.Options{})
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(env)
			}
			render.Environment(stdout, env, style(stdout))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the environment as JSON")
	return cmd
}
