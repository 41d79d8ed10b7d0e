package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/runner"
)

func init() { extraCommands = append(extraCommands, newSpawnCmd, newMemoryCmd) }

// ladderSpawnKinds are the creation measurements of the default ladder: one
// or two per kind of context (fork from 1 GiB is left to `ctxbench spawn`).
var ladderSpawnKinds = []string{"goroutine", "thread", "fork", "fork-256m", "vfork-exec", "posix-spawn", "clone-exec", "container-full", "vm"}

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

// lifecycleDoc starts the document of a spawn or memory run; custom says
// the run's sizes were set by flags rather than each kind's defaults.
func lifecycleDoc(cpus []int, custom bool) *result.Document {
	preset := "default"
	if custom {
		preset = "custom"
	}
	return &result.Document{SchemaVersion: result.SchemaVersion, Tool: tool(), Command: append([]string{"ctxbench"}, os.Args[1:]...),
		StartedAt: time.Now().UTC(), Results: []result.Result{}, Settings: result.Settings{Preset: preset, CPUs: cpus}}
}

func finishLifecycle(doc *result.Document, exportJSON string, quiet bool, stdout, stderr io.Writer, print func(io.Writer, *result.Document)) error {
	doc.FinishedAt = time.Now().UTC()
	if doc.Environment.Kernel == "" {
		doc.Environment = machine.Collect(machine.Options{})
	}
	doc.Warnings = doc.Environment.Warnings
	out, err := saveJSON(doc, exportJSON, stdout, stderr)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(out, "ctxbench — %s\n", export.HostLine(doc.Environment))
		print(out, doc)
		printMissing(out, doc)
	}
	return failed(doc, "measurements", len(doc.Failures)+len(doc.Spawn)+len(doc.Memory))
}

func progressLine(stderr io.Writer, quiet bool) func(string) {
	if quiet || !isTTY(stderr) {
		return nil
	}
	return func(name string) {
		if name == "" { // done: clear the line
			fmt.Fprint(stderr, "\r\x1b[K")
			return
		}
		fmt.Fprintf(stderr, "\r\x1b[K%s ...", name)
	}
}

func newSpawnCmd(stdout, stderr io.Writer) *cobra.Command {
	var samples int
	var cpus, exportJSON string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "spawn [KIND...]",
		Short: "measure what it costs to create a goroutine, thread, process, container or VM",
		Long: `Spawn measures creation cost: create a context, run it to its end, reap it.
Kinds: ` + strings.Join(bench.SpawnKinds(), ", ") + `.
Each runs in a worker process (a fork from a 1 GiB parent never touches the
harness); the timed loops are C except the goroutine kinds. Exec targets are a
minimal static ELF in a memfd, so no dynamic loading is timed.`,
		Example: `  ctxbench spawn
  ctxbench spawn fork fork-256m fork-1g posix-spawn-1g   # fork grows with the parent, posix_spawn does not
  ctxbench spawn container-ns container-netns container-full --export-json c.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, err := pickKinds(args, bench.SpawnKinds(), "spawn")
			if err != nil {
				return err
			}
			if samples < 0 {
				return usagef("--samples must be positive")
			}
			cpuList, err := resolveCPUs(cpus)
			if err != nil {
				return err
			}
			if err := checkExports([2]string{"--export-json", exportJSON}); err != nil {
				return err
			}
			doc := lifecycleDoc(cpuList, samples != 0)
			o := runner.LifecycleOptions{Samples: samples, CPU: cpuList[len(cpuList)-1], CPUs: cpuList, Progress: progressLine(stderr, quiet)}
			var miss runner.Missing
			doc.Spawn, miss, err = runner.Spawn(cmd.Context(), kinds, o)
			if err != nil {
				return err
			}
			doc.Failures, doc.Skipped = miss.Failed, miss.Skipped
			return finishLifecycle(doc, exportJSON, quiet, stdout, stderr, export.Spawn)
		},
	}
	f := cmd.Flags()
	f.IntVar(&samples, "samples", 0, "samples per kind (default: each kind's own, 15 to 500)")
	f.StringVar(&cpus, "cpus", "", "CPUs to use; the creating thread is pinned to the last")
	f.StringVar(&exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	return cmd
}

func newMemoryCmd(stdout, stderr io.Writer) *cobra.Command {
	var cpus, exportJSON string
	var quiet, settle bool
	var n []string
	cmd := &cobra.Command{
		Use:   "memory [KIND...]",
		Short: "measure what a parked goroutine, thread, process, container or VM costs to keep",
		Long: `Memory parks many contexts of one kind at once and reports, per context, the
proportional and resident set size, kernel stacks and page tables, what their
own memory cgroup was charged, and the virtual reservation apart from what is
resident, beside the folklore claims. Defaults: 100,000 goroutines, 10,000
threads, 1,000 processes, 100 containers, 100 VMs (or as many as the machine
allows, and why not more). Kinds: ` + strings.Join(bench.MemoryKinds(), ", ") + `.`,
		Example: `  ctxbench memory
  ctxbench memory thread --n thread=20000
  ctxbench memory goroutine process container vm --export-json mem.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds, err := pickKinds(args, bench.MemoryKinds(), "memory")
			if err != nil {
				return err
			}
			counts := map[string]int{}
			for _, kv := range n {
				k, v, ok := strings.Cut(kv, "=")
				var x int
				if _, err := fmt.Sscan(v, &x); !ok || err != nil || x < 1 || x > 10_000_000 || !slices.Contains(bench.MemoryKinds(), k) {
					return usagef("--n %q: want KIND=COUNT with a kind of %s and 1 <= COUNT <= 10000000", kv, strings.Join(bench.MemoryKinds(), ", "))
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
			doc := lifecycleDoc(cpuList, len(counts) > 0)
			o := runner.LifecycleOptions{CPU: -1, CPUs: cpuList, N: counts, NoSettle: !settle, Progress: progressLine(stderr, quiet)}
			var miss runner.Missing
			doc.Memory, miss, err = runner.Memory(cmd.Context(), kinds, o)
			if err != nil {
				return err
			}
			doc.Failures, doc.Skipped = miss.Failed, miss.Skipped
			return finishLifecycle(doc, exportJSON, quiet, stdout, stderr, export.Memory)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&n, "n", nil, "contexts to hold, per kind: --n goroutine=1000000,thread=5000")
	f.BoolVar(&settle, "settle", false, "wait for /proc/meminfo to settle before each reading (slower; better kernel figures on a busy machine)")
	f.StringVar(&cpus, "cpus", "", "CPUs the measurement may use")
	f.StringVar(&exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	return cmd
}

// lifecycle adds the creation and memory ladders to a ladder document.
func lifecycle(ctx context.Context, doc *result.Document, quick bool, cpus []int, stderr io.Writer, quiet bool) error {
	samples := 40
	if quick {
		samples = 15
	}
	o := runner.LifecycleOptions{Samples: samples, CPU: cpus[len(cpus)-1], CPUs: cpus, NoSettle: true, Progress: progressLine(stderr, quiet)}
	sp, m1, err := runner.Spawn(ctx, ladderSpawnKinds, o)
	if err != nil {
		return err
	}
	o.CPU = -1
	if quick {
		o.N = map[string]int{"goroutine": 10000, "thread": 1000, "process": 100, "container": 20, "vm": 20}
	}
	mem, m2, err := runner.Memory(ctx, []string{"goroutine", "thread", "process", "container", "vm"}, o)
	if err != nil {
		return err
	}
	doc.Spawn, doc.Memory = sp, mem
	doc.Failures = append(append(doc.Failures, m1.Failed...), m2.Failed...)
	doc.Skipped = append(append(doc.Skipped, m1.Skipped...), m2.Skipped...)
	return nil
}
