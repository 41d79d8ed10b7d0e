//! ctxbench runtime probe for Rust: tokio tasks and a stackful corosensei coroutine.
//!
//! What one op is, per bench (CTXBENCH_BENCH):
//!   tokio-notify     round trip between two spawned tokio tasks through two `Notify`s: the driver
//!                    notifies the peer and awaits its answer = 2 hops (task parks, other task runs).
//!   tokio-mpsc       the same round trip through two bounded `mpsc` channels of capacity 1,
//!                    carrying a counter the driver consumes = 2 hops.
//!   corosensei       one `resume` into a stackful coroutine plus its `suspend` back = 2 hops
//!                    (a register and stack-pointer swap each way; the corosensei README's
//!                    "resume+suspend" figure is this round trip).
//!   tokio-spawn      `tokio::spawn` of a task that runs until it parks on a `Notify`.
//!   tokio-memory     heap bytes per parked task (counting global allocator) and VmRSS delta.
//!   corosensei-spawn `Coroutine::new` (mmap'ed stack with guard page) plus the first resume to
//!                    the coroutine's first suspend.
//!   corosensei-memory VmRSS delta per parked coroutine (its touched stack pages).
//! Method: both ping-pong peers are spawned tasks (the block_on future has another wake
//! path); a batch of ops is timed with `Instant` inside the driver; yielded values are fed
//! to `black_box` so the loop cannot be elided.
//! Runtime flavour and worker count come from CTXBENCH_FLAVOR (current_thread|multi_thread)
//! and CTXBENCH_PARALLELISM, and are echoed in "settings".
//! Output: one JSON line per measured block, format ctxbench-probe/1 (docs/probes.md).

use std::alloc::{GlobalAlloc, Layout, System};
use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use corosensei::{Coroutine, CoroutineResult};
use tokio::sync::{mpsc, Notify};

// Counting wrapper around the system allocator: the only honest way to see a task's heap
// footprint from inside the process. It counts only while COUNTING is set (around the
// memory bench's spawn), so the switch and spawn benches' timed loops pay one read of a
// never-written flag per allocation, not an atomic add on a line every worker shares.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

fn count(delta: isize) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE_BYTES.fetch_add(delta, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

// ------------------------------------------------------------------ parameters

struct Params {
    bench: String,
    iterations: u64,
    samples: usize,
    warmup: usize,
    target_ns: u64,
    contexts: usize,
    flavor: String,
    parallelism: usize,
}

fn bad_input(msg: String) -> ! {
    eprintln!("ctxbench probe: {msg}");
    std::process::exit(2)
}

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v
            .parse()
            .unwrap_or_else(|_| bad_input(format!("{name} must be a non-negative integer, got {v}"))),
        _ => default,
    }
}

fn params() -> Params {
    let flavor = std::env::var("CTXBENCH_FLAVOR").unwrap_or_else(|_| "current_thread".into());
    if flavor != "current_thread" && flavor != "multi_thread" {
        bad_input(format!("CTXBENCH_FLAVOR must be current_thread or multi_thread, got {flavor}"));
    }
    Params {
        bench: std::env::var("CTXBENCH_BENCH").unwrap_or_default(),
        iterations: env_u64("CTXBENCH_ITERATIONS", 0),
        samples: env_u64("CTXBENCH_SAMPLES", 10).max(1) as usize,
        warmup: env_u64("CTXBENCH_WARMUP", 1) as usize,
        target_ns: env_u64("CTXBENCH_TARGET_NS", 20_000_000).max(1000),
        contexts: env_u64("CTXBENCH_CONTEXTS", 100_000).max(1) as usize,
        flavor,
        parallelism: env_u64("CTXBENCH_PARALLELISM", 1).max(1) as usize,
    }
}

// ------------------------------------------------------------------ measurement core

struct Block {
    iterations: u64,
    warmup: usize,
    samples: Vec<u64>,
    total_ops: u64,
    ctx_switches: u64,
}

/// Voluntary plus involuntary OS context switches of the whole process (all threads).
fn ctx_switches() -> u64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (ru.ru_nvcsw + ru.ru_nivcsw) as u64
}

/// Calibration: grow n until one run takes a quarter of the target, then scale n so a sample
/// lasts about target_ns. Same rule in every probe (docs/probes.md).
struct Plan {
    p_iterations: u64,
    samples: usize,
    warmup: usize,
    target: u64,
}

impl Plan {
    fn from(p: &Params) -> Plan {
        Plan { p_iterations: p.iterations, samples: p.samples, warmup: p.warmup, target: p.target_ns }
    }
    fn next_calibration(&self, n: u64, t: u64) -> Option<u64> {
        let t = t.max(1);
        if t >= self.target / 4 || n >= 1 << 40 {
            None
        } else if t < self.target / 100 {
            Some(n * 10)
        } else {
            Some(n * 2)
        }
    }
    /// Scales n so a run lasts about the target, shrinking it by at most half per step: noise
    /// only ever makes a run slower, so one run stretched by a noisy neighbour must not shrink
    /// the samples to nothing.
    fn scaled(&self, n: u64, t: u64) -> u64 {
        let x = ((n as f64) * (self.target as f64) / (t.max(1) as f64)).round() as u64;
        x.max(n / 2).max(1)
    }
}

fn measure(plan: &Plan, mut run: impl FnMut(u64) -> u64) -> Block {
    let mut total = 0u64;
    let mut n = plan.p_iterations;
    if n == 0 {
        n = 1;
        loop {
            let t = run(n);
            total += n;
            match plan.next_calibration(n, t) {
                Some(next) => n = next,
                None => {
                    n = plan.scaled(n, t);
                    break;
                }
            }
        }
    }
    // Warm-up samples also re-aim n at the target (later runs can be faster than calibration).
    for _ in 0..plan.warmup {
        let t = run(n);
        total += n;
        if plan.p_iterations == 0 && (t < plan.target / 2 || t > plan.target * 2) {
            n = plan.scaled(n, t);
        }
    }
    let c0 = ctx_switches();
    let samples: Vec<u64> = (0..plan.samples).map(|_| run(n)).collect();
    let c1 = ctx_switches();
    total += n * plan.samples as u64;
    Block { iterations: n, warmup: plan.warmup, samples, total_ops: total, ctx_switches: c1 - c0 }
}

type BoxFut = Pin<Box<dyn Future<Output = u64> + Send>>;

/// The async twin of `measure`, run inside a spawned driver task.
async fn measure_async(plan: Plan, mut run: impl FnMut(u64) -> BoxFut) -> Block {
    let mut total = 0u64;
    let mut n = plan.p_iterations;
    if n == 0 {
        n = 1;
        loop {
            let t = run(n).await;
            total += n;
            match plan.next_calibration(n, t) {
                Some(next) => n = next,
                None => {
                    n = plan.scaled(n, t);
                    break;
                }
            }
        }
    }
    // Warm-up samples also re-aim n at the target (later runs can be faster than calibration).
    for _ in 0..plan.warmup {
        let t = run(n).await;
        total += n;
        if plan.p_iterations == 0 && (t < plan.target / 2 || t > plan.target * 2) {
            n = plan.scaled(n, t);
        }
    }
    let c0 = ctx_switches();
    let mut samples = Vec::with_capacity(plan.samples);
    for _ in 0..plan.samples {
        samples.push(run(n).await);
    }
    let c1 = ctx_switches();
    total += n * plan.samples as u64;
    Block { iterations: n, warmup: plan.warmup, samples, total_ops: total, ctx_switches: c1 - c0 }
}

fn elapsed_ns(t0: Instant) -> u64 {
    t0.elapsed().as_nanos() as u64
}

fn vm_rss() -> i64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

// ------------------------------------------------------------------ output

/// Settings as (key, JSON value text) pairs.
type Settings = Vec<(&'static str, String)>;

fn jstr(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn settings_json(s: &Settings) -> String {
    let parts: Vec<String> = s.iter().map(|(k, v)| format!("{}:{}", jstr(k), v)).collect();
    format!("{{{}}}", parts.join(","))
}

fn list<T: ToString>(v: &[T]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

fn emit_timed(kind: &str, name: &str, op: &str, hops: Option<u32>, s: &Settings, b: &Block) {
    let hops = hops.map(|h| format!("\"hops_per_op\":{h},")).unwrap_or_default();
    println!(
        "{{\"format\":\"ctxbench-probe/1\",\"kind\":{},\"name\":{},\"op\":{},{}\"iterations\":{},\"warmup_samples\":{},\"total_ops\":{},\"ctx_switches\":{},\"settings\":{},\"samples_ns\":{}}}",
        jstr(kind),
        jstr(&format!("rust/{name}")),
        jstr(op),
        hops,
        b.iterations,
        b.warmup,
        b.total_ops,
        b.ctx_switches,
        settings_json(s),
        list(&b.samples)
    );
}

fn emit_memory(name: &str, op: &str, metric: &str, s: &Settings, k: usize, warmup: usize, samples: &[i64]) {
    println!(
        "{{\"format\":\"ctxbench-probe/1\",\"kind\":\"memory\",\"name\":{},\"op\":{},\"metric\":{},\"iterations\":{},\"warmup_samples\":{},\"total_ops\":{},\"settings\":{},\"samples_bytes\":{}}}",
        jstr(&format!("rust/{name}")),
        jstr(op),
        jstr(metric),
        k,
        warmup,
        k * (warmup + samples.len()),
        settings_json(s),
        list(samples)
    );
}

fn base_settings(p: &Params, tokio: bool) -> Settings {
    let mut s: Settings = vec![
        ("rustc", jstr(option_env!("CTXBENCH_RUSTC_VERSION").unwrap_or("unknown"))),
        ("profile", jstr("release opt-level=3 codegen-units=1")),
        ("allocator", jstr("system malloc behind a counting wrapper")),
    ];
    if tokio {
        s.push(("tokio", jstr("1.54.1 (Cargo.lock)")));
        s.push(("flavor", jstr(&p.flavor)));
        let workers = if p.flavor == "multi_thread" { p.parallelism } else { 1 };
        s.push(("workers", workers.to_string()));
    } else {
        s.push(("corosensei", jstr("0.3.4 (Cargo.lock)")));
        s.push(("stack_bytes", STACK_BYTES.to_string()));
    }
    s
}

// ------------------------------------------------------------------ tokio

fn runtime(p: &Params) -> tokio::runtime::Runtime {
    let rt = if p.flavor == "multi_thread" {
        tokio::runtime::Builder::new_multi_thread().worker_threads(p.parallelism).build()
    } else {
        tokio::runtime::Builder::new_current_thread().build()
    };
    rt.unwrap_or_else(|e| bad_input(format!("cannot build tokio runtime: {e}")))
}

fn tokio_notify(p: &Params) -> Block {
    let rt = runtime(p);
    let plan = Plan::from(p);
    let ping = Arc::new(Notify::new());
    let pong = Arc::new(Notify::new());
    let stop = Arc::new(AtomicBool::new(false));
    let (pi, po, st) = (ping.clone(), pong.clone(), stop.clone());
    let peer = rt.spawn(async move {
        loop {
            pi.notified().await;
            if st.load(Ordering::Acquire) {
                break;
            }
            po.notify_one();
        }
    });
    let driver = rt.spawn(async move {
        let block = measure_async(plan, |n| {
            let (ping, pong) = (ping.clone(), pong.clone());
            Box::pin(async move {
                let t0 = Instant::now();
                for _ in 0..n {
                    ping.notify_one();
                    pong.notified().await;
                }
                elapsed_ns(t0)
            })
        })
        .await;
        stop.store(true, Ordering::Release);
        ping.notify_one();
        block
    });
    let block = rt.block_on(driver).expect("driver task");
    rt.block_on(peer).expect("peer task");
    block
}

fn tokio_mpsc(p: &Params) -> Block {
    let rt = runtime(p);
    let plan = Plan::from(p);
    let (ping_tx, mut ping_rx) = mpsc::channel::<u64>(1);
    let (pong_tx, pong_rx) = mpsc::channel::<u64>(1);
    let peer = rt.spawn(async move {
        while let Some(v) = ping_rx.recv().await {
            if pong_tx.send(v.wrapping_add(1)).await.is_err() {
                break;
            }
        }
    });
    let pong_rx = Arc::new(tokio::sync::Mutex::new(pong_rx));
    let driver = rt.spawn(async move {
        let tx = ping_tx.clone();
        let block = measure_async(plan, move |n| {
            let (tx, rx) = (tx.clone(), pong_rx.clone());
            Box::pin(async move {
                // The mutex is taken once per sample, outside the timed loop.
                let mut rx = rx.lock().await;
                let mut acc = 0u64;
                let t0 = Instant::now();
                for i in 0..n {
                    tx.send(i).await.expect("peer alive");
                    acc = acc.wrapping_add(rx.recv().await.expect("peer alive"));
                }
                let t = elapsed_ns(t0);
                black_box(acc);
                t
            })
        })
        .await;
        drop(ping_tx);
        block
    });
    let block = rt.block_on(driver).expect("driver task");
    rt.block_on(peer).expect("peer task");
    block
}

/// Spawns k tasks that each run to a park on `release`; returns once all have parked.
async fn spawn_parked(
    k: usize,
    release: &Arc<Notify>,
    handles: &mut Vec<tokio::task::JoinHandle<()>>,
) {
    let started = Arc::new(AtomicU64::new(0));
    let all = Arc::new(Notify::new());
    for _ in 0..k {
        let (r, s, a) = (release.clone(), started.clone(), all.clone());
        handles.push(tokio::spawn(async move {
            let parked = r.notified();
            tokio::pin!(parked);
            parked.as_mut().enable();
            if s.fetch_add(1, Ordering::AcqRel) + 1 == k as u64 {
                a.notify_one();
            }
            parked.await;
        }));
    }
    all.notified().await;
}

async fn release_parked(release: &Arc<Notify>, handles: &mut Vec<tokio::task::JoinHandle<()>>) {
    release.notify_waiters();
    for h in handles.drain(..) {
        h.await.expect("parked task");
    }
}

fn tokio_spawn(p: &Params) -> Block {
    let rt = runtime(p);
    let plan = Plan::from(p);
    let driver = rt.spawn(async move {
        measure_async(plan, |n| {
            Box::pin(async move {
                let release = Arc::new(Notify::new());
                let mut handles = Vec::with_capacity(n as usize);
                let t0 = Instant::now();
                spawn_parked(n as usize, &release, &mut handles).await;
                let t = elapsed_ns(t0);
                release_parked(&release, &mut handles).await;
                t
            })
        })
        .await
    });
    rt.block_on(driver).expect("driver task")
}

fn tokio_memory(p: &Params) -> (Vec<i64>, Vec<i64>) {
    let rt = runtime(p);
    let (k, runs) = (p.contexts, p.samples + p.warmup);
    let driver = rt.spawn(async move {
        let mut heap = Vec::new();
        let mut rss = Vec::new();
        for _ in 0..runs {
            let release = Arc::new(Notify::new());
            let mut handles = Vec::with_capacity(k);
            COUNTING.store(true, Ordering::SeqCst);
            let (h0, r0) = (LIVE_BYTES.load(Ordering::SeqCst), vm_rss());
            spawn_parked(k, &release, &mut handles).await;
            let (h1, r1) = (LIVE_BYTES.load(Ordering::SeqCst), vm_rss());
            COUNTING.store(false, Ordering::SeqCst);
            heap.push((h1 - h0) as i64);
            rss.push(r1 - r0);
            release_parked(&release, &mut handles).await;
        }
        (heap, rss)
    });
    rt.block_on(driver).expect("driver task")
}

// ------------------------------------------------------------------ corosensei

/// Stack reserved per coroutine (corosensei's DefaultStack size, named here so it is recorded).
const STACK_BYTES: usize = 1024 * 1024;

fn new_coroutine() -> Coroutine<u64, u64, ()> {
    let stack = corosensei::stack::DefaultStack::new(STACK_BYTES)
        .unwrap_or_else(|e| bad_input(format!("cannot map a coroutine stack: {e}")));
    Coroutine::with_stack(stack, |y, mut v: u64| loop {
        v = y.suspend(v.wrapping_add(1));
    })
}

fn corosensei_switch(p: &Params) -> Block {
    let mut co = new_coroutine();
    measure(&Plan::from(p), |n| {
        let mut acc = 0u64;
        let t0 = Instant::now();
        for i in 0..n {
            match co.resume(i) {
                CoroutineResult::Yield(v) => acc = acc.wrapping_add(v),
                CoroutineResult::Return(()) => unreachable!(),
            }
        }
        let t = elapsed_ns(t0);
        black_box(acc);
        t
    })
}

fn corosensei_spawn(p: &Params) -> Block {
    measure(&Plan::from(p), |n| {
        let mut parked = Vec::with_capacity(n as usize);
        let t0 = Instant::now();
        for i in 0..n {
            let mut co = new_coroutine();
            black_box(co.resume(i));
            parked.push(co);
        }
        let t = elapsed_ns(t0);
        // Dropping a suspended coroutine unwinds and unmaps its stack: untimed.
        drop(parked);
        t
    })
}

fn corosensei_memory(k: usize, runs: usize) -> Vec<i64> {
    let mut rss = Vec::new();
    for _ in 0..runs {
        let mut parked = Vec::with_capacity(k);
        let r0 = vm_rss();
        for i in 0..k {
            let mut co = new_coroutine();
            black_box(co.resume(i as u64));
            parked.push(co);
        }
        rss.push(vm_rss() - r0);
        drop(parked);
    }
    rss
}

// ------------------------------------------------------------------ main

fn main() {
    let p = params();
    match p.bench.as_str() {
        "tokio-notify" => {
            let b = tokio_notify(&p);
            let op = "round trip between two spawned tasks via two tokio::sync::Notify";
            emit_timed("switch", "tokio-notify", op, Some(2), &base_settings(&p, true), &b);
        }
        "tokio-mpsc" => {
            let b = tokio_mpsc(&p);
            let op = "round trip between two spawned tasks via two tokio mpsc channels of capacity 1";
            emit_timed("switch", "tokio-mpsc", op, Some(2), &base_settings(&p, true), &b);
        }
        "corosensei" => {
            let b = corosensei_switch(&p);
            let op = "resume into a stackful corosensei coroutine and suspend back (stackful register/stack swap)";
            emit_timed("switch", "corosensei", op, Some(2), &base_settings(&p, false), &b);
        }
        "tokio-spawn" => {
            let b = tokio_spawn(&p);
            let op = "tokio::spawn of a task that runs to its first park on a Notify";
            emit_timed("spawn", "tokio-spawn", op, None, &base_settings(&p, true), &b);
        }
        "corosensei-spawn" => {
            let b = corosensei_spawn(&p);
            let op = "Coroutine::new with a DefaultStack (mmap + guard page) and the first resume to its first suspend";
            emit_timed("spawn", "corosensei-spawn", op, None, &base_settings(&p, false), &b);
        }
        "tokio-memory" => {
            let (heap, rss) = tokio_memory(&p);
            let mut s = base_settings(&p, true);
            s.push(("contexts", p.contexts.to_string()));
            let op = "one spawned tokio task parked on a Notify";
            let (heap, rss) = (&heap[p.warmup..], &rss[p.warmup..]);
            emit_memory("tokio-memory", op, "live heap bytes delta (counting global allocator)", &s, p.contexts, p.warmup, heap);
            emit_memory("tokio-memory", op, "VmRSS delta of the process", &s, p.contexts, p.warmup, rss);
        }
        "corosensei-memory" => {
            // Each stack is an mmap plus a guard page: two mappings, so vm.max_map_count
            // (65530 by default) bounds how many can be parked at once.
            let k = p.contexts.min(20_000);
            let rss = corosensei_memory(k, p.samples + p.warmup);
            let mut s = base_settings(&p, false);
            s.push(("contexts", k.to_string()));
            let op = "one parked corosensei coroutine suspended in its body";
            // The counting allocator sees nothing here (the coroutine's state lives on its own
            // mmap'ed stack), so only the resident stack pages are reported.
            let rss = &rss[p.warmup..];
            emit_memory("corosensei-memory", op, "VmRSS delta of the process (touched stack pages)", &s, k, p.warmup, rss);
        }
        other => bad_input(format!(
            "unknown CTXBENCH_BENCH {other:?} (want tokio-notify, tokio-mpsc, corosensei, tokio-spawn, tokio-memory, corosensei-spawn or corosensei-memory)"
        )),
    }
}
