package machine

// tail.go: the settings that move a wake-up's tail under load (ctxbench
// load; docs/load.md): the preemption model, the timer tick, a sched_ext
// scheduler, isolated and tickless CPUs, and the CPU latency limit that
// keeps idle CPUs shallow. Each is read where the kernel states it, and
// left empty (unknown) rather than guessed.

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/result"
)

// tailSettings fills s with what r shows.
func tailSettings(r host.Root, s *result.SchedInfo, cmdline, release, build string) {
	cfg := kernelConfig(r, release)
	s.Preempt, s.PreemptSource = preemptModel(r, cmdline, build, cfg)
	if hz, err := strconv.Atoi(cfg["CONFIG_HZ"]); err == nil {
		s.HZ = hz
	}
	switch {
	case r.Exists("sys/kernel/sched_ext/state"):
		s.SchedExt = "none"
		if r.Read("sys/kernel/sched_ext/state") == "enabled" {
			s.SchedExt = r.Read("sys/kernel/sched_ext/root/ops")
			if s.SchedExt == "" {
				s.SchedExt = "enabled"
			}
		}
	case cfg["CONFIG_SCHED_CLASS_EXT"] == "y":
		s.SchedExt = "none"
	}
	s.Isolated = r.Read("sys/devices/system/cpu/isolated")
	s.NoHZFull = r.Read("sys/devices/system/cpu/nohz_full")
	if s.NoHZFull == "(null)" {
		s.NoHZFull = ""
	}
	if s.Isolated == "" {
		s.Isolated = bootParam(cmdline, "isolcpus")
	}
	if s.NoHZFull == "" {
		s.NoHZFull = bootParam(cmdline, "nohz_full")
	}
}

var preemptParen = regexp.MustCompile(`\(([a-z_]+)\)`)

// preemptModel is the preemption model in force and where it was read:
// debugfs names the current one in parentheses; else preempt= on the boot
// line; else the kernel's configured default (which a PREEMPT_DYNAMIC
// kernel boots with unless told otherwise); else what uname's version
// string says (PREEMPT_RT, or PREEMPT: full).
func preemptModel(r host.Root, cmdline, build string, cfg map[string]string) (string, string) {
	if m := preemptParen.FindStringSubmatch(r.Read("sys/kernel/debug/sched/preempt")); m != nil {
		return m[1], "/sys/kernel/debug/sched/preempt"
	}
	if v := bootParam(cmdline, "preempt"); v != "" {
		return v, "preempt= on the kernel command line"
	}
	if cfg["CONFIG_PREEMPT_RT"] == "y" {
		return "rt", "kernel config (CONFIG_PREEMPT_RT)"
	}
	for _, m := range []struct{ key, name string }{{"CONFIG_PREEMPT_NONE", "none"}, {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"}, {"CONFIG_PREEMPT", "full"}, {"CONFIG_PREEMPT_LAZY", "lazy"}} {
		if cfg[m.key] == "y" {
			src := "kernel config (" + m.key + ")"
			if cfg["CONFIG_PREEMPT_DYNAMIC"] == "y" {
				src = "kernel config (" + m.key + ": the boot default of a PREEMPT_DYNAMIC kernel, no preempt= given)"
			}
			return m.name, src
		}
	}
	switch {
	case strings.Contains(build, "PREEMPT_RT"):
		return "rt", "uname -v"
	case strings.Contains(build, "PREEMPT_DYNAMIC"):
		return "", "uname -v says PREEMPT_DYNAMIC; neither debugfs nor the kernel config says which model is in force"
	case strings.Contains(build, "PREEMPT "):
		return "full", "uname -v"
	}
	return "", "not stated where ctxbench can read it (debugfs, preempt=, the kernel config)"
}

// bootParam is the value of name=value on the kernel command line ("" when
// absent); a bare name is "on".
func bootParam(cmdline, name string) string {
	for _, f := range strings.Fields(cmdline) {
		if f == "--" {
			break
		}
		if f == name {
			return "on"
		}
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// kernelConfig reads the running kernel's configuration from
// /proc/config.gz or /boot/config-RELEASE (empty when neither exists).
func kernelConfig(r host.Root, release string) map[string]string {
	cfg := map[string]string{}
	var in io.Reader
	if f, err := os.Open(r.Path("proc/config.gz")); err == nil {
		defer f.Close()
		if z, err := gzip.NewReader(f); err == nil {
			defer z.Close()
			in = z
		}
	}
	if in == nil && release != "" {
		if f, err := os.Open(r.Path("boot/config-" + release)); err == nil {
			defer f.Close()
			in = f
		}
	}
	if in == nil {
		return cfg
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "CONFIG_") {
			cfg[k] = strings.Trim(v, `"`)
		}
	}
	return cfg
}

// dmaLatency is the CPU latency limit in force, in µs, from
// /dev/cpu_dma_latency (reading it adds no constraint); nil where it
// cannot be read.
func dmaLatency(r host.Root) *int64 {
	f, err := os.Open(r.Path("dev/cpu_dma_latency"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return nil
	}
	v := int64(int32(binary.NativeEndian.Uint32(b[:])))
	return &v
}
