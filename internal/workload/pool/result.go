package pool

import (
	"github.com/ctxbench/ctxbench/internal/result"
)

// The experiment's data are the result schema's types (internal/result,
// pools.go): the engine fills them in, the report and compare read them.
type (
	Result       = result.Pools
	Method       = result.PoolMethod
	Environment  = result.PoolEnvironment
	ServerResult = result.PoolServer
	Baseline     = result.PoolBaseline
	Series       = result.PoolSeries
	USLResult    = result.PoolUSL
	Estimate     = result.PoolEstimate
	Point        = result.PoolPoint
	PerQuery     = result.PoolPerQuery
	Window       = result.PoolWindow
	ConnCheck    = result.PoolConnCheck
	Comparison   = result.PoolComparison
	Ratio        = result.PoolRatio
	Config       = result.PoolConfig
)

// WindowSpec names one window of the run (what Progress is told).
type WindowSpec struct {
	Server    string `json:"server"`
	Client    string `json:"client"`
	Placement string `json:"placement"`
	Pool      int    `json:"pool"`
	Workers   int    `json:"workers"`
	Rep       int    `json:"rep"`
}

// Progress receives the run's progress; implementations must be cheap and safe to call
// from the goroutine that runs the experiment.
type Progress interface {
	// Stage reports a setup or teardown step ("starting PostgreSQL").
	Stage(msg string)
	// Window reports that window i of n (1-based) is starting.
	Window(i, n int, w WindowSpec)
}

// NoProgress discards progress.
type NoProgress struct{}

// Stage implements Progress.
func (NoProgress) Stage(string) {}

// Window implements Progress.
func (NoProgress) Window(int, int, WindowSpec) {}
