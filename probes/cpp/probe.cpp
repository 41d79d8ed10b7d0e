// ctxbench runtime probe for C++20 coroutines (stackless).
//
// What one op is, per bench (CTXBENCH_BENCH):
//   coroutine-resume  one coroutine_handle::resume() into a suspended generator plus its
//                     co_yield back to the caller = 2 hops. STACKLESS: the coroutine's locals
//                     live in a heap frame and resume is an indirect call, so no stack is
//                     switched; it is a floor below any stackful switch, not the same thing.
//   coroutine-spawn   creating a generator coroutine (operator new of its frame) and resuming it
//                     to its first co_yield, leaving it suspended there.
//   coroutine-memory  bytes of coroutine frame per suspended coroutine, counted in the promise
//                     type's operator new (exact, no sampling noise).
// Method: a generator resumed in a loop, every yielded value added into an accumulator that
// passes through an empty asm barrier, so the compiler can neither elide the loop nor inline
// the coroutine away (HALO); the generator is created in a noinline function. A batch of ops
// is timed with std::chrono::steady_clock (clock_gettime CLOCK_MONOTONIC). Built with
// g++ -std=c++20 -O2.
// Output: one JSON line per measured block, format ctxbench-probe/1 (docs/probes.md).

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <coroutine>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace {

// ---------------------------------------------------------------- parameters

[[noreturn]] void bad_input(const std::string& msg) {
    std::fprintf(stderr, "ctxbench probe: %s\n", msg.c_str());
    std::exit(2);
}

uint64_t env_u64(const char* name, uint64_t def) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return def;
    char* end = nullptr;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (*end != '\0' || *v == '-') bad_input(std::string(name) + " must be a non-negative integer, got " + v);
    return x;
}

struct Params {
    std::string bench;
    uint64_t iterations, target_ns, contexts;
    size_t samples, warmup;
};

Params params() {
    const char* b = std::getenv("CTXBENCH_BENCH");
    Params p;
    p.bench = b ? b : "";
    p.iterations = env_u64("CTXBENCH_ITERATIONS", 0);
    p.samples = std::max<uint64_t>(1, env_u64("CTXBENCH_SAMPLES", 10));
    p.warmup = env_u64("CTXBENCH_WARMUP", 1);
    p.target_ns = std::max<uint64_t>(1000, env_u64("CTXBENCH_TARGET_NS", 20000000));
    p.contexts = std::max<uint64_t>(1, env_u64("CTXBENCH_CONTEXTS", 100000));
    return p;
}

// ---------------------------------------------------------------- the generator

uint64_t g_frame_bytes = 0;  // coroutine frame bytes currently allocated

struct Gen {
    struct promise_type {
        uint64_t value = 0;
        // Counting the frame allocation is the exact per-coroutine memory cost.
        static void* operator new(size_t n) {
            g_frame_bytes += n;
            return ::operator new(n);
        }
        static void operator delete(void* p, size_t n) {
            g_frame_bytes -= n;
            ::operator delete(p);
        }
        Gen get_return_object() { return Gen{std::coroutine_handle<promise_type>::from_promise(*this)}; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        std::suspend_always yield_value(uint64_t v) noexcept {
            value = v;
            return {};
        }
        void return_void() noexcept {}
        void unhandled_exception() { std::abort(); }
    };

    std::coroutine_handle<promise_type> h;
    explicit Gen(std::coroutine_handle<promise_type> handle) : h(handle) {}
    Gen(Gen&& o) noexcept : h(std::exchange(o.h, {})) {}
    Gen(const Gen&) = delete;
    ~Gen() {
        if (h) h.destroy();
    }
};

Gen counter(uint64_t start) {
    for (uint64_t i = start;; ++i) co_yield i;
}

__attribute__((noinline)) Gen make_counter(uint64_t start) { return counter(start); }

inline void keep(uint64_t& v) { asm volatile("" : "+r"(v)); }

// ---------------------------------------------------------------- measurement core

uint64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

uint64_t ctx_switches() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

struct Block {
    uint64_t iterations = 0, total_ops = 0, csw = 0;
    size_t warmup = 0;
    std::vector<uint64_t> samples;
};

// Scales n so a run lasts about the target, shrinking it by at most half per step: noise only
// ever makes a run slower, so one run stretched by a noisy neighbour must not shrink the
// samples to nothing.
uint64_t scaled(uint64_t n, uint64_t t, uint64_t target) {
    double x = (double)n * (double)target / (double)(t ? t : 1);
    uint64_t v = x < 1 ? 1 : (uint64_t)(x + 0.5);
    return std::max<uint64_t>({1, n / 2, v});
}

// Calibration: grow n until one run takes a quarter of the target, then scale n so a sample
// lasts about target_ns; warm-up samples re-aim n. Same rule in every probe (docs/probes.md).
template <class Run>
Block measure(const Params& p, Run run) {
    Block b;
    uint64_t n = p.iterations, total = 0;
    if (n == 0) {
        n = 1;
        for (;;) {
            uint64_t t = std::max<uint64_t>(1, run(n));
            total += n;
            if (t >= p.target_ns / 4 || n >= (1ull << 40)) {
                n = scaled(n, t, p.target_ns);
                break;
            }
            n *= (t < p.target_ns / 100) ? 10 : 2;
        }
    }
    for (size_t i = 0; i < p.warmup; i++) {
        uint64_t t = std::max<uint64_t>(1, run(n));
        total += n;
        if (p.iterations == 0 && (t < p.target_ns / 2 || t > p.target_ns * 2)) n = scaled(n, t, p.target_ns);
    }
    uint64_t c0 = ctx_switches();
    for (size_t i = 0; i < p.samples; i++) b.samples.push_back(run(n));
    b.csw = ctx_switches() - c0;
    b.iterations = n;
    b.warmup = p.warmup;
    b.total_ops = total + n * p.samples;
    return b;
}

// ---------------------------------------------------------------- benches

Block resume_bench(const Params& p) {
    Gen g = make_counter(1);
    return measure(p, [&](uint64_t n) {
        uint64_t acc = 0;
        uint64_t t0 = now_ns();
        for (uint64_t i = 0; i < n; i++) {
            g.h.resume();
            acc += g.h.promise().value;
            keep(acc);
        }
        uint64_t t = now_ns() - t0;
        if (acc == 0) bad_input("generator yielded nothing");
        return t;
    });
}

void spawn_parked(uint64_t k, std::vector<Gen>& parked) {
    for (uint64_t i = 0; i < k; i++) {
        parked.push_back(make_counter(i));
        parked.back().h.resume();
        uint64_t v = parked.back().h.promise().value;
        keep(v);
    }
}

Block spawn_bench(const Params& p) {
    return measure(p, [&](uint64_t n) {
        std::vector<Gen> parked;
        parked.reserve(n);  // the vector's growth stays out of the timed part
        uint64_t t0 = now_ns();
        spawn_parked(n, parked);
        uint64_t t = now_ns() - t0;
        return t;  // destroying the frames happens after timing, when parked goes out of scope
    });
}

// ---------------------------------------------------------------- output

std::string jstr(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if ((unsigned char)c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            o += buf;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

template <class T>
std::string list(const std::vector<T>& v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); i++) o += (i ? "," : "") + std::to_string(v[i]);
    return o + "]";
}

std::string settings(const std::string& extra) {
    return "{\"compiler\":" + jstr(std::string("g++ ") + __VERSION__) +
           ",\"flags\":\"-std=c++20 -O2\",\"stackless\":true,\"frame_allocation\":\"operator new\"" + extra + "}";
}

void emit_timed(const char* kind, const Params& p, const std::string& op, int hops, const Block& b) {
    std::string hop = hops ? ",\"hops_per_op\":" + std::to_string(hops) : "";
    std::printf(
        "{\"format\":\"ctxbench-probe/1\",\"kind\":\"%s\",\"name\":%s,\"op\":%s%s,\"iterations\":%llu,"
        "\"warmup_samples\":%zu,\"total_ops\":%llu,\"ctx_switches\":%llu,\"settings\":%s,\"samples_ns\":%s}\n",
        kind, jstr("cpp/" + p.bench).c_str(), jstr(op).c_str(), hop.c_str(), (unsigned long long)b.iterations,
        b.warmup, (unsigned long long)b.total_ops, (unsigned long long)b.csw, settings("").c_str(),
        list(b.samples).c_str());
}

void emit_memory(const Params& p, const std::string& op, const std::string& metric, const std::vector<long long>& s) {
    std::printf(
        "{\"format\":\"ctxbench-probe/1\",\"kind\":\"memory\",\"name\":%s,\"op\":%s,\"metric\":%s,\"iterations\":%llu,"
        "\"warmup_samples\":%zu,\"total_ops\":%llu,\"settings\":%s,\"samples_bytes\":%s}\n",
        jstr("cpp/" + p.bench).c_str(), jstr(op).c_str(), jstr(metric).c_str(), (unsigned long long)p.contexts,
        p.warmup, (unsigned long long)(p.contexts * (p.warmup + s.size())),
        settings(",\"contexts\":" + std::to_string(p.contexts)).c_str(), list(s).c_str());
}

}  // namespace

int main() {
    Params p = params();
    if (p.bench == "coroutine-resume") {
        emit_timed("switch", p, "resume() into a suspended C++20 generator and its co_yield back (stackless)", 2,
                   resume_bench(p));
    } else if (p.bench == "coroutine-spawn") {
        emit_timed("spawn", p, "create a C++20 generator coroutine (heap frame) and resume it to its first co_yield",
                   0, spawn_bench(p));
    } else if (p.bench == "coroutine-memory") {
        // Only the frame bytes are reported: an RSS delta would mostly show whether malloc
        // reused memory freed by the previous sample, not what a coroutine costs.
        std::vector<long long> frames;
        for (size_t i = 0; i < p.samples + p.warmup; i++) {
            std::vector<Gen> parked;
            parked.reserve(p.contexts);
            long long f0 = (long long)g_frame_bytes;
            spawn_parked(p.contexts, parked);
            frames.push_back((long long)g_frame_bytes - f0);
        }
        frames.erase(frames.begin(), frames.begin() + p.warmup);
        const std::string op = "one C++20 generator suspended at its first co_yield";
        emit_memory(p, op, "coroutine frame bytes (counted in promise_type::operator new)", frames);
    } else {
        bad_input("unknown CTXBENCH_BENCH \"" + p.bench +
                  "\" (want coroutine-resume, coroutine-spawn or coroutine-memory)");
    }
    return 0;
}
