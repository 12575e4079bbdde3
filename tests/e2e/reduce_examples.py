"""The library examples: examples/library_forms.crisp (README's two forms),
examples/sum_vector_to_one.crisp (reduce-vec-atomic
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


@case
def library_forms_of_the_readme():
    forms = compile("examples/library_forms.crisp")
    a = rng.integers(-100, 100, 5000, dtype=np.int32)
    out = np.zeros(5000, np.int32)
    forms.run("prefix_sums", a, out)
    assert_equal(out, np.concatenate([[0], np.cumsum(a)[:-1]]).astype(np.int32))
    f = rng.uniform(-1, 1, 5000).astype(np.float32)
    res = np.zeros(1, np.float32)
    forms.run("total", f, res)
    assert_close(res[0], f.astype(np.float64).sum(), rtol=1e-5)
