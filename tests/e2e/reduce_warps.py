"""tests/e2e/lib/reduce_warps.crisp: the library's workgroup reduction takes
the warp path where the device has native shuffles and the local-memory
tree elsewhere (docs/warps.md, "Native shuffles only").  Every build the
device can make: PoCL (OpenCL C 1.2: the tree); Intel's CPU runtime with
an OpenCL C 3.0 file (sub-groups of 32: the warp path; 64-wide sub-groups:
two warps each; 16-wide: the tree at run time; forced local memory: the
tree) and a 1.2 file (the tree).  The kernel warp_path reports which
branch ran; the reductions of int, long, float and double with several
operations, at workgroups of full and partial warps, of more than 1024
work-items (the tree), are checked against numpy."""
from crisptest import *
import crisptest

rng = np.random.default_rng(9)
DT = {"int": np.int32, "long": np.int64, "float": np.float32, "double": np.float64}
IDENT = {"add": 0, "mul": 1, "xor": 0}

# (OpenCL C version, build options, name, the branch %native-warp-if takes)
# NVIDIA's OpenCL (cl_nv_pragma_unroll) takes the inline-PTX path, native, in any file
NVIDIA = "cl_nv_pragma_unroll" in crisptest._context()[0].devices[0].extensions
BUILDS = [("1.2", "", "1.2", 1 if NVIDIA else 2)]
if device_ocl_version() >= (2, 0):
    BUILDS += [
        ("3.0", "", "3.0-subgroups", 1),
        ("3.0", "-DCRISP_WARP_KERNEL=__attribute__((intel_reqd_sub_group_size(64)))", "3.0-subgroups-64", 1),
        ("3.0", "-DCRISP_WARP_KERNEL=__attribute__((intel_reqd_sub_group_size(16)))", "3.0-subgroups-16", 2),
        ("3.0", "-DCRISP_WARP_LOCAL=1", "3.0-local", 2),
    ]
# PoCL compiles each kernel anew for each local size: fewer there
LOCAL_SIZES = (64, 48, 20) if device_ocl_version() < (2, 0) else (64, 48, 20, 96, 1024, 2048)


def identity(op, dt):
    if op in IDENT:
        return IDENT[op]
    if np.dtype(dt).kind == "f":
        return {"min": np.inf, "max": -np.inf}[op]
    info = np.iinfo(dt)
    return {"min": info.max, "max": info.min}[op]


def data(op, dt, n):
    if np.dtype(dt).kind == "f":
        if op == "mul":
            return rng.choice([0.5, 1.0, 1.0, 1.0, 2.0], n).astype(dt)
        return rng.uniform(-1, 1, n).astype(dt)
    if op == "mul":
        return rng.choice([-1, 1, 1, 1, 2], n).astype(dt)
    return rng.integers(-(1 << 20), 1 << 20, n).astype(dt)


def fold(op, g):
    """per-row totals of G (workgroups x threads)"""
    if op == "add":
        return g.astype(np.float64).sum(axis=1) if g.dtype.kind == "f" else g.sum(axis=1, dtype=g.dtype)
    if op == "mul":
        return g.astype(np.float64).prod(axis=1) if g.dtype.kind == "f" else g.prod(axis=1, dtype=g.dtype)
    return {"max": np.max, "min": np.min, "xor": np.bitwise_xor.reduce}[op](g, axis=1)


for ver, opts, tag, branch in BUILDS:
    @case("path_%s" % tag)
    def _(ver=ver, opts=opts, branch=branch):
        prog = compile("tests/e2e/lib/reduce_warps.crisp", flags=["--ocl-version=" + ver], build_options=opts)
        p = np.zeros(1, np.int32)
        prog.run("warp_path", p, global_size=64, local_size=64)
        check("the %s branch of %%native-warp-if ran" % ("native" if branch == 1 else "fallback"), p[0] == branch)

    @case("reductions_%s" % tag)
    def _(ver=ver, opts=opts):
        prog = compile("tests/e2e/lib/reduce_warps.crisp", flags=["--ocl-version=" + ver], build_options=opts)
        for kname in sorted(k for k in prog.kernels if k.startswith("wg_")):
            _, op, ty = kname.split("_")
            dt = DT[ty]
            ident = dt(identity(op, dt))
            for ls in LOCAL_SIZES:
                groups = 3
                n = ls * groups - 7          # the last workgroup's tail holds the identity
                a = data(op, dt, n)
                w = np.zeros(ls * groups, dt)
                prog.run(kname, a, w, ident, global_size=ls * groups, local_size=ls)
                padded = np.full(ls * groups, ident, dt)
                padded[:n] = a
                want = np.repeat(fold(op, padded.reshape(groups, ls)), ls)
                if dt in (np.float32, np.float64) and op == "add":
                    assert_close(w, want, rtol=1e-5 if dt == np.float32 else 1e-12, atol=1e-4)
                else:
                    assert_equal(w, want.astype(dt))
