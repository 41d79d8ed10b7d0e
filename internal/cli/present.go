package cli

// present.go: the one path from a measuring command's plan to what its
// user reads. Every measuring command — the default ladder and run, ring,
// load, pool, spawn, memory, replicate, explain, aa and ab — parses its
// flags into its experiment's options, has its suite function plan them,
// and hands the rest to a measurement: the session framed (newSpec),
// composed by the suite and run (session.Run), its errors sorted into exit
// statuses, the exports written, the view shown through render's one
// engine (view: render.Fit at the terminal's width), the JSON's path
// named, and the exit status of a document holding failures.
//
// Nothing is written before the session has ended: an interrupted run
// (Ctrl-C, SIGTERM: Main exits 130) leaves an existing file as it was, and
// each export is saved atomically (result.WriteFile).

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// measurement is one measuring command as the one path takes it.
type measurement struct {
	// settings is the record the flags made; lock and quiet frame the
	// session (quiet: no progress, warnings or table).
	settings result.Settings
	lock     *lockFlags
	quiet    bool
	// compose is the suite's composition of the command's experiment into
	// the framed session: its steps, its derivations, a dry run's
	// executor. An error it returns is the input's fault (exit 2).
	compose func(session.Spec) (session.Spec, error)
	// after, when set, runs once the session has ended, whatever its
	// outcome, before anything is written (pool clears its progress line).
	after func()
	// exports are the files asked for, JSON first, for the document (the
	// default ladder's creation and memory sections add CSV files); named
	// is the JSON's path, said under the view ("": not said).
	exports func(*result.Document) []export
	named   string
	// show is the command's view of the document.
	show func(io.Writer, *result.Document)
	// failures is the exit status of the document: an error naming how
	// many of its measurements failed, nil when none did.
	failures func(*result.Document) error
}

// measurement starts the one path of a command that takes the measure
// flags: their lock, --quiet, exports and --export-json.
func (m *measureFlags) measurement(set result.Settings) measurement {
	return measurement{settings: set, lock: &m.lockFlags, quiet: m.quiet, exports: m.exports, named: m.exportJSON}
}

// run measures, then presents the document and returns its exit status.
func (m measurement) run(ctx context.Context, stdout, stderr io.Writer) error {
	spec, err := newSpec(m.settings, m.lock, m.quiet, stderr)
	if err != nil {
		return err
	}
	if spec, err = m.compose(spec); err != nil {
		return &usageError{err.Error()}
	}
	doc, err := session.Run(ctx, spec)
	if m.after != nil {
		m.after()
	}
	if err != nil {
		return runError(ctx, err)
	}
	if err := m.present(doc, stdout, stderr); err != nil {
		return err
	}
	return m.failures(doc)
}

// newSpec frames the session of a measuring command: the tool, the
// command line, the settings record, the CPUs, the seed, the lock, and the
// progress bar on a terminal. The suite completes it with the command's
// steps.
func newSpec(set result.Settings, lf *lockFlags, quiet bool, stderr io.Writer) (session.Spec, error) {
	spec := session.Spec{Tool: tool(), Command: append([]string{"ctxbench"}, os.Args[1:]...), Settings: set,
		CPUs: set.CPUs, Seed: set.Seed, DryRun: set.DryRun, Log: stderr}
	lock, err := lf.lock(stderr)
	if err != nil {
		return spec, err
	}
	spec.Lock = lock
	if !quiet && isTTY(stderr) {
		spec.Progress = newProgressBar(stderr)
	}
	if quiet {
		spec.Log = io.Discard
	}
	return spec, nil
}

// runError is the exit status of a session that ended without a document:
// an interruption (130, in Main), the input's fault (2), a set-up command
// that failed or a program that is not installed (1, its message as it
// stands), or any other error (1).
func runError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case suite.Refused(err):
		return &usageError{err.Error()}
	case suite.SetupFailed(err):
		return &exitError{ExitFailure, oneLine(err.Error())}
	case suite.Missing(err):
		return &exitError{ExitFailure, err.Error()}
	}
	return err
}

// present writes the document's exports, then shows its view on the
// terminal — stdout, or stderr when an export claims stdout ("-") — and
// says where the JSON went.
func (m measurement) present(doc *result.Document, stdout, stderr io.Writer) error {
	var exports []export
	if m.exports != nil {
		exports = m.exports(doc)
	}
	table, err := saveExports(doc, exports, stdout, stderr)
	if err != nil {
		return err
	}
	if m.quiet {
		return nil
	}
	view(table, func(w io.Writer) { m.show(w, doc) })
	if m.named != "" && m.named != "-" {
		fmt.Fprintf(table, "\nresults written to %s\n", m.named)
	}
	return nil
}

// onlyJSON is the exports of a command whose only file is its JSON.
func onlyJSON(path string) func(*result.Document) []export {
	return func(*result.Document) []export { return []export{jsonExport(path)} }
}

// exportsOf is the exports of a command whose files do not depend on the
// document.
func exportsOf(ex ...export) func(*result.Document) []export {
	return func(*result.Document) []export { return ex }
}
