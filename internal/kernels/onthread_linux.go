//go:build cgo

package kernels

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// onThread runs f on an OS thread of its own: the C kernels pin the calling
// thread. The thread's affinity is restored before it is unlocked; it must
// not be destroyed (as the runtime does to a thread whose goroutine exits
// locked), because a partner process started from it would receive its
// Pdeathsig. Only if the affinity cannot be restored does it die.
func onThread[T any](f func() (T, error)) (T, error) {
	type ret struct {
		v   T
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		saved := unix.SchedGetaffinity(0, &old) == nil
		v, err := f()
		if saved && unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		ch <- ret{v, err}
	}()
	r := <-ch
	return r.v, r.err
}
