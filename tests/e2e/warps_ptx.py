"""The NVIDIA lowering of the warp forms (docs/warps.md), checked without a
GPU: every kernel of tests/e2e/warps.crisp and examples/sum_vector_warp.crisp
compiled as NVIDIA's OpenCL sees it (CRISP_WARP_PTX) by clang for
nvptx64--nvidiacl, and its inline PTX (shfl.sync, %laneid, bar.warp.sync)
assembled by ptxas for the H100 (scripts/check_ptx.sh).  Also the float and
double atomic add of reduce-vec-atomic (tests/e2e/lib/reduce.crisp), whose
NVIDIA path is inline PTX atom.global.add.f32/.f64 (docs/performance.md).  Skipped, saying so,
where clang's nvptx target, libclc or the CUDA toolkit's ptxas is missing;
the library's reductions' warp path (tests/e2e/lib/reduce_warps.crisp,
%native-warp-if) too.  The H100 runs are in docs/performance.md."""
import os
import subprocess

from crisptest import *

PROGRAMS = ["tests/e2e/warps.crisp", "examples/sum_vector_warp.crisp", "tests/golden/warps/reduce.crisp",
            "tests/e2e/lib/reduce_warps.crisp"]   # the library's reductions' warp path (%native-warp-if)


def check_ptx(path, ver, env=None):
    d = out_dir("ptx-" + ver)
    status, out, err = crisp("--transpile-to=oclc", "--ocl-version=" + ver, "--output-dir=" + d, path)
    if status != 0:
        raise CompileError(err)
    cl_path = os.path.join(d, os.path.splitext(os.path.basename(path))[0] + ".cl")
    r = subprocess.run(["sh", os.path.join(REPO, "scripts", "check_ptx.sh"), cl_path, "-cl-std=CL" + ver],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout + r.stderr, cl_path


probe = subprocess.run(["sh", os.path.join(REPO, "scripts", "check_ptx.sh"), "/dev/null"], capture_output=True, text=True)
if "intel" in os.environ.get("CRISPTEST_PLATFORM", "").lower():
    print("skipped: no device involved; checked in the PoCL pass")
elif probe.returncode == 77:
    print("skipped: %s" % probe.stdout.strip())
else:
    for path in PROGRAMS:
        for ver in ("1.2", "3.0"):
            @case("ptx_%s_%s" % (os.path.basename(path), ver))
            def _(path=path, ver=ver):
                rc, out, cl_path = check_ptx(path, ver)
                check("ptxas -arch=sm_90 accepts %s" % cl_path, rc == 0, out)
                check("shfl.sync was used", "shfl.sync)" in out and "(0 shfl.sync)" not in out, out)

    # the nvcl triple, crisp's BASE_nvcl.ptx for NVIDIA's OpenCL (docs/targets.md)
    @case("ptx_nvcl_warps.crisp_1.2")
    def _():
        rc, out, cl_path = check_ptx("tests/e2e/warps.crisp", "1.2", {"PTX_TRIPLE": "nvptx64-nvidia-nvcl"})
        check("ptxas -arch=sm_90 accepts %s (nvcl)" % cl_path, rc == 0 and "-target nvptx64-nvidia-nvcl" in out, out)
        check("no triple warning", "different target triples" not in out, out)

    for ver in ("1.2", "3.0"):
        for bits in ("32", "64"):
            @case("ptx_float_atomic_add_f%s_%s" % (bits, ver))
            def _(ver=ver, bits=bits):
                rc, out, cl_path = check_ptx("tests/e2e/lib/reduce.crisp", ver,
                                             {"PTX_DEFINES": "-Dcl_nv_pragma_unroll=1",
                                              "PTX_EXPECT": "atom.global.add.f" + bits})
                check("ptxas -arch=sm_90 accepts %s with atom.global.add.f%s" % (cl_path, bits), rc == 0, out)
