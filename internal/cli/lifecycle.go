package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
)

func pickKinds(args, all []string, what string) ([]string, error) {
	if len(args) == 0 || slices.Contains(args, "all") {
		return all, nil
	}
	for _, a := range args {
		if !slices.Contains(all, a) {
			return nil, usagef("unknown %s kind %q (want %s)", what, a, strings.Join(all, ", "))
		}
	}
	return args, nil
}

// runLifecycle measures one step of creation or memory kinds and prints
// its table; custom says the run's sizes were set by flags rather than
// each kind's defaults.
func runLifecycle(ctx context.Context, cpus []int, lf *lockFlags, custom, quiet bool, exportJSON string, stdout, stderr io.Writer,
	step session.Step, show func(io.Writer, *result.Document)) error {
	set := result.Settings{Preset: "default", CPUs: cpus}
	if custom {
		set.Preset = "custom"
	}
	spec, err := newSpec(set, lf, quiet, stderr, nil)
	if err != nil {
		return err
	}
	spec.Steps = []session.Step{step}
	spec.Derive = []func(*result.Document){replicate.Claims}
	doc, err := session.Run(ctx, spec)
	if err != nil {
		return err
	}
	out, err := saveJSON(doc, exportJSON, stdout, stderr)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(out, "ctxbench — %s\n", doc.Environment.HostLine())
		show(out, doc)
		render.Missing(out, doc)
	}
	return failed(doc, "measurements", len(doc.Failures)+len(doc.Spawn)+len(doc.Memory))
}

func newSpawnCmd(stdout, stderr io.Writer) *cobra.Command {
	var samples int
	var cpus, exportJSON string
	var quiet bool
	var lf lockFlags
	cmd := &cobra.Command{
		Use:   "spawn [KIND...]",
		Short: "measure what it costs to create a goroutine, thread, process, container or VM",
		Long: `Spawn measures creation cost: create a context, run it to its end, reap it.
Kinds: ` + strings.Join(lifecycle.SpawnKinds(), ", ") + `.
Each runs in a worker process (a fork from a 1 GiB parent never touches the
harness); the timed loops are C except the goroutine kinds. Exec targets are a
minimal static ELF in a memfd, so no dynamic loading is timed.`,
		Example: `  ctxbench spawn
  ctxbench spawn fork fork-256m fork-1g posix-spawn-1g   # fork grows with the parent, posix_spawn does not
  ctxbench spawn container-ns container-netns container-full --export-json c.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, err := pickKinds(args, lifecycle.SpawnKinds(), "spawn")
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("samples") && (samples < 1 || samples > 100000) {
				return usagef("--samples must be between 1 and 100000, got %d (leave it out for each kind's own)", samples)
			}
			cpuList, err := resolveCPUs(cpus)
			if err != nil {
				return err
			}
			if err := checkExports([2]string{"--export-json", exportJSON}); err != nil {
				return err
			}
			o := lifecycle.Options{Samples: samples, PinLast: true}
			return runLifecycle(cmd.Context(), cpuList, &lf, samples != 0, quiet, exportJSON, stdout, stderr,
				func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
					return lifecycle.Spawn(ctx, env, kinds, o)
				}, render.Spawn)
		},
	}
	f := cmd.Flags()
	f.IntVar(&samples, "samples", 0, "samples per kind (default: each kind's own, 15 to 500)")
	f.StringVar(&cpus, "cpus", "", "CPUs to use; the creating thread is pinned to the last")
	f.StringVar(&exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	lf.register(cmd)
	return cmd
}

func newMemoryCmd(stdout, stderr io.Writer) *cobra.Command {
	var cpus, exportJSON string
	var quiet, settle bool
	var n []string
	var lf lockFlags
	cmd := &cobra.Command{
		Use:   "memory [KIND...]",
		Short: "measure what a parked goroutine, thread, process, container or VM costs to keep",
		Long: `Memory parks many contexts of one kind at once and reports, per context, the
proportional and resident set size, kernel stacks and page tables, what their
own memory cgroup was charged, and the virtual reservation apart from what is
resident, beside the folklore claims. Defaults: 100,000 goroutines, 10,000
threads, 1,000 processes, 100 containers, 100 VMs (or as many as the machine
allows, and why not more). Kinds: ` + strings.Join(lifecycle.MemoryKinds(), ", ") + `.`,
		Example: `  ctxbench memory
  ctxbench memory thread --n thread=20000
  ctxbench memory goroutine process container vm --export-json mem.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, err := pickKinds(args, lifecycle.MemoryKinds(), "memory")
			if err != nil {
				return err
			}
			counts := map[string]int{}
			for _, kv := range n {
				k, v, ok := strings.Cut(kv, "=")
				x, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
				if !ok || err != nil || x < 1 || x > 10_000_000 || !slices.Contains(lifecycle.MemoryKinds(), k) {
					return usagef("--n %q: want KIND=COUNT with a kind of %s and a whole COUNT from 1 to 10000000", kv, strings.Join(lifecycle.MemoryKinds(), ", "))
				}
				if _, dup := counts[k]; dup {
					return usagef("--n gives %s twice", k)
				}
				counts[k] = x
			}
			cpuList, err := resolveCPUs(cpus)
			if err != nil {
				return err
			}
			if err := checkExports([2]string{"--export-json", exportJSON}); err != nil {
				return err
			}
			o := lifecycle.Options{N: counts, NoSettle: !settle}
			return runLifecycle(cmd.Context(), cpuList, &lf, len(counts) > 0, quiet, exportJSON, stdout, stderr,
				func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
					return lifecycle.Memory(ctx, env, kinds, o)
				}, render.Memory)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&n, "n", nil, "contexts to hold, per kind: --n goroutine=1000000,thread=5000")
	f.BoolVar(&settle, "settle", false, "wait for /proc/meminfo to settle before each reading (slower; better kernel figures on a busy machine)")
	f.StringVar(&cpus, "cpus", "", "CPUs the measurement may use")
	f.StringVar(&exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	lf.register(cmd)
	return cmd
}
