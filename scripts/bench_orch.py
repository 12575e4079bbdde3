#!/usr/bin/env python3
"""bench_orch.py - launch-interleaved against copy-then-compute (issue 12,
docs/orchestration.md, docs/performance.md), through the Python hoist of
bench/orch_pipeline.crisp, on one device, side by side.

copy-then-compute: the orchestration `copy-then-compute` (launch-sequential
of one poly_chunked over the whole vector): X is copied to the device, the
kernel runs, Y is copied back.  interleaved: the orchestration `interleaved`
(launch-interleaved): X and Y staged in pinned host memory
(CL_MEM_ALLOC_HOST_PTR) and moved in chunks on two queues, so the copies of
one chunk overlap the kernel of another.  Both are timed whole, from host
array to host array (wall clock, best of --runs after a warm-up), and must
give the same Y.  Prints both times, their bandwidths and the ratio
interleaved / copy-then-compute (below 1: the overlap pays).

    python3 scripts/bench_orch.py [--platform NAME] [--bytes N] [--chunks N] [--queues N] [--runs N] [--sweep]

--sweep: also time launch-interleaved at 8 chunks without and with its
copy-out thread (INTERLEAVE_COPY_THREAD), and at 4, 8, 16 and 32 chunks on
2 and 3 queues, one line each (the staging buffers are kept between the calls of
one size, as the hoist does: Kernels.release_staging()).

--bytes: X and Y together (default $BENCH_ORCH_BYTES, else 64 MiB on a CPU
and 4 GiB on a GPU); --platform: a substring of the OpenCL platform's name
(default $CRISP_PLATFORM, else PoCL), e.g. NVIDIA.  Needs ./crisp (or
$CRISP), pyopencl and numpy; no clang, no CuPy.  Exit status 1 when the
results differ (speed is reported, never enforced).
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--platform", default=os.environ.get("CRISP_PLATFORM") or "Portable Computing Language")
    ap.add_argument("--bytes", type=int, default=int(os.environ.get("BENCH_ORCH_BYTES", "0")))
    ap.add_argument("--chunks", type=int, default=int(os.environ.get("BENCH_ORCH_CHUNKS", "8")))
    ap.add_argument("--queues", type=int, default=2)
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_ORCH_RUNS", "3")))
    ap.add_argument("--sweep", action="store_true")
    opt = ap.parse_args()
    os.environ["CRISP_PLATFORM"] = opt.platform

    out = os.path.join(REPO, "tests", "out", "bench", "orch")
    os.makedirs(out, exist_ok=True)
    crisp = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
    r = subprocess.run([crisp, "--hoist=PyOpenCL", "--output-dir=" + out, os.path.join(REPO, "bench", "orch_pipeline.crisp")],
                       capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write("crisp failed:\n" + r.stderr)
        return 1
    spec = importlib.util.spec_from_file_location("orch_pipeline_hoist", os.path.join(out, "orch_pipeline_hoist_PyOpenCL.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    np = mod.np
    cl = mod.cl
    k = mod.load()
    dev = k.queue.device
    gpu = bool(dev.type & cl.device_type.GPU)
    total = opt.bytes or ((4 << 30) if gpu else (64 << 20))
    n = total // 8                                    # X and Y: 4 bytes each per element
    chunk = -(-n // max(1, opt.chunks))
    print("== launch-interleaved vs copy-then-compute: %d floats in, %d out (%.2f GiB), %d chunks on %d queues, on %s"
          % (n, n, 8 * n / 2**30, -(-n // chunk), opt.queues, mod.crisp_runtime.describe_device(dev)))
    rng = np.random.default_rng(1)
    X = rng.random(n, dtype=np.float32) * 0.5
    Ys = np.zeros(n, np.float32)
    Yi = np.zeros(n, np.float32)

    def best(fn):
        fn()                                          # warm-up: builds, first allocations
        times = []
        for _ in range(max(1, opt.runs)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    t_seq = best(lambda: k.copy_then_compute(0, n, 0.25, X, Ys))
    t_int = best(lambda: k.interleaved(0, 0, 0.25, X, Yi, chunk=chunk, queues=opt.queues))
    same = np.array_equal(Ys, Yi)
    print("copy-then-compute  %9.2f ms  %7.2f GB/s" % (1e3 * t_seq, 8 * n / t_seq / 1e9))
    print("launch-interleaved %9.2f ms  %7.2f GB/s" % (1e3 * t_int, 8 * n / t_int / 1e9))
    print("ratio interleaved/copy-then-compute: %.3f  (%s)" % (t_int / t_seq, "same results" if same else "RESULTS DIFFER"),
          flush=True)
    if opt.sweep:
        for thread in (False, True):
            mod.INTERLEAVE_COPY_THREAD = thread
            c = -(-n // 8)
            Yi[:] = 0
            t = best(lambda: k.interleaved(0, 0, 0.25, X, Yi, chunk=c, queues=2))
            ok = np.array_equal(Ys, Yi)
            same = same and ok
            print("  sweep: 8 chunks on 2 queues, copy-out thread %-5s %9.2f ms  %7.2f GB/s  ratio %.3f%s"
                  % (thread, 1e3 * t, 8 * n / t / 1e9, t / t_seq, "" if ok else "  RESULTS DIFFER"), flush=True)
        for queues in (2, 3):
            for chunks in (4, 8, 16, 32):
                c = -(-n // chunks)
                Yi[:] = 0
                t = best(lambda: k.interleaved(0, 0, 0.25, X, Yi, chunk=c, queues=queues))
                ok = np.array_equal(Ys, Yi)
                same = same and ok
                print("  sweep: %2d chunks on %d queues %9.2f ms  %7.2f GB/s  ratio %.3f%s"
                      % (chunks, queues, 1e3 * t, 8 * n / t / 1e9, t / t_seq, "" if ok else "  RESULTS DIFFER"), flush=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
