package result

// load.go: the section of ctxbench load (docs/load.md). A LoadSeries is one kind
// of woken context at one placement swept over load levels; every latency
// is nanoseconds, every utilisation a fraction of the contexts' CPUs (0.5
// is 50%), every rate requests per second.

import (
	"fmt"
	"math"
)

// LoadSeries is one series of load levels.
type LoadSeries struct {
	Name      string `json:"name"` // load/thread, load/process
	Kind      string `json:"kind"` // thread, process
	Placement string `json:"placement"`
	// CPUGenerator and CPUContexts are where the generator and the contexts
	// were pinned (-1: not pinned); LoadCPUs how many CPUs the contexts'
	// utilisation is a share of.
	CPUGenerator int    `json:"cpu_generator"`
	CPUContexts  int    `json:"cpu_contexts"`
	LoadCPUs     int    `json:"load_cpus"`
	Label        string `json:"label"`
	Mechanism    string `json:"mechanism"`
	Contexts     int    `json:"contexts"`
	Arrivals     string `json:"arrivals"` // constant or poisson
	// KeepBusy says a SCHED_IDLE spinner kept the contexts' CPU from
	// idling between requests (--keep-busy).
	KeepBusy bool `json:"keep_busy,omitempty"`
	// WorkNS is the work per request asked for; WorkIters the iterations
	// of the work loop it became at WorkNSPerIter (measured on the
	// contexts' CPU before the levels ran).
	WorkNS        float64 `json:"work_ns"`
	WorkIters     uint64  `json:"work_iters"`
	WorkNSPerIter float64 `json:"work_ns_per_iter"`
	// BlockNS is each block's schedule, WarmupNS the part of it served but
	// not measured.
	BlockNS  int64 `json:"block_ns"`
	WarmupNS int64 `json:"warmup_ns"`
	// Sweep says what the levels were given as: utilization or rate.
	Sweep  string      `json:"sweep"`
	Levels []LoadLevel `json:"levels"`
	// Knee is where the corrected p99 departs from the lightest level's.
	Knee *LoadKnee `json:"knee"`
	// Reference is the ladder's hop at the same placement measured in the
	// same sitting, beside the lightest level's wake-up p50.
	Reference *LoadReference `json:"reference,omitempty"`
	Flags     []Flag         `json:"flags"`
}

// LoadLevel is one load level: what was asked, what was achieved, and the
// latencies, each percentile with its interval (blocks as the unit).
type LoadLevel struct {
	// TargetUtilization is the utilisation asked for (null when the sweep
	// is by rate); TargetRate the rate scheduled (calibrated to the
	// utilisation, or as given).
	TargetUtilization *float64 `json:"target_utilization"`
	TargetRate        float64  `json:"target_rate"`
	// Calibration is the probe blocks that found TargetRate.
	Calibration []LoadProbe `json:"calibration,omitempty"`
	// AchievedRate is the measured requests served per second of the
	// measured window; AchievedUtilization the CPU time the load took on
	// the contexts' CPUs over the window (mean of the blocks, with their
	// range); CPUBusy the same CPUs' busy share from their idle time (other
	// work included), a cross-check.
	AchievedRate            float64   `json:"achieved_rate"`
	AchievedUtilization     float64   `json:"achieved_utilization"`
	AchievedUtilizationLow  float64   `json:"achieved_utilization_low"`
	AchievedUtilizationHigh float64   `json:"achieved_utilization_high"`
	CPUBusy                 float64   `json:"cpu_busy"`
	Requests                LoadCount `json:"requests"`
	// Status is "ok", or "behind" when the generator or the contexts could
	// not keep the schedule (StatusReason says how): such a level's
	// latencies are not reported as latencies.
	Status       string      `json:"status"`
	StatusReason string      `json:"status_reason,omitempty"`
	GeneratorLag LoadLatency `json:"generator_lag"`
	Wakeup       LoadLatency `json:"wakeup"`
	Corrected    LoadLatency `json:"request_corrected"`
	Uncorrected  LoadLatency `json:"request_uncorrected"`
	Service      LoadLatency `json:"service"`
	Queueing     LoadLatency `json:"queueing"`
	// Omitted is what the uncorrected latencies leave out at p99.9 and at
	// the maximum: the corrected figure minus the uncorrected one (null
	// where either is not measured).
	Omitted *LoadOmitted `json:"omitted_by_uncorrected"`
	// Switches per served request, counted on the contexts (getrusage),
	// and the generator's; RunDelayPerRequestNS is the kernel's account of
	// the contexts' waiting (schedstat run delay) per request, beside
	// MeanWaitNS, the mean of the measured wake-up and queueing per request.
	Switches             LoadSwitches `json:"switches_per_request"`
	GeneratorSwitches    LoadSwitches `json:"generator_switches_per_request"`
	RunDelayPerRequestNS *float64     `json:"run_delay_per_request_ns"`
	MeanWaitNS           float64      `json:"mean_wait_ns"`
	Blocks               []LoadBlock  `json:"blocks"`
	Flags                []Flag       `json:"flags"`
	// Capture is the level's captured slow wake-ups (--capture-above; nil
	// without): traced blocks at the same rate, interleaved with the
	// level's own.
	Capture *Capture `json:"capture,omitempty"`
}

// LoadProbe is one calibration block: the rate it ran and the utilisation
// it achieved.
type LoadProbe struct {
	Rate        float64 `json:"rate"`
	Utilization float64 `json:"utilization"`
}

// LoadCount counts a level's requests over its blocks.
type LoadCount struct {
	Scheduled uint64 `json:"scheduled"` // on the schedules, warm-up included
	Posted    uint64 `json:"posted"`
	Measured  uint64 `json:"measured"` // served, intended after the warm-up
	Dropped   uint64 `json:"dropped"`
	Unserved  uint64 `json:"unserved"`
	Hops      uint64 `json:"hops"`   // measured requests that woke a sleeping context
	Queued    uint64 `json:"queued"` // measured requests that found their context awake
}

// LoadSwitches is context switches per request.
type LoadSwitches struct {
	Voluntary   float64 `json:"voluntary"`
	Involuntary float64 `json:"involuntary"`
}

// LoadLatency is one latency of a level over all its blocks.
type LoadLatency struct {
	Count  uint64      `json:"count"`
	MeanNS float64     `json:"mean_ns"`
	MaxNS  float64     `json:"max_ns"`
	P50    *Percentile `json:"p50"`
	P90    *Percentile `json:"p90"`
	P99    *Percentile `json:"p99"`
	P99_9  *Percentile `json:"p99_9"`
	// Unmeasured says why a percentile or its interval is missing.
	Unmeasured []string `json:"unmeasured,omitempty"`
	// Histogram is every value of every block, in HdrHistogram's layout.
	Histogram *LoadHistogram `json:"histogram,omitempty"`
}

// Percentiles are the four a latency states, by name.
func (l *LoadLatency) Percentiles() []struct {
	Name string
	Q    float64
	P    *Percentile
} {
	return []struct {
		Name string
		Q    float64
		P    *Percentile
	}{{"p50", 0.5, l.P50}, {"p90", 0.9, l.P90}, {"p99", 0.99, l.P99}, {"p99_9", 0.999, l.P99_9}}
}

// Percentile is one percentile: its value over all blocks, its interval
// (null where the blocks cannot give one; LoadLatency.Unmeasured says
// why) and each block's own.
type Percentile struct {
	NS         float64   `json:"ns"`
	CILow      *float64  `json:"ci_low"`
	CIHigh     *float64  `json:"ci_high"`
	Confidence float64   `json:"confidence,omitempty"`
	BlockNS    []float64 `json:"block_ns"`
}

// LoadHistogram is a histogram in HdrHistogram's layout (lowest and
// highest trackable value, significant figures), sparse: Count[i] values
// fell in the bucket at Index[i]; ValueNS[i] is that bucket's highest
// value, for readers without an HdrHistogram.
type LoadHistogram struct {
	Lowest             int64     `json:"lowest"`
	Highest            int64     `json:"highest"`
	SignificantFigures int       `json:"significant_figures"`
	Index              []int     `json:"index"`
	ValueNS            []float64 `json:"value_ns"`
	Count              []uint64  `json:"count"`
}

// LoadOmitted is what latency measured from the post leaves out.
type LoadOmitted struct {
	P99_9NS *float64 `json:"p99_9_ns"`
	MaxNS   float64  `json:"max_ns"`
}

// LoadBlock is one block of a level.
type LoadBlock struct {
	Round               int     `json:"round"`
	Requests            uint64  `json:"requests"` // measured
	AchievedRate        float64 `json:"achieved_rate"`
	AchievedUtilization float64 `json:"achieved_utilization"`
	CPUBusy             float64 `json:"cpu_busy"`
	OtherShare          float64 `json:"other_share"`
	StealShare          float64 `json:"steal_share"`
	Reruns              int     `json:"reruns,omitempty"`
	Contended           bool    `json:"contended,omitempty"`
}

// LoadKnee is the load at which the tail departs: the achieved utilisation
// at which the corrected p99 reaches Factor times the lightest level's
// (BaseNS), interpolated between levels on the log of the latency, with
// the interval of a bootstrap over each level's blocks. Utilization is
// null when the curve does not get there within the levels measured (Note
// says which way).
type LoadKnee struct {
	Metric      string   `json:"metric"`
	Factor      float64  `json:"factor"`
	BaseNS      float64  `json:"base_ns"`
	Utilization *float64 `json:"utilization"`
	Low         *float64 `json:"low"`
	High        *float64 `json:"high"`
	Confidence  float64  `json:"confidence"`
	Resamples   int      `json:"resamples"`
	Note        string   `json:"note,omitempty"`
}

// LoadReference is the ladder's hop beside the lightest level: the same
// mechanism and placement measured as a ping-pong in the same sitting.
type LoadReference struct {
	Name        string  `json:"name"`
	Placement   string  `json:"placement"`
	HopNS       float64 `json:"hop_ns"`
	HopCILow    float64 `json:"hop_ci_low"`
	HopCIHigh   float64 `json:"hop_ci_high"`
	Utilization float64 `json:"utilization"` // the level's achieved utilisation
	WakeupP50NS float64 `json:"wakeup_p50_ns"`
	Ratio       float64 `json:"ratio"` // wake-up p50 / hop
	Note        string  `json:"note,omitempty"`
}

// LevelName names a level as tables and compare do: "50%" for a
// utilisation, "2000/s" for a rate.
func (l *LoadLevel) LevelName() string {
	if l.TargetUtilization != nil {
		return fmt.Sprintf("%g%%", math.Round(1000**l.TargetUtilization)/10)
	}
	return fmt.Sprintf("%g/s", math.Round(l.TargetRate))
}

// Reported says the level's latencies are reported as latencies.
func (l *LoadLevel) Reported() bool { return l.Status == LoadOK }

// The statuses of a level.
const (
	LoadOK     = "ok"
	LoadBehind = "behind"
)

func validateLoad(i int, l *LoadSeries) error {
	where := fmt.Sprintf("loads[%d] (%s %s)", i, l.Name, l.Placement)
	if l.Name == "" || l.Placement == "" || l.Contexts < 1 {
		return fmt.Errorf("%s: missing name, placement or contexts", where)
	}
	if l.Sweep != "utilization" && l.Sweep != "rate" {
		return fmt.Errorf("%s: sweep %q is neither utilization nor rate", where, l.Sweep)
	}
	for j := range l.Levels {
		v := &l.Levels[j]
		if v.Status != LoadOK && v.Status != LoadBehind {
			return fmt.Errorf("%s level %d: status %q", where, j, v.Status)
		}
		if !(v.TargetRate > 0) || v.AchievedUtilization < 0 || math.IsNaN(v.AchievedUtilization) {
			return fmt.Errorf("%s level %d: target rate %v, achieved utilization %v", where, j, v.TargetRate, v.AchievedUtilization)
		}
		if (l.Sweep == "utilization") != (v.TargetUtilization != nil) {
			return fmt.Errorf("%s level %d: a %s sweep's level must %shave a target utilization", where, j, l.Sweep, map[bool]string{true: "", false: "not "}[l.Sweep == "utilization"])
		}
		for _, lat := range []*LoadLatency{&v.GeneratorLag, &v.Wakeup, &v.Corrected, &v.Uncorrected, &v.Service, &v.Queueing} {
			prev := 0.0
			for _, p := range lat.Percentiles() {
				if p.P == nil {
					continue
				}
				if p.P.NS < prev || (p.P.CILow != nil && p.P.CIHigh != nil && !(*p.P.CILow <= p.P.NS && p.P.NS <= *p.P.CIHigh)) {
					return fmt.Errorf("%s level %d: %s out of order or outside its interval", where, j, p.Name)
				}
				prev = p.P.NS
			}
		}
	}
	return nil
}
