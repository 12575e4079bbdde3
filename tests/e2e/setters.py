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


@case
def setter_typed_by_its_signature():
    a = np.random.default_rng(8).standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    prog.run("signature_setter", a, out, global_size=32)
    assert_close(out, np.abs(a))
