"""tests/e2e/functions.crisp: function declaration styles and calls."""
from crisptest import *

prog = compile("tests/e2e/functions.crisp")
rng = np.random.default_rng(6)


@case
def declaration_styles():
    a = rng.integers(-500, 500, 200, dtype=np.int32)
    b = rng.integers(1, 30, 200, dtype=np.int32) * rng.choice([-1, 1], 200).astype(np.int32)
    out = np.zeros(len(a) * 10, np.int32)
    prog.run("call_styles", a, b, out)
    out = out.reshape(-1, 10).astype(np.int64)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    s = a64 + b64
    tq = np.trunc(a64 / b64).astype(np.int64)
    for k in range(4):
        assert_equal(out[:, k], s, name=f"style {k}")
    assert_equal(out[:, 4], tq)
    assert_equal(out[:, 5], s + 1)
    assert_equal(out[:, 6], 2 * s)
    assert_equal(out[:, 7], a64 - tq * b64)
    assert_equal(out[:, 8], a64)
    fq = a64 // b64
    assert_equal(out[:, 9], fq - (a64 - fq * b64))


@case
def open_address_space_instantiated_twice():
    data = np.arange(10, dtype=np.float32)
    sums = np.zeros(2, np.float32)
    prog.run("vector_helpers", data, sums)
    assert_equal(data, np.arange(10, dtype=np.float32) * 2)
    assert_equal(sums, np.array([90.0, 5.0], np.float32))
    check("one instance per address space", "void scale_x_global(" in prog.source and "void scale_x_private(" in prog.source)


@case
def grid_function_with_out():
    out = np.zeros(1000, np.int64)
    prog.run("squares", out, global_size=128)
    assert_equal(out, np.arange(1000, dtype=np.int64) ** 2)
