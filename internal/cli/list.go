package cli

import (
	"encoding/json"
	"io"
	"strings"

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
	var format outputFormat
	cmd := &cobra.Command{
		Use:   "list",
		Short: "list the benchmarks, what one op of each is, and whether it can run here",
		Example: `  ctxbench list
  ctxbench list --format json | jq -r '.[] | select(.available | not) | .name + ": " + .reason'`,
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
			if format.json() {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			view(stdout, func(w io.Writer) {
				t := render.NewTable(render.Col{Head: "RUNG", Fold: 1}, render.Col{Head: "BENCHMARK"},
					render.Col{Head: "PLACEMENTS", Wrap: true, Min: 9}, render.Col{Head: "ONE OP", Wrap: true, Min: 30})
				for _, e := range entries {
					op := e.Op
					if !e.Available {
						op = "unavailable: " + e.Reason
					}
					t.Row(e.Rung, e.Name, strings.Join(e.Placements, ", "), op)
				}
				t.Write(w, style(w))
			})
			return nil
		},
	}
	format.register(cmd, "a JSON array, one object per benchmark")
	return cmd
}

func newEnv(stdout io.Writer) *cobra.Command {
	var format outputFormat
	cmd := &cobra.Command{
		Use:   "env",
		Short: "show the machine facts every result records, and the settings that blur measurements",
		Long: `Env prints what ctxbench records about the machine with every result: CPU,
core types, SMT, governor, virtualization and the KVM backend, clocksource,
kernel and command line, mitigations, cgroups, idle driver, perf counters,
load. Each risky setting is followed by a one-line fix. It changes nothing.`,
		Example: "  ctxbench env\n  ctxbench env --format json | jq .virtualization",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env := machine.Collect(machine.Options{})
			if format.json() {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(env)
			}
			view(stdout, func(w io.Writer) { render.Environment(w, env, style(w)) })
			return nil
		},
	}
	format.register(cmd, "the environment as one JSON object")
	return cmd
}

// outputFormat is --format text|json of list and env, with --json kept as
// its other spelling (scripts use it: it is part of the contract).
type outputFormat struct {
	format string
	asJSON bool
}

func (o *outputFormat) register(cmd *cobra.Command, what string) {
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "text", "output format: text, or json ("+what+")")
	f.BoolVar(&o.asJSON, "json", false, "the same as --format json")
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		switch o.format {
		case "text", "json":
		default:
			return usagef("--format %q: want text or json", o.format)
		}
		if o.asJSON && cmd.Flags().Changed("format") && o.format != "json" {
			return usagef("--json and --format %s ask for two formats: give one", o.format)
		}
		return nil
	}
}

func (o *outputFormat) json() bool { return o.asJSON || o.format == "json" }
