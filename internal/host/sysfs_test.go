package host

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	if got := ParseCPUList("0-3,8,10-11"); !slices.Equal(got, []int{0, 1, 2, 3, 8, 10, 11}) {
		t.Fatalf("ParseCPUList: %v", got)
	}
	for _, bad := range []string{"a", "3-1", "1-", "0-2000000000", "9000"} {
		if got := ParseCPUList(bad); got != nil {
			t.Errorf("ParseCPUList(%q) = %v, want nil", bad, got)
		}
	}
}

// A recorded tree is read as the machine is: trimmed, and "" (not an
// error) where a file is missing.
func TestRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc/sys/kernel"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proc/sys/kernel/osrelease"), []byte("6.18.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Root(dir)
	if got := r.Read("proc/sys/kernel/osrelease"); got != "6.18.0" {
		t.Errorf("Read = %q", got)
	}
	if got := r.Read("proc/missing"); got != "" {
		t.Errorf("Read of a missing file = %q", got)
	}
	if !r.Exists("proc/sys/kernel") || r.Exists("proc/missing") {
		t.Error("Exists")
	}
	if got := Root("").Path("proc/stat"); got != "/proc/stat" {
		t.Errorf(`Root("").Path = %q`, got)
	}
}
