#!/usr/bin/env python3
"""protocols.py: the verdicts of scripts/protocols.sh, from the files it wrote.

Every comparison goes through `ctxbench compare --format json` (the binary
in OUT, or $CTXBENCH): what is checked is what a user would be told.
"""
import glob
import json
import math
import os
import re
import statistics as st
import subprocess
import sys
import tempfile

what, out = sys.argv[1], sys.argv[2]
binary = os.environ.get("CTXBENCH") or os.path.join(out, "ctxbench")


def load(path):
    with open(path) as f:
        return json.load(f)


def rows(doc):
    return {(r["name"], r["placement"]): r for r in doc["results"]}


def contended(r):
    """A figure flagged contended is no clean measurement: other work took its CPU."""
    return any(f.get("code") == "contended" for f in r.get("flags") or [])


def runs(prefix):
    files = sorted(glob.glob(os.path.join(out, prefix + "-*.json")), key=lambda p: int(re.findall(r"(\d+)\.json$", p)[0]))
    return [(int(re.findall(r"(\d+)\.json$", p)[0]), p) for p in files]


def cv(xs):
    return st.pstdev(xs) / st.mean(xs) if len(xs) > 1 else 0.0


def verdict(ok, text):
    print(("PASS  " if ok else "FAIL  ") + text)


def compare(base, new):
    """The changes compare states for new against base: {(name, placement): change}."""
    res = subprocess.run([binary, "compare", "--format", "json", base, new], capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit("compare failed: " + res.stderr.strip())
    c = json.loads(res.stdout)
    found = {}
    for t in c["tables"]:
        for r in t["rows"]:
            if r.get("name") == "geomean" or not r.get("changes"):
                continue
            found[(r["name"], r.get("placement", ""))] = r["changes"][0]
    return found


def relabelled(path, src, dst, tmp):
    """path's document with row src renamed dst (the original dst dropped)."""
    d = load(path)
    keep = []
    for r in d["results"]:
        if r["name"] == dst and r["placement"] == "same-cpu":
            continue
        if r["name"] == src and r["placement"] == "same-cpu":
            r["name"] = dst
        keep.append(r)
    d["results"] = keep
    p = os.path.join(tmp, "relabelled-%s.json" % os.path.basename(path))
    with open(p, "w") as f:
        json.dump(d, f)
    return p


def pacing():
    paced, b2b = dict(runs("paced")), dict(runs("b2b"))
    for key in sorted(rows(load(next(iter(paced.values()))))):
        ratios = [rows(load(paced[r]))[key]["one_way_ns"]["median"] / rows(load(b2b[r]))[key]["one_way_ns"]["median"] for r in paced if r in b2b]
        pm = [rows(load(p))[key]["one_way_ns"]["median"] for p in paced.values()]
        bm = [rows(load(p))[key]["one_way_ns"]["median"] for p in b2b.values()]
        med = st.median(ratios)
        verdict(med <= 1.01, "%s %s: paced / back to back %.3f (median of %d pairs; %.3f–%.3f); mean %.0f ns CV %.1f%% vs %.0f ns CV %.1f%%" % (
            key[0], key[1], med, len(ratios), min(ratios), max(ratios), st.mean(pm), 100 * cv(pm), st.mean(bm), 100 * cv(bm)))


def perf():
    ratios = []
    for r, p in runs("ctxbench"):
        txt = open(os.path.join(out, "perf-%d.txt" % r)).read()
        m = re.search(r"([\d.]+) usecs/op", txt)
        if not m:
            continue
        ns = float(m.group(1)) * 1000 / 2  # one op is a round trip: two hops
        ratios.append(rows(load(p))[("process/pipe", "same-cpu")]["one_way_ns"]["median"] / ns)
    med = st.median(ratios)
    verdict(med <= 1.01, "run process/pipe / perf bench sched pipe: %.3f (median of %d rounds; %.3f–%.3f)" % (med, len(ratios), min(ratios), max(ratios)))


def latctx():
    by = {2: [], 8: []}
    for r, p in runs("ring"):
        txt = open(os.path.join(out, "lat-%d.txt" % r)).read()
        lat = {int(a): float(b) * 1000 for a, b in re.findall(r"^(\d+)\s+([\d.]+)\s*$", txt, re.M)}
        for ring in load(p)["rings"]:
            n = ring["tasks"]
            if n in by and n in lat:
                by[n].append(ring["net_ns_per_hop"] / lat[n])
    for n, rs in by.items():
        if rs:
            med = st.median(rs)
            verdict(med <= 1.02, "process ring of %d, net per hop / lat_ctx: %.3f (median of %d rounds)" % (n, med, len(rs)))


def repro():
    files = [p for _, p in runs("run")]
    docs = [rows(load(p)) for p in files]
    keys = sorted(docs[0])
    dirty = sum(contended(r) for d in docs for r in d.values())
    print("      %d of %d figures flagged contended (other work took their CPU) are left out of every check" % (dirty, sum(len(d) for d in docs)))
    docs = [{k: r for k, r in d.items() if not contended(r)} for d in docs]
    hits = pairs = 0
    widths, cvs = [], []
    for key in keys:
        meds = [d[key]["one_way_ns"]["median"] for d in docs if key in d]
        cvs.append(cv(meds))
        for i, d in enumerate(docs):
            if key not in d:
                continue
            rp = d[key]["one_way_ns"].get("reproducibility")
            if not rp:
                continue
            m = d[key]["one_way_ns"]["median"]
            widths.append(max(rp["high"] - m, m - rp["low"]) / m)
            for j, e in enumerate(docs):
                if i != j and key in e:
                    pairs += 1
                    hits += rp["low"] <= e[key]["one_way_ns"]["median"] <= rp["high"]
    cover = hits / pairs if pairs else 0
    verdict(cover >= 0.90, "another invocation's median inside the reproducibility interval: %d of %d pairs (%.1f%%)" % (hits, pairs, 100 * cover))
    w, c = st.median(widths), st.median(cvs)
    verdict(w <= 2.5 * c + 0.01, "median ±REPRO %.1f%% against 2.5 × the between-invocation CV (median over cells %.1f%%) + 1 point = %.1f%%" % (100 * w, 100 * c, 100 * (2.5 * c + 0.01)))
    called = tested = 0
    for (a, da), (b, db) in zip(zip(files, docs), zip(files[1:], docs[1:])):
        for key, ch in compare(a, b).items():
            if key in da and key in db:
                tested += ch["tested"]
                called += ch["significant"]
    verdict(called <= 0.05 * tested, "identical adjacent invocations called different: %d of %d rows" % (called, tested))
    # Relabelled differences: one cell's row presented as another's.
    containers = [k[0] for k in keys if k[0].startswith("container/")]
    pairs_to_try = [("thread/futex", "thread/pipe"), ("container/pipe-cg1", "container/pipe-plain")]
    pairs_to_try += [(x, y) for x in containers for y in containers if x != y and (x, y) not in pairs_to_try]
    graded = []  # (size, rate, src, dst, found, pairs)
    with tempfile.TemporaryDirectory() as tmp:
        for src, dst in pairs_to_try:
            found, diffs = 0, []
            for (a, da), (b, db) in zip(zip(files, docs), zip(files[1:], docs[1:])):
                if (dst, "same-cpu") not in da or (src, "same-cpu") not in db:
                    continue  # a contended figure on either side
                ch = compare(a, relabelled(b, src, dst, tmp)).get((dst, "same-cpu"))
                if not ch or ch.get("change") is None:
                    continue
                truth = db[(src, "same-cpu")]["one_way_ns"]["median"] / da[(dst, "same-cpu")]["one_way_ns"]["median"] - 1
                diffs.append(truth)
                found += ch["significant"] and (ch["change"] > 0) == (truth > 0)
            if not diffs:
                continue
            rate, size = found / len(diffs), st.median(diffs)
            graded.append((abs(size), rate, src, dst, found, len(diffs)))
            if (src, dst) in pairs_to_try[:2]:
                verdict(rate >= 0.8, "%s relabelled %s (%+.1f%%): found in %d of %d pairs" % (src, dst, 100 * size, found, len(diffs)))
    aa = load(os.path.join(out, "aa.json"))["aa"]["resolvable_change"]
    at80 = size_at(graded, 0.8)
    if at80:
        ratio = at80 / aa if aa > 0 else float("inf")
        verdict(1 / 1.5 <= ratio <= 1.5, "aa's resolvable %.1f%% against the relabelled difference compare finds in 80%% of pairs, %.1f%% (a logistic fit of found against size over %d differences): ratio %.2f" % (
            100 * aa, 100 * at80, len(graded), ratio))
    for size, rate, src, dst, _, _ in sorted(graded):
        print("      %-22s as %-22s %+6.1f%%  found %3.0f%%" % (src, dst, 100 * size, 100 * rate))


def size_at(graded, p):
    """The size at which a logistic fit of found against size (the relabelled
    differences, each pair of invocations one trial) reaches p; None without
    a rising fit. The maximum likelihood is found on a grid, refined twice:
    two parameters need no library, and a grid cannot diverge."""
    def loglik(a, b):
        ll = 0.0
        for size, _, _, _, found, n in graded:
            z = a + b * 100 * size
            ll += found * z - n * (max(z, 0) + math.log1p(math.exp(-abs(z))))
        return ll
    best, (a0, b0), (sa, sb) = None, (-5.0, 2.5), (5.0, 2.5)
    for _ in range(3):
        for i in range(41):
            for j in range(41):
                a, b = a0 + sa * (i / 20 - 1), b0 + sb * (j / 20 - 1)
                if b > 0 and (best is None or loglik(a, b) > best[0]):
                    best = (loglik(a, b), a, b)
        _, a0, b0 = best
        sa, sb = sa / 8, sb / 8
    _, a, b = best
    return (math.log(p / (1 - p)) - a) / b / 100 if b > 0 else None


def builds():
    a, b = dict(runs("a")), dict(runs("b"))
    called = tested = found = tries = 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in sorted(a):
            if r not in b:
                continue
            for ch in compare(a[r], b[r]).values():
                tested += ch["tested"]
                called += ch["significant"]
            ch = compare(a[r], relabelled(b[r], "thread/futex", "thread/pipe", tmp)).get(("thread/pipe", "same-cpu"))
            if ch:
                tries += 1
                found += ch["significant"] and ch["change"] < 0
    verdict(called <= 0.05 * tested, "two builds of identical code: %d of %d rows called different" % (called, tested))
    verdict(tries and found >= 0.8 * tries, "two builds: thread/futex relabelled thread/pipe found in %d of %d pairs" % (found, tries))


def ab():
    a = load(os.path.join(out, "aa-interleaved.json"))["ab"]["changes"]
    called = sum(c["resolved"] for c in a)
    verdict(called <= max(0, 0.05 * len(a)), "interleaved A/A: %d of %d rows called different (%s)" % (
        called, len(a), ", ".join("%s %+.1f%% [%+.1f%%, %+.1f%%]" % (c["name"], 100 * c["change"], 100 * c["change_low"], 100 * c["change_high"]) for c in a)))
    b = load(os.path.join(out, "ab-tracepoint.json"))["ab"]["changes"]
    for c in b:
        verdict(c["resolved"] and c["change"] > 0, "A/B, B with the sched_switch tracepoint on: %s %+.1f%% [%+.1f%%, %+.1f%%], %s" % (
            c["name"], 100 * c["change"], 100 * c["change_low"], 100 * c["change_high"], "resolved" if c["resolved"] else "not resolved"))


{"pacing": pacing, "perf": perf, "latctx": latctx, "repro": repro, "builds": builds, "ab": ab}[what]()
