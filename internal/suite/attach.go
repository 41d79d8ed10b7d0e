package suite

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/attach"
	"github.com/ctxbench/ctxbench/internal/session"
)

// AttachOptions are ctxbench attach's: its targets (or the known workload,
// Check), how long, its windows, the probe set, the rate limit and the
// pool curve the what-if reads.
type AttachOptions = attach.Options

// AttachTarget names a target: a pid, a cgroup, or the machine.
type AttachTarget = attach.TargetSpec

// AttachCheck is --check's options.
type AttachCheck = attach.CheckOptions

// CheckAttach resolves the targets and checks the options without
// attaching: an error is the input's fault.
func CheckAttach(o AttachOptions) error {
	if o.Check != nil {
		return nil
	}
	_, err := attach.Check(o)
	return err
}

// Attach is ctxbench attach: one step, the attach itself. It takes no
// workers, so a dry run has nothing to fake: the command refuses one.
func Attach(spec session.Spec, o AttachOptions) session.Spec {
	spec = begin(spec, nil) // the known workload's process is a partner: swept with the rest
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		return attach.Run(ctx, env, o)
	}}
	return spec
}
