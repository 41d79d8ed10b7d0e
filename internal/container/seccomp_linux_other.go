//go:build linux && !amd64 && !arm64

package container

// No filter is assembled for other architectures: SeccompProgram says so.
const (
	auditArch   = 0
	lastSyscall = 0
)

var archDeniedSyscalls []int
