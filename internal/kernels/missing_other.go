//go:build !cgo || !linux

package kernels

import "fmt"

// errMissing is why a family of C kernels cannot run in this build.
func errMissing(family string) error {
	if !Built {
		return ErrNoCgo
	}
	return fmt.Errorf("the %s kernels are in ctxbench's Linux C code only: this build's platform has none", family)
}
