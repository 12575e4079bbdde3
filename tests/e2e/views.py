"""tests/e2e/views.crisp: vector-views and reinterpret-view."""
from crisptest import *

prog = compile("tests/e2e/views.crisp")


@case
def views_and_properties():
    a = np.arange(10, dtype=np.float32)
    b = np.arange(10, dtype=np.float32) * 100
    out = np.zeros(6, np.float32)
    prog.run("views", a, b, out)
    assert_equal(out.tolist(), [2.0, 3.0, 3.0, 2 + 3 + 4 + 5, 4 + 5 + 6, 400.0])


@case
def reinterpreting_bits():
    f = np.array([1.0, -2.5, 3.25, 0.0], np.float32)
    out = np.zeros(9, np.uint32)
    prog.run("bits", f, out)
    assert_equal(out[:4], f.view(np.uint32))
    assert_equal(out[8], f.view(np.uint16)[2])
