package host

// wake_linux.go: Linux's descriptors for waking another context and
// sharing a page between processes.

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Eventfd is a new eventfd (close-on-exec): a counter whose read blocks
// until another context adds to it.
func Eventfd() (int, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("eventfd: %w", err)
	}
	return fd, nil
}

// SharedMemory is a file of size bytes that lives only in memory
// (memfd_create, close-on-exec), for processes to map MAP_SHARED.
func SharedMemory(name string, size int64) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	if err := unix.Ftruncate(fd, size); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("ftruncate: %w", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}
