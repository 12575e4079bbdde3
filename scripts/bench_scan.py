"""bench_scan.py - `make bench`, scans and filter (the GPU library's
"Filtering / Prefix-Sum Scan", lib/scan*.crisp and lib/filter.crisp).

For each form, on one OpenCL device, in one run: the kernel crisp
generates, the hand-written OpenCL C kernel of the best known algorithm
(scripts/bench_scan_fast.cl: CUB's single-pass scan - warp-striped int4
loads through a padded warp transpose, warp scans, decoupled look-back by
warp 0), an older hand-written single-pass scan (scripts/bench_scan_ref.cl:
blocked loads, raking scan, thread 0's serial look-back), PyOpenCL's
own algorithm (pyopencl.scan.GenericScanKernel / ExclusiveScanKernel,
pyopencl.algorithm.copy_if) and, where `import cupy` works, CuPy (cumsum,
boolean compaction: NVIDIA's CUB); plus a plain int4 copy, the bandwidth
the others are measured against.  Times are medians of BENCH_SCAN_RUNS
kernel runs (OpenCL profiling events; CuPy events), after warm-ups;
throughput counts the bytes read and written once (n * 4 read + n * 4
written for a scan of ints; n * 4 read + matches * 4 written for filter).

Environment:
  CRISP_PLATFORM    substring of the OpenCL platform name (default: PoCL,
                    "Portable Computing Language"; "NVIDIA" on an H100)
  BENCH_SCAN_N      elements (default 2^24; 2^28 for the H100 figures)
  BENCH_SCAN_RUNS   timed runs per kernel (default 10)
  BENCH_SCAN_WG     work-group size of the hand-written kernels (256), and of
                    the crisp ones when set (default: the local size the
                    kernel's metadata gives, crisp's choice - 128 for the
                    scans of ints, docs/library.md "Scans")
  BENCH_SCAN_GROUPS work-groups launched (default: 8 per compute unit on a
                    GPU, 4 on a CPU, at 256 work-items; as many more as
                    make the same work-items at a smaller local size; the
                    single-pass forms work with any number)
  BENCH_SCAN_CRISP_FLAGS  extra crisp options, e.g. the tile engine's tuning
                    -D+items-per-thread+=32 -D+look-back-batch+=16 -D+window+=64
                    (def-parameters of scripts/bench_scan.crisp)
  BENCH_SCAN_SWEEP  variants of the crisp kernels to time after the main
                    table, in the same process on the same data: entries
                    separated by ';', each "WG GROUPS [FLAGS...]" with
                    WG a work-group size or "auto" (the kernel's metadata's),
                    GROUPS a count or xK (K per compute unit) and FLAGS
                    crisp options, or OpenCL build options when they start
                    with -cl- or -DCRISP_ (e.g. NVIDIA's -cl-nv-maxrregcount=64,
                    -DCRISP_STATUS_RELAXED=1); each
                    prints one line per kernel (GB/s, % of the copy, checked)
  BENCH_SCAN_SWEEP_ONLY=1  the copy and the sweep only
  BENCH_SCAN_FAST   -D variants of scripts/bench_scan_fast.cl for the main
                    table, e.g. "LOAD=1 LOOKBACK=1" (default: its defaults;
                    words starting with - are OpenCL build options;
                    SCAN_NV=1 is added on NVIDIA's OpenCL; G=xK or G=N sets
                    the work-groups of a persistent variant)
  BENCH_SCAN_FAST_SWEEP  variants of bench_scan_fast.cl to time after the
                    main table: entries separated by ';', each like
                    BENCH_SCAN_FAST; each prints its GB/s, % of the copy and
                    whether numpy agrees, per kernel
  BENCH_SCAN_FAST_KERNELS  the sweep's kernels (default "excl,filter"; also incl)
  BENCH_SCAN_FAST_ONLY=1  the copy and bench_scan_fast.cl's sweep only
  BENCH_SCAN_FAST_BIN  a folder: each built variant's program binary is
                    saved there (on NVIDIA its PTX, for ptxas -v)
  BENCH_SCAN_REBIND=1  set every kernel's arguments again on every launch
                    (as before 2026-11-29: the crisp launcher's size
                    expressions then count in its times), to measure that
  BENCH_SCAN_BINARIES  a folder: each crisp program's device binary is
                    saved there as BASE.bin (on NVIDIA its PTX, for
                    `ptxas -v -arch=sm_90 BASE.bin`: registers and spills)
No clang is needed: the .cl files are built by the OpenCL driver.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "out", "bench", "scan")
N = int(os.environ.get("BENCH_SCAN_N", str(1 << 24)))
RUNS = int(os.environ.get("BENCH_SCAN_RUNS", "10"))
WG = int(os.environ.get("BENCH_SCAN_WG", "256"))
CRISP_WG = int(os.environ["BENCH_SCAN_WG"]) if os.environ.get("BENCH_SCAN_WG") else None
PLATFORM = os.environ.get("CRISP_PLATFORM", "Portable Computing Language")


def context():
    plats = [p for p in cl.get_platforms() if PLATFORM.lower() in p.name.lower()]
    if not plats:
        sys.exit("bench_scan: no OpenCL platform matching %r (have: %s)"
                 % (PLATFORM, ", ".join(p.name for p in cl.get_platforms())))
    dev = plats[0].get_devices()[0]
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    return ctx, q, dev


ctx, queue, dev = context()
GROUPS = int(os.environ.get("BENCH_SCAN_GROUPS", str(
    (8 if dev.type & cl.device_type.GPU else 4) * dev.max_compute_units)))


def crisp_launch(k):
    """(work-groups, local size) of a crisp kernel in the main table: its
    metadata's local size unless BENCH_SCAN_WG says, GROUPS (at 256) scaled
    to as many work-items unless BENCH_SCAN_GROUPS says."""
    wg = CRISP_WG or k.local_size()
    groups = GROUPS if os.environ.get("BENCH_SCAN_GROUPS") else max(1, GROUPS * 256 // wg)
    return groups, wg
MF = cl.mem_flags
REBIND = os.environ.get("BENCH_SCAN_REBIND") == "1"


def timed(enqueue, runs=RUNS, warm=2):
    """Median wall-clock seconds of enqueue() up to queue.finish(): the
    same measure for one kernel and for PyOpenCL's several."""
    for _ in range(warm):
        enqueue()
    queue.finish()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        enqueue()
        queue.finish()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


class CrispKernel:
    """A kernel from crisp's .cl and .metacrisp, launched with device
    buffers: vectors by name, __local sizes and the scratch pool from the
    metadata's size expressions (the pool is allocated zero-filled once and
    reused, as a hoist would: the scans reset their own state)."""

    def __init__(self, prog, meta, name):
        self.k = cl.Kernel(prog, name)
        self.meta = [k for k in meta["kernels"] if k["name"] == name][0]
        self.pool = None
        self.bound = None

    def local_size(self):
        """The local size the kernel declares or crisp chose (metadata), or 256."""
        ls = self.meta.get("local_size") or {}
        n = 1
        for x in ls.get("set_to") or [256]:
            n *= x
        return n

    def enqueue(self, gsize, lsize, **vecs):
        # the arguments are set once per launch shape and vectors: setting
        # them (the size expressions evaluated in Python) took 0.43 ms a
        # launch on PoCL's 2-core host, timed with the kernel before
        key = (gsize, lsize, tuple((name, buf.int_ptr, n) for name, (buf, n) in sorted(vecs.items())))
        if key == self.bound and not REBIND:
            return cl.enqueue_nd_range_kernel(queue, self.k, (gsize,), (lsize,))
        self.bound = key
        env = {"local_linear_size": lsize, "global_linear_size": gsize,
               "local_size0": lsize, "global_size0": gsize, "num_groups0": gsize // lsize}
        for name, (buf, n) in vecs.items():
            env[name + "_len"] = n
        for a in self.meta["args"]:
            i, role = a["index"], a["role"]
            if role == "buffer":
                self.k.set_arg(i, vecs[a["name"]][0])
            elif role == "length" and a["param"] in vecs:
                self.k.set_arg(i, np.uint64(vecs[a["param"]][1]))
            elif role == "local":
                n = int(eval(a["size"]["python"], dict(env)))
                self.k.set_arg(i, cl.LocalMemory(max(n, 1) * a["stride"]))
                self.k.set_arg(i + 1, np.uint64(n))
            elif role == "scratch":
                n = int(eval(a["bytes"]["python"], dict(env)))
                if self.pool is None or self.pool.size < max(n, 1):
                    self.pool = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR,
                                          hostbuf=np.zeros(max(n, 16), np.uint8))
                self.k.set_arg(i, self.pool)
                self.k.set_arg(i + 1, np.uint64(n))
        return cl.enqueue_nd_range_kernel(queue, self.k, (gsize,), (lsize,))


def crisp_program(src, base, flags=None, build_options=""):
    os.makedirs(OUT, exist_ok=True)
    crisp = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
    if flags is None:
        flags = os.environ.get("BENCH_SCAN_CRISP_FLAGS", "").split()
    r = subprocess.run([crisp, "--transpile-to=oclc", "--metadata", "--output-dir=" + OUT,
                        "--output-base=" + base] + flags + [src], capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench_scan: crisp failed on %s:\n%s" % (src, r.stderr))
    with open(os.path.join(OUT, base + ".cl")) as f:
        text = f.read()
    with open(os.path.join(OUT, base + ".metacrisp")) as f:
        meta = json.load(f)
    prog = cl.Program(ctx, text).build(options="-cl-std=CL1.2 " + build_options)
    bins = os.environ.get("BENCH_SCAN_BINARIES")
    if bins:
        os.makedirs(bins, exist_ok=True)
        with open(os.path.join(bins, base + ".bin"), "wb") as f:
            f.write(prog.get_info(cl.program_info.BINARIES)[0])
    return prog, meta


def gbps(nbytes, secs):
    return nbytes / secs * 1e-9


class RefKernel:
    """A kernel of bench_scan_ref.cl: (in, out, n, state, flags, slm, ctl,
    window); its state and flags are zero-filled once and reused."""

    def __init__(self, prog, name, n, wg):
        self.k = cl.Kernel(prog, name)
        tiles = -(-n // (wg * 16)) + 1
        self.state = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.zeros(4, np.uint32))
        self.flags = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.zeros(tiles, np.uint64))
        self.n, self.wg, self.tiles = n, wg, tiles - 1

    def enqueue(self, src, dst, groups):
        wg = self.wg
        key = (src.int_ptr, dst.int_ptr, groups)    # (arguments set once, as CrispKernel's)
        if key == getattr(self, "bound", None) and not REBIND:
            return cl.enqueue_nd_range_kernel(queue, self.k, (groups * wg,), (wg,))
        self.bound = key
        args = [src, dst, np.uint64(self.n), self.state, self.flags,
                cl.LocalMemory(4 * (wg + wg // 32 + 40)), cl.LocalMemory(16), cl.LocalMemory(8 * 32)]
        if self.k.num_args > len(args):
            args.append(cl.LocalMemory(4 * 16 * wg))        # the filter's stage
        self.k.set_args(*args)
        return cl.enqueue_nd_range_kernel(queue, self.k, (groups * wg,), (wg,))

    def last_prefix(self):
        w = np.zeros(1, np.uint64)
        cl.enqueue_copy(queue, w, self.flags, src_offset=8 * (self.tiles - 1))
        return int(w[0] & np.uint64(0xffffffff))


FAST_CL = os.path.join(REPO, "scripts", "bench_scan_fast.cl")
FAST_KERNELS = {"excl": "exclusive_scan_fast", "incl": "inclusive_scan_fast", "filter": "filter_even_fast"}


class FastScan:
    """bench_scan_fast.cl built with one variant's -D macros: (in, out, n,
    ticket, flags); the ticket counter and the statuses are zero-filled
    once and serve every launch of this n and work-group count (the epoch
    comes from the ticket count, see the .cl)."""

    def __init__(self, variant, n, save_as=None):
        d, extra = {}, []
        for w in variant.split():
            if w.startswith("-"):       # an OpenCL build option, e.g. -cl-nv-maxrregcount=64
                extra.append(w)
                continue
            k, _, v = w.partition("=")
            d[k] = v
        self.groups_spec = d.pop("G", None)
        if "SCAN_NV" not in d and "nvidia" in dev.platform.name.lower():
            d["SCAN_NV"] = "1"
        self.defs = d
        self.label = variant.strip() or "defaults"
        self.wg = int(d.get("WG", 256))
        if "IPT" not in d and dev.local_mem_size < 4 * 33 * 32 * (self.wg // 32) + 1024:
            d["IPT"] = "16"     # the default 32 ints per thread needs 33.8 KB of local memory at 256
        ipt = int(d.get("IPT", 32))
        self.ntiles = -(-n // (self.wg * ipt))
        if d.get("PERSIST", "1") == "0":
            self.groups = self.ntiles
        elif self.groups_spec:
            g = self.groups_spec
            self.groups = int(g[1:]) * dev.max_compute_units if g.startswith("x") else int(g)
        else:
            self.groups = (8 if dev.type & cl.device_type.GPU else 4) * dev.max_compute_units
        opts = ("-cl-std=CL3.0 " if d.get("SCAN_SG", "0") != "0" else "-cl-std=CL1.2 ") + " ".join(["-D%s=%s" % kv for kv in sorted(d.items())] + extra)
        with open(FAST_CL) as f:
            self.prog = cl.Program(ctx, f.read()).build(options=opts)
        if save_as:
            os.makedirs(os.path.dirname(save_as), exist_ok=True)
            with open(save_as, "wb") as f:
                f.write(bytes(self.prog.get_info(cl.program_info.BINARIES)[0]).rstrip(b"\0"))
            with open(save_as + ".options", "w") as f:
                f.write(opts + "\n")
        self.n = n
        self.ticket = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.zeros(2, np.uint64))
        self.flags = cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR,
                               hostbuf=np.zeros(max(self.ntiles, 1), np.uint64))
        self.kernels = {}

    def enqueue(self, which, src, dst):
        name = FAST_KERNELS[which]
        k = self.kernels.get(name)
        if k is None:
            k = self.kernels[name] = cl.Kernel(self.prog, name)
        key = (name, src.int_ptr, dst.int_ptr)      # (arguments set once, as CrispKernel's)
        if key != getattr(self, "bound_" + name, None) or REBIND:
            k.set_args(src, dst, np.uint64(self.n), self.ticket, self.flags)
            setattr(self, "bound_" + name, key)
        return cl.enqueue_nd_range_kernel(queue, k, (self.groups * self.wg,), (self.wg,))

    def count(self):
        """the filter's count: the last tile's inclusive prefix"""
        w = np.zeros(1, np.uint64)
        cl.enqueue_copy(queue, w, self.flags, src_offset=8 * (self.ntiles - 1))
        return int(w[0] & np.uint64(0xffffffff))


def fast_check(fs, which, o_buf, back, excl, incl, evens):
    if which == "filter":
        c = fs.count()
        return c == evens.size and np.array_equal(back(o_buf, c), evens)
    return np.array_equal(back(o_buf), excl if which == "excl" else incl)


def fast_sweep(a_buf, o_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps):
    """BENCH_SCAN_FAST_SWEEP: bench_scan_fast.cl's variants; returns the
    number of wrong results (and variants that did not build or launch)."""
    spec = os.environ.get("BENCH_SCAN_FAST_SWEEP", "").strip()
    if not spec:
        return 0
    kernels = os.environ.get("BENCH_SCAN_FAST_KERNELS", "excl,filter").split(",")
    bindir = os.environ.get("BENCH_SCAN_FAST_BIN")
    bad = 0
    print("fast sweep (scripts/bench_scan_fast.cl): variant | kernel | ms | GB/s | of copy")
    for v, entry in enumerate(e.strip() for e in spec.split(";") if e.strip()):
        try:
            fs = FastScan(entry, n, os.path.join(bindir, "fast%02d.ptx" % v) if bindir else None)
        except BaseException as e:   # a variant that does not build is reported, not fatal
            msg = str(e).strip().splitlines()
            print("  %-44s build failed: %s" % (entry, " | ".join(msg[-6:])))
            bad += 1
            continue
        label = "%s [%d groups]" % (entry, fs.groups)
        diag = fs.defs.get("DIAG", "0") != "0"   # timing diagnostics: wrong results, not checked
        for which in (["excl"] if diag else kernels):
            try:
                t = timed(lambda: fs.enqueue(which, a_buf, o_buf))
            except cl.Error as e:   # e.g. too many registers for the work-group size
                print("  %-44s %-7s launch failed: %s" % (label, which, e))
                bad += 1
                continue
            ok = diag or fast_check(fs, which, o_buf, back, excl, incl, evens)
            b = fbytes if which == "filter" else nbytes
            bad += not ok
            print("  %-44s %-7s %8.3f %8.1f %5.0f%% %s" % (label, which, t * 1e3, gbps(b, t),
                                                       100 * gbps(b, t) / copy_gbps,
                                                       "diagnostic" if diag else "ok" if ok else "WRONG RESULT"))
            sys.stdout.flush()
    return bad


def sweep(a_buf, o_buf, c_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps):
    """BENCH_SCAN_SWEEP: the crisp kernels under other tunings and launch
    sizes; returns the number of wrong results."""
    spec = os.environ.get("BENCH_SCAN_SWEEP", "").strip()
    if not spec:
        return 0
    bad = 0
    print("sweep: variant | kernel | ms | GB/s | of copy")
    for v, entry in enumerate(e for e in spec.split(";") if e.strip()):
        words = entry.split()
        wg = 0 if words[0] == "auto" else int(words[0])
        g = words[1]
        groups = int(g[1:]) * dev.max_compute_units if g.startswith("x") else int(g)
        ocl = lambda w: w.startswith("-cl-") or w.startswith("-DCRISP_")   # OpenCL build options
        flags = [w for w in words[2:] if not ocl(w)]
        opts = " ".join(w for w in words[2:] if ocl(w))
        label = "wg=%s groups=%d %s" % (wg or "auto", groups, " ".join(words[2:]))
        try:
            prog, meta = crisp_program(os.path.join(REPO, "scripts", "bench_scan.crisp"),
                                       "bench_scan_sweep%d" % v, flags, opts)
        except BaseException as e:  # a variant that does not build is reported, not fatal
            print("  %-50s build failed: %s" % (label, str(e).splitlines()[-1] if str(e) else e))
            bad += 1
            continue
        for name, want in (("exclusive_scan_ints", excl), ("inclusive_scan_ints", incl),
                           ("filter_even_ints", None)):
            k = CrispKernel(prog, meta, name)
            vecs = dict(In=(a_buf, n), Out=(o_buf, n))
            if want is None:
                vecs["Count"] = (c_buf, 1)
            kwg = wg or k.local_size()
            klabel = label if wg else label.replace("wg=auto", "wg=auto(%d)" % kwg)
            try:
                t = timed(lambda: k.enqueue(groups * kwg, kwg, **vecs))
            except cl.Error as e:   # e.g. too many registers for the work-group size
                print("  %-50s %-20s launch failed: %s" % (klabel, name, e))
                bad += 1
                continue
            if want is None:
                cnt = np.zeros(1, np.uint64)
                cl.enqueue_copy(queue, cnt, c_buf)
                ok = int(cnt[0]) == evens.size and np.array_equal(back(o_buf)[:evens.size], evens)
                b = fbytes
            else:
                ok = np.array_equal(back(o_buf), want)
                b = nbytes
            bad += not ok
            print("  %-50s %-20s %8.3f %8.1f %5.0f%% %s" % (klabel, name, t * 1e3, gbps(b, t),
                                                         100 * gbps(b, t) / copy_gbps,
                                                         "" if ok else "WRONG RESULT"))
            sys.stdout.flush()
    return bad


def scan_data(n):
    """The input (N ints in 0..999, seed 1) and numpy's answers: its
    exclusive and inclusive sums and its even elements (bench_pairs.py too)."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 1000, n, dtype=np.int32)
    excl = np.zeros(n, np.int32)
    excl[1:] = np.cumsum(a, dtype=np.int32)[:-1]
    incl = np.cumsum(a, dtype=np.int32)
    return a, excl, incl, a[a % 2 == 0]


def main():
    import pyopencl.algorithm as palg
    import pyopencl.array as cla
    import pyopencl.scan as pscan
    try:
        import cupy
    except Exception:  # pragma: no cover - only where CUDA is
        cupy = None

    n, wg, groups = N, WG, GROUPS
    a, excl, incl, evens = scan_data(n)
    nbytes = 8 * n
    fbytes = 4 * n + 4 * evens.size

    print("== scans and filter: %d ints on %s (%s); %d work-groups of %d; median of %d runs"
          % (n, dev.name.strip(), dev.platform.name.strip(), groups, wg, RUNS))
    a_buf = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=a)
    o_buf = cl.Buffer(ctx, MF.READ_WRITE, 4 * n)
    c_buf = cl.Buffer(ctx, MF.READ_WRITE, 8)
    rows = []   # (form, impl, seconds, bytes, ok)

    def add_row(row):
        # printed as soon as measured too: a run cut short keeps its figures
        rows.append(row)
        form, impl, t, b, ok = row
        print("  (%s, %s: %.3f ms, %.1f GB/s%s)" % (form, impl, t * 1e3, gbps(b, t), "" if ok else ", WRONG RESULT"))
        sys.stdout.flush()

    def back(buf, count=n):
        h = np.empty(count, np.int32)
        cl.enqueue_copy(queue, h, buf)
        return h

    # the bandwidth yardstick: an int4 copy
    copy = cl.Program(ctx, "__kernel void copy4(__global const int4 *a, __global int4 *b)"
                           " { b[get_global_id(0)] = a[get_global_id(0)]; }").build()
    t = timed(lambda: copy.copy4(queue, (n // 4,), None, a_buf, o_buf))
    copy_gbps = gbps(nbytes, t)
    add_row(("copy", "int4 copy kernel", t, nbytes, True))
    if os.environ.get("BENCH_SCAN_FAST_ONLY") == "1":   # the copy, then bench_scan_fast.cl's sweep
        print("copy: %.3f ms, %.1f GB/s" % (t * 1e3, copy_gbps))
        return 1 if fast_sweep(a_buf, o_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps) else 0
    if os.environ.get("BENCH_SCAN_SWEEP_ONLY") == "1":   # the copy, then the sweep alone
        print("copy: %.3f ms, %.1f GB/s" % (t * 1e3, copy_gbps))
        bad = sweep(a_buf, o_buf, c_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps)
        bad += fast_sweep(a_buf, o_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps)
        return 1 if bad else 0

    # crisp
    prog, meta = crisp_program(os.path.join(REPO, "scripts", "bench_scan.crisp"), "bench_scan")
    fast = FastScan(os.environ.get("BENCH_SCAN_FAST", ""), n)
    for name, form, want in (("exclusive_scan_ints", "exclusive-scan", excl),
                             ("inclusive_scan_ints", "inclusive-scan", incl)):
        k = CrispKernel(prog, meta, name)
        kg, kwg = crisp_launch(k)
        print("  (%s: %d work-groups of %d)" % (name, kg, kwg))
        t = timed(lambda: k.enqueue(kg * kwg, kwg, In=(a_buf, n), Out=(o_buf, n)))
        add_row((form, "crisp", t, nbytes, np.array_equal(back(o_buf), want)))
        which = "excl" if form == "exclusive-scan" else "incl"
        t = timed(lambda: fast.enqueue(which, a_buf, o_buf))
        add_row((form, "hand-written CUB-style", t, nbytes, fast_check(fast, which, o_buf, back, excl, incl, evens)))
        if form == "exclusive-scan":
            ref = cl.Program(ctx, open(os.path.join(REPO, "scripts", "bench_scan_ref.cl")).read()).build(
                options="-cl-std=CL1.2")
            hk = RefKernel(ref, "exclusive_scan_ref", n, wg)
            t = timed(lambda: hk.enqueue(a_buf, o_buf, groups))
            add_row((form, "hand-written blocked+raking", t, nbytes, np.array_equal(back(o_buf), want)))
    k = CrispKernel(prog, meta, "filter_even_ints")
    kg, kwg = crisp_launch(k)
    t = timed(lambda: k.enqueue(kg * kwg, kwg, In=(a_buf, n), Out=(o_buf, n), Count=(c_buf, 1)))
    cnt = np.zeros(1, np.uint64)
    cl.enqueue_copy(queue, cnt, c_buf)
    add_row(("filter", "crisp", t, fbytes,
                 int(cnt[0]) == evens.size and np.array_equal(back(o_buf)[:evens.size], evens)))
    t = timed(lambda: fast.enqueue("filter", a_buf, o_buf))
    add_row(("filter", "hand-written CUB-style", t, fbytes, fast_check(fast, "filter", o_buf, back, excl, incl, evens)))
    hk = RefKernel(ref, "filter_even_ref", n, wg)
    t = timed(lambda: hk.enqueue(a_buf, o_buf, groups))
    add_row(("filter", "hand-written blocked+raking", t, fbytes,
                 hk.last_prefix() == evens.size and np.array_equal(back(o_buf)[:evens.size], evens)))

    # CuPy (NVIDIA's CUB) on the same GPU, where there is one
    if cupy is not None:
        try:
            x = cupy.asarray(a)

            def cupy_time(fn):
                for _ in range(2):
                    fn()
                cupy.cuda.Device().synchronize()
                ts = []
                for _ in range(RUNS):
                    s, e = cupy.cuda.Event(), cupy.cuda.Event()
                    s.record()
                    fn()
                    e.record()
                    e.synchronize()
                    ts.append(cupy.cuda.get_elapsed_time(s, e) * 1e-3)
                return statistics.median(ts)
            t = cupy_time(lambda: cupy.cumsum(x, dtype=cupy.int32))
            add_row(("inclusive-scan", "cupy.cumsum", t, nbytes,
                         np.array_equal(cupy.asnumpy(cupy.cumsum(x, dtype=cupy.int32)), incl)))
            t = cupy_time(lambda: x[x % 2 == 0])
            add_row(("filter", "cupy x[x % 2 == 0]", t, fbytes,
                         np.array_equal(cupy.asnumpy(x[x % 2 == 0]), evens)))
        except Exception as e:  # pragma: no cover
            print("  (cupy: %s)" % e)

    # PyOpenCL's own algorithms
    a_dev = cla.to_device(queue, a)
    o_dev = cla.empty_like(a_dev)
    ek = pscan.ExclusiveScanKernel(ctx, np.int32, "a+b", "0")
    t = timed(lambda: ek(a_dev, o_dev, queue=queue))
    add_row(("exclusive-scan", "pyopencl ExclusiveScanKernel", t, nbytes,
                 np.array_equal(o_dev.get(), excl)))
    gk = pscan.GenericScanKernel(ctx, np.int32, arguments="__global const int *ary, __global int *out",
                                 input_expr="ary[i]", scan_expr="a+b", neutral="0",
                                 output_statement="out[i] = item;")
    t = timed(lambda: gk(a_dev, o_dev, queue=queue))
    add_row(("inclusive-scan", "pyopencl GenericScanKernel", t, nbytes,
                 np.array_equal(o_dev.get(), incl)))
    res = {}

    def copy_if():
        res["r"] = palg.copy_if(a_dev, "ary[i] % 2 == 0", queue=queue)
    t = timed(copy_if)
    out, count, _ = res["r"]
    c = int(count.get())
    add_row(("filter", "pyopencl copy_if", t, fbytes,
                 c == evens.size and np.array_equal(out.get()[:c], evens)))

    print("%-16s %-30s %10s %9s %9s %s" % ("form", "implementation", "ms", "GB/s", "of copy", ""))
    bad = 0
    for form, impl, t, b, ok in rows:
        print("%-16s %-30s %10.3f %9.2f %8.0f%% %s" % (form, impl, t * 1e3, gbps(b, t),
                                                      100 * gbps(b, t) / copy_gbps, "" if ok else "WRONG RESULT"))
        bad += not ok
    bad += sweep(a_buf, o_buf, c_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps)
    bad += fast_sweep(a_buf, o_buf, n, back, excl, incl, evens, nbytes, fbytes, copy_gbps)
    print("ratios (crisp throughput / the other's):")
    for form in ("exclusive-scan", "inclusive-scan", "filter"):
        mine = [r for r in rows if r[0] == form and r[1] == "crisp"][0]
        for r in rows:
            if r[0] == form and r[1] != "crisp":
                print("  %-16s crisp / %-30s %6.2f" % (form, r[1], r[2] / mine[2]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
