package schedule

import (
	"context"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// RunBlock runs one measured block of c on ex under the watchdog timeout.
// It is the one way a measured block is run: Run's rounds use it, and so
// do experiments that run fixed blocks of their own (the published
// programs in internal/experiment/replicate). Unless dryRun (synthetic
// blocks measure nothing), it first waits out the second after perf
// events closed: every switch in that second would pay for perf's
// scheduler hooks (host.WaitPerfHooksOff).
func RunBlock(ctx context.Context, ex Executor, c Cell, req model.Request, timeout time.Duration, dryRun bool) (model.Response, error) {
	if !dryRun {
		if err := host.WaitPerfHooksOff(ctx); err != nil {
			return model.Response{}, err
		}
	}
	return ex.Block(ctx, c, req, timeout)
}
