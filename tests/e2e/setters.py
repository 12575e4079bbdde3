"""tests/e2e/setters.crisp: def-setter and accessor overloads (spec "def-setter")."""
from crisptest import *

prog = compile("tests/e2e/setters.crisp")


@case
def setter_negates_and_getter_undoes():
    n = 64
    a = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    out = np.zeros(3 * n, np.float32)
    prog.run("setters", a, out, global_size=n)
    exp = np.stack([-a, a, 2.0 * (1.0 + a)], axis=1).reshape(-1)
    assert_close(out, exp)
