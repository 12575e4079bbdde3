"""Run by tests/e2e/matmul_oclgrind.py under `oclgrind --data-races
--uninitialized` (platform Oclgrind): the matmul and tile kernels on small
inputs, from the .cl and .metacrisp files the parent compiled.  Checks each
result against numpy, prints one line per run and `done`."""
import sys
from crisptest import *
from crisptest import _context

out_dir_ = sys.argv[1]
rng = np.random.default_rng(3)


def load(base):
    return load_program("%s/%s.cl" % (out_dir_, base), "%s/%s.metacrisp" % (out_dir_, base), validate=False)


print("platform:", _context()[0].devices[0].platform.name, flush=True)
mm = load("matmul")
for kernel, dt, (m, k, n), layouts, gs, ls in (
        ("matmul_float", np.float32, (19, 21, 11), 0, (8, 8), (4, 4)),
        ("matmul_double", np.float64, (9, 5, 18), 7, (4, 4), (4, 4)),
        ("matmul_small_blocks", np.float32, (10, 12, 27), 2, (16, 8), None),
        ("matmul_threads_float", np.float32, (11, 14, 37), 3, (16, 8), (8, 4)),
        ("matmul_fours", np.float32, (21, 13, 18), 5, (8, 4), (4, 2)),
        # one workgroup for 3 x 3 blocks (the tiles reused), 5 slices (the
        # last in tile 0): the double buffering's single barrier per slice
        ("matmul_pipelined_float", np.float32, (37, 33, 70), 0, (8, 4), (8, 4)),
        ("matmul_pipelined_double", np.float64, (20, 17, 40), 3, (16, 4), (8, 4)),
        # (not matmul_pipelined_odd: its remainders by 12 and 6 become
        # LLVM `freeze` instructions, which oclgrind's --uninitialized
        # plugin stops at: "Unsupported instruction: freeze")
        ("matmul_padded", np.float32, (21, 13, 18), 0, (8, 4), (4, 2)),
        ("matmul_naive_float", np.float32, (7, 9, 6), 1, (8, 8), (8, 8))):
    a = rng.uniform(-1, 1, (m, k)).astype(dt)
    b = rng.uniform(-1, 1, (k, n)).astype(dt)
    c = np.zeros(m * n, dt)
    mm.run(kernel, (a.T if layouts & 1 else a).ravel().copy(), (b.T if layouts & 2 else b).ravel().copy(),
           m, k, n, layouts, c, global_size=gs, local_size=ls)
    got = c.reshape(n, m).T if layouts & 4 else c.reshape(m, n)
    assert np.allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-5), kernel
    print("ran", kernel, flush=True)

tile = load("tile")
rows, cols = 13, 19
src = rng.uniform(-5, 5, (rows, cols)).astype(np.float32)
o = np.zeros(rows * cols, np.float32)
ot = np.zeros(rows * cols, np.float32)
tile.run("tile_copy", src.T.ravel().copy(), rows, cols, 1, o, ot, global_size=(8, 4))
assert np.array_equal(o.reshape(rows, cols), src) and np.array_equal(ot.reshape(cols, rows), src.T)
print("ran tile_copy", flush=True)
d = rng.uniform(-5, 5, (6, 7))
e = np.zeros(32)
tile.run("edge_tile", d.ravel().copy(), 6, 7, 1, 1, e)
want = np.zeros((4, 4))
want[:2, :3] = d[4:6, 4:7]
assert np.array_equal(e[:16].reshape(4, 4), want) and np.array_equal(e[16:].reshape(4, 4), want.T)
print("ran edge_tile", flush=True)
o = np.zeros(rows * cols, np.float32)
tile.run("to_row", src.T.ravel().copy(), rows, cols, 1, o, global_size=(16, 16))
assert np.array_equal(o, src.ravel())
print("ran to_row", flush=True)
srci = rng.integers(-50, 50, (rows, cols)).astype(np.int32)
oi = np.zeros(rows * cols, np.int32)
tile.run("to_col", srci.ravel().copy(), rows, cols, 0, oi, global_size=(16, 16))
assert np.array_equal(oi, srci.T.ravel())
print("ran to_col", flush=True)
print("done", flush=True)
