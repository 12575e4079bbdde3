"""Run by tests/e2e/scan_oclgrind.py under `oclgrind --data-races
--uninitialized` (platform Oclgrind): the scan and filter kernels on small
inputs, from the .cl and .metacrisp files the parent compiled (clang cannot
run inside oclgrind).  Prints one line per run and `done`."""
import sys
from crisptest import *
import _scanref as ref

out_dir_ = sys.argv[1]
rng = np.random.default_rng(2)


def load(base):
    return load_program("%s/%s.cl" % (out_dir_, base), "%s/%s.metacrisp" % (out_dir_, base), validate=False)


from crisptest import _context
print("platform:", _context()[0].devices[0].platform.name, flush=True)
grid = load("scan_grid")
for name, kind, dt, op, n, wg, groups in (
        ("gexcl_int", "exclusive", np.int32, "add", 700, 32, 3),
        ("gincl_long", "inclusive", np.int64, "add", 300, 16, 2),
        ("gincl_float_min", "inclusive", np.float32, "min", 200, 8, 4),
        ("gexcl_uchar", "exclusive", np.uint8, "add", 130, 16, 1),
        # the warp paths' keys (oclgrind has no native shuffles: the serial walk)
        ("gincl_int_warp", "inclusive", np.int32, "add", 700, 32, 3),
        ("gexcl_long_user_warp", "exclusive", np.int64, "user_right", 300, 16, 2),
        # the warp-striped layout: each warp's stretch of local memory (a
        # partial warp at 48 and 40 work-items)
        ("gexcl_int_wstriped", "exclusive", np.int32, "add", 700, 48, 3),
        ("gincl_uint_wstriped", "inclusive", np.uint32, "add", 900, 40, 2),
        ("gexcl_long_wstriped", "exclusive", np.int64, "add", 300, 32, 2)):
    a = ref.data(rng, dt, n, op)
    o = np.zeros(n, dt)
    t = np.zeros(1, dt)
    grid.run(name, a, o, t, global_size=wg * groups, local_size=wg)
    ref.check_scan(o, a, op, kind, name)
    print("ran", name, flush=True)

wgs = load("scan_workgroup")
for name, kind, dt, op, m, wg, groups in (("excl_int", "exclusive", np.int32, "add", 100, 32, 2),
                                          ("incl_float_add", "inclusive", np.float32, "add", 20, 32, 1)):
    a = ref.data(rng, dt, m * groups, op)
    b = np.zeros_like(a)
    t = np.zeros(groups, dt)
    wgs.run(name, m, a, b, t, global_size=wg * groups, local_size=wg)
    for g in range(groups):
        ref.check_scan(b[g * m:(g + 1) * m], a[g * m:(g + 1) * m], op, kind, name)
    print("ran", name, flush=True)

filt = load("filter")
a = rng.integers(-100, 100, 500, dtype=np.int32)
o = np.zeros(500, np.int32)
c = np.zeros(1, np.uint64)
filt.run("filter_even_int", a, o, c, global_size=64, local_size=16)
want = a[a % 2 == 0]
assert int(c[0]) == want.size and np.array_equal(o[:want.size], want)
print("ran filter_even_int", flush=True)
c[0] = 0
filt.run("filter_even_int_warp", a, o, c, global_size=64, local_size=16)
assert int(c[0]) == want.size and np.array_equal(o[:want.size], want)
print("ran filter_even_int_warp", flush=True)
m = 50
o = np.zeros(2 * m, np.int32)
c = np.zeros(2, np.uint64)
filt.run("filter_local", m, a[:2 * m].copy(), o, c, global_size=32, local_size=16)
print("ran filter_local", flush=True)
print("done")
