package kvm

import (
	"math"
	"strings"
	"testing"
)

func TestDecomposeSwitch(t *testing.T) {
	p := DecomposeSwitch(11700, 2300, 8100)
	if p.OverProcessNs != 9400 || p.ResidualNs != 1300 {
		t.Errorf("%+v", p)
	}
	if p.HopNs != p.ProcessHopNs+p.ExitNs+p.ResidualNs {
		t.Errorf("parts do not add up: %+v", p)
	}
	if UserExitCost(29000, 3000) != 26000 {
		t.Error("UserExitCost")
	}
}

func TestPerOp(t *testing.T) {
	m := PerOp(map[string]int64{"exits": 2000, "insn_emulation": 1000, "missing": -1}, 1000)
	if m["exits"] != 2 || m["insn_emulation"] != 1 {
		t.Errorf("%v", m)
	}
	if _, ok := m["missing"]; ok {
		t.Error("an unavailable statistic was divided")
	}
	if len(PerOp(map[string]int64{"exits": 5}, 0)) != 0 {
		t.Error("zero ops must give no figures")
	}
}

func TestPerVM(t *testing.T) {
	before := map[string]int64{"Rss": 1000, "Pss": 400, "VmSize": 2000, "MemFree": 100000, "Slab": 5000,
		"SUnreclaim": 2000, "KernelStack": 100, "PageTables": 50, "SecPageTables": 0, "VmallocUsed": 900, "Percpu": 10}
	after := map[string]int64{"Rss": 4600, "Pss": 4000, "VmSize": 16000, "MemFree": 40000, "Slab": 22000,
		"SUnreclaim": 15000, "KernelStack": 1700, "PageTables": 50, "SecPageTables": 1600, "VmallocUsed": 5300, "Percpu": -1}
	m, err := PerVM(before, after, 100, 100, "")
	if err != nil {
		t.Fatal(err)
	}
	want := MemoryPerVM{VMs: 100, Requested: 100, RSSKB: 36, PSSKB: 36, VirtualKB: 140, SlabKB: 170, SUnreclaimKB: 130,
		KernelStackKB: 16, SecPageTablesKB: 16, VmallocKB: 44, MemFreeDropKB: 600}
	want.KernelAccountedKB = 170 + 16 + 16 + 44
	if math.Abs(m.KernelAccountedKB-want.KernelAccountedKB) > 1e-9 {
		t.Errorf("kernel accounted %v, want %v", m.KernelAccountedKB, want.KernelAccountedKB)
	}
	m.KernelAccountedKB = want.KernelAccountedKB
	if m != want {
		t.Errorf("got  %+v\nwant %+v", m, want)
	}
	if _, err := PerVM(before, after, 0, 100, "EMFILE"); err == nil {
		t.Error("no error for zero VMs")
	}
	if _, err := PerVM(map[string]int64{}, after, 10, 10, ""); err == nil {
		t.Error("no error for an empty snapshot")
	}
}

func TestAnnotate(t *testing.T) {
	l := Annotate("x", map[string]float64{"exits": 0, "insn_emulation": 0})
	if !strings.Contains(l, "did not exit to this KVM") {
		t.Errorf("%q", l)
	}
	l = Annotate("x", map[string]float64{"exits": 1, "insn_emulation": 11})
	if !strings.Contains(l, "1.00 KVM exits per op") || !strings.Contains(l, "11.0 guest instructions emulated") {
		t.Errorf("%q", l)
	}
	if Annotate("x", nil) != "x" {
		t.Error("no statistics must leave the label alone")
	}
	for _, f := range Figures {
		if g, ok := FigureByID(f.ID); !ok || g.What == "" || len(g.Modes) == 0 {
			t.Errorf("figure %q incomplete", f.ID)
		}
	}
	if _, ok := FigureByID("nonsense"); ok {
		t.Error("unknown figure found")
	}
}
