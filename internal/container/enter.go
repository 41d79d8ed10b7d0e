package container

import (
	"os"
)

// EnterFromEnv is EnterSelf for the spec ApplyAttrs put into SpecEnv; with
// no SpecEnv it does nothing and returns the plain spec.
func EnterFromEnv() (Spec, error) {
	text := os.Getenv(SpecEnv)
	if text == "" {
		return Spec{}, nil
	}
	spec, err := ParseSpec(text)
	if err != nil {
		return Spec{}, err
	}
	return spec, EnterSelf(spec)
}

// SelfApplied is the part of a spec a process applies to itself, as values
// a process that runs no Go code can apply (a single-threaded side does it
// in C before its kernel; internal/kernels/confine.c): the capabilities it
// keeps, the kernel's last capability, and the seccomp program.
type SelfApplied struct {
	DropCaps bool
	KeepCaps uint64
	LastCap  int
	Seccomp  []Filter
}

// Filter is one instruction of a seccomp program, as struct sock_filter
// lays it out (code, jump if true, jump if false, constant).
type Filter struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}
