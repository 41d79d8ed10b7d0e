package units

import (
	"math"
	"testing"
)

func TestTime(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{
		{3.99, "3.99 ns"}, {0.68, "0.680 ns"}, {156, "156 ns"}, {999.4, "999 ns"},
		{2397, "2.40 µs"}, {2482, "2.48 µs"}, {20700, "20.7 µs"}, {149e6, "149 ms"}, {1.2e9, "1.20 s"},
		{-1812, "-1.81 µs"}, {0, "0.00 ns"}, {math.NaN(), "?"}, {math.Inf(1), "?"},
	} {
		if got := Time(c.ns); got != c.want {
			t.Errorf("Time(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestScaleKeepsTheSmallestReadable(t *testing.T) {
	u := Scale(2397, 20700, 0)
	if u.Name != "µs" || In(2397, u) != "2.40" || In(20700, u) != "20.7" {
		t.Fatalf("Scale = %+v, In = %s %s", u, In(2397, u), In(20700, u))
	}
	if u := Scale(); u.Name != "ns" {
		t.Fatalf("Scale() = %+v", u)
	}
}

func TestBytesCountChangeMultiple(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Bytes(512), "512 B"}, {Bytes(2785), "2.72 KiB"}, {Bytes(8 << 20), "8.00 MiB"}, {Bytes(-2048), "-2.00 KiB"},
		{Count(950), "950"}, {Count(69900), "69.9k"}, {Count(1e6), "1.00M"}, {Rate(92900), "92.9k/s"},
		{Change(0.071), "+7.10%"}, {Change(-0.25), "-25.0%"}, {Change(7.5), "+750%"},
		{Multiple(0.041), "0.041×"}, {Multiple(1.6), "1.60×"}, {Multiple(25), "25×"}, {Multiple(353), "353×"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
