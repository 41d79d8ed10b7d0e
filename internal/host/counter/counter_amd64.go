package counter

const name = "TSC"

// rdtscp is RDTSCP (counter_amd64.s).
func rdtscp() uint64

func read() uint64 { return rdtscp() }
func hz() uint64   { return 0 }
