package container

import (
	"fmt"
	"strings"
)

// NSCheck is one namespace of a verified child.
type NSCheck struct {
	Name   string `json:"name"`
	Ours   string `json:"ours"`   // e.g. "net:[4026531840]"
	Theirs string `json:"theirs"` // the child's
	Own    bool   `json:"own"`    // the child's differs from ours
	Wanted bool   `json:"wanted"` // the spec asked for it
}

// Verification is what Verify found; it goes into result labels and JSON.
type Verification struct {
	Pid           int       `json:"pid"`
	Namespaces    []NSCheck `json:"namespaces"`
	NamespacesOK  bool      `json:"namespaces_ok"`
	CgroupVersion int       `json:"cgroup_version,omitempty"`
	CgroupPath    string    `json:"cgroup_path,omitempty"` // as seen from our cgroup namespace
	CgroupWant    string    `json:"cgroup_want,omitempty"`
	CgroupDepth   int       `json:"cgroup_depth"` // levels below the hierarchy root
	CgroupOK      bool      `json:"cgroup_ok"`
	// CgroupNSView is the child's cgroup path as seen from inside its own
	// cgroup namespace ("/" when the namespace is rooted at its cgroup);
	// empty when the child has no cgroup namespace or it could not be read.
	CgroupNSView   string   `json:"cgroup_ns_view,omitempty"`
	SeccompMode    int      `json:"seccomp_mode"` // 0 none, 1 strict, 2 filter
	SeccompFilters int      `json:"seccomp_filters"`
	NoNewPrivs     bool     `json:"no_new_privs"`
	SeccompOK      bool     `json:"seccomp_ok"`
	CapEff         string   `json:"cap_eff"` // hex, as in /proc/<pid>/status
	CapsOK         bool     `json:"caps_ok"`
	OK             bool     `json:"ok"`
	Problems       []string `json:"problems,omitempty"`
}

// Summary is a one-line account for labels, e.g. "verified: own
// pid,net,mnt,ipc,uts ns; cgroup /ctxbench-1-1.slice/a.scope; seccomp 2; CapEff 00000000a80425fb".
func (v Verification) Summary() string {
	var own []string
	for _, n := range v.Namespaces {
		if n.Own {
			own = append(own, n.Name)
		}
	}
	parts := []string{}
	if v.OK {
		parts = append(parts, "verified")
	} else {
		parts = append(parts, "NOT verified ("+strings.Join(v.Problems, "; ")+")")
	}
	if len(own) > 0 {
		parts = append(parts, "own "+strings.Join(own, ",")+" ns")
	}
	if v.CgroupPath != "" && v.CgroupWant != "" {
		parts = append(parts, fmt.Sprintf("cgroup v%d %s", v.CgroupVersion, v.CgroupPath))
	}
	if v.CgroupNSView == "/" {
		parts = append(parts, "cgroup ns rooted at it")
	}
	if v.SeccompMode != 0 {
		parts = append(parts, fmt.Sprintf("seccomp mode %d (%d filters), no_new_privs=%v", v.SeccompMode, v.SeccompFilters, v.NoNewPrivs))
	}
	parts = append(parts, "CapEff "+v.CapEff)
	return strings.Join(parts, "; ")
}
