package result

// pools.go: the "pools" section of a result file, written by the
// connection-pool experiment (internal/experiment/pool), read by the report
// and compare. docs/pool.md says how each figure is obtained.

import (
	"github.com/ctxbench/ctxbench/internal/model"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// Result is the outcome of Run: the "pools" section of a ctxbench result file.
type Pools struct {
	Config      PoolConfig      `json:"config"`
	Method      PoolMethod      `json:"method"`
	Environment PoolEnvironment `json:"environment"`
	Servers     []PoolServer    `json:"servers"`
	// Verdicts holds one line per server.
	Verdicts []string `json:"verdicts"`
	// Warnings are conditions a reader must know (client-bound points, missing counters...).
	Warnings []string `json:"warnings"`
	// Swept lists directories of earlier killed runs that were cleaned up first.
	Swept []string `json:"swept,omitempty"`
}

// Method states how each figure was obtained.
type PoolMethod struct {
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
type PoolEnvironment struct {
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
type PoolServer struct {
	Server   string `json:"server"`
	Version  string `json:"version"`
	Embedded bool   `json:"embedded"`
	// ProcessCounters says whether the server's processes could be read from /proc
	// (false for a remote server: server switch and CPU figures are then absent).
	ProcessCounters bool             `json:"process_counters"`
	Baselines       []PoolBaseline   `json:"baselines"`
	Series          []PoolSeries     `json:"series"`
	Published       []PoolComparison `json:"published_comparison"`
	Verdict         string           `json:"verdict"`
	// FailedWindows are windows that failed twice while the server stayed up
	// and answered; their points are summarised from the repetitions that
	// succeeded (a point with none is absent). The run exits 1.
	FailedWindows []string `json:"failed_windows,omitempty"`
}

// Baseline is an idle window: the server and client running, no queries.
type PoolBaseline struct {
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
type PoolSeries struct {
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
	Points             []PoolPoint `json:"points"`
	Knee               *stats.Knee `json:"knee"`
	USL                *PoolUSL    `json:"usl"`
	Shape              string      `json:"shape"`
	// Uncertainty is the shape's, from the windows: the last point over
	// the peak with its interval (retrograde only when it lies below
	// 1 − 3%), bootstrap intervals of the USL parameters and the knee, and
	// why N* is withheld when it is.
	Uncertainty       *PoolShapeUncertainty `json:"shape_uncertainty,omitempty"`
	ClientBoundPoints []int                 `json:"client_bound_pools"`
	// Excluded are the pools left out of the knee and the fit (client-bound
	// or disturbed points describe the client or the machine, not the
	// server: Gunther's method).
	Excluded []int  `json:"excluded_from_fits,omitempty"`
	Note     string `json:"note,omitempty"`
}

// USLResult is the fit with the error, if any.
type PoolUSL struct {
	stats.USLFit
	Error string `json:"error,omitempty"`
}

// Estimate is a median over repeated windows with a distribution-free confidence
// interval (benchmath AssumeNothing); bounds are nil when too few windows exist.
type PoolEstimate struct {
	Median     float64  `json:"median"`
	CILow      *float64 `json:"ci_low"`
	CIHigh     *float64 `json:"ci_high"`
	Confidence float64  `json:"confidence"`
	N          int      `json:"n"`
}

// Point is one pool size of a series: a summary over its windows, and the windows.
type PoolPoint struct {
	Pool    int `json:"pool"`
	Workers int `json:"workers"`
	// QPS is queries per second.
	QPS       PoolEstimate `json:"qps"`
	LatencyNs struct {
		P50 PoolEstimate `json:"p50"`
		P90 PoolEstimate `json:"p90"`
		P99 PoolEstimate `json:"p99"`
		Max PoolEstimate `json:"max"`
	} `json:"latency_ns"`
	// PoolWaitNs is the mean time per query spent waiting for a connection;
	// HeldNs = mean latency − mean wait: time holding the connection (server time plus
	// the round trip and the client's own scheduling delay).
	PoolWaitNs float64 `json:"pool_wait_ns"`
	HeldNs     float64 `json:"held_ns"`
	// PerQuery holds medians over windows.
	PerQuery    PoolPerQuery `json:"per_query"`
	ServerUtil  float64      `json:"server_util"`
	ClientUtil  float64      `json:"client_util"`
	ClientBound bool         `json:"client_bound"`
	// ForeignUtil is the median share of the CPUs other processes used.
	ForeignUtil float64      `json:"foreign_util"`
	Windows     []PoolWindow `json:"windows"`
}

// PerQuery holds per-query costs. Switch counts of the client and the server's
// auxiliary tasks have the idle baseline subtracted; serving tasks have none to subtract
// (PostgreSQL backends do not exist when idle; Redis's event loop is subtracted too).
type PoolPerQuery struct {
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
type PoolWindow struct {
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
	Serving     *ProcCounters `json:"serving"`
	Aux         *ProcCounters `json:"aux"`
	Client      ProcRusage    `json:"client"`
	PerfSwitch  *uint64       `json:"perf_cpu_switches"`
	PerQuery    PoolPerQuery  `json:"per_query"`
	ServerUtil  float64       `json:"server_util"`
	ClientUtil  float64       `json:"client_util"`
	ClientBound bool          `json:"client_bound"`
	// ForeignUtil is the share of the window's CPUs used by anything other than the
	// server and the client (from /proc/stat); StealUtil the share the hypervisor took.
	ForeignUtil float64 `json:"foreign_util"`
	StealUtil   float64 `json:"steal_util"`
	// QuietWaitNs is how long the window waited for the CPUs to be quiet (QuietWait).
	QuietWaitNs int64         `json:"quiet_wait_ns"`
	Conns       PoolConnCheck `json:"connections"`
	GOMAXPROCS  int           `json:"gomaxprocs"`
}

// ConnCheck is the evidence that the window used the same connections throughout.
type PoolConnCheck struct {
	Opened int `json:"opened"`
	// Stable is true when the server-side connection ids (backend pids, Redis client
	// ids) were the same set before and after the window and the client library
	// reported no new or closed connection.
	Stable bool   `json:"stable"`
	Detail string `json:"detail"`
}

// Comparison is the published experiment: pool A (10) against pool B (90) with the
// same client, placement and workers.
type PoolComparison struct {
	Client    string `json:"client"`
	Placement string `json:"placement"`
	Workers   int    `json:"workers"`
	PoolA     int    `json:"pool_a"`
	PoolB     int    `json:"pool_b"`
	// QPSRatio is B/A (Hodges–Lehmann estimate over all window pairs) with a
	// Mann–Whitney-based interval; TimeRatio is its inverse: time for a fixed number of
	// queries (the published figure was 126/104 = 1.21).
	QPSRatio  PoolRatio `json:"qps_ratio"`
	TimeRatio PoolRatio `json:"time_ratio"`
	P         float64   `json:"p_value"`
	Alpha     float64   `json:"alpha"`
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
type PoolRatio struct {
	Estimate   float64  `json:"estimate"`
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence float64  `json:"confidence"`
}

// PoolConfig describes one connection-pool run (model.PoolConfig: the
// command line builds it, the pool engine runs it, the document records it).
type PoolConfig = model.PoolConfig

// ProcCounters are scheduler counters summed over a set of threads.
type ProcCounters struct {
	Voluntary   uint64 `json:"voluntary"`
	Involuntary uint64 `json:"involuntary"`
	// CPUNs is time on CPU in nanoseconds.
	CPUNs uint64 `json:"cpu_ns"`
	// RunqWaitNs is time spent runnable but waiting for a CPU (schedstat only, else 0).
	RunqWaitNs uint64 `json:"runq_wait_ns"`
	Threads    int    `json:"threads"`
}

// ProcRusage is the calling process's own resource usage (all threads, exited ones included).
type ProcRusage struct {
	Voluntary   uint64 `json:"voluntary"`
	Involuntary uint64 `json:"involuntary"`
	UserNs      uint64 `json:"user_ns"`
	SysNs       uint64 `json:"sys_ns"`
}

// NewPoolEstimate writes a window summary in the schema's form (nil bounds
// without an interval).
func NewPoolEstimate(w stats.WindowSummary) PoolEstimate {
	e := PoolEstimate{Median: w.Median, N: w.N}
	if w.OK {
		lo, hi := w.Lo, w.Hi
		e.CILow, e.CIHigh, e.Confidence = &lo, &hi, w.Confidence
	}
	return e
}

// NewPoolRatio writes a ratio estimate in the schema's form.
func NewPoolRatio(r stats.RatioEstimate) PoolRatio {
	out := PoolRatio{Estimate: r.Estimate}
	if r.OK {
		lo, hi := r.Lo, r.Hi
		out.Low, out.High, out.Confidence = &lo, &hi, r.Confidence
	}
	return out
}

// PoolShapeUncertainty is a curve's shape with what its windows allow.
type PoolShapeUncertainty struct {
	LastOverPeak     float64     `json:"last_over_peak"`
	LastOverPeakLow  float64     `json:"last_over_peak_low"`
	LastOverPeakHigh float64     `json:"last_over_peak_high"`
	Retrograde       bool        `json:"retrograde"`
	Alpha            *[2]float64 `json:"alpha_interval,omitempty"`
	Beta             *[2]float64 `json:"beta_interval,omitempty"`
	NStar            *[2]float64 `json:"n_star_interval,omitempty"`
	NStarWithheld    string      `json:"n_star_withheld,omitempty"`
	N95              *[2]int     `json:"n95_interval,omitempty"`
	KneedleShare     float64     `json:"kneedle_share"`
	Resamples        int         `json:"resamples"`
}
