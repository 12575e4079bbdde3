"""bench_matmul.py - `make bench`, matmul (the GPU library's "Vector and
Tensor Operations" matmul, lib/matmul.crisp).

On one OpenCL device, in one run, C = A x B for N x N float32 matrices:
  * crisp: scripts/bench_matmul.crisp (the library's tiled, local-memory,
    register-blocked matmul), block sizes given with -D;
  * hand-written: scripts/bench_matmul_ref.cl, the same classic tiled
    algorithm written directly in OpenCL C, with the same block sizes;
  * with an NVIDIA platform and CuPy importable: cupy.matmul (cuBLAS SGEMM)
    with TF32 off (CUPY_TF32=0), on the same GPU.
Times are medians of --runs kernel runs (OpenCL profiling events, CuPy
events) after warm-ups, crisp's and the hand-written kernel's runs
interleaved; results are checked against numpy (float64) on a
sample of rows.  Prints GFLOP/s (2 N^3 flops) and the ratios
crisp / hand-written and crisp / cuBLAS (throughputs).

Options (environment in brackets):
  --platform NAME  substring of the OpenCL platform [CRISP_PLATFORM]
                   (default PoCL, "Portable Computing Language"; "NVIDIA")
  --n N            matrix size [BENCH_MATMUL_N] (512 on a CPU, 4096 on a GPU)
  --rm --rn --bk   rows and columns per work-item, K slice (CPU 4 4 16, GPU 8 8 16)
  --lx --ly        work-group size (16 16)
  --pad P          matmul's :pad, the A tile's rows padded by P (CPU 0, GPU 4)
  --pipeline, --no-pipeline
                   matmul's :pipeline: the next slice read into registers
                   during the sums, double-buffered tiles (CPU off, GPU on)
The GPU defaults are the fastest of the sweep on an H200 (docs/performance.md).
  --sweep "RM,RN,BK,LX,LY[,PAD[,PIPELINE]] ..."
                   several configurations, one after the other, in one
                   run (cuBLAS timed once, first)
  --build-options=O  more OpenCL build options, for both kernels (the = form:
                   O starts with a dash)
  --runs R         timed runs [BENCH_MATMUL_RUNS] (default 10)
No clang is needed: the .cl files are built by the OpenCL driver.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pyopencl as cl

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "out", "bench", "matmul")


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--platform", default=os.environ.get("CRISP_PLATFORM", "Portable Computing Language"))
    p.add_argument("--n", type=int, default=int(os.environ.get("BENCH_MATMUL_N", "0")) or None)
    for name in ("rm", "rn", "bk", "lx", "ly"):
        p.add_argument("--" + name, type=int)
    p.add_argument("--pad", type=int, help="matmul's :pad (rows of the A tile padded by N)")
    p.add_argument("--pipeline", action=argparse.BooleanOptionalAction,
                   help="matmul's :pipeline (register prefetch, double-buffered tiles)")
    p.add_argument("--sweep", help='several configurations in one run: "RM,RN,BK,LX,LY[,PAD[,PIPELINE]] ..."')
    p.add_argument("--build-options", default="",
                   help='more OpenCL build options for both kernels (e.g. "-cl-nv-maxrregcount=128" on NVIDIA)')
    p.add_argument("--crisp-cl", help="time this OpenCL C instead of crisp's output (an edited copy of it, for experiments)")
    p.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_MATMUL_RUNS", "10")))
    return p.parse_args()


def crisp_kernel(ctx, cfg, bufs, n, crisp_cl=None, extra=""):
    """crisp's kernel for the configuration CFG (rm, rn, bk, lx, ly, pad,
    pipeline), its arguments set."""
    rm, rn, bk, lx, ly, pad, pipeline = cfg
    out = os.path.join(OUT, "%d_%d_%d_%d_%d_%d_%d" % cfg)
    os.makedirs(out, exist_ok=True)
    crisp = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
    r = subprocess.run([crisp, "--transpile-to=oclc", "--metadata", "--output-dir=" + out,
                        "-D+rows-per-thread+=%d" % rm, "-D+cols-per-thread+=%d" % rn, "-D+tile-k+=%d" % bk,
                        "-D+threads-x+=%d" % lx, "-D+threads-y+=%d" % ly,
                        "-D+pad+=%d" % pad, "-D+pipeline+=%d" % pipeline,
                        os.path.join(REPO, "scripts", "bench_matmul.crisp")], capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench_matmul: crisp failed:\n" + r.stderr)
    text = open(crisp_cl or os.path.join(out, "bench_matmul.cl")).read()
    meta = json.load(open(os.path.join(out, "bench_matmul.metacrisp")))
    kmeta = [k for k in meta["kernels"] if k["name"] == "matmul_bench"][0]
    nvidia = "nvidia" in ctx.devices[0].platform.name.lower()
    # on NVIDIA, ptxas's register and spill counts (-cl-nv-verbose)
    prog = cl.Program(ctx, text).build(options="-cl-std=CL1.2 " + extra + (" -cl-nv-verbose" if nvidia else ""))
    if nvidia:
        log = prog.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
        for line in log.splitlines():
            if "registers" in line or "spill" in line:
                print("  ptxas: " + line.strip())
    k = cl.Kernel(prog, "matmul_bench")
    vecs = {"A": (bufs[0], n * n), "B": (bufs[1], n * n), "C": (bufs[2], n * n)}
    scal = {"m": n, "k": n, "n": n}
    env = {"local_size0": lx, "local_size1": ly, "local_linear_size": lx * ly}
    for arg in kmeta["args"]:
        i, role = arg["index"], arg["role"]
        if role == "buffer":
            k.set_arg(i, vecs[arg["name"]][0])
        elif role == "length" and arg["param"] in vecs:
            k.set_arg(i, np.uint64(vecs[arg["param"]][1]))
        elif role == "scalar":
            k.set_arg(i, np.uint64(scal[arg["name"]]))
        elif role == "local":
            cnt = int(eval(arg["size"]["python"], dict(env)))
            k.set_arg(i, cl.LocalMemory(cnt * arg["stride"]))
            k.set_arg(i + 1, np.uint64(cnt))
        elif role != "length":
            sys.exit("bench_matmul: unexpected kernel argument %r" % arg)
    return k


def ref_kernel(ctx, cfg, bufs, n, extra=""):
    """The hand-written kernel with CFG's block sizes."""
    rm, rn, bk, lx, ly = cfg[:5]
    ref = cl.Program(ctx, open(os.path.join(REPO, "scripts", "bench_matmul_ref.cl")).read()).build(
        options="-cl-std=CL1.2 -DRM=%d -DRN=%d -DBK=%d -DLX=%d -DLY=%d %s" % (rm, rn, bk, lx, ly, extra))
    kr = cl.Kernel(ref, "matmul_ref")
    kr.set_args(bufs[0], bufs[1], bufs[2], np.int32(n), np.int32(n), np.int32(n))
    return kr


def parse_configs(text):
    """--sweep's "RM,RN,BK,LX,LY[,PAD[,PIPELINE]] ..." as tuples."""
    cfgs = []
    for item in text.split():
        v = [int(x) for x in item.split(",")]
        if not 5 <= len(v) <= 7:
            sys.exit("bench_matmul: --sweep wants RM,RN,BK,LX,LY[,PAD[,PIPELINE]], got %r" % item)
        cfgs.append(tuple(v + [0] * (7 - len(v))))
    return cfgs


def main():
    args = parse()
    plats = [p for p in cl.get_platforms() if args.platform.lower() in p.name.lower()]
    if not plats:
        sys.exit("bench_matmul: no OpenCL platform matching %r (have: %s)"
                 % (args.platform, ", ".join(p.name for p in cl.get_platforms())))
    dev = plats[0].get_devices()[0]
    gpu = bool(dev.type & cl.device_type.GPU)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    n = args.n or (4096 if gpu else 512)
    if args.sweep:
        cfgs = parse_configs(args.sweep)
    else:
        pad = args.pad if args.pad is not None else (4 if gpu else 0)
        pipeline = args.pipeline if args.pipeline is not None else gpu
        cfgs = [(args.rm or (8 if gpu else 4), args.rn or (8 if gpu else 4), args.bk or 16,
                 args.lx or 16, args.ly or 16, pad, int(pipeline))]
    flops = 2.0 * n * n * n
    MF = cl.mem_flags

    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    a_buf = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=b)
    c_buf = cl.Buffer(ctx, MF.READ_WRITE, 4 * n * n)
    bufs = (a_buf, b_buf, c_buf)
    sample = rng.choice(n, size=min(n, 64), replace=False)
    want = a[sample].astype(np.float64) @ b.astype(np.float64)
    bound = 4 * n * np.finfo(np.float32).eps * (np.abs(a[sample]).astype(np.float64) @ np.abs(b).astype(np.float64))

    def correct(c):
        return bool(np.all(np.abs(c[sample].astype(np.float64) - want) <= bound))

    def result():
        c = np.empty((n, n), np.float32)
        cl.enqueue_copy(queue, c, c_buf)
        return c

    def timed(*enqueues):
        """Median kernel seconds of each enqueue, their runs interleaved
        (crisp, hand-written, crisp, ...) so that load on a shared machine
        hits both alike."""
        for enqueue in enqueues:
            for _ in range(2):
                enqueue()
        queue.finish()
        ts = [[] for _ in enqueues]
        for _ in range(args.runs):
            for t, enqueue in zip(ts, enqueues):
                ev = enqueue()
                ev.wait()
                t.append((ev.profile.end - ev.profile.start) * 1e-9)
        return [statistics.median(t) for t in ts]

    # cuBLAS through CuPy, TF32 off, where there is CuPy (NVIDIA only)
    cublas = None
    if "nvidia" in dev.platform.name.lower():
        os.environ["CUPY_TF32"] = "0"
        try:
            import cupy
            x, y = cupy.asarray(a), cupy.asarray(b)

            def run_cupy():
                return cupy.matmul(x, y)
            for _ in range(2):
                run_cupy()
            cupy.cuda.Device().synchronize()
            ts = []
            for _ in range(args.runs):
                s, e = cupy.cuda.Event(), cupy.cuda.Event()
                s.record()
                z = run_cupy()
                e.record()
                e.synchronize()
                ts.append(cupy.cuda.get_elapsed_time(s, e) * 1e-3)
            cublas = (statistics.median(ts), correct(cupy.asnumpy(z)))
            del x, y, z
        except ImportError as e:
            print("  (no cupy: %s)" % e)
        except Exception as e:  # noqa: BLE001 - a CUDA set-up problem: report, keep the OpenCL figures
            print("  (cupy failed: %s: %s)" % (type(e).__name__, e))

    ok_all = cublas is None or cublas[1]
    refs = {}  # the hand-written kernel per block sizes, built once
    for cfg in cfgs:
        rm, rn, bk, lx, ly, pad, pipeline = cfg
        tm, tn = ly * rm, lx * rn
        gsize = (lx * -(-n // tn), ly * -(-n // tm))
        print("== matmul: %d x %d x %d float32 on %s (%s); %d x %d work-items, %d x %d per work-item "
              "(blocks of %d x %d), K slices of %d, :pad %d%s; median of %d runs%s"
              % (n, n, n, dev.name.strip(), dev.platform.name.strip(), lx, ly, rm, rn, tm, tn, bk, pad,
                 ", :pipeline" if pipeline else "", args.runs,
                 "; build options " + args.build_options if args.build_options else ""))
        try:
            k = crisp_kernel(ctx, cfg, bufs, n, args.crisp_cl, args.build_options)
            run_crisp = lambda: cl.enqueue_nd_range_kernel(queue, k, gsize, (lx, ly))  # noqa: E731
            run_crisp().wait()
            crisp_ok = correct(result())
            if cfg[:5] not in refs:
                refs[cfg[:5]] = ref_kernel(ctx, cfg, bufs, n, args.build_options)
            kr = refs[cfg[:5]]
            run_ref = lambda: cl.enqueue_nd_range_kernel(queue, kr, gsize, (lx, ly))  # noqa: E731
            run_ref().wait()
            ref_ok = correct(result())
            t_crisp, t_ref = timed(run_crisp, run_ref)
        except cl.Error as e:
            # one configuration the device cannot run (too much local
            # memory, too many registers): report it, go on with the others
            print("  (OpenCL error: %s)" % e)
            ok_all = False
            continue
        rows = [("crisp matmul", t_crisp, crisp_ok), ("hand-written OpenCL C", t_ref, ref_ok)]
        if cublas:
            rows.append(("cupy.matmul (cuBLAS, TF32 off)", cublas[0], cublas[1]))
        print("%-32s %10s %10s %s" % ("implementation", "ms", "GFLOP/s", ""))
        for name, t, ok in rows:
            print("%-32s %10.3f %10.1f %s" % (name, t * 1e3, flops / t * 1e-9, "" if ok else "WRONG RESULT"))
        for name, t, _ in rows[1:]:
            print("ratio crisp / %s (throughput): %.2f" % (name, t / t_crisp))
        ok_all = ok_all and crisp_ok and ref_ok
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
