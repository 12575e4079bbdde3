"""examples/atomics.crisp: every atomic on PoCL, checked against numpy."""
from crisptest import *

prog = compile("examples/atomics.crisp")
rng = np.random.default_rng(4)


@case
def histogram():
    data = rng.integers(0, 256, 10_000, dtype=np.uint8)
    counts = np.zeros(256, np.uint32)
    prog.run("histogram", data, counts, local_size=64)
    assert_equal(counts, np.bincount(data, minlength=256).astype(np.uint32))


@case
def sum_to_one_64bit():
    a = rng.integers(-(1 << 40), 1 << 40, 5000, dtype=np.int64)
    res = np.zeros(1, np.int64)
    prog.run("sum_to_one", a, res)
    assert_equal(res[0], a.sum())


@case
def int_min_max_sub_dec():
    a = rng.integers(-1000, 1000, 3000, dtype=np.int32)
    stats = np.array([2**31 - 1, -2**31, 0, 0], np.int32)
    prog.run("int_stats", a, stats)
    assert_equal(stats, np.array([a.min(), a.max(), -a.sum(), -len(a)], np.int32))


@case
def tickets_are_unique():
    order = np.zeros(777, np.uint64)
    counter = np.zeros(1, np.uint32)
    prog.run("tickets", counter, order)
    assert_equal(counter[0], 777)
    assert_equal(np.sort(order), np.arange(777, dtype=np.uint64))


@case
def local_memory_counting():
    a = rng.integers(-5, 5, 1000, dtype=np.int32)
    total = np.zeros(1, np.uint32)
    prog.run("count_positive", a, total)
    assert_equal(total[0], int((a > 0).sum()))


@case
def float_sum_with_cas_loop():
    a = rng.integers(0, 16, 4096).astype(np.float32)  # exact in float
    res = np.zeros(1, np.float32)
    prog.run("float_sum", a, res)
    assert_equal(res[0], a.sum())


@case
def atomic_op_user_function():
    counter = np.zeros(1, np.int32)
    prog.run("saturating_count", counter, global_size=500)
    assert_equal(counter[0], 100)


@case
def exchange_returns_each_value_once():
    n = 300
    slot = np.array([-1], np.int32)
    old = np.zeros(n, np.int32)
    prog.run("exchange", slot, old)
    values = np.sort(np.append(old, slot))
    assert_equal(values, np.arange(-1, n, dtype=np.int32))
