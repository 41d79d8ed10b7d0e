package spawn

import (
	"encoding/binary"
	"runtime"
)

// The exec target of the creation and memory measurements is a minimal
// static ELF executable of this machine's architecture (x86-64 or arm64)
// written here byte by byte: no interpreter, no libc, no dynamic loading,
// so exec costs what the kernel costs (loading /bin/true would add ld.so
// and libc relocation). It lives in a sealed memfd and is run with
// execveat(fd, "", AT_EMPTY_PATH) or through /proc/self/fd/N: nothing is
// written to disk.
//
// Layout (176 bytes of headers, then the code):
//
//	0x00  ELF header (64 bytes): magic 7f 'E' 'L' 'F', 64-bit, little
//	      endian, version 1, System V ABI; type ET_EXEC, the machine
//	      (x86-64 0x3e, AArch64 0xb7), entry point, program headers at
//	      offset 64, two of 56 bytes each.
//	0x40  PT_LOAD (56 bytes): the whole file mapped read+execute at
//	      0x400000 (file offset 0, so the entry is 0x400000 + code offset).
//	0x78  PT_GNU_STACK (56 bytes): flags read+write, so the kernel gives
//	      the process a non-executable stack, as every modern binary has.
//	0xb0  code (4-byte aligned, as arm64 instructions must be).
const (
	elfBase       = 0x400000
	elfHeaderSize = 64
	elfPhdrSize   = 56
	elfCodeOff    = elfHeaderSize + 2*elfPhdrSize
)

// target is one architecture's exec target: its ELF machine, the
// alignment of its segment, and the code of the two programs.
type target struct {
	machine     uint16
	align       uint64
	exit, pause []byte
}

// targets are the architectures the programs are written for, by GOARCH.
// The machine code is written out as bytes with its assembly beside it.
var targets = map[string]target{
	"amd64": {machine: 0x3e, align: 0x1000,
		// xor edi,edi; mov eax,231 (exit_group); syscall.
		exit: []byte{
			0x31, 0xff, // xor edi, edi
			0xb8, 0xe7, 0x00, 0x00, 0x00, // mov eax, 231
			0x0f, 0x05, // syscall
		},
		// loop: mov eax,34 (pause); syscall; jmp loop. The process sleeps
		// until a signal kills it (its parent's SIGKILL or the
		// parent-death signal).
		pause: []byte{
			0xb8, 0x22, 0x00, 0x00, 0x00, // mov eax, 34
			0x0f, 0x05, // syscall
			0xeb, 0xf7, // jmp -9 (back to mov)
		}},
	// arm64 has no pause(2) (the generic syscall table left it out): the
	// sleeper calls ppoll(NULL, 0, NULL, NULL, 0), which waits for a
	// signal just as pause does. Its segment is aligned to 64 KiB so the
	// same file loads on kernels with 4 KiB or 64 KiB pages.
	"arm64": {machine: 0xb7, align: 0x10000,
		exit: a64(
			0xd2800000, // mov x0, #0
			0xd2800bc8, // mov x8, #94 (exit_group)
			0xd4000001, // svc #0
		),
		pause: a64(
			0xd2800000, // loop: mov x0, #0 (fds: NULL)
			0xd2800001, // mov x1, #0 (nfds)
			0xd2800002, // mov x2, #0 (no timeout: wait for ever)
			0xd2800003, // mov x3, #0 (no signal mask)
			0xd2800004, // mov x4, #0 (sigsetsize)
			0xd2800928, // mov x8, #73 (ppoll)
			0xd4000001, // svc #0
			0x17fffff9, // b loop (-7 instructions)
		)},
}

// a64 lays out arm64 instructions as little-endian words.
func a64(words ...uint32) []byte {
	b := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// ELF returns the bytes of a static executable for arch (a GOARCH named in
// targets) running code.
func ELF(arch string, code []byte) []byte {
	tg := targets[arch]
	size := elfCodeOff + len(code)
	b := make([]byte, size)
	le := binary.LittleEndian
	copy(b[0:], []byte{0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */, 1 /* version */, 0 /* SysV */})
	le.PutUint16(b[16:], 2)                  // e_type ET_EXEC
	le.PutUint16(b[18:], tg.machine)         // e_machine
	le.PutUint32(b[20:], 1)                  // e_version
	le.PutUint64(b[24:], elfBase+elfCodeOff) // e_entry
	le.PutUint64(b[32:], elfHeaderSize)      // e_phoff
	le.PutUint64(b[40:], 0)                  // e_shoff: no sections
	le.PutUint32(b[48:], 0)                  // e_flags
	le.PutUint16(b[52:], elfHeaderSize)      // e_ehsize
	le.PutUint16(b[54:], elfPhdrSize)        // e_phentsize
	le.PutUint16(b[56:], 2)                  // e_phnum
	le.PutUint16(b[58:], 64)                 // e_shentsize
	le.PutUint16(b[60:], 0)                  // e_shnum
	le.PutUint16(b[62:], 0)                  // e_shstrndx
	p := b[elfHeaderSize:]
	le.PutUint32(p[0:], 1)             // p_type PT_LOAD
	le.PutUint32(p[4:], 5)             // p_flags R|X
	le.PutUint64(p[8:], 0)             // p_offset
	le.PutUint64(p[16:], elfBase)      // p_vaddr
	le.PutUint64(p[24:], elfBase)      // p_paddr
	le.PutUint64(p[32:], uint64(size)) // p_filesz
	le.PutUint64(p[40:], uint64(size)) // p_memsz
	le.PutUint64(p[48:], tg.align)     // p_align
	p = b[elfHeaderSize+elfPhdrSize:]
	le.PutUint32(p[0:], 0x6474e551) // p_type PT_GNU_STACK
	le.PutUint32(p[4:], 6)          // p_flags R|W
	copy(b[elfCodeOff:], code)
	return b
}

// ExitELF is a program of this machine's architecture that exits with
// status 0 at once (nil where no program is written for it: Memfd says so).
func ExitELF() []byte { return program(func(t target) []byte { return t.exit }) }

// PauseELF is a program of this machine's architecture that sleeps until
// killed.
func PauseELF() []byte { return program(func(t target) []byte { return t.pause }) }

func program(code func(target) []byte) []byte {
	t, ok := targets[runtime.GOARCH]
	if !ok {
		return nil
	}
	return ELF(runtime.GOARCH, code(t))
}
