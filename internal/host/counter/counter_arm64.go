package counter

const name = "CNTVCT_EL0"

// cntvct is ISB; MRS CNTVCT_EL0; cntfrq is MRS CNTFRQ_EL0 (counter_arm64.s).
func cntvct() uint64
func cntfrq() uint64

func read() uint64 { return cntvct() }
func hz() uint64   { return cntfrq() }
