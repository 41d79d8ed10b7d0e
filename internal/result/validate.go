package result

// validate.go: the values a result file cannot hold. A file can be
// well-formed JSON of the right schema and still say something no
// measurement produces — a time of zero or less, an interval that does not
// hold its own median, blocks whose samples do not add up to the samples.
// Every consumer (compare's tests, the report's charts, the history)
// computes from these figures without checking them again, so a file
// holding one is refused as a whole, naming the figure and the field,
// rather than turned into a confident table of nonsense.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// invalid is the FormatError of an impossible value at where.
func invalid(where, format string, a ...any) error {
	return &FormatError{Reason: where + ": " + fmt.Sprintf(format, a...), Value: true}
}

// num writes a figure as the file would (NaN and infinities by name).
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// finite reports whether v is an ordinary number.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// checkTime checks a summary of times: its median is a positive, finite
// number of nanoseconds (or cycles), and its interval, where it has one,
// holds that median.
func checkTime(where, field string, s stats.Summary) error {
	if !finite(s.Median) || s.Median <= 0 {
		return invalid(where, "%s.median is %s, not a time", field, num(s.Median))
	}
	// A summary that recorded no interval at all (no bounds, no
	// confidence) has nothing to check; the renderers show it as ± ∞.
	if s.CILow == 0 && s.CIHigh == 0 && s.Confidence == 0 {
		return nil
	}
	// The negated comparisons also catch NaN bounds, which compare false.
	if !(s.CILow <= s.Median) || !finite(s.CILow) {
		return invalid(where, "%s.ci_low is %s, above the median %s: the interval does not hold its median", field, num(s.CILow), num(s.Median))
	}
	if !(s.CIHigh >= s.Median) || !finite(s.CIHigh) {
		return invalid(where, "%s.ci_high is %s, below the median %s: the interval does not hold its median", field, num(s.CIHigh), num(s.Median))
	}
	return nil
}

// checkOptionalTime checks a summary that a file may leave out or leave
// empty (a figure not measured has no samples).
func checkOptionalTime(where, field string, s *stats.Summary) error {
	if s == nil || s.N == 0 {
		return nil
	}
	return checkTime(where, field, *s)
}

// checkCycles checks a summary of TSC cycles, where present: only its
// median, the one figure of it anything reads (a beside-the-time column),
// is checked, so a cycle interval nothing shows cannot refuse a file.
func checkCycles(where, field string, s *stats.Summary) error {
	if s == nil || s.N == 0 {
		return nil
	}
	if !finite(s.Median) || s.Median <= 0 {
		return invalid(where, "%s.median is %s, not a time", field, num(s.Median))
	}
	return nil
}

// checkRepro checks a reproducibility interval: it holds the figure's
// median, as the precision interval it widens does.
func checkRepro(where, field string, r *Reproducibility, median float64) error {
	if r == nil {
		return nil
	}
	if !finite(r.Low) || !finite(r.High) || r.Low > median || r.High < median {
		return invalid(where, "%s.reproducibility [%s, %s] does not hold the median %s", field, num(r.Low), num(r.High), num(median))
	}
	return nil
}

// checkSwitches checks a counted switches-per-hop figure: a count, so
// never negative.
func checkSwitches(where string, v *float64) error {
	if v != nil && (!finite(*v) || *v < 0) {
		return invalid(where, "switches_per_hop is %s, not a count", num(*v))
	}
	return nil
}

// checkSamples checks raw samples of a time: each a positive, finite
// number of nanoseconds. A summary can hold its median while a sample it
// was drawn from is impossible, and every consumer that recomputes from
// the samples (compare's tests, the report's charts) would take it as
// measured.
func checkSamples(where, field string, samples []float64) error {
	for i, v := range samples {
		if !finite(v) || v <= 0 {
			return invalid(where, "%s[%d] is %s, not a time", field, i, num(v))
		}
	}
	return nil
}

// checkBlocks checks that blocks and block_info describe the samples: as
// many blocks as block_info lists, none holding a negative count, their
// samples adding up to the samples. A file written before blocks were
// recorded (schema version 1) has a count but no block_info: only the
// count's sign can be checked there.
func checkBlocks(where string, blocks int, info []BlockInfo, samples int) error {
	if blocks < 0 {
		return invalid(where, "blocks is %d, not a count", blocks)
	}
	if len(info) == 0 {
		return nil
	}
	if blocks != len(info) {
		return invalid(where, "blocks is %d but block_info lists %d blocks", blocks, len(info))
	}
	return checkBlockSizes(where, "block_info", BlockSizes(info), samples)
}

// checkBlockSizes checks samples per block against the samples.
func checkBlockSizes(where, field string, sizes []int, samples int) error {
	total := 0
	for i, n := range sizes {
		if n < 0 {
			return invalid(where, "%s[%d] holds %d samples, not a count", field, i, n)
		}
		total += n
	}
	if total != samples {
		return invalid(where, "%s holds %d samples in all but there are %d samples", field, total, samples)
	}
	return nil
}

// validateResult checks one row of the switch ladder.
func validateResult(i int, r *Result) error {
	where := fmt.Sprintf("results[%d]", i)
	switch {
	case r.Name == "":
		return &FormatError{Reason: where + ": no name"}
	case r.Rung == "":
		return &FormatError{Reason: where + " (" + r.Name + "): no rung"}
	case r.Placement == "":
		return &FormatError{Reason: where + " (" + r.Name + "): no placement"}
	}
	where += " (" + r.Name + " " + r.Placement + ")"
	if r.OneWayNS.N != len(r.Samples) {
		return invalid(where, "one_way_ns.n is %d but there are %d samples", r.OneWayNS.N, len(r.Samples))
	}
	if err := checkTime(where, "one_way_ns", r.OneWayNS.Summary); err != nil {
		return err
	}
	if err := checkSamples(where, "samples", r.Samples); err != nil {
		return err
	}
	if err := checkRepro(where, "one_way_ns", r.OneWayNS.Reproducibility, r.OneWayNS.Median); err != nil {
		return err
	}
	if err := checkCycles(where, "one_way_cycles", r.OneWayCycles); err != nil {
		return err
	}
	if err := checkSwitches(where, r.SwitchesPerHop); err != nil {
		return err
	}
	return checkBlocks(where, r.Blocks, r.BlockInfo, len(r.Samples))
}

// validateRing checks one point of a ring sweep. Its net figures are
// differences and may be zero or negative (the file flags them); its raw
// and overhead figures are times.
func validateRing(i int, r *Ring) error {
	where := fmt.Sprintf("rings[%d] (%s %s)", i, r.Point(), r.Placement)
	if err := checkTime(where, "raw_ns_per_hop", r.RawNS); err != nil {
		return err
	}
	if err := checkSamples(where, "samples", r.Samples); err != nil {
		return err
	}
	if err := checkOptionalTime(where, "overhead_ns_per_hop", &r.OverheadNS); err != nil {
		return err
	}
	if err := checkOptionalTime(where, "overhead_hot_ns_per_hop", r.OverheadHotNS); err != nil {
		return err
	}
	if err := checkCycles(where, "raw_cycles_per_hop", r.RawCycles); err != nil {
		return err
	}
	if err := checkCycles(where, "overhead_cycles_per_hop", r.OverheadCycles); err != nil {
		return err
	}
	if err := checkSwitches(where, r.SwitchesPerHop); err != nil {
		return err
	}
	return checkBlocks(where, r.Blocks, r.BlockInfo, len(r.Samples))
}

// validateSpawn checks one creation figure.
func validateSpawn(i int, s *Spawn) error {
	where := fmt.Sprintf("spawn[%d] (%s)", i, s.Name)
	if err := checkTime(where, "per_create_ns", s.PerCreateNS); err != nil {
		return err
	}
	if err := checkSamples(where, "samples", s.Samples); err != nil {
		return err
	}
	if len(s.BlockSamples) == 0 {
		return nil // written before blocks were recorded: one block
	}
	return checkBlockSizes(where, "block_samples", s.BlockSamples, len(s.Samples))
}
