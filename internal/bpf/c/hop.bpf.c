// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * hop.bpf.c: split the timeline of each CPU into segments between kernel
 * events, and add every segment up, in the kernel, by (event that opened
 * it -> event that closed it).
 *
 * Why this shape: a context-switch hop is a fixed chain of kernel events
 * (syscall entry, wakeup, __schedule, sched_switch, ... ), so the time
 * between two consecutive events on one CPU is one phase of the hop. Each
 * CPU keeps only its last event; the next event on that CPU attributes
 * (now - last) to the cell [last kind][this kind] of a per-CPU matrix (sum,
 * count, log2 histogram). Nothing is streamed to user space, and since every
 * segment ends where the next begins, the cells of a CPU add up to the span
 * between its first and its last event: whatever a phase model names, the
 * rest is still there to see.
 *
 * Which events count: only those of tracked processes (a set of TGIDs
 * filled from Go) — the current task is tracked, or the CPU is switching
 * into a tracked task, or a tracked task is being woken. A switch to or
 * from an untracked task or the idle task is an event of its own kind, so
 * time taken by others shows up as a segment rather than vanishing.
 *
 * Interrupts are nested intervals, not segment boundaries: their time is
 * added to [segment's kind][interrupt kind] and subtracted from the segment
 * they landed in, so a timer tick in the middle of a phase does not cut the
 * phase in two. Events inside an interrupt are counted, not cut.
 *
 * Only raw tracepoints: they attach by name, need no tracefs, and exist on
 * kernels without fentry or kprobes (like the reference machine's).
 *
 * One source for x86-64 and arm64 (bpf2go -target amd64,arm64 defines
 * __TARGET_ARCH_x86 or __TARGET_ARCH_arm64): the saved user registers and
 * the syscall numbers are each architecture's; the tracepoints only x86
 * has (tlb_flush, x86_fpu_regs_*, the vm rung's kvm_*, local_timer,
 * reschedule, call_function and irq_work entry/exit) are compiled for
 * x86-64 only, and arm64 has its own IPI tracepoints (ipi_entry/ipi_exit,
 * naming the IPI) in their place. internal/bpf/probes.go lists which are
 * attached where, and why the others are absent.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "kinds.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* The kernel types read here, relocated against the running kernel's BTF
 * (CO-RE): only the fields used, so no vmlinux.h is needed. */
struct task_struct {
	int pid;
	int tgid;
	int wake_cpu;      /* the CPU the task last ran on (CONFIG_SMP) */
	unsigned int cpu;  /* the CPU it is on or last ran on (5.16+; CONFIG_SMP) */
	char comm[16];
} __attribute__((preserve_access_index));

/* power:cpu_idle's state when a CPU leaves idle (PWR_EVENT_EXIT). */
#define PWR_EVENT_EXIT 0xffffffffu

#if defined(__TARGET_ARCH_arm64)

/* arm64 saved user registers (arch/arm64/include/asm/ptrace.h): x0 to x30,
 * the second argument in x1 (the futex op, the ioctl request), and the
 * syscall number. */
struct pt_regs {
	unsigned long regs[31];
	int syscallno;
} __attribute__((preserve_access_index));
#define SYSCALL_ARG1(regs) BPF_CORE_READ(regs, regs[1])
#define SYSCALL_NR(regs) BPF_CORE_READ(regs, syscallno)

/* arm64 syscall numbers (the generic table, asm-generic/unistd.h). */
#define NR_READ 63
#define NR_WRITE 64
#define NR_IOCTL 29
#define NR_SCHED_YIELD 124
#define NR_FUTEX 98

#else /* x86-64 */

/* x86-64 saved user registers: the syscall number and its second argument
 * (the futex op, the ioctl request). */
struct pt_regs {
	unsigned long si;
	unsigned long orig_ax;
} __attribute__((preserve_access_index));
#define SYSCALL_ARG1(regs) BPF_CORE_READ(regs, si)
#define SYSCALL_NR(regs) BPF_CORE_READ(regs, orig_ax)

/* The PVM backend's vCPU; kvm_vcpu is its first member, so the kvm_exit
 * tracepoint's vcpu pointer points at it. */
struct vcpu_pvm {
	__u32 exit_reason;
} __attribute__((preserve_access_index));

/* x86-64 syscall numbers and the requests that get classes of their own. */
#define NR_READ 0
#define NR_WRITE 1
#define NR_IOCTL 16
#define NR_SCHED_YIELD 24
#define NR_FUTEX 202

#endif

/* The syscalls numbered alike everywhere (from 403 up, asm-generic). */
#define NR_FUTEX_WAITV 449
#define NR_FUTEX_WAKE 454
#define NR_FUTEX_WAIT 455
#define FUTEX_CMD_MASK 0x7f /* without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME */
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAIT_BITSET 9
#define FUTEX_WAKE_BITSET 10
#define KVM_RUN 0xae80

struct cell {
	__u64 ns;
	__u64 count;
	__u64 hist[NHIST];
};

struct cpu_state {
	__u64 last_ts;   /* when the current segment began */
	__u64 first_ts;  /* the first event since the reset: the span's start */
	__u64 irq_ns;    /* interrupt time inside the current segment */
	__u64 irq_start; /* when the outermost interrupt began */
	__u32 epoch;     /* the reset this state belongs to */
	__u32 gen;       /* the tracked set the cache below was read from */
	__u32 tgid;      /* cache: the current task's TGID ... */
	__u8 tracked;    /* ... and whether it is tracked */
	__u8 cached;
	__u8 last_kind;  /* what opened the current segment */
	__u8 active;     /* the last sched_switch here went to a tracked task */
	__u8 irq_depth;
	__u8 irq_kind;   /* kind of the outermost interrupt */
	__u8 idle;       /* a tracked task switched to idle here, and idle still runs */
	__u8 ipi_cut;    /* an IPI on that idle CPU is in progress, as a segment ... */
	__u8 ipi_sent;   /* ... whose send was seen (its flight is in the cross cells) */
	__u8 last_ctx;   /* enum context of the event that opened the current segment */
	__u8 pad3[6];
	__u32 kvm_reason; /* reason of the last kvm_exit, for its handling time */
	__u32 last_tid;  /* the task that opened the current segment (capture) */
	__u64 ipi_ts;    /* when that IPI began */
	/* Capture only (capture.h): */
	__u64 sys_ts;        /* the current task's last syscall entry ... */
	__u32 sys_tid;       /* ... and that task (0 once the syscall returned) */
	__u32 sys_kind;      /* ... and its kind */
	__u32 cap_wtid;      /* the tracked wakee this CPU's task is waking (sched_waking until its wakeup or IPI) */
	__u64 cap_irq_start; /* when the outermost interrupt began, whoever ran */
	__u8 cap_depth;      /* interrupt nesting, whoever ran (irq_depth counts only while recording) */
	__u8 cap_irq_kind;
	__u8 pad4[2];
};

/* A wakeup of a tracked task begun (sched_waking) on one CPU, for the CPU
 * that completes it: a hop across CPUs crosses here. */
struct waking {
	__u64 ts;
	__u32 cpu;
	__u32 epoch;
};

struct kvm_reason {
	__u64 count;
	__u64 ns; /* from the kvm_exit to the next event: handling in the kernel */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NCTX * NKINDS * NKINDS);
	__type(key, __u32);
	__type(value, struct cell);
} cells SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} state SEC(".maps");

/* Every recorded event by kind, including those inside interrupts. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NKINDS);
	__type(key, enum kind);
	__type(value, __u64);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NCOUNTERS);
	__type(key, enum counter);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NKVM_REASONS);
	__type(key, __u32);
	__type(value, struct kvm_reason);
} kvm_reasons SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NTLB_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} tlb_reasons SEC(".maps");

/* Pending wakeups of tracked tasks by TID: sched_waking writes, the
 * sched_wakeup that completes the wakeup reads and deletes. Shared by all
 * CPUs, the one place a hop's two timelines meet. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct waking);
} wakings SEC(".maps");

/* The IPIs sent by tracked tasks, by target CPU: ipi_send_cpu writes, the
 * IPI's arrival on that CPU, idle, reads and clears. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPUS);
	__type(key, __u32);
	__type(value, struct waking);
} sent SEC(".maps");

/* The time from an event on one CPU to what it caused on another:
 * KIND_IPI_SEND, the IPI's send to its arrival at the idle wakee's CPU (its
 * flight); KIND_IPI_IN, sched_waking to that arrival, when the send was not
 * seen; KIND_WAKEUP, sched_waking to the wakeup's completion there without
 * an IPI on its idle timeline (the CPU was polling, or the interrupt probes
 * are not attached); KIND_SWITCH_FROM_OTHER, an IPI's send to a busy CPU to
 * the switch there from its task to a tracked one (from_other). Kept apart
 * from the cells, which tile each CPU's own timeline. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NKINDS);
	__type(key, __u32);
	__type(value, struct cell);
} cross SEC(".maps");

/* The tracked TGIDs, filled from Go. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/* Set from Go: gen changes whenever the tracked set does (it invalidates
 * the per-CPU caches), epoch on every reset (each CPU then starts afresh),
 * paused while a reset zeroes the tables. */
volatile __u32 gen;
volatile __u32 epoch;
volatile __u32 paused;

static __always_inline void bump(void *map, __u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);
	if (v)
		*v += n;
}

static __always_inline __u32 log2_bucket(__u64 v)
{
	__u32 r = 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r < NHIST ? r : NHIST - 1;
}

static __always_inline void add_to(struct cell *c, __u64 ns)
{
	c->ns += ns;
	c->count++;
	__u32 b = log2_bucket(ns);
	if (b < NHIST) /* for the verifier */
		c->hist[b]++;
}

static __always_inline void add_cell(__u32 ctx, __u32 from, __u32 to, __u64 ns)
{
	__u32 key = (ctx * NKINDS + from) * NKINDS + to;
	struct cell *c = bpf_map_lookup_elem(&cells, &key);
	if (c)
		add_to(c, ns);
}

/* this_cpu returns the CPU's state, started afresh after a reset. */
static __always_inline struct cpu_state *this_cpu(void)
{
	__u32 zero = 0;
	struct cpu_state *s = bpf_map_lookup_elem(&state, &zero);
	if (!s)
		return 0;
	__u32 e = epoch;
	if (s->epoch != e) {
		__builtin_memset(s, 0, sizeof(*s));
		s->epoch = e;
	}
	return s;
}

static __always_inline int tgid_tracked(__u32 tgid)
{
	/* Reading the value (always 1) rather than testing the pointer keeps
	 * clang from OR-ing two map pointers, which the verifier refuses. */
	__u8 *v = bpf_map_lookup_elem(&tracked, &tgid);
	return v ? *v : 0;
}

/* current_tracked caches the answer per CPU until the current TGID or the
 * tracked set changes: most events come from the task that ran the last
 * one, and this runs on every syscall of the machine. */
static __always_inline int current_tracked(struct cpu_state *s)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 g = gen;
	if (s->cached && s->tgid == tgid && s->gen == g)
		return s->tracked;
	s->tgid = tgid;
	s->gen = g;
	s->tracked = tgid_tracked(tgid);
	s->cached = 1;
	return s->tracked;
}

/* recording: events of this CPU belong to the hop's timeline: the
 * current task is tracked, or the CPU is switching into one, or it is the
 * idle task of a CPU a tracked task left idle (its idle exit and the IPI
 * that ends it are the next hop's, on a hop across CPUs). */
static __always_inline int recording(struct cpu_state *s)
{
	return current_tracked(s) || s->active || (s->idle && s->tgid == 0);
}

#include "capture.h"

/* cut closes the current segment at now and opens one of kind k. The
 * state is swapped before anything else, so that an interrupt probe
 * running in the middle of this one (IRQs are on in syscall tracepoints)
 * finds either the old segment or the new one, hardly ever a mix. */
static __always_inline void cut(struct cpu_state *s, __u32 k, __u64 now)
{
	bump(&events, k, 1);
	if (s->irq_depth) {
		bump(&counters, CNT_NESTED, 1);
		return;
	}
	__u32 from = s->last_kind, ctx = s->last_ctx;
	__u64 start = s->last_ts, irq = s->irq_ns;
	__u32 reason = s->kvm_reason, tid = s->last_tid;
	s->last_kind = k;
	s->last_ctx = (bpf_get_current_pid_tgid() >> 32) == 0 ? CTX_IDLE : CTX_TASK;
	s->last_ts = now;
	s->irq_ns = 0;
	if (capture_on)
		s->last_tid = (__u32)bpf_get_current_pid_tgid();
	if (from == KIND_NONE) {
		s->first_ts = now;
		return;
	}
	if (from >= NKINDS || ctx >= NCTX)
		return;
	__s64 d = (__s64)(now - start - irq);
	if (d < 0) {
		bump(&counters, CNT_MISORDERED, 1);
		d = 0;
	}
	add_cell(ctx, from, k, d);
	if (capture_on)
		cap_seg(ctx, from, k, start, now, d, tid);
	if (from == KIND_KVM_EXIT) {
		struct kvm_reason *kr = bpf_map_lookup_elem(&kvm_reasons, &reason);
		if (kr) {
			kr->count++;
			kr->ns += d;
		}
	}
}

/* event records an event of the current task. */
static __always_inline struct cpu_state *event(__u32 k)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s || !recording(s))
		return 0;
	cut(s, k, bpf_ktime_get_ns());
	return s;
}

/* --- syscalls ---------------------------------------------------------- */

/* syscall_class maps a syscall to its entry kind (exit kinds follow the
 * entry kinds in the same order). */
static __always_inline __u32 syscall_class(long nr, struct pt_regs *regs)
{
	switch (nr) {
	case NR_READ:
		return KIND_ENTER_READ;
	case NR_WRITE:
		return KIND_ENTER_WRITE;
	case NR_SCHED_YIELD:
		return KIND_ENTER_YIELD;
	case NR_FUTEX_WAIT:
	case NR_FUTEX_WAITV:
		return KIND_ENTER_FUTEX_WAIT;
	case NR_FUTEX_WAKE:
		return KIND_ENTER_FUTEX_WAKE;
	case NR_FUTEX: {
		unsigned long op = SYSCALL_ARG1(regs) & FUTEX_CMD_MASK;
		if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET)
			return KIND_ENTER_FUTEX_WAIT;
		if (op == FUTEX_WAKE || op == FUTEX_WAKE_BITSET)
			return KIND_ENTER_FUTEX_WAKE;
		return KIND_ENTER_FUTEX_OTHER;
	}
	case NR_IOCTL:
		if ((__u32)SYSCALL_ARG1(regs) == KVM_RUN)
			return KIND_ENTER_KVM_RUN;
		return KIND_ENTER_IOCTL;
	}
	return KIND_ENTER_OTHER;
}

/* sys_enter(regs, id): a syscall begins; the segment before it is user
 * space (plus the kernel entry path, which has no tracepoint). */
SEC("raw_tracepoint/sys_enter")
int ctxb_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s || !recording(s))
		return 0;
	__u32 k = syscall_class((long)ctx->args[1], (struct pt_regs *)ctx->args[0]);
	__u64 now = bpf_ktime_get_ns();
	cut(s, k, now);
	if (capture_on) {
		s->sys_ts = now;
		s->sys_tid = (__u32)bpf_get_current_pid_tgid();
		s->sys_kind = k;
	}
	return 0;
}

/* sys_exit(regs, ret): the syscall's work is done; the number is read
 * back from the saved registers. */
SEC("raw_tracepoint/sys_exit")
int ctxb_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s || !recording(s))
		return 0;
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	long nr = (long)SYSCALL_NR(regs);
	__u32 k = syscall_class(nr, regs) + (KIND_EXIT_READ - KIND_ENTER_READ);
	__u64 now = bpf_ktime_get_ns();
	cut(s, k, now);
	if (capture_on) {
		s->sys_tid = 0;
		s->cap_wtid = 0;
		cap_end(ctx, s, k, now);
	}
	return 0;
}

/* --- scheduler --------------------------------------------------------- */

/* wake records a wakeup when the waker or the wakee is tracked: a tracked
 * task woken from an interrupt on an idle CPU is part of the hop too. A
 * tracked wakee's sched_waking is remembered by TID; the sched_wakeup that
 * completes it on another CPU adds the time across to the cross cells. */
static __always_inline void wake(struct bpf_raw_tracepoint_args *ctx, __u32 k)
{
	if (paused)
		return;
	struct cpu_state *s = this_cpu();
	if (!s)
		return;
	struct task_struct *p = (struct task_struct *)ctx->args[0];
	int wakee = tgid_tracked(BPF_CORE_READ(p, tgid));
	if (!recording(s) && !wakee)
		return;
	__u64 now = bpf_ktime_get_ns();
	cut(s, k, now);
	if (!wakee)
		return;
	__u32 tid = BPF_CORE_READ(p, pid);
	__u32 cpu = bpf_get_smp_processor_id();
	if (capture_on) {
		if (k == KIND_WAKING)
			cap_begin(s, p, tid, now);
		else if (s->cap_wtid == tid) {
			cap_handoff(s, now); /* completed on the waker's CPU */
			s->cap_wtid = 0;
		}
	}
	if (k == KIND_WAKING) {
		/* Only a wakee that last ran on another CPU can be woken there:
		 * a same-CPU hop pays for no table update. */
		if (bpf_core_field_exists(p->wake_cpu) && (__u32)BPF_CORE_READ(p, wake_cpu) == cpu)
			return;
		struct waking w = {.ts = now, .cpu = cpu, .epoch = epoch};
		bpf_map_update_elem(&wakings, &tid, &w, BPF_ANY);
		return;
	}
	struct waking *w = bpf_map_lookup_elem(&wakings, &tid);
	if (!w)
		return;
	if (w->epoch == epoch && w->cpu != cpu && !(s->ipi_cut && s->ipi_sent)) {
		__u32 to = s->ipi_cut ? KIND_IPI_IN : KIND_WAKEUP;
		__u64 at = s->ipi_cut ? s->ipi_ts : now;
		struct cell *c = bpf_map_lookup_elem(&cross, &to);
		if (c && at >= w->ts)
			add_to(c, at - w->ts);
	}
	bpf_map_delete_elem(&wakings, &tid);
}

/* sched_waking(p): try_to_wake_up begins, in the waker's context. */
SEC("raw_tracepoint/sched_waking")
int ctxb_waking(struct bpf_raw_tracepoint_args *ctx)
{
	wake(ctx, KIND_WAKING);
	return 0;
}

/* sched_wakeup(p): the wakee is enqueued and runnable. */
SEC("raw_tracepoint/sched_wakeup")
int ctxb_wakeup(struct bpf_raw_tracepoint_args *ctx)
{
	wake(ctx, KIND_WAKEUP);
	return 0;
}

/* sched_set_need_resched_tp(curr, cpu, tif): a wakeup (or the tick) asks
 * the running task to give up the CPU. Counted, not a boundary: it is a
 * decision inside the wakeup-preemption check, and how often a hop's wakeup
 * asks to preempt is what matters. */
SEC("raw_tracepoint/sched_set_need_resched_tp")
int ctxb_need_resched(struct bpf_raw_tracepoint_args *ctx)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (s && recording(s))
		bump(&events, KIND_NEED_RESCHED, 1);
	return 0;
}

/* sched_entry_tp(preempt, ip): __schedule begins (before the runqueue
 * lock); separates the syscall's own work from the scheduler's. */
SEC("raw_tracepoint/sched_entry_tp")
int ctxb_sched_entry(struct bpf_raw_tracepoint_args *ctx)
{
	event(KIND_SCHED_ENTRY);
	return 0;
}

/* sched_util_est_cfs_tp(cfs_rq): first thing enqueue_task_fair and
 * dequeue_task_fair do, before walking the task's cgroup hierarchy; with
 * sched_update_nr_running_tp it brackets that walk. */
SEC("raw_tracepoint/sched_util_est_cfs_tp")
int ctxb_fair_begin(struct bpf_raw_tracepoint_args *ctx)
{
	event(KIND_FAIR_BEGIN);
	return 0;
}

/* sched_update_nr_running_tp(rq, change): the runqueue's count changes,
 * last thing an enqueue (change > 0) or a dequeue (< 0) does. */
SEC("raw_tracepoint/sched_update_nr_running_tp")
int ctxb_nr_running(struct bpf_raw_tracepoint_args *ctx)
{
	event((int)ctx->args[1] > 0 ? KIND_NR_RUNNING_INC : KIND_NR_RUNNING_DEC);
	return 0;
}

/* from_other: a tracked task takes this CPU from another task. When a
 * tracked task on another CPU sent this CPU an IPI (on a hop to a busy CPU,
 * the reschedule that makes the other task yield to the wakee it enqueued
 * here), the time from that send to this switch goes to the cross cell
 * KIND_SWITCH_FROM_OTHER: the IPI's flight, the other task's way into
 * schedule(), and the pick. */
static __always_inline void from_other(__u64 now)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct waking *w = bpf_map_lookup_elem(&sent, &cpu);
	if (!w || !w->ts || w->epoch != epoch || w->cpu == cpu || now < w->ts)
		return;
	__u32 to = KIND_SWITCH_FROM_OTHER;
	struct cell *c = bpf_map_lookup_elem(&cross, &to);
	if (c)
		add_to(c, now - w->ts);
	w->ts = 0;
}

/* sched_switch(preempt, prev, next, prev_state): the scheduler has picked
 * next; the context switch proper (mm, registers, FPU) follows. */
SEC("raw_tracepoint/sched_switch")
int ctxb_switch(struct bpf_raw_tracepoint_args *ctx)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s)
		return 0;
	struct task_struct *prev = (struct task_struct *)ctx->args[1];
	struct task_struct *next = (struct task_struct *)ctx->args[2];
	int pt = tgid_tracked(BPF_CORE_READ(prev, tgid));
	int nt = tgid_tracked(BPF_CORE_READ(next, tgid));
	int to_idle = BPF_CORE_READ(next, pid) == 0;
	if (capture_on)
		cap_switch(next, pt, nt, bpf_ktime_get_ns());
	/* prev is current; the cache is refreshed when next first runs. */
	s->active = nt;
	/* The idle task's events count from a tracked task's switch to idle
	 * up to idle's switch away. */
	s->idle = pt && to_idle;
	s->ipi_cut = 0;
	if (!pt && !nt)
		return 0;
	__u32 k;
	if (pt && nt)
		k = KIND_SWITCH;
	else if (pt)
		k = to_idle ? KIND_SWITCH_TO_IDLE : KIND_SWITCH_TO_OTHER;
	else
		k = BPF_CORE_READ(prev, pid) == 0 ? KIND_SWITCH_FROM_IDLE : KIND_SWITCH_FROM_OTHER;
	if (pt) {
		bump(&counters, CNT_SWITCH_OUT, 1);
		if (ctx->args[3] == 0) /* TASK_RUNNING: preempted, not blocked */
			bump(&counters, CNT_PREEMPTED, 1);
	}
	if (nt)
		bump(&counters, CNT_SWITCH_IN, 1);
	__u64 now = bpf_ktime_get_ns();
	cut(s, k, now);
	if (k == KIND_SWITCH_FROM_OTHER)
		from_other(now);
	return 0;
}

/* sched_exit_tp(is_switch, ip): __schedule returns, in the task switched
 * to: the end of the context switch. */
SEC("raw_tracepoint/sched_exit_tp")
int ctxb_sched_exit(struct bpf_raw_tracepoint_args *ctx)
{
	event(KIND_SCHED_EXIT);
	return 0;
}

/* cpu_idle(state, cpu): the idle loop enters an idle state (HLT, an
 * ACPI or MWAIT C-state, polling) or, with PWR_EVENT_EXIT, has left it.
 * Recorded only on a CPU a tracked task left idle: there the idle exit is
 * part of the next hop. */
SEC("raw_tracepoint/cpu_idle")
int ctxb_cpu_idle(struct bpf_raw_tracepoint_args *ctx)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s || !s->idle || !recording(s))
		return 0;
	cut(s, (__u32)ctx->args[0] == PWR_EVENT_EXIT ? KIND_IDLE_EXIT : KIND_IDLE_ENTER, bpf_ktime_get_ns());
	return 0;
}

/* ipi_send_cpu(cpu, callsite, callback): a tracked task sends an IPI (on
 * a hop across CPUs, the wakeup's, to the wakee's idle CPU): a boundary of
 * the waker's timeline, and the start of the IPI's flight. */
SEC("raw_tracepoint/ipi_send_cpu")
int ctxb_ipi_send(struct bpf_raw_tracepoint_args *ctx)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s || !recording(s))
		return 0;
	__u64 now = bpf_ktime_get_ns();
	cut(s, KIND_IPI_SEND, now);
	if (capture_on)
		cap_handoff(s, now);
	__u32 target = (__u32)ctx->args[0];
	struct waking w = {.ts = now, .cpu = bpf_get_smp_processor_id(), .epoch = epoch};
	bpf_map_update_elem(&sent, &target, &w, BPF_ANY);
	return 0;
}

#if !defined(__TARGET_ARCH_arm64) /* x86-64's tracepoints, to the end of KVM */

/* --- memory and FPU ---------------------------------------------------- */

/* foreign_switch: the CPU is between a sched_switch to or from an
 * untracked task (or idle) and the next boundary. The TLB flush and FPU
 * save of such a switch are counted, not cut, so that the other task's
 * time stays one segment from the switch away to the switch back. */
static __always_inline int foreign_switch(struct cpu_state *s)
{
	__u8 k = s->last_kind;
	return k == KIND_SWITCH_TO_OTHER || k == KIND_SWITCH_FROM_OTHER ||
	       k == KIND_SWITCH_TO_IDLE || k == KIND_SWITCH_FROM_IDLE;
}

/* switch_event records an event of the switch window (TLB flush, FPU
 * save): a boundary within a tracked-to-tracked switch, a mark within a
 * switch to or from another task. */
static __always_inline int switch_event(__u32 k)
{
	if (paused)
		return 0;
	struct cpu_state *s = this_cpu();
	if (!s || !recording(s))
		return 0;
	if (foreign_switch(s))
		bump(&events, k, 1);
	else
		cut(s, k, bpf_ktime_get_ns());
	return 1;
}

/* tlb_flush(reason, pages): on a context switch (reason 0) switch_mm
 * fires it once per address-space switch, with pages TLB_FLUSH_ALL when it
 * flushed and 0 when the PCID kept the next mm's entries: the second is
 * counted apart, as TLB_KEPT_ON_SWITCH. */
SEC("raw_tracepoint/tlb_flush")
int ctxb_tlb_flush(struct bpf_raw_tracepoint_args *ctx)
{
	if (!switch_event(KIND_TLB_FLUSH))
		return 0;
	__u32 r = (__u32)ctx->args[0];
	if (r == 0 && ctx->args[1] == 0)
		r = TLB_KEPT_ON_SWITCH;
	bump(&tlb_reasons, r < NTLB_REASONS ? r : NTLB_REASONS - 1, 1);
	return 0;
}

/* x86_fpu_regs_deactivated(fpu): the outgoing task's FPU registers saved
 * in switch_to. */
SEC("raw_tracepoint/x86_fpu_regs_deactivated")
int ctxb_fpu_save(struct bpf_raw_tracepoint_args *ctx)
{
	switch_event(KIND_FPU_SAVE);
	return 0;
}

/* x86_fpu_regs_activated(fpu): the FPU registers restored on the way back
 * to user space (after the sys_exit tracepoint). */
SEC("raw_tracepoint/x86_fpu_regs_activated")
int ctxb_fpu_load(struct bpf_raw_tracepoint_args *ctx)
{
	event(KIND_FPU_LOAD);
	return 0;
}

/* --- KVM --------------------------------------------------------------- */

/* kvm_fpu(load): the guest FPU swapped in on KVM_RUN entry, out on return. */
SEC("raw_tracepoint/kvm_fpu")
int ctxb_kvm_fpu(struct bpf_raw_tracepoint_args *ctx)
{
	event(ctx->args[0] ? KIND_KVM_FPU_LOAD : KIND_KVM_FPU_UNLOAD);
	return 0;
}

/* kvm_entry(vcpu, immediate_exit): the guest is entered. */
SEC("raw_tracepoint/kvm_entry")
int ctxb_kvm_entry(struct bpf_raw_tracepoint_args *ctx)
{
	event(KIND_KVM_ENTRY);
	return 0;
}

/* kvm_exit(vcpu, isa): the guest has exited to the host kernel. The reason
 * is read where the backend keeps it: PVM's vcpu_pvm.exit_reason (the raw
 * tracepoint does not carry it; the formatted one computes it). */
SEC("raw_tracepoint/kvm_exit")
int ctxb_kvm_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = event(KIND_KVM_EXIT);
	if (!s)
		return 0;
	__u32 reason = NKVM_REASONS - 1;
	if (bpf_core_field_exists(struct vcpu_pvm, exit_reason)) {
		struct vcpu_pvm *v = (struct vcpu_pvm *)ctx->args[0];
		__u32 r = BPF_CORE_READ(v, exit_reason);
		reason = r < NKVM_REASONS - 1 ? r : NKVM_REASONS - 1;
	}
	s->kvm_reason = reason;
	__u32 key = CNT_KVM_ISA;
	__u64 *isa = bpf_map_lookup_elem(&counters, &key);
	if (isa)
		*isa = (__u32)ctx->args[1];
	return 0;
}

/* kvm_userspace_exit(reason, errno): KVM_RUN is about to return to the VMM. */
SEC("raw_tracepoint/kvm_userspace_exit")
int ctxb_kvm_uexit(struct bpf_raw_tracepoint_args *ctx)
{
	event(KIND_KVM_USERSPACE_EXIT);
	return 0;
}

#endif /* x86-64's tracepoints */

/* --- interrupts: nested intervals -------------------------------------- */

/* idle_ipi: an IPI that lands, outside any other interrupt, on the idle
 * task of a CPU a tracked task left idle: on a hop across CPUs it is the
 * wakeup's own IPI (or a reschedule), so it is a segment of the timeline
 * (KIND_IPI_IN to KIND_IPI_OUT), with the wakeup it carries cut inside. */
static __always_inline int idle_ipi(struct cpu_state *s, __u32 k)
{
	return (k == KIND_CALL_FUNC_IPI || k == KIND_RESCHED_IPI) && s->idle && s->tgid == 0 &&
	       s->irq_depth == 0 && !s->ipi_cut && s->last_kind != KIND_NONE;
}

static __always_inline void irq_enter(__u32 k)
{
	if (paused)
		return;
	struct cpu_state *s = this_cpu();
	if (!s)
		return;
	if (!recording(s)) {
		if (capture_on)
			cap_irq_enter(s, k); /* another task's interrupt: the capture's alone */
		return;
	}
	if (idle_ipi(s, k)) {
		__u64 now = bpf_ktime_get_ns();
		cut(s, KIND_IPI_IN, now); /* counted as KIND_IPI_IN, not k: one firing, one count */
		s->ipi_cut = 1;
		s->ipi_ts = now;
		s->ipi_sent = 0;
		__u32 cpu = bpf_get_smp_processor_id();
		struct waking *w = bpf_map_lookup_elem(&sent, &cpu);
		if (w && w->ts && w->epoch == epoch && w->cpu != cpu && now >= w->ts) {
			__u32 from = KIND_IPI_SEND;
			struct cell *c = bpf_map_lookup_elem(&cross, &from);
			if (c)
				add_to(c, now - w->ts);
			s->ipi_sent = 1;
			w->ts = 0;
		}
		return;
	}
	if (capture_on)
		cap_irq_enter(s, k);
	bump(&events, k, 1);
	if (s->last_kind == KIND_NONE)
		return; /* no segment to nest in yet */
	if (s->irq_depth++ == 0) {
		s->irq_start = bpf_ktime_get_ns();
		s->irq_kind = k;
	}
}

static __always_inline void irq_exit(void)
{
	if (paused)
		return;
	struct cpu_state *s = this_cpu();
	if (!s)
		return;
	if (capture_on)
		cap_irq_exit(s); /* an idle CPU's IPI, a segment of its own, left cap_depth at 0 */
	if (s->irq_depth == 0) {
		if (s->ipi_cut) {
			s->ipi_cut = 0;
			cut(s, KIND_IPI_OUT, bpf_ktime_get_ns());
		}
		return;
	}
	if (--s->irq_depth)
		return;
	__u64 d = bpf_ktime_get_ns() - s->irq_start;
	s->irq_ns += d;
	if (s->last_ctx < NCTX)
		add_cell(s->last_ctx, s->last_kind, s->irq_kind, d);
}

#define INTERRUPT(name, tp_entry, tp_exit, kind)                  \
	SEC("raw_tracepoint/" tp_entry)                           \
	int ctxb_##name##_in(struct bpf_raw_tracepoint_args *ctx) \
	{                                                         \
		irq_enter(kind);                                  \
		return 0;                                         \
	}                                                         \
	SEC("raw_tracepoint/" tp_exit)                            \
	int ctxb_##name##_out(struct bpf_raw_tracepoint_args *ctx) \
	{                                                         \
		irq_exit();                                       \
		return 0;                                         \
	}

#if defined(__TARGET_ARCH_arm64)

/* On arm64 an IPI is a per-CPU interrupt named "IPI" (arch/arm64/kernel/
 * smp.c) whose handler fires ipi_entry and ipi_exit with the IPI's name:
 * those say which IPI it is, so the interrupt itself is left to them (an
 * IPI on an idle CPU must open its segment at depth 0, as on x86). The
 * timer tick is the interrupt of "arch_timer". */
struct irqaction {
	const char *name;
} __attribute__((preserve_access_index));

/* irq_kind is the kind of irq_handler_entry/exit's interrupt (args[1] is
 * its irqaction), KIND_NONE for an IPI. */
static __always_inline __u32 irq_kind(struct bpf_raw_tracepoint_args *ctx)
{
	struct irqaction *a = (struct irqaction *)ctx->args[1];
	char n[12] = {};
	bpf_probe_read_kernel_str(n, sizeof(n), BPF_CORE_READ(a, name));
	if (n[0] == 'I' && n[1] == 'P' && n[2] == 'I' && n[3] == 0)
		return KIND_NONE;
	if (n[0] == 'a' && n[1] == 'r' && n[2] == 'c' && n[3] == 'h' && n[4] == '_' && n[5] == 't' &&
	    n[6] == 'i' && n[7] == 'm' && n[8] == 'e' && n[9] == 'r' && n[10] == 0)
		return KIND_TIMER;
	return KIND_IRQ;
}

SEC("raw_tracepoint/irq_handler_entry")
int ctxb_irq_in(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 k = irq_kind(ctx);
	if (k != KIND_NONE)
		irq_enter(k);
	return 0;
}

SEC("raw_tracepoint/irq_handler_exit")
int ctxb_irq_out(struct bpf_raw_tracepoint_args *ctx)
{
	if (irq_kind(ctx) != KIND_NONE)
		irq_exit();
	return 0;
}

#else /* x86-64: an interrupt vector, a tracepoint each */

INTERRUPT(irq, "irq_handler_entry", "irq_handler_exit", KIND_IRQ)

#endif

INTERRUPT(softirq, "softirq_entry", "softirq_exit", KIND_SOFTIRQ)

#if defined(__TARGET_ARCH_arm64)

/* ipi_kind is the kind of an IPI by the name ipi_entry/exit carry:
 * "Rescheduling interrupts", "Function call interrupts", "Timer broadcast
 * interrupts", "IRQ work interrupts"; any other (CPU stop, backtrace) is
 * an interrupt like any. */
static __always_inline __u32 ipi_kind(const char *reason)
{
	char r[4] = {};
	bpf_probe_read_kernel_str(r, sizeof(r), reason);
	if (r[0] == 'R' && r[1] == 'e')
		return KIND_RESCHED_IPI;
	if (r[0] == 'F' && r[1] == 'u')
		return KIND_CALL_FUNC_IPI;
	if (r[0] == 'T' && r[1] == 'i')
		return KIND_TIMER;
	if (r[0] == 'I' && r[1] == 'R')
		return KIND_IRQ_WORK;
	return KIND_IRQ;
}

/* ipi_entry(reason), ipi_exit(reason): the IPI's handler, on its CPU. */
SEC("raw_tracepoint/ipi_entry")
int ctxb_ipi_in(struct bpf_raw_tracepoint_args *ctx)
{
	irq_enter(ipi_kind((const char *)ctx->args[0]));
	return 0;
}

SEC("raw_tracepoint/ipi_exit")
int ctxb_ipi_out(struct bpf_raw_tracepoint_args *ctx)
{
	irq_exit();
	return 0;
}

#else

INTERRUPT(timer, "local_timer_entry", "local_timer_exit", KIND_TIMER)
INTERRUPT(resched, "reschedule_entry", "reschedule_exit", KIND_RESCHED_IPI)
INTERRUPT(callf, "call_function_entry", "call_function_exit", KIND_CALL_FUNC_IPI)
INTERRUPT(callfs, "call_function_single_entry", "call_function_single_exit", KIND_CALL_FUNC_IPI)
INTERRUPT(irqwork, "irq_work_entry", "irq_work_exit", KIND_IRQ_WORK)

#endif
