package catalog

// macos.go: the ladder rows of macOS's own primitives — a kqueue user
// event where Linux has the eventfd, wait-on-address where Linux has the
// futex. They are listed only where the primitive exists (platform.go);
// their kernels are internal/kernels/pingpong_darwin.c.

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
)

func macosRows() []*model.Benchmark {
	const st = "another process (separate address space; both processes single-threaded)"
	unpinned := []model.Placement{model.Unpinned}
	return []*model.Benchmark{
		&model.Benchmark{
			Name: "thread/kqueue-user", Rung: model.Thread, Kind: model.Switch,
			Description: "two threads of one process ping-pong through two kqueues' EVFILT_USER events: macOS's counterpart of thread/eventfd",
			Op:          "round trip: NOTE_TRIGGER the other's event, blocking kevent on its own (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "kqueue EVFILT_USER ping-pong (EV_CLEAR, NOTE_TRIGGER, blocking kevent)",
			Placements: unpinned, Ladder: unpinned, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Run: inProcess(kernels.ThreadKqueueUser),
		},
		&model.Benchmark{
			Name: "thread/wait-on-address", Rung: model.Thread, Kind: model.Switch,
			Description: "two threads ping-pong a turn flag with os_sync_wake_by_address_any / os_sync_wait_on_address (macOS 14.4+; __ulock_wake / __ulock_wait before), never spinning: macOS's counterpart of thread/futex",
			Op:          "round trip: store + wake, wait until answered (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "wait-on-address ping-pong (os_sync_wait_on_address, else __ulock_wait; no spinning)",
			Placements: unpinned, Ladder: unpinned, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Run: inProcess(kernels.ThreadWaitOnAddress),
		},
		&model.Benchmark{
			Name: "process/wait-on-address", Rung: model.Process, Kind: model.Switch,
			Description: "two single-threaded processes ping-pong a turn flag in a shared page with wait-on-address (the _SHARED variants), never spinning: macOS's counterpart of process/futex",
			Op:          "round trip: store + wake, wait until answered (2 hops)", HopsPerOp: 2,
			Switched: st, Mechanism: "wait-on-address ping-pong over a shared page (os_sync_wait_on_address _SHARED, else __ulock_wait UL_COMPARE_AND_WAIT_SHARED)",
			Placements: unpinned, Ladder: unpinned, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo,
			Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return singleThreaded(ctx, req, func() (TwoProcess, func(), error) {
					return sharedPageFor(kernels.ProcWaitOnAddressA, kernels.ProcWaitOnAddressB, "ctxbench-woa")
				}, "woa-a", "woa-b")
			},
		},
	}
}
