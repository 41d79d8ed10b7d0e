package suite

import (
	"os"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

// The planning these tests check is Linux's: placements pinned to CPUs.
// On a platform that cannot pin they plan with Linux's answers all the
// same (nothing here pins a thread: the executors are fakes), and the
// platform's own planning is checked where a test puts its answers.
func TestMain(m *testing.M) {
	platform.This = platform.Linux
	os.Exit(m.Run())
}
