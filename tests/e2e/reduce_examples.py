"""The library examples: examples/sum_vector_to_one.crisp (reduce-vec-atomic
and reduce-vec-small) and examples/dot_product.crisp (dot-prod-grid,
dot-prod-seq), on PoCL against numpy."""
from crisptest import *

sums = compile("examples/sum_vector_to_one.crisp")
dots = compile("examples/dot_product.crisp")
rng = np.random.default_rng(3)

for n in (1, 255, 100_000, (1 << 20) + 3):
    @case("sum_vector_to_one_%d" % n)
    def _(n=n):
        a = rng.integers(-(1 << 40), 1 << 40, n, dtype=np.int64)
        res = np.zeros(1, np.int64)
        sums.run("sum_vector_to_one", a, res)
        assert_equal(res[0], a.sum())
        res = np.full(1, 12345, np.int64)      # stored, not added
        sums.run("sum_vector_small", a, res)
        assert_equal(res[0], a.sum())


@case
def dot_product():
    a = rng.uniform(-1, 1, 300_001).astype(np.float32)
    b = rng.uniform(-1, 1, 300_001).astype(np.float32)
    r = np.zeros(1, np.float32)
    dots.run("dot_product", a, b, r)
    assert_close(r[0], np.dot(a.astype(np.float64), b), rtol=1e-5)


@case
def mat_vec():
    rows, cols = 100, 37
    m = rng.uniform(-1, 1, rows * cols).astype(np.float32)
    x = rng.uniform(-1, 1, cols).astype(np.float32)
    y = np.zeros(rows, np.float32)
    dots.run("mat_vec", rows, cols, m, x, y)
    assert_close(y, m.reshape(rows, cols).astype(np.float64) @ x, rtol=1e-5, atol=1e-5)
