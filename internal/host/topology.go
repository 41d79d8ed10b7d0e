package host

// topology.go: which levels of the CPU topology this machine has, read
// from sysfs, and a pair of CPUs that realises each. A cross-CPU figure
// without its level is ambiguous: two hardware threads of one core, two
// cores sharing a last-level cache, two caches, two NUMA nodes, two
// sockets and a P core waking an E core are different hops.

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Level is how far apart two CPUs are: the largest boundary of the
// topology a pair crosses (the hybrid pair and any two CPUs aside).
type Level string

// The levels, nearest first. A pair of CPUs is at exactly one of the first
// five (LevelOf); p-to-e says what its two core types are, and cross-cpu
// is any two CPUs, the placement ctxbench has always had.
const (
	SMTSibling   Level = "smt-sibling"   // two hardware threads of one core
	SameLLC      Level = "same-llc"      // different cores sharing the last-level cache
	OtherLLC     Level = "other-llc"     // one package and NUMA node, different last-level caches (AMD CCX/CCD)
	OtherNode    Level = "other-node"    // one package, different NUMA nodes (sub-NUMA clustering, NPS2/4)
	OtherPackage Level = "other-package" // different sockets
	PToE         Level = "p-to-e"        // a performance core and an efficiency core of a hybrid part
	CrossCPU     Level = "cross-cpu"     // any two CPUs
)

// AllLevels lists the levels in the order they are shown.
var AllLevels = []Level{SMTSibling, SameLLC, OtherLLC, OtherNode, OtherPackage, PToE, CrossCPU}

// CoreKind is the type of a hybrid part's core.
type CoreKind string

// The core types: Intel's cpu_core and cpu_atom PMUs, or else the most
// and the least capable CPUs by cpu_capacity (ARM big.LITTLE).
const (
	Performance CoreKind = "P"
	Efficiency  CoreKind = "E"
)

// Topology is where each online CPU sits, as sysfs says.
type Topology struct {
	CPUs []TopoCPU // online CPUs, in increasing order
}

// TopoCPU is one online CPU. Numbers sysfs does not give are -1.
type TopoCPU struct {
	ID       int
	Package  int        // physical_package_id
	Die      int        // die_id
	Cluster  int        // cluster_id (65535 where x86 knows none)
	Core     int        // core_id, unique within a package only
	Threads  []int      // the hardware threads of its core, itself included
	Caches   []CPUCache // cache/index*, in index order
	Node     int        // NUMA node
	Kind     CoreKind   // "" unless the part is hybrid
	Capacity int        // cpu_capacity (1024 the most capable); 0 where absent
}

// CPUCache is one cache a CPU uses.
type CPUCache struct {
	Level  int
	Type   string // Data, Instruction or Unified
	ID     int    // unique per level and type; -1 on kernels that do not say
	Shared []int  // the CPUs that share it
	Size   string // as sysfs writes it ("32K")
}

// Name is how the cache is written: L1d, L1i, L2, L3.
func (c CPUCache) Name() string {
	switch c.Type {
	case "Data":
		return fmt.Sprintf("L%dd", c.Level)
	case "Instruction":
		return fmt.Sprintf("L%di", c.Level)
	}
	return fmt.Sprintf("L%d", c.Level)
}

// LevelPair is a level present on this machine, a pair of CPUs that
// realises it (A wakes B; for p-to-e A is the P core) and what tells the
// two CPUs apart, in words.
type LevelPair struct {
	Level       Level
	A, B        int
	Description string
	// At, on the cross-cpu entry, is the level its pair is at ("" where
	// the topology cannot say): the default ladder does not run that
	// level again at another pair.
	At Level
}

const cpuDir = "sys/devices/system/cpu/"

// ReadTopology reads the topology of the online CPUs under r. It never
// fails: what sysfs does not say is -1 or empty, and a pair the files do
// not place is only cross-cpu.
func ReadTopology(r Root) Topology {
	online := ParseCPUList(r.Read(cpuDir + "online"))
	if len(online) == 0 {
		online = cpuDirs(r)
	}
	nodes := nodeCPUs(r)
	var t Topology
	for _, n := range online {
		d := cpuDir + "cpu" + strconv.Itoa(n) + "/"
		c := TopoCPU{
			ID:       n,
			Package:  readID(r, d+"topology/physical_package_id"),
			Die:      readID(r, d+"topology/die_id"),
			Cluster:  readID(r, d+"topology/cluster_id"),
			Core:     readID(r, d+"topology/core_id"),
			Node:     -1,
			Capacity: max(readID(r, d+"cpu_capacity"), 0),
		}
		threads := r.Read(d + "topology/core_cpus_list") // 5.3 on; thread_siblings_list before
		if threads == "" {
			threads = r.Read(d + "topology/thread_siblings_list")
		}
		c.Threads = ParseCPUList(threads)
		c.Caches = readCaches(r, d+"cache")
		if node, ok := linkedNode(r, d); ok {
			c.Node = node
		} else if node, ok := nodes[n]; ok {
			c.Node = node
		}
		t.CPUs = append(t.CPUs, c)
	}
	sort.Slice(t.CPUs, func(i, j int) bool { return t.CPUs[i].ID < t.CPUs[j].ID })
	t.setKinds(r)
	return t
}

// cpuDirs lists the cpuN directories, where cpu/online cannot be read.
func cpuDirs(r Root) []int {
	entries, _ := os.ReadDir(r.Path(cpuDir))
	var out []int
	for _, e := range entries {
		if n, ok := numbered(e.Name(), "cpu"); ok {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// numbered parses names such as "cpu12" and "node1".
func numbered(name, prefix string) (int, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok || s == "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// readID is a small number sysfs holds, -1 where it does not.
func readID(r Root, p string) int {
	n, err := strconv.Atoi(r.Read(p))
	if err != nil {
		return -1
	}
	return n
}

// linkedNode is the NUMA node the cpuN directory links to (its nodeM
// entry).
func linkedNode(r Root, dir string) (int, bool) {
	entries, _ := os.ReadDir(r.Path(dir))
	for _, e := range entries {
		if n, ok := numbered(e.Name(), "node"); ok {
			return n, true
		}
	}
	return 0, false
}

// nodeCPUs maps each CPU to its NUMA node from node/nodeM/cpulist.
func nodeCPUs(r Root) map[int]int {
	const dir = "sys/devices/system/node/"
	entries, _ := os.ReadDir(r.Path(dir))
	out := map[int]int{}
	for _, e := range entries {
		node, ok := numbered(e.Name(), "node")
		if !ok {
			continue
		}
		for _, c := range ParseCPUList(r.Read(dir + e.Name() + "/cpulist")) {
			out[c] = node
		}
	}
	return out
}

// readCaches reads cache/index*, in index order.
func readCaches(r Root, dir string) []CPUCache {
	entries, _ := os.ReadDir(r.Path(dir))
	var idx []int
	for _, e := range entries {
		if i, ok := numbered(e.Name(), "index"); ok {
			idx = append(idx, i)
		}
	}
	sort.Ints(idx)
	var out []CPUCache
	for _, i := range idx {
		d := dir + "/index" + strconv.Itoa(i) + "/"
		level := readID(r, d+"level")
		if level < 0 {
			continue
		}
		out = append(out, CPUCache{Level: level, Type: r.Read(d + "type"), ID: readID(r, d+"id"), Shared: ParseCPUList(r.Read(d + "shared_cpu_list")), Size: r.Read(d + "size")})
	}
	return out
}

// setKinds marks the core types of a hybrid part: Intel's cpu_core and
// cpu_atom PMUs list their CPUs; elsewhere cpu_capacity ranks them, the
// most capable P and the least E (a middle rank, if any, neither).
func (t *Topology) setKinds(r Root) {
	kinds := map[int]CoreKind{}
	for _, c := range ParseCPUList(r.Read("sys/devices/cpu_core/cpus")) {
		kinds[c] = Performance
	}
	for _, c := range ParseCPUList(r.Read("sys/devices/cpu_atom/cpus")) {
		kinds[c] = Efficiency
	}
	if len(kinds) == 0 {
		lo, hi := 0, 0
		for _, c := range t.CPUs {
			if c.Capacity > 0 && (lo == 0 || c.Capacity < lo) {
				lo = c.Capacity
			}
			hi = max(hi, c.Capacity)
		}
		if lo == hi {
			return
		}
		for _, c := range t.CPUs {
			switch c.Capacity {
			case hi:
				kinds[c.ID] = Performance
			case lo:
				kinds[c.ID] = Efficiency
			}
		}
	}
	for i := range t.CPUs {
		t.CPUs[i].Kind = kinds[t.CPUs[i].ID]
	}
}

// LLC is the CPU's last-level cache: its data or unified cache of the
// highest level; false where sysfs lists none.
func (c TopoCPU) LLC() (CPUCache, bool) {
	var best CPUCache
	found := false
	for _, k := range c.Caches {
		if k.Type != "Instruction" && (!found || k.Level > best.Level) {
			best, found = k, true
		}
	}
	return best, found
}

// view is a topology prepared for comparing many pairs: each CPU's core,
// last-level cache and caches as small group numbers.
type view struct {
	t      Topology
	at     map[int]int // CPU number → index in t.CPUs
	core   []int
	llc    []int   // -1 where no last-level cache is listed
	caches [][]int // every cache's group, sorted
}

func (t Topology) view() *view {
	v := &view{t: t, at: map[int]int{}}
	groups := map[string]int{}
	group := func(key string) int {
		g, ok := groups[key]
		if !ok {
			g = len(groups)
			groups[key] = g
		}
		return g
	}
	cacheKey := func(k CPUCache) string {
		return fmt.Sprintf("cache %d %s %s", k.Level, k.Type, FormatCPUList(k.Shared))
	}
	for i, c := range t.CPUs {
		v.at[c.ID] = i
		switch {
		case len(c.Threads) > 0:
			v.core = append(v.core, group("threads "+FormatCPUList(c.Threads)))
		case c.Package >= 0 && c.Core >= 0:
			v.core = append(v.core, group(fmt.Sprintf("core %d %d %d", c.Package, c.Die, c.Core)))
		default:
			v.core = append(v.core, group(fmt.Sprintf("cpu %d", c.ID)))
		}
		llc := -1
		if k, ok := c.LLC(); ok {
			llc = group(cacheKey(k))
		}
		v.llc = append(v.llc, llc)
		var gs []int
		for _, k := range c.Caches {
			gs = append(gs, group(cacheKey(k)))
		}
		sort.Ints(gs)
		v.caches = append(v.caches, gs)
	}
	return v
}

// level is the largest boundary between the CPUs at indexes i and j.
func (v *view) level(i, j int) Level {
	a, b := v.t.CPUs[i], v.t.CPUs[j]
	switch {
	case i == j:
		return ""
	case v.core[i] == v.core[j]:
		return SMTSibling
	case a.Package != b.Package:
		return OtherPackage
	case a.Node != b.Node:
		return OtherNode
	case v.llc[i] < 0 || v.llc[j] < 0:
		return CrossCPU // cores of one node whose caches sysfs does not list
	case v.llc[i] == v.llc[j]:
		return SameLLC
	}
	return OtherLLC
}

// shared counts the caches the CPUs at indexes i and j share.
func (v *view) shared(i, j int) int {
	n := 0
	for _, g := range v.caches[i] {
		for _, h := range v.caches[j] {
			if g == h {
				n++
				break
			}
		}
	}
	return n
}

// LevelOf is the largest boundary between CPUs a and b: smt-sibling,
// same-llc, other-llc, other-node or other-package; cross-cpu where sysfs
// does not say (no caches listed), "" for one CPU or a CPU not online.
func (t Topology) LevelOf(a, b int) Level {
	v := t.view()
	i, ok := v.at[a]
	j, ok2 := v.at[b]
	if !ok || !ok2 {
		return ""
	}
	return v.level(i, j)
}

// Realises reports whether the pair a, b (a waking b) is at level l.
func (t Topology) Realises(l Level, a, b int) bool {
	v := t.view()
	i, ok := v.at[a]
	j, ok2 := v.at[b]
	if !ok || !ok2 || a == b {
		return false
	}
	switch l {
	case CrossCPU:
		return true
	case PToE:
		return t.CPUs[i].Kind == Performance && t.CPUs[j].Kind == Efficiency
	}
	return v.level(i, j) == l
}

// Levels lists the levels present among the CPUs within (nil: all online
// CPUs), in the order of AllLevels, each with a pair that realises it.
// The pair is chosen so that it differs in nothing but its level, and
// otherwise from the highest-numbered CPUs (CPU 0 takes more interrupts
// and housekeeping): of a level's pairs, those of one core type (p-to-e:
// the nearest other level), then those sharing the fewest caches (same-llc:
// not an L2 too), then the one with the highest CPU, then the highest other
// CPU. cross-cpu is the first and the last CPU, as that placement has
// always been run.
func (t Topology) Levels(within []int) []LevelPair {
	v := t.view()
	var idx []int // indexes into t.CPUs, in CPU order
	if within == nil {
		for i := range t.CPUs {
			idx = append(idx, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range within {
			if i, ok := v.at[c]; ok && !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		}
		sort.Ints(idx)
	}
	if len(idx) < 2 {
		return nil
	}
	type choice struct {
		i, j  int
		score [5]int // lower is better
	}
	best := map[Level]choice{}
	consider := func(l Level, i, j int, score [5]int) {
		if c, ok := best[l]; !ok || less(score, c.score) {
			best[l] = choice{i: i, j: j, score: score}
		}
	}
	order := map[Level]int{}
	for k, l := range AllLevels {
		order[l] = k
	}
	for x, i := range idx {
		for _, j := range idx[x+1:] {
			a, b := t.CPUs[i], t.CPUs[j] // a.ID < b.ID
			l := v.level(i, j)
			shared := v.shared(i, j)
			if l != CrossCPU && l != "" {
				mixed := 0
				if a.Kind != b.Kind {
					mixed = 1
				}
				consider(l, i, j, [5]int{mixed, 0, shared, -b.ID, -a.ID})
			}
			switch {
			case a.Kind == Performance && b.Kind == Efficiency:
				consider(PToE, i, j, [5]int{0, order[l], shared, -b.ID, -a.ID})
			case a.Kind == Efficiency && b.Kind == Performance:
				consider(PToE, j, i, [5]int{0, order[l], shared, -b.ID, -a.ID})
			}
		}
	}
	var out []LevelPair
	for _, l := range AllLevels {
		if l == CrossCPU {
			i, j := idx[0], idx[len(idx)-1]
			at := v.level(i, j)
			if at == CrossCPU {
				at = ""
			}
			out = append(out, LevelPair{Level: l, A: t.CPUs[i].ID, B: t.CPUs[j].ID, Description: v.describe(l, i, j), At: at})
			continue
		}
		if c, ok := best[l]; ok {
			out = append(out, LevelPair{Level: l, A: t.CPUs[c.i].ID, B: t.CPUs[c.j].ID, Description: v.describe(l, c.i, c.j)})
		}
	}
	return out
}

func less(a, b [5]int) bool { return slices.Compare(a[:], b[:]) < 0 }

// Describe says, in words, what tells CPUs a and b apart at level l.
func (t Topology) Describe(l Level, a, b int) string {
	v := t.view()
	i, ok := v.at[a]
	j, ok2 := v.at[b]
	if !ok || !ok2 {
		return ""
	}
	return v.describe(l, i, j)
}

func (v *view) describe(l Level, i, j int) string {
	a, b := v.t.CPUs[i], v.t.CPUs[j]
	var shared []string
	for _, k := range a.Caches {
		if slices.Contains(k.Shared, b.ID) {
			shared = append(shared, k.Name())
		}
	}
	sharing := "sharing no cache"
	if len(shared) > 0 {
		sharing = "sharing " + strings.Join(shared, ", ")
	}
	llcs := func() string {
		ka, _ := a.LLC()
		kb, _ := b.LLC()
		return fmt.Sprintf("%s of CPUs %s and of CPUs %s", ka.Name(), FormatCPUList(ka.Shared), FormatCPUList(kb.Shared))
	}
	kinds := ""
	if a.Kind != "" && a.Kind == b.Kind {
		kinds = fmt.Sprintf(" (two %s cores)", a.Kind)
	}
	switch l {
	case SMTSibling:
		return fmt.Sprintf("two hardware threads of one core (core %d, package %d), %s", a.Core, a.Package, sharing)
	case SameLLC:
		k, _ := a.LLC()
		return fmt.Sprintf("different cores%s %s (the last-level cache of CPUs %s)", kinds, sharing, FormatCPUList(k.Shared))
	case OtherLLC:
		return fmt.Sprintf("one package and NUMA node, different last-level caches%s (%s)", kinds, llcs())
	case OtherNode:
		return fmt.Sprintf("one package, different NUMA nodes (%d and %d)", a.Node, b.Node)
	case OtherPackage:
		s := fmt.Sprintf("different packages (%d and %d)", a.Package, b.Package)
		if a.Node != b.Node {
			s += fmt.Sprintf(" and NUMA nodes (%d and %d)", a.Node, b.Node)
		}
		return s
	case PToE:
		return fmt.Sprintf("a performance core (CPU %d) waking an efficiency core (CPU %d), %s", a.ID, b.ID, sharing)
	case CrossCPU:
		if at := v.level(i, j); at != CrossCPU {
			return fmt.Sprintf("any two CPUs: the first and the last (here %s)", at)
		}
		return "any two CPUs: the first and the last (sysfs does not say how far apart)"
	}
	return ""
}

// FormatCPUList writes CPUs as the kernel does: "0-3,8,10-11".
func FormatCPUList(cpus []int) string {
	s := append([]int(nil), cpus...)
	sort.Ints(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] <= s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if s[j] != s[i] {
			b.WriteString("-" + strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}
