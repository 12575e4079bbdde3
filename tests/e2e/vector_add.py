"""examples/vector_add.crisp: the three vector_add styles on PoCL."""
from crisptest import *

prog = compile("examples/vector_add.crisp")
rng = np.random.default_rng(1)


@case
def one_thread_per_element():
    a = rng.random(1024, dtype=np.float32)
    b = rng.random(1024, dtype=np.float32)
    c = np.zeros(1024, np.float32)
    prog.run("vector_add", a, b, c)
    assert_close(c, a + b)


@case
def grid_stride_fewer_threads_than_elements():
    n = 100_000
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    prog.run("vector_add_stride", a, b, c, global_size=1024, local_size=64)
    assert_close(c, a + b)


@case
def vector_stride_odd_length():
    n = 1001
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    prog.run("vector_add_vstride", a, b, c, global_size=96)
    assert_close(c, a + b)


@case
def global_offset_does_not_shift_ids():
    # crisp's get-global-id is relative to the global offset
    src = prog.source
    check("relative ids", "get_global_offset" in src)
