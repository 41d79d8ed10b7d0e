//go:build linux && amd64

/*
 * kvm_guest.c: the guest programs of the vm-rung kernels, as gcc-assembled
 * byte strings (top-level asm, kept in .rodata and copied into guest memory
 * by kvm_vmm.c; they never run in the host).
 *
 * One op of each guest is described beside it. The shapes follow
 * kvm-unit-tests x86/vmexit.c (a tight loop of one exiting instruction) and
 * the LWN "Using the KVM API" guest (out to a port the VMM handles). Ports
 * and data addresses are the constants of kvm_vmm.h; the asm below repeats
 * them as literals because the assembler cannot see C macros here, and
 * cb_kvm_image_get() is the only way into these bytes.
 */
#include <string.h>

#include "kvm_vmm.h"

__asm__(
	".pushsection .rodata.cb_kvm_guest,\"a\"\n"
	".code64\n"

	/* USER: one op = one `out` to the unassigned port 0xE0, i.e. one exit
	 * to user space. Unrolled so the jmp is 1/64 of the ops. */
	"cb_kvm_g_user:\n"
	"1: .rept 64\n"
	"   out %al, $0xE0\n"
	"   .endr\n"
	"   jmp 1b\n"
	"cb_kvm_g_user_end:\n"

	/* IOEVENTFD: one op = `out` to port 0xE4 (an ioeventfd: the exit is
	 * completed in the host kernel) plus the loop's dec/jnz. After ITERS
	 * (data page, 0x8018) ops one `out` to 0xE0 returns to the VMM. The
	 * count is read from memory each round because the VMM must not change
	 * registers between an I/O exit and the KVM_RUN that completes it. */
	"cb_kvm_g_ioev:\n"
	"2: mov 0x8018, %rcx\n"
	"1: out %al, $0xE4\n"
	"   dec %rcx\n"
	"   jnz 1b\n"
	"   out %al, $0xE0\n"
	"   jmp 2b\n"
	"cb_kvm_g_ioev_end:\n"

	/* CPUID: one op = cpuid leaf 0 (handled in the host kernel when it
	 * traps) plus xor/dec/jnz; after ITERS ops, `out` to 0xE0. */
	"cb_kvm_g_cpuid:\n"
	"2: mov 0x8018, %r8\n"
	"1: xor %eax, %eax\n"
	"   cpuid\n"
	"   dec %r8\n"
	"   jnz 1b\n"
	"   out %al, $0xE0\n"
	"   jmp 2b\n"
	"cb_kvm_g_cpuid_end:\n"

	/* DOORBELL (variant K). rsi=1: initiator (side A), rsi=0: responder
	 * (side B). rdi holds the local APIC base (0xFEE00000) throughout;
	 * handlers are interrupt gates (IF=0), so they never nest.
	 * Entry: program the APIC timer as a 1 s periodic watchdog tick
	 * (divide 16, 62,500,000 counts at KVM's 1 ns APIC bus cycle, vector
	 * 0x42), the initiator rings first, then both halt with IF=1.
	 * Vector 0x40 (ring): EOI; TOTAL++; the initiator counts a round trip
	 * and, every TARGET of them, exits to the VMM through port 0xE0 (a
	 * sample boundary) before ringing again; the responder rings back and
	 * exits through 0xE0 once TOTAL reaches TARGET (its last answer).
	 * Ringing is `out` to 0xE8: an ioeventfd that is the other VM's irqfd.
	 * Vector 0x42 (tick): EOI, `out` to 0xE1 so the VMM can see whether
	 * the other side still answers. */
	"cb_kvm_g_door:\n"
	"   mov $0xFEE00000, %edi\n"
	"   movl $0x3, 0x3E0(%rdi)\n"
	"   movl $0x20042, 0x320(%rdi)\n"
	"   movl $62500000, 0x380(%rdi)\n"
	"   test %rsi, %rsi\n"
	"   jz 1f\n"
	"   out %al, $0xE8\n"
	"1: sti\n"
	"2: hlt\n"
	"   jmp 2b\n"
	"cb_kvm_g_door_ring:\n"
	"   movl $0, 0xB0(%rdi)\n"
	"   incq 0x8010\n"
	"   test %rsi, %rsi\n"
	"   jz 4f\n"
	"   incq 0x8008\n"
	"   mov 0x8008, %rax\n"
	"   cmp 0x8000, %rax\n"
	"   jb 3f\n"
	"   movq $0, 0x8008\n"
	"   out %al, $0xE0\n"
	"3: out %al, $0xE8\n"
	"   iretq\n"
	"4: out %al, $0xE8\n"
	"   mov 0x8010, %rax\n"
	"   cmp 0x8000, %rax\n"
	"   jb 5f\n"
	"   out %al, $0xE0\n"
	"5: iretq\n"
	"cb_kvm_g_door_tick:\n"
	"   movl $0, 0xB0(%rdi)\n"
	"   out %al, $0xE1\n"
	"   iretq\n"
	"cb_kvm_g_door_end:\n"

	/* USER16: real mode, one op = `out` to 0xE0 plus a jmp. */
	".code16\n"
	"cb_kvm_g_user16:\n"
	"1: out %al, $0xE0\n"
	"   jmp 1b\n"
	"cb_kvm_g_user16_end:\n"
	".code64\n"
	".popsection\n");

extern const uint8_t cb_kvm_g_user[], cb_kvm_g_user_end[];
extern const uint8_t cb_kvm_g_ioev[], cb_kvm_g_ioev_end[];
extern const uint8_t cb_kvm_g_cpuid[], cb_kvm_g_cpuid_end[];
extern const uint8_t cb_kvm_g_door[], cb_kvm_g_door_ring[], cb_kvm_g_door_tick[], cb_kvm_g_door_end[];
extern const uint8_t cb_kvm_g_user16[], cb_kvm_g_user16_end[];

void cb_kvm_image_get(int id, cb_kvm_image *img)
{
	const uint8_t *a, *b;
	switch (id) {
	case CB_KVM_IMG_IOEVENTFD: a = cb_kvm_g_ioev; b = cb_kvm_g_ioev_end; break;
	case CB_KVM_IMG_CPUID: a = cb_kvm_g_cpuid; b = cb_kvm_g_cpuid_end; break;
	case CB_KVM_IMG_USER16: a = cb_kvm_g_user16; b = cb_kvm_g_user16_end; break;
	case CB_KVM_IMG_DOORBELL: a = cb_kvm_g_door; b = cb_kvm_g_door_end; break;
	default: a = cb_kvm_g_user; b = cb_kvm_g_user_end; break;
	}
	img->code = a;
	img->len = (size_t)(b - a);
	img->entry = 0;
}

size_t cb_kvm_doorbell_ring_off(void) { return (size_t)(cb_kvm_g_door_ring - cb_kvm_g_door); }
size_t cb_kvm_doorbell_tick_off(void) { return (size_t)(cb_kvm_g_door_tick - cb_kvm_g_door); }

/*
 * The self-check guest is generated rather than assembled so that any
 * padding count can be used: pad x `inc %ecx` (FF C1; 41 in real mode),
 * `out %al, $0xE0` (E6 E0), and a jmp back to the start (E9 rel32; EB rel8
 * or E9 rel16 in real mode). One op = one pass: pad+2 instructions.
 */
size_t cb_kvm_build_padded(uint8_t *buf, size_t cap, uint32_t pad, int mode)
{
	size_t n = 0;
	size_t inc_len = mode == CB_KVM_GUEST_REAL ? 1 : 2;
	size_t need = (size_t)pad * inc_len + 2 + 5;
	if (need > cap)
		return 0;
	for (uint32_t i = 0; i < pad; i++) {
		if (mode == CB_KVM_GUEST_REAL) {
			buf[n++] = 0x41;
		} else {
			buf[n++] = 0xFF;
			buf[n++] = 0xC1;
		}
	}
	buf[n++] = 0xE6;
	buf[n++] = CB_KVM_PORT_USER;
	if (mode == CB_KVM_GUEST_REAL) {
		int32_t rel = -(int32_t)(n + 3);
		buf[n++] = 0xE9;
		buf[n++] = (uint8_t)(rel & 0xff);
		buf[n++] = (uint8_t)((rel >> 8) & 0xff);
	} else {
		int32_t rel = -(int32_t)(n + 5);
		buf[n++] = 0xE9;
		memcpy(buf + n, &rel, 4);
		n += 4;
	}
	return n;
}
