"""tests/e2e/lib/library.crisp: map-stride, the tensor and group stride loops,
the dot products, histogram-pass and when-is-last-workgroup on PoCL,
against numpy."""
from crisptest import *

prog = compile("tests/e2e/lib/library.crisp")
rng = np.random.default_rng(12)
f32 = lambda n: rng.uniform(-1, 1, n).astype(np.float32)


# ---- map-stride

for n in (1, 63, 1000, (1 << 20) + 3):
    @case("map_add_%d" % n)
    def _(n=n):
        a, b = f32(n), f32(n)
        c = np.zeros(n, np.float32)
        prog.run("map_add", a, b, c, global_size=min(n, 4096))
        assert_equal(c, a + b)


@case
def map_add_views_unparenthesised():
    a, b = f32(100), f32(100)
    c = np.full(100, -7, np.float32)
    prog.run("map_add_views", 50, 13, a, b, c, global_size=16)
    want = np.full(100, -7, np.float32)
    want[13:63] = a[13:63] + b[13:63]
    assert_equal(c, want)


@case
def map_three_sources():
    a, b, d = f32(1000), f32(1000), f32(1000)
    c = np.zeros(1000, np.float32)
    prog.run("map_three", a, b, d, c)
    assert_close(c, 2 * a + b * d)


@case
def map_two_results():
    v = rng.integers(0, 1 << 40, 999, dtype=np.uint64)
    even = np.zeros(999, np.uint32)
    low = np.zeros(999, np.uint32)
    prog.run("map_two_results", v, even, low)
    assert_equal(even, (v % 2 == 0).astype(np.uint32))
    assert_equal(low, (v & 7).astype(np.uint32))


@case
def map_struct_constructor():
    x, y = f32(77), f32(77)
    p = np.zeros(77, struct_dtype(prog.meta, "point"))
    prog.run("map_points", x, y, p)
    assert_equal(p["x"], x)
    assert_equal(p["y"], y)


@case
def map_matrix_to_column_major():
    rows, cols = 13, 9
    a = rng.uniform(0, 4, rows * cols).astype(np.float32)
    c = np.zeros(rows * cols, np.float32)
    prog.run("map_matrix", rows, cols, a, c)
    want = np.sqrt(a.reshape(rows, cols)).T.reshape(-1)   # column-major storage
    assert_close(c, want)


# ---- loop-tensor-stride

@case
def tensor_3d():
    a = f32(60)
    out = np.zeros(60, np.float32)
    prog.run("tensor_3d", a, out)
    i, j, k = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    assert_close(out, a + (100 * i + 10 * j + k).reshape(-1).astype(np.float32))


@case
def tensor_1d():
    a = f32(1234)
    out = np.zeros(1234, np.float32)
    prog.run("tensor_1d", a, out, global_size=256)
    assert_close(out, 3 * a)


# ---- loop-group-stride / loop-tile-stride

for chunk, n, groups in ((10, 1000, 4), (3, 50, 7), (64, 64, 2), (5, 1, 3)):
    @case("group_chunks_%d_%d_%d" % (chunk, n, groups))
    def _(chunk=chunk, n=n, groups=groups):
        a = f32(n)
        out = np.zeros(n, np.float32)
        owner = np.full(n, 999, np.uint32)
        prog.run("group_chunks", chunk, a, out, owner, global_size=8 * groups)
        assert_equal(out, a + 1)
        # chunk c belongs to workgroup c mod groups
        assert_equal(owner, ((np.arange(n) // chunk) % groups).astype(np.uint32))


for rows, cols in ((9, 11), (4, 4), (1, 30), (17, 3)):
    @case("tiles_%dx%d" % (rows, cols))
    def _(rows=rows, cols=cols):
        a = f32(rows * cols)
        out = np.zeros(rows * cols, np.float32)
        prog.run("tiles", rows, cols, a, out)
        i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        want = a.reshape(rows, cols) + 1000 * (i // 4 * 4) + (j // 4 * 4)
        assert_close(out.reshape(rows, cols), want.astype(np.float32))


@case
def blocks_3d():
    a = f32(210)
    out = np.zeros(210, np.float32)
    prog.run("blocks_3d", a, out, global_size=12)
    assert_close(out, a + 0.5)


# ---- dot products

for n in (1, 5, 1000, (1 << 20) + 3):
    @case("dot_grid_%d" % n)
    def _(n=n):
        a, b = f32(n), f32(n)
        r = np.array([123], np.float32)
        prog.run("dot_grid", a, b, r)
        exact = np.dot(a.astype(np.float64), b)
        assert abs(r[0] - exact) <= 2e-5 * max(1.0, np.abs(a.astype(np.float64) * b).sum()), (r[0], exact)


@case
def dot_grid_is_deterministic():
    a, b = f32(100_000), f32(100_000)
    got = set()
    for _ in range(3):
        r = np.zeros(1, np.float32)
        prog.run("dot_grid", a, b, r)
        got.add(r[0])
    check("same float result every run", len(got) == 1)


@case
def dot_grid_long_unequal_lengths():
    a = rng.integers(-1000, 1000, 777, dtype=np.int64)
    b = rng.integers(-1000, 1000, 500, dtype=np.int64)
    r = np.zeros(1, np.int64)
    prog.run("dot_grid_long", a, b, r, global_size=256)
    assert_equal(r[0], np.dot(a[:500], b))


@case
def dot_seq_rows():
    rows, cols = 20, 33
    m, v = f32(rows * cols), f32(cols)
    out = np.zeros(rows, np.float32)
    prog.run("dot_seq", rows, cols, m, v, out)
    assert_close(out, m.reshape(rows, cols) @ v, rtol=1e-5, atol=1e-5)


for off in (0, 1, 2, 3):
    @case("dot_views_offset_%d" % off)
    def _(off=off):
        a = rng.uniform(-1, 1, 5000)
        r = np.zeros(1, np.float64)
        prog.run("dot_views", off, 4000, a, r)
        assert_close(r[0], np.dot(a[off:off + 4000], a[off + 1:off + 4001]))


# ---- histogram-pass: four passes of 8 bits (eight for 64-bit values)

def radix_keys(a):
    if a.dtype.kind == "u":
        return a.astype(np.uint64)
    if a.dtype.kind == "i":
        bits = a.dtype.itemsize * 8
        if bits < 32:
            a = a.astype(np.int32)
            bits = 32
        return (a.view(np.uint32 if bits == 32 else np.uint64).astype(np.uint64)
                ^ np.uint64(1 << (bits - 1)))
    u = a.view(np.uint32 if a.dtype == np.float32 else np.uint64).astype(np.uint64)
    sign = np.uint64(1 << (a.dtype.itemsize * 8 - 1))
    full = np.uint64((1 << (a.dtype.itemsize * 8)) - 1)
    return np.where(u & sign, u ^ full, u ^ sign)


def check_histograms(kname, a, passes):
    keys = radix_keys(a)
    for p in range(passes):
        h = np.zeros(256, np.uint32)
        prog.run(kname, a, h, 8 * p)
        digits = (keys >> np.uint64(8 * p)) & np.uint64(255)
        assert_equal(h, np.bincount(digits.astype(np.int64), minlength=256).astype(np.uint32))


@case
def histogram_uint():
    check_histograms("hist_uint", rng.integers(0, 1 << 32, 100_003, dtype=np.uint32), 4)


@case
def histogram_int():
    check_histograms("hist_int", rng.integers(-(1 << 31), 1 << 31, 5000, dtype=np.int32), 4)


@case
def histogram_long():
    a = rng.integers(-(1 << 63), (1 << 63) - 1, 20_011, dtype=np.int64)
    a[:4] = [-(1 << 63), (1 << 63) - 1, 0, -1]
    check_histograms("hist_long", a, 8)


@case
def histogram_float():
    a = rng.standard_normal(3000).astype(np.float32) * 1000
    a[:4] = [0.0, -0.0, np.inf, -np.inf]
    check_histograms("hist_float", a, 4)


@case
def histogram_double():
    check_histograms("hist_double", rng.standard_normal(2000) * 1e10, 8)


@case
def histogram_short_workgroup_of_300():
    check_histograms("hist_short", rng.integers(-(1 << 15), 1 << 15, 4321, dtype=np.int16), 4)


@case
def radix_keys_sort_like_the_values():
    # the keys' order is the values' order: sorting by key sorts the values
    a = np.concatenate([rng.standard_normal(500).astype(np.float32), [0.0, -0.0, np.inf, -np.inf]])
    k = radix_keys(a.astype(np.float32))
    assert_equal(np.sort(a), a[np.argsort(k, kind="stable")])


# ---- when-is-last-workgroup

for groups in (1, 2, 37, 500):
    @case("last_group_%d" % groups)
    def _(groups=groups):
        s = np.zeros(4, np.uint64)
        prog.run("last_group", s, global_size=16 * groups)
        total = groups * (groups + 1) // 2
        assert_equal(s[0], total)
        assert_equal(s[1], total)
        check("a workgroup id", s[2] < groups)


@case
def generated_scratch_vectors():
    a = f32(1000)
    r = np.zeros(1, np.float32)
    prog.run("generated_scratch", a, r, global_size=1024)
    assert_close(r[0], a.astype(np.float64).sum(), rtol=1e-5, atol=1e-5)
    k = prog.kernels["generated_scratch"]
    comments = " ".join(str(x.get("comment", "")) for x in k["args"]) + " ".join(
        str(p.get("comment", "")) for p in k.get("scratch", []))
    check("the messages reach the metadata", "for the workgroup sums" in comments and "one per workgroup" in comments)
