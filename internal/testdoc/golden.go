package testdoc

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Golden compares got with testdata/name and, on a difference, shows the
// first line that differs; with -update it rewrites the file instead (then
// review the diff before committing it).
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update in this package creates it)", err)
	}
	if !bytes.Equal(got, want) && (runtime.GOARCH == "amd64" || !lastDigits(want, got)) {
		t.Errorf("%s differs from the golden file (go test -update in this package rewrites it; review the diff)\n%s", path, firstDiff(want, got))
	}
}

// The golden files are written on x86-64. On another architecture a figure
// may differ in its last digits: arm64's Go compiler fuses a multiply and
// an add into one instruction (FMA, which the Go specification allows),
// rounding once where x86-64 rounds twice. lastDigits says want and got
// differ in nothing else: the text around the numbers the same, each number
// within a relative 1e-9 of the golden one. Only off x86-64; there the
// files compare byte for byte.
func lastDigits(want, got []byte) bool {
	wt, wn := splitNumbers(string(want))
	gt, gn := splitNumbers(string(got))
	if len(wn) != len(gn) || strings.Join(wt, "\x00") != strings.Join(gt, "\x00") {
		return false
	}
	for i := range wn {
		a, errA := strconv.ParseFloat(wn[i], 64)
		b, errB := strconv.ParseFloat(gn[i], 64)
		if errA != nil || errB != nil {
			if wn[i] != gn[i] {
				return false
			}
			continue
		}
		if math.Abs(a-b) > 1e-9*math.Max(math.Abs(a), math.Abs(b)) {
			return false
		}
	}
	return true
}

var number = regexp.MustCompile(`[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// splitNumbers is s's text between numbers and its numbers.
func splitNumbers(s string) (text, nums []string) {
	at := 0
	for _, m := range number.FindAllStringIndex(s, -1) {
		text = append(text, s[at:m[0]])
		nums = append(nums, s[m[0]:m[1]])
		at = m[1]
	}
	return append(text, s[at:]), nums
}

// firstDiff shows the first line that differs.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + a + "\n  got:  " + b
		}
	}
	return ""
}
