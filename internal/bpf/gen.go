package bpf

// The BPF objects are generated from c/*.c and committed, so that building
// and testing need no clang. To regenerate (clang, and the headers of
// libbpf-dev and linux-libc-dev):
//
//	go generate ./internal/bpf
//
// -type exports the C types the Go side reads; internal/phase/kinds.go
// mirrors enum kind by name (TestKindsMatchObject checks it).

//go:generate go tool bpf2go -cc clang -target amd64 -type cell -type cpu_state -type kvm_reason -type kind -type counter -type cap_rec -type cap_counter hop c/hop.bpf.c -- -I/usr/include/x86_64-linux-gnu -Wall -Werror
