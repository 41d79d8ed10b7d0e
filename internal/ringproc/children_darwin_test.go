package ringproc

import (
	"os"
	"testing"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// children lists this process's live children.
func children(t *testing.T) []int {
	t.Helper()
	return procs.Children(os.Getpid())
}
