package machine

import (
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/result"
)

// perfInfo says that macOS has no perf events (platform.PerfEvents).
func perfInfo(host.Root, Options) result.PerfInfo {
	_, why := platform.Darwin.Gives(platform.PerfEvents)
	return result.PerfInfo{Paranoid: 99, Reason: why}
}
