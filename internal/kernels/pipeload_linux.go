//go:build cgo && linux

package kernels

/*
#include "pipeload.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/ctxbench/ctxbench/internal/host"
	"golang.org/x/sys/unix"
)

// PipeLoadRegion is the workload's shared region (pipeload.h): a memfd
// mapped here and in the workload's process (File, its descriptor 3).
type PipeLoadRegion struct {
	f   *os.File
	mem []byte
	r   *C.cb_pipeload
}

// NewPipeLoadRegion makes the region of a workload.
func NewPipeLoadRegion(cfg PipeLoadConfig) (*PipeLoadRegion, error) {
	size := int(unsafe.Sizeof(C.cb_pipeload{}))
	f, err := host.SharedMemory("ctxbench-pipeload", int64(size))
	if err != nil {
		return nil, err
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mmap of the workload's region: %w", err)
	}
	p := &PipeLoadRegion{f: f, mem: mem, r: (*C.cb_pipeload)(unsafe.Pointer(&mem[0]))}
	p.r.hops_per_s = C.uint64_t(cfg.HopsPerSecond)
	p.r.work_iters = C.uint64_t(max(cfg.WorkIters, 1))
	p.r.cpu = C.int32_t(cfg.CPU)
	return p, nil
}

// File is the region's descriptor, for the workload's process.
func (p *PipeLoadRegion) File() *os.File { return p.f }

func load64(v *C.uint64_t) uint64 { return atomic.LoadUint64((*uint64)(unsafe.Pointer(v))) }
func load32(v *C.int32_t) int32   { return atomic.LoadInt32((*int32)(unsafe.Pointer(v))) }

// State reads what the workload has done so far (hops last: the workload
// stores them after the rest of a round trip's figures).
func (p *PipeLoadRegion) State() PipeLoadState {
	r := p.r
	hops := load64(&r.hops)
	s := PipeLoadState{Hops: hops, Work: load64(&r.work), Late: load64(&r.late), T0Ns: load64(&r.t0_ns),
		NowNs: load64(&r.now_ns), TIDA: int(load32(&r.tid_a)), TIDB: int(load32(&r.tid_b)),
		Running: load32(&r.running) != 0, Failed: load32(&r.failed) != 0}
	if s.Failed {
		s.Err = C.GoString(&r.err[0])
	}
	return s
}

// Stop asks the workload to finish its round trip and stop.
func (p *PipeLoadRegion) Stop() { atomic.StoreUint32((*uint32)(unsafe.Pointer(&p.r.stop)), 1) }

// Close unmaps and closes the region.
func (p *PipeLoadRegion) Close() {
	if p.mem != nil {
		_ = unix.Munmap(p.mem)
		p.mem, p.r = nil, nil
	}
	p.f.Close()
}
