#!/bin/sh
# bench.sh - `make bench`.
#  1. compile speed: ./crisp on each examples/*.crisp (BENCH_REPEAT times,
#     default 50) against `clang -fsyntax-only` on the .cl it generates, timed
#     side by side; prints ms per run and the ratio crisp/clang.
#  2. kernel speed: vector_add from examples/vector_add.crisp against a
#     hand-written OpenCL C vector_add on PoCL, 2^22 floats (BENCH_KERNEL_RUNS
#     timed runs, default 20, after 3 warm-ups); prints the best and median
#     kernel times (OpenCL profiling events) and the ratio crisp/hand-written.
#  3. in-memory compilation: crisp.compile (the C API through the Python
#     package) on examples/vector_add.crisp, per call after the first
#     (BENCH_API_CALLS, default 500), next to PyOpenCL's
#     Program(ctx, same OpenCL C).build() on PoCL with its caches off (what a
#     JIT user pays for a new kernel anyway); prints both and the ratio.
#  4. the GPU library's scans and filter (scripts/bench_scan.py): crisp next
#     to a hand-written kernel, PyOpenCL's algorithms and, where there is
#     CuPy, CUB; CRISP_PLATFORM and BENCH_SCAN_N choose device and size.
#  4b. issue 8's PoCL targets side by side (scripts/bench_pairs.py): the
#     scans, the filter and the reductions against their hand-written and
#     PyOpenCL baselines in interleaved rounds, per-round ratios with
#     their quartiles (BENCH_PAIRS_ROUNDS, default 31; CRISP_PLATFORM).
#  5. the library's reductions (scripts/bench_reduce.py): reduce-vec-atomic
#     and reduce-vec-small next to a hand-written OpenCL C reduction,
#     PyOpenCL's ReductionKernel and, where there is CuPy, cupy.sum/min/max
#     (CRISP_PLATFORM, BENCH_REDUCE_N: see that file).
#  5. warps (scripts/bench_warps.py, docs/warps.md): a reduce-to-warp vector
#     sum against a hand-written float4 copy, as bandwidths and their ratio,
#     on CRISP_PLATFORM (default PoCL), and on Intel's CPU runtime when
#     scripts/deps.sh installed it.  On NVIDIA: CRISP_PLATFORM=NVIDIA.
#  6. matmul (scripts/bench_matmul.py): the library's matmul next to a
#     hand-written tiled OpenCL C matmul (scripts/bench_matmul_ref.cl) with
#     the same block sizes, 512^3 float32 on CRISP_PLATFORM (default PoCL);
#     with --platform NVIDIA also cupy.matmul (cuBLAS, TF32 off), 4096^3.
#  7. hoist overhead: the Python and C hoists of vector_add against the same
#     work written by hand with PyOpenCL / OpenCL C, at 1,024 and 2^20
#     floats, side by side, as ratios with the targets of issue 15
#     (scripts/bench_hoist.py; BENCH_HOIST_ROUNDS, CRISP_PLATFORM).
#  8. sorting (scripts/bench_sort.py): crisp's radix and bitonic sorts next
#     to pyopencl.algorithm.RadixSort and pyopencl.bitonic_sort.BitonicSort
#     (and cupy.sort with --platform NVIDIA), in keys/s (BENCH_SORT_N).
#  9. orchestrations: launch-interleaved against copy-then-compute through
#     the Python hoist (scripts/bench_orch.py, docs/orchestration.md;
#     BENCH_ORCH_BYTES, default 64 MiB on a CPU, CRISP_PLATFORM).
# 10. compile speed and scaling (scripts/bench_compile.py, issue 14): lines
#     per second of CPU time and the ratio to clang -fsyntax-only on the
#     emitted OpenCL C, on a generated 1 MB program (scripts/gen_big.py), and
#     a size sweep (BENCH_COMPILE_SIZES, default 1 2 4 8 MB) with CPU time,
#     wall time and maximum RSS, so that growth is visible.
cd "$(dirname "$0")/.." || exit 2
if [ -z "${PY:-}" ]; then  # the active virtual environment's Python, else Debian's
    if [ -n "${VIRTUAL_ENV:-}" ]; then PY=$VIRTUAL_ENV/bin/python3; else PY=/usr/bin/python3; fi
fi
PYTHONPATH=tests "$PY" - <<'PYEOF'
import glob, os, statistics, subprocess, sys, time
os.environ["POCL_KERNEL_CACHE"] = "0"  # section 3 times real builds
from crisptest import (compile, load_program, np, CompileError, REPO, CLANG,
                       CLANG_CL_FLAGS, parse_type, _crisp_path)

repeat = int(os.environ.get("BENCH_REPEAT", "50"))
runs = int(os.environ.get("BENCH_KERNEL_RUNS", "20"))
out = os.path.join(REPO, "tests", "out", "bench")
os.makedirs(out, exist_ok=True)
crisp = _crisp_path()
status = 0


def timed(cmd, n):
    best = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        best.append(time.perf_counter() - t0)
        if r.returncode:
            raise RuntimeError("%s failed:\n%s" % (" ".join(cmd), r.stderr.decode()))
    return statistics.median(best)


print("== compile speed (median of %d runs each)" % repeat)
print("%-34s %12s %16s %8s" % ("example", "crisp ms", "clang -fsyntax ms", "ratio"))
examples = sorted(glob.glob(os.path.join(REPO, "examples", "*.crisp")))
if not examples:
    print("  (no examples/*.crisp)")
for ex in examples:
    stem = os.path.splitext(os.path.basename(ex))[0]
    cmd = [crisp, "--transpile-to=oclc", "--metadata", "--output-dir=" + out, ex]
    cl_path = os.path.join(out, stem + ".cl")
    try:
        # interleave the two so that machine noise hits both alike
        tc, tl = [], []
        for _ in range(max(1, repeat // 10)):
            tc.append(timed(cmd, 10 if repeat >= 10 else repeat))
            tl.append(timed([CLANG] + CLANG_CL_FLAGS + [cl_path], 10 if repeat >= 10 else repeat))
        c, l = statistics.median(tc), statistics.median(tl)
        print("%-34s %12.2f %16.2f %8.2f" % (os.path.relpath(ex, REPO), c * 1e3, l * 1e3, c / l))
    except RuntimeError as e:
        print("%-34s failed: %s" % (os.path.relpath(ex, REPO), e))
        status = 1

print()
n = 1 << 22
print("== kernel speed: vector_add on %d floats (PoCL)" % n)
HAND = """__kernel void vector_add_ref(__global const float *a, __global const float *b,
                            __global float *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}
"""
hand_cl = os.path.join(out, "vector_add_ref.cl")
with open(hand_cl, "w") as f:
    f.write(HAND)
buf = lambda i, name, access: {
    "index": i, "name": name, "role": "buffer", "type": "__global float *",
    "element": "float", "address_space": "global", "access": access,
    "align": "compact", "stride": 4}
hand_meta = {"crisp_version": "hand-written", "source": hand_cl, "kernels": [{
    "name": "vector_add_ref", "global_size": None, "local_size": None, "single_task": False,
    "args": [buf(0, "a", "read_only"), buf(1, "b", "read_only"), buf(2, "c", "write_only")]}]}


def bench(prog, kname, args):
    for _ in range(3):
        prog.run(kname, *args)
    ts = []
    for _ in range(runs):
        prog.run(kname, *args)
        ts.append(prog.last_kernel_seconds)
    return min(ts), statistics.median(ts)


a = np.random.rand(n).astype(np.float32)
b = np.random.rand(n).astype(np.float32)
src = os.path.join(REPO, "examples", "vector_add.crisp")
try:
    prog = compile(src, os.path.join(out, "vector_add"))
    params = prog.params("vector_add")
    ins = iter([a, b])
    c1 = np.zeros(n, np.float32)
    args = [next(ins) if p.get("access") == "read_only" else c1 for p in params]
    crisp_t = bench(prog, "vector_add", args)
    ok1 = np.allclose(c1, a + b)
except (CompileError, OSError, KeyError, StopIteration, TypeError) as e:
    print("crisp vector_add: %s" % e)
    crisp_t, ok1, status = None, False, 1

ref = load_program(hand_cl, hand_meta)
c2 = np.zeros(n, np.float32)
hand_t = bench(ref, "vector_add_ref", [a, b, c2])
ok2 = np.allclose(c2, a + b)
print("%-24s %10s %10s" % ("", "best ms", "median ms"))
if crisp_t:
    print("%-24s %10.3f %10.3f%s" % ("crisp vector_add", crisp_t[0] * 1e3, crisp_t[1] * 1e3,
                                     "" if ok1 else "   WRONG RESULT"))
print("%-24s %10.3f %10.3f%s" % ("hand-written OpenCL C", hand_t[0] * 1e3, hand_t[1] * 1e3,
                                 "" if ok2 else "   WRONG RESULT"))
if crisp_t:
    print("ratio crisp/hand-written: %.2f (best), %.2f (median)"
          % (crisp_t[0] / hand_t[0], crisp_t[1] / hand_t[1]))
if not (ok1 and ok2):
    status = 1

print()
print("== in-memory compilation: examples/vector_add.crisp")
sys.path.insert(0, os.path.join(REPO, "python"))
try:
    import crisp as crisp_api
    import pyopencl as cl
    from crisptest import _context
    source = open(src).read()
    first = crisp_api.compile(source)          # parses the prelude once
    calls = int(os.environ.get("BENCH_API_CALLS", "500"))
    per_call = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls // 5):
            crisp_api.compile(source)
        per_call.append((time.perf_counter() - t0) / (calls // 5))
    api_t = statistics.median(per_call)
    ctx, _q = _context()
    builds = []
    for _ in range(int(os.environ.get("BENCH_BUILDS", "5"))):
        t0 = time.perf_counter()
        cl.Program(ctx, first.opencl_c).build(options="-cl-std=CL1.2", cache_dir=False)
        builds.append(time.perf_counter() - t0)
    build_t = statistics.median(builds)
    print("%-44s %12s" % ("", "ms per call"))
    print("%-44s %12.3f" % ("crisp.compile (in memory, after the first)", api_t * 1e3))
    print("%-44s %12.3f" % ("PyOpenCL Program(...).build() on PoCL", build_t * 1e3))
    print("ratio crisp.compile/PyOpenCL build: %.4f" % (api_t / build_t))
except Exception as e:  # noqa: BLE001 - report, do not hide, a broken API
    print("in-memory compilation: %s: %s" % (type(e).__name__, e))
    status = 1
sys.exit(status)
PYEOF
status=$?
echo
PYTHONPATH=tests "$PY" scripts/bench_scan.py || status=1
echo
"$PY" scripts/bench_pairs.py || status=1
echo
"$PY" scripts/bench_reduce.py || status=1
"$PY" scripts/bench_warps.py || status=1
if [ -f build/intel-ocl/ok ] && [ -z "${CRISP_PLATFORM:-}" ]; then
    echo
    env $(cat build/intel-ocl/env) "$PY" scripts/bench_warps.py --platform "Intel(R) OpenCL" --ocl-version 3.0 || status=1
fi
echo
"$PY" scripts/bench_matmul.py || status=1
echo
"$PY" scripts/bench_hoist.py || status=1
echo
"$PY" scripts/bench_sort.py || status=1
echo
"$PY" scripts/bench_orch.py || status=1
echo
"$PY" scripts/bench_compile.py || status=1
exit $status
