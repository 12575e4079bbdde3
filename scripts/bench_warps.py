#!/usr/bin/env python3
"""bench_warps.py - the warp section of `make bench` (docs/warps.md,
docs/performance.md): a reduce-to-warp vector sum (bench/warp_sum.crisp)
against a hand-written float4 copy, on the same device, same run.

The sum reads N floats as float4s; the copy reads and writes N floats.  Both
are memory-bound, so the figure that matters is bandwidth: bytes moved per
kernel second (OpenCL profiling events).  The ratio sum/copy is what the
issue asks to be at least 0.90 on an H100.

    python3 scripts/bench_warps.py [--platform NAME] [--n FLOATS] [--runs N]
                                   [--ocl-version 1.2|2.0|3.0] [--local N]
                                   [--kernel K1,K2...] [--threads-per-cu T1,T2...]

Each sum kernel (default warp_sum4, one float4 load per step, and
warp_sum4_x4, four independent ones) runs with each launch size (default
2048 threads per compute unit), each printed with its ratio.

--platform (default $CRISP_PLATFORM, else "Portable Computing Language")
picks the OpenCL platform by a substring of its name, e.g. NVIDIA.  Needs
./crisp (or $CRISP), pyopencl and numpy; no clang.  Exit status 1 when a
result is wrong (the ratio is reported, not enforced: speed is never a test).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--platform", default=os.environ.get("CRISP_PLATFORM") or "Portable Computing Language")
    ap.add_argument("--n", type=int, default=0, help="floats to sum (default: 2^28 on a GPU, 2^22 otherwise)")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_KERNEL_RUNS", "20")))
    ap.add_argument("--ocl-version", default="1.2")
    ap.add_argument("--local", type=int, default=256, help="local size of both kernels")
    ap.add_argument("--kernel", default="warp_sum4,warp_sum4_x4",
                    help="sum kernels of bench/warp_sum.crisp, comma-separated (warp_sum4: one float4 per step; "
                         "warp_sum4_x2, warp_sum4_x4: two or four independent loads per step)")
    ap.add_argument("--threads-per-cu", default="2048",
                    help="sum threads per compute unit, comma-separated (each kernel runs with each)")
    opt = ap.parse_args()

    os.environ["CRISPTEST_PLATFORM"] = opt.platform
    sys.path.insert(0, os.path.join(REPO, "tests"))
    import crisptest
    from crisptest import np, cl

    ctx, _ = crisptest._context()
    dev = ctx.devices[0]
    gpu = bool(dev.type & cl.device_type.GPU)
    n = opt.n or (1 << 28 if gpu else 1 << 22)
    n -= n % (4 * opt.local)
    out = os.path.join(REPO, "tests", "out", "bench", "warps")
    os.makedirs(out, exist_ok=True)

    # the Crisp kernel, transpiled here (no clang needed)
    crisp = os.environ.get("CRISP") or os.path.join(REPO, "crisp")
    src = os.path.join(REPO, "bench", "warp_sum.crisp")
    r = subprocess.run([crisp, "--transpile-to=oclc", "--metadata", "--ocl-version=" + opt.ocl_version,
                        "--output-dir=" + out, src], capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write("crisp failed:\n" + r.stderr)
        return 1
    with open(os.path.join(out, "warp_sum.metacrisp")) as f:
        meta = json.load(f)
    with open(os.path.join(out, "warp_sum.cl")) as f:
        source = f.read()
    path = "(OpenCL C %s file)" % opt.ocl_version
    # built and launched here with buffers made once: the harness's run()
    # copies every argument in and out per launch (1 GiB at 2^28 floats)
    prog = cl.Program(ctx, source).build(options=meta.get("build_options", "").split())
    kmeta = {k["name"]: k for k in meta["kernels"]}
    copy = cl.Program(ctx, "__kernel void copy4(__global const float4 *a, __global float4 *b)\n"
                           "{\n    size_t i = get_global_id(0);\n    b[i] = a[i];\n}\n").build()
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    mf = cl.mem_flags

    def timed(kern, gsize):
        ts = []
        for k in range(3 + opt.runs):
            ev = cl.enqueue_nd_range_kernel(queue, kern, (gsize,), (opt.local,))
            ev.wait()
            if k >= 3:
                ts.append((ev.profile.end - ev.profile.start) * 1e-9)
        return min(ts), statistics.median(ts)

    rng = np.random.default_rng(7)
    a = rng.random(n, dtype=np.float32)
    want = float(a.astype(np.float64).sum())
    a_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, mf.READ_WRITE, a.nbytes)
    ck = cl.Kernel(copy, "copy4")
    ck.set_args(a_buf, b_buf)
    t_copy = timed(ck, n // 4)
    b = np.empty_like(a)
    cl.enqueue_copy(queue, b, b_buf).wait()
    ok_copy = np.array_equal(a, b)
    del b
    bw_copy = 2 * n * 4 / t_copy[0] / 1e9

    print("== warps: reduce-to-warp vector sum vs float4 copy, %d floats (%.0f MiB)" % (n, n * 4 / 2 ** 20))
    print("device: %s / %s; local size %d %s" % (dev.platform.name.strip(), dev.name.strip(), opt.local, path))
    print("%-40s %10s %10s %14s %7s" % ("", "best ms", "median ms", "best GB/s", "ratio"))
    print("%-40s %10.3f %10.3f %14.1f%s" % ("hand-written float4 copy", t_copy[0] * 1e3, t_copy[1] * 1e3, bw_copy,
                                            "" if ok_copy else "   WRONG RESULT"), flush=True)
    good = ok_copy
    for kname in opt.kernel.split(","):
        for tpcu in [int(x) for x in opt.threads_per_cu.split(",")]:
            threads = min(n // 4, dev.max_compute_units * tpcu)
            threads -= threads % opt.local
            partial = np.zeros(threads // 32, np.float32)
            p_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=partial)
            kern = cl.Kernel(prog, kname)
            env = {"local_size0": opt.local, "local_size1": 1, "local_size2": 1, "global_size0": threads,
                   "global_size1": 1, "global_size2": 1, "num_groups0": threads // opt.local, "num_groups1": 1,
                   "num_groups2": 1, "global_linear_size": threads, "local_linear_size": opt.local}
            lens = {"A": n // 4, "Partial": threads // 32}
            for arg in kmeta[kname]["args"]:
                if arg["role"] == "buffer":
                    kern.set_arg(arg["index"], a_buf if arg["name"] == "A" else p_buf)
                elif arg["role"] == "local":
                    cnt = int(eval(arg["size"]["python"], dict(env)))
                    lens[arg["name"]] = cnt
                    kern.set_arg(arg["index"], cl.LocalMemory(max(cnt, 1) * arg["stride"]))
            for arg in kmeta[kname]["args"]:
                if arg["role"] == "length":
                    kern.set_arg(arg["index"], np.uint64(lens[arg["param"]]))
            t_sum = timed(kern, threads)
            cl.enqueue_copy(queue, partial, p_buf).wait()
            total = float(partial.astype(np.float64).sum())
            ok_sum = abs(total - want) <= 1e-4 * abs(want)
            good = good and ok_sum
            bw_sum = n * 4 / t_sum[0] / 1e9
            print("%-40s %10.3f %10.3f %14.1f %7.3f%s" % (
                "crisp %s, %d threads" % (kname, threads), t_sum[0] * 1e3, t_sum[1] * 1e3, bw_sum, bw_sum / bw_copy,
                "" if ok_sum else "   WRONG RESULT (%g, want %g)" % (total, want)))
            print("bandwidth ratio sum/copy: %.2f (best), %.2f (median)  [%s, %d threads]"
                  % (bw_sum / bw_copy, (n * 4 / t_sum[1]) / (2 * n * 4 / t_copy[1]), kname, threads), flush=True)
    return 0 if good else 1


if __name__ == "__main__":
    status = main()
    sys.stdout.flush()
    os._exit(status)
