"""tests/e2e/struct_accessors.crisp: with-struct-accessors (spec
"with-struct-accessors - ADVANCED"): macros that enumerate a struct's fields
through its public (overloadable) and raw accessors."""
from crisptest import *

prog = compile("tests/e2e/struct_accessors.crisp")


@case
def sum_public_and_copy_raw():
    n = 64
    a = np.random.default_rng(11).standard_normal(3 * n).astype(np.float32)
    s = np.zeros(n, np.float32)
    c = np.zeros(3 * n, np.float32)
    prog.run("struct_accessors", a, s, c, global_size=n)
    p = a.reshape(n, 3)
    # x~ is overloaded to read 2x; y~ and z~ are the plain members
    assert_close(s, 2.0 * p[:, 0] + p[:, 1] + p[:, 2])
    # every field copied raw, then each scaled by 3
    assert_close(c, 3.0 * a)
