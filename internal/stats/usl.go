// usl.go: the Universal Scalability Law fit of a throughput-versus-concurrency
// curve (the knee is in knee.go).
//
// USL (N. J. Gunther): X(N) = λN / (1 + α(N−1) + βN(N−1)), α contention, β coherency
// (β > 0 makes the curve retrograde), peak at N* = √((1−α)/β). The fit is ordinary
// nonlinear least squares on (N, X). Hand-written because the module carries no
// optimisation library: for fixed (α, β) the best λ is linear least squares in closed
// form, so a log-spaced grid over (α, β) finds the basin and Levenberg–Marquardt on all
// three parameters (bounded α ∈ [0,1], β ≥ 0) polishes it.

package stats

import (
	"errors"
	"math"
)

// USLFit is a fitted Universal Scalability Law.
type USLFit struct {
	Lambda float64 `json:"lambda"` // throughput of one unit of concurrency
	Alpha  float64 `json:"alpha"`  // contention
	Beta   float64 `json:"beta"`   // coherency; > 0 means retrograde
	// NStar is the concurrency of peak throughput, √((1−α)/β); nil when β = 0 (no peak).
	NStar *float64 `json:"n_star"`
	// PeakX is the model's throughput at NStar (or its asymptote λ/α when β = 0, nil
	// when α = β = 0).
	PeakX *float64 `json:"peak_x"`
	R2    float64  `json:"r2"`
	// Points is how many (N, X) pairs were fitted.
	Points int `json:"points"`
}

// USL evaluates the model at n.
func USL(lambda, alpha, beta, n float64) float64 {
	return lambda * n / (1 + alpha*(n-1) + beta*n*(n-1))
}

// Predict evaluates the fitted model at n.
func (f USLFit) Predict(n float64) float64 { return USL(f.Lambda, f.Alpha, f.Beta, n) }

// ErrTooFew means fewer than four distinct concurrency levels were given.
var ErrTooFew = errors.New("USL fit needs at least 4 distinct concurrency levels")

// FitUSL fits the USL to (n[i], x[i]) by least squares.
func FitUSL(n, x []float64) (USLFit, error) {
	if len(n) != len(x) {
		return USLFit{}, errors.New("USL fit: n and x differ in length")
	}
	distinct := map[float64]bool{}
	for i := range n {
		if n[i] < 1 || math.IsNaN(x[i]) || math.IsInf(x[i], 0) || x[i] < 0 {
			return USLFit{}, errors.New("USL fit: need n >= 1 and finite x >= 0")
		}
		distinct[n[i]] = true
	}
	if len(distinct) < 4 {
		return USLFit{}, ErrTooFew
	}

	// Grid over (α, β) with λ profiled out.
	alphas := []float64{0}
	for e := -6.0; e <= 0.001; e += 0.1 {
		alphas = append(alphas, math.Pow(10, e))
	}
	betas := []float64{0}
	for e := -10.0; e <= 0.001; e += 0.1 {
		betas = append(betas, math.Pow(10, e))
	}
	best := [3]float64{}
	bestSSE := math.Inf(1)
	for _, a := range alphas {
		if a > 1 {
			a = 1
		}
		for _, b := range betas {
			l := profileLambda(n, x, a, b)
			if s := sse(n, x, l, a, b); s < bestSSE {
				bestSSE, best = s, [3]float64{l, a, b}
			}
		}
	}
	p := levenbergMarquardt(n, x, best)

	f := USLFit{Lambda: p[0], Alpha: p[1], Beta: p[2], Points: len(n)}
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var sst float64
	for _, v := range x {
		sst += (v - mean) * (v - mean)
	}
	if sst > 0 {
		f.R2 = 1 - sse(n, x, f.Lambda, f.Alpha, f.Beta)/sst
	} else {
		f.R2 = 1
	}
	if f.Beta > 0 && f.Alpha < 1 {
		ns := math.Sqrt((1 - f.Alpha) / f.Beta)
		px := f.Predict(ns)
		f.NStar, f.PeakX = &ns, &px
	} else if f.Alpha > 0 {
		px := f.Lambda / f.Alpha
		f.PeakX = &px
	}
	return f, nil
}

func profileLambda(n, x []float64, a, b float64) float64 {
	var num, den float64
	for i := range n {
		g := USL(1, a, b, n[i])
		num += x[i] * g
		den += g * g
	}
	if den == 0 {
		return 0
	}
	return num / den
}

func sse(n, x []float64, l, a, b float64) float64 {
	var s float64
	for i := range n {
		r := x[i] - USL(l, a, b, n[i])
		s += r * r
	}
	return s
}

// levenbergMarquardt minimises the squared residuals from p0, keeping α in [0,1] and
// β >= 0 by clamping each trial step (a projected step; the optimum may sit on a bound).
func levenbergMarquardt(n, x []float64, p0 [3]float64) [3]float64 {
	p := p0
	cur := sse(n, x, p[0], p[1], p[2])
	mu := 1e-3
	for iter := 0; iter < 500; iter++ {
		var jtj [3][3]float64
		var jtr [3]float64
		for i := range n {
			l, a, b, ni := p[0], p[1], p[2], n[i]
			d := 1 + a*(ni-1) + b*ni*(ni-1)
			j := [3]float64{ni / d, -l * ni * (ni - 1) / (d * d), -l * ni * ni * (ni - 1) / (d * d)}
			r := x[i] - l*ni/d
			for u := 0; u < 3; u++ {
				jtr[u] += j[u] * r
				for v := 0; v < 3; v++ {
					jtj[u][v] += j[u] * j[v]
				}
			}
		}
		improved := false
		for try := 0; try < 30; try++ {
			var m [3][3]float64
			for u := 0; u < 3; u++ {
				m[u] = jtj[u]
				m[u][u] += mu * math.Max(jtj[u][u], 1e-300)
			}
			step, ok := solve3(m, jtr)
			if !ok {
				mu *= 10
				continue
			}
			q := [3]float64{p[0] + step[0], clamp(p[1]+step[1], 0, 1), math.Max(p[2]+step[2], 0)}
			if s := sse(n, x, q[0], q[1], q[2]); s < cur {
				rel := (cur - s) / math.Max(cur, 1e-300)
				p, cur = q, s
				mu = math.Max(mu/10, 1e-12)
				improved = true
				if rel < 1e-15 {
					return p
				}
				break
			}
			mu *= 10
		}
		if !improved {
			return p
		}
	}
	return p
}

func clamp(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

// solve3 solves m·s = r by Gaussian elimination with partial pivoting.
func solve3(m [3][3]float64, r [3]float64) ([3]float64, bool) {
	for c := 0; c < 3; c++ {
		piv := c
		for k := c + 1; k < 3; k++ {
			if math.Abs(m[k][c]) > math.Abs(m[piv][c]) {
				piv = k
			}
		}
		if m[piv][c] == 0 || math.IsNaN(m[piv][c]) {
			return [3]float64{}, false
		}
		m[c], m[piv] = m[piv], m[c]
		r[c], r[piv] = r[piv], r[c]
		for k := c + 1; k < 3; k++ {
			f := m[k][c] / m[c][c]
			for u := c; u < 3; u++ {
				m[k][u] -= f * m[c][u]
			}
			r[k] -= f * r[c]
		}
	}
	var s [3]float64
	for c := 2; c >= 0; c-- {
		v := r[c]
		for u := c + 1; u < 3; u++ {
			v -= m[c][u] * s[u]
		}
		s[c] = v / m[c][c]
	}
	return s, true
}
