"""tests/e2e/lib/sort.crisp: the bitonic sorts of lib/sort.crisp (spec
"Sorting") on PoCL and Intel against numpy: workgroup sorts (chunks of the
local size, short last chunks, workgroups that are not powers of two, a
key function, structs by a field or a sum), :local vectors, the global
merge passes and the local merge run by the spec's host loop, the premade
kernels (gen-bitonic_sort_workgroup ...)."""
from crisptest import *

prog = compile("tests/e2e/lib/sort.crisp")
rng = np.random.default_rng(11)


def chunks_sorted(a, c, key=None):
    """a with every chunk of c elements sorted (by key)."""
    out = a.copy()
    for s in range(0, len(a), c):
        part = a[s:s + c]
        out[s:s + c] = part[np.argsort(key(part) if key else part, kind="stable")]
    return out


def groups(n, c):
    return max(1, -(-n // c)) * c


# ---- workgroup sorts: each workgroup sorts its chunk of local-size elements

for n in (0, 1, 2, 255, 256, 257, 1000, 4096 + 3):
    @case("wg_float_%d" % n)
    def _(n=n):
        a = rng.standard_normal(n).astype(np.float32)
        a[::7] = 0.5                      # duplicates
        b = np.zeros(n, np.float32)
        prog.run("wg_float", a, b, global_size=groups(n, 256))
        assert_equal(b, chunks_sorted(a, 256))

for n in (1, 99, 100, 101, 1234):
    @case("wg_int_not_power_of_two_%d" % n)
    def _(n=n):
        a = rng.integers(-50, 50, n, dtype=np.int32)
        want = chunks_sorted(a, 100)
        prog.run("wg_int_100", a, global_size=groups(n, 100))
        assert_equal(a, want)


@case
def wg_key_descending():
    a = rng.integers(-(1 << 31), 1 << 31, 64 * 5 + 17, dtype=np.int32)
    want = chunks_sorted(a, 64, key=lambda p: -p.astype(np.int64))
    prog.run("wg_int_desc", a, global_size=groups(len(a), 64))
    assert_equal(a, want)


@case
def wg_struct_by_field():
    dt = struct_dtype(prog.meta, "point")
    n = 128 * 3 + 5
    p = np.zeros(n, dt)
    p["x"] = rng.permutation(n).astype(np.float32)   # distinct keys: one answer
    p["y"] = rng.standard_normal(n).astype(np.float32)
    want = chunks_sorted(p, 128, key=lambda q: q["x"])
    prog.run("wg_points_x", p, global_size=groups(n, 128))
    assert_equal(p["x"], want["x"])
    assert_equal(p["y"], want["y"])


@case
def wg_struct_by_sum():
    dt = struct_dtype(prog.meta, "point")
    n = 32 * 4 + 31
    p = np.zeros(n, dt)
    p["x"] = rng.permutation(n).astype(np.float32)
    p["y"] = 0.25
    q = np.zeros(n, dt)
    want = chunks_sorted(p, 32, key=lambda r: r["x"] + r["y"])
    prog.run("wg_points_sum", p, q, global_size=groups(n, 32))
    assert_equal(q["x"], want["x"])


@case
def wg_one_thread_is_a_no_op():
    a = rng.integers(0, 1 << 63, 10, dtype=np.uint64)
    want = a.copy()
    prog.run("wg_ulong", a, global_size=10)
    assert_equal(a, want)


@case
def wg_double_sorted_and_reversed():
    a = np.concatenate([np.arange(512.0), np.arange(512.0)[::-1], [-np.inf, np.inf, -0.0, 3]])
    want = chunks_sorted(a, 512)
    prog.run("wg_double", a, global_size=groups(len(a), 512))
    assert_equal(a, want)


for m in (0, 1, 2, 63, 64, 65, 1000):
    @case("local_vector_%d" % m)
    def _(m=m):
        g = 3
        a = rng.integers(-(1 << 15), 1 << 15, max(m * g, 1), dtype=np.int16)
        want = chunks_sorted(a, m) if m else a.copy()
        prog.run("local_vec", a, m, global_size=64 * g)
        assert_equal(a, want)


@case
def soa_by_field():
    x = rng.permutation(300).astype(np.float32)
    y = rng.permutation(300).astype(np.float32) - 150
    x2, y2 = np.zeros(300, np.float32), np.zeros(300, np.float32)
    bx, by = x.copy(), y.copy()
    prog.run("soa_sort", bx, by, x2, y2)
    o = np.argsort(y)
    assert_equal(bx, x[o])
    assert_equal(by, y[o])
    o = np.argsort(x)
    assert_equal(x2, x[o])
    assert_equal(y2, y[o])


# ---- whole vectors: the workgroup sort, then the spec's host loop of merges

def host_sort(a, wg_kernel, chunk, merge, merge_local=None, local_chunk=0, **wgkw):
    """The spec's loop: j = 2 chunk .. (the power of two >= n), k = j/2 .. 1;
    with MERGE_LOCAL the steps k < LOCAL_CHUNK run as one local pass."""
    n = len(a)
    prog.run(wg_kernel, a, global_size=groups(n, chunk), **wgkw)
    j = 2 * chunk
    while j // 2 < n:
        k = j // 2
        while k > 0:
            if merge_local and 2 * k <= local_chunk:
                prog.run(merge_local, a, j, k, global_size=groups(n, local_chunk) // 2)
                break
            prog.run(merge, a, j, k, global_size=min(max(n // 2, 1), 1 << 16))
            k //= 2
        j *= 2


for n in (0, 1, 2, 3, 1024, 1025, 100_003):
    @case("vector_merge_passes_%d" % n)
    def _(n=n):
        a = rng.integers(-1000, 1000, n).astype(np.float32)
        want = np.sort(a)
        # premade kernels need the element type long; float goes through the
        # user kernels: workgroup sort of 256 then global merges only
        b = np.zeros(n, np.float32)
        prog.run("wg_float", a, b, global_size=groups(n, 256))
        j = 512
        while j // 2 < n:
            k = j // 2
            while k > 0:
                prog.run("merge_pass", b, j, k, global_size=1024)
                k //= 2
            j *= 2
        assert_equal(b, want)

for n in (1, 255, 256, 257, 5000, 65536 + 1):
    @case("vector_local_merge_%d" % n)
    def _(n=n):
        a = rng.standard_normal(n).astype(np.float32)
        a[::3] = a[0]
        want = np.sort(a)
        b = np.zeros(n, np.float32)
        prog.run("wg_float", a, b, global_size=groups(n, 256))
        j = 512
        while j // 2 < n:
            k = j // 2
            while k > 0:
                if 2 * k <= 256:
                    prog.run("merge_local", b, j, k, global_size=groups(n, 256) // 2)
                    break
                prog.run("merge_pass", b, j, k, global_size=4096)
                k //= 2
            j *= 2
        assert_equal(b, want)


# ---- premade kernels (gen-bitonic_sort_workgroup ...)

@case
def premade_workgroup_out_of_place():
    a = rng.integers(0, 1 << 32, 3000, dtype=np.uint32)
    b = np.zeros_like(a)
    prog.run("premade_wg_uint", a, b, global_size=groups(3000, 64), local_size=64)
    assert_equal(b, chunks_sorted(a, 64))


for n in (5, 4096, 20_001):
    @case("premade_whole_vector_long_%d" % n)
    def _(n=n):
        a = rng.integers(-(1 << 62), 1 << 62, n, dtype=np.int64)
        a[: n // 4] = a[n // 2]
        want = np.sort(a)
        host_sort(a, "premade_wg_long", 128, "premade_merge_long", local_size=128)
        assert_equal(a, want)
        b = rng.integers(-9, 9, n, dtype=np.int64)
        want = np.sort(b)
        prog.run("premade_wg_long", b, global_size=groups(n, 64), local_size=64)
        j = 128
        while j // 2 < n:
            k = j // 2
            while k > 0:
                if 2 * k <= 128:
                    prog.run("premade_merge_local_long", b, j, k, global_size=groups(n, 128) // 2, local_size=64)
                    break
                prog.run("premade_merge_long", b, j, k, global_size=256)
                k //= 2
            j *= 2
        assert_equal(b, want)


# ---- soa premade kernels: one vector per field of struct particle
# (mass float, id int, charge double), sorted by one field, every field moved

def particles(n):
    mass = rng.permutation(n).astype(np.float32) * 0.5      # distinct keys: one answer
    ids = rng.permutation(n).astype(np.int32) - n // 2
    charge = rng.standard_normal(n)
    return mass, ids, charge


@case
def premade_soa_workgroup_out_of_place():
    n = 64 * 7 + 13
    mass, ids, charge = particles(n)
    om, oi, oc = np.zeros_like(mass), np.zeros_like(ids), np.zeros_like(charge)
    prog.run("premade_soa_wg", mass, ids, charge, om, oi, oc, global_size=groups(n, 64), local_size=64)
    order = np.concatenate([s + np.argsort(ids[s:s + 64], kind="stable") for s in range(0, n, 64)])
    assert_equal(oi, ids[order])
    assert_equal(om, mass[order])
    assert_equal(oc, charge[order])


for n in (0, 1, 3, 256, 257, 20_001):
    @case("premade_soa_whole_vector_%d" % n)
    def _(n=n):
        """the in-place workgroup sort by mass, then the spec's host loop of
        soa merge passes: the whole soa data sorted by mass"""
        mass, ids, charge = particles(n)
        order = np.argsort(mass, kind="stable")
        want = mass[order], ids[order], charge[order]
        if n:
            prog.run("premade_soa_wg_in_place", mass, ids, charge, global_size=groups(n, 32), local_size=32)
        j = 64
        while j // 2 < n:
            k = j // 2
            while k > 0:
                prog.run("premade_soa_merge", mass, ids, charge, j, k, global_size=512)
                k //= 2
            j *= 2
        assert_equal(mass, want[0])
        assert_equal(ids, want[1])
        assert_equal(charge, want[2])


# ---- radix sort: the spec's loop of count, scan and scatter passes

def radix_sort(keys, wg, count, scatter, passes, values=None, bits=4, kpt=16):
    """the host loop: PASSES passes of BITS bits, a workgroup of WG threads
    per tile of WG x KPT keys (and one workgroup too many: it does nothing)"""
    n = len(keys)
    a, b = keys.copy(), np.zeros_like(keys)
    va, vb = (values.copy(), np.zeros_like(values)) if values is not None else (None, None)
    tiles = -(-n // (wg * kpt))
    counts = np.zeros((1 << bits) * max(tiles, 1), np.uint32)
    for p in range(passes):
        prog.run(count, a, counts, bits * p, global_size=(tiles + 1) * wg, local_size=wg)
        prog.run("rx_scan", counts)
        if values is None:
            prog.run(scatter, a, b, counts, bits * p, global_size=(tiles + 1) * wg, local_size=wg)
        else:
            prog.run(scatter, a, b, counts, bits * p, va, vb, global_size=(tiles + 1) * wg, local_size=wg)
            va, vb = vb, va
        a, b = b, a
    return a, va


for n, wg in ((0, 16), (1, 16), (2, 32), (1024, 64), (1025, 64), (4096, 256), (100_003, 97)):
    @case("radix_uint_%d" % n)
    def _(n=n, wg=wg):
        k = rng.integers(0, 1 << 32, n, dtype=np.uint32)
        k[::4] = 12345
        got, _ = radix_sort(k, wg, "rx_count_uint", "rx_scatter_uint", 8)
        assert_equal(got, np.sort(k))


def radix_keys(a):
    """the order radix-key gives (lib/histogram.crisp), as uint64"""
    if a.dtype.kind == "u":
        return a.astype(np.uint64)
    bits = a.dtype.itemsize * 8
    u = a.view(np.uint32 if bits == 32 else np.uint64).astype(np.uint64)
    sign = np.uint64(1 << (bits - 1))
    if a.dtype.kind == "i":
        return u ^ sign
    full = np.uint64((1 << bits) - 1)
    return np.where(u & sign, u ^ full, u ^ sign)


@case
def radix_int_negatives_sorted_reversed():
    for k in (rng.integers(-(1 << 31), 1 << 31, 5000, dtype=np.int32),
              np.arange(-2000, 2000, dtype=np.int32), np.arange(2000, -2000, -1, dtype=np.int32)):
        got, _ = radix_sort(k, 32, "rx_count_int", "rx_scatter_int", 8)
        assert_equal(got, np.sort(k))


@case
def radix_float_pairs_stable():
    n = 30_011
    k = np.round(rng.standard_normal(n) * 10).astype(np.float32)     # many equal keys
    k[:6] = [-0.0, 0.0, np.inf, -np.inf, -0.0, 0.0]
    v = np.arange(n, dtype=np.int32)
    got, gv = radix_sort(k, 61, "rx_count_float", "rx_scatter_float_int", 8, values=v)
    order = np.argsort(radix_keys(k), kind="stable")
    assert_equal(gv, v[order])                       # stable: equal keys keep their order
    assert_equal(got, k[order])
    check("-0.0 before 0.0", np.signbit(got[np.nonzero(got == 0)[0][0]]))


@case
def radix_long_pairs_stable():
    n = 50_000
    k = rng.integers(-50, 50, n, dtype=np.int64) * (1 << 40) + rng.integers(0, 3, n)
    v = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    got, gv = radix_sort(k, 64, "rx_count_long", "rx_scatter_long_ulong", 16, values=v)
    order = np.argsort(k, kind="stable")
    assert_equal(got, k[order])
    assert_equal(gv, v[order])


@case
def radix_double_and_ulong():
    d = rng.standard_normal(7777) * 1e300
    d[::9] = -d[::9]
    # 8-bit digits: 256 counters a thread, 32 KiB for 32 threads (a GPU has 48)
    got, _ = radix_sort(d, 32, "rx_count_double", "rx_scatter_double", 8, bits=8, kpt=3)
    assert_equal(got, np.sort(d))
    u = rng.integers(0, 1 << 64, 7777, dtype=np.uint64)
    u[::2] = np.sort(u[::2])                         # partly sorted
    got, _ = radix_sort(u, 7, "rx_count_ulong", "rx_scatter_ulong", 16)
    assert_equal(got, np.sort(u))


@case
def radix_short_keys_uchar_values():
    k = rng.integers(-(1 << 15), 1 << 15, 3001, dtype=np.int16)
    k[::2] = -7
    v = (np.arange(3001) % 251).astype(np.uint8)
    got, gv = radix_sort(k, 5, "rx_count_short", "rx_scatter_short_uchar", 16, values=v, bits=2, kpt=5)
    order = np.argsort(k, kind="stable")
    assert_equal(got, k[order])
    assert_equal(gv, v[order])


@case
def radix_million_and_seven():
    k = rng.integers(0, 1 << 32, 10 ** 6 + 7, dtype=np.uint32)
    got, _ = radix_sort(k, 128, "rx_count_uint", "rx_scatter_uint", 8)
    assert_equal(got, np.sort(k))


if __name__ == "__main__":
    main()
