package result

// AA is an A/A self-test: the same cells measured in several independent
// sittings of one command, and what that says about this machine and
// ctxbench's method here — how much a figure moves from run to run, how
// often a run's interval held another run's figure, how often compare
// called two identical runs different, and the smallest change a run of
// this length can resolve.
type AA struct {
	Sittings int     `json:"sittings"`
	Alpha    float64 `json:"alpha"`
	// SittingSeconds is the wall time of each sitting.
	SittingSeconds []float64 `json:"sitting_seconds"`
	Cells          []AACell  `json:"cells"`
	// Coverage is, over every cell, the share of ordered pairs of sittings
	// (i, j), i ≠ j, in which sitting j's median lies inside sitting i's
	// interval; Pairs counts them. Honest 95% intervals of equal width
	// give about 83%.
	Coverage float64 `json:"coverage"`
	Pairs    int     `json:"pairs"`
	// FalsePositives of Comparisons: adjacent sittings of one cell that
	// compare's method called different (all of them are identical runs).
	FalsePositives int     `json:"false_positives"`
	Comparisons    int     `json:"comparisons"`
	FalseRate      float64 `json:"false_positive_rate"`
	// Resolvable is the median, over cells, of the smallest change compare
	// resolves between one sitting and the next: against reproducibility
	// (on host-adjusted figures where the sittings have them) where the
	// machine had learned it, else against the two sittings' precision.
	Resolvable float64 `json:"resolvable_change"`
	// ReproCoverage, ReproPairs, ReproFalsePositives and ReproComparisons
	// are the same checks for the reproducibility intervals, over the
	// sittings that had one (each learned from the machine's history up to
	// and including its own sitting): another sitting's median inside a
	// sitting's reproducibility interval, and adjacent sittings called
	// different when tested against reproducibility. Zero pairs: none had.
	ReproCoverage       float64 `json:"repro_coverage"`
	ReproPairs          int     `json:"repro_pairs"`
	ReproFalsePositives int     `json:"repro_false_positives"`
	ReproComparisons    int     `json:"repro_comparisons"`
	// Distinct says, for every two different cells, in how many sittings
	// their difference was resolved, their blocks paired by round (a power
	// check on real differences).
	Distinct []AADistinct `json:"distinct,omitempty"`
	// Runs are the sittings' results, one list per sitting.
	Runs [][]Result `json:"runs"`
}

// AACell is one cell across the sittings.
type AACell struct {
	Name      string    `json:"name"`
	Placement string    `json:"placement"`
	Medians   []float64 `json:"medians"` // one per sitting that measured it cleanly
	// Contended counts the sittings whose figure was flagged contended:
	// left out of every count below (no clean measurement).
	Contended int `json:"contended,omitempty"`
	// RunToRun is the coefficient of variation of the sittings' medians;
	// HalfWidth the mean relative half-width of their intervals (the
	// larger side): an interval narrower than the run-to-run variation
	// promises more than it can keep.
	RunToRun       float64 `json:"run_to_run_cv"`
	HalfWidth      float64 `json:"mean_ci_half_width"`
	Coverage       float64 `json:"coverage"`
	Pairs          int     `json:"pairs"`
	FalsePositives int     `json:"false_positives"`
	Comparisons    int     `json:"comparisons"`
	// Resolvable is the median over adjacent pairs of the smallest change
	// compare resolved between them (as AA.Resolvable);
	// PrecisionResolvable the same against precision alone.
	Resolvable          float64 `json:"resolvable_change"`
	PrecisionResolvable float64 `json:"precision_resolvable_change"`
	// BetweenBlocks is the median share of a sitting's variance that lies
	// between its blocks (0..1).
	BetweenBlocks float64 `json:"between_block_share"`
	// The reproducibility checks of this cell (see AA), and the
	// between-sitting CV the history had learned by the last sitting
	// (0: not learned).
	ReproCoverage       float64 `json:"repro_coverage"`
	ReproPairs          int     `json:"repro_pairs"`
	ReproFalsePositives int     `json:"repro_false_positives"`
	ReproComparisons    int     `json:"repro_comparisons"`
	BetweenCV           float64 `json:"between_cv"`
	ReproHalfWidth      float64 `json:"mean_repro_half_width"`
	// HostAdjusted counts the repro comparisons made on host-adjusted
	// figures.
	HostAdjusted int `json:"host_adjusted_comparisons,omitempty"`
}

// AADistinct is two different cells compared within each sitting.
type AADistinct struct {
	Base     string  `json:"base"`
	Other    string  `json:"other"`
	Resolved int     `json:"resolved"` // sittings in which the change was resolved
	Sittings int     `json:"sittings"`
	Change   float64 `json:"median_change"` // other/base − 1, median over sittings
}
