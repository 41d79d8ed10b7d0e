package pool

// hooks.go: test hooks. The pool experiment's tests (internal/experiment/
// pool) drive this engine from outside the package and need to see each
// server started and to fail a window on purpose; nothing else sets them.

// SetTestHooks makes every server started report its process group leader
// (0 for an external server) and kind, and lets window fail a window
// before it runs. The returned function removes them.
func SetTestHooks(started func(pid int, kind string), window func(WindowSpec) error) func() {
	if started != nil {
		testHookStarted = func(t *target) { started(t.pid, t.kind) }
	}
	testHookWindow = window
	return func() { testHookStarted, testHookWindow = nil, nil }
}
