package bpf

// The BPF objects are generated from c/*.c and committed, so that building
// and testing need no clang. One source, two objects: x86-64's
// (hop_x86_bpfel.*) and arm64's (hop_arm64_bpfel.*), bpf2go defining
// __TARGET_ARCH_x86 or __TARGET_ARCH_arm64 for each. To regenerate (clang,
// and the headers of libbpf-dev and linux-libc-dev; the asm/ include
// directory is either multiarch one: the programs use only its integer
// types, the same on both):
//
//	go generate ./internal/bpf
//
// The in-place programs of ctxbench attach (c/attach.bpf.c) are generated
// the same way, for both targets (attach_x86_bpfel.*, attach_arm64_bpfel.*).
//
// scripts/test.sh regenerates them and fails where one differs from what
// is committed.
//
// -type exports the C types the Go side reads; internal/phase/kinds.go
// mirrors enum kind by name (TestKindsMatchObject checks it).

//go:generate go tool bpf2go -cc clang -tags linux -target amd64,arm64 -type cell -type cpu_state -type kvm_reason -type kind -type counter -type cap_rec -type cap_counter hop c/hop.bpf.c -- -I/usr/include/x86_64-linux-gnu -I/usr/include/aarch64-linux-gnu -Wall -Werror
//go:generate go tool bpf2go -cc clang -tags linux -target amd64,arm64 -type agg -type cpu_state -type task -type preempter -type preempter_key attach c/attach.bpf.c -- -I/usr/include/x86_64-linux-gnu -I/usr/include/aarch64-linux-gnu -Wall -Werror
