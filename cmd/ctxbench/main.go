// Command ctxbench measures what a context switch costs on this machine.
// See the README, or run `ctxbench --help`.
package main

import (
	"os"

	"github.com/ctxbench/ctxbench/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
