package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/container"
)

// acct is a memory cgroup the measured contexts are born in, so the kernel
// charges to it exactly what they allocate, user pages and kernel memory
// (kernel stacks, page tables, slab objects, also those allocated while
// creating them), with nothing else on the machine mixed in. /proc/meminfo
// deltas are reported as well, but they move with everything else.
type acct struct {
	tree *container.Tree
	cg   *container.Cgroup
}

// newAcct makes the accounting cgroup, or says why it cannot.
func newAcct() (*acct, string) {
	h, err := container.FindHierarchy("memory")
	if err != nil {
		return nil, "no memory cgroup hierarchy: " + err.Error()
	}
	t, err := container.NewTree(h, 1)
	if err != nil {
		return nil, err.Error()
	}
	cg, err := t.Leaf("mem")
	if err != nil {
		return nil, err.Error()
	}
	a := &acct{tree: t, cg: cg}
	if _, _, err := a.usage(); err != nil {
		_ = t.Remove()
		return nil, err.Error()
	}
	return a, ""
}

func (a *acct) close() error { return a.tree.Remove() }

// usage returns the user pages (anonymous and file) and the kernel memory
// charged to the cgroup. On v1 these come from memory.stat (rss + cache,
// exact page counts) and memory.kmem.usage_in_bytes (memory.usage_in_bytes
// also holds per-CPU precharges, up to hundreds of KiB); on v2 from
// memory.stat anon + file and kernel.
func (a *acct) usage() (user, kernel int64, err error) {
	dir := a.cg.Dir()
	st, err := statFile(filepath.Join(dir, "memory.stat"))
	if err != nil {
		return 0, 0, err
	}
	if a.cg.H.Version == 2 {
		k, ok := st["kernel"]
		if !ok {
			return 0, 0, fmt.Errorf("%s/memory.stat has no kernel line", dir)
		}
		return st["anon"] + st["file"], k, nil
	}
	k, err := readInt(filepath.Join(dir, "memory.kmem.usage_in_bytes"))
	if err != nil {
		return 0, 0, fmt.Errorf("kernel memory accounting unavailable: %w", err)
	}
	return st["rss"] + st["cache"], k, nil
}

// statFile parses "key value" lines.
func statFile(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			m[f[0]] = v
		}
	}
	return m, nil
}
