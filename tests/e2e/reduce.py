"""tests/e2e/lib/reduce.crisp: the library's reductions (reduce-vec-atomic,
reduce-vec-cas, reduce-vec-small, reduce-to-workgroup, reduce-to-1-*) on
PoCL, over element types, operations, sizes and launch shapes, against
numpy."""
from crisptest import *

prog = compile("tests/e2e/lib/reduce.crisp")
rng = np.random.default_rng(8)

DT = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
      "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
      "float": np.float32, "double": np.float64}

SIZES = (0, 1, 63, 1000, (1 << 20) + 3)
GLOBAL = 2048          # 32 workgroups of 64, a grid stride over the vector


def absmax(a):
    """The element of largest magnitude (ties: the larger one)."""
    mag = np.abs(a.astype(np.float64))   # exact: |values| < 2^53 here
    return a[mag == mag.max()].max()


def identity(op, dt):
    if op in ("add", "or", "xor", "absmax"):
        return 0
    if op == "mul":
        return 1
    if np.dtype(dt).kind == "f":
        return {"min": np.inf, "max": -np.inf}[op]
    info = np.iinfo(dt)
    return {"min": info.max, "max": info.min, "and": -1 if info.min < 0 else info.max}[op]


def data(op, dt, n):
    dt = np.dtype(dt)
    if dt.kind == "f":
        if op == "mul":
            # ones, and a few 2s and halves: every product is exact
            a = np.ones(n, dt)
            k = min(n, 40)
            a[rng.choice(n, k, replace=False)] = rng.choice([0.5, 2.0], k)
            return a
        return rng.uniform(-1, 1, n).astype(dt)
    info = np.iinfo(dt)
    if op == "add" and dt.itemsize >= 4:
        lo, hi = max(info.min, -(1 << 20)), min(info.max, 1 << 20)
    else:
        lo, hi = info.min, info.max
    return rng.integers(lo, hi, n, dtype=dt, endpoint=True)


def expected(op, a, ident):
    dt = a.dtype
    if a.size == 0:
        return dt.type(ident)
    if op == "add":
        return a.astype(np.float64).sum() if dt.kind == "f" else a.sum(dtype=dt)
    if op == "mul":
        return a.astype(np.float64).prod() if dt.kind == "f" else a.prod(dtype=dt)
    if op == "min":
        return a.min()
    if op == "max":
        return a.max()
    if op == "and":
        return np.bitwise_and.reduce(a)
    if op == "or":
        return np.bitwise_or.reduce(a)
    if op == "xor":
        return np.bitwise_xor.reduce(a)
    return absmax(a)


def check_value(got, want, op, a):
    if a.dtype.kind == "f" and op in ("add", "mul"):
        scale = np.abs(a.astype(np.float64)).sum() if op == "add" else abs(float(want))
        tol = (2e-5 if a.dtype == np.float32 else 1e-12) * max(scale, 1.0)
        if not abs(float(got) - float(want)) <= tol:
            raise AssertionError("got %r, expected %r (tolerance %g)" % (got, want, tol))
    else:
        assert_equal(got, a.dtype.type(want))


def kernels(variant):
    out = []
    for name in sorted(prog.kernels):
        parts = name.split("_")
        if parts[0] == variant and len(parts) == 3 and parts[2] in DT:
            out.append((name, parts[1], parts[2]))
    return out


for variant in ("atomic", "cas", "small"):
    for kname, op, ty in kernels(variant):
        for n in SIZES:
            @case("%s_%d" % (kname, n))
            def _(kname=kname, op=op, ty=ty, n=n, variant=variant):
                dt = DT[ty]
                a = data(op, dt, n)
                ident = identity(op, dt)
                r = np.array([ident], dt)
                want = expected(op, a, ident)
                if variant == "small":
                    v = np.zeros(GLOBAL, dt)
                    r = np.zeros(1, dt)       # stored, not combined: any start
                    prog.run(kname, a, r, v, ident, global_size=GLOBAL)
                    check_value(r[0], want, op, a)
                    # the form's value: the total in every thread of exactly
                    # one workgroup, the identity in the others
                    groups = v.reshape(-1, 64)
                    holders = [g for g in range(groups.shape[0]) if (groups[g] == r[0]).all()]
                    others = [g for g in range(groups.shape[0]) if g not in holders]
                    if r[0] != dt(ident):
                        check("one workgroup holds the total", len(holders) == 1)
                        check("the others hold the identity", (groups[others] == dt(ident)).all())
                else:
                    prog.run(kname, a, r, ident, global_size=GLOBAL)
                    check_value(r[0], want, op, a)


# float and double + in an OpenCL C 3.0 file: the helper takes
# cl_ext_float_atomics' atomic_fetch_add where the device has it (Intel's
# CPU runtime), else the compare-and-swap loop (PoCL); NVIDIA takes inline
# PTX in either file (docs/performance.md, "Reductions")
def defines_macro(name):
    """does this device's OpenCL C 3.0 compiler define the macro NAME?"""
    import crisptest
    src = "#ifndef %s\n#error no\n#endif\n__kernel void probe(__global float *p) { p[0] = 1.0f; }\n" % name
    ctx, _ = crisptest._context()
    try:
        cl.Program(ctx, src).build(options=["-cl-std=CL3.0"])
        return True
    except Exception:
        return False


for ty in ("float", "double"):
    @case("atomic_add_%s_opencl_c_30" % ty)
    def _(ty=ty):
        if device_ocl_version() < (3, 0):
            print("   (OpenCL %d.%d device: no OpenCL C 3.0 file to run)" % device_ocl_version())
            return
        builds = [""]
        bits = 32 if ty == "float" else 64
        if defines_macro("__opencl_c_ext_fp%d_global_atomic_add" % bits):
            print("   (the device has cl_ext_float_atomics' %s add)" % ty)
        elif defines_macro("cl_ext_float_atomics"):
            # Intel's CPU runtime lists the extension but defines none of its
            # feature macros: the extension's path is run by defining it
            print("   (cl_ext_float_atomics without its feature macros: both paths run)")
            builds.append("-D__opencl_c_ext_fp%d_global_atomic_add=1" % bits)
        for options in builds:
            prog30 = compile("tests/e2e/lib/reduce.crisp", flags=["--ocl-version=3.0"], build_options=options)
            dt = DT[ty]
            for n in (1, 1000, (1 << 20) + 3):
                a = data("add", dt, n)
                r = np.array([dt(0)], dt)
                prog30.run("atomic_add_" + ty, a, r, dt(0), global_size=GLOBAL)
                check_value(r[0], expected("add", a, dt(0)), "add", a)


# one element per thread: 1563 workgroups, the last one finishes
@case
def small_one_thread_per_element():
    a = rng.integers(-1000, 1000, 100_000, dtype=np.int32)
    r = np.zeros(1, np.int32)
    v = np.zeros(100_032, np.int32)
    prog.run("small_add_int", a, r, v, 0)
    assert_equal(r[0], a.sum(dtype=np.int32))


# more threads than elements; a single workgroup
@case
def small_launch_shapes():
    a = rng.integers(0, 100, 10, dtype=np.uint32)
    for g in (64, 4096):
        r = np.zeros(1, np.uint32)
        prog.run("small_max_uint", a, r, np.zeros(g, np.uint32), 0, global_size=g)
        assert_equal(r[0], a.max())


# the scratch pool kept from one launch to the next: the arrival counter
# of the last-workgroup step resets itself
@case
def small_repeated_launches_share_the_pool():
    k = prog.kernels["small_add_int"]
    pool_arg = [x for x in k["args"] if x["role"] == "scratch"][0]
    groups = GLOBAL // 64
    ticket_at = (groups * 4 + 15) // 16 * 16     # after the partials, 16-aligned
    pool = np.zeros(ticket_at + 16, np.uint8)
    for rep in range(3):
        a = rng.integers(-1000, 1000, 5000, dtype=np.int32)
        r = np.zeros(1, np.int32)
        prog.run("small_add_int", a, r, np.zeros(GLOBAL, np.int32), 0,
                 global_size=GLOBAL, **{pool_arg["name"]: pool})
        assert_equal(r[0], a.sum())
        assert_equal(pool[ticket_at:ticket_at + 4].view(np.uint32)[0], 0)


@case
def atomic_combines_with_the_running_value():
    a = rng.integers(0, 100, 777, dtype=np.int64)
    r = np.array([1000], np.int64)
    prog.run("atomic_add_long", a, r, 0, global_size=GLOBAL)
    prog.run("atomic_add_long", a, r, 0, global_size=GLOBAL)
    assert_equal(r[0], 1000 + 2 * a.sum())


for off in (0, 1, 3):
    @case("views_offset_%d" % off)
    def _(off=off):
        rows, cols = 300, 7
        a = rng.uniform(0, 1, rows * cols + 5).astype(np.float32)
        length = 1000 + off
        r = np.zeros(2, np.float32)
        prog.run("view_sums", a, r, off, length, rows, cols, 2, global_size=GLOBAL)
        assert_close(r[0], a[off:off + length].astype(np.float64).sum(), rtol=1e-5)
        col = a[:rows * cols].reshape(rows, cols)[:, 2]
        assert_close(r[1], col.astype(np.float64).sum(), rtol=1e-5)


for n in (1, 63, 1000, 4096):
    @case("to_forms_%d" % n)
    def _(n=n):
        a = rng.integers(-(1 << 30), 1 << 30, n, dtype=np.int64)
        g = -(-n // 64) * 64
        w = np.zeros(g // 64, np.int64)
        b = np.zeros(g, np.int64)
        s = np.zeros(2, np.int64)
        t = np.zeros(1, np.int64)
        m = np.array([-1000000], np.int64)
        prog.run("to_forms", a, w, b, s, t, m)
        padded = np.zeros(g, np.int64)
        padded[:n] = a
        sums = padded.reshape(-1, 64).sum(axis=1)
        assert_equal(w, sums)
        assert_equal(b, np.repeat(sums, 64))
        assert_equal(s, np.array([a.sum(), 64], np.int64))
        assert_equal(t[0], a.sum())
        assert_equal(m[0], max(a.max(), 0))   # the padding threads hold 0


for k in (1, 3, 5, 63, 64):
    @case("short_scratch_%d" % k)
    def _(k=k):
        a = rng.integers(-1000, 1000, 1000, dtype=np.int32)
        w = np.zeros(1024, np.int32)
        prog.run("short_scratch", a, w, k)
        padded = np.zeros(1024, np.int32)
        padded[:1000] = a
        assert_equal(w, np.repeat(padded.reshape(-1, 64).sum(axis=1), 64))


@case
def small_with_given_scratch():
    a = rng.uniform(-5, 5, 3000).astype(np.float32)
    r = np.zeros(1, np.float32)
    prog.run("small_given", a, r)
    assert_equal(r[0], a.max())


@case
def two_dimensional_launch():
    a = rng.integers(-100, 100, 5000, dtype=np.int32)
    r = np.zeros(1, np.int32)
    prog.run("sum_2d", a, r)
    assert_equal(r[0], a.sum())
