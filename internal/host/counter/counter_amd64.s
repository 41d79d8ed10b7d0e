#include "textflag.h"

// func rdtscp() uint64
// RDTSCP waits for the earlier instructions to complete, so a sample's
// work is inside its interval.
TEXT ·rdtscp(SB), NOSPLIT, $0-8
	RDTSCP
	SHLQ $32, DX
	ORQ DX, AX
	MOVQ AX, ret+0(FP)
	RET
