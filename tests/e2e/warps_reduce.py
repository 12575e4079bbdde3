"""tests/e2e/warps.crisp and examples/sum_vector_warp.crisp: reduce-to-warp
(several functions and types, ACTIVE-THREADS), a function that reduces,
when-thread-in-warp-is, sync-warp, shuffles in uniform loops and branches,
and the spec's "Sum a Vector using Warps and Shuffles", against numpy, on
every lowering the device can build (tests/e2e/_warps.py, docs/warps.md)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _warps import *  # noqa: E402,F401,F403

for variant in VARIANTS:
    tag = variant[2]

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
