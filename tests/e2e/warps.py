"""tests/e2e/warps.crisp and examples/sum_vector_warp.crisp: every warp form
against numpy, on every lowering the device can build (docs/warps.md).

On PoCL (OpenCL C 1.2) that is the local-memory lowering.  On a device with
OpenCL C 2.0 or later (Intel's CPU runtime, the second test device) the
same tests also run
  - from a 3.0 file: the sub-group lowering (32-wide sub-groups on Intel);
  - from a 3.0 file whose kernels do not ask for a sub-group size: Intel
    picks 16, not a whole warp, so the lowering falls back to local memory
    at run time;
  - from a 3.0 file with 64-wide sub-groups: two warps in each;
  - from a 3.0 file with the local-memory lowering forced.
Workgroups of 32, 64, 48 (a partial last warp) and 20 threads are used.
A launch without a local size gets one from the harness (the warp memory is
sized by it); the hoist demos (tests/e2e/hoist_*.py) run these kernels that
way too."""
from crisptest import *

WARP = 32

VARIANTS = [("1.2", "", "local")]
if device_ocl_version() >= (2, 0):
    VARIANTS += [
        ("3.0", "", "subgroups"),
        ("3.0", "-DCRISP_WARP_KERNEL=", "subgroups-16-fallback"),
        ("3.0", "-DCRISP_WARP_KERNEL=__attribute__((intel_reqd_sub_group_size(64)))", "subgroups-64"),
        ("3.0", "-DCRISP_WARP_LOCAL=1", "local-3.0"),
    ]
LOCAL_SIZES = (32, 64, 48, 20)
# fewer for the many shuffle and reduction kernels (PoCL compiles a kernel
# anew for each local size): two full warps, a full and a partial one, one
# partial warp
SHUFFLE_SIZES = (64, 20)
REDUCE_SIZES = (64, 48)


def program(variant):
    ver, opts, _ = variant
    return compile("tests/e2e/warps.crisp", flags=["--ocl-version=" + ver], build_options=opts)


def warp_layout(n, ls):
    """For threads 0..n-1 in workgroups of LS: (first thread of the warp,
    lane, threads in the warp)."""
    i = np.arange(n)
    j = i % ls
    base = i - j + j // WARP * WARP
    lane = j % WARP
    lanes = np.minimum(WARP, ls - j // WARP * WARP)
    return base, lane, lanes


def source_lanes(kind, lane, lanes, arg):
    """The lane each thread reads (docs/warps.md): where the computed lane is
    not a lane of the warp, its own."""
    a = arg.astype(np.int64)
    u = a.astype(np.uint64)
    if kind == "shuffle":
        ok = (a >= 0) & (a < lanes)
        src = a
    elif kind == "up":
        ok = (a >= 0) & (a <= lane)
        src = lane - a
    elif kind == "down":
        ok = (a >= 0) & (a < lanes - lane)
        src = lane + a
    else:
        x = lane.astype(np.uint64) ^ u
        ok = x < lanes.astype(np.uint64)
        src = np.where(ok, x, 0).astype(np.int64)
    return np.where(ok, src, lane).astype(np.int64)


def lane_args(n):
    """Lane arguments: mostly in range, some past the warp, negative or huge."""
    a = np.random.randint(-3, 40, n).astype(np.int64)
    specials = [0, 1, 16, 31, 32, 33, -1, 2 ** 32 + 1, -(2 ** 40)]
    a[:len(specials)] = specials
    return a


TYPES = {
    "int": (np.int32, 1), "uint": (np.uint32, 1), "long": (np.int64, 1), "ulong": (np.uint64, 1),
    "float": (np.float32, 1), "double": (np.float64, 1), "char": (np.int8, 1),
    "ushort": (np.uint16, 1), "float4": (np.float32, 4), "int3": (np.int32, 3), "double2": (np.float64, 2),
}


def values(dt, lanes, n):
    if np.dtype(dt).kind == "f":
        v = np.random.uniform(-1e6, 1e6, (n, lanes)).astype(dt)
    else:
        info = np.iinfo(dt)
        v = np.random.randint(info.min, info.max, (n, lanes), dtype=np.int64 if info.bits < 64 else dt).astype(dt)
    return v[:, 0] if lanes == 1 else v


for variant in VARIANTS:
    tag = variant[2]

    @case("ids_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        for ls in LOCAL_SIZES:
            n = ls * 3
            lane, warp, nwarps, lanes = (np.zeros(n, np.uint32) for _ in range(4))
            size = np.zeros(n, np.uint64)
            prog.run("ids", lane, warp, nwarps, size, lanes, global_size=n, local_size=ls)
            j = np.arange(n) % ls
            assert_equal(lane, (j % WARP).astype(np.uint32), "get-lane-id, local size %d" % ls)
            assert_equal(warp, (j // WARP).astype(np.uint32), "get-warp-id, local size %d" % ls)
            assert_equal(nwarps, np.full(n, -(-ls // WARP), np.uint32), "get-num-warps")
            assert_equal(size, np.full(n, WARP, np.uint64), "+warp-size+")
            assert_equal(lanes, np.minimum(WARP, ls - j // WARP * WARP).astype(np.uint32), "lanes in the warp")

    for tname, (dt, width) in TYPES.items():
        @case("shuffles_%s_%s" % (tname, tag))
        def _(variant=variant, tname=tname, dt=dt, width=width):
            prog = program(variant)
            for ls in SHUFFLE_SIZES:
                n = ls * 2
                x = values(dt, width, n)
                arg = lane_args(n)
                outs = [np.zeros_like(x) for _ in range(4)]
                prog.run("shuffle_" + tname, x, arg, *outs, global_size=n, local_size=ls)
                base, lane, lanes = warp_layout(n, ls)
                for kind, got in zip(("shuffle", "up", "down", "xor"), outs):
                    want = x[base + source_lanes(kind, lane, lanes, arg)]
                    assert_equal(got, want, "%s of %s, local size %d" % (kind, tname, ls))

    @case("shuffle_bool_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        x = np.random.randint(0, 100, 128).astype(np.int32)
        out = np.zeros(128, np.int32)
        prog.run("shuffle_bool", x, out, global_size=128, local_size=64)
        assert_equal(out, (x[np.arange(128) ^ 1] & 1).astype(np.int32))

    REDUCTIONS = [
        ("reduce_add_int", np.int32, np.add, WARP), ("reduce_max_int", np.int32, np.maximum, WARP),
        ("reduce_min_uint", np.uint32, np.minimum, WARP), ("reduce_or_uint", np.uint32, np.bitwise_or, WARP),
        ("reduce_add_long", np.int64, np.add, WARP), ("reduce_max_long", np.int64, np.maximum, WARP),
        ("reduce_add_float", np.float32, np.add, WARP), ("reduce_max_float", np.float32, np.maximum, WARP),
        ("reduce_add_double", np.float64, np.add, WARP), ("reduce_min_double", np.float64, np.minimum, WARP),
        ("reduce_add_int_12", np.int32, np.add, 12), ("reduce_mul_long_5", np.int64, np.multiply, 5),
    ]
    for kname, dt, op, active in REDUCTIONS:
        @case("%s_%s" % (kname, tag))
        def _(variant=variant, kname=kname, dt=dt, op=op, active=active):
            prog = program(variant)
            for ls in REDUCE_SIZES:
                n = ls * 2
                if np.dtype(dt).kind == "f":
                    x = np.random.uniform(-100, 100, n).astype(dt)
                elif op is np.multiply:
                    x = np.random.randint(-9, 9, n).astype(dt)
                else:
                    x = np.random.randint(0 if np.dtype(dt).kind == "u" else -10 ** 6, 10 ** 6, n).astype(dt)
                out = np.zeros_like(x)
                prog.run(kname, x, out, global_size=n, local_size=ls)
                base, lane, lanes = warp_layout(n, ls)
                want = np.zeros_like(x)
                for b in np.unique(base):
                    k = min(active, lanes[b])      # lanes below ACTIVE-THREADS that exist
                    want[base == b] = op.reduce(x[b:b + k])
                if np.dtype(dt).kind == "f":       # the butterfly adds in another order
                    assert_close(out, want, rtol=1e-5, atol=1e-3) if dt == np.float32 else \
                        assert_close(out, want, rtol=1e-12, atol=1e-9)
                else:
                    assert_equal(out, want, "%s, local size %d" % (kname, ls))

    @case("reduce_in_a_function_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        for ls in LOCAL_SIZES:
            groups = 3
            n = ls * groups
            nw = -(-ls // WARP)
            x = np.random.uniform(-1, 1, n)
            out = np.full(groups * nw, np.nan)
            prog.run("warp_totals", x, out, global_size=n, local_size=ls)
            base, _, _ = warp_layout(n, ls)
            want = np.array([x[base == b].sum() for b in np.unique(base)])
            assert_close(out, want, rtol=1e-12, atol=1e-12)

    @case("sync_warp_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        x = np.random.randint(-1000, 1000, 256).astype(np.int32)
        out = np.zeros(256, np.int32)
        prog.run("neighbours", x, out)
        assert_equal(out, x[np.arange(256) ^ 1])

    @case("uniform_branch_and_loop_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        for ls in (32, 64, 48):
            x = np.random.randint(-100, 100, ls * 2).astype(np.int32)
            out = np.zeros_like(x)
            prog.run("prefix_sum", x, 1, out, global_size=len(x), local_size=ls)
            base, lane, lanes = warp_layout(len(x), ls)
            # inclusive scan over lanes 0..15 of each warp (steps 1..16),
            # each lane adding the lane d below when it exists
            want = x.astype(np.int64).copy()
            d = 1
            while d <= 16:
                prev = want.copy()
                for i in range(len(x)):
                    if lane[i] >= d:
                        want[i] = prev[i] + prev[i - d]
                d *= 2
            assert_equal(out, want.astype(np.int32))
            out2 = np.zeros_like(x)
            prog.run("prefix_sum", x, 0, out2, global_size=len(x), local_size=ls)
            assert_equal(out2, x)

    @case("sum_vector_warp_example_%s" % tag)
    def _(variant=variant):
        ver, opts, _ = variant
        prog = compile("examples/sum_vector_warp.crisp", flags=["--ocl-version=" + ver], build_options=opts)
        for n in (32 * 64, 32 * 64 + 7, 5):
            a = np.random.randint(-10 ** 9, 10 ** 9, n).astype(np.int64)
            groups = -(-n // WARP)
            res = np.zeros(groups, np.int64)
            prog.run("sum_vector_warp", a, res)
            # every thread strides by the global size, so each workgroup
            # sums its own 32 elements of the (rounded-up) index range
            want = np.array([a[g * WARP:(g + 1) * WARP].sum() for g in range(groups)], np.int64)
            assert_equal(res, want)
            check("the host's total", int(res.sum()) == int(a.sum()))
