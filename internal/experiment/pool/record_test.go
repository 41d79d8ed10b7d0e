package pool

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// fill sets every leaf of v to a value of its own, none zero, allocating
// what pointers point to, so a field a conversion leaves out shows.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fill(v.Field(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), n)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := 0; i < v.Len(); i++ {
			fill(v.Index(i), n)
		}
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	default:
		panic("fill: " + v.Type().String())
	}
}

// same checks that every field of the document's value got has a field of
// the same name and value in the engine's want, but for the names in own
// (the experiment's), which must be set.
func same(t *testing.T, path string, want, got reflect.Value, own map[string]bool) {
	t.Helper()
	switch got.Kind() {
	case reflect.Struct:
		for i := 0; i < got.NumField(); i++ {
			f := got.Type().Field(i)
			p := path + "." + f.Name
			if own[p] {
				if got.Field(i).IsZero() {
					t.Errorf("%s is not set", p)
				}
				continue
			}
			w := want.FieldByName(f.Name)
			if !w.IsValid() {
				t.Errorf("%s: the engine has no %s", p, f.Name)
				continue
			}
			same(t, p, w, got.Field(i), own)
		}
	case reflect.Pointer:
		if want.IsNil() != got.IsNil() {
			t.Errorf("%s: nil %v, the engine's nil %v", path, got.IsNil(), want.IsNil())
		} else if !got.IsNil() {
			same(t, path, want.Elem(), got.Elem(), own)
		}
	case reflect.Array, reflect.Slice:
		if want.Len() != got.Len() {
			t.Errorf("%s: %d elements, the engine's %d", path, got.Len(), want.Len())
			return
		}
		for i := 0; i < got.Len(); i++ {
			same(t, fmt.Sprintf("%s[%d]", path, i), want.Index(i), got.Index(i), own)
		}
	default:
		if fmt.Sprint(want.Interface()) != fmt.Sprint(got.Interface()) {
			t.Errorf("%s = %v, the engine's %v", path, got.Interface(), want.Interface())
		}
	}
}

// The document records what the engine measured, every field of it: the
// conversion is the only change the pools section's JSON went through when
// the engine got types of its own.
func TestRecordsCarryEveryField(t *testing.T) {
	n := 0
	var w pool.Window
	fill(reflect.ValueOf(&w).Elem(), &n)
	got := window(w, 7)
	if got.Seq != 7 {
		t.Errorf("seq %d, want 7", got.Seq)
	}
	same(t, "Window", reflect.ValueOf(w), reflect.ValueOf(got), map[string]bool{"Window.Seq": true})
	// Without server counters, none are recorded (JSON null, as before).
	w.Serving, w.Aux = nil, nil
	if got := window(w, 1); got.Serving != nil || got.Aux != nil {
		t.Error("absent server counters recorded")
	}

	eng := &pool.Engine{}
	fill(reflect.ValueOf(&eng.Method).Elem(), &n)
	fill(reflect.ValueOf(&eng.Environment).Elem(), &n)
	eng.Warnings, eng.Swept = []string{"w"}, []string{"d"}
	var cfg result.PoolConfig
	fill(reflect.ValueOf(&cfg).Elem(), &n)
	res := pools(cfg, eng)
	analysis := map[string]bool{"Method.Knee": true, "Method.USL": true, "Method.Comparison": true, "Method.IntervalsMedian": true}
	same(t, "Method", reflect.ValueOf(eng.Method), reflect.ValueOf(res.Method), analysis)
	same(t, "Environment", reflect.ValueOf(eng.Environment), reflect.ValueOf(res.Environment), nil)
	if !reflect.DeepEqual(res.Config, cfg) || res.Warnings[0] != "w" || res.Swept[0] != "d" {
		t.Errorf("config, warnings or swept not recorded: %+v", res)
	}

	srv := &pool.Server{Kind: pool.Redis, Version: "Redis 7", Embedded: true, ProcessCounters: true}
	fill(reflect.ValueOf(&srv.Idle).Elem(), &n)
	rec := server(srv)
	if rec.Server != pool.Redis || rec.Version != "Redis 7" || !rec.Embedded || !rec.ProcessCounters {
		t.Errorf("server record %+v", rec)
	}
	same(t, "Baselines", reflect.ValueOf(srv.Idle), reflect.ValueOf(rec.Baselines), nil)

}
