package spawn

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Memfd puts program into a sealed, close-on-exec memfd ready for
// execveat(fd, "", AT_EMPTY_PATH) or exec of /proc/self/fd/<fd>. The caller
// closes the file.
func Memfd(name string, program []byte) (*os.File, error) {
	if _, ok := targets[runtime.GOARCH]; !ok || len(program) == 0 {
		return nil, fmt.Errorf("the exec target is written for x86-64 and arm64 only; this is %s", runtime.GOARCH)
	}
	flags := unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate(name, flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) { // kernels before 6.3 know no MFD_EXEC
		fd, err = unix.MemfdCreate(name, flags)
	}
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:"+name)
	if _, err := f.Write(program); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the program to its memfd: %w", err)
	}
	seals := unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("sealing the memfd: %w", err)
	}
	return f, nil
}

// MemfdPath is the path through which exec (and posix_spawn) reach f.
func MemfdPath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }
