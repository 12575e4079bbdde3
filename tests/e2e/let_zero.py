"""tests/e2e/let_zero.crisp: let variables declared without a value start at
zero (and the emitted C passes clang -Wall -Werror: no uninitialized read)."""
from crisptest import *

prog = compile("tests/e2e/let_zero.crisp")


@case
def declared_variables_start_at_zero():
    a = np.array([3, -1, 0, 7, -5, 2, 0, 9] * 16, np.int32)
    f = np.full(len(a), 99, np.float32)
    v = np.full((len(a), 4), 99, np.float32)
    n = np.full(len(a), 99, np.int64)
    prog.run("let_zero", a, f, v, n)
    assert_equal(f, (a > 0).astype(np.float32), name="float starts at 0.0, bool at false")
    assert_equal(v, np.zeros((len(a), 4), np.float32), name="float4 starts at 0.0 in every lane")
    assert_equal(n, np.where(a > 0, a, 0).astype(np.int64), name="long and uchar2 start at 0")


@case
def emitted_with_zero_initializers():
    src = prog.source
    for decl in ("float x = 0.0f;", "bool flag = false;", "long count = 0L;"):
        check(decl, decl in src, src[:600])
