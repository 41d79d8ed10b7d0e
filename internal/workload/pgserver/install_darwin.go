package pgserver

import "path/filepath"

// InstallHint is the command that provides the server binaries on macOS.
const InstallHint = "brew install postgresql@17"

// binDirs are Homebrew's versioned kegs (not linked into PATH), on Apple
// silicon and on Intel Macs.
func binDirs() []string {
	arm, _ := filepath.Glob("/opt/homebrew/opt/postgresql@*/bin")
	intel, _ := filepath.Glob("/usr/local/opt/postgresql@*/bin")
	return append(arm, intel...)
}
