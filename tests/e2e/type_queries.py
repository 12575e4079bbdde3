"""tests/e2e/type_queries.crisp: macros choosing code by compile-time type
queries (docs/macros.md "Type queries")."""
from crisptest import *

prog = compile("tests/e2e/type_queries.crisp")


@case
def macros_choose_code_by_type_queries():
    n = 64
    a = np.random.default_rng(11).standard_normal(n).astype(np.float32)
    out = np.zeros(5 * n, np.float32)
    prog.run("type_queries", a, out, global_size=n)
    exp = np.stack([3.0 * a, 2.0 * a, a + 101.0,
                    np.full(n, 3.0, np.float32), np.full(n, 10.0, np.float32)],
                   axis=1).reshape(-1)
    assert_close(out, exp)
