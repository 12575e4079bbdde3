"""tests/e2e/templates_deduce.crisp: T deduced from a templated struct argument."""
from crisptest import *

prog = compile("tests/e2e/templates_deduce.crisp")


@case
def deduced_through_pair_type():
    n = 64
    a = np.arange(n, dtype=np.int32)
    f = np.linspace(0, 1, n, dtype=np.float32)
    r = np.zeros(n, np.int32)
    g = np.zeros(n, np.float32)
    prog.run("sums", a, f, r, g)
    assert_equal(r, a + 1)
    assert_close(g, f + np.float32(0.5))
    check("two instances", "pair_sum_int" in prog.source and "pair_sum_float" in prog.source, "instances missing")
