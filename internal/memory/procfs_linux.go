package memory

// procfs_linux.go: a process's memory from /proc/PID/smaps_rollup and
// status, the machine's from /proc/meminfo.

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func readProcMem(pid int) (procMem, error) {
	roll, err := kbFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return procMem{}, err
	}
	st, err := kbFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procMem{}, err
	}
	return procMem{RSS: roll["Rss"], PSS: roll["Pss"], Virt: st["VmSize"], Threads: st["Threads"]}, nil
}

func readSysMem() (sysMem, error) {
	m, err := kbFile("/proc/meminfo")
	if err != nil {
		return sysMem{}, err
	}
	return sysMem{
		KernelStack: m["KernelStack"],
		PageTables:  m["PageTables"],
		Slab:        m["Slab"],
		SUnreclaim:  m["SUnreclaim"],
		Used:        m["MemTotal"] - m["MemAvailable"],
	}, nil
}

// settledSysMem reads /proc/meminfo once the machine's counters have
// settled: the kernel folds per-CPU counter deltas into the global figures
// every vm.stat_interval (1 s by default), and a net namespace from an
// earlier run is freed asynchronously (cleanup_net). It waits one interval,
// then reads until two readings one interval apart agree on slab and used
// memory within 256 KiB (at most five tries).
func settledSysMem() (sysMem, error) {
	if !settle {
		return readSysMem()
	}
	interval := time.Second
	if v, err := readInt("/proc/sys/vm/stat_interval"); err == nil && v > 0 && v < 10 {
		interval = time.Duration(v) * time.Second
	}
	interval += 100 * time.Millisecond
	time.Sleep(interval)
	prev, err := readSysMem()
	if err != nil {
		return sysMem{}, err
	}
	for i := 0; i < 5; i++ {
		time.Sleep(interval)
		cur, err := readSysMem()
		if err != nil {
			return sysMem{}, err
		}
		d := cur.minus(prev)
		if abs(d.Slab) < 256<<10 && abs(d.Used) < 256<<10 {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

// procState reads the state letter of /proc/<pid>/stat (R, S, D, Z...).
func procState(pid int) (byte, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return b[i+2], nil
}

// platformNotes are what a memory result says of this platform: nothing
// on Linux, where every figure is what its name says.
func platformNotes() []string { return nil }

// kbFile parses a /proc file of "Key:   123 kB" lines into bytes per key
// (values without a unit are kept as they are).
func kbFile(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n <<= 10
		}
		m[k] = n
	}
	return m, sc.Err()
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
