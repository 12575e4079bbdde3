"""The hoists of a program with warp forms (docs/warps.md): both size the
__local warp memory of the local-memory lowering from the launch (the
metadata's `local` argument) and build with the .cl's -cl-std=.
examples/sum_vector_warp.crisp and tests/golden/warps/reduce.crisp (a
function that shuffles), hoisted for OpenCL C 1.2 and, on a device that
builds it, 3.0."""
import importlib.util
import os
import shutil
import subprocess
import sys

from crisptest import *

os.environ.setdefault("CRISP_PLATFORM", os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language"))
sys.path.insert(0, os.path.join(REPO, "runtime-shim"))

VERSIONS = ["1.2"] + (["3.0"] if device_ocl_version() >= (2, 0) else [])


def hoist(path, ver):
    base = os.path.splitext(os.path.basename(path))[0]
    d = os.path.abspath(out_dir("%s-%s" % (base, ver)))
    for f in os.listdir(d):
        p = os.path.join(d, f)
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    status, out, err = crisp("--hoist=PyOpenCL", "--hoist=OpenCL", "--emit-runtime=" + d, "--output-dir=" + d,
                             "--ocl-version=" + ver, path)
    if status != 0:
        raise CompileError("crisp --hoist %s failed (%d):\n%s" % (path, status, err + out))
    return d, base


def load(d, base):
    spec = importlib.util.spec_from_file_location("%s_%s" % (base, abs(hash(d))),
                                                  os.path.join(d, base + "_hoist_PyOpenCL.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.load()


for ver in VERSIONS:
    @case("python_hoist_sum_vector_warp_%s" % ver)
    def _(ver=ver):
        d, base = hoist("examples/sum_vector_warp.crisp", ver)
        k = load(d, base)
        with open(os.path.join(d, base + "_hoist_PyOpenCL.py")) as f:
            check("builds with -cl-std=CL" + ver, "BUILD_OPTIONS = \"-cl-std=CL%s\"" % ver in f.read())
        a = np.random.randint(-1000, 1000, 32 * 40).astype(np.int64)
        res = np.zeros(40, np.int64)
        k.sum_vector_warp(a, res)
        assert_equal(res, a.reshape(40, 32).sum(axis=1))

    @case("python_hoist_function_with_shuffles_%s" % ver)
    def _(ver=ver):
        d, base = hoist("tests/golden/warps/reduce.crisp", ver)
        k = load(d, base)
        x = np.random.uniform(-5, 5, 48 * 2).astype(np.float32)
        out = np.full(4, np.nan, np.float32)
        k.warp_max(x, out, global_size=(96,), local_size=(48,))
        # warps of 32 and 16 in each workgroup of 48
        want = [x[0:32].max(), x[32:48].max(), x[48:80].max(), x[80:96].max()]
        assert_equal(out, np.array(want, np.float32))

    @case("c_hoist_demo_%s" % ver)
    def _(ver=ver):
        d, base = hoist("examples/sum_vector_warp.crisp", ver)
        src = os.path.join(d, base + "_hoist_OpenCL.c")
        with open(src) as f:
            check("builds with -cl-std=CL" + ver, '"-cl-std=CL%s", &err);' % ver in f.read())
        exe = os.path.abspath(os.path.join(d, "demo"))
        r = subprocess.run(["cc", "-std=c99", "-Wall", "-Werror", "-I" + d, src, src[:-2] + "_demo.c", "-lOpenCL",
                            "-o", exe], capture_output=True, text=True)
        check("the C hoist compiles", r.returncode == 0, r.stderr)
        r = subprocess.run([exe, os.path.join(d, base + ".cl")], cwd=d, capture_output=True, text=True, timeout=120)
        check("the demo runs", r.returncode == 0, r.stdout + r.stderr)
        # 32 demo elements per workgroup, each thread adding its own
        check("every workgroup's sum", "1 of 1 kernels ran" in r.stdout and "sum" in r.stdout, r.stdout)
