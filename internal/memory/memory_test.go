package memory

import (
	"os"
	"testing"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// TestMain doubles as the parking child (SelfCommand re-executes
// /proc/self/exe with ParkSubcommand first), as the real CLI does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ParkSubcommand {
		os.Exit(ParkMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func TestParkMainBadArgs(t *testing.T) {
	for _, args := range [][]string{nil, {"goroutine"}, {"goroutine", "x"}, {"goroutine", "-1"}, {"bogus", "3"}} {
		if got := ParkMain(args); got != 2 {
			t.Errorf("ParkMain(%q) = %d, want 2", args, got)
		}
	}
}

func TestLookupAndKinds(t *testing.T) {
	if _, err := Lookup("bogus"); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := Run("goroutine", Options{N: -3}); err == nil {
		t.Error("negative N accepted")
	}
	for _, k := range Kinds() {
		if k.What == "" || k.Default < 100 {
			t.Errorf("kind %s: no folklore claim or a small default N (%d)", k.Name, k.Default)
		}
	}
}

// TestSmallRuns parks a few contexts of each kind and checks the figures
// are there and positive where they must be, and nothing is left behind.
func TestSmallRuns(t *testing.T) {
	sizes := map[string]int{"goroutine": 2000, "thread": 100, "process": 20, "process-go": 3, "container": 3}
	for _, k := range Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			if ok, why := k.Available(); !ok {
				testenv.SkipFor(t, why, testenv.Cgo, testenv.Root, testenv.CgroupCPU, testenv.UserNS)
			}
			n := sizes[k.Name]
			res, err := Run(k.Name, Options{N: n, NoSettle: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Reached != n || res.Requested != n || res.Limit != "" {
				t.Fatalf("reached %d of %d (%s)", res.Reached, res.Requested, res.Limit)
			}
			p := res.Per
			if !(p.RSS > 0 && p.PSS > 0) {
				t.Errorf("RSS %v PSS %v per context", p.RSS, p.PSS)
			}
			if k.Name != "goroutine" && !(p.Virtual > 0) {
				t.Errorf("virtual %v per context", p.Virtual)
			}
			if k.Name == "thread" && p.Virtual < p.RSS {
				t.Errorf("thread reserves %v but holds %v: the reservation must exceed what is resident", p.Virtual, p.RSS)
			}
			if p.Charged > 0 && k.Name != "goroutine" && !(p.ChargedKernel > 0) {
				t.Errorf("no kernel memory charged per %s (%+v)", k.Name, p)
			}
			if (k.Name == "goroutine" || k.Name == "thread") && !(res.CreateNs > 0) {
				t.Errorf("no creation time")
			}
			if res.Label == "" || len(res.Limits) == 0 {
				t.Errorf("unlabelled result %+v", res)
			}
			assertNothingLeft(t)
		})
	}
}

func assertNothingLeft(t *testing.T) {
	t.Helper()
	if left := childrenLeft(); left != "" {
		t.Errorf("child processes left: %s", left)
	}
	for _, c := range []string{"cpu", "memory"} {
		if h, err := container.FindHierarchy(c); err == nil {
			if left, _ := container.ListOurs(h); len(left) > 0 {
				t.Errorf("cgroups left: %v", left)
			}
		}
	}
	if d, p := container.Pending(); d != 0 || p != 0 {
		t.Errorf("cleanup registry holds %d dirs, %d processes", d, p)
	}
}
