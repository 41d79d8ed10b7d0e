// Package host is the plumbing every layer of ctxbench needs from the
// machine it runs on, and nothing more: CPU affinity of child processes,
// the time of a set of CPUs, the kernel and resource limits that bound how
// many contexts can exist, the machine-wide lock that keeps two
// measurements apart, the wait after a per-task perf event closes, and the
// one reader of /proc and /sys files. Its leaf host/x86 reads CPUID and the
// TSC.
//
// It imports no other ctxbench package, so the scheduler, the mechanisms
// and the catalog may all use it without reaching what sits above them.
// What the machine is, as a result records it (internal/machine), is read
// with it, not kept in it.
package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Root reads /proc and /sys files under a root directory: "" or "/" is
// this machine, a temporary directory is a recorded tree in a test. Paths
// are relative to the root ("proc/cpuinfo").
type Root string

// Path is p under the root.
func (r Root) Path(p string) string {
	if r == "" {
		r = "/"
	}
	return filepath.Join(string(r), p)
}

// Read is the content of p without surrounding white space; "" when it
// cannot be read.
func (r Root) Read(p string) string {
	b, err := os.ReadFile(r.Path(p))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Exists reports whether p exists.
func (r Root) Exists(p string) bool {
	_, err := os.Stat(r.Path(p))
	return err == nil
}

// ParseCPUList parses a kernel CPU list such as "0-3,8,10-11".
func ParseCPUList(s string) []int {
	const maxCPUNumber = 8192 // the kernel's largest NR_CPUS
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil
			}
		}
		if a < 0 || b >= maxCPUNumber {
			return nil // not a CPU number; also keeps "0-2000000000" from allocating gigabytes
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out
}
