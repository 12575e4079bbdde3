"""bench_hoist.py - per-call overhead of the hoists against the same work
written by hand, side by side in one run (`make bench`, scripts/bench.sh).

vector_add of examples/vector_add.crisp at 1,024 and 2^20 floats:

  Python hoist with numpy arrays   vs raw PyOpenCL: three buffers (two
                                   copied from the host), the kernel, the
                                   copy back                    target <= 1.2x
  Python hoist with pyopencl arrays vs raw PyOpenCL kernel call  target <= 1.05x
  C hoist vector_add_enqueue       vs raw clSetKernelArg + clEnqueueNDRangeKernel
  C hoist vector_add_run           vs raw clCreateBuffer ... clEnqueueReadBuffer
                                                                target <= 1.05x

Every call is timed to its completion (the raw side waits exactly where
the hoist does), in rounds that alternate a block of hand-written calls
and a block of hoist calls; the times are medians per call, the ratio is
the median of the rounds' hoist / hand-written ratios (neighbouring blocks
share the machine's noise).  Both sides run the same kernel from the same
vector_add.cl.

    python3 scripts/bench_hoist.py [--rounds N]

Environment: CRISP (the compiler, default ./crisp), CRISP_PLATFORM (a
substring of the OpenCL platform's name, e.g. NVIDIA; default: the first
GPU, else the first device), CC (default cc; the C part is skipped with a
message when it cannot be built: it needs the OpenCL headers and loader),
BENCH_HOIST_ROUNDS (default 7).  Needs no clang.
"""
import os
import statistics
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "out", "bench", "hoist")
CRISP = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
ROUNDS = int(os.environ.get("BENCH_HOIST_ROUNDS", "15"))
SIZES = (1024, 1 << 20)
TARGETS = {"numpy": 1.2, "pyopencl.array": 1.05, "C enqueue": 1.05, "C run": 1.05}


def calls_for(n):
    return 50 if n <= 4096 else 5


def timed(fn, calls):
    """Seconds per call of FN (which waits for its own completion)."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls


def side_by_side(raw, hoist, calls, rounds=None):
    """(median seconds per call of RAW, of HOIST, median ratio), measured in
    alternating blocks."""
    rounds = rounds or ROUNDS
    raw(), hoist()                      # warm up both
    r, h = [], []
    for i in range(rounds):
        if i % 2:
            h.append(timed(hoist, calls))
            r.append(timed(raw, calls))
        else:
            r.append(timed(raw, calls))
            h.append(timed(hoist, calls))
    return statistics.median(r), statistics.median(h), statistics.median(x / y for x, y in zip(h, r))


def generate():
    os.makedirs(OUT, exist_ok=True)
    r = subprocess.run([CRISP, "--hoist=PyOpenCL", "--hoist=OpenCL", "--output-dir=" + OUT,
                        os.path.join(REPO, "examples", "vector_add.crisp")], capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench_hoist: crisp failed:\n" + r.stderr)


def python_rows():
    sys.path.insert(0, OUT)             # the bench itself imports the hoist from there
    import pyopencl as cl
    import pyopencl.array as cla
    import vector_add_hoist_PyOpenCL as hoist
    k = hoist.load()
    ctx, q = k.context, k.queue
    print("device: %s" % hoist.crisp_runtime.describe_device(q.device))
    prg = cl.Program(ctx, open(os.path.join(OUT, "vector_add.cl")).read()).build(options="-cl-std=CL1.2")
    knl = prg.vector_add
    knl.set_scalar_arg_dtypes([None, np.uint64] * 3)      # as a careful hand would: ints packed directly
    mf = cl.mem_flags
    rows = []
    for n in SIZES:
        a = np.random.rand(n).astype(np.float32)
        b = np.random.rand(n).astype(np.float32)
        c1, c2 = np.zeros(n, np.float32), np.zeros(n, np.float32)
        nn = n

        def raw_numpy():
            ba = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
            bb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
            bc = cl.Buffer(ctx, mf.WRITE_ONLY, c1.nbytes)
            knl(q, (n,), None, ba, nn, bb, nn, bc, nn)
            cl.enqueue_copy(q, c1, bc)

        def hoist_numpy():
            k.vector_add(a, b, c2)

        raw_t, hoist_t, ratio = side_by_side(raw_numpy, hoist_numpy, calls_for(n))
        ok = np.allclose(c1, a + b) and np.allclose(c2, a + b)
        rows.append(("numpy", n, raw_t, hoist_t, ratio, ok))

        da, db = cla.to_device(q, a), cla.to_device(q, b)
        dc1, dc2 = cla.empty(q, n, np.float32), cla.empty(q, n, np.float32)

        def raw_array():
            knl(q, (n,), None, da.data, nn, db.data, nn, dc1.data, nn)
            q.finish()

        def hoist_array():
            k.vector_add(da, db, dc2)
            q.finish()

        raw_t, hoist_t, ratio = side_by_side(raw_array, hoist_array, calls_for(n))
        ok = np.allclose(dc1.get(), a + b) and np.allclose(dc2.get(), a + b)
        rows.append(("pyopencl.array", n, raw_t, hoist_t, ratio, ok))
    return rows


def c_rows():
    exe = os.path.join(OUT, "bench_hoist_c")
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c99", "-O2", "-I", OUT, os.path.join(REPO, "scripts", "bench_hoist_c.c"),
           os.path.join(OUT, "vector_add_hoist_OpenCL.c"), "-lOpenCL", "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        print("C hoist: not measured: %s failed:\n%s" % (" ".join(cmd), r.stderr.strip()[-2000:]))
        return []
    r = subprocess.run([exe, os.path.join(OUT, "vector_add.cl"), str(ROUNDS)] + [str(n) for n in SIZES],
                       capture_output=True, text=True, timeout=600)
    if r.returncode:
        print("C hoist: the benchmark failed:\n%s" % (r.stdout + r.stderr).strip()[-2000:])
        return []
    rows = []
    for line in r.stdout.splitlines():     # "row KIND N RAW_S HOIST_S RATIO OK"
        w = line.split()
        if w and w[0] == "row":
            rows.append((w[1].replace("_", " "), int(w[2]), float(w[3]), float(w[4]), float(w[5]), w[6] == "1"))
        elif line.strip():
            print(line)
    return rows


def main():
    global ROUNDS
    if "--rounds" in sys.argv:
        ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1])
    generate()
    print("== hoist overhead: vector_add per call, to completion (median of %d rounds)" % ROUNDS)
    rows = python_rows() + c_rows()
    print("%-16s %9s %14s %12s %7s %8s" % ("arguments", "elements", "hand-written us", "hoist us", "ratio", "target"))
    status = 0
    for kind, n, raw_t, hoist_t, ratio, ok in rows:
        target = TARGETS.get(kind)
        verdict = "" if ok else "   WRONG RESULT"
        if target and ratio > target:
            verdict += "   over target"
        print("%-16s %9d %14.1f %12.1f %7.3f %7.2fx%s" % (kind, n, raw_t * 1e6, hoist_t * 1e6, ratio, target or 0, verdict))
        if not ok:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
