#include "textflag.h"

// func cntvct() uint64
// The ISB keeps the read from being taken before the instructions that
// precede it, so a sample's work is inside its interval (RDTSCP's role on
// x86-64).
TEXT ·cntvct(SB), NOSPLIT, $0-8
	ISB $15
	MRS CNTVCT_EL0, R0
	MOVD R0, ret+0(FP)
	RET

// func cntfrq() uint64
TEXT ·cntfrq(SB), NOSPLIT, $0-8
	MRS CNTFRQ_EL0, R0
	MOVD R0, ret+0(FP)
	RET
