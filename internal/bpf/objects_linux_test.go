package bpf

import (
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/ctxbench/ctxbench/internal/phase"
)

// Both committed objects, read on any machine: each holds exactly the
// programs the probe table attaches on its architecture, every probe the
// table leaves out there says why, and both carry the kinds of the one
// source (the Go kinds, by name and value).
func TestObjectsOfBothArchitectures(t *testing.T) {
	for arch, file := range map[string]string{"amd64": "hop_x86_bpfel.o", "arm64": "hop_arm64_bpfel.o"} {
		spec, err := ebpf.LoadCollectionSpec(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var inObject, inTable []string
		for name := range spec.Programs {
			inObject = append(inObject, name)
		}
		for _, p := range probesOn(arch) {
			inTable = append(inTable, p.program)
		}
		slices.Sort(inObject)
		slices.Sort(inTable)
		if !slices.Equal(inObject, inTable) {
			t.Errorf("%s: programs %v, the probe table attaches %v", file, inObject, inTable)
		}
		for _, p := range probeTable {
			if why := p.absentOn(arch); why == "" && !slices.Contains(inObject, p.program) || why != "" && p.program != "" && slices.Contains(inObject, p.program) {
				t.Errorf("%s: %s (%s) absent for %q", file, p.tracepoint, p.program, why)
			}
		}
		var enum *btf.Enum
		if err := spec.Types.TypeByName("kind", &enum); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		n := 0
		for _, v := range enum.Values {
			name, ok := strings.CutPrefix(v.Name, "KIND_")
			if !ok || name == "IRQ_FIRST" || name == "COUNT" {
				continue
			}
			n++
			if got, want := phase.Kind(v.Value).String(), strings.ReplaceAll(strings.ToLower(name), "_", "-"); got != want {
				t.Errorf("%s: %s = %d is %q in Go", file, v.Name, v.Value, got)
			}
		}
		if n != len(phase.AllKinds()) {
			t.Errorf("%s: %d kinds, Go has %d", file, n, len(phase.AllKinds()))
		}
	}
	// A probe of one architecture says why the other has none.
	for _, p := range probeTable {
		if p.only == "amd64" && p.why == "" || p.only == "arm64" && p.why == "" {
			t.Errorf("%s: %s's alone, with no reason", p.tracepoint, p.only)
		}
	}
}

// Both in-place objects (ctxbench attach), read on any machine: each holds
// exactly the programs of the in-place probes its architecture attaches
// (arm64's no FPU restore: x86-64's only), and every probe left out says
// why.
func TestInPlaceObjectsOfBothArchitectures(t *testing.T) {
	for arch, file := range map[string]string{"amd64": "attach_x86_bpfel.o", "arm64": "attach_arm64_bpfel.o"} {
		spec, err := ebpf.LoadCollectionSpec(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var inObject, inTable []string
		for name := range spec.Programs {
			inObject = append(inObject, name)
		}
		for _, p := range inPlaceProbes {
			if p.absentOn(arch) == "" {
				inTable = append(inTable, p.program)
			} else if p.why == "" {
				t.Errorf("%s: %s is absent on %s with no reason", file, p.tracepoint, arch)
			}
		}
		slices.Sort(inObject)
		slices.Sort(inTable)
		if !slices.Equal(inObject, inTable) {
			t.Errorf("%s: programs %v, the in-place probes attach %v", file, inObject, inTable)
		}
		if len(inTable) < len(inPlaceProbes)-1 {
			t.Errorf("%s: %d of %d in-place probes on %s", file, len(inTable), len(inPlaceProbes), arch)
		}
	}
}
