"""tests/e2e/tile.crisp: load-tile, store-tile and convert-layout (spec
"Matrices") against numpy, for row- and column-major sources of sizes that
are and are not multiples of the tile."""
from crisptest import *

prog = compile("tests/e2e/tile.crisp")

SHAPES = [(1, 1), (8, 12), (17, 33), (33, 5), (64, 96), (70, 41)]


def source(rows, cols, col_major, dtype):
    """The matrix and the buffer holding it in the given layout."""
    m = (np.arange(rows * cols) * 3 % 1009 - 400).astype(dtype).reshape(rows, cols)
    return m, (m.T.ravel() if col_major else m.ravel()).copy()


@case
def tile_copy_and_transpose():
    for rows, cols in SHAPES:
        for cm in (0, 1):
            m, buf = source(rows, cols, cm, np.float32)
            out = np.full(rows * cols, -1, np.float32)
            out_t = np.full(rows * cols, -1, np.float32)
            gs = (4 * ((cols + 11) // 12), 2 * ((rows + 7) // 8))
            prog.run("tile_copy", buf, rows, cols, cm, out, out_t, global_size=gs)
            assert_equal(out.reshape(rows, cols), m, name=f"{rows}x{cols} col-major={cm}")
            assert_equal(out_t.reshape(cols, rows), m.T, name=f"{rows}x{cols} col-major={cm} transposed")


@case
def tile_copy_fewer_workgroups():
    # one workgroup strides over every block (loop-group-stride)
    m, buf = source(70, 41, 1, np.float32)
    out = np.zeros(70 * 41, np.float32)
    out_t = np.zeros(70 * 41, np.float32)
    prog.run("tile_copy", buf, 70, 41, 1, out, out_t, global_size=(4, 2))
    assert_equal(out.reshape(70, 41), m)
    assert_equal(out_t.reshape(41, 70), m.T)


@case
def edge_tile_zero_fill():
    rows, cols = 6, 7
    m = np.arange(1, rows * cols + 1, dtype=np.float64).reshape(rows, cols)
    for by in (0, 1, 2):
        for tr in (0, 1):
            out = np.full(32, -1, np.float64)
            prog.run("edge_tile", m.ravel().copy(), rows, cols, by, tr, out)
            block = np.zeros((4, 4))
            part = m[4:8, 4 * by:4 * by + 4]
            block[:part.shape[0], :part.shape[1]] = part
            assert_equal(out[:16].reshape(4, 4), block, name=f"block (1, {by})")
            assert_equal(out[16:].reshape(4, 4), block.T if tr else block, name=f"block (1, {by}) transpose={tr}")


@case
def convert_layout():
    for rows, cols in SHAPES + [(100, 3), (3, 100)]:
        for cm in (0, 1):
            m, buf = source(rows, cols, cm, np.float32)
            out = np.full(rows * cols, -1, np.float32)
            prog.run("to_row", buf, rows, cols, cm, out, global_size=(32, 64))
            assert_equal(out, m.ravel(), name=f"to_row {rows}x{cols} col-major={cm}")
            mi, bufi = source(rows, cols, cm, np.int32)
            outi = np.full(rows * cols, -1, np.int32)
            prog.run("to_col", bufi, rows, cols, cm, outi, global_size=(16, 16))
            assert_equal(outi, mi.T.ravel(), name=f"to_col {rows}x{cols} col-major={cm}")
