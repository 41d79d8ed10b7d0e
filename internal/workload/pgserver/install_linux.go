package pgserver

import "path/filepath"

// InstallHint is the command that provides the server binaries on Debian and Ubuntu.
const InstallHint = "apt-get install -y postgresql"

// binDirs are Debian's versioned server directories.
func binDirs() []string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	return dirs
}
