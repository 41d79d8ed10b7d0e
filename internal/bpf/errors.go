package bpf

import "errors"

// The reasons Open refuses, each a sentinel to test with errors.Is. The
// error Open returns wraps one of them in a one-line message that says what
// is missing on this machine (the CLI prints it and exits with status 2).
var (
	// ErrPrivilege: neither CAP_SYS_ADMIN nor both CAP_BPF and CAP_PERFMON
	// are effective (run as root).
	ErrPrivilege = errors.New("not privileged for BPF tracing")
	// ErrNoBPF: the bpf() syscall is missing or refused (CONFIG_BPF_SYSCALL
	// off, or blocked by seccomp or a sysctl).
	ErrNoBPF = errors.New("BPF syscall unavailable")
	// ErrNoBTF: the kernel exposes no BTF (/sys/kernel/btf/vmlinux), which
	// the programs need to find the fields they read (CO-RE).
	ErrNoBTF = errors.New("kernel BTF unavailable")
	// ErrNoRawTracepoint: the kernel cannot load raw tracepoint programs.
	ErrNoRawTracepoint = errors.New("raw tracepoint programs unavailable")
	// ErrUnsupported: not implemented for this OS or architecture (the
	// programs read each architecture's syscall registers: x86-64's and
	// arm64's).
	ErrUnsupported = errors.New("BPF tracing is implemented for linux/amd64 and linux/arm64 only")
	// ErrClosed: the tracer was closed.
	ErrClosed = errors.New("tracer closed")
)

// MissingError says what is missing and why it is needed. Unwrap gives
// the sentinel above.
type MissingError struct {
	Reason error  // one of the sentinels
	Detail string // what was found, in a few words
	Err    error  // the underlying error, if any
}

func (e *MissingError) Error() string {
	s := "bpf: " + e.Reason.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

func (e *MissingError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Reason, e.Err}
	}
	return []error{e.Reason}
}
