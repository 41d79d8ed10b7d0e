package probe

import (
	"errors"
	"math"
	"strings"
	"testing"
)

const goodSwitch = `{"format":"ctxbench-probe/1","kind":"switch","name":"erlang/pingpong","op":"round trip","hops_per_op":2,"iterations":1000,"warmup_samples":1,"total_ops":9000,"ctx_switches":4,"settings":{"schedulers":1,"otp":"25","jit":true},"samples_ns":[200000,220000,210000]}`

func TestParseLineSwitch(t *testing.T) {
	b, err := ParseLine([]byte(goodSwitch))
	if err != nil {
		t.Fatal(err)
	}
	if b.Kind != KindSwitch || b.Name != "erlang/pingpong" || b.HopsPerOp != 2 || b.Iterations != 1000 {
		t.Fatalf("fields: %+v", b)
	}
	if b.Settings["schedulers"] != "1" || b.Settings["otp"] != "25" || b.Settings["jit"] != "true" {
		t.Fatalf("settings: %v", b.Settings)
	}
	ow := b.OneWayNs()
	if len(ow) != 3 || ow[0] != 100 || ow[1] != 110 {
		t.Fatalf("one-way: %v", ow)
	}
	if po := b.PerOpNs(); po[2] != 210 {
		t.Fatalf("per op: %v", po)
	}
	sph, ok := b.SwitchesPerHop()
	if !ok || math.Abs(sph-4.0/6000) > 1e-12 {
		t.Fatalf("switches per hop %v %v", sph, ok)
	}
	if got := strings.Join(b.SettingsList(), ","); got != "jit=true,otp=25,schedulers=1" {
		t.Fatalf("settings list %q", got)
	}
}

func TestParseLineSpawnMemoryUnavailable(t *testing.T) {
	spawn := `{"format":"ctxbench-probe/1","kind":"spawn","name":"rust/tokio-spawn","op":"spawn","iterations":10,"warmup_samples":0,"total_ops":20,"settings":{},"samples_ns":[5000,6000]}`
	b, err := ParseLine([]byte(spawn))
	if err != nil {
		t.Fatal(err)
	}
	if b.CtxSwitches != nil {
		t.Fatal("ctx_switches should be absent")
	}
	if _, ok := b.SwitchesPerHop(); ok {
		t.Fatal("a spawn block has no switches per hop")
	}
	if b.OneWayNs() != nil || b.PerOpNs()[1] != 600 {
		t.Fatalf("spawn per-op: %v %v", b.OneWayNs(), b.PerOpNs())
	}

	mem := `{"format":"ctxbench-probe/1","kind":"memory","name":"cpp/coroutine-memory","op":"one parked","metric":"frame bytes","iterations":100,"warmup_samples":1,"total_ops":200,"settings":{"contexts":100},"samples_bytes":[6400,-4096]}`
	b, err = ParseLine([]byte(mem))
	if err != nil {
		t.Fatal(err)
	}
	if bp := b.BytesPerContext(); bp[0] != 64 || bp[1] != -40.96 {
		t.Fatalf("bytes per context %v", bp)
	}

	un := `{"format":"ctxbench-probe/1","kind":"unavailable","name":"java/virtual-park","reason":"needs Java 21"}`
	b, err = ParseLine([]byte(un))
	if err != nil || b.Reason != "needs Java 21" {
		t.Fatalf("unavailable: %+v %v", b, err)
	}
}

func TestParseLineMalformed(t *testing.T) {
	replace := func(old, repl string) string {
		if !strings.Contains(goodSwitch, old) {
			t.Fatalf("test bug: %q not in the good line", old)
		}
		return strings.Replace(goodSwitch, old, repl, 1)
	}
	cases := map[string]struct{ line, want string }{
		"not json":          {"hello", "not a valid JSON"},
		"truncated":         {goodSwitch[:40], "not a valid JSON"},
		"trailing":          {goodSwitch + " {}", "trailing"},
		"wrong format":      {replace("ctxbench-probe/1", "ctxbench-probe/2"), "format"},
		"bad name":          {replace(`"erlang/pingpong"`, `"pingpong"`), "name"},
		"unknown kind":      {replace(`"kind":"switch"`, `"kind":"hop"`), "unknown kind"},
		"unknown field":     {replace(`"op":`, `"opp":"x","op":`), "unknown field"},
		"no hops":           {replace(`"hops_per_op":2,`, ``), "hops_per_op"},
		"zero hops":         {replace(`"hops_per_op":2`, `"hops_per_op":0`), "hops_per_op"},
		"no iterations":     {replace(`"iterations":1000,`, ``), "iterations"},
		"zero iterations":   {replace(`"iterations":1000`, `"iterations":0`), "iterations"},
		"string iterations": {replace(`"iterations":1000`, `"iterations":"1000"`), "not a valid JSON"},
		"no samples":        {replace(`[200000,220000,210000]`, `[]`), "no samples"},
		"zero sample":       {replace(`[200000,`, `[0,`), "positive"},
		"negative sample":   {replace(`[200000,`, `[-5,`), "positive"},
		"nan sample":        {replace(`[200000,`, `[NaN,`), "not a valid JSON"},
		"no op":             {replace(`"op":"round trip",`, ``), "missing op"},
		"no settings":       {replace(`"settings":{"schedulers":1,"otp":"25","jit":true},`, ``), "settings"},
		"nested setting":    {replace(`"jit":true`, `"jit":{"a":1}`), "string, number or boolean"},
		"no warmup":         {replace(`"warmup_samples":1,`, ``), "warmup_samples"},
		"no total":          {replace(`"total_ops":9000,`, ``), "total_ops"},
		"total too small":   {replace(`"total_ops":9000`, `"total_ops":10`), "total_ops"},
		"negative csw":      {replace(`"ctx_switches":4`, `"ctx_switches":-1`), "ctx_switches"},
		"bytes in switch":   {replace(`"samples_ns"`, `"samples_bytes":[1],"samples_ns"`), "memory"},
		"reason on switch":  {replace(`"op":`, `"reason":"x","op":`), "reason"},
		"memory no metric":  {`{"format":"ctxbench-probe/1","kind":"memory","name":"a/b","op":"x","iterations":1,"warmup_samples":0,"total_ops":1,"settings":{},"samples_bytes":[1]}`, "metric"},
		"memory with ns":    {`{"format":"ctxbench-probe/1","kind":"memory","name":"a/b","op":"x","metric":"m","iterations":1,"warmup_samples":0,"total_ops":1,"settings":{},"samples_ns":[1]}`, "do not belong"},
		"spawn with hops":   {`{"format":"ctxbench-probe/1","kind":"spawn","name":"a/b","op":"x","hops_per_op":1,"iterations":1,"warmup_samples":0,"total_ops":1,"settings":{},"samples_ns":[1]}`, "hops_per_op"},
		"unavailable empty": {`{"format":"ctxbench-probe/1","kind":"unavailable","name":"a/b"}`, "reason"},
	}
	for name, c := range cases {
		if _, err := ParseLine([]byte(c.line)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestParseOutput(t *testing.T) {
	out := "\n" + goodSwitch + "\n\n" + goodSwitch + "\n"
	blocks, err := ParseOutput([]byte(out))
	if err != nil || len(blocks) != 2 {
		t.Fatalf("%d blocks, %v", len(blocks), err)
	}
	_, err = ParseOutput([]byte(goodSwitch + "\nnot json\n"))
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Line != 2 {
		t.Fatalf("want a FormatError on line 2, got %v", err)
	}
	if !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("message should name the line: %v", err)
	}
	if _, err := ParseOutput(nil); err == nil || !strings.Contains(err.Error(), "no output") {
		t.Fatalf("empty output: %v", err)
	}
}
