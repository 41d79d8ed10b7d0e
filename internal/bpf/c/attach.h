/*
 * attach.h: the sizes, slots, classes and counters of the in-place
 * programs (attach.bpf.c). The Go side reads them from the object's BTF
 * (bpf2go -type), and internal/phase maps each slot to its event kind
 * (phase.InPlaceSlotKind; a test checks the two agree by name).
 */
#ifndef CTXB_ATTACH_H
#define CTXB_ATTACH_H

#define MAX_TARGETS 8   /* targets one attach measures side by side */
#define NHIST 160       /* log-linear buckets: 0-7 exact, then 4 per power of two */
#define NSYS 512        /* syscall numbers counted one by one; larger ones in the last slot */

/*
 * A slot is a boundary on a switch's path: what opens or closes one of its
 * segments. The path of one switch runs on one CPU, from the outgoing
 * task's entry into the syscall it blocks in (or into __schedule when it
 * is preempted) through sched_switch to the incoming task's return to user
 * space; the wakeup that made the incoming task runnable is added to it.
 */
enum slot {
	SL_NONE = 0,
	SL_SYS_ENTER,       /* sys_enter: the syscall the outgoing task blocks in */
	SL_SYS_EXIT,        /* sys_exit: the incoming task's syscall returns */
	SL_SCHED_ENTRY,     /* sched_entry_tp: __schedule begins */
	SL_SWITCH,          /* sched_switch between two targets' tasks */
	SL_SWITCH_TO_OTHER, /* a target's task to another task */
	SL_SWITCH_TO_IDLE,  /* a target's task to idle */
	SL_SWITCH_FROM_OTHER,
	SL_SWITCH_FROM_IDLE,
	SL_SCHED_EXIT,      /* sched_exit_tp: __schedule returns in the task switched to */
	SL_FPU_LOAD,        /* x86_fpu_regs_activated: the FPU restored on the way to user space */
	SL_WAKING,          /* sched_waking of the incoming task (its wakeup, earlier) */
	SL_WAKEUP,          /* sched_wakeup */
	SL_COUNT,
};
#define NSLOT 13

/*
 * A class is a kind of switch: how the outgoing task left (it blocked, or
 * was preempted) and how the incoming one came (woken from this CPU or
 * from another, resumed after a preemption, new, or its past not seen).
 */
enum class {
	CL_VOLUNTARY = 0,
	CL_INVOLUNTARY,
	CL_WOKEN_SAME,
	CL_WOKEN_CROSS,
	CL_RESUMED,
	CL_NEW,
	CL_UNKNOWN,
	CL_COUNT,
};
#define NCLASS 7

/* The run-queue waits, by how the task became runnable. */
enum rq {
	RQ_WOKEN_SAME = 0,
	RQ_WOKEN_CROSS,
	RQ_PREEMPTED,
	RQ_NEW,
	RQ_COUNT,
};
#define NRQ 4

/* Counters per target, every one exact unless it says sampled. */
enum counter {
	C_OUT_VOLUNTARY = 0,  /* switches away from a target's task that blocked */
	C_OUT_INVOLUNTARY,    /* ... that was preempted (still runnable) */
	C_IN,                 /* switches to a target's task */
	C_OUT_TO_IDLE,        /* of the switches away, to idle */
	C_IN_FROM_IDLE,       /* of the switches to, from idle */
	C_PREEMPT_BY_SAME,    /* preempted by another task of the same target */
	C_PREEMPT_BY_TARGET,  /* ... of another target */
	C_PREEMPT_BY_KTHREAD, /* ... by a kernel thread */
	C_PREEMPT_BY_OTHER,   /* ... by another process */
	C_WAKEUPS,            /* sched_waking of a target's task */
	C_WAKEUPS_BY_SAME,    /* ... by a task of the same target */
	C_WAKE_REMOTE,        /* ... completed on another CPU than the waker's (an IPI's wake list) */
	C_TIMED,              /* switches whose path and run-queue wait were timed (sampled) */
	C_UNTIMED,            /* switches the rate limit left untimed */
	C_IN_TIMED,           /* switches to a target's task, timed (sampled) */
	C_MIGRATED,           /* of those, on another CPU than it last ran on (sampled) */
	C_PATHS,              /* paths whose time was added (sampled) */
	C_PATH_OPEN,          /* paths cut short: their end was not seen */
	C_WAKE_NS,            /* waking -> wakeup on one CPU, summed (sampled) */
	C_WAKE_N,
	C_RUNQ_NS_0,          /* run-queue wait summed, by enum rq (sampled) */
	C_RUNQ_NS_1,
	C_RUNQ_NS_2,
	C_RUNQ_NS_3,
	C_RUNQ_N_0,
	C_RUNQ_N_1,
	C_RUNQ_N_2,
	C_RUNQ_N_3,
	C_STATE_MISS,         /* a task's state not found at its switch-in (table full, or before the attach) */
	C_MISORDERED,         /* a segment that came out negative, counted as 0 */
	C_SELF_FROM_IDLE,     /* --all: switches from idle to ctxbench itself (the machine's count holds them) */
	C_COUNT,
};
#define NCOUNTERS 32

#endif
