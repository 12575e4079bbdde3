"""examples/sum_vector.crisp: local-memory tree reduction per workgroup."""
from crisptest import *

prog = compile("examples/sum_vector.crisp")
rng = np.random.default_rng(2)


def run(n, global_size=None):
    a = rng.integers(-1000, 1000, n, dtype=np.int64)
    gs = global_size or n
    groups = -(-gs // 64)
    res = np.zeros(groups, np.int64)
    prog.run("sum_vector", a, res, global_size=gs)
    return a, res


@case
def one_element_per_thread():
    a, res = run(4096)
    assert_equal(res, a.reshape(-1, 64).sum(axis=1))


@case
def partial_last_group():
    a, res = run(1000)  # rounded up to 1024 threads
    assert_equal(res.sum(), a.sum())


@case
def grid_stride_many_elements_per_thread():
    a, res = run(50_000, global_size=256)
    assert_equal(res.sum(), a.sum())
