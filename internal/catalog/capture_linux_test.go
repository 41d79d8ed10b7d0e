package catalog

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/phase"
)

// A slow hop's "another task" that is a thread of the worker itself (its
// harness) is named as ctxbench's own; another program's task is not.
func TestOwnThreadsAreNamedAsCtxbench(t *testing.T) {
	own, other := unix.Gettid(), 1<<30
	split := func(phase.CapturedHop) phase.HopBreakdown {
		return phase.HopBreakdown{Ns: 300, Phases: []model.HopPhase{
			{Name: "another task ran: ctxb", Cause: model.CauseOtherTask, Task: &model.Task{Comm: "ctxb", PID: own}, Ns: 100},
			{Name: "another task ran: cc1", Cause: model.CauseOtherTask, Task: &model.Task{Comm: "cc1", PID: other}, Ns: 100},
			{Name: "write()", Cause: model.CauseWork, Ns: 100},
		}}
	}
	h := wireHop(phase.CapturedHop{}, split)
	if p := h.Phases[0].Task; p == nil || !p.Self || !strings.Contains(p.String(), "ctxbench's own worker") {
		t.Errorf("the worker's own thread: %+v (%v)", p, p)
	}
	if p := h.Phases[1].Task; p == nil || p.Self || strings.Contains(p.String(), "ctxbench") {
		t.Errorf("another program's task: %+v (%v)", p, p)
	}
}
