package replicate

import (
	"reflect"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

func TestCoreGroups(t *testing.T) {
	env := result.Environment{CPU: result.CPUInfo{Hybrid: true, CoreTypes: []result.CoreType{
		{Name: "performance (P) cores", CPUs: []int{0, 1, 2, 3}}, {Name: "efficiency (E) cores", CPUs: []int{4, 5, 6, 7}}}}}
	g := CoreGroups(env, []int{1, 2, 5})
	if len(g) != 2 || g[0].Slug != "big" || g[1].Slug != "little" || !reflect.DeepEqual(g[1].CPUs, []int{5}) {
		t.Fatalf("hybrid groups: %+v", g)
	}
	g = CoreGroups(result.Environment{}, []int{0, 1})
	if len(g) != 1 || g[0].Slug != "" {
		t.Fatalf("one core type: %+v", g)
	}
}
