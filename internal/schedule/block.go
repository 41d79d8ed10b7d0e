package schedule

import (
	"context"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// RunBlock runs one measured block of c with rn's executor under the
// watchdog timeout.
// It is the one way a measured block is run: Run's rounds use it, and so
// do experiments that run fixed blocks of their own (the published
// programs in internal/experiment/replicate). Unless a dry run (synthetic
// blocks measure nothing), it first waits out the second after perf
// events closed: every switch in that second would pay for perf's
// scheduler hooks (host.WaitPerfHooksOff), keeping the cell's CPUs busy
// meanwhile.
func RunBlock(ctx context.Context, rn Runner, c Cell, req model.Request, timeout time.Duration) (model.Response, error) {
	if !rn.DryRun {
		if err := host.WaitPerfHooksOff(ctx, c.Affinity); err != nil {
			return model.Response{}, err
		}
	}
	return rn.Executor.Block(ctx, c, req, timeout)
}
