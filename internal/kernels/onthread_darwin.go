//go:build cgo

package kernels

import "runtime"

// onThread runs f on an OS thread of its own, locked to it while the C
// kernel runs. macOS cannot pin, so there is no affinity to restore: the
// thread is unlocked afterwards.
func onThread[T any](f func() (T, error)) (T, error) {
	type ret struct {
		v   T
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		runtime.LockOSThread()
		v, err := f()
		runtime.UnlockOSThread()
		ch <- ret{v, err}
	}()
	r := <-ch
	return r.v, r.err
}
