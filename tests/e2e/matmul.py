"""tests/e2e/matmul.crisp: matmul (tiled, local memory, register blocks)
and matmul-naive against numpy, float and double, every layout of A, B
and C, sizes that are and are not multiples of the blocks.

Tolerance: each element is a sum of k products.  The kernels add them in k
order (matmul in slices of tile-k, in order), numpy in another order
(BLAS), so the results differ by rounding: |got - want| <= 4 k eps
(sum |a||b|), eps of the element type - the standard bound for a dot
product, with room."""
from crisptest import *

prog = compile("tests/e2e/matmul.crisp")

SIZES = [(1, 1, 1), (17, 33, 5), (5, 1, 7), (64, 64, 64), (65, 3, 130), (100, 257, 31), (512, 512, 512)]


def operands(m, k, n, dtype, layouts, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(dtype)
    b = rng.uniform(-1, 1, (k, n)).astype(dtype)
    buf_a = (a.T if layouts & 1 else a).ravel().copy()
    buf_b = (b.T if layouts & 2 else b).ravel().copy()
    return a, b, buf_a, buf_b


def check(got_buf, a, b, layouts, name):
    m, n = a.shape[0], b.shape[1]
    got = got_buf.reshape(n, m).T if layouts & 4 else got_buf.reshape(m, n)
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = 4 * a.shape[1] * np.finfo(a.dtype).eps * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64))
    err = np.abs(got.astype(np.float64) - want)
    if not np.all(err <= bound + np.finfo(a.dtype).tiny):
        i = np.unravel_index(np.argmax(err - bound), err.shape)
        raise AssertionError(f"{name}: C{list(i)} = {got[i]!r}, numpy {want[i]!r} (error {err[i]:.3g} > bound {bound[i]:.3g})")


def run(kernel, m, k, n, dtype, layouts=0, seed=0, global_size=None, local_size=None):
    a, b, buf_a, buf_b = operands(m, k, n, dtype, layouts, seed)
    c = np.full(m * n, np.nan, dtype)
    prog.run(kernel, buf_a, buf_b, m, k, n, layouts, c, global_size=global_size, local_size=local_size)
    check(c, a, b, layouts, f"{kernel} {m}x{k}x{n} layouts={layouts}")


def launch(m, n, tile=64, local=16):
    """One workgroup of local x local per tile x tile block of C."""
    return (local * -(-n // tile), local * -(-m // tile))


@case
def matmul_float_sizes():
    for m, k, n in SIZES:
        run("matmul_float", m, k, n, np.float32, global_size=launch(m, n))


@case
def matmul_double_sizes():
    for m, k, n in SIZES:
        run("matmul_double", m, k, n, np.float64, global_size=launch(m, n))


@case
def matmul_layouts():
    for layouts in range(8):
        run("matmul_float", 37, 29, 45, np.float32, layouts, seed=layouts, global_size=launch(37, 45))
        run("matmul_double", 70, 20, 9, np.float64, layouts, seed=layouts, global_size=launch(70, 9))


@case
def matmul_any_launch():
    # fewer workgroups than blocks (loop-group-stride), other local sizes
    run("matmul_float", 200, 50, 150, np.float32, global_size=(16, 16))
    run("matmul_float", 200, 50, 150, np.float32, global_size=(32, 8), local_size=(8, 4))
    run("matmul_float", 33, 17, 70, np.float32, global_size=(64, 1), local_size=(64, 1))
    run("matmul_double", 33, 17, 70, np.float64, global_size=(3, 5), local_size=(3, 5))


@case
def matmul_other_blocks():
    for m, k, n in [(1, 1, 1), (17, 33, 5), (50, 23, 61)]:
        for layouts in (0, 7):
            run("matmul_small_blocks", m, k, n, np.float32, layouts, global_size=(16, 8))


@case
def matmul_threads():
    # launched with the :threads shape (8 x 4: the fast path) and others
    for kernel, dt in (("matmul_threads_float", np.float32), ("matmul_threads_double", np.float64)):
        for m, k, n in [(1, 1, 1), (17, 33, 5), (40, 70, 33), (128, 64, 96)]:
            for layouts in (0, 3, 4):
                run(kernel, m, k, n, dt, layouts, global_size=(8 * -(-n // 32), 4 * -(-m // 8)), local_size=(8, 4))
            run(kernel, m, k, n, dt, global_size=(16, 16), local_size=(16, 16))
            run(kernel, m, k, n, dt, global_size=(12, 2), local_size=(4, 2))

    # 8 x 4 per work-item, read as 4-lane vectors
    for m, k, n in [(1, 1, 1), (17, 33, 5), (40, 70, 33), (130, 27, 64)]:
        for layouts in (0, 5):
            run("matmul_fours", m, k, n, np.float32, layouts, global_size=(4 * -(-n // 16), 2 * -(-m // 16)),
                local_size=(4, 2))
            run("matmul_fours", m, k, n, np.float32, layouts, global_size=(16, 16), local_size=(8, 8))


@case
def matmul_pipelined():
    # :pipeline and :pad: every layout, edges, fewer workgroups than
    # blocks (the tiles reused), and other launch shapes (the general path)
    for kernel, dt in (("matmul_pipelined_float", np.float32), ("matmul_pipelined_double", np.float64)):
        for m, k, n in [(1, 1, 1), (17, 33, 5), (40, 70, 33), (64, 64, 64), (100, 257, 31)]:
            for layouts in (0, 1, 2, 3, 7):
                run(kernel, m, k, n, dt, layouts, global_size=(8 * -(-n // 32), 4 * -(-m // 16)), local_size=(8, 4))
            run(kernel, m, k, n, dt, global_size=(16, 8), local_size=(8, 4))
            run(kernel, m, k, n, dt, global_size=(12, 6), local_size=(4, 2))
    # the benchmark's GPU configuration: 128 x 128 blocks, 16 x 16 work-items
    for m, k, n, layouts in [(1, 1, 1, 0), (130, 47, 257, 0), (129, 64, 128, 7), (200, 33, 70, 3)]:
        run("matmul_gpu_config", m, k, n, np.float32, layouts, global_size=(16 * -(-n // 128), 16 * -(-m // 128)),
            local_size=(16, 16))
    for m, k, n in [(1, 1, 1), (17, 33, 5), (40, 70, 33), (61, 13, 29)]:
        for layouts in (0, 3, 5):
            run("matmul_pipelined_odd", m, k, n, np.float32, layouts, global_size=(4 * -(-n // 12), 2 * -(-m // 4)),
                local_size=(4, 2))
            run("matmul_pipelined_odd", m, k, n, np.float32, layouts, global_size=(8, 4), local_size=(4, 2))
            run("matmul_padded", m, k, n, np.float32, layouts, global_size=(4 * -(-n // 16), 2 * -(-m // 16)),
                local_size=(4, 2))
            run("matmul_padded", m, k, n, np.float32, layouts, global_size=(16, 16), local_size=(8, 8))


@case
def matmul_naive():
    for m, k, n in SIZES[:-1]:
        run("matmul_naive_float", m, k, n, np.float32, global_size=(16, 16))
        run("matmul_naive_double", m, k, n, np.float64, layouts=5, global_size=(8, 8))
