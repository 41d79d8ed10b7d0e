package ringproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// children lists this process's live children.
func children(t *testing.T) []int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(os.Getpid()), "task", strconv.Itoa(os.Getpid()), "children"))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}
