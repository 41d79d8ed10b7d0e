package bpf

// InPlaceOptions says what the in-place programs (ctxbench attach) take
// as targets and how much they time.
type InPlaceOptions struct {
	// All makes every task of the machine target 0, but the idle tasks and
	// this process (ctxbench's own).
	All bool
	// RateLimit is the switches per second each CPU times at most (their
	// path, their run-queue wait); above it they are only counted, until
	// the next 100 ms. 0: every switch is timed.
	RateLimit uint32
	// Self is the TGID never taken as a target (0: this process; -1: none,
	// so that this process's own threads can be one: the attach's check
	// against the ladder's kernel, which runs in it).
	Self int
	// Full attaches the scheduler's entry and exit too (GroupSched): the
	// syscall's part, the pick, the switch and the return become phases
	// of their own, for two more probe firings (and clock reads) per
	// switch. Without it (the light set) they merge: the syscall up to
	// the switch, and the switch up to the return to user space.
	Full bool
}
