"""tests/e2e/lib/sort_vector.crisp: gen-bitonic-sort-vector(!) (spec
"Don't Make Me Think gen-bitonic-sort-vector"), the host functions of both
hoists, on PoCL: the Python hoist's methods against numpy (sizes 0, 1, 2^k,
2^k+1, 10^6+7 with duplicates, negatives, floats with -0.0 and infinities,
sorted and reversed; host and device arrays; in place and a copy), the C
hoist's _run and _enqueue against qsort (tests/hoist/sort_caller.c, built
with gcc and g++); the orchestrations gen-bitonic-sort-vector makes (the
same passes in run-time loops) through both hoists against numpy and
qsort, and their metadata (steps, buffers, loops)."""
import json
import importlib.util
import os
import shutil
import sys

from crisptest import *
from _hoist_c_common import COMPILERS, sh, hoist, HOIST_TESTS

os.environ.setdefault("CRISP_PLATFORM", os.environ.get("CRISPTEST_PLATFORM", "Portable Computing Language"))
sys.path.insert(0, os.path.join(REPO, "runtime-shim"))
import crisp_runtime  # noqa: E402
import pyopencl.array as cla  # noqa: E402

SRC = os.path.join(REPO, "tests", "e2e", "lib", "sort_vector.crisp")
rng = np.random.default_rng(5)
_k = []


def kernels():
    if not _k:
        d = out_dir("sort_hoists_py")
        for f in os.listdir(d):
            p = os.path.join(d, f)
            shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
        status, out, err = crisp("--hoist=PyOpenCL", "--output-dir=" + d, os.path.relpath(SRC, REPO))
        if status != 0:
            raise CompileError("crisp --hoist=PyOpenCL failed:\n" + err + out)
        spec = importlib.util.spec_from_file_location("sort_vector_hoist", os.path.join(d, "sort_vector_hoist_PyOpenCL.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _k.append(mod.load())
    return _k[0]


def shapes(n, dt):
    """random with duplicates and negatives, sorted, reversed"""
    if dt.kind == "f":
        r = (rng.standard_normal(n) * 100).astype(dt)
        r[::5] = r[0] if n else 0
        if n >= 4:
            r[:4] = [-0.0, 0.0, np.inf, -np.inf]
    else:
        info = np.iinfo(dt)
        r = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), n, dtype=dt, endpoint=True)
        r[::3] = r[0] if n else 0
    yield "random", r
    yield "sorted", np.sort(r)
    yield "reversed", np.sort(r)[::-1].copy()


SIZES = (0, 1, 2, 3, 64, 65, 128, 129, 511, 512, 513, 4096, 4097, 65536, 65537)

for name, dt in (("in_place_float", np.float32), ("in_place_double", np.float64),
                 ("in_place_uint", np.uint32), ("in_place_long", np.int64)):
    @case("py_" + name)
    def _(name=name, dt=np.dtype(dt)):
        k = kernels()
        f = getattr(k, "bitonic_sort_vector_" + name)
        for n in SIZES:
            for what, a in shapes(n, dt):
                want = np.sort(a)
                r = f(a)
                check("%s n=%d returns None" % (what, n), r is None)
                assert_equal(a, want, name="%s %s n=%d" % (name, what, n))


for name, dt in (("in_place_float", np.float32), ("int", np.int32), ("in_place_long", np.int64)):
    @case("py_orchestration_" + name)
    def _(name=name, dt=np.dtype(dt)):
        """The orchestration gen-bitonic-sort-vector makes (run-time loops over
        the merge passes): sorts its argument in place, returns it by name."""
        k = kernels()
        f = getattr(k, "bitonic_sort_vector_%s_orchestration" % name)
        for n in SIZES:
            for what, a in shapes(n, dt):
                want = np.sort(a)
                r = f(a)
                assert_equal(a, want, name="orchestration %s %s n=%d" % (name, what, n))
                assert_equal(r["bitonic_sort_vector_%s_chunks::data" % name], want, name="returned %s n=%d" % (what, n))


@case
def py_orchestration_device_array():
    k = kernels()
    a = rng.integers(-1000, 1000, 70_001).astype(np.int32)
    d = cla.to_device(k.queue, a)
    k.bitonic_sort_vector_int_orchestration(d)
    assert_equal(d.get(), np.sort(a))


@case
def py_copy_leaves_the_input():
    k = kernels()
    for n in (0, 1, 100, 129, 5000):
        a = rng.integers(-5, 5, n, dtype=np.int32)
        keep = a.copy()
        b = k.bitonic_sort_vector_int(a)
        assert_equal(a, keep, name="input n=%d" % n)
        assert_equal(b, np.sort(a), name="copy n=%d" % n)


@case
def py_device_arrays():
    k = kernels()
    for n in (1, 1000, 100_003):
        a = rng.standard_normal(n).astype(np.float32)
        d = cla.to_device(k.queue, a)
        ev = k.bitonic_sort_vector_in_place_float(d)
        check("an event n=%d" % n, (ev is not None) == (n > 1))
        assert_equal(d.get(), np.sort(a), name="device n=%d" % n)
        di = cla.to_device(k.queue, a.astype(np.int32))
        do = k.bitonic_sort_vector_int(di)
        check("a device array n=%d" % n, isinstance(do, cla.Array))
        assert_equal(do.get(), np.sort(a.astype(np.int32)), name="copy on the device n=%d" % n)
        assert_equal(di.get(), a.astype(np.int32), name="input kept n=%d" % n)


@case
def py_million_and_seven():
    k = kernels()
    n = 10 ** 6 + 7
    a = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64) // 1000
    want = np.sort(a)
    k.bitonic_sort_vector_in_place_long(a)
    assert_equal(a, want)
    f = rng.standard_normal(n).astype(np.float32)
    want = np.sort(f)
    k.bitonic_sort_vector_in_place_float(f)
    assert_equal(f, want)


def radix_keys(a):
    """the order of radix-key (lib/histogram.crisp), as uint64: -0.0 < 0.0"""
    if a.dtype.kind == "u":
        return a.astype(np.uint64)
    bits = a.dtype.itemsize * 8
    u = a.view(np.uint32 if bits == 32 else np.uint64).astype(np.uint64)
    sign = np.uint64(1 << (bits - 1))
    if a.dtype.kind == "i":
        return u ^ sign
    return np.where(u & sign, u ^ np.uint64((1 << bits) - 1), u ^ sign)


for name, dt in (("uint", np.uint32), ("int", np.int32), ("double", np.float64), ("ulong", np.uint64)):
    @case("py_radix_" + name)
    def _(name=name, dt=np.dtype(dt)):
        f = getattr(kernels(), "radix_sort_vector_" + name)
        for n in SIZES:
            for what, a in shapes(n, dt):
                want = a[np.argsort(radix_keys(a), kind="stable")]
                check("%s n=%d returns None" % (what, n), f(a) is None)
                assert_equal(a.view(np.uint8), want.view(np.uint8), name="%s %s n=%d (bits)" % (name, what, n))


@case
def py_radix_other_tiles():
    """:digit-bits 8 on tiles of 32 x 32 keys (ushort), :digit-bits 2 on
    64 x 4 (char keys with float values): stable, every size"""
    k = kernels()
    for n in SIZES + (10 ** 6 + 7,):
        u = rng.integers(0, 1 << 16, n).astype(np.uint16)
        u[::5] = 9
        want = np.sort(u)
        k.radix_sort_vector_ushort(u)
        assert_equal(u, want, name="ushort n=%d" % n)
        c = rng.integers(-128, 128, n).astype(np.int8)
        v = np.arange(n, dtype=np.float32)
        order = np.argsort(c, kind="stable")
        wc, wv = c[order], v[order]
        k.radix_sort_vector_char_float(c, v)
        assert_equal(c, wc, name="char keys n=%d" % n)
        assert_equal(v, wv, name="float values (stable) n=%d" % n)


@case
def py_radix_pairs_stable():
    k = kernels()
    for n in SIZES + (10 ** 6 + 7,):
        keys = rng.integers(-30, 30, n).astype(np.float32)
        keys[::7] = -0.0
        vals = np.arange(n, dtype=np.int32)
        order = np.argsort(radix_keys(keys), kind="stable")
        want = keys[order]
        k.radix_sort_vector_float_int(keys, vals)
        assert_equal(vals, order.astype(np.int32), name="values n=%d" % n)
        assert_equal(keys.view(np.uint32), want.view(np.uint32), name="keys n=%d" % n)
        lk = rng.integers(-(1 << 62), 1 << 62, n, dtype=np.int64) >> 50
        lv = rng.integers(0, 1 << 64, n, dtype=np.uint64)
        order = np.argsort(lk, kind="stable")
        want_k, want_v = lk[order], lv[order]
        k.radix_sort_vector_long_ulong(lk, lv)
        assert_equal(lk, want_k, name="long keys n=%d" % n)
        assert_equal(lv, want_v, name="ulong values n=%d" % n)


def radix_tiles():
    """{host function: keys a tile (local size x keys per thread)} of the
    radix sorts, from the metadata's "sorts" list (docs/abi.md)"""
    d = out_dir("sort_hoists_meta")
    status, out, err = crisp("--metadata", "--output-dir=" + d, os.path.relpath(SRC, REPO))
    if status != 0:
        raise CompileError("crisp --metadata failed:\n" + err + out)
    m = json.load(open(os.path.join(d, "sort_vector.metacrisp")))
    return {x["name"]: x["local_size"] * x["keys_per_thread"] for x in m["sorts"] if x["kind"] == "radix"
            and x["name"] in ("radix_sort_vector_uint", "radix_sort_vector_int", "radix_sort_vector_float_int",
                              "radix_sort_vector_long_ulong")}


@case
def py_radix_orchestrations():
    """The orchestrations gen-radix-sort-vector makes (the passes unrolled):
    the caller gives the counts (16 per tile of L x E keys, the local size
    and keys per thread the metadata's "sorts" entry gives: derived from the
    bytes of a key and its value, docs/library.md "Radix sort") and the
    second buffers; the result ends in the keys (and values), which the
    call returns by name."""
    k = kernels()
    tile = radix_tiles()
    check("the default tiles fit 32 KiB: 128 x 24 for 4-byte keys, 128 x 16 for 8 bytes a pair, 96 x 16 for 16",
          tile == {"radix_sort_vector_uint": 3072, "radix_sort_vector_int": 3072, "radix_sort_vector_float_int": 2048,
                   "radix_sort_vector_long_ulong": 1536}, tile)

    def counts_for(name, n):
        return np.zeros(16 * max(1, -(-n // tile[name])), np.uint32)
    for n in (0, 1, 2, 15, 16, 17, 1536, 1537, 2048, 3072, 3073, 65537, 10 ** 6 + 7):
        keys = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
        keys[::3] = 77
        counts = counts_for("radix_sort_vector_uint", n)
        want = np.sort(keys)
        r = k.radix_sort_vector_uint_orchestration(keys, counts, np.zeros_like(keys))
        assert_equal(keys, want, name="uint n=%d" % n)
        if n:
            assert_equal(r["radix_sort_vector_uint_count::keys"], want, name="returned n=%d" % n)
        fk = np.round(rng.standard_normal(n) * 5).astype(np.float32)
        fv = np.arange(n, dtype=np.int32)
        order = np.argsort(radix_keys(fk), kind="stable")
        wk, wv = fk[order], fv[order]
        k.radix_sort_vector_float_int_orchestration(fk, counts_for("radix_sort_vector_float_int", n), np.zeros_like(fk), fv,
                                                    np.zeros_like(fv))
        assert_equal(fk, wk, name="float keys n=%d" % n)
        assert_equal(fv, wv, name="int values (stable) n=%d" % n)
        lk = rng.integers(-(1 << 62), 1 << 62, n, dtype=np.int64)
        lv = rng.integers(0, 1 << 64, n, dtype=np.uint64)
        lc = counts_for("radix_sort_vector_long_ulong", n)
        order = np.argsort(lk, kind="stable")
        wk, wv = lk[order], lv[order]
        k.radix_sort_vector_long_ulong_orchestration(lk, lc, np.zeros_like(lk), lv, np.zeros_like(lv))
        assert_equal(lk, wk, name="long keys n=%d" % n)
        assert_equal(lv, wv, name="ulong values n=%d" % n)


@case
def py_soa_orchestrations():
    """gen-bitonic-sort-soa-vector(!): soa data as one array per field of
    struct particle (mass float, id int, charge double), sorted by a field
    (distinct keys: one answer), every field moved."""
    k = kernels()
    for n in (0, 1, 2, 63, 64, 65, 1000, 65537):
        mass = rng.permutation(n).astype(np.float32) * 0.25
        ids = rng.permutation(n).astype(np.int32) - n // 3
        charge = rng.standard_normal(n)
        order = np.argsort(mass, kind="stable")
        wm, wi, wc = mass[order], ids[order], charge[order]
        k.bitonic_sort_soa_vector_in_place_particle_mass_orchestration(mass, ids, charge)
        assert_equal(mass, wm, name="in place: mass n=%d" % n)
        assert_equal(ids, wi, name="in place: id n=%d" % n)
        assert_equal(charge, wc, name="in place: charge n=%d" % n)
        order = np.argsort(ids, kind="stable")
        before = (mass.copy(), ids.copy(), charge.copy())
        om, oi, oc = np.zeros_like(mass), np.zeros_like(ids), np.zeros_like(charge)
        r = k.bitonic_sort_soa_vector_particle_id_orchestration(mass, ids, charge, om, oi, oc)
        assert_equal(oi, ids[order], name="copy: id n=%d" % n)
        assert_equal(om, mass[order], name="copy: mass n=%d" % n)
        assert_equal(oc, charge[order], name="copy: charge n=%d" % n)
        check("copy: the input is left n=%d" % n, all(np.array_equal(x, y) for x, y in zip(before, (mass, ids, charge))))
        if n:
            assert_equal(r["bitonic_sort_soa_vector_particle_id_chunks::id"], ids[order], name="returned n=%d" % n)


@case
def py_radix_device_arrays():
    k = kernels()
    a = rng.integers(0, 1 << 32, 100_003, dtype=np.uint32)
    d = cla.to_device(k.queue, a)
    ev = k.radix_sort_vector_uint(d)
    check("an event", ev is not None)
    assert_equal(d.get(), np.sort(a))
    assert_raises(ValueError, k.radix_sort_vector_float_int, np.zeros(3, np.float32), np.zeros(4, np.int32))


@case
def spec_pseudo_demonstration_with_the_premade_kernels():
    """The spec's "psuedo demonstration" (Bitonic Sort) as printed, with
    the kernels its generation lines make (tests/e2e/lib/sort_spec_demo.crisp);
    Python 3 needs // where the pseudo-code halves with /.  Its loop runs j
    up to the size in bytes: the merges past the vector's length are no-ops."""
    d = out_dir("sort_spec_demo")
    status, out, err = crisp("--transpile-to=oclc", "--metadata", "--output-dir=" + d,
                             "tests/e2e/lib/sort_spec_demo.crisp")
    check("compiled", status == 0, err)
    os.environ["CRISP_KERNEL_PATH"] = d
    try:
        stage_one_kernel = crisp_runtime.load_kernel("stage_one_kernel")
        stage_two_kernel = crisp_runtime.load_kernel("stage_two_kernel")
        host_data = np.array(np.random.rand(1024), dtype=np.float32)
        original = host_data.copy()
        data_size = host_data.nbytes
        buffer = crisp_runtime.create_buffer(host_data)
        stage_one_kernel.set_arg("data", buffer)
        workgroup_size = 256
        global_size = host_data.size
        queue = crisp_runtime.default_queue()
        stage_one_kernel.launch(queue, global_size, workgroup_size)
        buffer.read()
        check("stage one sorts each workgroup's 256, ascending",
              all(np.all(np.diff(host_data[s:s + 256]) >= 0) for s in range(0, 1024, 256)))
        j = workgroup_size * 2
        while j <= data_size:
            k = j // 2
            while k > 0:
                stage_two_kernel.launch(queue, buffer, j, k)
                k = k // 2
            j = j * 2
        assert_equal(buffer.read(), np.sort(original))
    finally:
        del os.environ["CRISP_KERNEL_PATH"]


@case
def metadata_lists_the_sorts():
    import json
    d = out_dir("sort_hoists_meta")
    status, out, err = crisp("--metadata", "--output-dir=" + d, os.path.relpath(SRC, REPO))
    check("crisp --metadata", status == 0, err)
    m = json.load(open(os.path.join(d, "sort_vector.metacrisp")))
    s = {x["name"]: x for x in m["sorts"]}
    check("every host function", len(s) == 13, sorted(s))
    b = s["bitonic_sort_vector_int"]
    check("bitonic entry", b["kind"] == "bitonic" and b["local_size"] == 64 and b["in_place"] is False
          and b["kernels"] == ["bitonic_sort_vector_int_chunks", "bitonic_sort_vector_int_merge",
                               "bitonic_sort_vector_int_merge_local"], b)
    r = s["radix_sort_vector_long_ulong"]
    check("radix entry", r["kind"] == "radix" and r["passes"] == 16 and r["pairs"] is True and r["element"] == "long"
          and r["digit_bits"] == 4 and r["local_size"] == 96 and r["keys_per_thread"] == 16, r)
    names = {k["name"] for k in m["kernels"]}
    check("the kernels exist", all(k in names for x in s.values() for k in x["kernels"]))
    # the orchestrations gen-bitonic-sort-vector and gen-radix-sort-vector
    # make: one per host function
    o = {x["name"]: x for x in m["orchestrations"]}
    soa = ["bitonic_sort_soa_vector_in_place_particle_mass_orchestration", "bitonic_sort_soa_vector_particle_id_orchestration"]
    check("an orchestration per sort, and the soa sorts'", sorted(o) == sorted([n + "_orchestration" for n in s] + soa), sorted(o))
    x = o["radix_sort_vector_long_ulong_orchestration"]
    check("radix: 16 passes of count, scan, scatter", [st["kernel"] for st in x["steps"]] == 16 * r["kernels"], x["steps"])
    check("radix: the shifts", [st["args"][2].get("value") for st in x["steps"][::3]] == [str(4 * p) for p in range(16)], x["steps"])
    check("radix: keys, counts, out, values, values-out", [bf["name"] for bf in x["buffers"]] == [
        "radix_sort_vector_long_ulong_count_keys", "radix_sort_vector_long_ulong_count_counts",
        "radix_sort_vector_long_ulong_scatter_out", "radix_sort_vector_long_ulong_scatter_vals",
        "radix_sort_vector_long_ulong_scatter_vals_out"], x["buffers"])
    check("radix: ping-pong", [st["args"][0]["buffer"] for st in x["steps"][::3]] == [0, 2] * 8
          and [st["args"][5]["buffer"] for st in x["steps"][2::3]] == [4, 3] * 8, x["steps"])
    b = o["bitonic_sort_vector_int_orchestration"]
    check("its steps", [st["kernel"] for st in b["steps"]] == b_kernels(), b["steps"])
    check("one buffer: the vector", len(b["buffers"]) == 1 and b["buffers"][0]["name"] == "bitonic_sort_vector_int_chunks_data"
          and b["buffers"][0]["read"] and b["buffers"][0]["written"], b["buffers"])
    check("host values", [a.get("value") for a in b["steps"][1]["args"]] == [None, "j", "k"]
          and [a.get("value") for a in b["steps"][2]["args"]] == [None, "j", "64"], b["steps"])
    check("the loops", b["loops"] == [
        {"var": "j", "kind": "do-times-by-doubling", "start": "256",
         "limit": "(- (* 2 (length bitonic_sort_vector_int_chunks::data)) 1)", "while": "0 < var <= limit",
         "first_step": 1, "end_step": 3, "depth": 0, "line": b["loops"][0]["line"]},
        {"var": "k", "kind": "do-times-by-half", "start": "(/ j 2)", "limit": "128", "while": "0 < var, var >= limit",
         "first_step": 1, "end_step": 2, "depth": 1, "line": b["loops"][1]["line"]}], b["loops"])


def b_kernels():
    return ["bitonic_sort_vector_int_chunks", "bitonic_sort_vector_int_merge", "bitonic_sort_vector_int_merge_local"]


for compiler in ("gcc", "g++"):
    @case("c_hoist_" + compiler)
    def _(compiler=compiler):
        d, c_file = hoist(SRC, "sort_hoists_c_" + compiler.replace("+", "p"))
        exe = os.path.join(d, "sort_caller")
        tile = radix_tiles()
        status, out, err = sh(COMPILERS[compiler] + ["-I", d, "-DRADIX_TILE_INT=%d" % tile["radix_sort_vector_int"],
                                                     "-DRADIX_TILE_FLOAT_INT=%d" % tile["radix_sort_vector_float_int"],
                                                     os.path.join(HOIST_TESTS, "sort_caller.c"), "-lOpenCL", "-o", exe])
        check("compiles", status == 0 and not err.strip(), (err + out)[:3000])
        status, out, err = sh(COMPILERS[compiler] + ["-I", d, c_file, c_file[:-2] + "_demo.c", "-lOpenCL",
                                                     "-o", exe + "_demo"])
        check("the demo compiles", status == 0 and not err.strip(), (err + out)[:3000])
        status, out, err = sh([exe, os.path.join(d, "sort_vector.cl")], cwd=d, timeout=600)
        check("sorts", status == 0 and out.strip().endswith("all sorted"), (out + err)[-3000:])


if __name__ == "__main__":
    main()
