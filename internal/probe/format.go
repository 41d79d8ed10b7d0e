package probe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// FormatVersion is the value of every line's "format" field. A probe that changes the meaning
// of a field must bump it.
const FormatVersion = "ctxbench-probe/1"

// Kind says what a block measured.
type Kind string

// The kinds of block a probe prints.
const (
	KindSwitch      Kind = "switch"      // samples_ns: ns per sample of `iterations` ops of hops_per_op hops
	KindSpawn       Kind = "spawn"       // samples_ns: ns per sample of `iterations` context creations
	KindMemory      Kind = "memory"      // samples_bytes: bytes per sample of `iterations` parked contexts
	KindUnavailable Kind = "unavailable" // the probe itself found it cannot measure this here; see reason
)

// Block is one parsed line of probe output: one measured block.
type Block struct {
	Format string `json:"format"`
	Kind   Kind   `json:"kind"`
	// Name is "<language>/<probe bench>", e.g. "erlang/pingpong".
	Name string `json:"name"`
	// Op says in words what one op is.
	Op string `json:"op,omitempty"`
	// HopsPerOp is how many one-way switches one op makes (switch blocks only).
	HopsPerOp int `json:"hops_per_op,omitempty"`
	// Iterations is ops per sample (switch, spawn) or parked contexts per sample (memory).
	Iterations int64 `json:"iterations,omitempty"`
	// WarmupSamples is how many untimed samples ran before the timed ones.
	WarmupSamples int `json:"warmup_samples"`
	// TotalOps counts every op the probe ran, calibration and warm-up included.
	TotalOps int64 `json:"total_ops,omitempty"`
	// CtxSwitches is the OS context switches (voluntary + involuntary, all threads of the
	// probe process) counted across the timed samples only; nil when the probe cannot count.
	CtxSwitches *int64 `json:"ctx_switches,omitempty"`
	// Metric says what a memory block's bytes are (e.g. heap delta after GC, VmRSS delta).
	Metric string `json:"metric,omitempty"`
	// Settings are the knobs the probe ran with, as it read them back from its runtime.
	// Values are the JSON text of a string, number or boolean, converted to a string.
	Settings map[string]string `json:"settings"`
	// SamplesNs holds ns per timed sample (switch, spawn).
	SamplesNs []float64 `json:"samples_ns,omitempty"`
	// SamplesBytes holds bytes per timed sample (memory).
	SamplesBytes []float64 `json:"samples_bytes,omitempty"`
	// Reason says why an unavailable block could not be measured.
	Reason string `json:"reason,omitempty"`
}

// FormatError is a malformed probe output line.
type FormatError struct {
	Line int // 1-based line number in the probe's stdout
	Msg  string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("probe output line %d: %s", e.Line, e.Msg)
}

// rawBlock mirrors Block with settings left raw so their value types can be checked.
type rawBlock struct {
	Format        string                     `json:"format"`
	Kind          Kind                       `json:"kind"`
	Name          string                     `json:"name"`
	Op            string                     `json:"op"`
	HopsPerOp     *int                       `json:"hops_per_op"`
	Iterations    *int64                     `json:"iterations"`
	WarmupSamples *int                       `json:"warmup_samples"`
	TotalOps      *int64                     `json:"total_ops"`
	CtxSwitches   *int64                     `json:"ctx_switches"`
	Metric        string                     `json:"metric"`
	Settings      map[string]json.RawMessage `json:"settings"`
	SamplesNs     []float64                  `json:"samples_ns"`
	SamplesBytes  []float64                  `json:"samples_bytes"`
	Reason        string                     `json:"reason"`
}

// ParseLine parses and validates one line of probe output. Unknown fields, wrong types,
// missing fields and impossible values (non-positive or non-finite times, counts that do not
// add up) are errors: a probe that prints them is broken, and its figures are not reported.
func ParseLine(line []byte) (Block, error) {
	var r rawBlock
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Block{}, fmt.Errorf("not a valid JSON object: %w", err)
	}
	if dec.More() {
		return Block{}, fmt.Errorf("trailing data after the JSON object")
	}
	if r.Format != FormatVersion {
		return Block{}, fmt.Errorf("format is %q, want %q", r.Format, FormatVersion)
	}
	if r.Name == "" || !strings.Contains(r.Name, "/") {
		return Block{}, fmt.Errorf("name %q is not <language>/<bench>", r.Name)
	}
	b := Block{Format: r.Format, Kind: r.Kind, Name: r.Name, Op: r.Op, Metric: r.Metric,
		SamplesNs: r.SamplesNs, SamplesBytes: r.SamplesBytes, Reason: r.Reason, CtxSwitches: r.CtxSwitches}
	if r.Kind == KindUnavailable {
		if r.Reason == "" {
			return Block{}, fmt.Errorf("%s: unavailable without a reason", r.Name)
		}
		return b, nil
	}
	if r.Reason != "" {
		return Block{}, fmt.Errorf("%s: reason is only for unavailable blocks", r.Name)
	}
	if r.Op == "" {
		return Block{}, fmt.Errorf("%s: missing op", r.Name)
	}
	if r.Iterations == nil || *r.Iterations < 1 {
		return Block{}, fmt.Errorf("%s: iterations missing or < 1", r.Name)
	}
	b.Iterations = *r.Iterations
	if r.WarmupSamples == nil || *r.WarmupSamples < 0 {
		return Block{}, fmt.Errorf("%s: warmup_samples missing or negative", r.Name)
	}
	b.WarmupSamples = *r.WarmupSamples
	if r.Settings == nil {
		return Block{}, fmt.Errorf("%s: missing settings", r.Name)
	}
	settings, err := flatSettings(r.Settings)
	if err != nil {
		return Block{}, fmt.Errorf("%s: %w", r.Name, err)
	}
	b.Settings = settings
	if r.CtxSwitches != nil && *r.CtxSwitches < 0 {
		return Block{}, fmt.Errorf("%s: negative ctx_switches", r.Name)
	}

	var samples []float64
	switch r.Kind {
	case KindSwitch, KindSpawn:
		if r.SamplesBytes != nil || r.Metric != "" {
			return Block{}, fmt.Errorf("%s: samples_bytes/metric belong to memory blocks", r.Name)
		}
		if r.Kind == KindSwitch {
			if r.HopsPerOp == nil || *r.HopsPerOp < 1 {
				return Block{}, fmt.Errorf("%s: a switch block needs hops_per_op >= 1", r.Name)
			}
			b.HopsPerOp = *r.HopsPerOp
		} else if r.HopsPerOp != nil {
			return Block{}, fmt.Errorf("%s: hops_per_op belongs to switch blocks", r.Name)
		}
		samples = r.SamplesNs
		for i, s := range samples {
			if !(s > 0) || math.IsInf(s, 0) {
				return Block{}, fmt.Errorf("%s: samples_ns[%d] = %v is not a positive duration", r.Name, i, s)
			}
		}
	case KindMemory:
		if r.SamplesNs != nil || r.HopsPerOp != nil {
			return Block{}, fmt.Errorf("%s: samples_ns/hops_per_op do not belong to memory blocks", r.Name)
		}
		if r.Metric == "" {
			return Block{}, fmt.Errorf("%s: a memory block needs a metric", r.Name)
		}
		// A delta can legitimately be zero or negative (memory reused); it is reported as is.
		samples = r.SamplesBytes
	default:
		return Block{}, fmt.Errorf("%s: unknown kind %q (want switch, spawn, memory or unavailable)", r.Name, r.Kind)
	}
	if len(samples) == 0 {
		return Block{}, fmt.Errorf("%s: no samples", r.Name)
	}
	if r.TotalOps == nil {
		return Block{}, fmt.Errorf("%s: missing total_ops", r.Name)
	}
	b.TotalOps = *r.TotalOps
	// Warm-up samples may have run with another iteration count (they re-aim it at the
	// target), so only the timed samples give a lower bound.
	if least := b.Iterations * int64(len(samples)); b.TotalOps < least {
		return Block{}, fmt.Errorf("%s: total_ops %d is less than iterations × samples = %d",
			r.Name, b.TotalOps, least)
	}
	return b, nil
}

// flatSettings turns the settings object into strings, accepting only scalars.
func flatSettings(raw map[string]json.RawMessage) (map[string]string, error) {
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, fmt.Errorf("setting %q: %w", k, err)
		}
		switch t := x.(type) {
		case string:
			out[k] = t
		case float64:
			out[k] = strings.TrimSpace(string(v))
		case bool:
			out[k] = strconv.FormatBool(t)
		default:
			return nil, fmt.Errorf("setting %q must be a string, number or boolean", k)
		}
	}
	return out, nil
}

// ParseOutput parses a probe's whole stdout: one block per non-empty line. Any malformed
// line fails the whole output, with its line number.
func ParseOutput(out []byte) ([]Block, error) {
	var blocks []Block
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		b, err := ParseLine(line)
		if err != nil {
			return nil, &FormatError{Line: n, Msg: err.Error()}
		}
		blocks = append(blocks, b)
	}
	if err := sc.Err(); err != nil {
		return nil, &FormatError{Line: n + 1, Msg: err.Error()}
	}
	if len(blocks) == 0 {
		return nil, &FormatError{Line: 0, Msg: "no output lines"}
	}
	return blocks, nil
}

// PerOpNs is ns per op for each timed sample (switch and spawn blocks).
func (b Block) PerOpNs() []float64 {
	out := make([]float64, len(b.SamplesNs))
	for i, s := range b.SamplesNs {
		out[i] = s / float64(b.Iterations)
	}
	return out
}

// OneWayNs is ns per hop for each timed sample of a switch block: sample / (iterations × hops).
func (b Block) OneWayNs() []float64 {
	if b.Kind != KindSwitch || b.HopsPerOp < 1 {
		return nil
	}
	out := make([]float64, len(b.SamplesNs))
	for i, s := range b.SamplesNs {
		out[i] = s / (float64(b.Iterations) * float64(b.HopsPerOp))
	}
	return out
}

// BytesPerContext is bytes per parked context for each timed sample of a memory block.
func (b Block) BytesPerContext() []float64 {
	out := make([]float64, len(b.SamplesBytes))
	for i, s := range b.SamplesBytes {
		out[i] = s / float64(b.Iterations)
	}
	return out
}

// SwitchesPerHop is the OS context switches the probe process made per hop during the timed
// samples of a switch block; ok is false when the probe could not count them.
func (b Block) SwitchesPerHop() (v float64, ok bool) {
	if b.Kind != KindSwitch || b.CtxSwitches == nil || b.HopsPerOp < 1 {
		return 0, false
	}
	hops := float64(b.Iterations) * float64(b.HopsPerOp) * float64(len(b.SamplesNs))
	return float64(*b.CtxSwitches) / hops, true
}

// SettingsList renders the settings as sorted "key=value" strings, for labels.
func (b Block) SettingsList() []string {
	out := make([]string, 0, len(b.Settings))
	for k, v := range b.Settings {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
