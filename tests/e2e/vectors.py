"""tests/e2e/vectors.crisp: hardware vectors, layouts, address spaces."""
from crisptest import *
import pyopencl as cl

prog = compile("tests/e2e/vectors.crisp")
rng = np.random.default_rng(8)


@case
def swizzles_and_literals():
    v = rng.random((64, 4), dtype=np.float32)
    out = np.zeros((64, 4), np.float32)
    prog.run("swizzles", v, out)
    w = np.stack([v[:, 1], v[:, 0], v[:, 2], v[:, 3] + v[:, 0]], axis=1)
    assert_close(out, w * 2 + 1)


@case
def std140_stride_16():
    meta = [a for a in prog.meta["kernels"] if a["name"] == "std140_copy"][0]["args"]
    assert_equal([meta[0]["stride"], meta[2]["stride"]], [16, 4])
    a = rng.random(100, dtype=np.float32)
    out = np.zeros(100, np.float32)
    prog.run("std140_copy", a, out)
    assert_close(out, 3 * a)


@case
def std140_double():
    a = rng.random(33)
    out = np.zeros(33)
    prog.run("std140_double2", a, out)
    assert_close(out, a + 0.5)


@case
def constant_and_local_buffers():
    table = np.arange(8, dtype=np.int32) * 10
    out = np.zeros(24, np.int32)
    prog.run("constant_and_local", table, 8, out, local_size=8)
    assert_equal(out, np.tile(table[::-1], 3))


@case
def private_arrays():
    out = np.zeros(6, np.int64)
    prog.run("private_arrays", out)
    assert_equal(out, np.array([0, 1, 1, 2, 3, 5]) * np.array([2, 3, 5, 7, 11, 13]))


@case
def local_hoisted_tile():
    a = np.arange(64, dtype=np.uint32)
    out = np.zeros(64, np.uint32)
    prog.run("local_reverse", a, out)
    assert_equal(out, a.reshape(-1, 16)[:, ::-1].reshape(-1))
    check("local array at kernel scope", "__local uint tile[16];" in prog.source)
