package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/partner"
)

// The container rung: two single-threaded processes, each in a container of
// its own (its own namespaces, cpu cgroup, seccomp filter, capabilities, per
// the variant), pinned to one CPU, blocking ping-pong. Both sides are the
// binary re-executed into the container by the worker, running their C
// kernel before the Go runtime starts (st.c), so the plain variant is the
// process rung's code path with no isolation: the baseline every variant is
// measured against, interleaved. Methodology: docs/containers.md.

func containerSpec(preset string) (container.Spec, error) {
	if preset == "full" {
		ok, _ := container.UserNamespacesAvailable()
		return container.Full(ok), nil
	}
	return container.Preset(preset)
}

func needsContainer(preset string) func() (bool, string) {
	return func() (bool, string) {
		if ok, why := needsCgo(); !ok {
			return ok, why
		}
		if emu := emulation(); emu != "" {
			return false, "emulated by " + emu + ", which refuses clone's namespace flags and runs a thread of its own in every process (the sides are single-threaded)"
		}
		spec, err := containerSpec(preset)
		if err == nil {
			err = container.Check(spec)
		}
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	}
}

// containerPair runs side A (timing) and side B (echo) as single-threaded
// partners (like the process rung's), each started into its own member of
// the set, confining itself in C before it reports ready, and verifies from
// outside what each entered.
func containerPair(ctx context.Context, req model.Request, preset string, futex bool) (model.Response, error) {
	spec, err := containerSpec(preset)
	if err != nil {
		return model.Response{}, err
	}
	self, err := container.SelfApply(spec)
	if err != nil {
		return model.Response{}, err
	}
	set, err := container.NewSet(spec)
	if err != nil {
		return model.Response{}, err
	}
	defer set.Close()

	pair, roleA, roleB := pipePair, "pipe-a", "pipe-b"
	if futex {
		pair, roleA, roleB = sharedPage, "futex-a", "futex-b"
	}
	t, cleanup, err := pair()
	if err != nil {
		return model.Response{}, err
	}
	defer cleanup()

	// Both sides wait after "ready" (a single-threaded side always does):
	// they are verified from outside before either enters its timed loop,
	// so the inspection costs no sample.
	var inA, inB *container.Instance
	start := func(member, role string, files []*os.File, in **container.Instance) (*partner.Process, error) {
		spec := partner.Spec{Request: partner.Request{Block: block(req)}, Files: files, Stderr: os.Stderr,
			SingleThreaded: role, Confine: &self,
			Start: func(cmd *exec.Cmd) error {
				i, err := set.Start(cmd, member)
				*in = i
				return err
			}}
		p, err := partner.Start(ctx, spec)
		if err != nil {
			return nil, fmt.Errorf("side %s: %w", member, err)
		}
		return p, nil
	}
	release := func() {
		for _, in := range []*container.Instance{inA, inB} {
			if in != nil {
				in.Release()
			}
		}
	}
	defer release()
	pb, err := start("b", roleB, t.Files, &inB)
	if err != nil {
		return model.Response{}, err
	}
	pa, err := start("a", roleA, t.FilesA, &inA)
	if err != nil {
		pb.Kill()
		return model.Response{}, err
	}
	// Only the partners hold the pipes now: a dead side is end-of-file.
	cleanup()
	va, vb := inA.Verify(), inB.Verify()
	if err := errors.Join(pb.Go(), pa.Go()); err != nil {
		pa.Kill()
		pb.Kill()
		return model.Response{}, fmt.Errorf("releasing the sides: %w", err)
	}

	resp, err := collectPair(ctx, pa, pb)
	if err != nil {
		return model.Response{}, err
	}
	mech := "pipe ping-pong"
	if futex {
		mech = "futex ping-pong over a shared memfd page"
	}
	entered := "namespaces, cgroup, seccomp and capabilities verified from outside on both sides"
	if !va.OK || !vb.OK {
		entered = "NOT verified (see flags)"
	}
	resp.Label = &model.Label{What: "single-threaded process in another container", Mechanism: mech, Isolation: set.Label() + "; " + entered}
	resp.Evidence = map[string]string{
		"side_a":   va.Summary(),
		"side_b":   vb.Summary(),
		"verify_a": mustJSON(va),
		"verify_b": mustJSON(vb),
	}
	if !va.OK || !vb.OK {
		resp.Flags = append(resp.Flags, model.Flag{Code: "isolation", Message: fmt.Sprintf("what the sides entered does not match the variant: A %s; B %s", va.Summary(), vb.Summary())})
	}
	return resp, nil
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// containerDescr says what each container preset adds.
var containerDescr = map[string]string{
	"plain":         "the baseline: both sides re-executed the same way, with no isolation at all",
	"ns":            "each side in its own pid, net, mnt, ipc and uts namespaces",
	"userns":        "each side in its own pid, net, mnt, ipc, uts and user namespaces",
	"cg1":           "each side in its own cpu cgroup one level deep",
	"cg2":           "each side in its own cpu cgroup two levels deep (as under systemd or Docker)",
	"cg4":           "each side in its own cpu cgroup four levels deep (as under Kubernetes)",
	"seccomp-allow": "each side under a seccomp filter like a container runtime's default allow-list",
	"seccomp-args":  "each side under a seccomp filter that inspects syscall arguments (defeats the kernel's seccomp cache)",
	"caps":          "each side with capabilities dropped to a container runtime's default set",
	"full":          "each side in a full container: its own namespaces (user where available), cpu cgroup at depth 2, allow-list seccomp, capabilities dropped",
}

// containerRows are the container rung: a pipe ping-pong per preset and a
// futex ping-pong without and with full isolation.
func containerRows() []*model.Benchmark {
	var rows []*model.Benchmark
	pair := []model.Placement{model.SameCPU, model.CrossCPU}
	for _, preset := range container.PresetNames() {
		rows = append(rows, &model.Benchmark{
			Name: "container/pipe-" + preset, Rung: model.Container, Kind: model.Switch,
			Description: "two processes ping-pong over two pipes, " + containerDescr[preset],
			Op:          "round trip: write to pipe 1, blocking read of pipe 2 (2 hops)", HopsPerOp: 2,
			Switched: "a process in another container", Mechanism: "pipe ping-pong",
			Placements: pair, Ladder: single, ExpectSwitch: true,
			StartIters: 256, Needs: needsContainer(preset), Phases: "pipe",
			Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return containerPair(ctx, req, preset, false)
			},
		})
	}
	for _, preset := range []string{"plain", "full"} {
		rows = append(rows, &model.Benchmark{
			Name: "container/futex-" + preset, Rung: model.Container, Kind: model.Switch,
			Description: "two processes ping-pong a futex turn flag in a shared page, " + containerDescr[preset],
			Op:          "round trip: store + FUTEX_WAKE, FUTEX_WAIT until answered (2 hops)", HopsPerOp: 2,
			Switched: "a process in another container", Mechanism: "futex ping-pong over a shared memfd page",
			Placements: pair, Ladder: single, ExpectSwitch: true,
			StartIters: 256, Needs: needsContainer(preset), Phases: "futex",
			Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return containerPair(ctx, req, preset, true)
			},
		})
	}
	return rows
}
