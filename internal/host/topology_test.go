package host

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// The recorded trees (testdata/topology, written by make.py; guest is
// this 2-vCPU KVM guest's own files): the levels each machine has and the
// pair picked for each, exactly.
func TestTopologyOfRecordedMachines(t *testing.T) {
	type pair struct {
		level Level
		a, b  int
	}
	for _, tc := range []struct {
		name string
		want []pair
	}{
		// 2 sockets x 4 cores x 2 threads, siblings n and n+8, a node
		// and an L3 per socket: the cross-socket pair is other-package,
		// and there is no other-node within a socket.
		{"intel-2s-smt", []pair{{SMTSibling, 7, 15}, {SameLLC, 14, 15}, {OtherPackage, 11, 15}, {CrossCPU, 0, 15}}},
		// 2 CCDs of 8 cores, each with its own L3, one node.
		{"amd-2ccd", []pair{{SMTSibling, 15, 31}, {SameLLC, 30, 31}, {OtherLLC, 23, 31}, {CrossCPU, 0, 31}}},
		// P cores 0-7 (siblings 0,1 ...), E cores 8-15 in two modules
		// sharing an L2: same-llc is two E cores of different modules
		// (11 and 15, not 14 and 15, which share an L2 as well).
		{"intel-hybrid", []pair{{SMTSibling, 6, 7}, {SameLLC, 11, 15}, {PToE, 7, 15}, {CrossCPU, 0, 15}}},
		// NPS2, SMT off: every level but smt-sibling and p-to-e.
		{"amd-epyc-2s-nps2", []pair{{SameLLC, 14, 15}, {OtherLLC, 13, 15}, {OtherNode, 11, 15}, {OtherPackage, 7, 15}, {CrossCPU, 0, 15}}},
		// This guest: two vCPUs, one core each, one L3 (as the guest is
		// told): the one level there is.
		{"guest", []pair{{SameLLC, 0, 1}, {CrossCPU, 0, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Root(filepath.Join("testdata", "topology", tc.name))
			topo := ReadTopology(r)
			rawCheck := rawChecker(r)
			var got []pair
			for _, l := range topo.Levels(nil) {
				got = append(got, pair{l.Level, l.A, l.B})
				if l.Description == "" {
					t.Errorf("%s: no description", l.Level)
				}
				if !topo.Realises(l.Level, l.A, l.B) {
					t.Errorf("%s %d,%d: Realises says no", l.Level, l.A, l.B)
				}
				if err := rawCheck(l.Level, l.A, l.B); err != "" {
					t.Errorf("%s %d,%d: the files say %s", l.Level, l.A, l.B, err)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("levels:\n got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// rawChecker reads a tree's files itself, not through Topology, and
// returns a check that says why CPUs a and b are not at level l ("" when
// they are).
func rawChecker(r Root) func(l Level, a, b int) string {
	type facts struct {
		siblings, llc []int // llc: the shared_cpu_list of the highest data or unified cache
		pkg           string
		node          int
	}
	memo := map[int]facts{}
	get := func(n int) facts {
		if f, ok := memo[n]; ok {
			return f
		}
		d := "sys/devices/system/cpu/cpu" + strconv.Itoa(n) + "/"
		f := facts{siblings: ParseCPUList(r.Read(d + "topology/thread_siblings_list")), pkg: r.Read(d + "topology/physical_package_id"), node: -1}
		for m := 0; m < 8; m++ {
			if slices.Contains(ParseCPUList(r.Read("sys/devices/system/node/node"+strconv.Itoa(m)+"/cpulist")), n) {
				f.node = m
			}
		}
		for i, best := 0, 0; r.Exists(d + "cache/index" + strconv.Itoa(i)); i++ {
			x := d + "cache/index" + strconv.Itoa(i) + "/"
			if lvl, _ := strconv.Atoi(r.Read(x + "level")); lvl > best && r.Read(x+"type") != "Instruction" {
				best, f.llc = lvl, ParseCPUList(r.Read(x+"shared_cpu_list"))
			}
		}
		memo[n] = f
		return f
	}
	pCores := ParseCPUList(r.Read("sys/devices/cpu_core/cpus"))
	eCores := ParseCPUList(r.Read("sys/devices/cpu_atom/cpus"))
	return func(l Level, a, b int) string {
		fa, fb := get(a), get(b)
		sameCore := slices.Contains(fa.siblings, b)
		switch {
		case a == b:
			return "one CPU"
		case l == SMTSibling && !sameCore:
			return "not thread siblings"
		case l == SameLLC && (sameCore || !slices.Contains(fa.llc, b)):
			return "not different cores sharing the last-level cache"
		case l == OtherLLC && (fa.pkg != fb.pkg || fa.node != fb.node || slices.Contains(fa.llc, b)):
			return "not one package and node with different last-level caches"
		case l == OtherNode && (fa.pkg != fb.pkg || fa.node == fb.node):
			return "not one package with different nodes"
		case l == OtherPackage && fa.pkg == fb.pkg:
			return "one package"
		case l == PToE && (!slices.Contains(pCores, a) || !slices.Contains(eCores, b)):
			return "not a P core and an E core"
		}
		return ""
	}
}

// Every pair of a recorded machine is at one level of the first five, and
// LevelOf agrees with the files.
func TestLevelOfEveryPair(t *testing.T) {
	for _, name := range []string{"intel-2s-smt", "amd-2ccd", "intel-hybrid", "amd-epyc-2s-nps2", "guest"} {
		r := Root(filepath.Join("testdata", "topology", name))
		topo := ReadTopology(r)
		v := topo.view() // LevelOf's own, once for every pair
		rawCheck := rawChecker(r)
		for i, a := range topo.CPUs {
			for j, b := range topo.CPUs {
				l := v.level(i, j)
				if i == len(topo.CPUs)-1 && l != topo.LevelOf(a.ID, b.ID) {
					t.Errorf("%s: LevelOf(%d, %d) = %q, the view says %q", name, a.ID, b.ID, topo.LevelOf(a.ID, b.ID), l)
				}
				if a.ID == b.ID {
					if l != "" {
						t.Errorf("%s: LevelOf(%d, %d) = %q", name, a.ID, b.ID, l)
					}
					continue
				}
				if !slices.Contains(AllLevels[:5], l) {
					t.Errorf("%s: LevelOf(%d, %d) = %q", name, a.ID, b.ID, l)
				} else if err := rawCheck(l, a.ID, b.ID); err != "" {
					t.Errorf("%s: %d,%d at %s: the files say %s", name, a.ID, b.ID, l, err)
				}
			}
		}
	}
}

// The CPUs a run may use narrow the levels: socket 0's first threads of
// the Xeon share one L3 and no core.
func TestLevelsWithin(t *testing.T) {
	topo := ReadTopology(Root("testdata/topology/intel-2s-smt"))
	got := topo.Levels([]int{3, 1, 0, 2, 3, 99})
	want := []LevelPair{
		{Level: SameLLC, A: 2, B: 3},
		{Level: CrossCPU, A: 0, B: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("Levels: %+v", got)
	}
	for i := range want {
		if got[i].Level != want[i].Level || got[i].A != want[i].A || got[i].B != want[i].B {
			t.Errorf("Levels[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if l := topo.Levels([]int{5}); l != nil {
		t.Errorf("one CPU has levels: %+v", l)
	}
	if l := topo.Levels([]int{}); l != nil {
		t.Errorf("no CPUs have levels: %+v", l)
	}
}

// What is read from each file, on the oldest and the newest trees.
func TestReadTopologyFields(t *testing.T) {
	old := ReadTopology(Root("testdata/topology/intel-2s-smt"))
	if len(old.CPUs) != 16 {
		t.Fatalf("%d CPUs", len(old.CPUs))
	}
	c := old.CPUs[12] // socket 1, core 0, second thread
	if c.ID != 12 || c.Package != 1 || c.Die != 0 || c.Core != 0 || c.Cluster != -1 || c.Node != 1 || c.Kind != "" {
		t.Errorf("cpu12 = %+v", c)
	}
	if !slices.Equal(c.Threads, []int{4, 12}) {
		t.Errorf("cpu12 threads (thread_siblings_list on a kernel without core_cpus_list) = %v", c.Threads)
	}
	if llc, ok := c.LLC(); !ok || llc.Level != 3 || llc.ID != 1 || FormatCPUList(llc.Shared) != "4-7,12-15" || llc.Size != "11264K" {
		t.Errorf("cpu12 LLC = %+v", llc)
	}
	var names []string
	for _, k := range c.Caches {
		names = append(names, k.Name())
	}
	if !slices.Equal(names, []string{"L1d", "L1i", "L2", "L3"}) {
		t.Errorf("cpu12 caches %v", names)
	}
	hy := ReadTopology(Root("testdata/topology/intel-hybrid"))
	if k := hy.CPUs[0].Kind; k != Performance {
		t.Errorf("cpu0 kind %q", k)
	}
	if k := hy.CPUs[15]; k.Kind != Efficiency || k.Cluster != 5 || k.Core != 23 {
		t.Errorf("cpu15 = %+v", k)
	}
}

// writeTree writes files under a temporary root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// An ARM big.LITTLE part: no cpu/online (the cpuN directories are
// listed), NUMA nodes from the cpuN/nodeM links, core types from
// cpu_capacity, no caches listed (so different cores are only
// cross-cpu).
func TestTopologyFallbacks(t *testing.T) {
	files := map[string]string{}
	for n := 0; n < 6; n++ {
		d := "sys/devices/system/cpu/cpu" + strconv.Itoa(n) + "/"
		capacity := "446"
		if n >= 4 {
			capacity = "1024"
		}
		files[d+"cpu_capacity"] = capacity
		files[d+"topology/physical_package_id"] = "0"
		files[d+"topology/core_id"] = strconv.Itoa(n)
		files[d+"topology/core_cpus_list"] = strconv.Itoa(n)
	}
	files["sys/devices/system/node/node0/cpulist"] = "0-5"
	root := writeTree(t, files)
	for n := 0; n < 6; n++ {
		node := "0"
		if n >= 4 {
			node = "1" // the link wins over node0/cpulist
		}
		if err := os.Symlink("../../node/node"+node, filepath.Join(root, "sys/devices/system/cpu/cpu"+strconv.Itoa(n), "node"+node)); err != nil {
			t.Fatal(err)
		}
	}
	topo := ReadTopology(Root(root))
	if len(topo.CPUs) != 6 {
		t.Fatalf("%d CPUs", len(topo.CPUs))
	}
	if c := topo.CPUs[5]; c.Kind != Performance || c.Capacity != 1024 || c.Node != 1 || c.Die != -1 {
		t.Errorf("cpu5 = %+v", c)
	}
	if c := topo.CPUs[0]; c.Kind != Efficiency || c.Node != 0 {
		t.Errorf("cpu0 = %+v", c)
	}
	if l := topo.LevelOf(0, 3); l != CrossCPU {
		t.Errorf("LevelOf(0, 3) without caches = %q", l)
	}
	var got []Level
	for _, l := range topo.Levels(nil) {
		got = append(got, l.Level)
		if l.Level == PToE && (l.A != 5 || l.B != 3) {
			t.Errorf("p-to-e %d,%d, want 5,3 (the highest big core waking the highest little one)", l.A, l.B)
		}
	}
	if want := []Level{OtherNode, PToE, CrossCPU}; !slices.Equal(got, want) {
		t.Errorf("levels %v, want %v", got, want)
	}
	if len(ReadTopology(Root(t.TempDir())).CPUs) != 0 {
		t.Error("an empty tree has CPUs")
	}
}

func TestFormatCPUList(t *testing.T) {
	for _, s := range []string{"0-3,8-11", "0", "1,3,5", "0-1,16-17", ""} {
		if got := FormatCPUList(ParseCPUList(s)); got != s {
			t.Errorf("FormatCPUList(ParseCPUList(%q)) = %q", s, got)
		}
	}
	if got := FormatCPUList([]int{3, 1, 2, 2}); got != "1-3" {
		t.Errorf("unsorted, repeated: %q", got)
	}
}
