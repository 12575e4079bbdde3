"""tests/e2e/warps.crisp: lane and warp ids and the four shuffles of every
type, against numpy, on every lowering the device can build (docs/warps.md).

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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _warps import *  # noqa: E402,F401,F403

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

    for tname, (dt, width) in (("int", TYPES["int"]), ("long", TYPES["long"]), ("float4", TYPES["float4"])):
        @case("native_shuffles_%s_%s" % (tname, tag))
        def _(variant=variant, tname=tname, dt=dt, width=width):
            # %native-warp-if's shuffles: computed and literal operands
            prog = program(variant)
            for ls in (64, 48, 20):
                n = ls * 2
                x = values(dt, width, n)
                arg = lane_args(n)
                arg[n - 5:] = 1000   # these lanes also add the four literal-operand shuffles
                outs = [np.zeros_like(x) for _ in range(4)]
                prog.run("native_shuffle_" + tname, x, arg, *outs, global_size=n, local_size=ls)
                base, lane, lanes = warp_layout(n, ls)
                for kind, got in zip(("shuffle", "up", "down", "xor"), outs):
                    want = x[base + source_lanes(kind, lane, lanes, arg)]
                    if kind == "shuffle":
                        lit = sum(x[base + source_lanes(k, lane, lanes, np.full(n, a))]
                                  for k, a in (("shuffle", 3), ("up", 1), ("down", 2), ("xor", 16)))
                        want = want.copy()
                        want[arg == 1000] = lit[arg == 1000]
                    assert_equal(got, want, "native %s of %s, local size %d" % (kind, tname, ls))

    @case("ballot_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        for ls in LOCAL_SIZES:
            n = ls * 3
            p = np.random.randint(-2, 3, n).astype(np.int32)
            p[:ls] = 0                      # a workgroup of no votes
            p[ls:2 * ls] = np.where(np.arange(ls) % 3 == 0, 0, 7)
            b, nat, c = (np.zeros(n, np.uint32) for _ in range(3))
            prog.run("ballot", p, b, nat, c, global_size=n, local_size=ls)
            base, lane, lanes = warp_layout(n, ls)
            bits = np.where(p != 0, np.left_shift(np.uint64(1), lane.astype(np.uint64)), np.uint64(0))
            want = np.zeros(n, np.uint64)
            for w in np.unique(base):
                m = base == w
                want[m] = np.bitwise_or.reduce(bits[m])
            want = want.astype(np.uint32)
            assert_equal(b, want, "%%warp-ballot, local size %d" % ls)
            assert_equal(nat, want, "native %%warp-ballot, local size %d" % ls)
            assert_equal(c, want, "%%warp-ballot of an int, local size %d" % ls)

    @case("shuffle_bool_%s" % tag)
    def _(variant=variant):
        prog = program(variant)
        x = np.random.randint(0, 100, 128).astype(np.int32)
        out = np.zeros(128, np.int32)
        prog.run("shuffle_bool", x, out, global_size=128, local_size=64)
        assert_equal(out, (x[np.arange(128) ^ 1] & 1).astype(np.int32))
