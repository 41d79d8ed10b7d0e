/*
 * kinds.h: the event kinds of the hop tracer and the sizes of its tables.
 * The Go side (kinds.go) mirrors the kinds by name; a test checks that the
 * two agree through the object's BTF, so a kind added here without Go fails
 * `go test`.
 */
#ifndef CTXB_KINDS_H
#define CTXB_KINDS_H

/*
 * A kind is what opened a segment of a CPU's timeline. Syscall kinds are
 * split by class, so that the entry of a read and the entry of a write are
 * different rows of the transition matrix. Interrupt kinds (KIND_IRQ_FIRST
 * and after) never open segments: an interrupt is a nested interval, its
 * time kept apart from the segment it landed in (see hop.bpf.c).
 */
enum kind {
	KIND_NONE = 0, /* no event on this CPU since the last reset */

	KIND_ENTER_READ,
	KIND_ENTER_WRITE,
	KIND_ENTER_FUTEX_WAIT,
	KIND_ENTER_FUTEX_WAKE,
	KIND_ENTER_FUTEX_OTHER,
	KIND_ENTER_YIELD,
	KIND_ENTER_KVM_RUN,
	KIND_ENTER_IOCTL,
	KIND_ENTER_OTHER,

	KIND_EXIT_READ,
	KIND_EXIT_WRITE,
	KIND_EXIT_FUTEX_WAIT,
	KIND_EXIT_FUTEX_WAKE,
	KIND_EXIT_FUTEX_OTHER,
	KIND_EXIT_YIELD,
	KIND_EXIT_KVM_RUN,
	KIND_EXIT_IOCTL,
	KIND_EXIT_OTHER,

	KIND_WAKING,         /* sched_waking: try_to_wake_up begins */
	KIND_WAKEUP,         /* sched_wakeup: the wakee is runnable */
	KIND_NEED_RESCHED,   /* sched_set_need_resched_tp: counted only, never opens a segment */
	KIND_SCHED_ENTRY,    /* sched_entry_tp: __schedule begins */
	KIND_FAIR_BEGIN,     /* sched_util_est_cfs_tp: a fair enqueue or dequeue begins */
	KIND_NR_RUNNING_INC, /* sched_update_nr_running_tp, change > 0: an enqueue ends */
	KIND_NR_RUNNING_DEC, /* sched_update_nr_running_tp, change < 0: a dequeue ends */
	KIND_SWITCH,         /* sched_switch, tracked task to tracked task */
	KIND_SWITCH_TO_OTHER,
	KIND_SWITCH_FROM_OTHER,
	KIND_SWITCH_TO_IDLE,
	KIND_SWITCH_FROM_IDLE,
	KIND_SCHED_EXIT,     /* sched_exit_tp: __schedule returns in the task switched to */
	KIND_TLB_FLUSH,
	KIND_FPU_SAVE,       /* x86_fpu_regs_deactivated */
	KIND_FPU_LOAD,       /* x86_fpu_regs_activated */
	KIND_KVM_FPU_LOAD,   /* kvm_fpu, load */
	KIND_KVM_FPU_UNLOAD, /* kvm_fpu, unload */
	KIND_KVM_ENTRY,
	KIND_KVM_EXIT,
	KIND_KVM_USERSPACE_EXIT,

	/* On a CPU a tracked task left idle (the wakee's CPU of a hop across
	 * CPUs), the idle task's events are the hop's: */
	KIND_IDLE_ENTER,     /* power:cpu_idle, entering an idle state */
	KIND_IDLE_EXIT,      /* power:cpu_idle, PWR_EVENT_EXIT: the idle state left */
	KIND_IPI_IN,         /* an IPI's entry there: a boundary, not a nested interval */
	KIND_IPI_OUT,        /* its exit */
	KIND_IPI_SEND,       /* ipi:ipi_send_cpu, by a tracked task: the waker sends the IPI */

	KIND_IRQ_FIRST,
	KIND_IRQ = KIND_IRQ_FIRST, /* irq_handler_entry/exit */
	KIND_SOFTIRQ,
	KIND_TIMER,          /* local_timer_entry/exit */
	KIND_RESCHED_IPI,    /* reschedule_entry/exit */
	KIND_CALL_FUNC_IPI,  /* call_function(_single)_entry/exit */
	KIND_IRQ_WORK,

	KIND_COUNT,
};

#define NKINDS 56          /* matrix side; >= KIND_COUNT, room for finer boundaries */
/*
 * What ran on the CPU when the event that opened a segment fired: a task,
 * or the idle task (of a CPU a tracked task left idle). The same kernel
 * transition can be different work in the two: an enqueue by the waker's
 * syscall onto another CPU's runqueue, or by the IPI handler of the idle
 * wakee's CPU. The cells keep them apart.
 */
enum context {
	CTX_TASK = 0,
	CTX_IDLE = 1,
	CTX_COUNT,
};
#define NCTX 2
#define NHIST 28           /* log2 buckets: [2^i, 2^(i+1)) ns, the last open-ended */
#define NKVM_REASONS 256   /* exit reasons kept one by one; larger ones go to the last slot */
#define NTLB_REASONS 8
#define MAX_CPUS 4096      /* CPUs the per-target IPI table holds (larger ids are not recorded) */
/* tlb_reasons index of an address-space switch that flushed nothing (the
 * PCID kept the entries); reasons 0-4 are the kernel's. */
#define TLB_KEPT_ON_SWITCH 6

/* Per-CPU counters, indexes into the counters map. */
enum counter {
	CNT_SWITCH_OUT = 0,    /* sched_switch with a tracked prev */
	CNT_SWITCH_IN,         /* sched_switch with a tracked next */
	CNT_PREEMPTED,         /* tracked prev still runnable (an involuntary switch) */
	CNT_MISORDERED,        /* a segment that came out negative (a probe interrupted by another), counted as 0 */
	CNT_NESTED,            /* events inside an interrupt: counted, no segment cut */
	CNT_KVM_ISA,           /* the isa argument of the last kvm_exit */
	CNT_COUNT_,
};
#define NCOUNTERS 8

#endif
