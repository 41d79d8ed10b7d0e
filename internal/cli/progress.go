package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressBar draws one line on a terminal's stderr between blocks
// (hand-written: a single \r-updated line needs no library).
type progressBar struct {
	w     io.Writer
	total int
	done  int
	start time.Time
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w} }

func (p *progressBar) Begin(total int) { p.total, p.start = total, time.Now() }

func (p *progressBar) Block(name, phase string) {
	p.done++
	const width = 24
	filled := min(width, width*p.done/max(p.total, 1)) // re-run blocks come on top of the total
	eta := ""
	if p.done > 1 && p.done <= p.total { // blocks added by --target-ci or re-runs have no estimate
		left := time.Duration(float64(time.Since(p.start)) / float64(p.done-1) * float64(p.total-p.done+1))
		eta = fmt.Sprintf(" ~%ds left", int(left.Seconds()+0.5))
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d %s %s%s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total, phase, name, eta)
}

func (p *progressBar) End() { fmt.Fprint(p.w, "\r\x1b[K") }
