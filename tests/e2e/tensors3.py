"""tests/e2e/tensors3.crisp: predefined matrix, any-rank tensor parameters."""
from crisptest import *

prog = compile("tests/e2e/tensors3.crisp")


@case
def any_rank_parameters_and_predefined_matrix():
    a = np.random.default_rng(3).uniform(-2, 2, 12).astype(np.float32)
    out = np.zeros(5, np.float32)
    prog.run("any_rank", a, out)
    m = a.reshape(3, 4)
    assert_close(out, np.array([12, 8, 5, np.trace(m), a[:8].reshape(2, 2, 2)[1, 1, 1]], np.float32))
    for rank in (1, 2, 3):
        check(f"an instance for rank {rank}", f"extent_product_global_float_rank{rank}(" in prog.source)


@case
def whole_dims_and_strides_set():
    a = np.arange(12, dtype=np.float32) * 1.5
    out = np.zeros(13, np.float32)
    prog.run("restride", a, out)
    want = np.array([[a[i + 3 * j] for j in range(3)] for i in range(4)], np.float32)   # strides (1, 3)
    assert_close(out[:12], want.ravel())
    assert_close(out[12], a[2])
