#!/usr/bin/env python3
"""Writes the recorded sysfs trees host's topology tests read.

Each tree is <name>/sys/devices/{system/cpu,system/node,cpu_core,cpu_atom}/...
with the files ReadTopology reads (and the caches' sizes), in the kernel's
formats (CPU lists as "0-3,8-11", sizes as "32K"):

  intel-2s-smt     a 2-socket Intel Xeon (Skylake-SP style numbering): 2 x 4
                   cores x 2 threads, CPUs 0-7 the first threads of socket 0
                   then 1, 8-15 the second; core ids repeat in each socket;
                   L1/L2 per core, one L3 per socket; a NUMA node per socket;
                   a 4.x kernel's files (no core_cpus_list, no cluster_id).
  amd-2ccd         an AMD Ryzen 9 7950X: 1 socket, 16 cores x 2 threads
                   (siblings n and n+16), 2 CCDs of 8 cores each with its own
                   32 MiB L3; one NUMA node.
  intel-hybrid     an Intel Core i7-1260P: 4 P cores with SMT (siblings 0,1;
                   2,3; ...) and 8 E cores (8-15) in 2 modules of 4 sharing
                   an L2; one L3; cpu_core/cpus and cpu_atom/cpus.
  amd-epyc-2s-nps2 a 2-socket AMD EPYC in NPS2 with SMT off, trimmed to 2
                   cores per CCX: 2 sockets x 2 NUMA nodes x 2 L3s x 2 cores.
  guest            this machine, a 2-vCPU KVM guest (copied, not generated:
                   `python3 make.py --copy-guest` re-copies it from /sys).

Run it from this directory; it rewrites the generated trees.
"""

import os
import shutil
import sys


def cpulist(cpus):
    cpus = sorted(set(cpus))
    out, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


class Machine:
    """cpus: CPU number -> dict(package, die, cluster, core, node, caches);
    caches: list of (level, type, id, size) with the sharing set derived
    from which CPUs carry the same (level, type, id)."""

    def __init__(self, name):
        self.name, self.cpus, self.extra = name, {}, {}
        self.old_kernel = False  # a 4.x kernel: no core_cpus_list (5.3), no cluster_id (5.16)

    def cpu(self, n, **kw):
        self.cpus[n] = kw

    def save(self):
        root = os.path.join(self.name, "sys", "devices")
        if os.path.exists(self.name):
            shutil.rmtree(self.name)
        base = os.path.join(root, "system", "cpu")
        all_cpus = sorted(self.cpus)
        for f in ("online", "possible", "present"):
            write(os.path.join(base, f), cpulist(all_cpus))

        def same(key):
            return lambda n: [m for m in all_cpus if key(self.cpus[m]) == key(self.cpus[n])]

        threads = same(lambda c: (c["package"], c["die"], c["core"]))
        for n in all_cpus:
            c = self.cpus[n]
            d = os.path.join(base, "cpu%d" % n)
            t = os.path.join(d, "topology")
            write(os.path.join(t, "physical_package_id"), str(c["package"]))
            write(os.path.join(t, "die_id"), str(c["die"]))
            write(os.path.join(t, "core_id"), str(c["core"]))
            write(os.path.join(t, "thread_siblings_list"), cpulist(threads(n)))
            if not self.old_kernel:
                write(os.path.join(t, "cluster_id"), str(c["cluster"]))
                write(os.path.join(t, "core_cpus_list"), cpulist(threads(n)))
            for i, (level, typ, cid, size) in enumerate(c["caches"]):
                shared = [m for m in all_cpus if (level, typ, cid) in
                          [(l, ty, ci) for (l, ty, ci, _) in self.cpus[m]["caches"]]]
                x = os.path.join(d, "cache", "index%d" % i)
                write(os.path.join(x, "level"), str(level))
                write(os.path.join(x, "type"), typ)
                write(os.path.join(x, "id"), str(cid))
                write(os.path.join(x, "shared_cpu_list"), cpulist(shared))
                write(os.path.join(x, "size"), size)
            if "capacity" in c:
                write(os.path.join(d, "cpu_capacity"), str(c["capacity"]))
        nodes = sorted({c["node"] for c in self.cpus.values()})
        nb = os.path.join(root, "system", "node")
        for f in ("online", "possible", "has_cpu"):
            write(os.path.join(nb, f), cpulist(nodes))
        for nd in nodes:
            write(os.path.join(nb, "node%d" % nd, "cpulist"),
                  cpulist([m for m in all_cpus if self.cpus[m]["node"] == nd]))
        for p, text in self.extra.items():
            write(os.path.join(root, p), text)


def intel_2s_smt():
    m = Machine("intel-2s-smt")
    m.old_kernel = True
    for thread in range(2):
        for sock in range(2):
            for core in range(4):
                n = thread * 8 + sock * 4 + core
                apic = sock * 64 + core * 2 + thread
                l2 = apic >> 1
                m.cpu(n, package=sock, die=0, cluster=l2, core=core, node=sock,
                      caches=[(1, "Data", l2, "32K"), (1, "Instruction", l2, "32K"),
                              (2, "Unified", l2, "1024K"), (3, "Unified", sock, "11264K")])
    m.save()


def amd_2ccd():
    m = Machine("amd-2ccd")
    for thread in range(2):
        for core in range(16):
            n = thread * 16 + core
            m.cpu(n, package=0, die=0, cluster=core, core=core, node=0,
                  caches=[(1, "Data", core, "32K"), (1, "Instruction", core, "32K"),
                          (2, "Unified", core, "1024K"), (3, "Unified", core // 8, "32768K")])
    m.save()


def intel_hybrid():
    m = Machine("intel-hybrid")
    for core in range(4):  # P cores: core ids 0, 4, 8, 12; siblings numbered together
        for thread in range(2):
            m.cpu(core * 2 + thread, package=0, die=0, cluster=core, core=core * 4, node=0,
                  caches=[(1, "Data", core, "48K"), (1, "Instruction", core, "32K"),
                          (2, "Unified", core, "1280K"), (3, "Unified", 0, "18432K")])
    for e in range(8):  # E cores: core ids 16-23, modules of 4 sharing an L2
        l1 = 4 + e
        l2 = 4 + e // 4
        m.cpu(8 + e, package=0, die=0, cluster=l2, core=16 + e, node=0,
              caches=[(1, "Data", l1, "32K"), (1, "Instruction", l1, "64K"),
                      (2, "Unified", l2, "2048K"), (3, "Unified", 0, "18432K")])
    m.extra = {"cpu_core/cpus": "0-7", "cpu_atom/cpus": "8-15"}
    m.save()


def amd_epyc_2s_nps2():
    m = Machine("amd-epyc-2s-nps2")
    for sock in range(2):
        for core in range(8):  # 2 nodes x 2 CCX x 2 cores per socket
            n = sock * 8 + core
            l3 = sock * 4 + core // 2
            m.cpu(n, package=sock, die=0, cluster=n, core=core, node=sock * 2 + core // 4,
                  caches=[(1, "Data", n, "32K"), (1, "Instruction", n, "32K"),
                          (2, "Unified", n, "512K"), (3, "Unified", l3, "16384K")])
    m.save()


def copy_guest():
    """Copies this machine's small topology files (no symbolic links)."""
    name = "guest"
    if os.path.exists(name):
        shutil.rmtree(name)

    def cp(rel):
        src = os.path.join("/", rel)
        if os.path.isfile(src):
            with open(src) as f:
                write(os.path.join(name, rel), f.read().strip())

    base = "sys/devices/system/cpu"
    for f in ("online", "possible", "present"):
        cp(os.path.join(base, f))
    for n in os.listdir("/" + base):
        if not (n.startswith("cpu") and n[3:].isdigit()):
            continue
        d = os.path.join(base, n)
        cp(os.path.join(d, "cpu_capacity"))
        if os.path.isdir("/" + d + "/topology"):
            for f in os.listdir("/" + d + "/topology"):
                cp(os.path.join(d, "topology", f))
        if os.path.isdir("/" + d + "/cache"):
            for ix in os.listdir("/" + d + "/cache"):
                if ix.startswith("index"):
                    for f in ("level", "type", "id", "shared_cpu_list", "size"):
                        cp(os.path.join(d, "cache", ix, f))
    nb = "sys/devices/system/node"
    if os.path.isdir("/" + nb):
        for f in ("online", "possible", "has_cpu"):
            cp(os.path.join(nb, f))
        for nd in os.listdir("/" + nb):
            if nd.startswith("node") and nd[4:].isdigit():
                cp(os.path.join(nb, nd, "cpulist"))
    for f in ("sys/devices/cpu_core/cpus", "sys/devices/cpu_atom/cpus"):
        cp(f)


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    if "--copy-guest" in sys.argv:
        copy_guest()
    else:
        intel_2s_smt()
        amd_2ccd()
        intel_hybrid()
        amd_epyc_2s_nps2()
