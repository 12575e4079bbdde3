"""bench_reduce.py - `make bench`, the reductions: the library's
reduce-vec-atomic and reduce-vec-small (scripts/bench_reduce.crisp) next to
a hand-written OpenCL C reduction of the best portable algorithm (float4
grid-stride loads, a local-memory tree, one atomic per workgroup) and
PyOpenCL's own pyopencl.reduction.ReductionKernel, on the same device in
the same run; with CuPy's sum/min/max where `import cupy` works, and a
float4 copy for the device's bandwidth.

Prints GB/s (bytes read / median time of BENCH_RUNS timed runs after 3
warm-ups, measured on the host around enqueue + finish, the same way for
every column, the runs of the columns interleaved so that a shared
machine's load falls on all alike) and the ratios crisp/hand-written and
crisp/PyOpenCL.
Every result is checked against numpy.

Environment:
  CRISP_PLATFORM   substring of the OpenCL platform name (default: the
                   first platform; e.g. NVIDIA, Portable)
  BENCH_REDUCE_N          elements (default 2^24; 268435456 for the H100 figures)
  BENCH_RUNS       timed runs per measurement (default 15)
  BENCH_GROUPS     workgroups of 256 for crisp and hand-written (default:
                   8 per compute unit on a GPU, 512 in all on a CPU)
  BENCH_REDUCE_TYPES, BENCH_REDUCE_OPS
                   restrict the rows (default "int float", "add min max")
  BENCH_CL_OPTIONS build options of the crisp and hand-written programs,
                   e.g. -DCRISP_ATOMIC_CAS (float + through compare-and-swap
                   on NVIDIA too, instead of the hardware's atomic add)
  CRISP            the compiler (default ./crisp)
No clang is needed: the .cl files are built by the OpenCL driver only."""
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl
from pyopencl.reduction import ReductionKernel
import pyopencl.array as cla
import json

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(REPO, "tests", "out", "bench")
N = int(os.environ.get("BENCH_REDUCE_N", str(1 << 24)))
RUNS = int(os.environ.get("BENCH_RUNS", "15"))
CRISP = os.environ.get("CRISP", os.path.join(REPO, "crisp"))
L = 256
TYPE_ROWS = os.environ.get("BENCH_REDUCE_TYPES", "int float").split()
OP_ROWS = os.environ.get("BENCH_REDUCE_OPS", "add min max").split()
CL_OPTIONS = os.environ.get("BENCH_CL_OPTIONS", "").split()


def pick_device():
    want = os.environ.get("CRISP_PLATFORM", "")
    for p in cl.get_platforms():
        if want.lower() in p.name.lower():
            devs = p.get_devices()
            if devs:
                return p, devs[0]
    sys.exit("bench_reduce: no OpenCL platform matches CRISP_PLATFORM=%r (have: %s)"
             % (want, ", ".join(p.name for p in cl.get_platforms())))


platform, device = pick_device()
ctx = cl.Context([device])
queue = cl.CommandQueue(ctx)
is_gpu = device.type & cl.device_type.GPU
GROUPS = int(os.environ.get("BENCH_GROUPS", str(device.max_compute_units * 8 if is_gpu else 512)))

HAND = r"""
/* The hand-written reduction: each thread folds float4 (int4) loads with a
   grid stride into a vector accumulator, then the tail one by one; the
   workgroup tree in local memory; one atomic per workgroup. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
float atomic_addf(volatile __global float *p, float v) {
#if defined(cl_nv_pragma_unroll) && !defined(CRISP_ATOMIC_CAS)
    float r; /* NVIDIA: the hardware's float atomic add (inline PTX) */
    __asm__ __volatile__("atom.global.add.f32 %0, [%1], %2;" : "=f"(r) : "l"((ulong)p), "f"(v) : "memory");
    return r;
#endif
    uint old = atomic_or((volatile __global uint *)p, 0u), seen;
    while ((seen = atomic_cmpxchg((volatile __global uint *)p, old, as_uint(as_float(old) + v))) != old) old = seen;
    return as_float(old);
}
float atomic_minf(volatile __global float *p, float v) {
    uint old = atomic_or((volatile __global uint *)p, 0u), seen;
    while ((seen = atomic_cmpxchg((volatile __global uint *)p, old, as_uint(fmin(as_float(old), v)))) != old) old = seen;
    return as_float(old);
}
float atomic_maxf(volatile __global float *p, float v) {
    uint old = atomic_or((volatile __global uint *)p, 0u), seen;
    while ((seen = atomic_cmpxchg((volatile __global uint *)p, old, as_uint(fmax(as_float(old), v)))) != old) old = seen;
    return as_float(old);
}
#define DEF(NAME, T, T4, OP, ATOMIC)                                              \
__kernel void NAME(__global const T *a, ulong n, __global T *r, T ident,          \
                   __local T *s)                                                  \
{                                                                                 \
    size_t lid = get_local_id(0), gid = get_global_id(0), G = get_global_size(0); \
    T4 acc4 = (T4)(ident);                                                        \
    __global const T4 *a4 = (__global const T4 *)a;                              \
    ulong n4 = n / 4;                                                             \
    for (ulong i = gid; i < n4; i += G) acc4 = OP(acc4, a4[i]);                   \
    T acc = OP(OP(acc4.x, acc4.y), OP(acc4.z, acc4.w));                           \
    for (ulong i = 4 * n4 + gid; i < n; i += G) acc = OP(acc, a[i]);             \
    s[lid] = acc;                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                 \
    for (size_t k = get_local_size(0) / 2; k > 0; k >>= 1) {                      \
        if (lid < k) s[lid] = OP(s[lid], s[lid + k]);                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                             \
    }                                                                             \
    if (lid == 0) ATOMIC(r, s[0]);                                                \
}
#define ADD(a, b) ((a) + (b))
DEF(hand_add_int, int, int4, ADD, atomic_add)
DEF(hand_min_int, int, int4, min, atomic_min)
DEF(hand_max_int, int, int4, max, atomic_max)
DEF(hand_add_float, float, float4, ADD, atomic_addf)
DEF(hand_min_float, float, float4, fmin, atomic_minf)
DEF(hand_max_float, float, float4, fmax, atomic_maxf)

__kernel void copy4(__global const float4 *a, __global float4 *b, ulong n4)
{
    for (ulong i = get_global_id(0); i < n4; i += get_global_size(0)) b[i] = a[i];
}
"""

TYPES = {"int": np.int32, "float": np.float32}
OPS = {"add": ("a+b", np.sum), "min": ("min(a,b)", np.min), "max": ("max(a,b)", np.max)}


def ident(op, ty):
    if op == "add":
        return TYPES[ty](0)
    if ty == "float":
        return np.float32(np.inf if op == "min" else -np.inf)
    info = np.iinfo(np.int32)
    return np.int32(info.max if op == "min" else info.min)


def timed(setup, run):
    """median seconds of run() + finish, setup() (untimed) before each"""
    return timed_many([(setup, run)])[0]


def timed_many(impls):
    """timed() of several (setup, run) pairs, their runs interleaved so that
    the load of a shared machine falls on all of them alike"""
    ts = [[] for _ in impls]
    for k in range(3 + RUNS):
        for j, (setup, run) in enumerate(impls):
            setup()
            queue.finish()
            t0 = time.perf_counter()
            run()
            queue.finish()
            if k >= 3:
                ts[j].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in ts]


def ok(got, want, ty, data):
    if ty == "float":
        return abs(float(got) - float(want)) <= 1e-5 * max(1.0, float(np.abs(data).sum()))
    return got == want


def crisp_program():
    os.makedirs(OUT, exist_ok=True)
    src = os.path.join(REPO, "scripts", "bench_reduce.crisp")
    r = subprocess.run([CRISP, "--transpile-to=oclc", "--metadata", "--output-dir=" + OUT, src],
                       capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench_reduce: crisp failed:\n" + r.stderr)
    with open(os.path.join(OUT, "bench_reduce.cl")) as f:
        source = f.read()
    with open(os.path.join(OUT, "bench_reduce.metacrisp")) as f:
        meta = json.load(f)
    return cl.Program(ctx, source).build(options=CL_OPTIONS), {k["name"]: k for k in meta["kernels"]}


def crisp_launch(prog, k, a_buf, n, r_buf, idv, pools):
    """the kernel with its arguments from the metadata: buffers, lengths,
    the identity, workgroup scratch and the scratch pool (zeroed once: the
    last-workgroup counter resets itself)"""
    kern = getattr(prog, k["name"])
    gsize = GROUPS * L
    env = {"local_size0": L, "local_size1": 1, "local_size2": 1, "global_size0": gsize,
           "global_size1": 1, "global_size2": 1, "num_groups0": GROUPS, "num_groups1": 1,
           "num_groups2": 1, "global_linear_size": gsize, "local_linear_size": L,
           "A_len": n, "R_len": 1}
    lens = {"A": n, "R": 1}
    for a in k["args"]:
        i, role = a["index"], a["role"]
        if role == "buffer":
            kern.set_arg(i, a_buf if a["name"] == "A" else r_buf)
        elif role == "scalar":
            kern.set_arg(i, idv)
        elif role == "local":
            cnt = int(eval(a["size"]["python"], env))
            lens[a["name"]] = cnt
            kern.set_arg(i, cl.LocalMemory(max(cnt, 1) * a["stride"]))
        elif role == "scratch":
            nbytes = int(eval(a["bytes"]["python"], env))
            if k["name"] not in pools:
                pools[k["name"]] = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                                             hostbuf=np.zeros(max(nbytes, 16), np.uint8))
            lens[a["name"]] = nbytes
            kern.set_arg(i, pools[k["name"]])
    for a in k["args"]:
        if a["role"] == "length":
            kern.set_arg(a["index"], np.uint64(lens[a["param"]]))
    return lambda: cl.enqueue_nd_range_kernel(queue, kern, (gsize,), (L,))


def main():
    print("== kernel speed: reductions on %d elements, %s / %s" % (N, platform.name, device.name))
    print("   %d workgroups of %d for crisp and hand-written; GB/s = bytes read / median of %d runs"
          % (GROUPS, L, RUNS))
    try:
        import cupy
        cupy.zeros(1).sum()
    except Exception:
        cupy = None
    rng = np.random.default_rng(1)
    prog, metas = crisp_program()
    hand = cl.Program(ctx, HAND).build(options=CL_OPTIONS)
    pools = {}
    status = 0

    # the device's bandwidth: a float4 copy, bytes read + written
    a32 = rng.uniform(-1, 1, N).astype(np.float32)
    src = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a32)
    dst = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, a32.nbytes)
    t = timed(lambda: None, lambda: hand.copy4(queue, (GROUPS * L,), (L,), src, dst, np.uint64(N // 4)))
    copy_gbs = 2 * a32.nbytes / t / 1e9
    print("   float4 copy: %.1f GB/s (read + written)" % copy_gbs)
    head = "%-18s %9s %9s %9s %8s %8s %9s" % ("form", "crisp", "hand", "pyopencl", "c/hand", "c/pyocl", "c/copy")
    if cupy is not None:
        head += " %9s %8s" % ("cupy", "c/cupy")
    print(head)

    if CL_OPTIONS:
        print("   build options: %s" % " ".join(CL_OPTIONS))
    for ty in TYPE_ROWS:
        if ty == "int":
            data = rng.integers(-1000, 1000, N, dtype=np.int32)
        else:
            data = a32
        a_buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
        nbytes = data.nbytes
        exact = {"add": data.astype(np.float64).sum() if ty == "float" else data.sum(dtype=np.int64),
                 "min": data.min(), "max": data.max()}
        xd = cla.to_device(queue, data)
        cx = cupy.asarray(data) if cupy is not None else None
        for op in OP_ROWS:
            idv = ident(op, ty)
            r_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
            res = np.zeros(1, TYPES[ty])

            def reset():
                cl.enqueue_copy(queue, r_buf, np.array([idv], TYPES[ty]))

            def result():
                cl.enqueue_copy(queue, res, r_buf)
                queue.finish()
                return res[0]

            # hand-written, PyOpenCL, and crisp's reduce-vec-atomic and reduce-vec-small
            hk = getattr(hand, "hand_%s_%s" % (op, ty))
            rk = ReductionKernel(ctx, TYPES[ty], neutral=("INFINITY" if idv == np.inf else "-INFINITY"
                                                          if idv == -np.inf else str(idv)),
                                 reduce_expr=OPS[op][0], map_expr="x[i]",
                                 arguments="__global const %s *x" % ty)
            box = {}
            launches = {v: crisp_launch(prog, metas["%s_%s_%s" % (v, op, ty)], a_buf, N, r_buf, idv, pools)
                        for v in ("atomic", "small")}
            checks = {}

            def keep(name):
                return lambda: checks.__setitem__(name, result())
            # (the hand-written kernel's arguments set once, as crisp_launch
            # sets crisp's: no timed run includes setting them)
            hk.set_args(a_buf, np.uint64(N), r_buf, idv, cl.LocalMemory(L * 4))
            impls = [(reset, lambda: cl.enqueue_nd_range_kernel(queue, hk, (GROUPS * L,), (L,))),
                     (keep("hand"), lambda: box.__setitem__("r", rk(xd, queue=queue))),
                     (reset, launches["atomic"]),
                     (keep("atomic"), launches["small"])]
            t_hand, t_py, t_atomic, t_small = timed_many(impls + [(keep("small"), lambda: None)])[:4]
            hand_ok = ok(checks["hand"], exact[op], ty, data)
            py_ok = ok(box["r"].get(), exact[op], ty, data)
            # CuPy
            t_cupy = None
            if cupy is not None:
                f = {"add": cupy.sum, "min": cupy.min, "max": cupy.max}[op]
                ts = []
                for k in range(3 + RUNS):
                    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                    e0.record()
                    f(cx)
                    e1.record()
                    e1.synchronize()
                    if k >= 3:
                        ts.append(cupy.cuda.get_elapsed_time(e0, e1) * 1e-3)
                t_cupy = statistics.median(ts)
            for variant, t_c in (("atomic", t_atomic), ("small", t_small)):
                c_ok = ok(checks[variant], exact[op], ty, data)
                gbs = lambda t: nbytes / t / 1e9
                line = "%-18s %9.2f %9.2f %9.2f %8.2f %8.2f %9.2f" % (
                    "%s %s %s" % (variant, op, ty), gbs(t_c), gbs(t_hand), gbs(t_py),
                    t_hand / t_c, t_py / t_c, gbs(t_c) / copy_gbs)
                if t_cupy is not None:
                    line += " %9.2f %8.2f" % (gbs(t_cupy), t_cupy / t_c)
                bad = [name for name, good in (("crisp", c_ok), ("hand", hand_ok), ("pyopencl", py_ok)) if not good]
                if bad:
                    line += "   WRONG RESULT: " + ", ".join(bad)
                    status = 1
                print(line)
    print("(ratios > 1: crisp faster; c/copy: crisp's read bandwidth / the float4 copy's)")
    return status


if __name__ == "__main__":
    sys.exit(main())
