package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/suite"
)

// newPrepareCmd builds the runtime probes ahead of time, so that the first
// ladder's time budget is not spent compiling (a Rust build with tokio takes
// a minute on a small machine).
func newPrepareCmd(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "prepare",
		Short: "build the runtime probes once (Erlang, Rust, Java, C++) into the cache",
		Long: `Prepare builds every runtime probe whose toolchain is installed, with the
language's own tool, into ctxbench's cache ($CTXBENCH_CACHE_DIR, else
$XDG_CACHE_HOME/ctxbench/probes). Later runs reuse the builds; a changed probe
source or toolchain rebuilds. A missing toolchain is reported with its install
command and is not an error.`,
		Example: "  ctxbench prepare && ctxbench",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			failed := 0
			for _, lang := range suite.ProbeLanguages() {
				version, err := suite.DetectProbe(lang)
				if err != nil {
					fmt.Fprintf(stdout, "%-7s skipped: %v\n", lang, err)
					continue
				}
				start := time.Now()
				cached, err := suite.BuildProbe(cmd.Context(), lang)
				if err != nil {
					if cmd.Context().Err() != nil {
						return cmd.Context().Err()
					}
					failed++
					fmt.Fprintf(stderr, "%-7s build failed: %v\n", lang, err)
					continue
				}
				state := "built"
				if cached {
					state = "cached"
				}
				fmt.Fprintf(stdout, "%-7s %s (%s) in %v\n", lang, state, version, time.Since(start).Round(time.Millisecond))
			}
			if failed > 0 {
				return &exitError{ExitFailure, fmt.Sprintf("%d probe build(s) failed", failed)}
			}
			return nil
		},
	}
}
