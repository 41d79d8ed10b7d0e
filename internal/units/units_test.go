package units

import (
	"fmt"
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

// Fixed, Signed, Percent and Digits write what the printf verbs they
// replace wrote, to the byte, signs of zero, NaN and infinities included:
// moving a renderer onto them changes no output.
func TestFixedDigitsArePrintf(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 0.004, 0.005, 0.5, 1, 1.005, 2.675, -2.675, 12.25, 99.95, 999.5, 1234567.891, 1e21, 1.5e-7,
		math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, v := range vals {
		for d := 0; d <= 3; d++ {
			for _, c := range []struct{ got, want string }{
				{Fixed(v, d), fmt.Sprintf("%.*f", d, v)},
				{Signed(v, d), fmt.Sprintf("%+.*f", d, v)},
				{Percent(v, d), fmt.Sprintf("%.*f%%", d, v)},
				{SignedPercent(v, d), fmt.Sprintf("%+.*f%%", d, v)},
			} {
				if c.got != c.want {
					t.Errorf("%v, %d decimals: got %q, printf %q", v, d, c.got, c.want)
				}
			}
		}
		for _, c := range []struct{ got, want string }{
			{Digits(v, -1), fmt.Sprintf("%g", v)}, {Digits(v, 3), fmt.Sprintf("%.3g", v)}, {Digits(v, 6), fmt.Sprintf("%.6g", v)},
			{Short(v), fmt.Sprintf("%.3g", v)},
		} {
			if c.got != c.want {
				t.Errorf("%v: got %q, printf %q", v, c.got, c.want)
			}
		}
	}
}

func TestShortAndExact(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Short(1), "1"}, {Short(2.5), "2.5"}, {Short(64), "64"}, {Short(0.1), "0.1"},
		{ShortTime(1), "1 ns"}, {ShortTime(500), "500 ns"}, {ShortTime(1e4), "10 µs"}, {ShortTime(2e6), "2 ms"}, {ShortTime(5e9), "5 s"},
		{ShortBytes(512), "512 B"}, {ShortBytes(64 << 10), "64 KiB"}, {ShortBytes(1.5 * (1 << 20)), "1.5 MiB"}, {ShortBytes(2 << 30), "2 GiB"},
		{ShortBytes(-2048), "-2 KiB"},
		{ShortCount(950), "950"}, {ShortCount(2000), "2k"}, {ShortCount(1.5e6), "1.5M"}, {ShortCount(3e9), "3G"},
		{Exact(1234567.25), "1234567.25"}, {Exact(0.0000123), "0.0000123"}, {Exact(4.030097616030414), "4.030097616030414"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestSignedTime(t *testing.T) {
	for ns, want := range map[float64]string{1200: "+1.20 µs", -300: "-300 ns", 0: Time(0)} {
		if got := SignedTime(ns); got != want {
			t.Errorf("SignedTime(%v) = %q, want %q", ns, got, want)
		}
	}
}
