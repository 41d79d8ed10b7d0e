package counter

import "github.com/ctxbench/ctxbench/internal/host/x86"

const name = "TSC"

func read() uint64 { return x86.TSC() }
func hz() uint64   { return 0 }
