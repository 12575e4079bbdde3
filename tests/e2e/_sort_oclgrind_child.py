"""Run by tests/e2e/sort_oclgrind.py under `oclgrind --data-races
--uninitialized` (platform Oclgrind): the sort kernels of
tests/e2e/lib/sort.crisp on small inputs, from the .cl and .metacrisp the
parent compiled.  Prints one line per run and `done`."""
import sys
from crisptest import *
from crisptest import _context

out_dir_ = sys.argv[1]
rng = np.random.default_rng(4)
print("platform:", _context()[0].devices[0].platform.name, flush=True)
prog = load_program("%s/sort.cl" % out_dir_, "%s/sort.metacrisp" % out_dir_, validate=False)

# workgroup sort (a workgroup of 100: not a power of two, a short last chunk)
a = rng.integers(-50, 50, 250, dtype=np.int32)
want = np.concatenate([np.sort(a[s:s + 100]) for s in range(0, 250, 100)])
prog.run("wg_int_100", a, global_size=300)
assert np.array_equal(a, want), "wg_int_100"
print("ran wg_int_100", flush=True)

# a whole vector: workgroup sorts of 256, global merge passes, local merges
n = 700
a = rng.standard_normal(n).astype(np.float32)
b = np.zeros(n, np.float32)
prog.run("wg_float", a, b, global_size=768)
j = 512
while j // 2 < n:
    k = j // 2
    while k > 0:
        if 2 * k <= 256:
            prog.run("merge_local", b, j, k, global_size=384)
            break
        prog.run("merge_pass", b, j, k, global_size=64)
        k //= 2
    j *= 2
assert np.array_equal(b, np.sort(a)), "merges"
print("ran wg_float merge_pass merge_local", flush=True)

# the soa sort
x = rng.permutation(300).astype(np.float32)
y = rng.permutation(300).astype(np.float32)
x2, y2 = np.zeros(300, np.float32), np.zeros(300, np.float32)
bx, by = x.copy(), y.copy()
prog.run("soa_sort", bx, by, x2, y2)
assert np.array_equal(by, np.sort(y)) and np.array_equal(x2, np.sort(x)), "soa_sort"
print("ran soa_sort", flush=True)

# soa premade kernels: the in-place workgroup sort by mass, then soa merge
# passes, over the field vectors of struct particle
n = 150
mass = rng.permutation(n).astype(np.float32)
ids = rng.permutation(n).astype(np.int32)
charge = rng.standard_normal(n)
order = np.argsort(mass)
wm, wi, wc = mass[order], ids[order], charge[order]
prog.run("premade_soa_wg_in_place", mass, ids, charge, global_size=160, local_size=32)
j = 64
while j // 2 < n:
    k = j // 2
    while k > 0:
        prog.run("premade_soa_merge", mass, ids, charge, j, k, global_size=32)
        k //= 2
    j *= 2
assert np.array_equal(mass, wm) and np.array_equal(ids, wi) and np.array_equal(charge, wc), "soa premade"
print("ran premade_soa_wg_in_place premade_soa_merge", flush=True)

# radix: count, scan, scatter; 16-bit keys in 4 passes of 4 bits, tiles of
# 32 x 16 keys (oclgrind reports every 4-at-a-time store of the scan
# falsely: few of them, under its limit of 1000 reports)
keys = rng.integers(0, 1 << 16, 1100, dtype=np.uint32)
src, dst = keys.copy(), np.zeros_like(keys)
tiles = -(-len(keys) // (32 * 16))
counts = np.zeros(16 * tiles, np.uint32)
for p in range(4):
    prog.run("rx_count_uint", src, counts, 4 * p, global_size=32 * tiles, local_size=32)
    prog.run("rx_scan", counts, global_size=64, local_size=32)
    prog.run("rx_scatter_uint", src, dst, counts, 4 * p, global_size=32 * tiles, local_size=32)
    src, dst = dst, src
assert np.array_equal(src, np.sort(keys)), "radix"
print("ran rx_count_uint rx_scan rx_scatter_uint", flush=True)
print("done")
