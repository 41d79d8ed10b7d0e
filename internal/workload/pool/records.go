package pool

import "github.com/ctxbench/ctxbench/internal/workload/procs"

// records.go: what the engine measures, in its own terms. The experiment
// (internal/experiment/pool) writes these into the document's pools
// section (internal/result, pools.go); the engine knows nothing of the
// document. Where a type has exactly the schema's fields, the experiment
// converts it whole, so a field added on one side only stops the build.

// Method states how the engine obtains each figure of a window (the
// experiment adds how it analyses the curves).
type Method struct {
	Timing         string
	Latency        string
	PoolWait       string
	ServerSwitches string
	ClientSwitches string
	CPUTime        string
	Baseline       string
	Connections    string
	ClientBound    string
	Perf           string
}

// Environment records what the figures depend on besides the machine (the
// document's environment section carries CPU, kernel and virtualization).
type Environment struct {
	GoVersion    string
	NumCPU       int // runtime.NumCPU at start-up: fixed for the process
	AllowedCPUs  []int
	GOMAXPROCS   int // at the start of the run
	PgxVersion   string
	RedisVersion string
	ServerCPU    int
	ClientCPU    int
	Schedstat    bool
	PerfUsable   bool
	PerfReason   string
}

// Baseline is an idle window: the server and client running, no queries.
type Baseline struct {
	Placement string
	Seconds   float64
	// Rates per second.
	ServingSwitchesPerSec float64
	AuxSwitchesPerSec     float64
	ClientSwitchesPerSec  float64
	ClientCPUPerSec       float64
	PerfSwitchesPerSec    *float64
	// ForeignUtil is the share of the placement's CPUs other processes used meanwhile.
	ForeignUtil float64
}

// Window is one measured window.
type Window struct {
	Rep     int
	Seconds float64
	Queries uint64
	QPS     float64
	Latency Latency
	// PoolWaitNs is the mean wait for a connection per query; the quantile exists where
	// the client lets each wait be timed (pgxpool).
	PoolWaitNs    float64
	PoolWaitP99Ns *float64
	HeldNs        float64
	// ServerSeconds is the span the server's counter deltas cover: between the
	// midpoints of the two reads of /proc, which take CounterReadNs each under load.
	ServerSeconds float64
	CounterReadNs [2]int64
	// Raw counter deltas over the window; Serving and Aux are nil when the
	// server's processes cannot be read.
	Serving     *procs.Counters
	Aux         *procs.Counters
	Client      procs.Rusage
	PerfSwitch  *uint64
	PerQuery    PerQuery
	ServerUtil  float64
	ClientUtil  float64
	ClientBound bool
	// ForeignUtil is the share of the window's CPUs used by anything other than the
	// server and the client (from /proc/stat); StealUtil the share the hypervisor took.
	ForeignUtil float64
	StealUtil   float64
	// QuietWaitNs is how long the window waited for the CPUs to be quiet (QuietWait).
	QuietWaitNs int64
	Conns       ConnCheck
	GOMAXPROCS  int
}

// Latency is a window's client-measured latency per query, in ns.
type Latency struct {
	Mean, P50, P90, P99, P999, Max float64
}

// PerQuery holds a window's costs per query. Switch counts of the client and the
// server's auxiliary tasks have the idle baseline subtracted; serving tasks have none
// to subtract (PostgreSQL backends do not exist when idle; Redis's event loop is
// subtracted too).
type PerQuery struct {
	ServerVoluntary   *float64
	ServerInvoluntary *float64
	ServerAux         *float64
	ClientVoluntary   float64
	ClientInvoluntary float64
	ServerCPUNs       *float64
	ServerAuxCPUNs    *float64
	ServerRunqWaitNs  *float64
	ClientCPUNs       float64
	// PerfCPUSwitches is the server CPU's perf count per query, baseline subtracted;
	// it counts every switch on that CPU, switches away from idle included.
	PerfCPUSwitches *float64
}

// ConnCheck is the evidence that the window used the same connections throughout.
type ConnCheck struct {
	Opened int
	// Stable is true when the server-side connection ids (backend pids, Redis client
	// ids) were the same set before and after the window and the client library
	// reported no new or closed connection.
	Stable bool
	Detail string
}

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
