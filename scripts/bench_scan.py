"""bench_scan.py - `make bench`, scans and filter (the GPU library's
"Filtering / Prefix-Sum Scan", lib/scan*.crisp and lib/filter.crisp).

For each form, on one OpenCL device, in one run: the kernel crisp
generates, a hand-written OpenCL C kernel of the best known algorithm (a
single-pass scan with decoupled look-back, bench/scan_ref.cl), PyOpenCL's
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
  BENCH_SCAN_WG     work-group size of the crisp and hand-written kernels (256)
  BENCH_SCAN_GROUPS work-groups launched (default: 4 per compute unit)
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
GROUPS = int(os.environ.get("BENCH_SCAN_GROUPS", str(4 * dev.max_compute_units)))
MF = cl.mem_flags


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

    def enqueue(self, gsize, lsize, **vecs):
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


def crisp_program(src, base):
    os.makedirs(OUT, exist_ok=True)
    crisp = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
    r = subprocess.run([crisp, "--transpile-to=oclc", "--metadata", "--output-dir=" + OUT,
                        "--output-base=" + base, src], capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench_scan: crisp failed on %s:\n%s" % (src, r.stderr))
    with open(os.path.join(OUT, base + ".cl")) as f:
        text = f.read()
    with open(os.path.join(OUT, base + ".metacrisp")) as f:
        meta = json.load(f)
    return cl.Program(ctx, text).build(options="-cl-std=CL1.2"), meta


def gbps(nbytes, secs):
    return nbytes / secs * 1e-9
