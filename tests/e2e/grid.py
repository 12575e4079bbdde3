"""tests/e2e/grid.crisp: 2D and linear grid strides, id/size builtins."""
from crisptest import *

prog = compile("tests/e2e/grid.crisp")
rng = np.random.default_rng(9)


@case
def grid_stride_2d_smaller_grid_than_image():
    w, h = 45, 31
    img = rng.integers(-100, 100, w * h, dtype=np.int32)
    out = np.zeros(w * h, np.int32)
    prog.run("transpose_add", img, w, h, out, global_size=(8, 4), local_size=(4, 2))
    assert_equal(out.reshape(w, h), img.reshape(h, w).T + 1)


@case
def grid_stride_linear_2d_launch():
    out = np.zeros(1000, np.uint64)
    prog.run("iota_linear", out, global_size=(8, 8), local_size=(4, 4))
    assert_equal(out, np.arange(1000, dtype=np.uint64) * 3)


@case
def id_builtins_with_offset():
    info = np.zeros(14, np.uint64)
    prog.run("ids", info, global_size=(8, 6), local_size=(4, 3), global_offset=(10, 0))
    # thread (0,0) of group (1,0): relative global id 4, absolute 14
    lin = 4  # relative linear id: y=0, x=4
    assert_equal(info.tolist(), [4, 14, 10, 2, 8, 6, 4, 3, 2, lin, 48, 48, 0, 12])


@case
def math_builtins():
    x = rng.uniform(0.1, 1.9, 200).astype(np.float32)
    out = np.zeros(len(x) * 6, np.float32)
    prog.run("more_math", x, out)
    out = out.reshape(-1, 6)
    for k, f in enumerate([lambda v: 1 / np.sqrt(v), np.log, np.tan,
                           lambda v: np.arcsin(v / 2), lambda v: np.arccos(v / 2), np.arctan]):
        assert_close(out[:, k], f(x.astype(np.float64)).astype(np.float32), rtol=1e-4, atol=1e-5, name=str(k))
