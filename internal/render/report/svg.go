package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ctxbench/ctxbench/internal/units"
)

// Charts are drawn here, in Go, as lists of SVG elements that the template
// writes out (so html/template escapes every label and tooltip). Nothing is
// drawn by the browser's script: the report has none.

// Elem is one SVG element. Only the fields of its Tag are used.
type Elem struct {
	Tag                string // line, rect, circle, path, text, g
	X1, Y1, X2, Y2     string
	X, Y, W, H, R      string
	D                  string // path data
	Class, Fill, Dash  string
	Stroke, StrokeW    string
	Anchor, Baseline   string
	Text               string
	Title              string // tooltip (SVG <title>)
	Children           []Elem // for g
	Transform, Opacity string
}

// Fig is one inline SVG.
type Fig struct {
	W, H  int
	Label string // aria-label: what the figure shows
	Class string
	Elems []Elem
}

// num is an SVG coordinate or length, to a tenth of a pixel.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return units.Exact(math.Round(v*10) / 10)
}

func line(x1, y1, x2, y2 float64, class string) Elem {
	return Elem{Tag: "line", X1: num(x1), Y1: num(y1), X2: num(x2), Y2: num(y2), Class: class}
}

func text(x, y float64, s, anchor, class string) Elem {
	return Elem{Tag: "text", X: num(x), Y: num(y), Text: s, Anchor: anchor, Class: class}
}

func rect(x, y, w, h float64, class string) Elem {
	return Elem{Tag: "rect", X: num(x), Y: num(y), W: num(math.Max(w, 0)), H: num(math.Max(h, 0)), Class: class}
}

func group(title string, children ...Elem) Elem {
	return Elem{Tag: "g", Title: title, Children: children}
}

// marker draws a data point of shape circle, diamond, square or triangle
// (shapes as well as colours tell placements and kinds apart, so the
// report survives grey-scale printing and colour-blind readers).
func marker(shape string, x, y, r float64, class string) Elem {
	switch shape {
	case "diamond":
		r *= 1.25
		return Elem{Tag: "path", Class: class, D: fmt.Sprintf("M%s %sL%s %sL%s %sL%s %sZ",
			num(x), num(y-r), num(x+r), num(y), num(x), num(y+r), num(x-r), num(y))}
	case "square":
		r *= 0.9
		return Elem{Tag: "rect", Class: class, X: num(x - r), Y: num(y - r), W: num(2 * r), H: num(2 * r)}
	case "triangle":
		r *= 1.2
		return Elem{Tag: "path", Class: class, D: fmt.Sprintf("M%s %sL%s %sL%s %sZ",
			num(x), num(y-r), num(x+r), num(y+r*0.8), num(x-r), num(y+r*0.8))}
	case "down":
		return Elem{Tag: "path", Class: class, D: fmt.Sprintf("M%s %sL%s %sL%s %sZ",
			num(x-r), num(y-r), num(x+r), num(y-r), num(x), num(y+r))}
	}
	return Elem{Tag: "circle", Class: class, X: num(x), Y: num(y), R: num(r)}
}

// polyline joins points; a NaN point breaks the line.
func polyline(xs, ys []float64, class string) []Elem {
	var out []Elem
	var b strings.Builder
	pen := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, Elem{Tag: "path", D: b.String(), Class: class})
			b.Reset()
		}
	}
	for i := range xs {
		if math.IsNaN(xs[i]) || math.IsNaN(ys[i]) {
			flush()
			pen = false
			continue
		}
		if !pen {
			b.WriteString("M")
			pen = true
		} else {
			b.WriteString("L")
		}
		b.WriteString(num(xs[i]) + " " + num(ys[i]))
	}
	flush()
	return out
}

// scale maps values to pixels, linearly or logarithmically.
type scale struct {
	log      bool
	lo, hi   float64 // value domain
	from, to float64 // pixel range
}

func (s scale) pos(v float64) float64 {
	if s.log {
		if v <= 0 {
			return math.NaN()
		}
		return s.from + (math.Log(v)-math.Log(s.lo))/(math.Log(s.hi)-math.Log(s.lo))*(s.to-s.from)
	}
	if s.hi == s.lo {
		return (s.from + s.to) / 2
	}
	return s.from + (v-s.lo)/(s.hi-s.lo)*(s.to-s.from)
}

// clampPos is pos limited to the pixel range (for whiskers that run off a
// chart whose domain was chosen from medians).
func (s scale) clampPos(v float64) float64 {
	p := s.pos(v)
	lo, hi := math.Min(s.from, s.to), math.Max(s.from, s.to)
	if math.IsNaN(p) {
		return lo
	}
	return math.Min(math.Max(p, lo), hi)
}

type tick struct {
	V     float64
	Label string
	Major bool
}

// logDomain widens [lo, hi] to whole decades (base 10) or powers of two.
func logDomain(lo, hi float64, base float64) (float64, float64) {
	if !(lo > 0) || !(hi > 0) {
		return 1, 10
	}
	l := math.Pow(base, math.Floor(math.Log(lo)/math.Log(base)+1e-9))
	h := math.Pow(base, math.Ceil(math.Log(hi)/math.Log(base)-1e-9))
	if h <= l {
		h = l * base
	}
	return l, h
}

// logTicks are decade ticks (labelled) with 2 and 5 between them
// (labelled too when the domain spans less than two decades).
func logTicks(lo, hi float64, format func(float64) string) []tick {
	var out []tick
	few := hi/lo <= 100
	for d := math.Pow(10, math.Floor(math.Log10(lo)+1e-9)); d <= hi*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v < lo*0.9999 || v > hi*1.0001 {
				continue
			}
			t := tick{V: v, Major: m == 1}
			if m == 1 || few {
				t.Label = format(v)
			}
			out = append(out, t)
		}
	}
	return out
}

// log2Ticks are powers of two, at most maxLabels of them labelled (every
// step, or every second, fourth... when there are many).
func log2Ticks(lo, hi float64, format func(float64) string, maxLabels int) []tick {
	var out []tick
	n := int(math.Round(math.Log2(hi/lo))) + 1
	step := 1
	for (n+step-1)/step > maxLabels {
		step *= 2
	}
	i := 0
	for v := lo; v <= hi*1.0001; v *= 2 {
		t := tick{V: v, Major: i%step == 0}
		if t.Major {
			t.Label = format(v)
		}
		out = append(out, t)
		i++
	}
	return out
}

// linTicks are about n "nice" ticks (1, 2, 5 × 10^k steps) over [0, hi].
func linTicks(lo, hi float64, n int, format func(float64) string) ([]tick, float64, float64) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	start := math.Floor(lo/step) * step
	end := math.Ceil(hi/step) * step
	var out []tick
	for v := start; v <= end+step/2; v += step {
		vv := math.Round(v/step) * step
		out = append(out, tick{V: vv, Label: format(vv), Major: true})
	}
	return out, start, end
}

// plot is one chart panel with axes.
type plot struct {
	fig        Fig
	x, y       scale
	left, top  float64
	right, bot float64
}

// newPlot makes a panel of w×h pixels with room for axis labels.
func newPlot(w, h int, label string) *plot {
	p := &plot{fig: Fig{W: w, H: h, Label: label, Class: "panel"}, left: 66, top: 26, right: float64(w) - 12, bot: float64(h) - 38}
	return p
}

func (p *plot) add(e ...Elem) { p.fig.Elems = append(p.fig.Elems, e...) }

// axes draws the grid, ticks, tick labels, axis titles and the panel title.
func (p *plot) axes(title, xTitle, yTitle string, xt, yt []tick) {
	p.add(text(p.left, 14, title, "start", "ptitle"))
	for _, t := range xt {
		x := p.x.pos(t.V)
		cls := "grid minor"
		if t.Major {
			cls = "grid"
		}
		p.add(line(x, p.top, x, p.bot, cls))
		if t.Label != "" {
			p.add(text(x, p.bot+14, t.Label, "middle", "tick"))
		}
	}
	for _, t := range yt {
		y := p.y.pos(t.V)
		cls := "grid minor"
		if t.Major {
			cls = "grid"
		}
		p.add(line(p.left, y, p.right, y, cls))
		if t.Label != "" {
			p.add(text(p.left-5, y+3.5, t.Label, "end", "tick"))
		}
	}
	p.add(line(p.left, p.bot, p.right, p.bot, "axis"), line(p.left, p.top, p.left, p.bot, "axis"))
	p.add(text((p.left+p.right)/2, p.bot+30, xTitle, "middle", "atitle"))
	yl := text(0, 0, yTitle, "middle", "atitle")
	yl.Transform = fmt.Sprintf("translate(13 %s) rotate(-90)", num((p.top+p.bot)/2))
	p.add(yl)
}
