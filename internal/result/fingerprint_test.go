package result_test

import (
	"reflect"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

// fingerprinted is a document whose every fingerprinted field is set (the
// kernel command line with a character JSON escapes and the words that
// name the kernel image), and one with the optional fields left empty.
func fingerprinted() (full, sparse *result.Document) {
	dma := int64(20)
	full = &result.Document{
		Tool:     result.Tool{Version: "1.2.3", Commit: "0123abcd", Build: "sha256:00ff", GoVersion: "go1.26.8", CC: "gcc 14", Cgo: true},
		Settings: result.Settings{MinTimeNS: 2_000_000, Iterations: 5000, SamplesPerBlock: 4, Warmup: 2, SpanNS: 10_000_000_000},
		Environment: result.Environment{
			Hostname: "bench-1", Kernel: "6.8.0-45-generic", KernelBuild: "#45-Ubuntu SMP PREEMPT_DYNAMIC",
			Cmdline:     "BOOT_IMAGE=/vmlinuz-6.8.0 root=UUID=1 ro isolcpus=1 quiet <&> initrd=/initrd.img",
			CPU:         result.CPUInfo{Model: "AMD EPYC 7B13", Microcode: "0xa0011d1", Logical: 2, SMTActive: true, Governor: "performance"},
			Clocksource: "kvm-clock", Mitigations: map[string]string{"spectre_v2": "Mitigation: Retpolines", "meltdown": "Not affected"},
			Cgroup:    result.CgroupInfo{Depth: 2},
			Scheduler: result.SchedInfo{Autogroup: true, Preempt: "dynamic (voluntary)", HZ: 250, Isolated: "1", NoHZFull: "1", SchedExt: "scx_rusty"},
			Idle:      result.IdleInfo{Driver: "haltpoll", Governor: "haltpoll", DMALatencyUS: &dma},
		},
	}
	full.Environment.Virtualization.Label = "KVM guest"
	full.Environment.Virtualization.KVM.Backend = "hardware"
	full.Environment.Virtualization.KVM.HaltPollNS = 200000
	sparse = &result.Document{
		Tool:        result.Tool{Version: "1.2.3", GoVersion: "go1.26.8"},
		Settings:    result.Settings{MinTimeNS: 2_000_000, SamplesPerBlock: 4},
		Environment: result.Environment{Hostname: "bench-2", Kernel: "6.1.0", CPU: result.CPUInfo{Model: "Intel Xeon", Logical: 4}},
	}
	return full, sparse
}

// The keys of a fixed environment never change: the history's stores hold
// them, and a sitting recorded before must stay in its history. (The keys
// below are those the fingerprint had when its machine part was a struct
// of its own, written out field by field.)
func TestFingerprintKeysAreStable(t *testing.T) {
	full, sparse := fingerprinted()
	for _, c := range []struct {
		doc          *result.Document
		machine, key string
	}{{full, "9fd047d9294284b0", "4d27c119aa9a4b16"}, {sparse, "ea06b61f5e1bd46b", "8dbbc73fec8e1a92"}} {
		f, key, desc := result.FingerprintOf(c.doc)
		if mk := f.MachineKey(); mk != c.machine || key != c.key {
			t.Errorf("%s: machine key %s, fingerprint %s; want %s, %s", f.Host, mk, key, c.machine, c.key)
		}
		if mk, ok := result.MachineKeyOf(desc); !ok || mk != c.machine {
			t.Errorf("%s: machine key of the description %s (%v), want %s", f.Host, mk, ok, c.machine)
		}
	}
}

// Every field of the fingerprint says whose it is, the machine's or the
// build's, and is filled from the document: a field added to the struct
// without a part, or not read from the document, fails here; and the
// machine key moves with every machine field and with no build field.
func TestFingerprintFieldsAreEachPlaced(t *testing.T) {
	typ := reflect.TypeFor[result.FingerprintFields]()
	for i := range typ.NumField() {
		sf := typ.Field(i)
		if p := sf.Tag.Get("part"); p != result.PartMachine && p != result.PartBuild {
			t.Errorf("field %s has part %q: want %q or %q", sf.Name, p, result.PartMachine, result.PartBuild)
		}
		if sf.Tag.Get("json") == "" {
			t.Errorf("field %s has no JSON name", sf.Name)
		}
	}
	d := &result.Document{}
	fill(reflect.ValueOf(&d.Environment).Elem())
	fill(reflect.ValueOf(&d.Tool).Elem())
	fill(reflect.ValueOf(&d.Settings).Elem())
	f, key, _ := result.FingerprintOf(d)
	fields := f.Fields()
	if len(fields) != typ.NumField() {
		t.Fatalf("%d fields listed, the struct has %d", len(fields), typ.NumField())
	}
	mk := f.MachineKey()
	machine := 0
	for i, fld := range fields {
		if fld.Value == "" || fld.Value == "0" || fld.Value == "false" {
			t.Errorf("%s is %q from a document whose every field is set: FingerprintOf does not read it", fld.Key, fld.Value)
		}
		if fld.Part == result.PartMachine {
			machine++
		}
		g := f
		fv := reflect.ValueOf(&g).Elem().Field(i)
		fv.Set(reflect.Zero(fv.Type()))
		if g.MachineKey() == mk == (fld.Part == result.PartMachine) {
			t.Errorf("%s (%s): the machine key moves %v with it", fld.Key, fld.Part, g.MachineKey() != mk)
		}
	}
	if machine == 0 || machine == len(fields) {
		t.Errorf("%d of %d fields are the machine's", machine, len(fields))
	}
	if _, key2, _ := result.FingerprintOf(&result.Document{}); key2 == key {
		t.Error("an empty document has the full one's fingerprint")
	}
}

// fill sets every settable field below v to a value that is not zero.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	}
}
