// ctxbench runtime probe for Node.js: promise/await hops and worker_threads.
//
// What one op is, per bench (CTXBENCH_BENCH):
//   promise-pingpong  one round trip between two async functions: each awaits a fresh promise
//                     whose resolver the other one calls = 2 hops (each a microtask job that
//                     resumes a suspended async function; stackless, no stack is switched).
//   worker-atomics    one round trip between the main thread and a worker_threads worker on a
//                     SharedArrayBuffer word with Atomics.notify / Atomics.wait = 2 hops (each a
//                     futex wake of another OS thread running its own V8 isolate).
//   async-spawn       calling an async function that runs to its first await on a pending promise
//                     (creates the suspended async function and its promise). A sample parks at
//                     most CTXBENCH_CONTEXTS (default 10000) of them: beyond V8's young
//                     generation the cost is garbage collection, not creation.
//   async-memory      V8 heapUsed delta after gc() per such suspended async function, and the
//                     VmRSS delta.
// Method: a batch of ops is timed with process.hrtime.bigint() in the driver; JIT warm-up
// is untimed (calibration, then warm-up samples
// for at least CTXBENCH_JIT_WARMUP_MS, default 300); values passed along are summed and checked
// so no hop can be optimised away. Run with --expose-gc (the memory bench needs gc()).
// Output: one JSON line per measured block, format ctxbench-probe/1 (docs/probes.md).
'use strict';

const { Worker, isMainThread, workerData } = require('node:worker_threads');
const fs = require('node:fs');

// ---------------------------------------------------------------- worker side

if (!isMainThread) {
  // The peer of worker-atomics: word 0 is the turn (0 main, 1 worker, 2 stop), word 1 the value.
  // A wake-up can be stale (a notify meant for the previous turn), so each side waits in a
  // loop until the turn word really says it is its turn.
  const w = new Int32Array(workerData.sab);
  for (;;) {
    let turn;
    while ((turn = Atomics.load(w, 0)) === 0) Atomics.wait(w, 0, 0);
    if (turn === 2) break;
    w[1] = w[1] + 1;
    Atomics.store(w, 0, 0);
    Atomics.notify(w, 0, 1);
  }
  return;
}

// ---------------------------------------------------------------- parameters

function badInput(msg) {
  process.stderr.write(`ctxbench probe: ${msg}\n`);
  process.exit(2);
}

function envInt(name, def) {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  if (!/^[0-9]+$/.test(v)) badInput(`${name} must be a non-negative integer, got ${v}`);
  return Number(v);
}

const P = {
  bench: process.env.CTXBENCH_BENCH || '',
  iterations: envInt('CTXBENCH_ITERATIONS', 0),
  samples: Math.max(1, envInt('CTXBENCH_SAMPLES', 10)),
  warmup: envInt('CTXBENCH_WARMUP', 1),
  targetNs: Math.max(1000, envInt('CTXBENCH_TARGET_NS', 20000000)),
  contexts: Math.max(1, envInt('CTXBENCH_CONTEXTS', 100000)),
  // async-spawn parks every context it creates in a sample; past V8's young generation the
  // cost per context turns into garbage-collection cost, so samples hold at most this many.
  spawnCap: Math.max(1, envInt('CTXBENCH_CONTEXTS', 10000)),
  jitWarmupNs: envInt('CTXBENCH_JIT_WARMUP_MS', 300) * 1e6,
};

// ---------------------------------------------------------------- measurement core

function ctxSwitches() {
  const u = process.resourceUsage();
  return u.voluntaryContextSwitches + u.involuntaryContextSwitches;
}

function now() {
  return process.hrtime.bigint();
}

// Calibration: grow n until one run takes a quarter of the target, then scale n so a sample
// lasts about targetNs; warm-up samples re-aim n as the JIT speeds things up. Same rule in
// every probe (docs/probes.md). run(n) resolves to elapsed ns.
async function measure(run, cap = Infinity) {
  let n = P.iterations;
  let total = 0;
  // Scale n towards the target, shrinking it by at most half per step: noise only ever makes a
  // run slower, so one run stretched by a noisy neighbour must not shrink the samples to nothing.
  const scaled = (n, t) => Math.min(cap, Math.max(1, Math.floor(n / 2), Math.round((n * P.targetNs) / t)));
  if (n === 0) {
    n = 1;
    for (;;) {
      const t = Math.max(1, await run(n));
      total += n;
      if (t >= P.targetNs / 4 || n >= 2 ** 40 || n >= cap) {
        n = scaled(n, t);
        break;
      }
      n = Math.min(cap, n * (t < P.targetNs / 100 ? 10 : 2));
    }
  }
  const warmStart = now();
  let warmed = 0;
  for (; warmed < P.warmup || Number(now() - warmStart) < P.jitWarmupNs; warmed++) {
    const t = Math.max(1, await run(n));
    total += n;
    if (P.iterations === 0 && (t < P.targetNs / 2 || t > P.targetNs * 2)) n = scaled(n, t);
  }
  const c0 = ctxSwitches();
  const samples = [];
  for (let i = 0; i < P.samples; i++) samples.push(await run(n));
  const c1 = ctxSwitches();
  return { iterations: n, warmup: warmed, samples, totalOps: total + n * P.samples, csw: c1 - c0 };
}

function vmRss() {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

// ---------------------------------------------------------------- benches

async function promisePingPong() {
  let resolvePing = null;
  let resolvePong = null;
  let stop = false;
  async function peer() {
    for (;;) {
      const v = await new Promise((r) => { resolvePing = r; });
      if (stop) return;
      resolvePong(v + 1);
    }
  }
  const peerDone = peer(); // runs synchronously to its first await, setting resolvePing
  const block = await measure(async (n) => {
    let acc = 0;
    const t0 = now();
    for (let i = 0; i < n; i++) {
      const pong = new Promise((r) => { resolvePong = r; });
      resolvePing(i);
      acc += (await pong) - i;
    }
    const t = Number(now() - t0);
    if (acc !== n) throw new Error(`lost hops: ${acc} != ${n}`);
    return t;
  });
  stop = true;
  resolvePing(0);
  await peerDone;
  return block;
}

async function workerAtomics() {
  const sab = new SharedArrayBuffer(8);
  const w = new Int32Array(sab);
  const worker = new Worker(__filename, { workerData: { sab } });
  await new Promise((resolve, reject) => {
    worker.once('online', resolve);
    worker.once('error', reject);
  });
  const block = await measure(async (n) => {
    const start = w[1];
    const t0 = now();
    for (let i = 0; i < n; i++) {
      Atomics.store(w, 0, 1);
      Atomics.notify(w, 0, 1);
      while (Atomics.load(w, 0) === 1) Atomics.wait(w, 0, 1);
    }
    const t = Number(now() - t0);
    if (w[1] - start !== n) throw new Error(`lost hops: ${w[1] - start} != ${n}`);
    return t;
  });
  Atomics.store(w, 0, 2);
  Atomics.notify(w, 0, 1);
  await new Promise((resolve) => worker.once('exit', resolve));
  return block;
}

// spawnParked calls k async functions that each run to an await on the pending `release`
// promise; they stay suspended (reachable from that promise) until release is resolved.
function spawnParked(k) {
  let release;
  const gate = new Promise((r) => { release = r; });
  let started = 0;
  async function child() {
    started++;
    await gate;
  }
  for (let i = 0; i < k; i++) child();
  if (started !== k) throw new Error(`only ${started} of ${k} started`);
  return release;
}

async function asyncSpawn() {
  return measure(async (n) => {
    // Every sample starts from a collected heap, so one sample does not pay for the garbage
    // of the last; collections that the sample's own live contexts cause stay in it.
    global.gc();
    const t0 = now();
    const release = spawnParked(n);
    const t = Number(now() - t0);
    release();
    await new Promise((r) => setImmediate(r)); // let the children finish, untimed
    return t;
  }, P.spawnCap);
}

async function asyncMemory() {
  const heap = [];
  const rss = [];
  for (let i = 0; i < P.samples + P.warmup; i++) {
    global.gc();
    const h0 = process.memoryUsage().heapUsed;
    const r0 = vmRss();
    const release = spawnParked(P.contexts);
    global.gc();
    heap.push(process.memoryUsage().heapUsed - h0);
    rss.push(vmRss() - r0);
    release();
    await new Promise((r) => setImmediate(r));
  }
  return { heap: heap.slice(P.warmup), rss: rss.slice(P.warmup) };
}

// ---------------------------------------------------------------- output

function settings(extra) {
  return {
    node: process.version,
    v8: process.versions.v8,
    jit_warmup: `calibration runs + at least ${P.warmup} untimed warm-up samples and ${P.jitWarmupNs / 1e6} ms`,
    ...extra,
  };
}

function emitTimed(kind, op, hops, s, b) {
  const line = {
    format: 'ctxbench-probe/1',
    kind,
    name: `node/${P.bench}`,
    op,
    ...(hops > 0 ? { hops_per_op: hops } : {}),
    iterations: b.iterations,
    warmup_samples: b.warmup,
    total_ops: b.totalOps,
    ctx_switches: b.csw,
    settings: s,
    samples_ns: b.samples,
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}

function emitMemory(op, metric, s, samples) {
  const line = {
    format: 'ctxbench-probe/1',
    kind: 'memory',
    name: `node/${P.bench}`,
    op,
    metric,
    iterations: P.contexts,
    warmup_samples: P.warmup,
    total_ops: P.contexts * (P.warmup + samples.length),
    settings: s,
    samples_bytes: samples,
  };
  process.stdout.write(JSON.stringify(line) + '\n');
}

async function main() {
  switch (P.bench) {
    case 'promise-pingpong':
      emitTimed('switch', 'round trip between two async functions, each awaiting a promise the other resolves (stackless microtask hop)',
        2, settings({ stackless: true }), await promisePingPong());
      break;
    case 'worker-atomics':
      emitTimed('switch', 'round trip between the main thread and a worker thread: Atomics.notify then Atomics.wait on a SharedArrayBuffer word',
        2, settings({ stackless: false }), await workerAtomics());
      break;
    case 'async-spawn':
      emitTimed('spawn', 'call of an async function that runs to its first await on a pending promise',
        0, settings({ stackless: true, max_alive: P.spawnCap, gc_before_sample: true }), await asyncSpawn());
      break;
    case 'async-memory': {
      if (typeof global.gc !== 'function') badInput('async-memory needs node --expose-gc');
      const r = await asyncMemory();
      const s = settings({ stackless: true, contexts: P.contexts });
      const op = 'one async function suspended at an await on a pending promise';
      emitMemory(op, 'V8 heapUsed delta after gc()', s, r.heap);
      emitMemory(op, 'VmRSS delta of the node process', s, r.rss);
      break;
    }
    default:
      badInput(`unknown CTXBENCH_BENCH "${P.bench}" (want promise-pingpong, worker-atomics, async-spawn or async-memory)`);
  }
}

main().catch((e) => {
  process.stderr.write(`ctxbench probe: ${e && e.stack ? e.stack : e}\n`);
  process.exit(3);
});
