package ring

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ParseBytes reads a byte count with an optional unit: B; K, KiB, M, MiB,
// G, GiB (powers of 1024, as lmbench's KB); KB, MB, GB (powers of 1000).
// Units are case-insensitive. A working set must be a whole number of
// 8-byte words (the members sum 8-byte words).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty size")
	}
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1,
		"k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gib": 1 << 30,
		"kb": 1e3, "mb": 1e6, "gb": 1e9}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("size %q: unknown unit %q (use B, KiB, MiB, GiB, or KB, MB, GB)", s, t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("size %q is not a non-negative number with a unit (examples: 0, 4KiB, 1MiB)", s)
	}
	b := v * mult
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	if b > 1<<40 {
		return 0, fmt.Errorf("size %q is larger than 1 TiB", s)
	}
	return int64(b), nil
}

// ParseWorkingSets parses a comma-separated list of sizes, sorted, without
// duplicates.
func ParseWorkingSets(items []string) ([]int64, error) {
	var out []int64
	for _, item := range items {
		for _, part := range strings.Split(item, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			b, err := ParseBytes(part)
			if err != nil {
				return nil, err
			}
			if b%8 != 0 {
				return nil, fmt.Errorf("working set %q: must be a multiple of 8 bytes (the members sum 8-byte words)", strings.TrimSpace(part))
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no working set given")
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ParseTasks parses a list of ring sizes: numbers and ranges with a
// doubling step ("2,4,8" or "2-400" = 2,4,8,...,256,400), sorted, without
// duplicates.
func ParseTasks(items []string) ([]int, error) {
	var out []int
	num := func(s string) (int, error) {
		s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
		mult := 1
		switch {
		case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
			mult, s = 1000, s[:len(s)-1]
		case strings.HasSuffix(s, "M"):
			mult, s = 1000000, s[:len(s)-1]
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("task count %q is not a number", s)
		}
		return v * mult, nil
	}
	for _, item := range items {
		for _, part := range strings.Split(item, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			if strings.HasPrefix(part, "-") {
				return nil, fmt.Errorf("task count %q is negative: a ring needs at least 2 contexts", part)
			}
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := num(lo)
			if err != nil {
				return nil, err
			}
			b := a
			if isRange {
				if b, err = num(hi); err != nil {
					return nil, err
				}
				if b < a {
					return nil, fmt.Errorf("task range %q runs backwards", part)
				}
			}
			if a < 2 {
				return nil, fmt.Errorf("a ring needs at least 2 contexts (got %d): with one there is nobody to switch to", a)
			}
			for v := a; v < b; v *= 2 {
				out = append(out, v)
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no task count given")
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
