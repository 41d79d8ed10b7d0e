//go:build !linux

package bpf

import (
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/phase"
)

// Features is what this kernel offers for placing probes (nothing here).
type Features struct {
	RawTracepoint bool `json:"raw_tracepoint"`
	Fentry        bool `json:"fentry"`
	Kprobe        bool `json:"kprobe"`
}

// DetectFeatures finds nothing outside Linux.
func DetectFeatures() Features { return Features{} }

// Check reports that BPF tracing needs Linux, with what this platform
// gives instead (platform.BPF).
func Check() error {
	_, why := platform.This.Gives(platform.BPF)
	return &MissingError{Reason: ErrUnsupported, Detail: why}
}

// MethodRawTracepoints names the only method implemented.
const MethodRawTracepoints = phase.MethodRawTracepoints
