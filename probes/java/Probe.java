/*
 * ctxbench runtime probe for Java: platform threads and virtual threads.
 *
 * What one op is, per bench (CTXBENCH_BENCH):
 *   platform-park   one round trip between two platform threads: the driver sets a volatile
 *                   turn flag, LockSupport.unpark()s the peer and parks until the peer hands the
 *                   turn back the same way = 2 hops (each an OS thread switch).
 *   virtual-park    the same code on two virtual threads = 2 hops (each a continuation
 *                   freeze/thaw on a carrier thread). Carriers come from
 *                   -Djdk.virtualThreadScheduler.parallelism, read back into "settings".
 *   platform-spawn  Thread.start() of a platform thread that runs until it parks.
 *   virtual-spawn   start of a virtual thread, from a virtual thread, that runs until it parks.
 *   virtual-memory  Java heap used after System.gc() per parked virtual thread (its stack lives
 *                   on the heap as stack chunks, JEP 444), and the VmRSS delta.
 * Method: LockSupport park/unpark on a turn flag, identical code for both thread kinds
 * (OpenJDK Loom's park/unpark ping-pong benchmarks use the same shape). A batch of ops is
 * timed with System.nanoTime() in the driver. JIT warm-up is untimed:
 * the calibration runs, then warm-up samples (at least CTXBENCH_WARMUP of them, and for at least
 * CTXBENCH_JIT_WARMUP_MS, default 1000, as C2 compiles late), which also re-aim the iteration
 * count at the target as later runs are faster.
 * CTXBENCH_DEPTH adds that many recursive frames between the thread's loop and park(), because
 * a virtual thread's park copies its frames (Loom freeze/thaw cost grows with depth).
 * Compiled with javac --release 17; Thread.ofVirtual() is reached by reflection so the same
 * class runs on any runtime >= 17 and reports virtual threads unavailable below 21.
 * Output: one JSON line per measured block, format ctxbench-probe/1 (docs/probes.md).
 */

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

public final class Probe {

    // ------------------------------------------------------------ parameters

    static final class BadInput extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadInput(String msg) {
            super(msg);
        }
    }

    static long envLong(String name, long def) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            return def;
        }
        try {
            long x = Long.parseLong(v);
            if (x < 0) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new BadInput(name + " must be a non-negative integer, got " + v);
        }
    }

    static final String BENCH = System.getenv().getOrDefault("CTXBENCH_BENCH", "");
    static long iterations;
    static int samples;
    static int warmup;
    static long targetNs;
    static int contexts;
    static int depth;
    static long jitWarmupNs;

    // ------------------------------------------------------------ measurement core

    interface Run {
        long run(long n) throws Exception;
    }

    static final class Block {
        long iterations;
        int warmup;
        long[] samples;
        long totalOps;
        long ctxSwitches;
    }

    /* Calibration: grow n until one run takes a quarter of the target, then scale n so that a
     * sample lasts about targetNs. Same rule in every probe (docs/probes.md). */
    static Block measure(Run r) throws Exception {
        Block b = new Block();
        long n = iterations;
        long total = 0;
        if (n == 0) {
            n = 1;
            for (;;) {
                long t = Math.max(1, r.run(n));
                total += n;
                if (t >= targetNs / 4 || n >= (1L << 40)) {
                    n = reaim(n, t);
                    break;
                }
                n *= (t < targetNs / 100) ? 10 : 2;
            }
        }
        // Warm-up samples also re-aim n: a JIT makes later runs faster than calibration saw.
        // They go on until jitWarmupNs of untimed running has passed (C2 needs that long).
        long warmStart = System.nanoTime();
        int warmed = 0;
        for (; warmed < warmup || System.nanoTime() - warmStart < jitWarmupNs; warmed++) {
            long t = Math.max(1, r.run(n));
            total += n;
            if (iterations == 0 && (t < targetNs / 2 || t > targetNs * 2)) {
                n = reaim(n, t);
            }
        }
        long c0 = ctxSwitches();
        b.samples = new long[samples];
        for (int i = 0; i < samples; i++) {
            b.samples[i] = r.run(n);
        }
        long c1 = ctxSwitches();
        b.iterations = n;
        b.warmup = warmed;
        b.totalOps = total + n * samples;
        b.ctxSwitches = c1 - c0;
        return b;
    }

    /* Scales n so a run lasts about targetNs, shrinking it by at most half per step: noise only
     * ever makes a run slower, so one run stretched by a noisy neighbour must not shrink the
     * samples to nothing. */
    static long reaim(long n, long t) {
        long x = Math.round((double) n * targetNs / Math.max(1, t));
        return Math.max(1, Math.max(n / 2, x));
    }

    /* Voluntary plus involuntary OS context switches summed over every thread of the JVM (what
     * getrusage(RUSAGE_SELF) would say; Java has no direct call for it). */
    static long ctxSwitches() {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (Exception gone) {
                    // the thread exited while we listed it
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return sum;
    }

    static long vmRss() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
            }
        }
        return 0;
    }

    // ------------------------------------------------------------ threads

    static ThreadFactory factory(boolean virtual) throws Exception {
        if (!virtual) {
            return r -> {
                Thread t = new Thread(r);
                t.setDaemon(true);
                return t;
            };
        }
        Method ofVirtual = Thread.class.getMethod("ofVirtual");
        Object builder = ofVirtual.invoke(null);
        Method f = Class.forName("java.lang.Thread$Builder").getMethod("factory");
        return (ThreadFactory) f.invoke(builder);
    }

    /* Why virtual threads cannot run here, or null when they can. */
    static String virtualUnavailable() {
        if (Runtime.version().feature() < 21) {
            return "virtual threads need a Java runtime >= 21, this is " + Runtime.version();
        }
        try {
            factory(true);
            return null;
        } catch (Exception e) {
            return "Thread.ofVirtual() failed: " + e;
        }
    }

    static int parkAt(int d) {
        if (d <= 0) {
            LockSupport.park();
            return 0;
        }
        return parkAt(d - 1) + 1;
    }

    static final class PingPong {
        volatile int turn; // 0: the driver runs, 1: the peer runs
        volatile boolean stop;
        Thread driver;
        Thread peer;
        Block block;
        Exception failure;

        void peerLoop() {
            for (;;) {
                while (turn != 1) {
                    if (stop) {
                        return;
                    }
                    parkAt(depth);
                }
                turn = 0;
                LockSupport.unpark(driver);
            }
        }

        long sample(long n) {
            long t0 = System.nanoTime();
            for (long i = 0; i < n; i++) {
                turn = 1;
                LockSupport.unpark(peer);
                while (turn != 0) {
                    parkAt(depth);
                }
            }
            return System.nanoTime() - t0;
        }
    }

    static Block pingPong(boolean virtual) throws Exception {
        ThreadFactory tf = factory(virtual);
        PingPong pp = new PingPong();
        pp.peer = tf.newThread(pp::peerLoop);
        pp.driver = tf.newThread(() -> {
            try {
                pp.block = measure(pp::sample);
            } catch (Exception e) {
                pp.failure = e;
            }
        });
        pp.peer.start();
        pp.driver.start();
        pp.driver.join();
        pp.stop = true;
        LockSupport.unpark(pp.peer);
        pp.peer.join();
        if (pp.failure != null) {
            throw pp.failure;
        }
        return pp.block;
    }

    /* Parked children: each counts down the latch, then parks until released. */
    static final class Parked {
        volatile boolean release;
        final Thread[] threads;
        CountDownLatch started;

        Parked(int n) {
            threads = new Thread[n];
        }

        void start(ThreadFactory tf, int n) throws InterruptedException {
            started = new CountDownLatch(n);
            release = false;
            for (int i = 0; i < n; i++) {
                Thread t = tf.newThread(() -> {
                    started.countDown();
                    while (!release) {
                        parkAt(depth);
                    }
                });
                threads[i] = t;
                t.start();
            }
            started.await();
        }

        void releaseAll(int n) throws InterruptedException {
            release = true;
            for (int i = 0; i < n; i++) {
                LockSupport.unpark(threads[i]);
            }
            for (int i = 0; i < n; i++) {
                threads[i].join();
                threads[i] = null;
            }
        }
    }

    /* Runs body on a thread of the given kind, so virtual threads are started from a virtual
     * thread (the common case in a server) and platform threads from a platform thread. */
    static <T> T onThread(boolean virtual, java.util.concurrent.Callable<T> body) throws Exception {
        Object[] out = new Object[1];
        Exception[] err = new Exception[1];
        Thread t = factory(virtual).newThread(() -> {
            try {
                out[0] = body.call();
            } catch (Exception e) {
                err[0] = e;
            }
        });
        t.start();
        t.join();
        if (err[0] != null) {
            throw err[0];
        }
        @SuppressWarnings("unchecked")
        T r = (T) out[0];
        return r;
    }

    static Block spawn(boolean virtual) throws Exception {
        ThreadFactory tf = factory(virtual);
        return onThread(virtual, () -> measure(n -> {
            Parked p = new Parked((int) n);
            long t0 = System.nanoTime();
            p.start(tf, (int) n);
            long t = System.nanoTime() - t0;
            p.releaseAll((int) n);
            return t;
        }));
    }

    static long heapUsedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static long[][] virtualMemory() throws Exception {
        ThreadFactory tf = factory(true);
        int runs = samples + warmup;
        return onThread(true, () -> {
            long[] heap = new long[runs];
            long[] rss = new long[runs];
            for (int i = 0; i < runs; i++) {
                Parked p = new Parked(contexts);
                long h0 = heapUsedAfterGc();
                long r0 = vmRss();
                p.start(tf, contexts);
                long h1 = heapUsedAfterGc();
                long r1 = vmRss();
                p.releaseAll(contexts);
                heap[i] = h1 - h0;
                rss[i] = r1 - r0;
            }
            return new long[][] {heap, rss};
        });
    }

    // ------------------------------------------------------------ output

    static String jstr(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static String jval(Object v) {
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return jstr(String.valueOf(v));
    }

    static Map<String, Object> settings(boolean virtual) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("java_version", Runtime.version().toString());
        s.put("vm", System.getProperty("java.vm.name"));
        s.put("thread_kind", virtual ? "virtual" : "platform");
        List<String> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcs.add(gc.getName());
        }
        s.put("gc", String.join("+", gcs));
        s.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
        s.put("available_processors", Runtime.getRuntime().availableProcessors());
        if (virtual) {
            String par = System.getProperty("jdk.virtualThreadScheduler.parallelism");
            s.put("carriers", par != null ? par : "default (" + Runtime.getRuntime().availableProcessors() + ")");
        }
        s.put("stack_depth", depth);
        s.put("jit_warmup", "calibration runs + at least " + warmup + " untimed warm-up samples and "
                + jitWarmupNs / 1_000_000 + " ms");
        return s;
    }

    static String join(Map<String, Object> m) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append(jstr(e.getKey())).append(':').append(jval(e.getValue()));
        }
        return b.append('}').toString();
    }

    static String list(long[] v) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < v.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(v[i]);
        }
        return b.append(']').toString();
    }

    static void emitTimed(String kind, String op, int hops, Map<String, Object> s, Block b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", "ctxbench-probe/1");
        m.put("kind", kind);
        m.put("name", "java/" + BENCH);
        m.put("op", op);
        if (hops > 0) {
            m.put("hops_per_op", hops);
        }
        m.put("iterations", b.iterations);
        m.put("warmup_samples", b.warmup);
        m.put("total_ops", b.totalOps);
        m.put("ctx_switches", b.ctxSwitches);
        String head = join(m);
        System.out.println(head.substring(0, head.length() - 1) + ",\"settings\":" + join(s)
                + ",\"samples_ns\":" + list(b.samples) + "}");
    }

    static void emitMemory(String op, String metric, Map<String, Object> s, long[] all) {
        long[] timed = java.util.Arrays.copyOfRange(all, warmup, all.length);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("format", "ctxbench-probe/1");
        m.put("kind", "memory");
        m.put("name", "java/" + BENCH);
        m.put("op", op);
        m.put("metric", metric);
        m.put("iterations", contexts);
        m.put("warmup_samples", warmup);
        m.put("total_ops", (long) contexts * all.length);
        String head = join(m);
        System.out.println(head.substring(0, head.length() - 1) + ",\"settings\":" + join(s)
                + ",\"samples_bytes\":" + list(timed) + "}");
    }

    static void emitUnavailable(String reason) {
        System.out.println("{\"format\":\"ctxbench-probe/1\",\"kind\":\"unavailable\",\"name\":"
                + jstr("java/" + BENCH) + ",\"reason\":" + jstr(reason) + "}");
    }

    // ------------------------------------------------------------ main

    public static void main(String[] args) {
        int status = 0;
        try {
            iterations = envLong("CTXBENCH_ITERATIONS", 0);
            samples = (int) Math.max(1, envLong("CTXBENCH_SAMPLES", 10));
            warmup = (int) envLong("CTXBENCH_WARMUP", 1);
            targetNs = Math.max(1000, envLong("CTXBENCH_TARGET_NS", 20_000_000));
            contexts = (int) Math.max(1, envLong("CTXBENCH_CONTEXTS", 100_000));
            depth = (int) envLong("CTXBENCH_DEPTH", 0);
            jitWarmupNs = envLong("CTXBENCH_JIT_WARMUP_MS", 1000) * 1_000_000L;
            boolean virtual = BENCH.startsWith("virtual-");
            if (virtual) {
                String why = virtualUnavailable();
                if (why != null) {
                    emitUnavailable(why);
                    System.exit(0);
                }
            }
            switch (BENCH) {
                case "platform-park":
                case "virtual-park":
                    emitTimed("switch", "round trip between two " + (virtual ? "virtual" : "platform")
                            + " threads: volatile turn flag + LockSupport.unpark/park", 2,
                            settings(virtual), pingPong(virtual));
                    break;
                case "platform-spawn":
                case "virtual-spawn":
                    emitTimed("spawn", "start of a " + (virtual ? "virtual" : "platform")
                            + " thread that runs until it parks (latch countDown, then park)", 0,
                            settings(virtual), spawn(virtual));
                    break;
                case "virtual-memory": {
                    long[][] r = virtualMemory();
                    Map<String, Object> s = settings(true);
                    s.put("contexts", contexts);
                    String op = "one virtual thread parked in LockSupport.park";
                    emitMemory(op, "Java heap used delta after System.gc() x3", s, r[0]);
                    emitMemory(op, "VmRSS delta of the JVM process", s, r[1]);
                    break;
                }
                default:
                    throw new BadInput("unknown CTXBENCH_BENCH \"" + BENCH + "\" (want platform-park, "
                            + "virtual-park, platform-spawn, virtual-spawn or virtual-memory)");
            }
        } catch (BadInput e) {
            System.err.println("ctxbench probe: " + e.getMessage());
            status = 2;
        } catch (Throwable e) {
            System.err.println("ctxbench probe: " + e);
            e.printStackTrace();
            status = 3;
        }
        System.out.flush();
        System.exit(status);
    }
}
