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
