package host

// wake_darwin.go: macOS has no eventfd (its counterpart, a kqueue user
// event, lives inside one kqueue and is not passed between processes) and
// no memfd: a page two processes share is an unlinked temporary file.

import (
	"errors"
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

// Eventfd fails: eventfd is Linux's.
func Eventfd() (int, error) {
	_, why := platform.Darwin.Gives(platform.Eventfd)
	return -1, errors.New(why)
}

// SharedMemory is an unlinked temporary file of size bytes, for processes
// to map MAP_SHARED (macOS has no memfd_create). Go opens it close-on-exec.
func SharedMemory(name string, size int64) (*os.File, error) {
	f, err := os.CreateTemp("", name+"-*")
	if err != nil {
		return nil, fmt.Errorf("a shared page: %w", err)
	}
	_ = os.Remove(f.Name()) // only the descriptors keep it now
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, fmt.Errorf("a shared page: %w", err)
	}
	return f, nil
}
