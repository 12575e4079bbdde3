"""orchestration.py - def-orchestration end to end (spec "Hoisting and
def-orchestration", docs/orchestration.md).

tests/e2e/orchestration.crisp is hoisted both ways.  The PyOpenCL module's
orchestration methods and the C library's BASE_ORCH_run functions (called
from a small C program written here, built with gcc) run on PoCL with
random data and are compared with numpy: a two-kernel pipeline whose
intermediate stays on the device, the "default" orchestration of a lone
kernel, a template orchestration instantiated twice (float and int), a
launch-interleaved pipeline whose result must equal the sequential launch
of the same kernel, and launch-parallel.  The metadata describes each
orchestration's steps and buffers.

    PYTHONPATH=tests /usr/bin/python3 tests/e2e/orchestration.py [CASE...]
"""
import importlib.util
import json
import os
import subprocess
import sys

from crisptest import *

os.environ.setdefault("CRISP_PLATFORM", os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language"))
sys.path.insert(0, os.path.join(REPO, "runtime-shim"))

SRC = os.path.join(REPO, "tests", "e2e", "orchestration.crisp")
rng = np.random.default_rng(12)
N = 1000                      # not a multiple of the chunks: the last one is short


def hoist():
    d = out_dir("orchestration")
    status, out, err = crisp("--hoist=PyOpenCL", "--hoist=OpenCL", "--metadata", "--output-dir=" + d, SRC)
    if status != 0:
        raise CompileError(err + out)
    return d


D = hoist()
_spec = importlib.util.spec_from_file_location("orchestration_hoist", os.path.join(D, "orchestration_hoist_PyOpenCL.py"))
mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mod)
K = mod.load()
META = json.load(open(os.path.join(D, "orchestration.metacrisp")))

A = rng.random(N, dtype=np.float32)
B = rng.random(N, dtype=np.float32)
IA = rng.integers(-1000, 1000, N, dtype=np.int32)
IB = rng.integers(-1000, 1000, N, dtype=np.int32)


# ----------------------------------------------------------------------
# Python hoist

@case
def py_two_kernel_pipeline():
    C, R = np.zeros(N, np.float32), np.zeros(N, np.float32)
    out = K.add_then_scale(A, B, C, 2.5, R)
    assert_close(R, 2.5 * (A + B), name="R")
    assert_close(C, A + B, name="C (the intermediate, read back)")
    check("returns what it wrote", sorted(out) == ["vector_add::C", "vector_scale::R"], str(sorted(out)))
    check("in place", out["vector_scale::R"] is R)


@case
def py_intermediate_left_out():
    R = np.zeros(N, np.float32)
    out = K.add_then_scale(A, B, None, 0.5, R)      # vector_add::C: made on the device
    assert_close(R, 0.5 * (A + B), name="R")
    assert_close(out["vector_add::C"], A + B, name="the intermediate, returned")


@case
def py_pipeline_on_device_memory():
    import pyopencl.array as cla
    dA, dB = cla.to_device(K.queue, A), cla.to_device(K.queue, B)
    dC, dR = cla.empty(K.queue, N, np.float32), cla.empty(K.queue, N, np.float32)
    out = K.add_then_scale(dA, dB, dC, -1.0, dR)
    assert_close(dR.get(), -(A + B), name="R on the device")
    check("R returned as given, not copied back", out["vector_scale::R"] is dR, type(out["vector_scale::R"]).__name__)
    check("the intermediate stays on the device", isinstance(out["vector_add::C"], cla.Array),
          type(out["vector_add::C"]).__name__)
    assert_close(out["vector_add::C"].get(), A + B, name="the intermediate")


@case
def py_default_orchestration():
    C = np.zeros(N, np.float32)
    K.just_vector_add(A, B, C)
    assert_close(C, A + B)


@case
def py_template_orchestration_twice():
    C1, C2 = np.zeros(N, np.float32), np.zeros(N, np.float32)
    K.add_twice_float(A, B, C1, C2)
    assert_close(C2, (A + B) + A, name="float")
    I1, I2 = np.zeros(N, np.int32), np.zeros(N, np.int32)
    K.add_twice_int(IA, IB, I1, I2)
    assert_equal(I2, (IA + IB) + IA, name="int")
    assert_equal(I1, IA + IB, name="int, first step")


@case
def py_interleaved_equals_sequential():
    n = 100003
    X = rng.random(n, dtype=np.float32)
    Y = rng.random(n, dtype=np.float32)
    Zs, Zi = np.zeros(n, np.float32), np.zeros(n, np.float32)
    K.saxpy_sequential(0, n, 3.0, X, Y, Zs)
    K.saxpy_interleaved(0, 0, 3.0, X, Y, Zi)       # offset and length come from the chunks
    assert_close(Zs, 3.0 * X + Y, name="sequential")
    assert_equal(Zi, Zs, name="interleaved == sequential")
    Z3 = np.zeros(n, np.float32)
    K.saxpy_interleaved(0, 0, 3.0, X, Y, Z3, chunk=777, queues=3)
    assert_equal(Z3, Zs, name="777-element chunks on three queues")


@case
def py_interleaved_staging_is_reused():
    # the pinned and device buffers stay for the next call of the same size:
    # new inputs must not see the last call's data, a new size new buffers
    n = 100003
    for m in (n, n, 4097, n):
        X = rng.random(m, dtype=np.float32)
        Y = rng.random(m, dtype=np.float32)
        Z = np.full(m, -1.0, np.float32)
        K.saxpy_interleaved(0, 0, 2.0, X, Y, Z, chunk=10000)
        assert_close(Z, 2.0 * X + Y, name="%d elements" % m)
    kept = [k for k in K._staging if k != "queues"]
    check("staging kept", len(kept) == 3, repr(K._staging.keys()))    # X, Y, Z of the last call
    K.release_staging()
    check("staging released", K._staging == {}, repr(K._staging.keys()))
    Z = np.zeros(n, np.float32)
    K.saxpy_interleaved(0, 0, 2.0, X, Y, Z)
    assert_close(Z, 2.0 * X + Y, name="after release_staging()")


@case
def py_interleaved_with_exclude():
    n = 50001
    Tab = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    X = rng.random(n, dtype=np.float32)
    Y = np.zeros(n, np.float32)
    K.table_interleaved(0, 0, Tab, X, Y, chunk=4096)
    assert_close(Y, Tab[np.arange(n) & 3] * X, name=":exclude (Tab): whole in every chunk")


@case
def py_parallel_kernels_share_the_device():
    n = 300001                # more elements than the device's share of work-items: the loops stride
    X = rng.random(n, dtype=np.float32)
    Y = rng.random(n, dtype=np.float32)
    S, C, R = np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32)
    K.share_the_device(X, 2.0, S, X, Y, C, R)
    assert_close(S, 2.0 * X, name="stride_scale")
    assert_close(C, X + Y, name="stride_add")
    assert_close(R, 2.0 * X + (X + Y), name="then both")
    d = K.queue.device
    share = d.max_compute_units * d.max_work_group_size // 2
    # watch stride_add's calls: the parallel step's size and queue, then the sequential one's
    step = {o["name"]: o for o in META["orchestrations"]}["share-the-device"]["steps"]
    check("two parallel steps", [x["mode"] for x in step] == ["parallel", "parallel", "sequential"], str(step))
    seen = []
    real = K.stride_add

    def spy(*args, **kw):
        ev = real(*args, **kw)
        seen.append((kw.get("queue"), K.last_sizes.global_size))
        return ev
    K.stride_add = spy
    try:
        K.share_the_device(X, 2.0, S, X, Y, C, R)
    finally:
        del K.stride_add
    check("the parallel stride_add got half the device's work-items", seen[0][1] == (share,), repr(seen))
    check("on its own queue", seen[0][0] is not K.queue and seen[1][0] is K.queue, repr(seen))
    check("the sequential one its own size", seen[1][1] == (n,), repr(seen))


@case
def py_step_global_size():
    for n in (1000, 7, 1, 0):
        V = rng.random(n, dtype=np.float32)
        want = V.copy()
        want[:n // 2] += n // 2
        K.half_sized(V)
        assert_close(V, want, name="half the work-items, n=%d" % n)
    step = {o["name"]: o for o in META["orchestrations"]}["half-sized"]["steps"][0]
    check("metadata: the step's size", step.get("global_size_value") == "(/ (length mark_size::V) 2)", str(step))


@case
def py_parallel_then_sequential():
    L, Rr, C = np.zeros(N, np.float32), np.zeros(N, np.float32), np.zeros(N, np.float32)
    K.two_then_one(A, B, L, B, A, Rr, C)
    assert_close(C, 2 * (A + B))


@case
def py_grid_reduction_with_continuation():
    V = rng.random(100003, dtype=np.float32)
    total = np.zeros(1, np.float32)
    out = K.sum_all_then_sum_all_finish(V, total)
    assert_close(total[0], np.sum(V, dtype=np.float64), rtol=1e-4, name="reduce-vec-cont")
    check("64 partials passed on", out["sum_all::partials"].shape == (64,), str(out["sum_all::partials"].shape))
    assert_close(np.sum(out["sum_all::partials"], dtype=np.float64), np.sum(V, dtype=np.float64), rtol=1e-4, name="partials")
    I = rng.integers(-10**9, 10**9, 77777, dtype=np.int32)
    m = np.zeros(1, np.int32)
    K.max_all_then_max_all_finish(I, m)
    assert_equal(m[0], I.max(), name="reduce-to-1-cont max")


@case
def py_dotimes_unrolled():
    R0, R1, R2 = (np.zeros(N, np.float32) for _ in range(3))
    out = K.scale_thrice(A, 2.0, None, 3.0, None, 0.5, R2)
    assert_close(R2, A * 3.0, name="2 x 3 x 0.5")
    check("every step's R", sorted(out) == ["vector_scale::R", "vector_scale::R#1", "vector_scale::R#2"], str(sorted(out)))
    assert_close(out["vector_scale::R"], A * 2.0, name="step 0 (an intermediate)")
    assert_close(out["vector_scale::R#1"], A * 6.0, name="step 1 (an intermediate)")


def mix_passes(V):
    """numpy: the passes of mix-passes (orchestration.crisp)."""
    V = V.astype(np.uint64)
    f = lambda V, s, t: (V * 3 + s * 7 + t) & 0xFFFFF
    V = f(V, 0, 0)
    s = 1
    while s <= V.size:
        t = s // 2
        while t >= 1:
            V = f(V, s, t)
            t //= 2
        V = f(V, s - 1, (s + 1) * 2)
        s *= 2
    return V


MIX = rng.integers(0, 1 << 20, N, dtype=np.uint64)


@case
def py_run_time_loops():
    for n in (0, 1, 2, 5, 64, N):
        V = MIX[:n].copy()
        out = K.mix_passes(V)
        assert_equal(V, mix_passes(MIX[:n]), name="n=%d" % n)
        check("the vector, by name", sorted(out) == ["mix_pass::V"], str(sorted(out)))


@case
def py_demo_runs_every_orchestration():
    r = subprocess.run([sys.executable, os.path.join(D, "orchestration_hoist_PyOpenCL.py")], capture_output=True, text=True,
                       timeout=120)
    check("exit 0", r.returncode == 0, r.stderr[-2000:])
    for o in ("add-then-scale", "just-vector_add", "add-twice_float", "add-twice_int", "saxpy-interleaved", "two-then-one"):
        check(o, ("%s: " % o) in r.stdout, r.stdout[-1500:])


# ----------------------------------------------------------------------
# Metadata

@case
def metadata_describes_steps_and_buffers():
    orchs = {o["name"]: o for o in META["orchestrations"]}
    check("every orchestration", sorted(orchs) == sorted(["add-then-scale", "just-vector_add", "add-twice_float", "add-twice_int",
                                                            "saxpy-interleaved", "saxpy-sequential", "two-then-one",
                                                            "sum_all-then-sum_all_finish", "max_all-then-max_all_finish", "scale-thrice",
                                                            "table-interleaved", "mix-passes", "half-sized", "share-the-device"]),
          str(sorted(orchs)))
    mp = orchs["mix-passes"]
    check("run-time loops", [(l["var"], l["kind"], l["start"], l["limit"], l["first_step"], l["end_step"], l["depth"]) for l in mp["loops"]]
          == [("s", "do-times-by-doubling", "1", "(length mix_pass::V)", 1, 3, 0), ("tt", "do-times-by-half", "(/ s 2)", "1", 1, 2, 1)],
          mp["loops"])
    check("host-computed values", [[a.get("value") for a in st["args"]] for st in mp["steps"]]
          == [[None, "0", "0"], [None, "s", "tt"], [None, "(- s 1)", "(* (+ s 1) 2)"]], mp["steps"])
    check("no buffer for them", [a["buffer"] for a in mp["steps"][2]["args"]] == [0, -1, -1], mp["steps"][2])
    r = orchs["sum_all-then-sum_all_finish"]
    check("let-kernel origin", r["origin"] == "let-kernel", r["origin"])
    check("partials passed on", r["steps"][1]["args"][0].get("from") == "sum_all" and r["steps"][1]["args"][0].get("from_param") == "partials"
          and r["buffers"][r["steps"][1]["args"][0]["buffer"]]["kind"] == "result", str(r))
    o = orchs["add-then-scale"]
    check("two steps", [s["kernel"] for s in o["steps"]] == ["vector_add", "vector_scale"])
    a = o["steps"][1]["args"][0]
    check("vector_add::C passed on", a.get("from") == "vector_add" and a.get("from_param") == "C" and a["buffer"] == 2, str(a))
    check("buffers", [b["name"] for b in o["buffers"]] == ["vector_add_A", "vector_add_B", "vector_add_C", "vector_scale_k",
                                                             "vector_scale_R"], str(o["buffers"]))
    i = orchs["saxpy-interleaved"]["steps"][0]
    check("interleaved", i["mode"] == "interleaved" and i["offset"] == "offset" and i["length"] == "len", str(i))
    check("template instances", [s["kernel"] for s in orchs["add-twice_int"]["steps"]] == ["first_int", "second_int"])
    kernels = [k["name"] for k in META["kernels"]]
    for k in ("first_float", "second_float", "first_int", "second_int", "left_add", "right_add"):
        check("kernel %s made by an orchestration" % k, k in kernels)


# ----------------------------------------------------------------------
# C hoist: a program calling the orchestration functions

CALLER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "orchestration_hoist_OpenCL.h"

static float *read_floats(FILE *f, size_t n) {
    float *v = (float *)malloc(n * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) if (fscanf(f, "%f", &v[i]) != 1) exit(3);
    return v;
}

static void print_floats(const char *name, const float *v, size_t n) {
    size_t i;
    printf("%s", name);
    for (i = 0; i < n; i++) printf(" %.9g", v[i]);
    printf("\n");
}

int main(int argc, char **argv) {
    CrispContext cx;
    orchestration_program p;
    FILE *in = fopen(argv[2], "r");
    size_t n, m, i;
    float *a, *b, *c, *r, *x, *y, *zs, *zi, *c1, *c2;
    cl_int *ia, *ib, *i1, *i2;
    (void)argc;
    if (!in || fscanf(in, "%zu %zu", &n, &m) != 2) return 2;
    a = read_floats(in, n); b = read_floats(in, n); x = read_floats(in, m); y = read_floats(in, m);
    ia = (cl_int *)malloc(n * sizeof(cl_int)); ib = (cl_int *)malloc(n * sizeof(cl_int));
    for (i = 0; i < n; i++) if (fscanf(in, "%d", &ia[i]) != 1) return 3;
    for (i = 0; i < n; i++) if (fscanf(in, "%d", &ib[i]) != 1) return 3;
    c = (float *)calloc(n, sizeof(float)); r = (float *)calloc(n, sizeof(float));
    c1 = (float *)calloc(n, sizeof(float)); c2 = (float *)calloc(n, sizeof(float));
    zs = (float *)calloc(m, sizeof(float)); zi = (float *)calloc(m, sizeof(float));
    i1 = (cl_int *)calloc(n, sizeof(cl_int)); i2 = (cl_int *)calloc(n, sizeof(cl_int));
    if (crisp_open(&cx, 0) != CL_SUCCESS || orchestration_load(&p, &cx, argv[1]) != CL_SUCCESS) goto failed;
    if (orchestration_add_then_scale_run(&p, a, n, b, n, c, n, 2.5f, r, n) != CL_SUCCESS) goto failed;
    print_floats("C", c, n);
    print_floats("R", r, n);
    if (orchestration_add_then_scale_run(&p, a, n, b, n, NULL, 0, 0.5f, r, n) != CL_SUCCESS) goto failed;
    print_floats("RNULL", r, n);
    if (orchestration_add_twice_float_run(&p, a, n, b, n, c1, n, c2, n) != CL_SUCCESS) goto failed;
    print_floats("C2", c2, n);
    if (orchestration_add_twice_int_run(&p, ia, n, ib, n, i1, n, i2, n) != CL_SUCCESS) goto failed;
    printf("I2");
    for (i = 0; i < n; i++) printf(" %d", i2[i]);
    printf("\n");
    if (orchestration_saxpy_sequential_run(&p, 0, m, 3.0f, x, m, y, m, zs, m) != CL_SUCCESS) goto failed;
    if (orchestration_saxpy_interleaved_run(&p, 0, 0, 3.0f, x, m, y, m, zi, m) != CL_SUCCESS) goto failed;
    print_floats("ZS", zs, m);
    print_floats("ZI", zi, m);
    if (orchestration_two_then_one_run(&p, a, n, b, n, c1, n, b, n, a, n, c2, n, c, n) != CL_SUCCESS) goto failed;
    print_floats("P", c, n);
    {
        cl_float tab[4] = {1, 2, 3, 4};
        if (orchestration_table_interleaved_run(&p, 0, 0, tab, 4, x, m, zi, m) != CL_SUCCESS) goto failed;
        print_floats("TAB", zi, m);
    }
    if (orchestration_scale_thrice_run(&p, a, n, 2.0f, NULL, 0, 3.0f, NULL, 0, 0.5f, r, n) != CL_SUCCESS) goto failed;
    print_floats("S3", r, n);
    {
        float total = 0;
        cl_int big = 0;
        cl_float *partials = NULL;
        size_t npartials = 0;
        if (orchestration_sum_all_then_sum_all_finish_run(&p, x, m, &total, 1, &partials, &npartials) != CL_SUCCESS) goto failed;
        print_floats("SUM", &total, 1);
        print_floats("PARTIALS", partials, npartials);
        free(partials);
        if (orchestration_max_all_then_max_all_finish_run(&p, ia, n, &big, 1, NULL, NULL) != CL_SUCCESS) goto failed;
        printf("MAX %d\n", big);
    }
    {
        float *sy = (float *)calloc(m, sizeof(float)), *sc = (float *)calloc(m, sizeof(float));
        float *s2 = (float *)calloc(m, sizeof(float));
        if (orchestration_share_the_device_run(&p, x, m, 2.0f, sy, m, x, m, y, m, sc, m, s2, m) != CL_SUCCESS) goto failed;
        print_floats("SHARE", s2, m);
        free(sy); free(sc); free(s2);
    }
    {
        if (orchestration_half_sized_run(&p, x, m) != CL_SUCCESS) goto failed;
        print_floats("HALF", x, m);
    }
    {
        cl_ulong *v = (cl_ulong *)malloc(n * sizeof(cl_ulong));
        for (i = 0; i < n; i++) if (fscanf(in, "%llu", (unsigned long long *)&v[i]) != 1) return 3;
        if (orchestration_mix_passes_run(&p, v, n) != CL_SUCCESS) goto failed;
        printf("MIX");
        for (i = 0; i < n; i++) printf(" %llu", (unsigned long long)v[i]);
        printf("\n");
        free(v);
    }
    orchestration_release(&p);
    crisp_close(&cx);
    return 0;
failed:
    fprintf(stderr, "%s\n", crisp_error_message(&cx));
    return 1;
}
"""


def c_results():
    src = os.path.join(D, "caller.c")
    open(src, "w").write(CALLER)
    exe = os.path.join(D, "caller")
    r = subprocess.run(["gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", D, src, os.path.join(D, "orchestration_hoist_OpenCL.c"),
                        "-lOpenCL", "-o", exe], capture_output=True, text=True)
    if r.returncode:
        raise AssertionError("gcc: " + r.stderr[-3000:])
    m = 54321
    data = os.path.join(D, "caller.in")
    with open(data, "w") as f:
        f.write("%d %d\n" % (N, m))
        for v in (A, B, XC[:m], YC[:m]):
            f.write(" ".join("%.9g" % t for t in v) + "\n")
        for v in (IA, IB, MIX):
            f.write(" ".join(str(t) for t in v) + "\n")
    r = subprocess.run([exe, os.path.join(D, "orchestration.cl"), data], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, CRISP_PLATFORM=os.environ["CRISP_PLATFORM"]))
    if r.returncode:
        raise AssertionError("caller exited %d: %s" % (r.returncode, r.stderr[-2000:]))
    out = {}
    for line in r.stdout.splitlines():
        w = line.split()
        out[w[0]] = np.array([int(t) for t in w[1:]], np.uint64) if w[0] == "MIX" else np.array([float(t) for t in w[1:]])
    return out, m


XC = rng.random(54321, dtype=np.float32)
YC = rng.random(54321, dtype=np.float32)
_c = []


def c():
    if not _c:
        _c.append(c_results())
    return _c[0]


@case
def c_two_kernel_pipeline():
    out, _ = c()
    assert_close(out["C"].astype(np.float32), A + B, name="C")
    assert_close(out["R"].astype(np.float32), 2.5 * (A + B), name="R")
    assert_close(out["RNULL"].astype(np.float32), 0.5 * (A + B), name="R, the intermediate left out (NULL)")


@case
def c_template_orchestration_twice():
    out, _ = c()
    assert_close(out["C2"].astype(np.float32), (A + B) + A, name="float")
    assert_equal(out["I2"].astype(np.int32), (IA + IB) + IA, name="int")


@case
def c_interleaved_equals_sequential():
    out, m = c()
    assert_close(out["ZS"].astype(np.float32), 3.0 * XC[:m] + YC[:m], name="sequential")
    assert_equal(out["ZI"], out["ZS"], name="interleaved == sequential")


@case
def c_grid_reduction_with_continuation():
    out, m = c()
    assert_close(out["SUM"][0], np.sum(XC[:m], dtype=np.float64), rtol=1e-4, name="reduce-vec-cont")
    check("64 partials returned", out["PARTIALS"].shape == (64,), str(out["PARTIALS"].shape))
    assert_close(np.sum(out["PARTIALS"]), np.sum(XC[:m], dtype=np.float64), rtol=1e-4, name="partials")
    assert_equal(int(out["MAX"][0]), int(IA.max()), name="reduce-to-1-cont max")


@case
def c_parallel_kernels_share_the_device():
    out, m = c()
    assert_close(out["SHARE"].astype(np.float32), 2.0 * XC[:m] + (XC[:m] + YC[:m]), name="2 X + (X + Y)")


@case
def c_step_global_size():
    out, m = c()
    want = XC[:m].copy()
    want[:m // 2] += m // 2
    assert_close(out["HALF"].astype(np.float32), want, name="half the work-items")


@case
def c_dotimes_unrolled():
    out, _ = c()
    assert_close(out["S3"].astype(np.float32), A * 3.0, name="2 x 3 x 0.5")


@case
def c_interleaved_with_exclude():
    out, m = c()
    tab = np.array([1, 2, 3, 4], np.float32)
    assert_close(out["TAB"].astype(np.float32), tab[np.arange(m) & 3] * XC[:m], name=":exclude (Tab)")


@case
def c_parallel_then_sequential():
    out, _ = c()
    assert_close(out["P"].astype(np.float32), 2 * (A + B))



@case
def c_run_time_loops():
    out, _ = c()
    assert_equal(out["MIX"], mix_passes(MIX), name="mix-passes")


if __name__ == "__main__":
    main()
