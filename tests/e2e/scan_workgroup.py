"""tests/e2e/lib/scan_workgroup.crisp: workgroup-level inclusive-scan and
exclusive-scan over a :local vector, against numpy: element types int,
uint, long, ulong, uchar, float, double; binops + * min max bit-or bit-xor
bit-and and user functions; vectors shorter than, as long as and longer
than the workgroup; workgroups of 1, 63, 64, 100 and 256 threads."""
from crisptest import *
import _scanref as ref

prog = compile("tests/e2e/lib/scan_workgroup.crisp")
rng = np.random.default_rng(8)

KERNELS = [  # name, kind, dtype, op
    ("excl_int", "exclusive", np.int32, "add"),
    ("incl_int", "inclusive", np.int32, "add"),
    ("excl_uint_add", "exclusive", np.uint32, "add"),
    ("incl_long_max", "inclusive", np.int64, "max"),
    ("excl_long_max", "exclusive", np.int64, "max"),
    ("incl_float_add", "inclusive", np.float32, "add"),
    ("excl_double_add", "exclusive", np.float64, "add"),
    ("incl_float_min", "inclusive", np.float32, "min"),
    ("excl_float_min", "exclusive", np.float32, "min"),
    ("excl_int_mul", "exclusive", np.int32, "mul"),
    ("incl_uint_or", "inclusive", np.uint32, "or"),
    ("excl_uint_xor", "exclusive", np.uint32, "xor"),
    ("excl_uint_and", "exclusive", np.uint32, "and"),
    ("incl_int_user", "inclusive", np.int32, "user_sat"),
    ("excl_long_user", "exclusive", np.int64, "user_right"),
    ("excl_ulong_min", "exclusive", np.uint64, "min"),
    ("incl_uchar_add", "inclusive", np.uint8, "add"),
]

# (vector length m, workgroup size, workgroups)
SHAPES = [(1, 1, 1), (1, 64, 2), (63, 64, 3), (64, 64, 2), (100, 64, 2),
          (1000, 64, 2), (5, 100, 1), (300, 100, 2), (256, 256, 2), (4099, 256, 1)]


def run_shape(name, kind, dt, op, m, wg, groups):
    a = ref.data(rng, dt, m * groups, op)
    b = np.zeros_like(a)
    tot = np.zeros(groups, dt)
    prog.run(name, m, a, b, tot, global_size=wg * groups, local_size=wg)
    for g in range(groups):
        seg = a[g * m:(g + 1) * m]
        ref.check_scan(b[g * m:(g + 1) * m], seg, op, kind, "group %d of %s m=%d wg=%d" % (g, name, m, wg))
        ref.check_total(tot[g], seg, op, "total of group %d" % g)


for name, kind, dt, op in KERNELS:
    @case(name)
    def _(name=name, kind=kind, dt=dt, op=op):
        shapes = SHAPES if name in ("excl_int", "incl_float_add") else SHAPES[1::2] + [SHAPES[-1]]
        for m, wg, groups in shapes:
            run_shape(name, kind, dt, op, m, wg, groups)


@case
def spec_example():
    # spec "exclusive-scan": #(0 1 0 1 1 0) -> #(0 0 1 1 2 3), total 3;
    # "inclusive-scan": #(0 1 1 2 3 3)
    a = np.array([0, 1, 0, 1, 1, 0], np.int32)
    b = np.zeros(6, np.int32)
    tot = np.zeros(1, np.int32)
    prog.run("excl_int", 6, a, b, tot, global_size=6, local_size=6)
    assert_equal(b.tolist(), [0, 0, 1, 1, 2, 3])
    assert_equal(tot[0], 3)
    prog.run("incl_int", 6, a, b, tot, global_size=6, local_size=6)
    assert_equal(b.tolist(), [0, 1, 1, 2, 3, 3])


@case
def empty_vector():
    a = np.zeros(1, np.int32)
    b = np.full(1, 7, np.int32)
    tot = np.full(1, 7, np.int32)
    prog.run("excl_int", 0, a, b, tot, global_size=64, local_size=64)
    assert_equal(tot[0], 0)
    assert_equal(b[0], 7)
