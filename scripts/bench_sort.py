"""bench_sort.py - `make bench`, sorting (the GPU library's "Sorting",
lib/sort.crisp).  Side by side on one OpenCL device, in one run:

  radix    crisp's gen-radix-sort-vector (uint keys, the Python hoist's
           host function) against pyopencl.algorithm.RadixSort (32 key
           bits, its default 2 bits at a time) and, where `import cupy`
           works, cupy.sort (CUB's radix sort)
  bitonic  crisp's gen-bitonic-sort-vector! against
           pyopencl.bitonic_sort.BitonicSort (power-of-two sizes only),
           and its orchestration (the same passes in run-time loops, each
           kernel at its own launch size) against its host function

on the same uniformly random uint32 keys, already on the device.  Each
time is the median wall-clock of BENCH_SORT_RUNS sorts (after a warm-up)
up to queue.finish(), on a fresh copy of the keys each run (copied before
the clock starts); keys/s = n / time.  Every result is checked against
numpy's sort.  Ratios > 1 mean crisp is faster.

Options / environment:
  --platform NAME   substring of the OpenCL platform name (or CRISP_PLATFORM;
                    default PoCL, "Portable Computing Language"); NVIDIA
                    adds cupy.sort
  BENCH_SORT_N      keys (a power of two for the bitonic sorts; default 2^20
                    on a CPU, 2^26 on a GPU)
  BENCH_SORT_RUNS   timed runs (default 5)
  BENCH_SORT_RADIX_VARIANTS
                    more radix sorts to time next to the default one, each
                    BITS:LOCAL:KEYS (gen-radix-sort-vector's :digit-bits,
                    :local-size, :keys-per-thread), separated by spaces or
                    commas, e.g. "4:256:8 8:32:32"; a variant that fails to
                    build or run is reported and skipped
  BENCH_SORT_TYPED  radix sorts of other keys and key-value pairs, each
                    KEY[/VALUE][:BITS:LOCAL:KEYS] (numpy-named scalar
                    types: uint32 int32 float32 int64 uint64 float64 int16
                    ...), e.g. "float32/int32 float32/int32:4:128:24":
                    without a shape gen-radix-sort-vector's default for
                    those types (docs/library.md "Radix sort"), with one
                    that shape; each timed on BENCH_SORT_TYPED_N random
                    keys (default BENCH_SORT_N / 4) and their indices as
                    values, checked against numpy's stable argsort, and
                    printed with its ratio to the first entry of the same
                    types (the default when it comes first)
  BENCH_SORT_ONLY   radix, bitonic or typed: time only those
  BENCH_SORT_PROFILE=1
                    also run the default radix sort once on a profiling
                    queue and print the device time of its count, scan and
                    scatter kernels (summed over the passes) next to the
                    wall-clock time: what is kernels, what is the host
No clang is needed: crisp writes the .cl and the OpenCL driver builds it.
"""
import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "out", "bench", "sort")
SRC = """;; bench_sort.py: the sorts it times
(gen-radix-sort-vector uint)
(gen-bitonic-sort-vector! uint)
"""

ap = argparse.ArgumentParser(description="crisp's sorts next to PyOpenCL's (and CuPy's)")
ap.add_argument("--platform", default=os.environ.get("CRISP_PLATFORM", "Portable Computing Language"))
args = ap.parse_args()

plats = [p for p in cl.get_platforms() if args.platform.lower() in p.name.lower()]
if not plats:
    sys.exit("bench_sort: no OpenCL platform matching %r (have: %s)"
             % (args.platform, ", ".join(p.name for p in cl.get_platforms())))
dev = plats[0].get_devices()[0]
ctx = cl.Context([dev])
queue = cl.CommandQueue(ctx)
gpu = bool(dev.type & cl.device_type.GPU)
N = int(os.environ.get("BENCH_SORT_N", str(1 << 26 if gpu else 1 << 20)))
RUNS = int(os.environ.get("BENCH_SORT_RUNS", "5"))

ONLY = os.environ.get("BENCH_SORT_ONLY", "")
VARIANTS = os.environ.get("BENCH_SORT_RADIX_VARIANTS", "").replace(",", " ").split()
crisp = os.environ.get("CRISP", os.path.join(REPO, "crisp"))


def hoist(name, src):
    """crisp's PyOpenCL hoist of SRC (in OUT/NAME), loaded on this context and queue"""
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "bench_sort.crisp"), "w") as f:
        f.write(src)
    r = subprocess.run([crisp, "--hoist=PyOpenCL", "--output-dir=" + d, os.path.join(d, "bench_sort.crisp")],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("crisp failed:\n" + r.stderr + r.stdout)
    spec = importlib.util.spec_from_file_location("bench_sort_hoist_" + name, os.path.join(d, "bench_sort_hoist_PyOpenCL.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.load(ctx, queue)


k = hoist("default", SRC) if ONLY != "typed" else None

keys = np.random.default_rng(3).integers(0, 1 << 32, N, dtype=np.uint32)
want = np.sort(keys)
print("== sorts of %d uint32 keys on %s (%s), median of %d runs" % (N, dev.name.strip(), plats[0].name, RUNS))


def timed(name, sort, result):
    """SORT(device copy of the keys) -> sorted device array; median seconds."""
    ts = []
    for i in range(RUNS + 1):
        d = cla.to_device(queue, keys)
        queue.finish()
        t0 = time.perf_counter()
        out = sort(d)
        queue.finish()
        if i:
            ts.append(time.perf_counter() - t0)
        if i == 0 and not np.array_equal(result(out, d).get(), want):
            sys.exit("bench_sort: %s sorted wrongly" % name)
    t = statistics.median(ts)
    print("  %-34s %9.2f ms  %8.1f Mkeys/s" % (name, t * 1e3, N / t / 1e6))
    return t


def crisp_radix(d):
    k.radix_sort_vector_uint(d)
    return d


def crisp_bitonic(d):
    k.bitonic_sort_vector_in_place_uint(d)
    return d


def crisp_bitonic_orchestration(d):
    k.bitonic_sort_vector_in_place_uint_orchestration(d)
    return d


from pyopencl.algorithm import RadixSort  # noqa: E402
from pyopencl.bitonic_sort import BitonicSort  # noqa: E402

if ONLY != "typed":
    pyrs = RadixSort(ctx, "uint *keys", key_expr="keys[i]", sort_arg_names=["keys"], key_dtype=np.uint32)
    pybs = BitonicSort(ctx)

t_variants = []
if ONLY not in ("bitonic", "typed"):
    print("-- radix")
    t_cr = timed("crisp gen-radix-sort-vector", crisp_radix, lambda o, d: o)
    t_pr = timed("pyopencl.algorithm.RadixSort", lambda d: pyrs(d, key_bits=32, queue=queue)[0][0], lambda o, d: o)
    print("  crisp / RadixSort: %.2fx" % (t_pr / t_cr))
    for v in VARIANTS:
        try:
            bits, wg, kpt = (int(x) for x in v.split(":"))
            kv = hoist("v%d_%d_%d" % (bits, wg, kpt), "(gen-radix-sort-vector uint :digit-bits %d :local-size %d :keys-per-thread %d)\n"
                       % (bits, wg, kpt))
            t_v = timed("crisp radix %d bits, %d x %d keys" % (bits, wg, kpt),
                        lambda d: (kv.radix_sort_vector_uint(d), d)[1], lambda o, d: o)
            print("  variant / RadixSort: %.2fx, / default crisp: %.2fx" % (t_pr / t_v, t_cr / t_v))
            t_variants.append((v, t_v))
        except Exception as e:  # a variant that does not build or run here
            print("  variant %s: failed: %s" % (v, str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__))
if ONLY not in ("bitonic", "typed") and os.environ.get("BENCH_SORT_PROFILE"):
    pq = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    spec = importlib.util.spec_from_file_location("bench_sort_hoist_profile", os.path.join(OUT, "default", "bench_sort_hoist_PyOpenCL.py"))
    pmod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pmod)
    kp = pmod.load(ctx, pq)
    events = {}
    for part in ("count", "scan", "scatter"):
        name = "radix_sort_vector_uint_" + part
        orig = getattr(kp, name)

        def rec(*a, _orig=orig, _part=part, **kw):
            ev = _orig(*a, **kw)
            events.setdefault(_part, []).append(ev)
            return ev
        setattr(kp, name, rec)
    for i in range(2):
        events.clear()
        d = cla.to_device(pq, keys)
        pq.finish()
        t0 = time.perf_counter()
        kp.radix_sort_vector_uint(d)
        pq.finish()
        wall = time.perf_counter() - t0
    total = 0.0
    parts = []
    for part in ("count", "scan", "scatter"):
        dt = sum((e.profile.end - e.profile.start) * 1e-9 for e in events.get(part, []))
        total += dt
        parts.append("%s %.3f ms (%d)" % (part, dt * 1e3, len(events.get(part, []))))
    print("  profile: wall %.3f ms, kernels %.3f ms: %s" % (wall * 1e3, total * 1e3, ", ".join(parts)))
t_cu = None
if "nvidia" in args.platform.lower() and ONLY not in ("bitonic", "typed"):
    try:
        import cupy
        dk = cupy.asarray(keys)
        assert (cupy.sort(dk).get() == want).all()
        ts = []
        for i in range(RUNS + 1):
            dk = cupy.asarray(keys)
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            cupy.sort(dk)
            cupy.cuda.Device().synchronize()
            if i:
                ts.append(time.perf_counter() - t0)
        t_cu = statistics.median(ts)
        print("  %-34s %9.2f ms  %8.1f Mkeys/s" % ("cupy.sort (CUB)", t_cu * 1e3, N / t_cu / 1e6))
        print("  crisp / cupy.sort: %.2f (keys/s)" % (t_cu / t_cr))
        for v, t_v in t_variants:
            print("  variant %s / cupy.sort: %.2f (keys/s)" % (v, t_cu / t_v))
    except ImportError as e:
        print("  cupy.sort: not measured (%s)" % e)

TYPED = os.environ.get("BENCH_SORT_TYPED", "").replace(",", " ").split()
CRISP_TYPES = {"uint32": "uint", "int32": "int", "float32": "float", "uint64": "ulong", "int64": "long",
               "float64": "double", "uint16": "ushort", "int16": "short", "uint8": "uchar", "int8": "char"}


def typed_keys(dt, n, rng):
    """random keys of numpy type DT: no -0.0 or NaN (their radix-key order is
    not numpy's), many repeats (stability shows in the values)"""
    dt = np.dtype(dt)
    if dt.kind == "f":
        return (np.round(rng.standard_normal(n) * 1000) / 8).astype(dt) + dt.type(0.0)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


if TYPED and ONLY in ("", "typed"):
    NT = int(os.environ.get("BENCH_SORT_TYPED_N", str(max(1, N // 4))))
    rng = np.random.default_rng(5)
    firsts = {}
    print("-- radix, other types: %d keys, the values their indices, median of %d runs" % (NT, RUNS))
    for entry in TYPED:
        try:
            kinds, _, shape = entry.partition(":")
            kt, _, vt = kinds.partition("/")
            ck, cv = CRISP_TYPES[kt], (CRISP_TYPES[vt] if vt else None)
            opts = ""
            if shape:
                bits, wg, kpt = (int(x) for x in shape.split(":"))
                opts = " :digit-bits %d :local-size %d :keys-per-thread %d" % (bits, wg, kpt)
            src = "(gen-radix-sort-vector %s%s%s)\n" % (ck, " :values " + cv if cv else "", opts)
            tag = "t_" + entry.replace("/", "_").replace(":", "_")
            kv = hoist(tag, src)
            r = subprocess.run([crisp, "--metadata", "--output-dir=" + os.path.join(OUT, tag),
                                os.path.join(OUT, tag, "bench_sort.crisp")], capture_output=True, text=True)
            if r.returncode:
                raise RuntimeError("crisp --metadata failed:\n" + r.stderr)
            info = json.load(open(os.path.join(OUT, tag, "bench_sort.metacrisp")))["sorts"][0]
            fn = getattr(kv, info["name"])
            hk = typed_keys(kt, NT, rng)
            hv = np.arange(NT, dtype=vt) if vt else None
            order = np.argsort(hk, kind="stable")
            wk = hk[order]
            wv = hv[order] if vt else None
            ts = []
            for i in range(RUNS + 1):
                dk = cla.to_device(queue, hk)
                dv = cla.to_device(queue, hv) if vt else None
                queue.finish()
                t0 = time.perf_counter()
                fn(dk, dv) if vt else fn(dk)
                queue.finish()
                if i:
                    ts.append(time.perf_counter() - t0)
                elif not np.array_equal(dk.get(), wk) or (vt and not np.array_equal(dv.get(), wv)):
                    raise RuntimeError("sorted wrongly")
            t = statistics.median(ts)
            key = kinds
            ratio = ""
            if key in firsts:
                ratio = "  speed %.2fx the first %s" % (firsts[key] / t, key)
            else:
                firsts[key] = t
            print("  %-22s %d bits, %3d x %2d keys %9.2f ms %8.1f Mkeys/s%s"
                  % (entry, info["digit_bits"], info["local_size"], info["keys_per_thread"], t * 1e3, NT / t / 1e6, ratio),
                  flush=True)
        except Exception as e:  # a variant that does not build or run here
            print("  %s: failed: %s" % (entry, str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__),
                  flush=True)

if ONLY in ("radix", "typed"):
    pass
elif N & (N - 1):
    print("-- bitonic")
    print("  not measured: BitonicSort needs a power-of-two size, BENCH_SORT_N=%d" % N)
else:
    print("-- bitonic")
    t_cb = timed("crisp gen-bitonic-sort-vector!", crisp_bitonic, lambda o, d: o)
    t_pb = timed("pyopencl.bitonic_sort.BitonicSort", lambda d: pybs(d, queue=queue)[0], lambda o, d: o)
    print("  crisp / BitonicSort: %.2fx" % (t_pb / t_cb))
    # the orchestration against the host function side by side: runs
    # alternating between the two (which goes first alternating too), the
    # ratio the median of the pairs' ratios, so that machine load hits both
    th, to, ratios = [], [], []
    for i in range(2 * RUNS + 1):
        pair = {}
        for name, fn in ((("host", crisp_bitonic), ("orch", crisp_bitonic_orchestration)) if i % 2 else
                         (("orch", crisp_bitonic_orchestration), ("host", crisp_bitonic))):
            d = cla.to_device(queue, keys)
            queue.finish()
            t0 = time.perf_counter()
            fn(d)
            queue.finish()
            pair[name] = time.perf_counter() - t0
            if i == 0 and not np.array_equal(d.get(), want):
                sys.exit("bench_sort: the bitonic %s sorted wrongly" % name)
        if i:
            th.append(pair["host"])
            to.append(pair["orch"])
            ratios.append(pair["host"] / pair["orch"])
    t_co = statistics.median(to)
    print("  %-34s %9.2f ms  %8.1f Mkeys/s" % ("crisp bitonic orchestration", t_co * 1e3, N / t_co / 1e6))
    print("  orchestration / host function: %.2fx  (median of %d alternating pairs; host function %.2f ms in them)"
          % (statistics.median(ratios), len(ratios), statistics.median(th) * 1e3))
