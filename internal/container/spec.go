// Package container builds what a container is made of, straight from the
// kernel features (no Docker, no OCI runtime): namespaces, a cpu cgroup at a
// chosen depth, a seccomp filter and a reduced capability set. It starts
// re-executed children inside them, lets a child finish entering them itself
// (EnterSelf), checks from outside what was really entered (Verify), and
// removes every cgroup it made, also from a signal handler (CleanupAll).
package container

import (
	"fmt"
	"strconv"
	"strings"
)

// Seccomp selects the seccomp filter a child installs on itself.
type Seccomp int

const (
	// SeccompNone installs no filter.
	SeccompNone Seccomp = iota
	// SeccompAllowList is modelled on a container runtime's default profile:
	// default action EPERM, every ordinary syscall allowed by number, the
	// sensitive ones (mount, ptrace, kexec, bpf, ...) left out, clone allowed
	// only without namespace flags and clone3 answered with ENOSYS. Since
	// Linux 5.11 the kernel caches the verdict of syscalls such a filter
	// allows whatever their arguments, so read/write/futex skip the BPF run.
	SeccompAllowList
	// SeccompArgs is the allow-list plus argument checks on the syscalls a
	// ping-pong makes (read, write: descriptor bound; futex: operation
	// allow-list). Their verdict depends on arguments, so the 5.11 cache
	// cannot hold it and the filter runs on every one of those syscalls.
	SeccompArgs
)

func (s Seccomp) String() string {
	switch s {
	case SeccompNone:
		return "none"
	case SeccompAllowList:
		return "allow"
	case SeccompArgs:
		return "args"
	}
	return "seccomp(" + strconv.Itoa(int(s)) + ")"
}

// Spec is what one contained process gets. The zero Spec is a plain process.
type Spec struct {
	PID, Net, Mnt, IPC, UTS bool // own namespaces of these kinds
	User                    bool // own user namespace (uid/gid 0 mapped to the caller's)
	CgroupNS                bool // own cgroup namespace, rooted at the process's own cgroup
	// CgroupDepth is how many levels below the controller's root the
	// process's own cpu cgroup sits: 0 none (stays where it is), 1, 2 as
	// under systemd/Docker (system.slice/docker-<id>.scope), 4 as under
	// Kubernetes (kubepods/burstable/pod<uid>/<container>). 1..8 accepted.
	CgroupDepth int
	Seccomp     Seccomp
	// DropCaps keeps only the 14 capabilities Docker grants by default and
	// drops the rest from the effective, permitted, inheritable, ambient and
	// bounding sets.
	DropCaps bool
}

// MaxCgroupDepth bounds CgroupDepth; deeper trees are not what runtimes make.
const MaxCgroupDepth = 8

// Presets are the named variants of the container rung, in ladder order.
var presetOrder = []string{"plain", "ns", "userns", "cg1", "cg2", "cg4", "seccomp-allow", "seccomp-args", "caps", "full"}

// PresetNames lists the preset names Preset accepts.
func PresetNames() []string { return append([]string(nil), presetOrder...) }

// Preset returns a named Spec:
//
//	plain          nothing (the baseline process)
//	ns             pid+net+mnt+ipc+uts namespaces
//	userns         the same plus a user namespace
//	cg1, cg2, cg4  own cpu cgroup at depth 1, 2, 4
//	seccomp-allow  runtime-default-style allow-list filter
//	seccomp-args   argument-inspecting filter
//	caps           capabilities dropped to Docker's default set
//	full           pid+net+mnt+ipc+uts+cgroup namespaces (+user where
//	               available: see FullSpec), cgroup depth 2, allow-list
//	               seccomp, caps dropped
func Preset(name string) (Spec, error) {
	five := Spec{PID: true, Net: true, Mnt: true, IPC: true, UTS: true}
	switch name {
	case "plain":
		return Spec{}, nil
	case "ns":
		return five, nil
	case "userns":
		five.User = true
		return five, nil
	case "cg1":
		return Spec{CgroupDepth: 1}, nil
	case "cg2":
		return Spec{CgroupDepth: 2}, nil
	case "cg4":
		return Spec{CgroupDepth: 4}, nil
	case "seccomp-allow":
		return Spec{Seccomp: SeccompAllowList}, nil
	case "seccomp-args":
		return Spec{Seccomp: SeccompArgs}, nil
	case "caps":
		return Spec{DropCaps: true}, nil
	case "full":
		return Full(false), nil
	}
	return Spec{}, fmt.Errorf("unknown container preset %q (want one of %s)", name, strings.Join(presetOrder, ", "))
}

// Full is "a container": pid+net+mnt+ipc+uts+cgroup namespaces, an own cpu
// cgroup at depth 2, the allow-list seccomp filter and capabilities dropped;
// withUser adds a user namespace (pass UserNamespacesAvailable()).
func Full(withUser bool) Spec {
	return Spec{PID: true, Net: true, Mnt: true, IPC: true, UTS: true, CgroupNS: true,
		User: withUser, CgroupDepth: 2, Seccomp: SeccompAllowList, DropCaps: true}
}

// Validate rejects specs that cannot be built.
func (s Spec) Validate() error {
	if s.CgroupDepth < 0 || s.CgroupDepth > MaxCgroupDepth {
		return fmt.Errorf("cgroup depth %d out of range 0..%d", s.CgroupDepth, MaxCgroupDepth)
	}
	if s.Seccomp < SeccompNone || s.Seccomp > SeccompArgs {
		return fmt.Errorf("unknown seccomp mode %d", int(s.Seccomp))
	}
	return nil
}

// IsPlain reports whether the spec adds nothing to a plain process.
func (s Spec) IsPlain() bool { return s == Spec{} }

// Namespaces names the namespaces the spec asks for, in /proc/<pid>/ns names.
func (s Spec) Namespaces() []string {
	var ns []string
	for _, n := range nsTable {
		if n.want(s) {
			ns = append(ns, n.name)
		}
	}
	return ns
}

type nsKind struct {
	name string
	want func(Spec) bool
}

// nsTable names each namespace by its /proc/<pid>/ns entry (its clone
// flag: cloneFlag, spec_linux.go).
var nsTable = []nsKind{
	{"pid", func(s Spec) bool { return s.PID }},
	{"net", func(s Spec) bool { return s.Net }},
	{"mnt", func(s Spec) bool { return s.Mnt }},
	{"ipc", func(s Spec) bool { return s.IPC }},
	{"uts", func(s Spec) bool { return s.UTS }},
	{"user", func(s Spec) bool { return s.User }},
	{"cgroup", func(s Spec) bool { return s.CgroupNS }},
}

// NeedsSelfEntry reports whether the child must call EnterSelf: seccomp and
// capabilities can only be applied by the process to itself.
func (s Spec) NeedsSelfEntry() bool { return s.Seccomp != SeccompNone || s.DropCaps }

// Label describes the spec for result labels, e.g. "pid+net+mnt+ipc+uts
// namespaces, own cpu cgroup at depth 2 (v1), seccomp allow-list, caps
// dropped". cgroupVersion is 1 or 2 (0: unknown, left out).
func (s Spec) Label(cgroupVersion int) string {
	if s.IsPlain() {
		return "plain process (no namespaces, no own cgroup, no seccomp, all caps)"
	}
	var parts []string
	if ns := s.Namespaces(); len(ns) > 0 {
		parts = append(parts, strings.Join(ns, "+")+" namespaces")
	}
	if s.CgroupDepth > 0 {
		p := fmt.Sprintf("own cpu cgroup at depth %d", s.CgroupDepth)
		if cgroupVersion > 0 {
			p += fmt.Sprintf(" (v%d)", cgroupVersion)
		}
		parts = append(parts, p)
	}
	switch s.Seccomp {
	case SeccompAllowList:
		parts = append(parts, "seccomp allow-list")
	case SeccompArgs:
		parts = append(parts, "seccomp argument-inspecting filter")
	}
	if s.DropCaps {
		parts = append(parts, "caps dropped")
	}
	return strings.Join(parts, ", ")
}

// String encodes the spec compactly for argv or the environment, e.g.
// "ns=pid,net,mnt;cg=2;seccomp=allow;caps=drop"; ParseSpec reads it back.
func (s Spec) String() string {
	var parts []string
	if ns := s.Namespaces(); len(ns) > 0 {
		parts = append(parts, "ns="+strings.Join(ns, ","))
	}
	if s.CgroupDepth > 0 {
		parts = append(parts, "cg="+strconv.Itoa(s.CgroupDepth))
	}
	if s.Seccomp != SeccompNone {
		parts = append(parts, "seccomp="+s.Seccomp.String())
	}
	if s.DropCaps {
		parts = append(parts, "caps=drop")
	}
	if len(parts) == 0 {
		return "plain"
	}
	return strings.Join(parts, ";")
}

// ParseSpec reads String's encoding, or a preset name.
func ParseSpec(text string) (Spec, error) {
	text = strings.TrimSpace(text)
	if text == "" || text == "plain" {
		return Spec{}, nil
	}
	if !strings.Contains(text, "=") {
		return Preset(text)
	}
	var s Spec
	for _, part := range strings.Split(text, ";") {
		key, val, ok := strings.Cut(part, "=")
		if !ok {
			return Spec{}, fmt.Errorf("container spec %q: %q is not key=value", text, part)
		}
		switch key {
		case "ns":
			for _, name := range strings.Split(val, ",") {
				found := false
				for _, n := range nsTable {
					if n.name == name {
						found = true
						setNS(&s, name)
					}
				}
				if !found {
					return Spec{}, fmt.Errorf("container spec %q: unknown namespace %q", text, name)
				}
			}
		case "cg":
			d, err := strconv.Atoi(val)
			if err != nil {
				return Spec{}, fmt.Errorf("container spec %q: cgroup depth %q is not a number", text, val)
			}
			s.CgroupDepth = d
		case "seccomp":
			switch val {
			case "none":
			case "allow":
				s.Seccomp = SeccompAllowList
			case "args":
				s.Seccomp = SeccompArgs
			default:
				return Spec{}, fmt.Errorf("container spec %q: seccomp %q is not none, allow or args", text, val)
			}
		case "caps":
			if val != "drop" && val != "keep" {
				return Spec{}, fmt.Errorf("container spec %q: caps %q is not drop or keep", text, val)
			}
			s.DropCaps = val == "drop"
		default:
			return Spec{}, fmt.Errorf("container spec %q: unknown key %q", text, key)
		}
	}
	return s, s.Validate()
}

func setNS(s *Spec, name string) {
	switch name {
	case "pid":
		s.PID = true
	case "net":
		s.Net = true
	case "mnt":
		s.Mnt = true
	case "ipc":
		s.IPC = true
	case "uts":
		s.UTS = true
	case "user":
		s.User = true
	case "cgroup":
		s.CgroupNS = true
	}
}
