"""tests/e2e/lib/filter.crisp: filter and filter-soa against numpy: order
kept, the count returned even when OUT is too small, OUT never written past
its end; grid level for several types and sizes (1, a workgroup minus one,
non-powers of two, 2^20+3), in place; workgroup and thread level; soa."""
from crisptest import *

prog = compile("tests/e2e/lib/filter.crisp")
rng = np.random.default_rng(31)

PREDS = {
    "filter_even_int": (np.int32, lambda a: a % 2 == 0,
                        lambda n: rng.integers(-10**6, 10**6, n, dtype=np.int32)),
    "filter_positive_float": (np.float32, lambda a: a > 0,
                              lambda n: (rng.random(n) - 0.7).astype(np.float32)),
    "filter_big_ulong": (np.uint64, lambda a: a > 1000000,
                         lambda n: rng.integers(0, 2 * 10**6, n, dtype=np.uint64)),
    "filter_small_double": (np.float64, lambda a: np.abs(a) < 0.25,
                            lambda n: rng.random(n) * 2 - 1),
}
# the same with the tile engine's tuning keys
PREDS["filter_even_int_tuned"] = PREDS["filter_even_int"]
PREDS["filter_small_double_tuned"] = PREDS["filter_small_double"]
PREDS["filter_big_ulong_tuned"] = PREDS["filter_big_ulong"]
# the warp paths' tuning keys
PREDS["filter_even_int_warp"] = PREDS["filter_even_int"]
PREDS["filter_positive_float_warp"] = PREDS["filter_positive_float"]
PREDS["filter_small_double_warp"] = PREDS["filter_small_double"]
PREDS["filter_big_ulong_direct_warp"] = PREDS["filter_big_ulong"]
PREDS["filter_even_int_direct"] = PREDS["filter_even_int"]
# the warp-striped tile
PREDS["filter_even_int_wstriped"] = PREDS["filter_even_int"]
PREDS["filter_positive_float_wstriped"] = PREDS["filter_positive_float"]
PREDS["filter_big_ulong_wstriped"] = PREDS["filter_big_ulong"]
PREDS["filter_even_int_registers_wstriped"] = PREDS["filter_even_int"]


def run_grid(name, n, out_len=None, wg=64, groups=None, program=None):
    dt, pred, make = PREDS[name]
    a = make(n).astype(dt)
    out_len = n if out_len is None else out_len
    out = np.full(max(out_len, 0), 77, dt)
    count = np.zeros(1, np.uint64)
    gsize = wg * (groups if groups is not None else max(1, -(-n // wg)))
    program = program or prog
    need = program.local_mem_bytes(name, wg)
    if need > device_local_mem_size():
        # a tile too large for this device's local memory (the tuned ones
        # at 128 or 256 work-items on NVIDIA's 48 KiB): refused before the
        # launch, with the kernel and both figures (docs/library.md)
        assert_raises(LocalMemoryError, program.run, name, a, out, count, global_size=gsize, local_size=wg,
                      match="kernel %s needs %d bytes of local memory per workgroup at a local size of %d, "
                      "but the device has %d" % (name, need, wg, device_local_mem_size()))
        return
    program.run(name, a, out, count, global_size=gsize, local_size=wg)
    want = a[pred(a)]
    assert_equal(int(count[0]), want.size, "count of %s n=%d" % (name, n))
    k = min(out_len, want.size)
    assert_equal(out[:k], want[:k], "matches of %s n=%d" % (name, n))
    assert_equal(out[k:], np.full(out_len - k, 77, dt), "past the matches")


for name in PREDS:
    @case(name)
    def _(name=name):
        for n, wg, groups in [(1, 64, None), (63, 64, None), (1000, 64, 1), (4099, 64, 3),
                              (100003, 256, None), (100003, 128, 5), (100003, 64, None)]:
            run_grid(name, n, None, wg, groups)


if device_ocl_version() >= (2, 0):
    # an OpenCL C 3.0 file: the warp paths where sub-groups are 32 wide (Intel)
    @case
    def warp_paths_native():
        prog3 = compile("tests/e2e/lib/filter.crisp", flags=["--ocl-version=3.0"])
        for name in [k for k in PREDS if k.endswith("_warp") or k.endswith("_wstriped")]:
            for n, wg, groups in [(1, 64, None), (1000, 64, 1), (4099, 96, 3), (30011, 33, 5),
                                  (50000, 20, 7), (100003, 256, None)]:
                run_grid(name, n, None, wg, groups, prog3)

    @case
    def default_layout_native():
        # the filter's default layout in an OpenCL C 3.0 file, where warps are
        # native (docs/library.md "Scans")
        prog3 = compile("tests/e2e/lib/filter.crisp", flags=["--ocl-version=3.0"])
        for name in ("filter_even_int", "filter_positive_float", "filter_big_ulong", "filter_small_double"):
            for n, wg, groups in [(1, 64, None), (4099, 96, 3), (30011, 33, 5), ((1 << 20) + 3, 256, 16)]:
                run_grid(name, n, None, wg, groups, prog3)


@case
def local_memory_figures():
    # "local_mem" of the metadata (docs/abi.md): at the 128 work-items crisp
    # chose (the scans' and filter's default, docs/library.md "Scans"), the
    # figure W0704 reports; as a size, what the harness adds up before a
    # launch: 3 uniform slots (20 bytes), the scan's slots (4 x (L + L/32 +
    # 67)), ticket and carry (16), the look-back window, and the tile of
    # matches (ITEMS x L elements; where the filter may take the
    # warp-striped tile - at most 32 items - one pad element per 32)
    def bytes_at(window, items, stride, L):
        stage = (L + 31) // 32 * 33 * items if items <= 32 else items * L
        return 20 + 4 * (L + L // 32 + 67) + 16 + window + stage * stride
    for name, window, items, stride in [("filter_small_double_tuned", 512, 32, 8),
                                        ("filter_big_ulong_tuned", 256, 64, 8),
                                        ("filter_even_int", 256, 32, 4)]:
        lm = prog.kernels[name]["local_mem"]
        assert_equal(lm["bytes"], bytes_at(window, items, stride, 128), "local_mem.bytes of %s" % name)
        assert_equal(lm["at_local_size"], 128, "local_mem.at_local_size of %s" % name)
        for L in (64, 128, 256):
            assert_equal(prog.local_mem_bytes(name, L), bytes_at(window, items, stride, L),
                         "local_mem.size of %s at %d" % (name, L))


@case
def direct_into_a_short_output():
    # :compact :direct writes each match itself: none past OUT's end
    for name in ("filter_even_int_direct", "filter_big_ulong_direct_warp"):
        for n, out_len in ((100003, 1000), (5000, 0), (4099, 2049)):
            run_grid(name, n, out_len, 64, 4)


@case
def big_2_20_plus_3():
    run_grid("filter_even_int", (1 << 20) + 3, None, 256, 16)
    run_grid("filter_positive_float", (1 << 20) + 3, None, 256, None)


@case
def result_too_small_count_still_right():
    run_grid("filter_even_int", 5000, 10, 64, 4)
    run_grid("filter_even_int", 5000, 0, 64, 4)
    run_grid("filter_positive_float", 30000, 2000, 128, None)


@case
def no_match_and_all_match():
    a = np.arange(1, 4001, 2, dtype=np.int32)      # all odd
    out = np.zeros(a.size, np.int32)
    count = np.zeros(1, np.uint64)
    prog.run("filter_even_int", a, out, count, global_size=256, local_size=64)
    assert_equal(int(count[0]), 0)
    a = np.arange(0, 8000, 2, dtype=np.int32)      # all even
    prog.run("filter_even_int", a, np.zeros(a.size, np.int32), count, global_size=512, local_size=64)
    assert_equal(int(count[0]), a.size)


@case
def match_patterns_within_a_thread():
    # each thread's whole tile (ITEMS consecutive elements: 16, 24 or 32
    # ints by the tile's shape, 64 ulongs for filter_big_ulong_tuned; the
    # patterns are laid out for each) with its matches only
    # first, only last, none, all, first and last, every third, or all but
    # the last: where warps are not native the stage takes every item up
    # to a thread's last match, matched or not (docs/library.md "Filter")
    def patterns(items):
        rows = [[k == 0 for k in range(items)], [k == items - 1 for k in range(items)],
                [False] * items, [True] * items, [k in (0, items - 1) for k in range(items)],
                [k % 3 == 0 for k in range(items)], [k < items - 1 for k in range(items)]]
        return np.array([rows[(b * 5) % len(rows)] for b in range(97)]).reshape(-1)
    for name, dt, items, yes, no in (("filter_even_int", np.int32, 16, 4, 7),
                                     ("filter_even_int", np.int32, 24, 4, 7),
                                     ("filter_even_int", np.int32, 32, 4, 7),
                                     ("filter_big_ulong_tuned", np.uint64, 64, 1500000, 3)):
        match = patterns(items)
        for n in (match.size, match.size - 5):
            a = np.where(match[:n], yes, no).astype(dt) + np.arange(n, dtype=dt) * 2
            out = np.full(n, 77, dt)
            count = np.zeros(1, np.uint64)
            for wg, groups in ((64, 2), (32, 1), (64, None)):
                gsize = wg * (groups if groups is not None else max(1, -(-n // wg)))
                prog.run(name, a, out, count, global_size=gsize, local_size=wg)
                want = a[PREDS[name][1](a)]
                assert_equal(int(count[0]), want.size, "count of %s n=%d" % (name, n))
                assert_equal(out[:want.size], want, "matches of %s n=%d" % (name, n))


@case
def in_place():
    a = rng.integers(-1000, 1000, 50001, dtype=np.int32)
    v = a.copy()
    count = np.zeros(1, np.uint64)
    prog.run("filter_in_place", v, count, global_size=1024, local_size=128)
    want = a[a % 2 == 0]
    assert_equal(int(count[0]), want.size)
    assert_equal(v[:want.size], want)
    assert_equal(v[want.size:], a[want.size:])


@case
def workgroup_level():
    for m, wg, groups in [(1, 64, 1), (63, 64, 2), (64, 64, 2), (1000, 64, 3), (300, 100, 2), (7, 1, 2)]:
        a = rng.integers(-50, 50, m * groups, dtype=np.int32)
        out = np.zeros(m * groups, np.int32)
        counts = np.zeros(groups, np.uint64)
        prog.run("filter_local", m, a, out, counts, global_size=wg * groups, local_size=wg)
        for g in range(groups):
            seg = a[g * m:(g + 1) * m]
            want = seg[seg % 2 == 0]
            assert_equal(int(counts[g]), want.size, "count of group %d (m=%d wg=%d)" % (g, m, wg))
            assert_equal(out[g * m:g * m + want.size], want, "group %d" % g)


@case
def soa_workgroup_level():
    xs = rng.integers(0, 100, 200, dtype=np.int32)
    ys = rng.random(200).astype(np.float32)
    ox = np.zeros(200, np.int32)
    oy = np.zeros(200, np.float32)
    counts = np.zeros(1, np.uint64)
    prog.run("filter_soa_local", xs, ys, ox, oy, counts)
    keep = xs % 2 == 0
    n = int(keep.sum())
    assert_equal(int(counts[0]), n)
    assert_equal(ox[:n], xs[keep])
    assert_equal(oy[:n], ys[keep])


@case
def thread_level_spec_example():
    # spec "filter": (filter numbers #'even? result) on #(1 2 ... 9) -> 4
    out = np.zeros(15, np.int32)
    counts = np.zeros(3, np.uint64)
    prog.run("filter_private", out, counts)
    assert_equal(counts.tolist(), [4, 4, 3])
    assert_equal(out[:9].tolist(), [2, 4, 6, 8, 0, 0, 0, 0, 0])
    assert_equal(out[9:11].tolist(), [2, 4])         # too small: the first two, count still 4
    assert_equal(out[11:15].tolist(), [0, 6, 12, 4])  # x = 0 3 6 9 12 -> 0 6 12; y of the third = 4
