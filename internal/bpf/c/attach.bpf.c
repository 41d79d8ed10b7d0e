// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * attach.bpf.c: what switching costs a program that is already running
 * (ctxbench attach), aggregated in the kernel per target.
 *
 * A target is a set of processes ctxbench did not start (a pid's threads,
 * a cgroup's processes, or every task of the machine); the Go side fills
 * the set (targets, by TGID) and reads the per-CPU aggregates at the end of
 * each time window. Nothing is streamed.
 *
 * What is kept, per target and CPU (struct agg):
 *  - counts of its switches by kind: away from a task that blocked or was
 *    preempted (as the kernel's nvcsw/nivcsw count them), to a task woken
 *    from the same CPU or another, resumed after a preemption, new; to and
 *    from idle; who preempted it (the same target, a kernel thread,
 *    another process: by name in the preempters table); migrations;
 *  - the run-queue wait of each switch-in (from the wakeup, or from the
 *    preemption, to the switch), summed and in a log-linear histogram;
 *  - the direct cost of each switch: the time on its path, which runs on
 *    one CPU from the outgoing task's entry into the syscall it blocks in
 *    (or into __schedule when preempted) through sched_switch to the
 *    incoming task's return to user space, plus the wakeup that made the
 *    incoming task runnable (sched_waking to sched_wakeup on one CPU). The
 *    path's segments are added, as explain's matrices are, to a cell
 *    [slot that opened it][slot that closed it] (internal/phase reads them
 *    through its in-place model), and each switch's total to a histogram
 *    per class of switch.
 *
 * Tentative starts: a syscall entry opens a path that only counts if a
 * switch follows before the syscall returns; a syscall that returns
 * without switching drops it. The segments before the switch wait in the
 * CPU's state and are added at the switch.
 *
 * Cost: every program returns at once for a task of no target (a per-CPU
 * cache of the current task's target). Above rate_limit timed switches per
 * second on a CPU (0: none), further switches are only counted: no path,
 * no run-queue wait, no table of tasks touched, until the next 100 ms; the
 * counts stay exact and the timed ones are a sample of them.
 *
 * Only raw tracepoints (by name, no tracefs); interrupts that land inside
 * a path stay in it (no interrupt probe: they fire on every CPU).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "attach.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
	char comm[16];
} __attribute__((preserve_access_index));

#define PF_KTHREAD 0x00200000

struct seg {
	__u64 ns;
	__u64 count;
};

/* Everything one CPU recorded for one target. */
struct agg {
	__u64 cnt[NCOUNTERS];
	struct seg cell[NSLOT][NSLOT];
	struct seg cls[NCLASS];
	__u64 hpath[NCLASS][NHIST];
	__u64 hrunq[NRQ][NHIST];
	__u64 blocked[NSYS]; /* voluntary switches by the syscall blocked in (larger numbers in the last) */
};

/* A task of a target, between its events on different CPUs. */
enum tstate {
	TS_NONE = 0,
	TS_WOKEN,     /* runnable since a wakeup at ts */
	TS_PREEMPTED, /* runnable since it was preempted at ts */
	TS_NEW,       /* runnable since it was created at ts */
	TS_BLOCKED,
	TS_RUNNING,
};

struct task {
	__u32 tid;       /* whose slot it is */
	__u32 pad0;
	__u64 ts;        /* when it became runnable */
	__u64 waking_ts; /* its last sched_waking */
	__u32 wake_ns;   /* waking -> wakeup when both ran on one CPU */
	__u16 waker_cpu;
	__u16 last_cpu;  /* where it last ran (0xffff: not seen) */
	__u8 state;      /* enum tstate */
	__u8 in_sys;     /* preempted inside a syscall: the rest of it is not the switch's */
	__u8 pad[6];
};

/* A path in flight on a CPU. */
enum pstate {
	P_NONE = 0,
	P_PRE,  /* tentative: a syscall entry or __schedule, no switch yet */
	P_POST, /* after the switch, up to the incoming task's return */
};

struct cpu_state {
	/* The current task's target, cached: */
	__u32 cur_pid;
	__s32 cur_tgt; /* -1: none */
	__u32 cur_gen;
	__u32 sys_nr;  /* the syscall a tentative path began in */
	/* The path: */
	__u64 last_ts;
	__u64 pend_ns; /* a segment before the switch, waiting for it */
	__u64 a;       /* the outgoing side's time (before the switch) */
	__u64 sw;      /* the switch itself (to sched_exit) */
	__u64 b;       /* the incoming side's time (after it, and its wakeup) */
	__u8 path;     /* enum pstate */
	__u8 last;     /* the slot of the last boundary */
	__u8 pend_from, pend_to;
	__s8 tp, tn;   /* targets of the outgoing and the incoming task (-1: none) */
	__u8 out_cls, in_cls;
	__u8 sw_open;  /* the switch segment has not closed yet */
	__u8 pre_sys;  /* the tentative path began at a syscall entry */
	__u8 end_at_exit; /* the incoming task has no return of its own to add (see sched_exit) */
	__u8 pad[5];
	/* The rate limit: */
	__u64 rl_ts;
	__u32 rl_n;
	/* The last TGIDs looked up at a switch, and their targets (the
	 * lookup is the switch's costliest step for a set of TGIDs). */
	__u32 tc_gen;
	__u32 tc_tgid[2];
	__s32 tc_tgt[2];
};

/* ids is a task's pid and tgid, read at once: the two fields are
 * adjacent in every kernel's task_struct (checked at load time, else read
 * one by one). */
struct ids {
	__u32 pid, tgid;
};

struct preempter_key {
	__u32 tgt;
	__u32 tgid;
};

struct preempter {
	__u64 n;
	char comm[16];
};

/* Set before loading. */
const volatile __u32 all_tasks = 0; /* every task but idle and ctxbench itself is target 0 */
const volatile __u32 self_tgid = 0; /* ctxbench: never a target */
const volatile __u32 rate_limit = 0; /* timed switches per CPU per second; 0: every one */
const volatile __u32 full = 0; /* the full probe set: the syscall's entry and return are boundaries too */

/* Set while loaded. */
volatile __u32 gen;           /* bumped when the target set changes */
volatile __u32 fpu_attached;  /* the FPU restore ends a path (else sys_exit does) */
volatile __u32 exit_attached; /* sched_exit_tp closes the switch segment */
volatile __u64 untimed_ts;  /* the last time a CPU left a switch untimed */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);   /* TGID */
	__type(value, __u32); /* target index */
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_TARGETS);
	__type(key, __u32);
	__type(value, struct agg);
} aggs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} state SEC(".maps");

/* The targets' tasks, a slot each by the low bits of the TID: a table
 * whose lookup the verifier turns into an address (a hash table's costs
 * most of a switch's budget here). Two tasks that share a slot take it in
 * turn; a switch-in that finds another task's state there is counted
 * (C_STATE_MISS) and its wait not timed. */
#define NTASKS 65536
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NTASKS);
	__type(key, __u32);
	__type(value, struct task);
} tasks SEC(".maps");

/* task_slot is tid's slot, claimed for it when claim is set (a write of
 * its state: a switch away, a wakeup), else only if it is tid's (a read). */
static __always_inline struct task *task_slot(__u32 tid, int claim)
{
	__u32 k = tid & (NTASKS - 1);
	struct task *t = bpf_map_lookup_elem(&tasks, &k);
	if (!t)
		return 0;
	if (t->tid != tid) {
		if (!claim)
			return 0;
		__builtin_memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->last_cpu = 0xffff;
	}
	return t;
}

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct preempter_key);
	__type(value, struct preempter);
} preempters SEC(".maps");

/* Exported for bpf2go (-type): the enums the Go side names. */
const enum slot unused_slot __attribute__((unused));
const enum class unused_class __attribute__((unused));
const enum rq unused_rq __attribute__((unused));
const enum counter unused_counter __attribute__((unused));

static __always_inline struct cpu_state *this_cpu(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&state, &zero);
}

static __always_inline struct agg *agg_of(__s32 t)
{
	if (t < 0 || t >= MAX_TARGETS)
		return 0;
	__u32 k = t;
	return bpf_map_lookup_elem(&aggs, &k);
}

static __always_inline void count(struct agg *g, __u32 c, __u64 n)
{
	if (g && c < NCOUNTERS)
		g->cnt[c] += n;
}

/* target_of is the target a TGID belongs to, -1 for none. */
static __always_inline __s32 target_of(__u32 pid, __u32 tgid)
{
	if (pid == 0 || tgid == self_tgid)
		return -1;
	if (all_tasks)
		return 0;
	__u32 *t = bpf_map_lookup_elem(&targets, &tgid);
	if (!t || *t >= MAX_TARGETS)
		return -1;
	return (__s32)*t;
}


static __always_inline struct ids ids_of(struct task_struct *p)
{
	struct ids v = {};
	if (bpf_core_field_offset(struct task_struct, tgid) == bpf_core_field_offset(struct task_struct, pid) + 4) {
		bpf_core_read(&v, sizeof(v), &p->pid);
	} else {
		v.pid = BPF_CORE_READ(p, pid);
		v.tgid = BPF_CORE_READ(p, tgid);
	}
	return v;
}

/* cached_target is target_of through the CPU's two-entry cache. */
static __always_inline __s32 cached_target(struct cpu_state *s, struct ids v)
{
	if (v.pid == 0 || all_tasks)
		return target_of(v.pid, v.tgid);
	__u32 g = gen;
	if (s->tc_gen != g) {
		s->tc_gen = g;
		s->tc_tgid[0] = s->tc_tgid[1] = 0;
	}
	if (s->tc_tgid[0] == v.tgid)
		return s->tc_tgt[0];
	if (s->tc_tgid[1] == v.tgid)
		return s->tc_tgt[1];
	__s32 t = target_of(v.pid, v.tgid);
	s->tc_tgid[1] = s->tc_tgid[0];
	s->tc_tgt[1] = s->tc_tgt[0];
	s->tc_tgid[0] = v.tgid;
	s->tc_tgt[0] = t;
	return t;
}

/* current_target caches the current task's target per CPU: most events
 * come from the task that ran the last one, and the syscall probes run on
 * every syscall of the machine. */
static __always_inline __s32 current_target(struct cpu_state *s)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)id, g = gen;
	if (s->cur_pid == pid && s->cur_gen == g && pid != 0)
		return s->cur_tgt;
	s->cur_pid = pid;
	s->cur_gen = g;
	s->cur_tgt = target_of(pid, id >> 32);
	return s->cur_tgt;
}

/* hbucket: 0-7 one bucket each; above, four buckets per power of two
 * (bounds (4+i)*2^(m-2) for the value's top bit m), the last open-ended. */
static __always_inline __u32 hbucket(__u64 v)
{
	if (v < 8)
		return (__u32)v;
	__u32 m = 0;
	__u64 x = v;
	if (x >> 32) {
		x >>= 32;
		m += 32;
	}
	if (x >> 16) {
		x >>= 16;
		m += 16;
	}
	if (x >> 8) {
		x >>= 8;
		m += 8;
	}
	if (x >> 4) {
		x >>= 4;
		m += 4;
	}
	if (x >> 2) {
		x >>= 2;
		m += 2;
	}
	if (x >> 1)
		m += 1;
	__u32 i = 8 + (m - 3) * 4 + (__u32)((v >> (m - 2)) & 3);
	return i < NHIST ? i : NHIST - 1;
}

static __always_inline void add_cell(__s32 t, __u32 from, __u32 to, __u64 ns)
{
	struct agg *g = agg_of(t);
	if (!g || from >= NSLOT || to >= NSLOT)
		return;
	g->cell[from][to].ns += ns;
	g->cell[from][to].count++;
}

static __always_inline void add_class(__s32 t, __u32 c, __u64 ns)
{
	struct agg *g = agg_of(t);
	if (!g || c >= NCLASS)
		return;
	g->cls[c].ns += ns;
	g->cls[c].count++;
	g->hpath[c][hbucket(ns)]++;
}

static __always_inline __u64 span(__u64 from, __u64 to, __s32 t)
{
	if (to >= from)
		return to - from;
	count(agg_of(t), C_MISORDERED, 1);
	return 0;
}

/* finish adds a path's time to the classes of the targets it ran for: the
 * outgoing task's target gets what ran before the switch and the switch;
 * the incoming task's target what ran after it and its wakeup (and the
 * switch, when the outgoing task is no target's); one target on both sides
 * gets the whole path under both classes. */
static __always_inline void finish(struct cpu_state *s)
{
	if (s->path != P_POST)
		return;
	s->path = P_NONE;
	__s32 tp = s->tp, tn = s->tn;
	if (tp >= 0) {
		__u64 v = s->a + s->sw + (tn == tp ? s->b : 0);
		add_class(tp, s->out_cls, v);
		count(agg_of(tp), C_PATHS, 1);
	}
	if (tn >= 0) {
		__u64 v = s->b + (tp < 0 ? s->sw : 0) + (tn == tp ? s->a + s->sw : 0);
		add_class(tn, s->in_cls, v);
		if (tn != tp)
			count(agg_of(tn), C_PATHS, 1);
	}
}

/* cut_post closes a segment after the switch at now and opens one at k. */
static __always_inline void cut_post(struct cpu_state *s, __u32 k, __u64 now)
{
	__s32 owner = s->sw_open ? (s->tp >= 0 ? s->tp : s->tn) : s->tn;
	__u64 d = span(s->last_ts, now, owner);
	add_cell(owner, s->last, k, d);
	if (s->sw_open)
		s->sw += d;
	else
		s->b += d;
	s->sw_open = 0;
	s->last = k;
	s->last_ts = now;
}

/* --- syscalls ----------------------------------------------------------- */

/* sys_enter(regs, id): a target's task enters a syscall; if it blocks in
 * it, its path begins here. */
SEC("raw_tracepoint/sys_enter")
int ctxb_in_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s || current_target(s) < 0)
		return 0;
	if (s->rl_n > 0 && rate_limit && s->rl_n > rate_limit / 10)
		return 0; /* untimed until the next 100 ms */
	__u64 now = bpf_ktime_get_ns();
	if (s->path == P_POST) {
		/* Back in user space unseen (no FPU restore, no sys_exit on the
		 * way): the path's end is lost. */
		count(agg_of(s->tn), C_PATH_OPEN, 1);
		finish(s);
	}
	s->path = P_PRE;
	s->pre_sys = 1;
	s->last = SL_SYS_ENTER;
	s->last_ts = now;
	s->pend_from = SL_NONE;
	s->sys_nr = (__u32)ctx->args[1];
	return 0;
}

/* sys_exit(regs, ret): a syscall returns. Before a switch: it did not
 * switch, its tentative path is dropped. After one: the incoming task's
 * syscall returns (the path ends here without the FPU probe). */
SEC("raw_tracepoint/sys_exit")
int ctxb_in_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s || s->path == P_NONE)
		return 0;
	if (s->path == P_PRE) {
		s->path = P_NONE; /* the syscall returns without a switch */
		return 0;
	}
	/* sys_exit is attached with the full set, or where there is no FPU
	 * probe or no sched_entry_tp (then sys_enter opens the paths). */
	if (s->tn < 0 || (fpu_attached && !full) || current_target(s) != s->tn)
		return 0;
	cut_post(s, SL_SYS_EXIT, bpf_ktime_get_ns());
	if (!fpu_attached)
		finish(s);
	return 0;
}

/* --- the scheduler ------------------------------------------------------ */

/* sched_entry_tp(preempt, ip): __schedule begins in the current task. */
SEC("raw_tracepoint/sched_entry_tp")
int ctxb_in_sched_entry(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s || current_target(s) < 0)
		return 0;
	if (s->rl_n > 0 && rate_limit && s->rl_n > rate_limit / 10)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	if (s->path == P_PRE && s->pend_from == SL_NONE && s->last == SL_SYS_ENTER) {
		s->pend_from = SL_SYS_ENTER;
		s->pend_to = SL_SCHED_ENTRY;
		s->pend_ns = span(s->last_ts, now, s->cur_tgt);
		s->last = SL_SCHED_ENTRY;
		s->last_ts = now;
		return 0;
	}
	if (s->path == P_POST) {
		/* Switched in and scheduling again before returning to user
		 * space: the task's kernel work since the last boundary is its
		 * own (a syscall that blocks again), not the switch's. That path
		 * ends at its last boundary; the next begins. */
		count(agg_of(s->tn), C_PATH_OPEN, 1);
		finish(s);
	}
	s->path = P_PRE;
	s->pre_sys = 0;
	s->last = SL_SCHED_ENTRY;
	s->last_ts = now;
	s->pend_from = SL_NONE;
	return 0;
}

/* timed decides whether this switch is timed: at most rate_limit per
 * second per CPU, counted in 100 ms windows. */
static __always_inline int timed(struct cpu_state *s, __u64 now)
{
	if (!rate_limit)
		return 1;
	if (now - s->rl_ts > 100000000ull) {
		s->rl_ts = now;
		s->rl_n = 0;
	}
	s->rl_n++;
	if (s->rl_n <= rate_limit / 10)
		return 1;
	untimed_ts = now;
	return 0;
}

/* switch_out updates the outgoing task's state and counts how it left. */
static __always_inline void switch_out(struct agg *g, __s32 tp, __s32 tn, __u32 tid, __u32 npid, __u32 ntgid,
				       struct task_struct *next, int vol, int in_sys, int is_timed, __u64 now, __u32 cpu)
{
	count(g, vol ? C_OUT_VOLUNTARY : C_OUT_INVOLUNTARY, 1);
	if (npid == 0)
		count(g, C_OUT_TO_IDLE, 1);
	if (!vol && npid != 0) {
		/* Who preempted it: another task of the target, of another
		 * target, a kernel thread or another process (those two by
		 * name in the preempters table). */
		if (tn == tp) {
			count(g, C_PREEMPT_BY_SAME, 1);
			goto task;
		}
		if (tn >= 0) {
			count(g, C_PREEMPT_BY_TARGET, 1);
			goto task;
		}
		count(g, (BPF_CORE_READ(next, flags) & PF_KTHREAD) ? C_PREEMPT_BY_KTHREAD : C_PREEMPT_BY_OTHER, 1);
		struct preempter_key k = {.tgt = (__u32)tp, .tgid = ntgid};
		struct preempter *p = bpf_map_lookup_elem(&preempters, &k);
		if (p) {
			__sync_fetch_and_add(&p->n, 1);
		} else {
			struct preempter v = {.n = 1};
			BPF_CORE_READ_STR_INTO(&v.comm, next, comm);
			bpf_map_update_elem(&preempters, &k, &v, BPF_NOEXIST);
		}
	}
task:
	if (!is_timed)
		return;
	struct task *t = task_slot(tid, 1);
	if (!t)
		return;
	t->last_cpu = (__u16)cpu;
	t->state = vol ? TS_BLOCKED : TS_PREEMPTED;
	t->in_sys = !vol && in_sys;
	t->ts = now;
}

/* switch_in reads the incoming task's state: how it became runnable, its
 * run-queue wait, whether it moved CPU; its wakeup's time joins the path. */
static __always_inline __u32 switch_in(struct cpu_state *s, struct agg *g, __s32 tn, __u32 tid, __u64 now,
				       __u32 cpu)
{
	count(g, C_IN_TIMED, 1);
	struct task *t = task_slot(tid, 0);
	if (!t || t->ts <= untimed_ts) {
		count(g, C_STATE_MISS, 1);
		if (t)
			t->state = TS_RUNNING;
		return CL_UNKNOWN;
	}
	__u32 cls = CL_UNKNOWN, rq = NRQ;
	switch (t->state) {
	case TS_WOKEN:
		if (t->waker_cpu == cpu) {
			cls = CL_WOKEN_SAME;
			rq = RQ_WOKEN_SAME;
		} else {
			cls = CL_WOKEN_CROSS;
			rq = RQ_WOKEN_CROSS;
		}
		break;
	case TS_PREEMPTED:
		cls = CL_RESUMED;
		rq = RQ_PREEMPTED;
		/* Preempted inside a syscall, it goes on with that syscall's
		 * work: its path ends when __schedule returns. */
		s->end_at_exit |= t->in_sys;
		break;
	case TS_NEW:
		cls = CL_NEW;
		rq = RQ_NEW;
		break;
	}
	if (rq < NRQ && g) {
		__u64 w = now >= t->ts ? now - t->ts : 0;
		g->cnt[C_RUNQ_NS_0 + rq] += w;
		g->cnt[C_RUNQ_N_0 + rq]++;
		g->hrunq[rq][hbucket(w)]++;
	}
	if (t->last_cpu != 0xffff && t->last_cpu != cpu)
		count(g, C_MIGRATED, 1);
	if (t->state == TS_WOKEN && t->wake_ns) {
		add_cell(tn, SL_WAKING, SL_WAKEUP, t->wake_ns);
		s->b += t->wake_ns;
		count(g, C_WAKE_NS, t->wake_ns);
		count(g, C_WAKE_N, 1);
	}
	t->wake_ns = 0;
	t->state = TS_RUNNING;
	t->last_cpu = (__u16)cpu;
	return cls;
}

/* sched_switch(preempt, prev, next, prev_state): the switch. It closes
 * the outgoing side of the path (its pending segments are added now) and
 * opens the switch segment. */
SEC("raw_tracepoint/sched_switch")
int ctxb_in_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s)
		return 0;
	struct task_struct *prev = (struct task_struct *)ctx->args[1];
	struct task_struct *next = (struct task_struct *)ctx->args[2];
	struct ids pv = ids_of(prev), nv = ids_of(next);
	__u32 ppid = pv.pid, npid = nv.pid;
	__s32 tp = cached_target(s, pv);
	__s32 tn = cached_target(s, nv);
	/* next runs from here: the cache follows it. */
	s->cur_pid = npid;
	s->cur_gen = gen;
	s->cur_tgt = tn;
	if (tp < 0 && tn < 0) {
		/* With every task a target, only ctxbench's own switches are none:
		 * its switches away it counts itself; from idle to it, here. */
		if (all_tasks && ppid == 0 && nv.tgid == self_tgid)
			count(agg_of(0), C_SELF_FROM_IDLE, 1);
		s->path = P_NONE;
		return 0;
	}
	__u64 now = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	if (s->path == P_POST) {
		/* The last switch's incoming task switches away before its
		 * return: its path ends at this switch. */
		count(agg_of(s->tn), C_PATH_OPEN, 1);
		finish(s);
	}
	int is_timed = timed(s, now);
	/* prev_state 0 (TASK_RUNNING), or a preemption: an involuntary
	 * switch, as __schedule counts nivcsw. A preemption (preempt set:
	 * preempt_schedule, cond_resched) happens in the kernel: the task
	 * was inside a syscall (or a kernel thread), not on its way out to
	 * user space, where schedule() is called without it. */
	int preempt = ctx->args[0] != 0;
	int vol = !preempt && (__u32)ctx->args[3] != 0;
	int in_sys = preempt || (s->path == P_PRE && s->pre_sys);
	struct agg *gp = agg_of(tp), *gn = tp == tn ? gp : agg_of(tn);
	if (tp >= 0) {
		switch_out(gp, tp, tn, ppid, npid, nv.tgid, next, vol, in_sys, is_timed, now, cpu);
		count(gp, is_timed ? C_TIMED : C_UNTIMED, 1);
	}
	if (tn >= 0) {
		count(gn, C_IN, 1);
		if (ppid == 0)
			count(gn, C_IN_FROM_IDLE, 1);
	}
	if (!is_timed) {
		s->path = P_NONE;
		return 0;
	}
	__u32 k;
	if (tp >= 0 && tn >= 0)
		k = SL_SWITCH;
	else if (tp >= 0)
		k = npid == 0 ? SL_SWITCH_TO_IDLE : SL_SWITCH_TO_OTHER;
	else
		k = ppid == 0 ? SL_SWITCH_FROM_IDLE : SL_SWITCH_FROM_OTHER;
	/* The outgoing side: its pending segments, if its path was seen. */
	s->a = 0;
	/* A task preempted inside a syscall: the syscall's work before the
	 * preemption is not the switch's, only __schedule is. */
	int skip_sys = !vol && s->pre_sys;
	if (tp >= 0 && s->path == P_PRE && !(skip_sys && s->last == SL_SYS_ENTER)) {
		if (s->pend_from != SL_NONE && !skip_sys) {
			add_cell(tp, s->pend_from, s->pend_to, s->pend_ns);
			s->a += s->pend_ns;
		}
		__u64 d = span(s->last_ts, now, tp);
		add_cell(tp, s->last, k, d);
		s->a += d;
		if (vol && s->pre_sys && gp)
			gp->blocked[s->sys_nr < NSYS ? s->sys_nr : NSYS - 1]++;
	}
	s->path = P_POST;
	s->tp = (__s8)tp;
	s->tn = (__s8)tn;
	s->out_cls = vol ? CL_VOLUNTARY : CL_INVOLUNTARY;
	s->in_cls = CL_UNKNOWN;
	s->sw = 0;
	s->b = 0;
	s->sw_open = 1;
	s->last = k;
	s->last_ts = now;
	/* A kernel thread never returns to user space: its path ends when
	 * __schedule returns in it. */
	s->end_at_exit = tn >= 0 && all_tasks && (BPF_CORE_READ(next, flags) & PF_KTHREAD) != 0;
	if (tn >= 0)
		s->in_cls = switch_in(s, gn, tn, npid, now, cpu);
	/* Without sched_exit_tp, a path that would end there ends here: the
	 * switch itself is then not timed apart from what follows. */
	if (!exit_attached && (tn < 0 || s->end_at_exit))
		finish(s);
	return 0;
}

/* sched_exit_tp(is_switch, ip): __schedule returns in the task switched
 * to: the switch segment closes. Without a switch (schedule() picked the
 * same task) a tentative path is dropped. */
SEC("raw_tracepoint/sched_exit_tp")
int ctxb_in_sched_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s || s->path == P_NONE)
		return 0;
	if (s->path == P_PRE) {
		if (!ctx->args[0])
			s->path = P_NONE;
		return 0;
	}
	if (!s->sw_open)
		return 0;
	cut_post(s, SL_SCHED_EXIT, bpf_ktime_get_ns());
	/* An incoming task of no target: its return is not the path's; a
	 * kernel thread, or a task resumed inside a syscall: see switch_in. */
	if (s->tn < 0 || s->end_at_exit)
		finish(s);
	return 0;
}

#if !defined(__TARGET_ARCH_arm64)
/* x86_fpu_regs_activated(fpu): the incoming task's FPU registers restored
 * on its way to user space: the path's end. (arm64 restores its FPSIMD
 * registers untraced: there sys_exit and sched_exit_tp end paths.) */
SEC("raw_tracepoint/x86_fpu_regs_activated")
int ctxb_in_fpu_load(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s || s->path != P_POST || s->tn < 0 || current_target(s) != s->tn)
		return 0;
	cut_post(s, SL_FPU_LOAD, bpf_ktime_get_ns());
	finish(s);
	return 0;
}
#endif

/* --- wakeups ------------------------------------------------------------ */

/* sched_waking(p): a target's task is being woken, in the waker's
 * context: where and when, for its switch-in. */
SEC("raw_tracepoint/sched_waking")
int ctxb_in_waking(struct bpf_raw_tracepoint_args *ctx)
{
	struct cpu_state *s = this_cpu();
	if (!s)
		return 0;
	struct task_struct *p = (struct task_struct *)ctx->args[0];
	struct ids v = ids_of(p);
	__u32 tid = v.pid;
	__s32 t = cached_target(s, v);
	if (t < 0)
		return 0;
	struct agg *g = agg_of(t);
	count(g, C_WAKEUPS, 1);
	if (current_target(s) == t)
		count(g, C_WAKEUPS_BY_SAME, 1);
	if (rate_limit && s->rl_n > rate_limit / 10)
		return 0;
	struct task *tk = task_slot(tid, 1);
	if (!tk)
		return 0;
	tk->waking_ts = bpf_ktime_get_ns();
	tk->waker_cpu = (__u16)bpf_get_smp_processor_id();
	return 0;
}

/* sched_wakeup(p) and sched_wakeup_new(p): the task is runnable. */
static __always_inline void wakeup(struct bpf_raw_tracepoint_args *ctx, __u8 st)
{
	struct cpu_state *s = this_cpu();
	if (!s)
		return;
	struct task_struct *p = (struct task_struct *)ctx->args[0];
	struct ids v = ids_of(p);
	__u32 tid = v.pid;
	__s32 t = cached_target(s, v);
	if (t < 0)
		return;
	struct task *tk = task_slot(tid, st == TS_NEW);
	if (!tk)
		return;
	__u64 now = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	tk->ts = now;
	tk->state = st;
	tk->wake_ns = 0;
	if (st != TS_WOKEN || !tk->waking_ts)
		return;
	if (tk->waker_cpu == cpu && now >= tk->waking_ts && now - tk->waking_ts < 1000000000ull)
		tk->wake_ns = (__u32)(now - tk->waking_ts);
	else if (tk->waker_cpu != cpu)
		count(agg_of(t), C_WAKE_REMOTE, 1);
	tk->waking_ts = 0;
}

SEC("raw_tracepoint/sched_wakeup")
int ctxb_in_wakeup(struct bpf_raw_tracepoint_args *ctx)
{
	wakeup(ctx, TS_WOKEN);
	return 0;
}

SEC("raw_tracepoint/sched_wakeup_new")
int ctxb_in_wakeup_new(struct bpf_raw_tracepoint_args *ctx)
{
	wakeup(ctx, TS_NEW);
	return 0;
}
