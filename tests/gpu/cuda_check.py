"""cuda_check.py - crisp's cubins, fat binaries and PTX on an NVIDIA GPU.

Two steps, because the GPU machine has no clang (docs/targets.md):

  here (crisp, clang-14, libclc-14, ptxas; PoCL):
      /usr/bin/python3 tests/gpu/cuda_check.py build [DIR]      (DIR: tests/out/cuda)
  builds, for every kernel of the programs below whose arguments are global
  buffers and scalars, BASE_sm_90.cubin, BASE_sm_90.fatbin and BASE.ptx,
  runs the kernel's OpenCL C on PoCL with seeded random inputs and saves
  inputs and outputs (DIR/manifest.json, DIR/*.npz);

  on the GPU machine (Python with numpy and CuPy):
      python3 tests/gpu/cuda_check.py run [DIR]
  loads each cubin, fat binary and PTX with cupy.RawModule, launches every
  kernel with the same inputs and global/local sizes (grid = global/local)
  and compares every buffer with PoCL's results.  Prints one line per
  kernel and binary and ends with `cuda_check: N passed, N failed`.
  (`run DIR --backend=pocl` replays the manifest on PoCL: a check of this
  script itself where there is no GPU.)

With the device tool, DIR is an ignored path, so carry it:
  run(command="python3 tests/gpu/cuda_check.py run tests/out/cuda", carry=["tests/out/cuda"])
Set CUDA_CHECK_SM=sm_80 (or another) to build for another GPU.
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SM = os.environ.get("CUDA_CHECK_SM", "sm_90")
N = 256  # elements per buffer

PROGRAMS = ["examples/vector_add.crisp", "examples/sum_vector.crisp", "examples/atomics.crisp",
            "examples/loops.crisp", "examples/structs.crisp", "examples/lighten_image.crisp",
            "tests/e2e/arith.crisp", "tests/e2e/functions.crisp", "tests/e2e/control.crisp",
            "tests/e2e/templates.crisp", "tests/e2e/overloads.crisp", "tests/e2e/maybe.crisp",
            "tests/e2e/grid.crisp", "tests/e2e/tensors3.crisp", "tests/e2e/const_vec.crisp"]

# kernels whose outputs are a permutation that depends on the order threads
# run in (the tickets atomic-inc! hands out): compared sorted
ORDER_FREE = {("atomics", "tickets")}

SCALARS = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32,
           "uint": np.uint32, "long": np.int64, "ulong": np.uint64, "float": np.float32, "double": np.float64,
           "bool": np.uint8}


def usable(kernel):
    """Only global buffers, their lengths and plain scalars: what a CUDA
    launch passes as is (no __local arguments, side channels, debug)."""
    for a in kernel["args"]:
        if a["role"] == "buffer" and a.get("address_space") == "global":
            continue
        if a["role"] == "length":
            continue
        if a["role"] == "scalar" and a["type"] in SCALARS:
            continue
        return False
    return not kernel.get("single_task")


def dims(decl, default):
    return list(decl["set_to"]) if decl and decl.get("set_to") else default


def inputs_for(kernel, rng):
    """Seeded inputs: (arrays by arg index, scalars by arg index, global, local)."""
    arrays, scalars = {}, {}
    by_name = {}
    for a in kernel["args"]:
        if a["role"] == "buffer":
            stride = a.get("stride") or 4
            el = a.get("element", "uchar")
            # inputs small (they may be indices), everything a kernel may
            # write starts at zero (counters, tickets)
            # inputs small and non-zero (they may be indices or divisors),
            # what a kernel may write zero (counters, tickets) and four
            # times as long (a thread may write several elements)
            n = N if a.get("access") == "read_only" else 4 * N
            if el in SCALARS and stride == np.dtype(SCALARS[el]).itemsize:
                dt = SCALARS[el]
                arr = (rng.random(n) * 100).astype(dt) if np.dtype(dt).kind == "f" else rng.integers(1, 32, n).astype(dt)
            else:  # structs, vectors, std140 padding: bytes
                arr = rng.integers(1, 32, n * stride).astype(np.uint8)
            if a.get("access") != "read_only":
                arr = np.zeros_like(arr)
            arrays[a["index"]] = arr
            by_name[a["name"]] = n
        elif a["role"] == "scalar":
            dt = SCALARS[a["type"]]
            scalars[a["index"]] = dt(rng.integers(1, 5)) if np.dtype(dt).kind != "f" else dt(rng.random())
            by_name[a["name"]] = int(scalars[a["index"]]) if np.dtype(dt).kind != "f" else 1
    lengths = {a["name"]: len(arrays[a["index"]]) // ((a.get("stride") or 1) if arrays[a["index"]].dtype == np.uint8 and
                                                       a.get("element") != "uchar" else 1)
               for a in kernel["args"] if a["role"] == "buffer"}
    for a in kernel["args"]:
        if a["role"] == "length":
            scalars[a["index"]] = np.uint64(lengths.get(a.get("param", a["name"]), N))
    g = kernel.get("global_size")
    if g and g.get("derive_from"):
        glob = [by_name.get(n, N) for n in g["derive_from"]]
    else:
        glob = dims(g, [N])
    local = dims(kernel.get("local_size"), None)
    if local and len(glob) < len(local):
        glob = glob + local[len(glob):]
    if local:
        glob = [(x + l - 1) // l * l for x, l in zip(glob, local)]
    return arrays, scalars, glob, local


def cmd(*args):
    r = subprocess.run([str(a) for a in args], cwd=REPO, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s failed:\n%s" % (" ".join(map(str, args)), r.stdout + r.stderr))


def pocl_run(cl_text, kernel, arrays, scalars, glob, local):
    import pyopencl as cl
    want = os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language")
    plat = [p for p in cl.get_platforms() if want.lower() in p.name.lower()][0]
    ctx = cl.Context(plat.get_devices()[:1])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, cl_text).build(options="-cl-std=CL1.2")
    k = getattr(prg, kernel["name"])
    bufs = {}
    for a in kernel["args"]:
        i = a["index"]
        if i in arrays:
            bufs[i] = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=arrays[i])
            k.set_arg(i, bufs[i])
        else:
            k.set_arg(i, scalars[i])
    cl.enqueue_nd_range_kernel(q, k, tuple(glob), tuple(local) if local else None)
    out = {}
    for i, b in bufs.items():
        out[i] = np.empty_like(arrays[i])
        cl.enqueue_copy(q, out[i], b)
    q.finish()
    return out


def build(d):
    sys.path.insert(0, os.path.join(REPO, "tests"))
    os.makedirs(d, exist_ok=True)
    crisp = os.path.join(REPO, "crisp")
    manifest = []
    for prog in PROGRAMS:
        base = os.path.splitext(os.path.basename(prog))[0]
        cmd(crisp, "--transpile-to=oclc", "--metadata", "--ir-target=ptx", "--binary-gpu-target=" + SM,
            "--output-dir", d, prog)
        cmd(crisp, "--binary-gpu-target=" + SM, "--fat-binary", "--output-dir", d, prog)
        meta = json.load(open(os.path.join(d, base + ".metacrisp")))
        cl_text = open(os.path.join(d, base + ".cl")).read()
        for kernel in meta["kernels"]:
            if not usable(kernel):
                print("skip %s %s: arguments a plain CUDA launch does not pass" % (base, kernel["name"]))
                continue
            rng = np.random.default_rng(abs(hash((base, kernel["name"]))) % (1 << 32))
            arrays, scalars, glob, local = inputs_for(kernel, rng)
            # the reference run on PoCL, in a child process: random inputs
            # may not suit a kernel (an index out of range), and a kernel
            # that crashes PoCL is simply not checked
            data = os.path.join(d, "%s.%s.npz" % (base, kernel["name"]))
            np.savez(data, **{"in%d" % i: a for i, a in arrays.items()}, **{"s%d" % i: np.array(v) for i, v in scalars.items()})
            job = os.path.join(d, "%s.%s.json" % (base, kernel["name"]))
            json.dump({"cl": os.path.join(d, base + ".cl"), "kernel": kernel, "global": glob, "local": local,
                       "data": data}, open(job, "w"))
            try:
                r = subprocess.run([sys.executable, os.path.abspath(__file__), "ref", job], capture_output=True, text=True,
                                   timeout=60)
            except subprocess.TimeoutExpired:
                r = subprocess.CompletedProcess([], 1, "", "did not finish within 60 s")
            os.remove(job)
            if r.returncode != 0:
                print("skip %s %s: the PoCL reference run failed with these inputs (%s)" %
                      (base, kernel["name"], (r.stderr.strip().splitlines() or ["status %d" % r.returncode])[-1]))
                os.remove(data)
                continue
            manifest.append({"program": base, "kernel": kernel["name"], "data": os.path.basename(data),
                             "args": [{"index": a["index"], "role": a["role"]} for a in kernel["args"]],
                             "global": glob, "local": local,
                             "binaries": ["%s_%s.cubin" % (base, SM), "%s_%s.fatbin" % (base, SM), base + ".ptx"],
                             "cl": base + ".cl"})
            print("built %s %s (global %s, local %s)" % (base, kernel["name"], glob, local))
    json.dump(manifest, open(os.path.join(d, "manifest.json"), "w"), indent=1)
    print("cuda_check: %d kernels in %s" % (len(manifest), d))


def ref(job_path):
    """The child of build: run one kernel on PoCL, add its outputs to the npz."""
    job = json.load(open(job_path))
    data = dict(np.load(job["data"]))
    arrays = {int(k[2:]): v for k, v in data.items() if k.startswith("in")}
    scalars = {int(k[1:]): v[()] for k, v in data.items() if k.startswith("s")}
    out = pocl_run(open(job["cl"]).read(), job["kernel"], arrays, scalars, job["global"], job["local"])
    data.update({"out%d" % i: a for i, a in out.items()})
    np.savez(job["data"], **data)


def block_for(glob, local):
    if local:
        return list(local)
    out = []
    for g in glob:  # the largest divisor of g up to 256 (CUDA needs an exact grid)
        out.append(max(b for b in range(1, min(g, 256) + 1) if g % b == 0))
    return out


def run(d, backend):
    manifest = json.load(open(os.path.join(d, "manifest.json")))
    passed = failed = 0
    if backend == "cuda":
        import cupy as cp
    for m in manifest:
        data = np.load(os.path.join(d, m["data"]))
        arrays = {int(k[2:]): data[k] for k in data.files if k.startswith("in")}
        expect = {int(k[3:]): data[k] for k in data.files if k.startswith("out")}
        scalars = {int(k[1:]): data[k][()] for k in data.files if k.startswith("s")}
        kinds = m["binaries"] if backend == "cuda" else [m["cl"]]
        for binary in kinds:
            name = "%s %s (%s)" % (m["program"], m["kernel"], binary)
            try:
                if backend == "cuda":
                    mod = cp.RawModule(path=os.path.join(d, binary))
                    f = mod.get_function(m["kernel"])
                    dev = {i: cp.asarray(a) for i, a in arrays.items()}
                    args = tuple(dev[a["index"]] if a["index"] in dev else scalars[a["index"]] for a in m["args"])
                    block = block_for(m["global"], m["local"])
                    grid = [g // b for g, b in zip(m["global"], block)]
                    f(tuple(grid + [1] * (3 - len(grid))), tuple(block + [1] * (3 - len(block))), args)
                    cp.cuda.Device().synchronize()
                    got = {i: cp.asnumpy(v) for i, v in dev.items()}
                else:
                    kernel = {"name": m["kernel"], "args": m["args"]}
                    got = pocl_run(open(os.path.join(d, m["cl"])).read(), kernel, arrays, scalars, m["global"], m["local"])
                bad = []
                if (m["program"], m["kernel"]) in ORDER_FREE:
                    got = {i: np.sort(v) for i, v in got.items()}
                    expect = {i: np.sort(v) for i, v in expect.items()}
                for i, want in expect.items():
                    ok = np.allclose(got[i], want, rtol=1e-5, atol=1e-6, equal_nan=True) if want.dtype.kind == "f" \
                        else np.array_equal(got[i], want)
                    if not ok:
                        bad.append("argument %d differs in %d elements" % (i, int(np.sum(got[i] != want))))
                if bad:
                    failed += 1
                    print("FAIL %s: %s" % (name, "; ".join(bad)))
                else:
                    passed += 1
                    print("ok %s" % name)
            except Exception as e:  # noqa: BLE001 - every kernel gets a line
                failed += 1
                print("FAIL %s: %s: %s" % (name, type(e).__name__, e))
    print("cuda_check: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "ref":
        ref(sys.argv[2])
        sys.exit(0)
    if len(sys.argv) < 2 or sys.argv[1] not in ("build", "run"):
        print(__doc__)
        sys.exit(2)
    where = sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else os.path.join(REPO, "tests", "out", "cuda")
    if sys.argv[1] == "build":
        build(where)
    else:
        sys.exit(run(where, "pocl" if "--backend=pocl" in sys.argv else "cuda"))
