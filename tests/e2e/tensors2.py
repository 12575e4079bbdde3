"""tests/e2e/tensors2.crisp: tensor-views in templated and higher-order
functions and overloads by tensor rank / element type, checked with numpy."""
from crisptest import *

prog = compile("tests/e2e/tensors2.crisp")


@case
def templates_functions_and_overloads():
    a = np.arange(1, 41, dtype=np.float32) * 0.5
    b = np.array([3, -1, 4, 1, -5, 9], np.int32)
    out = np.zeros(13, np.float32)
    prog.run("tensor_generic", a, b, out)
    m = a[:12].reshape(3, 4)
    c = a[:12].reshape(4, 3).T
    n = b.reshape(2, 3)
    exp = np.array([m.sum(), n.sum(), c.max(), n.max(),
                    (m * m).sum(), (c * 0.5).sum(),
                    (np.diag(m) ** 2).sum(), 2 * c[0].sum(),
                    3000, 5, 4, m[1, 1], 2 * n[1, 1]], np.float32)
    assert_close(out, exp, rtol=1e-6)


@case
def identity_tensors():
    a = np.arange(1, 41, dtype=np.float32) * 0.5
    out = np.zeros(12, np.float32)
    eye = np.full(16, -1, np.int32)
    prog.run("identities", a, out, eye)
    m = a[:12].reshape(3, 4)
    i3 = np.zeros((4, 4, 4))
    for k in range(4):
        i3[k, k, k] = 1
    exp = np.array([np.trace(m), 0, 2, 10 * i3.sum() + 3, 23,
                    1, 0, 3, m[0, 1], 100, 9 + np.eye(3).sum(), 100], np.float32)
    assert_close(out, exp, rtol=1e-6)
    assert_equal(eye.reshape(4, 4), np.eye(4, dtype=np.int32))


@case
def derived_tensor_element_access():
    a = np.array([0.111, 0.5, 0.257, 0.9, 0.333, 0.666, 7, 8], np.float32)
    out = np.zeros(6, np.float32)
    m = a[:6].reshape(2, 3).astype(np.float64)     # before the kernel writes A
    prog.run("percents", a, out)
    pct = np.rint(m * 100)          # round-half-even like convert_int_rte
    exp = np.array([pct[1, 2], m[1, 2], m.sum(), pct.sum(), 0.42, 0.42], np.float32)
    assert_close(out, exp, rtol=1e-6)
    assert_close(a[0], np.float32(0.42), rtol=1e-6)
