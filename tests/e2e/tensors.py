"""tests/e2e/tensors.crisp: tensor-views and matrices (spec "Tensors",
"Matrices") checked against numpy's strided views of the same data."""
from crisptest import *

prog = compile("tests/e2e/tensors.crisp")


@case
def views_rows_columns_transpose():
    a = np.arange(100, 140, dtype=np.float32)
    out = np.zeros(73, np.float32)
    prog.run("matrices", a, out)
    m = a[:12].reshape(3, 4)                                   # row-major
    c = a[:12].reshape(4, 3).T                                  # column-major 3x4
    t3 = a[1:13].reshape(2, 3, 2)
    exp = np.concatenate([m.ravel(), c.ravel(), c.ravel(), t3.ravel(),
                          m[1], m[:, 2], m.T.ravel(),
                          [3, 12, 6, 4], [m[2, 3], 4]]).astype(np.float32)
    assert_equal(out, exp)


@case
def writing_through_a_matrix():
    out = np.full(16, -1, np.int32)
    prog.run("identity4", out)
    assert_equal(out.reshape(4, 4), np.eye(4, dtype=np.int32))


@case
def layouts_from_strides():
    a = np.zeros(16, np.float32)
    out = np.full(7, -1, np.int32)
    prog.run("layouts", a, out)
    # matrix-layout: row-major 0, col-major 1, other-layout 2
    assert_equal(out, np.array([0, 1, 2, 1, 1, 48, 64], np.int32))


@case
def tensor_view_parameters():
    a = np.arange(100, 140, dtype=np.float32)
    out = np.zeros(10, np.float32)
    prog.run("tensor_params", a, out)
    m = a[:12].reshape(3, 4)
    c = a[:12].reshape(4, 3).T
    t3 = a[1:13].reshape(2, 3, 2)

    def weighted(t):
        s = sum(float(t[i, j, k]) * (i * 100 + j * 10 + k) for i in range(t.shape[0])
                for j in range(t.shape[1]) for k in range(t.shape[2]))
        return s + 1e6 * t.size + 1e4 * (t.strides[0] // t.itemsize)

    exp = np.array([np.trace(m), np.trace(c), m[1].sum(), c[2].sum(),
                    np.trace(m) + m[2, 3], weighted(t3), weighted(t3.T),
                    4, m[1, 3], m[:, 3].sum()], np.float32)
    assert_close(out, exp, rtol=1e-6)


@case
def writing_through_a_matrix_parameter():
    out = np.full(16, -1, np.int32)
    prog.run("identity_via_function", out)
    exp = np.full(16, -1, np.int32)
    exp[1:16] = (7 * np.eye(3, 5, dtype=np.int32)).ravel()
    assert_equal(out, exp)
