package ringproc

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// links are a ring's N links. Link i: member i writes it, member i+1 (mod
// n) reads it; the head is member 0. With pipes rd[i] and wr[i] are the
// two ends; with an eventfd they are the same descriptor. This process
// holds an end until the processes that use it have it.
type links struct {
	ipc    kernels.RingIPC
	rd, wr []*os.File
}

// LinkFDs is how many descriptors one link of a ring takes.
func LinkFDs(ipc kernels.RingIPC) uint64 {
	if ipc == kernels.RingEventfd {
		return 1
	}
	return 2
}

// open creates n links; on failure it says which one (the links made so
// far are closed by closeAll).
func (l *links) open(n int) error {
	l.rd, l.wr = make([]*os.File, n), make([]*os.File, n)
	for i := 0; i < n; i++ {
		var err error
		if l.ipc == kernels.RingEventfd {
			fd, e := host.Eventfd()
			if e == nil {
				l.rd[i] = os.NewFile(uintptr(fd), "ctxbench-ring-link")
				l.wr[i] = l.rd[i]
			}
			err = e
		} else {
			l.rd[i], l.wr[i], err = os.Pipe()
		}
		if err != nil {
			return fmt.Errorf("creating link %d of %d: %w", i+1, n, err)
		}
	}
	return nil
}

func closeFile(f **os.File) {
	if *f != nil {
		(*f).Close()
		*f = nil
	}
}

// dropEventfd drops this process's copy of eventfd link i.
func (l *links) dropEventfd(i int) {
	l.wr[i] = nil // the same file as rd[i]
	closeFile(&l.rd[i])
}

// handedOver drops this process's ends of the links member i was just
// given (or failed to be given), so that a dead member shows up downstream
// as end-of-file (pipes). An eventfd link stays open here until its reader
// has it too.
func (l *links) handedOver(i int) {
	if l.ipc == kernels.RingEventfd {
		if i-1 > 0 {
			l.dropEventfd(i - 1)
		}
		return
	}
	closeFile(&l.rd[i-1])
	closeFile(&l.wr[i])
}

// closeAll closes every end this process still holds.
func (l *links) closeAll() {
	for i := range l.rd {
		if l.ipc == kernels.RingEventfd {
			l.dropEventfd(i)
		}
		closeFile(&l.rd[i])
		closeFile(&l.wr[i])
	}
}

// errnoOf is the errno an error carries, 0 without one.
func errnoOf(err error) int {
	var e syscall.Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return 0
}
