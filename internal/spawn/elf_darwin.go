package spawn

import (
	"errors"
	"os"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

// Memfd fails: the exec target is an ELF, and macOS execs only Mach-O
// programs (nor has it a memfd).
func Memfd(string, []byte) (*os.File, error) {
	_, why := platform.Darwin.Gives(platform.ExecTarget)
	return nil, errors.New(why)
}

// MemfdPath is never reached on macOS (Memfd fails).
func MemfdPath(f *os.File) string { return f.Name() }
