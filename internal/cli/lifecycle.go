package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
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

// lifecycleExports are the files spawn and memory can write: the JSON,
// and their own CSV and Markdown tables (csv and markdown render one
// section of the document).
type lifecycleExports struct {
	json, csv, markdown string
}

func (e *lifecycleExports) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&e.json, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.StringVar(&e.csv, "export-csv", "", "write a CSV table, one row per kind, to `FILE` (- for stdout)")
	f.StringVar(&e.markdown, "export-markdown", "", "write a Markdown table to `FILE` (- for stdout)")
}

// list pairs each path with its writer: csv and markdown are the section's.
func (e *lifecycleExports) list(csv, markdown func(io.Writer, *result.Document) error) []export {
	return []export{jsonExport(e.json), {"--export-csv", e.csv, csv}, {"--export-markdown", e.markdown, markdown}}
}

// lifecycle is the one path of spawn and memory: the kinds compose makes
// into the session, measured on cpus, written to exports and shown by
// show under the host's line; custom says the run's sizes were set by
// flags rather than each kind's defaults.
func lifecycle(cpus []int, lf *lockFlags, custom, quiet bool, exports []export,
	compose func(session.Spec) session.Spec, show func(io.Writer, *result.Document)) measurement {
	set := result.Settings{Preset: "default", CPUs: cpus}
	if custom {
		set.Preset = "custom"
	}
	return measurement{settings: set, lock: lf, quiet: quiet, exports: exportsOf(exports...),
		compose: func(spec session.Spec) (session.Spec, error) { return compose(spec), nil },
		show: func(w io.Writer, doc *result.Document) {
			fmt.Fprintf(w, "ctxbench — %s\n", doc.Environment.HostLine())
			show(w, doc)
			render.Missing(w, doc)
		},
		failures: func(doc *result.Document) error {
			return failed(doc, "measurements", len(doc.Failures)+len(doc.Spawn)+len(doc.Memory))
		}}
}

func newSpawnCmd(stdout, stderr io.Writer) *cobra.Command {
	var runs int
	var cpus string
	var quiet bool
	var ex lifecycleExports
	var lf lockFlags
	cmd := &cobra.Command{
		Use:   "spawn [KIND...]",
		Short: "measure what it costs to create a goroutine, thread, process, container or VM",
		Long: `Spawn measures creation cost: create a context, run it to its end, reap it.
Kinds: ` + strings.Join(suite.SpawnKinds(), ", ") + `.
Each runs in a worker process (a fork from a 1 GiB parent never touches the
harness); the timed loops are C except the goroutine kinds. Exec targets are a
minimal static ELF in a memfd, so no dynamic loading is timed.`,
		Example: `  ctxbench spawn
  ctxbench spawn fork fork-256m fork-1g posix-spawn-1g   # fork grows with the parent, posix_spawn does not
  ctxbench spawn thread process --runs 100 --export-csv spawn.csv
  ctxbench spawn container-ns container-netns container-full --export-json c.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, err := pickKinds(args, suite.SpawnKinds(), "spawn")
			if err != nil {
				return err
			}
			if as := givenAs(cmd.Flags(), "runs", "samples"); as != "" && (runs < 1 || runs > 100000) {
				return usagef("%s must be between 1 and 100000, got %d (leave it out for each kind's own)", as, runs)
			}
			cpuList, err := resolveCPUs(cpus)
			if err != nil {
				return err
			}
			exports := ex.list(formats.SpawnCSV, formats.SpawnMarkdown)
			if err := checkAll(exports); err != nil {
				return err
			}
			return lifecycle(cpuList, &lf, runs != 0, quiet, exports,
				func(spec session.Spec) session.Spec { return suite.Spawn(spec, kinds, runs) }, render.Spawn).run(cmd.Context(), stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&runs, "runs", "r", 0, "measured samples per kind (default: each kind's own, 15 to 500)")
	f.IntVar(&runs, "samples", 0, "the old spelling of --runs")
	rename(f, "samples", "runs")
	f.StringVar(&cpus, "cpus", "", "CPUs to use; the creating thread is pinned to the last")
	ex.register(cmd)
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	lf.register(cmd)
	return cmd
}

func newMemoryCmd(stdout, stderr io.Writer) *cobra.Command {
	var cpus string
	var quiet, settle bool
	var contexts []string
	var ex lifecycleExports
	var lf lockFlags
	cmd := &cobra.Command{
		Use:   "memory [KIND...]",
		Short: "measure what a parked goroutine, thread, process, container or VM costs to keep",
		Long: `Memory parks many contexts of one kind at once and reports, per context, the
proportional and resident set size, kernel stacks and page tables, what their
own memory cgroup was charged, and the virtual reservation apart from what is
resident, beside the folklore claims. Defaults: 100,000 goroutines, 10,000
threads, 1,000 processes, 100 containers, 100 VMs (or as many as the machine
allows, and why not more). Kinds: ` + strings.Join(suite.MemoryKinds(), ", ") + `.`,
		Example: `  ctxbench memory
  ctxbench memory thread --contexts thread=20000
  ctxbench memory goroutine process container vm --export-json mem.json --export-markdown mem.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, err := pickKinds(args, suite.MemoryKinds(), "memory")
			if err != nil {
				return err
			}
			as := givenAs(cmd.Flags(), "contexts", "n")
			counts := map[string]int{}
			for _, kv := range contexts {
				k, v, ok := strings.Cut(kv, "=")
				x, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
				if !ok || err != nil || x < 1 || x > 10_000_000 || !slices.Contains(suite.MemoryKinds(), k) {
					return usagef("%s %q: want KIND=COUNT with a kind of %s and a whole COUNT from 1 to 10000000", as, kv, strings.Join(suite.MemoryKinds(), ", "))
				}
				if _, dup := counts[k]; dup {
					return usagef("%s gives %s twice", as, k)
				}
				counts[k] = x
			}
			cpuList, err := resolveCPUs(cpus)
			if err != nil {
				return err
			}
			exports := ex.list(formats.MemoryCSV, formats.MemoryMarkdown)
			if err := checkAll(exports); err != nil {
				return err
			}
			return lifecycle(cpuList, &lf, len(counts) > 0, quiet, exports,
				func(spec session.Spec) session.Spec { return suite.Memory(spec, kinds, counts, settle) }, render.Memory).run(cmd.Context(), stdout, stderr)
		},
	}
	f := cmd.Flags()
	// Not --runs: memory takes one reading of many contexts held at once;
	// this is how many, per kind, not a count of samples.
	f.StringSliceVar(&contexts, "contexts", nil, "contexts to hold at once, per kind: --contexts goroutine=1000000,thread=5000 (default: each kind's own, above)")
	f.StringSliceVar(&contexts, "n", nil, "the old spelling of --contexts")
	rename(f, "n", "contexts")
	f.BoolVar(&settle, "settle", false, "wait for /proc/meminfo to settle before each reading (slower; better kernel figures on a busy machine)")
	f.StringVar(&cpus, "cpus", "", "CPUs the measurement may use")
	ex.register(cmd)
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	lf.register(cmd)
	return cmd
}
