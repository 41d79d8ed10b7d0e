package host

// supervise.go: keeping what a run starts from outliving it. A run starts
// workers, partners, probes' runtimes and servers, each in a process group
// it kills when a block ends; what the kernel does when the run itself is
// killed (SIGKILL, which no cleanup sees) differs by platform:
// supervise_linux.go (a death signal and a child subreaper) and
// supervise_darwin.go (children of this binary watch their parent).

// Child is a child process of this one that runs this binary.
type Child struct {
	PID    int
	Zombie bool // exited, not yet reaped
}
