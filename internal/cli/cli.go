// Package cli is ctxbench's command line: subcommands, flags, help with
// examples, and the mapping of errors to exit statuses. It parses and
// presents: each command parses its flags into its experiment's options, a
// suite (internal/suite) composes its session from them, and one path
// (present.go) runs it with session.Run, writes the exports and shows the
// document's view through render's one table engine. Main takes its
// streams as arguments so tests can drive the whole CLI in-process, the
// way benchstat's main does.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailure     = 1 // a measurement failed
	ExitUsage       = 2 // bad input: flags, names, files
	ExitRegression  = 3 // compare --fail-on-regression found one
	ExitInterrupted = 130
)

// Version is set at build time with -ldflags "-X .../cli.Version=...".
var Version = "dev"

// usageError is bad input: reported in one line, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// exitError carries a chosen exit status with its message ("" prints nothing).
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// Main runs the command line and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if status, ok := suite.Child(args, stdin, stdout, stderr); ok {
		return status // a re-executed child: a worker, a partner, a parked context
	}
	// Partners orphaned by a killed worker are reparented to us (where the
	// platform can), so they can be reaped and nothing outlives the run.
	host.AdoptOrphans()
	// A SIGKILLed run cannot remove its throwaway servers' directories
	// (their processes die with it): every command removes those whose
	// owner is dead, so they do not wait for the next pool run.
	if swept, _ := suite.Sweep(); swept > 0 {
		fmt.Fprintf(stderr, "ctxbench: removed %d server directories left by killed runs\n", swept)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot(ctx, stdout, stderr)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, ctx.Err())) {
		fmt.Fprintln(stderr, "ctxbench: interrupted; every child process was stopped and nothing was written")
		return ExitInterrupted
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "ctxbench: "+ee.msg)
		}
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintln(stderr, "ctxbench: "+oneLine(plainCobra(err.Error())))
		return ExitUsage
	}
	fmt.Fprintln(stderr, "ctxbench: "+oneLine(err.Error()))
	return ExitFailure
}

// exclusive is cobra's message for flags of a mutually exclusive group given
// together.
var exclusive = regexp.MustCompile(`^if any flags in the group \[([^\]]*)\] are set none of the others can be; \[([^\]]*)\] were all set`)

// plainCobra says cobra's own flag-group messages in words: "--quick and
// --thorough cannot be given together".
func plainCobra(msg string) string {
	if m := exclusive.FindStringSubmatch(msg); m != nil {
		names := strings.Fields(m[2])
		for i, n := range names {
			names[i] = "--" + n
		}
		return strings.Join(names, " and ") + " cannot be given together"
	}
	return msg
}

// isCobraUsage recognises the few parse errors cobra raises outside the
// flag-error and argument hooks (which newRoot already turns into
// usageError): mutually exclusive flags and required flags. Prefixes only, so
// a measurement error that happens to say "invalid argument" (EINVAL) is
// never mistaken for bad input.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"if any flags in the group", "required flag(s)", "unknown command"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// usageArgs wraps every command's argument check so its failure is a
// usageError (exit 2), whatever cobra's message says.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				var ue *usageError
				if errors.As(err, &ue) {
					return err // a check of ours: already plain
				}
				return argsError(cmd, err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func newRoot(ctx context.Context, stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	root := &cobra.Command{
		Use:   "ctxbench",
		Short: "measure what a context switch costs on this machine, rung by rung",
		Long: `ctxbench measures what it costs to hand the CPU from one execution context to
another on the machine it runs on: from a register swap, through goroutines,
OS threads and processes, to containers and virtual machines. Every figure is
nanoseconds per one-way switch (a hop), with its placement, its statistics and
a verified count of the context switches it really made.

With no arguments it runs the default ladder (under a minute) and writes the
results to a JSON file whose name it prints.`,
		Example: `  ctxbench                                 # the default ladder
  ctxbench --quick                         # a faster, less precise ladder
  ctxbench run thread/pipe process/pipe --placement same-cpu,cross-cpu
  ctxbench run thread --runs 100 --export-json threads.json
  ctxbench list
  ctxbench env`,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLadder(cmd.Context(), mf, nil, stdout, stderr, true)
		},
	}
	root.Version = Version
	root.SetVersionTemplate(versionString() + "\n")
	root.SetFlagErrorFunc(flagError)
	// No subcommand has a persistent pre-run of its own, so cobra runs
	// this one for every command, after its flags are parsed and before
	// anything else happens.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return noteRenamed(cmd.Flags(), stderr) }
	// --color is a persistent flag: every command accepts it, and each
	// root (each Main) starts from auto, whatever an earlier one chose.
	color := colorAuto
	colorChoice.Store(&color)
	wide := false
	wideChoice.Store(&wide)
	root.PersistentFlags().BoolVar(&wide, "wide", false, "lay tables out at their full width, leaving out and wrapping nothing (default: the width of the terminal, COLUMNS where set, else 100 columns)")
	root.PersistentFlags().Var(&color, "color", "colour the tables: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always or never")
	mf.register(root)
	root.AddCommand(newRun(stdout, stderr), newList(stdout), newEnv(stdout), newAB(stdout, stderr),
		newSpawnCmd(stdout, stderr), newMemoryCmd(stdout, stderr), newRingCmd(stdout, stderr), newLoadCmd(stdout, stderr), newPool(stdout, stderr),
		newReplicate(stdout, stderr), newReportCmd(stdout, stderr), newCompareCmd(stdout, stderr), newPrepareCmd(stdout, stderr),
		newAA(stdout, stderr), newExplain(stdout, stderr), newAttach(stdout, stderr), newHistoryCmd(ctx, stdout, stderr))
	usageArgs(root)
	return root
}

// renamedTo is the annotation on a flag's old spelling naming the flag it
// is now: the old spelling keeps working for this release.
const renamedTo = "ctxbench_renamed_to"

// rename keeps old working as another spelling of the flag now called
// name (the caller binds both to one variable): hidden from --help, since
// pflag hides a deprecated flag, and reported by noteRenamed in one line.
func rename(f *pflag.FlagSet, old, name string) {
	_ = f.MarkDeprecated(old, "use --"+name)
	_ = f.SetAnnotation(old, renamedTo, []string{name})
	// pflag's own notice ("Flag --x has been deprecated, ...") comes at
	// every occurrence, into the flag set's output, which cobra copies to
	// stdout, where it would corrupt an export written to "-".
	// noteRenamed's line, on stderr, replaces it.
	f.SetOutput(io.Discard)
}

// noteRenamed says, once per old spelling given however often it was
// given, what to use instead; an old spelling given beside its new name is
// refused, since one of the two values would be silently dropped.
func noteRenamed(f *pflag.FlagSet, stderr io.Writer) error {
	var err error
	var notes []string
	f.Visit(func(fl *pflag.Flag) {
		to := fl.Annotations[renamedTo]
		if len(to) == 0 {
			return
		}
		if f.Changed(to[0]) && err == nil {
			err = usagef("--%s is the old spelling of --%s: give only --%s", fl.Name, to[0], to[0])
		}
		notes = append(notes, fmt.Sprintf("ctxbench: --%s is deprecated; use --%s", fl.Name, to[0]))
	})
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, n)
	}
	return nil
}

// givenAs is the spelling a renamed flag was given under, name or its old
// spelling old, so that an error names what was typed ("" if neither).
func givenAs(f *pflag.FlagSet, name, old string) string {
	switch {
	case f.Changed(name):
		return "--" + name
	case f.Changed(old):
		return "--" + old
	}
	return ""
}
