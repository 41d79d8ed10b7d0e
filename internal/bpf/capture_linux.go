//go:build linux && (amd64 || arm64)

package bpf

// capture_linux.go: the flight recorder's user side. Open with
// Options.Capture loads the programs with the capture compiled in
// (capture_on, a load-time constant: without it the verifier drops every
// capture branch), and a reader of the buffer the kernel copies hops to.
// Nothing reads while the hops run (a reader would wake on the measured
// CPUs, and its syscalls would be a tracked process's); Captured reads
// everything after the window, so the buffer is sized for a block.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/perf"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/ctxbench/ctxbench/internal/phase"
)

// captureSetup is what Open decided for the capture.
type captureSetup struct {
	opts      CaptureOptions
	method    string
	crossCopy bool
	rb        *ringbuf.Reader
	pr        *perf.Reader
}

// prepareSpec sets the capture's load-time constants and the output map's
// type on spec.
func prepareSpec(spec *ebpf.CollectionSpec, c *CaptureOptions, ncpu int) (*captureSetup, error) {
	ringOK := features.HaveMapType(ebpf.RingBuf) == nil
	out := spec.Maps["cap_out"]
	setRing := func(size uint32) {
		out.Type, out.KeySize, out.ValueSize, out.MaxEntries = ebpf.RingBuf, 0, 0, size
	}
	setPerf := func() {
		out.Type, out.KeySize, out.ValueSize, out.MaxEntries = ebpf.PerfEventArray, 4, 4, 0
	}
	if c == nil {
		// Compiled out: the map is never written; the smallest that loads.
		if ringOK {
			setRing(uint32(os.Getpagesize()))
		} else {
			setPerf()
		}
		return nil, spec.Variables["use_ringbuf"].Set(uint32(boolInt(ringOK)))
	}
	cs := &captureSetup{opts: *c}
	if cs.opts.BufferBytes <= 0 {
		cs.opts.BufferBytes = 32 << 20
	}
	if cs.opts.Warmup == 0 {
		cs.opts.Warmup = 150
	}
	useRing := ringOK && !c.forcePerf
	if useRing {
		setRing(uint32(roundPow2Pages(cs.opts.BufferBytes)))
		cs.method = CaptureRingBuffer
	} else {
		setPerf()
		cs.method = CapturePerfArray
	}
	cs.crossCopy = features.HaveProgramHelper(ebpf.RawTracepoint, asm.FnMapLookupPercpuElem) == nil
	err := errors.Join(
		spec.Variables["capture_on"].Set(uint32(1)),
		spec.Variables["use_ringbuf"].Set(uint32(boolInt(useRing))),
		spec.Variables["cross_copy"].Set(uint32(boolInt(cs.crossCopy))),
	)
	return cs, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// roundPow2Pages is n rounded up to a power of two of pages (what a ring
// buffer's size must be).
func roundPow2Pages(n int) int {
	p := os.Getpagesize()
	size := p
	for size < n {
		size *= 2
	}
	return size
}

// startCapture sets the runtime thresholds and opens the reader.
func (t *Tracer) startCapture() error {
	c := t.cap
	k := uint32(0)
	if c.opts.AboveNs == 0 {
		q := c.opts.Quantile
		if !(q >= 0.5 && q <= 0.9999) {
			return fmt.Errorf("bpf: capture quantile %g outside [0.5, 0.9999]", q)
		}
		k = uint32(math.Round(q / (1 - q)))
	}
	bit := func(k phase.Kind) uint64 {
		if k == phase.KindNone {
			return 0
		}
		return 1 << k
	}
	if err := errors.Join(t.objs.CapAbsNs.Set(c.opts.AboveNs), t.objs.CapK.Set(k), t.objs.CapWarmup.Set(c.opts.Warmup),
		t.objs.CapEvery.Set(c.opts.SampleEvery), t.objs.CapWakeKinds.Set(bit(c.opts.Wake)), t.objs.CapSleepKinds.Set(bit(c.opts.Sleep))); err != nil {
		return fmt.Errorf("bpf: capture settings: %w", err)
	}
	var err error
	if c.method == CaptureRingBuffer {
		c.rb, err = ringbuf.NewReader(t.objs.CapOut)
	} else {
		per := roundPow2Pages(max(c.opts.BufferBytes/t.ncpu, 64<<10))
		// Wake a reader only when a CPU's buffer is nearly full: nothing
		// waits while the hops run, and every wake-up is work on their CPUs.
		c.pr, err = perf.NewReaderWithOptions(t.objs.CapOut, per, perf.ReaderOptions{Watermark: per - os.Getpagesize()})
	}
	if err != nil {
		return fmt.Errorf("bpf: capture reader: %w", err)
	}
	return nil
}

// drain reads every record there is, giving each to f (nil: discard).
func (c *captureSetup) drain(f func([]byte)) error {
	now := time.Now()
	if c.rb != nil {
		c.rb.SetDeadline(now)
		var rec ringbuf.Record
		for {
			err := c.rb.ReadInto(&rec)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return nil
			}
			if err != nil {
				return err
			}
			if f != nil {
				f(rec.RawSample)
			}
		}
	}
	c.pr.SetDeadline(now)
	var rec perf.Record
	for {
		err := c.pr.ReadInto(&rec)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil
		}
		if err != nil {
			return err
		}
		if f != nil && len(rec.RawSample) > 0 {
			f(rec.RawSample)
		}
	}
}

func (c *captureSetup) close() error {
	var errs []error
	if c.rb != nil {
		errs = append(errs, c.rb.Close())
	}
	if c.pr != nil {
		errs = append(errs, c.pr.Close())
	}
	return errors.Join(errs...)
}

// resetCapture clears the counters, the histogram and the estimates, and
// drops what the buffer holds (hops of before the window).
func (t *Tracer) resetCapture() error {
	if t.cap == nil {
		return nil
	}
	return errors.Join(
		zeroPerCPU[uint64](t.objs.CapStats, numCapCounters, t.ncpu),
		zeroPerCPU[uint64](t.objs.CapHist, phase.NumCaptureBuckets, t.ncpu),
		zeroPerCPU[hopCapEst](t.objs.CapEsts, 1, t.ncpu),
		t.cap.drain(nil),
	)
}

// numCapCounters is NCAPCOUNTERS.
const numCapCounters = 10

// Captured reads the hops copied out in the window that Snapshot ended,
// and the window's counts. It fails without Options.Capture.
func (t *Tracer) Captured() ([]phase.CapturedHop, phase.CaptureStats, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, phase.CaptureStats{}, ErrClosed
	}
	if t.cap == nil {
		return nil, phase.CaptureStats{}, errors.New("bpf: the tracer was opened without capture")
	}
	st := phase.CaptureStats{Method: t.cap.method, CrossCopy: t.cap.crossCopy, Hist: make([]uint64, phase.NumCaptureBuckets)}
	u64 := make([]uint64, t.ncpu)
	for k := uint32(0); k < numCapCounters; k++ {
		if err := t.objs.CapStats.Lookup(k, &u64); err != nil {
			return nil, st, fmt.Errorf("bpf: read capture counters: %w", err)
		}
		var sum uint64
		for _, v := range u64 {
			sum += v
		}
		switch hopCapCounter(k) {
		case hopCapCounterCAP_HOPS:
			st.Hops = sum
		case hopCapCounterCAP_WARM:
			st.Warmup = sum
		case hopCapCounterCAP_PAST:
			st.Past = sum
		case hopCapCounterCAP_OUT_SLOW:
			st.SlowOut = sum
		case hopCapCounterCAP_OUT_SAMPLE:
			st.SampleOut = sum
		case hopCapCounterCAP_LOST_SLOW:
			st.SlowLost = sum
		case hopCapCounterCAP_LOST_SAMPLE:
			st.SampleLost = sum
		case hopCapCounterCAP_NS:
			st.CaptureNs = sum
		case hopCapCounterCAP_STALE:
			st.Stale = sum
		}
	}
	for k := uint32(0); k < phase.NumCaptureBuckets; k++ {
		if err := t.objs.CapHist.Lookup(k, &u64); err != nil {
			return nil, st, fmt.Errorf("bpf: read capture histogram: %w", err)
		}
		for _, v := range u64 {
			st.Hist[k] += v
		}
	}
	var hops []phase.CapturedHop
	err := t.cap.drain(func(raw []byte) {
		h, ok := decodeHop(raw)
		if !ok {
			st.Unreadable++
			return
		}
		hops = append(hops, h)
	})
	return hops, st, err
}

// decodeHop reads one record (struct cap_rec).
func decodeHop(raw []byte) (phase.CapturedHop, bool) {
	var r hopCapRec
	if len(raw) < binary.Size(r) {
		return phase.CapturedHop{}, false
	}
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, &r); err != nil {
		return phase.CapturedHop{}, false
	}
	h := phase.CapturedHop{Start: r.H.Start, End: r.H.End, Waking: r.H.Tw, Handoff: r.H.H1, Threshold: r.H.Threshold, Seq: r.H.Seq,
		WakerCPU: int(r.H.WakerCpu), WakeeCPU: int(r.H.WakeeCpu), WakerTID: int(r.H.WakerTid), WakeeTID: int(r.H.WakeeTid),
		PrevCPU: int(r.H.PrevCpu), Slow: r.H.Flags&1 != 0, Sampled: r.H.Flags&2 != 0}
	for c := range 2 {
		n := min(int(r.H.N[c]), len(r.E[c]))
		for _, e := range r.E[c][:n] {
			var comm []byte
			for _, ch := range e.Comm {
				if ch == 0 {
					break
				}
				comm = append(comm, byte(ch))
			}
			h.Entries[c] = append(h.Entries[c], phase.LogEntry{Ts: e.Ts, Wall: e.Wall, Ns: e.Ns, TID: e.Tid, Type: phase.EntryType(e.Type),
				Ctx: phase.Context(e.Ctx), From: phase.Kind(e.From), To: phase.Kind(e.To), Comm: string(comm)})
		}
	}
	return h, true
}
