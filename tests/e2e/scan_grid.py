"""tests/e2e/lib/scan_grid.crisp: the grid-level single-pass scans against
numpy, for sizes 1, a workgroup minus one, non-powers of two and 2^20+3,
several element types and binops, launches of one workgroup, a few, and
one thread per element; the same scratch pool reused by later launches
(the scan resets its own state)."""
from crisptest import *
import _scanref as ref

prog = compile("tests/e2e/lib/scan_grid.crisp")
rng = np.random.default_rng(20)

KERNELS = [  # name, kind, dtype, op
    ("gexcl_int", "exclusive", np.int32, "add"),
    ("gincl_int", "inclusive", np.int32, "add"),
    ("gincl_long", "inclusive", np.int64, "add"),
    ("gexcl_ulong_max", "exclusive", np.uint64, "max"),
    ("gincl_float", "inclusive", np.float32, "add"),
    ("gexcl_double", "exclusive", np.float64, "add"),
    ("gincl_float_min", "inclusive", np.float32, "min"),
    ("gincl_uint_xor", "inclusive", np.uint32, "xor"),
    ("gexcl_int_mul", "exclusive", np.int32, "mul"),
    ("gincl_int_user", "inclusive", np.int32, "user_sat"),
    ("gexcl_long_user", "exclusive", np.int64, "user_right"),
    ("gexcl_uchar", "exclusive", np.uint8, "add"),
    # tuning keys: the striped layout, elements per thread, look-back
    ("gexcl_int_striped", "exclusive", np.int32, "add"),
    ("gincl_float_min_striped", "inclusive", np.float32, "min"),
    ("gincl_long_striped", "inclusive", np.int64, "add"),
    ("gexcl_double_striped", "exclusive", np.float64, "add"),
    ("gincl_int_user_striped", "inclusive", np.int32, "user_sat"),
    ("gincl_int_tuned", "inclusive", np.int32, "add"),
    ("gexcl_long_tuned", "exclusive", np.int64, "add"),
    ("gexcl_ulong_max_tuned", "exclusive", np.uint64, "max"),
    ("gincl_int_late_serial", "inclusive", np.int32, "add"),
    ("gexcl_float_striped_late", "exclusive", np.float32, "add"),
    # the warp paths' tuning keys (the serial walk where shuffles are not native)
    ("gincl_int_warp", "inclusive", np.int32, "add"),
    ("gexcl_long_user_warp", "exclusive", np.int64, "user_right"),
    ("gincl_long_warp", "inclusive", np.int64, "add"),
    ("gexcl_int_user_warp", "exclusive", np.int32, "user_sat"),
    ("gincl_float_min_warp", "inclusive", np.float32, "min"),
    ("gexcl_double_warp", "exclusive", np.float64, "add"),
    # the transposed layout
    ("gincl_int_transposed", "inclusive", np.int32, "add"),
    ("gexcl_long_user_transposed", "exclusive", np.int64, "user_right"),
    ("gexcl_float_transposed_early", "exclusive", np.float32, "add"),
    # the warp-striped layout (a warp's own stretch of local memory; on
    # PoCL its syncs are workgroup barriers and the warp paths the serial ones)
    ("gexcl_int_wstriped", "exclusive", np.int32, "add"),
    ("gincl_int_wstriped", "inclusive", np.int32, "add"),
    ("gincl_uint_wstriped", "inclusive", np.uint32, "add"),
    ("gexcl_long_wstriped", "exclusive", np.int64, "add"),
    ("gincl_float_min_wstriped", "inclusive", np.float32, "min"),
    ("gexcl_double_wstriped", "exclusive", np.float64, "add"),
    ("gincl_int_user_wstriped", "inclusive", np.int32, "user_sat"),
    ("gexcl_long_user_wstriped", "exclusive", np.int64, "user_right"),
]
WARP_KERNELS = [k for k in KERNELS if k[0].endswith("_warp") or k[0].endswith("_wstriped")]


def run(name, kind, dt, op, n, wg=64, groups=None, program=None):
    a = ref.data(rng, dt, n, op)
    out = np.zeros(n, dt)
    tot = np.zeros(1, dt)
    gsize = wg * (groups if groups is not None else max(1, -(-n // wg)))
    (program or prog).run(name, a, out, tot, global_size=gsize, local_size=wg)
    tiles = -(-n // (wg * 4))   # (at least 4 elements per thread): the tiles' carries add up in turn
    ref.check_scan(out, a, op, kind, "%s n=%d wg=%d groups=%s" % (name, n, wg, groups), tiles)
    ref.check_total(tot[0], a, op, "total of %s n=%d" % (name, n), tiles)


for name, kind, dt, op in KERNELS:
    @case(name)
    def _(name=name, kind=kind, dt=dt, op=op):
        for n, wg, groups in [(1, 64, None), (63, 64, None), (1000, 64, 1), (4099, 64, 3),
                              (20000, 128, 4), (100003, 256, None)]:
            run(name, kind, dt, op, n, wg, groups)


if device_ocl_version() >= (2, 0):
    # an OpenCL C 3.0 file: on a device with 32-wide sub-groups (Intel's CPU
    # runtime) %native-warp-if takes the warp path; full and partial warps,
    # workgroups below a warp (the serial walk), one and many work-groups
    @case
    def warp_paths_native():
        prog3 = compile("tests/e2e/lib/scan_grid.crisp", flags=["--ocl-version=3.0"])
        for name, kind, dt, op in WARP_KERNELS:
            for n, wg, groups in [(1, 64, None), (1000, 64, 1), (4099, 96, 3), (20000, 128, 4),
                                  (30011, 33, 5), (50000, 20, 7), (100003, 256, None), ((1 << 20) + 3, 256, 16)]:
                run(name, kind, dt, op, n, wg, groups, prog3)


    @case
    def default_layout_native():
        # the scans' default layout in an OpenCL C 3.0 file, where warps are
        # native (docs/library.md "Scans"), views and in place too
        prog3 = compile("tests/e2e/lib/scan_grid.crisp", flags=["--ocl-version=3.0"])
        for name, kind, dt, op in KERNELS[:12]:
            for n, wg, groups in [(1, 64, None), (4099, 96, 3), (30011, 33, 5), ((1 << 20) + 3, 256, 16)]:
                run(name, kind, dt, op, n, wg, groups, prog3)
        a = ref.data(rng, np.int32, 100003, "add")
        out = np.zeros(a.size, np.int32)
        off = np.zeros(a.size, np.int32)
        prog3.run("gincl_views", a, out, off, global_size=1024, local_size=128)
        ref.check_scan(out[3:], a[:-3], "add", "inclusive", "into a view at 3")
        ref.check_scan(off[4:], a[:-4], "add", "inclusive", "into a view at 4")
        v = a.copy()
        prog3.run("gexcl_in_place", v, global_size=512, local_size=128)
        ref.check_scan(v, a, "add", "exclusive", "in place")


@case
def big_int_2_20_plus_3():
    for name, kind, groups in (("gexcl_int", "exclusive", 16), ("gincl_int", "inclusive", None)):
        run(name, kind, np.int32, "add", (1 << 20) + 3, 256, groups)


@case
def big_float_2_20_plus_3():
    run("gincl_float", "inclusive", np.float32, "add", (1 << 20) + 3, 256, 8)
    run("gexcl_double", "exclusive", np.float64, "add", (1 << 20) + 3, 128, None)


@case
def workgroup_of_one_and_odd_sizes():
    run("gexcl_int", "exclusive", np.int32, "add", 777, 1, 5)
    run("gincl_long", "inclusive", np.int64, "add", 777, 100, 3)
    run("gexcl_int", "exclusive", np.int32, "add", 5000, 33, 7)


@case
def scratch_pool_reused_across_launches():
    # the hoists keep their buffers between calls: run the same scan many
    # times on the same pool (the state resets itself, epochs advance)
    from crisptest import Program  # noqa: F401
    k = [k for k in prog.meta["kernels"] if k["name"] == "gexcl_int"][0]
    n = 50000
    for i in range(6):
        a = ref.data(rng, np.int32, n if i % 2 else 3000, "add")
        out = np.zeros(a.size, np.int32)
        tot = np.zeros(1, np.int32)
        prog.run("gexcl_int", a, out, tot, global_size=256 * (2 + i), local_size=256)
        ref.check_scan(out, a, "add", "exclusive", "launch %d" % i)
    check("a scratch pool", any(a["role"] == "scratch" for a in k["args"]))


@case
def empty_vector():
    a = np.zeros(0, np.int32)
    out = np.zeros(0, np.int32)
    tot = np.full(1, 5, np.int32)
    prog.run("gexcl_int", a, out, tot, global_size=64, local_size=64)
    assert_equal(tot[0], 0)


@case
def in_place():
    a = ref.data(rng, np.int32, 30001, "add")
    v = a.copy()
    prog.run("gexcl_in_place", v, global_size=512, local_size=128)
    ref.check_scan(v, a, "add", "exclusive")


@case
def short_output_is_not_overrun():
    a = ref.data(rng, np.int32, 5000, "add")
    out = np.zeros(100, np.int32)
    tot = np.zeros(1, np.int32)
    prog.run("gincl_int", a, out, tot, global_size=256, local_size=64)
    ref.check_scan(out, a[:100], "add", "inclusive")
    ref.check_total(tot[0], a, "add")


@case
def output_views_at_odd_offsets():
    for n in (5000, 100003):
        a = ref.data(rng, np.int32, n, "add")
        out = np.zeros(n, np.int32)
        off = np.zeros(n, np.int32)
        prog.run("gincl_views", a, out, off, global_size=1024, local_size=128)
        assert_equal(out[:3], np.zeros(3, np.int32))
        ref.check_scan(out[3:], a[:n - 3], "add", "inclusive", "into a view at 3")
        ref.check_scan(off[4:], a[:n - 4], "add", "inclusive", "into a view at 4")


def layout_views_and_in_place(layout):
    # the :layout LAYOUT scans write into views at offsets 3 and 4 and scan in place
    for n in (5000, 100003):
        a = ref.data(rng, np.int32, n, "add")
        out = np.zeros(n, np.int32)
        off = np.zeros(n, np.int32)
        prog.run("gincl_views_" + layout, a, out, off, global_size=1024, local_size=128)
        assert_equal(out[:3], np.zeros(3, np.int32))
        ref.check_scan(out[3:], a[:n - 3], "add", "inclusive", layout + ", into a view at 3")
        ref.check_scan(off[4:], a[:n - 4], "add", "inclusive", layout + ", into a view at 4")
    a = ref.data(rng, np.int32, 30001, "add")
    v = a.copy()
    prog.run("gexcl_in_place_" + layout, v, global_size=512, local_size=128)
    ref.check_scan(v, a, "add", "exclusive", layout + ", in place")


@case
def striped_views_and_in_place():
    layout_views_and_in_place("striped")


@case
def transposed_views_and_in_place():
    layout_views_and_in_place("transposed")


@case
def warp_striped_views_and_in_place():
    layout_views_and_in_place("wstriped")


@case
def warp_striped_2_20_plus_3():
    for name, kind, dt, op in KERNELS:
        if name.endswith("_wstriped") and dt in (np.int32, np.float64):
            run(name, kind, dt, op, (1 << 20) + 3, 256, 16)


@case
def scans_in_functions():
    a = ref.data(rng, np.int32, 640, "add")
    out = np.zeros(640, np.int32)
    sums = np.zeros(10, np.int32)
    prog.run("scans_in_functions", a, out, sums, global_size=640, local_size=64)
    ref.check_scan(out, a, "add", "inclusive", "the grid function's scan")
    assert_equal(sums, a.reshape(10, 64).sum(axis=1).astype(np.int32))
