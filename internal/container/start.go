package container

// SpecEnv carries the spec to a re-executed child, for EnterFromEnv.
const SpecEnv = "CTXBENCH_CONTAINER_SPEC"

// Set is the contained children of one measurement: one spec, and when the
// spec asks for a cgroup, one leaf per child in a shared ctxbench tree.
type Set struct {
	Spec Spec
	H    Hierarchy // zero when the spec has no cgroup
	// Extra cgroups every member is also born in (e.g. a memory cgroup
	// that accounts for the members); the caller owns and removes them.
	Extra []*Cgroup
	tree  *Tree
}

// NewSet checks that spec can be built here and prepares (but does not yet
// create) its cgroup tree. Close removes whatever the set created.
func NewSet(spec Spec) (*Set, error) {
	if err := Check(spec); err != nil {
		return nil, err
	}
	s := &Set{Spec: spec}
	if spec.CgroupDepth > 0 {
		h, err := CPUHierarchy()
		if err != nil {
			return nil, err
		}
		t, err := NewTree(h, spec.CgroupDepth)
		if err != nil {
			return nil, err
		}
		s.H, s.tree = h, t
	}
	return s, nil
}

// Label is the spec's label with the cgroup version filled in.
func (s *Set) Label() string { return s.Spec.Label(s.H.Version) }

// Close removes the set's cgroups (killing anything still inside them).
func (s *Set) Close() error {
	if s.tree == nil {
		return nil
	}
	return s.tree.Remove()
}

// Instance is one child started in a Set.
type Instance struct {
	Spec   Spec
	Cgroup *Cgroup // nil without a cgroup
	Pid    int
	forget func()
}

// Release forgets the child in the cleanup registry; call it after the
// child has been waited for.
func (in *Instance) Release() {
	if in.forget != nil {
		in.forget()
		in.forget = nil
	}
}

// Verify checks the running child from outside; see Verify.
func (in *Instance) Verify() Verification { return Verify(in.Pid, in.Spec, in.Cgroup) }
