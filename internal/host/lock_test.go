package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The lock file is made writable by every user whatever the umask, so a
// later run as another user can take it; a file only readable still locks.
func TestLockFileIsSharedAcrossUsers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctxbench.lock")
	t.Setenv("CTXBENCH_LOCK", path)
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	release, err := LockMeasurements(context.Background(), false, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o666 {
		t.Errorf("lock file mode %v, want 0666", st.Mode().Perm())
	}
	if _, err := LockMeasurements(context.Background(), false, time.Second, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("a second lock while held: %v, want ErrBusy", err)
	}
	release()

	f, writable, err := openLock(path)
	if err != nil || !writable {
		t.Fatalf("openLock of an existing file: writable %v, %v", writable, err)
	}
	f.Close()
}
