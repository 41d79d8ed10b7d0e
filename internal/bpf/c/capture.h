/*
 * capture.h: the flight recorder of the hop tracer (ctxbench explain and
 * ctxbench load with --capture-above). Included by hop.bpf.c, after its
 * per-CPU state and before cut(), which feeds it.
 *
 * Why this shape: the matrices add every hop up, so a slow hop is a few
 * nanoseconds in a sum. To say where one slow hop's time went, each CPU
 * keeps a small ring of what just happened on it — the segments cut()
 * closes (the same transitions the matrices add up: the phase models read
 * them), the interrupts (whoever they landed on), and every sched_switch
 * with the next task's pid and name — and a hop is followed from its
 * waker's syscall entry (sched_waking of a tracked task, in a tracked
 * task's syscall) to the wakee's return from its syscall. When that hop
 * took longer than the threshold (or is one of every Nth, the sample that
 * makes typical hops), the recent part of the rings of the CPUs it crossed
 * is copied out, in the kernel, to a BPF ring buffer (or, on kernels
 * without one, a perf event array), with the hop's own times. User space
 * reads them after the block (so that nothing reads while the hops run) and
 * attributes each piece with the same phase models as the matrices.
 *
 * The cost: with capture_on 0 (a load-time constant) the verifier removes
 * every branch below, so a tracer without capture runs the programs it ran
 * before. With it, each recorded event also writes a ring entry, and each
 * copied hop costs the copy, which is timed and taken out of the segment it
 * lands in as an interrupt's time is (and counted: CAP_NS).
 */
#ifndef CTXB_CAPTURE_H
#define CTXB_CAPTURE_H

/* Set from Go before load (rodata): capture compiled in or out, and how a
 * copied hop leaves the kernel (a ring buffer, else a perf event array),
 * and whether another CPU's ring can be read (bpf_map_lookup_percpu_elem,
 * Linux 5.19+). */
const volatile __u32 capture_on = 0;
const volatile __u32 use_ringbuf = 1;
const volatile __u32 cross_copy = 1;

/* Set from Go between windows: the absolute threshold in ns (0: relative,
 * the running estimate below), the relative one's down-step period (k for
 * the p = k/(k+1) quantile: 99 for p99), the hops each CPU sees before a
 * relative threshold counts, and every how many hops one is copied out as
 * a sample (0: none). */
volatile __u64 cap_abs_ns;
volatile __u64 cap_wake_kinds;  /* syscall entry kinds a hop may begin in (bit per kind; 0: any) */
volatile __u64 cap_sleep_kinds; /* syscall exit kinds it may end at */
volatile __u32 cap_k;
volatile __u32 cap_warmup;
volatile __u32 cap_every;

/* What a ring entry is. */
enum cap_ent_type {
	ENT_SEG = 1,    /* a segment cut() closed: ctx, from, to, its start and length */
	ENT_IRQ = 2,    /* an interrupt (outermost), whoever it landed on: from is its kind */
	ENT_SWITCH = 3, /* sched_switch: tid and comm are the next task's; from/to: prev/next tracked */
};

struct cap_ent {
	__u64 ts;       /* the segment's or interrupt's start; the switch's time */
	__u32 wall;     /* its length on the clock (segments, interrupts) */
	__u32 ns;       /* a segment's length less the interrupts recorded inside it */
	__u32 tid;      /* the task that opened the segment; the next task of a switch */
	__u8 type;
	__u8 ctx;
	__u8 from;
	__u8 to;
	char comm[16];  /* the next task's name (switches) */
};

#define NLOG 256  /* entries per CPU (a power of two) */
#define NCOPY 160 /* entries copied out per CPU and hop */

struct cap_log {
	__u64 head; /* entries written since load */
	struct cap_ent e[NLOG];
};

/* A hop in flight, by the wakee's TID. */
struct cap_hop {
	__u64 start;     /* the waker's syscall entry */
	__u64 tw;        /* sched_waking */
	__u64 h1;        /* the waker's last event on the hop's path: the IPI's send, or sched_wakeup on its CPU (0: neither) */
	__u32 waker_cpu;
	__u32 waker_tid;
	__s32 prev_cpu;  /* the CPU the wakee last ran on (-1: not known) */
	__u32 epoch;
};

/* Flags of a copied hop. */
#define CAP_SLOW 1   /* past the threshold */
#define CAP_SAMPLE 2 /* one of every cap_every hops */

struct cap_hdr {
	__u64 start, end, tw, h1;
	__u64 threshold; /* the threshold this hop was judged against (0 in the warm-up) */
	__u64 seq;       /* this CPU's hop count when it ended */
	__u32 waker_cpu, wakee_cpu;
	__u32 waker_tid, wakee_tid;
	__s32 prev_cpu;
	__u32 flags;
	__u32 n[2];      /* entries copied: [0] the wakee's CPU, [1] the waker's when another */
};

struct cap_rec {
	struct cap_hdr h;
	struct cap_ent e[2][NCOPY];
};

/* The counters, per CPU. */
enum cap_counter {
	CAP_HOPS = 0,    /* hops ended */
	CAP_WARM,        /* of them, in a relative threshold's warm-up */
	CAP_PAST,        /* past the threshold */
	CAP_OUT_SLOW,    /* copied out as slow */
	CAP_OUT_SAMPLE,  /* copied out as samples only */
	CAP_LOST_SLOW,   /* slow hops the buffer refused (full) */
	CAP_LOST_SAMPLE, /* samples the buffer refused */
	CAP_NS,          /* time spent copying */
	CAP_STALE,       /* hops begun before the window, or ending in another syscall than the benchmark's */
	CAP_NCOUNTERS_,
};
#define NCAPCOUNTERS 10

/* Hop lengths, all hops: 16 sub-buckets per power of two from 2^4 ns
 * (bucket i < 16: [i, i+1) ns; above, octave (i>>4) and the next four bits). */
#define NCAPHIST 560

/* The estimate of the relative threshold, per CPU. */
struct cap_est {
	__u64 est;   /* ns */
	__u32 below; /* hops at or below it since the last down-step */
	__u32 seen;  /* hops ended since the window began */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_log);
} cap_logs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct cap_hop);
} cap_hops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_rec);
} cap_scratch SEC(".maps");

/* The copied hops. Its type is set from Go before load: BPF_MAP_TYPE_RINGBUF
 * (max_entries its size), or BPF_MAP_TYPE_PERF_EVENT_ARRAY where the kernel
 * has no ring buffer (5.8+). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} cap_out SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NCAPCOUNTERS);
	__type(key, enum cap_counter);
	__type(value, __u64);
} cap_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NCAPHIST);
	__type(key, __u32);
	__type(value, __u64);
} cap_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_est);
} cap_ests SEC(".maps");

static __always_inline struct cap_ent *cap_next(void)
{
	__u32 zero = 0;
	struct cap_log *l = bpf_map_lookup_elem(&cap_logs, &zero);
	if (!l)
		return 0;
	struct cap_ent *e = &l->e[l->head & (NLOG - 1)];
	l->head++;
	return e;
}

/* cap_seg logs a segment cut() closed. */
static __always_inline void cap_seg(__u32 ctx, __u32 from, __u32 to, __u64 start, __u64 now, __u64 ns, __u32 tid)
{
	struct cap_ent *e = cap_next();
	if (!e)
		return;
	/* A probe that read the clock and was interrupted before it swapped the
	 * state (on a guest, the host can stop a vCPU there for microseconds)
	 * closes a segment that began after it: length 0, as the matrices
	 * count it (CNT_MISORDERED). */
	__u64 wall = now > start ? now - start : 0;
	e->ts = start;
	e->wall = wall > 0xffffffffull ? 0xffffffffu : (__u32)wall;
	e->ns = ns > 0xffffffffull ? 0xffffffffu : (__u32)ns;
	e->tid = tid;
	e->type = ENT_SEG;
	e->ctx = ctx;
	e->from = from;
	e->to = to;
}

/* cap_switch logs a sched_switch of any two tasks. */
static __always_inline void cap_switch(struct task_struct *next, int pt, int nt, __u64 now)
{
	struct cap_ent *e = cap_next();
	if (!e)
		return;
	e->ts = now;
	e->wall = 0;
	e->ns = 0;
	e->tid = BPF_CORE_READ(next, pid);
	e->type = ENT_SWITCH;
	e->ctx = 0;
	e->from = pt;
	e->to = nt;
	bpf_core_read(e->comm, sizeof(e->comm), &next->comm);
}

/* cap_irq_enter and cap_irq_exit follow interrupts whoever they land on
 * (the matrices nest them only while recording) and log the outermost. */
static __always_inline void cap_irq_enter(struct cpu_state *s, __u32 k)
{
	if (s->cap_depth++ == 0) {
		s->cap_irq_start = bpf_ktime_get_ns();
		s->cap_irq_kind = k;
	}
}

static __always_inline void cap_irq_exit(struct cpu_state *s)
{
	if (s->cap_depth == 0 || --s->cap_depth)
		return;
	__u64 now = bpf_ktime_get_ns();
	struct cap_ent *e = cap_next();
	if (!e || now < s->cap_irq_start)
		return;
	__u64 d = now - s->cap_irq_start;
	e->ts = s->cap_irq_start;
	e->wall = d > 0xffffffffull ? 0xffffffffu : (__u32)d;
	e->ns = e->wall;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->type = ENT_IRQ;
	e->ctx = 0;
	e->from = s->cap_irq_kind;
	e->to = 0;
}

/* cap_begin: the current task, in its syscall and not in an interrupt,
 * wakes the tracked task p: a hop begins at that syscall's entry. The
 * first wakeup wins (a second one of a task not yet running is the same
 * hop). */
static __always_inline void cap_begin(struct cpu_state *s, struct task_struct *p, __u32 tid, __u64 now)
{
	__u32 cur = (__u32)bpf_get_current_pid_tgid();
	if (!current_tracked(s) || s->irq_depth || s->cap_depth || s->sys_tid != cur || !cur)
		return;
	__u64 kinds = cap_wake_kinds;
	if (kinds && !((kinds >> (s->sys_kind & 63)) & 1))
		return; /* not the benchmark's wake call (the Go runtime's futexes, ...) */
	struct cap_hop h = {.start = s->sys_ts, .tw = now, .waker_cpu = bpf_get_smp_processor_id(), .waker_tid = cur,
			    .prev_cpu = -1, .epoch = epoch};
	if (bpf_core_field_exists(p->cpu))
		h.prev_cpu = BPF_CORE_READ(p, cpu);
	bpf_map_update_elem(&cap_hops, &tid, &h, BPF_NOEXIST);
	s->cap_wtid = tid;
}

/* cap_handoff: the waker's CPU sent an IPI for the wakeup it is making, or
 * completed it itself: the hop's path leaves this CPU here. */
static __always_inline void cap_handoff(struct cpu_state *s, __u64 now)
{
	__u32 tid = s->cap_wtid;
	if (!tid)
		return;
	struct cap_hop *h = bpf_map_lookup_elem(&cap_hops, &tid);
	if (h && !h->h1)
		h->h1 = now;
}

static __always_inline __u32 cap_log2(__u64 v)
{
	__u32 r = 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r;
}

static __always_inline __u32 cap_bucket(__u64 v)
{
	if (v < 16)
		return v;
	__u32 o = cap_log2(v); /* >= 4 */
	__u32 b = ((o << 4) | (__u32)((v >> (o - 4)) & 15)) - 48; /* octave 4 starts at 16 */
	return b < NCAPHIST ? b : NCAPHIST - 1;
}

/* cap_threshold judges a hop of d ns, the seq-th this CPU saw in the
 * window: the absolute threshold, or the running estimate of the k/(k+1)
 * quantile of this CPU's hops (a stochastic approximation: up by 1/64 when
 * a hop is above it, down by 1/64 every k hops at or below it, so that it
 * settles where one hop in k+1 is above; eight times the step in the
 * warm-up, whose hops are not judged). 0: not judged. */
static __always_inline __u64 cap_threshold(struct cap_est *e, __u64 d, __u32 seq)
{
	__u64 abs = cap_abs_ns;
	if (abs)
		return abs;
	__u64 thr = e->est;
	int warm = seq < cap_warmup;
	if (!e->est) {
		e->est = d ? d : 1;
		return 0;
	}
	__u32 shift = warm ? 3 : 6;
	__u64 step = e->est >> shift;
	if (!step)
		step = 1;
	if (d > e->est) {
		e->est += step;
	} else if (++e->below >= cap_k) {
		e->below = 0;
		if (e->est > step)
			e->est -= step;
	}
	return warm ? 0 : thr;
}

/* copy_log copies the last NCOPY entries of l, oldest first. */
static __always_inline __u32 copy_log(struct cap_log *l, struct cap_ent *dst)
{
	__u64 head = l->head;
	__u32 n = head < NCOPY ? (__u32)head : NCOPY;
	for (__u32 i = 0; i < NCOPY; i++) {
		if (i >= n)
			break;
		__u64 j = (head - n + i) & (NLOG - 1);
		dst[i] = l->e[j];
	}
	return n;
}

/* cap_end: the current task returns from a syscall; if it was woken as a
 * hop, the hop ends here. */
static __always_inline void cap_end(void *ctx, struct cpu_state *s, __u32 k, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct cap_hop *hp = bpf_map_lookup_elem(&cap_hops, &tid);
	if (!hp)
		return;
	struct cap_hop h = *hp;
	bpf_map_delete_elem(&cap_hops, &tid);
	__u64 kinds = cap_sleep_kinds;
	if (h.epoch != epoch || now < h.start || !h.start || (kinds && !((kinds >> (k & 63)) & 1))) {
		bump(&cap_stats, CAP_STALE, 1);
		return;
	}
	__u64 d = now - h.start;
	bump(&cap_stats, CAP_HOPS, 1);
	bump(&cap_hist, cap_bucket(d), 1);
	__u32 zero = 0;
	struct cap_est *est = bpf_map_lookup_elem(&cap_ests, &zero);
	if (!est)
		return;
	__u32 seq = est->seen++;
	__u64 thr = cap_threshold(est, d, seq);
	__u32 flags = 0;
	if (!thr)
		bump(&cap_stats, CAP_WARM, 1);
	else if (d > thr) {
		flags |= CAP_SLOW;
		bump(&cap_stats, CAP_PAST, 1);
	}
	__u32 every = cap_every;
	if (every && seq % every == 0)
		flags |= CAP_SAMPLE;
	if (!flags)
		return;
	struct cap_rec *r = bpf_map_lookup_elem(&cap_scratch, &zero);
	struct cap_log *mine = bpf_map_lookup_elem(&cap_logs, &zero);
	if (!r || !mine)
		return;
	__u32 cpu = bpf_get_smp_processor_id();
	r->h.start = h.start;
	r->h.end = now;
	r->h.tw = h.tw;
	r->h.h1 = h.h1;
	r->h.threshold = thr;
	r->h.seq = seq;
	r->h.waker_cpu = h.waker_cpu;
	r->h.wakee_cpu = cpu;
	r->h.waker_tid = h.waker_tid;
	r->h.wakee_tid = tid;
	r->h.prev_cpu = h.prev_cpu;
	r->h.flags = flags;
	r->h.n[0] = copy_log(mine, r->e[0]);
	r->h.n[1] = 0;
	if (cross_copy && h.waker_cpu != cpu) {
		struct cap_log *other = bpf_map_lookup_percpu_elem(&cap_logs, &zero, h.waker_cpu);
		if (other)
			r->h.n[1] = copy_log(other, r->e[1]);
	}
	long err;
	if (use_ringbuf)
		err = bpf_ringbuf_output(&cap_out, r, sizeof(*r), BPF_RB_NO_WAKEUP);
	else
		err = bpf_perf_event_output(ctx, &cap_out, BPF_F_CURRENT_CPU, r, sizeof(*r));
	if (err)
		bump(&cap_stats, flags & CAP_SLOW ? CAP_LOST_SLOW : CAP_LOST_SAMPLE, 1);
	else
		bump(&cap_stats, flags & CAP_SLOW ? CAP_OUT_SLOW : CAP_OUT_SAMPLE, 1);
	/* The copy's time is the capture's, not the next segment's. */
	__u64 cost = bpf_ktime_get_ns() - now;
	s->irq_ns += cost;
	bump(&cap_stats, CAP_NS, cost);
}

#endif
