"""ctxbench runtime probe for CPython: asyncio tasks, greenlets and threads.

What one op is, per bench (CTXBENCH_BENCH):
  asyncio-pingpong  one round trip between two asyncio tasks: each awaits a fresh Future that
                    the other one resolves = 2 hops (each an event-loop turn: call_soon of the
                    task's wake-up, then the task's coroutine is resumed; stackless).
  greenlet-switch   one switch() from the main greenlet into a peer greenlet plus its switch()
                    back = 2 hops (greenlet copies the C stack slice in and out: stackful).
  thread-lock       one round trip between two OS threads through two Locks used as binary
                    semaphores = 2 hops (each a GIL handoff plus an OS thread switch).
  asyncio-spawn     asyncio.create_task of a coroutine that runs to its first await on a pending
                    Future (includes the task's first event-loop turn).
  greenlet-spawn    creating a greenlet, switching into it and its switch back to the parent
                    (so the op includes two switches), leaving it parked.
  asyncio-memory    tracemalloc-traced bytes per parked asyncio task, and the VmRSS delta.
  greenlet-memory   tracemalloc-traced bytes per parked greenlet, and the VmRSS delta.
Method: a batch of ops is timed with time.perf_counter_ns(); the garbage collector is
disabled during timed samples (recorded in
settings); passed values are summed and checked so no hop is skipped.
Output: one JSON line per measured block, format ctxbench-probe/1 (docs/probes.md).
"""

import asyncio
import gc
import json
import os
import platform
import resource
import sys
import threading
import time


def bad_input(msg):
    sys.stderr.write(f"ctxbench probe: {msg}\n")
    sys.exit(2)


def env_int(name, default):
    v = os.environ.get(name, "")
    if v == "":
        return default
    if not v.isdigit():
        bad_input(f"{name} must be a non-negative integer, got {v}")
    return int(v)


BENCH = os.environ.get("CTXBENCH_BENCH", "")
ITERATIONS = env_int("CTXBENCH_ITERATIONS", 0)
SAMPLES = max(1, env_int("CTXBENCH_SAMPLES", 10))
WARMUP = env_int("CTXBENCH_WARMUP", 1)
TARGET_NS = max(1000, env_int("CTXBENCH_TARGET_NS", 20_000_000))
CONTEXTS = max(1, env_int("CTXBENCH_CONTEXTS", 100_000))

now = time.perf_counter_ns

# ---------------------------------------------------------------- measurement core


def ctx_switches():
    """Voluntary plus involuntary OS context switches of the whole process (all threads)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_nvcsw + ru.ru_nivcsw


def scaled(n, t):
    """Scales n so a run lasts about TARGET_NS, shrinking it by at most half per step: noise
    only ever makes a run slower, so one run stretched by a noisy neighbour must not shrink the
    samples to nothing."""
    return max(1, n // 2, round(n * TARGET_NS / t))


class Block:
    def __init__(self, iterations, warmup, samples, total_ops, csw):
        self.iterations = iterations
        self.warmup = warmup
        self.samples = samples
        self.total_ops = total_ops
        self.csw = csw


def measure(run):
    """Calibration: grow n until one run takes a quarter of the target, then scale n so a sample
    lasts about TARGET_NS; warm-up samples re-aim n. Same rule in every probe (docs/probes.md).
    The garbage collector is off while samples run."""
    n, total = ITERATIONS, 0
    gc.disable()
    try:
        if n == 0:
            n = 1
            while True:
                t = max(1, run(n))
                total += n
                if t >= TARGET_NS // 4 or n >= 1 << 40:
                    n = scaled(n, t)
                    break
                n *= 10 if t < TARGET_NS // 100 else 2
        for _ in range(WARMUP):
            t = max(1, run(n))
            total += n
            if ITERATIONS == 0 and (t < TARGET_NS // 2 or t > TARGET_NS * 2):
                n = scaled(n, t)
        c0 = ctx_switches()
        samples = [run(n) for _ in range(SAMPLES)]
        c1 = ctx_switches()
    finally:
        gc.enable()
    return Block(n, WARMUP, samples, total + n * SAMPLES, c1 - c0)


async def measure_async(run):
    """The asyncio twin of measure: run(n) is a coroutine function."""
    n, total = ITERATIONS, 0
    gc.disable()
    try:
        if n == 0:
            n = 1
            while True:
                t = max(1, await run(n))
                total += n
                if t >= TARGET_NS // 4 or n >= 1 << 40:
                    n = scaled(n, t)
                    break
                n *= 10 if t < TARGET_NS // 100 else 2
        for _ in range(WARMUP):
            t = max(1, await run(n))
            total += n
            if ITERATIONS == 0 and (t < TARGET_NS // 2 or t > TARGET_NS * 2):
                n = scaled(n, t)
        c0 = ctx_switches()
        samples = [await run(n) for _ in range(SAMPLES)]
        c1 = ctx_switches()
    finally:
        gc.enable()
    return Block(n, WARMUP, samples, total + n * SAMPLES, c1 - c0)


def vm_rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# ---------------------------------------------------------------- asyncio


class Box:
    """Holds the Future each side currently waits on."""

    ping = None
    pong = None


async def asyncio_pingpong():
    loop = asyncio.get_running_loop()
    box = Box()

    async def peer():
        while True:
            box.ping = loop.create_future()
            v = await box.ping
            if v < 0:
                return
            box.pong.set_result(v + 1)

    peer_task = loop.create_task(peer())
    await asyncio.sleep(0)  # let the peer reach its first await

    async def run(n):
        acc = 0
        t0 = now()
        for i in range(n):
            box.pong = loop.create_future()
            box.ping.set_result(i)
            acc += (await box.pong) - i
        t = now() - t0
        if acc != n:
            raise RuntimeError(f"lost hops: {acc} != {n}")
        return t

    block = await measure_async(run)
    box.ping.set_result(-1)
    await peer_task
    return block


async def spawn_parked_tasks(k):
    """Creates k tasks that each run to an await on a pending Future; returns once all did."""
    loop = asyncio.get_running_loop()
    release = loop.create_future()
    all_started = loop.create_future()
    started = 0

    async def child():
        nonlocal started
        started += 1
        if started == k:
            all_started.set_result(None)
        await release

    tasks = [loop.create_task(child()) for _ in range(k)]
    await all_started
    return release, tasks


async def asyncio_spawn():
    async def run(n):
        t0 = now()
        release, tasks = await spawn_parked_tasks(n)
        t = now() - t0
        release.set_result(None)
        await asyncio.gather(*tasks)
        return t

    return await measure_async(run)


# ---------------------------------------------------------------- greenlet


def greenlet_switch():
    from greenlet import getcurrent, greenlet

    main = getcurrent()

    def body(v):
        while True:
            v = main.switch(v + 1)

    g = greenlet(body)

    def run(n):
        acc = 0
        t0 = now()
        for i in range(n):
            acc += g.switch(i) - i
        t = now() - t0
        if acc != n:
            raise RuntimeError(f"lost hops: {acc} != {n}")
        return t

    return measure(run)


def spawn_parked_greenlets(k):
    from greenlet import getcurrent, greenlet

    main = getcurrent()

    def body():
        main.switch()

    parked = []
    for _ in range(k):
        g = greenlet(body)
        g.switch()
        parked.append(g)
    return parked


def greenlet_spawn():
    def run(n):
        t0 = now()
        parked = spawn_parked_greenlets(n)
        t = now() - t0
        for g in parked:
            g.switch()  # let each finish, untimed
        return t

    return measure(run)


# ---------------------------------------------------------------- threading


def thread_lock():
    ping, pong = threading.Lock(), threading.Lock()
    ping.acquire()
    pong.acquire()
    box = [0, False]

    def peer():
        while True:
            ping.acquire()
            if box[1]:
                return
            box[0] += 1
            pong.release()

    t = threading.Thread(target=peer, daemon=True)
    t.start()

    def run(n):
        start = box[0]
        t0 = now()
        for _ in range(n):
            ping.release()
            pong.acquire()
        el = now() - t0
        if box[0] - start != n:
            raise RuntimeError(f"lost hops: {box[0] - start} != {n}")
        return el

    block = measure(run)
    box[1] = True
    ping.release()
    t.join()
    return block


# ---------------------------------------------------------------- memory


def memory(spawn, release):
    """Traced bytes and RSS delta per parked context: spawn(k) parks k contexts and returns a
    handle, release(handle) lets them finish."""
    import tracemalloc

    tracemalloc.start()
    heap, rss = [], []
    for _ in range(SAMPLES + WARMUP):
        gc.collect()
        h0, r0 = tracemalloc.get_traced_memory()[0], vm_rss()
        handle = spawn(CONTEXTS)
        gc.collect()
        heap.append(tracemalloc.get_traced_memory()[0] - h0)
        rss.append(vm_rss() - r0)
        release(handle)
        del handle
    tracemalloc.stop()
    return heap[WARMUP:], rss[WARMUP:]


def asyncio_memory():
    loop = asyncio.new_event_loop()

    def spawn(k):
        return loop.run_until_complete(spawn_parked_tasks(k))

    def release(handle):
        fut, tasks = handle
        fut.set_result(None)
        loop.run_until_complete(asyncio.gather(*tasks))

    try:
        return memory(spawn, release)
    finally:
        loop.close()


def greenlet_memory():
    def release(parked):
        for g in parked:
            g.switch()

    return memory(spawn_parked_greenlets, release)


# ---------------------------------------------------------------- output


def settings(**extra):
    s = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "gc_during_samples": "disabled",
    }
    s.update(extra)
    return s


def greenlet_version():
    import greenlet

    return greenlet.__version__


def emit(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")


def emit_timed(kind, op, hops, s, b):
    line = {"format": "ctxbench-probe/1", "kind": kind, "name": f"python/{BENCH}", "op": op}
    if hops:
        line["hops_per_op"] = hops
    line.update(
        iterations=b.iterations,
        warmup_samples=b.warmup,
        total_ops=b.total_ops,
        ctx_switches=b.csw,
        settings=s,
        samples_ns=b.samples,
    )
    emit(line)


def emit_memory(op, metric, s, samples):
    emit(
        {
            "format": "ctxbench-probe/1",
            "kind": "memory",
            "name": f"python/{BENCH}",
            "op": op,
            "metric": metric,
            "iterations": CONTEXTS,
            "warmup_samples": WARMUP,
            "total_ops": CONTEXTS * (WARMUP + len(samples)),
            "settings": s,
            "samples_bytes": samples,
        }
    )


def emit_unavailable(reason):
    emit({"format": "ctxbench-probe/1", "kind": "unavailable", "name": f"python/{BENCH}", "reason": reason})


def main():
    if BENCH.startswith("greenlet-"):
        try:
            greenlet_version()
        except ImportError:
            emit_unavailable("the greenlet module is missing: pip install greenlet")
            return 0
    probe_loop = asyncio.new_event_loop()
    loop_name = type(probe_loop).__name__
    probe_loop.close()
    if BENCH == "asyncio-pingpong":
        b = asyncio.run(asyncio_pingpong())
        op = "round trip between two asyncio tasks, each awaiting a Future the other resolves (stackless)"
        emit_timed("switch", op, 2, settings(event_loop=loop_name, stackless=True), b)
    elif BENCH == "greenlet-switch":
        b = greenlet_switch()
        op = "switch() into a peer greenlet and its switch() back (stackful, stack slice copied)"
        emit_timed("switch", op, 2, settings(greenlet=greenlet_version(), stackless=False), b)
    elif BENCH == "thread-lock":
        b = thread_lock()
        op = "round trip between two threads through two Locks used as binary semaphores (GIL handoff + OS switch)"
        s = settings(switch_interval_s=sys.getswitchinterval(), stackless=False)
        emit_timed("switch", op, 2, s, b)
    elif BENCH == "asyncio-spawn":
        b = asyncio.run(asyncio_spawn())
        op = "asyncio.create_task of a coroutine that runs to its first await on a pending Future"
        emit_timed("spawn", op, 0, settings(event_loop=loop_name, stackless=True), b)
    elif BENCH == "greenlet-spawn":
        b = greenlet_spawn()
        op = "create a greenlet, switch into it, and its switch back to the parent (includes 2 switches)"
        emit_timed("spawn", op, 0, settings(greenlet=greenlet_version(), stackless=False), b)
    elif BENCH == "asyncio-memory":
        heap, rss = asyncio_memory()
        s = settings(event_loop=loop_name, stackless=True, contexts=CONTEXTS)
        op = "one asyncio task suspended at an await on a pending Future"
        emit_memory(op, "tracemalloc traced bytes delta after gc.collect()", s, heap)
        emit_memory(op, "VmRSS delta of the python process (tracemalloc on)", s, rss)
    elif BENCH == "greenlet-memory":
        heap, rss = greenlet_memory()
        s = settings(greenlet=greenlet_version(), stackless=False, contexts=CONTEXTS)
        op = "one greenlet parked after switching back to its parent"
        emit_memory(op, "tracemalloc traced bytes delta after gc.collect()", s, heap)
        emit_memory(op, "VmRSS delta of the python process (tracemalloc on)", s, rss)
    else:
        bad_input(
            f'unknown CTXBENCH_BENCH "{BENCH}" (want asyncio-pingpong, greenlet-switch, thread-lock, '
            "asyncio-spawn, greenlet-spawn, asyncio-memory or greenlet-memory)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
