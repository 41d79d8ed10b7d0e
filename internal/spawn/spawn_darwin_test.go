package spawn

import (
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// childrenLeft lists this process's live children, "" when it has none.
func childrenLeft() string {
	if c := procs.Children(os.Getpid()); len(c) > 0 {
		return fmt.Sprint(c)
	}
	return ""
}
