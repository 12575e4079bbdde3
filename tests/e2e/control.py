"""tests/e2e/control.crisp: branching, anaphoric it, thread guards."""
from crisptest import *

prog = compile("tests/e2e/control.crisp")
rng = np.random.default_rng(7)


def classify(x):
    if x < -100:
        return -2
    if x == 0:
        return 0
    if x & 1:
        return 1000
    if x > 100:
        return 2
    return -1 if x < 0 else 1


@case
def branches():
    a = rng.integers(-300, 300, 500, dtype=np.int32)
    b = rng.integers(-3, 3, 500, dtype=np.int32)
    a[:5] = [0, 0, 7, -7, 200]
    b[:5] = [0, 5, 0, 1, -1]
    out = np.zeros(len(a) * 3, np.int32).reshape(-1, 3)
    flat = out.reshape(-1)
    prog.run("branching", a, b, flat)
    out = flat.reshape(-1, 3)
    exp0 = [classify(int(x)) for x in a]
    exp1 = [(1 if (x > 0 and not y > 0) else 0) + (10 if (x == 0 or y == 0) else 20) for x, y in zip(a, b)]
    exp2 = [int(x) if x != 0 else (int(y) if y != 0 else -1) for x, y in zip(a, b)]
    assert_equal(out[:, 0].tolist(), exp0)
    assert_equal(out[:, 1].tolist(), exp1)
    assert_equal(out[:, 2].tolist(), exp2)


@case
def thread_guards_with_global_offset():
    marks = np.zeros(8, np.uint64)
    # 8x4 threads in 4x2 groups: 2x2 groups; offset (2, 1) shifts absolute ids
    prog.run("guards", marks, global_size=(8, 4), local_size=(4, 2), global_offset=(2, 1))
    assert_equal(marks[:7].tolist(), [1, 1, 1, 4, 8, 1, 4])
    assert_equal(marks[7], 0 + 0 + 1 + 1)  # sum of group id 1 over the 4 groups


@case
def single_task_runs_once():
    counter = np.zeros(1, np.uint64)
    prog.run("count_once", counter, global_size=256, local_size=64)
    assert_equal(counter[0], 1)


@case
def check_wg_bounds():
    out = np.zeros(12, np.int32)
    prog.run("wg_bounds", out, local_size=4)
    assert_equal(out, np.ones(12, np.int32))
