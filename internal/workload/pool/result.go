package pool

import (
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// Result is the outcome of Run: the "pools" section of a ctxbench result file.
type Result struct {
	Config      Config         `json:"config"`
	Method      Method         `json:"method"`
	Environment Environment    `json:"environment"`
	Servers     []ServerResult `json:"servers"`
	// Verdicts holds one line per server.
	Verdicts []string `json:"verdicts"`
	// Warnings are conditions a reader must know (client-bound points, missing counters...).
	Warnings []string `json:"warnings"`
	// Swept lists directories of earlier killed runs that were cleaned up first.
	Swept []string `json:"swept,omitempty"`
}

// Method states how each figure was obtained.
type Method struct {
	Timing          string `json:"timing"`
	Latency         string `json:"latency"`
	PoolWait        string `json:"pool_wait"`
	ServerSwitches  string `json:"server_switches"`
	ClientSwitches  string `json:"client_switches"`
	CPUTime         string `json:"cpu_time"`
	Baseline        string `json:"baseline"`
	Connections     string `json:"connections"`
	ClientBound     string `json:"client_bound"`
	Perf            string `json:"perf"`
	Knee            string `json:"knee"`
	USL             string `json:"usl"`
	Comparison      string `json:"comparison"`
	IntervalsMedian string `json:"intervals"`
}

// Environment records what the figures depend on besides the machine (the lead's
// environment section carries CPU, kernel and virtualization).
type Environment struct {
	GoVersion    string `json:"go_version"`
	NumCPU       int    `json:"num_cpu"` // runtime.NumCPU at start-up: fixed for the process
	AllowedCPUs  []int  `json:"allowed_cpus"`
	GOMAXPROCS   int    `json:"gomaxprocs"` // at the start of the run
	PgxVersion   string `json:"pgx_version"`
	RedisVersion string `json:"go_redis_version"`
	ServerCPU    int    `json:"server_cpu"`
	ClientCPU    int    `json:"client_cpu"`
	Schedstat    bool   `json:"schedstat"`
	PerfUsable   bool   `json:"perf_usable"`
	PerfReason   string `json:"perf_reason,omitempty"`
}

// ServerResult holds one server's curves.
type ServerResult struct {
	Server   string `json:"server"`
	Version  string `json:"version"`
	Embedded bool   `json:"embedded"`
	// ProcessCounters says whether the server's processes could be read from /proc
	// (false for a remote server: server switch and CPU figures are then absent).
	ProcessCounters bool         `json:"process_counters"`
	Baselines       []Baseline   `json:"baselines"`
	Series          []Series     `json:"series"`
	Published       []Comparison `json:"published_comparison"`
	Verdict         string       `json:"verdict"`
	// FailedWindows are windows that failed twice while the server stayed up
	// and answered; their points are summarised from the repetitions that
	// succeeded (a point with none is absent). The run exits 1.
	FailedWindows []string `json:"failed_windows,omitempty"`
}

// Baseline is an idle window: the server and client running, no queries.
type Baseline struct {
	Placement string  `json:"placement"`
	Seconds   float64 `json:"seconds"`
	// Rates per second.
	ServingSwitchesPerSec float64  `json:"serving_switches_per_sec"`
	AuxSwitchesPerSec     float64  `json:"aux_switches_per_sec"`
	ClientSwitchesPerSec  float64  `json:"client_switches_per_sec"`
	ClientCPUPerSec       float64  `json:"client_cpu_per_sec"`
	PerfSwitchesPerSec    *float64 `json:"perf_cpu_switches_per_sec"`
	// ForeignUtil is the share of the placement's CPUs other processes used meanwhile.
	ForeignUtil float64 `json:"foreign_util"`
}

// Series is one curve: fixed server, client, placement and worker rule, varying pool.
type Series struct {
	Server    string `json:"server"`
	Client    string `json:"client"`
	Placement string `json:"placement"`
	// Workers is the worker count, or 0 for "as many workers as connections".
	Workers    int   `json:"workers"`
	ServerCPUs []int `json:"server_cpus"`
	ClientCPUs []int `json:"client_cpus"`
	// GOMAXPROCS during the windows (set to the number of client CPUs).
	GOMAXPROCS int `json:"gomaxprocs"`
	// LibraryDefaultPool is what the client library would have picked as pool size
	// under this placement had it not been set explicitly.
	LibraryDefaultPool int         `json:"library_default_pool"`
	Points             []Point     `json:"points"`
	Knee               *stats.Knee `json:"knee"`
	USL                *USLResult  `json:"usl"`
	Shape              string      `json:"shape"`
	ClientBoundPoints  []int       `json:"client_bound_pools"`
	Note               string      `json:"note,omitempty"`
}

// USLResult is the fit with the error, if any.
type USLResult struct {
	stats.USLFit
	Error string `json:"error,omitempty"`
}

// Estimate is a median over repeated windows with a distribution-free confidence
// interval (benchmath AssumeNothing); bounds are nil when too few windows exist.
type Estimate struct {
	Median     float64  `json:"median"`
	CILow      *float64 `json:"ci_low"`
	CIHigh     *float64 `json:"ci_high"`
	Confidence float64  `json:"confidence"`
	N          int      `json:"n"`
}

// Point is one pool size of a series: a summary over its windows, and the windows.
type Point struct {
	Pool    int `json:"pool"`
	Workers int `json:"workers"`
	// QPS is queries per second.
	QPS       Estimate `json:"qps"`
	LatencyNs struct {
		P50 Estimate `json:"p50"`
		P90 Estimate `json:"p90"`
		P99 Estimate `json:"p99"`
		Max Estimate `json:"max"`
	} `json:"latency_ns"`
	// PoolWaitNs is the mean time per query spent waiting for a connection;
	// HeldNs = mean latency − mean wait: time holding the connection (server time plus
	// the round trip and the client's own scheduling delay).
	PoolWaitNs float64 `json:"pool_wait_ns"`
	HeldNs     float64 `json:"held_ns"`
	// PerQuery holds medians over windows.
	PerQuery    PerQuery `json:"per_query"`
	ServerUtil  float64  `json:"server_util"`
	ClientUtil  float64  `json:"client_util"`
	ClientBound bool     `json:"client_bound"`
	// ForeignUtil is the median share of the CPUs other processes used.
	ForeignUtil float64  `json:"foreign_util"`
	Windows     []Window `json:"windows"`
}

// PerQuery holds per-query costs. Switch counts of the client and the server's
// auxiliary tasks have the idle baseline subtracted; serving tasks have none to subtract
// (PostgreSQL backends do not exist when idle; Redis's event loop is subtracted too).
type PerQuery struct {
	ServerVoluntary   *float64 `json:"server_voluntary"`
	ServerInvoluntary *float64 `json:"server_involuntary"`
	ServerAux         *float64 `json:"server_aux"`
	ClientVoluntary   float64  `json:"client_voluntary"`
	ClientInvoluntary float64  `json:"client_involuntary"`
	ServerCPUNs       *float64 `json:"server_cpu_ns"`
	ServerAuxCPUNs    *float64 `json:"server_aux_cpu_ns"`
	ServerRunqWaitNs  *float64 `json:"server_runq_wait_ns"`
	ClientCPUNs       float64  `json:"client_cpu_ns"`
	// PerfCPUSwitches is `perf stat -C <server CPU>` per query, baseline subtracted; it
	// counts every switch on that CPU, switches away from idle included.
	PerfCPUSwitches *float64 `json:"perf_cpu_switches"`
}

// Window is one measured window.
type Window struct {
	Rep     int     `json:"rep"`
	Seq     int     `json:"seq"` // position in the run's visiting order
	Seconds float64 `json:"seconds"`
	Queries uint64  `json:"queries"`
	QPS     float64 `json:"qps"`
	Latency struct {
		Mean float64 `json:"mean"`
		P50  float64 `json:"p50"`
		P90  float64 `json:"p90"`
		P99  float64 `json:"p99"`
		P999 float64 `json:"p999"`
		Max  float64 `json:"max"`
	} `json:"latency_ns"`
	// PoolWaitNs is the mean wait for a connection per query; the quantiles exist where
	// the client lets each wait be timed (pgxpool).
	PoolWaitNs    float64  `json:"pool_wait_ns"`
	PoolWaitP99Ns *float64 `json:"pool_wait_p99_ns"`
	HeldNs        float64  `json:"held_ns"`
	// ServerSeconds is the span the server's counter deltas cover: between the
	// midpoints of the two reads of /proc, which take CounterReadNs each under load.
	ServerSeconds float64  `json:"server_seconds"`
	CounterReadNs [2]int64 `json:"counter_read_ns"`
	// Raw counter deltas over the window.
	Serving     *procs.Counters `json:"serving"`
	Aux         *procs.Counters `json:"aux"`
	Client      procs.Rusage    `json:"client"`
	PerfSwitch  *uint64         `json:"perf_cpu_switches"`
	PerQuery    PerQuery        `json:"per_query"`
	ServerUtil  float64         `json:"server_util"`
	ClientUtil  float64         `json:"client_util"`
	ClientBound bool            `json:"client_bound"`
	// ForeignUtil is the share of the window's CPUs used by anything other than the
	// server and the client (from /proc/stat); StealUtil the share the hypervisor took.
	ForeignUtil float64 `json:"foreign_util"`
	StealUtil   float64 `json:"steal_util"`
	// QuietWaitNs is how long the window waited for the CPUs to be quiet (QuietWait).
	QuietWaitNs int64     `json:"quiet_wait_ns"`
	Conns       ConnCheck `json:"connections"`
	GOMAXPROCS  int       `json:"gomaxprocs"`
}

// ConnCheck is the evidence that the window used the same connections throughout.
type ConnCheck struct {
	Opened int `json:"opened"`
	// Stable is true when the server-side connection ids (backend pids, Redis client
	// ids) were the same set before and after the window and the client library
	// reported no new or closed connection.
	Stable bool   `json:"stable"`
	Detail string `json:"detail"`
}

// Comparison is the published experiment: pool A (10) against pool B (90) with the
// same client, placement and workers.
type Comparison struct {
	Client    string `json:"client"`
	Placement string `json:"placement"`
	Workers   int    `json:"workers"`
	PoolA     int    `json:"pool_a"`
	PoolB     int    `json:"pool_b"`
	// QPSRatio is B/A (Hodges–Lehmann estimate over all window pairs) with a
	// Mann–Whitney-based interval; TimeRatio is its inverse: time for a fixed number of
	// queries (the published figure was 126/104 = 1.21).
	QPSRatio  Ratio   `json:"qps_ratio"`
	TimeRatio Ratio   `json:"time_ratio"`
	P         float64 `json:"p_value"`
	Alpha     float64 `json:"alpha"`
	// Medians at A and B.
	QPSA            float64  `json:"qps_a"`
	QPSB            float64  `json:"qps_b"`
	P99Ratio        float64  `json:"p99_ratio"`
	ServerSwitchesA *float64 `json:"server_switches_per_query_a"`
	ServerSwitchesB *float64 `json:"server_switches_per_query_b"`
	ClientSwitchesA float64  `json:"client_switches_per_query_a"`
	ClientSwitchesB float64  `json:"client_switches_per_query_b"`
	TotalSwitchesA  *float64 `json:"total_switches_per_query_a"`
	TotalSwitchesB  *float64 `json:"total_switches_per_query_b"`
	// BlogDirectionHolds: pool B took longer per query than pool A;
	// SignificantlySlower: and the interval excludes no difference, p < alpha.
	BlogDirectionHolds  bool   `json:"blog_direction_holds"`
	SignificantlySlower bool   `json:"significantly_slower"`
	Summary             string `json:"summary"`
}

// Ratio is a ratio with its interval.
type Ratio struct {
	Estimate   float64  `json:"estimate"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
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
