"""tests/e2e/arith.crisp: arithmetic, integer division, conversions."""
from crisptest import *

prog = compile("tests/e2e/arith.crisp")
rng = np.random.default_rng(5)


def trunc_div(a, b):
    q = np.trunc(a / b).astype(np.int64)
    return q, a - q * b


def round_half_even_div(a, b):
    q = []
    for x, y in zip(a.tolist(), b.tolist()):
        fq = x // y
        r = x - fq * y
        # r has the sign of y; compare 2r with y
        if 2 * abs(r) > abs(y) or (2 * abs(r) == abs(y) and fq % 2 != 0):
            fq += 1
        q.append(fq)
    q = np.array(q, np.int64)
    return q, a - q * b


@case
def spec_division_table():
    a = np.array([10, -10, 10, -10, 5, 7, 8, 9, -7, 7, 0, -1], np.int32)
    b = np.array([3, 3, -3, -3, 2, 2, 2, 2, 2, -2, 5, 4], np.int32)
    Q = np.zeros(len(a) * 4, np.int32)
    R = np.zeros(len(a) * 4, np.int32)
    prog.run("divisions", a, b, Q, R)
    Q, R = Q.reshape(-1, 4), R.reshape(-1, 4)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    tq, tr = trunc_div(a64, b64)
    fq = a64 // b64
    cq = -((-a64) // b64)
    rq, rr = round_half_even_div(a64, b64)
    assert_equal(Q[:, 0], tq, name="/ quotient")
    assert_equal(R[:, 0], tr, name="/ remainder")
    assert_equal(Q[:, 1], fq, name="floor quotient")
    assert_equal(R[:, 1], a64 - fq * b64, name="floor remainder")
    assert_equal(Q[:, 2], cq, name="ceil quotient")
    assert_equal(R[:, 2], a64 - cq * b64, name="ceil remainder")
    assert_equal(Q[:, 3], rq, name="round quotient")
    assert_equal(R[:, 3], rr, name="round remainder")
    # the spec's own comparison table
    assert_equal(Q[0].tolist(), [3, 3, 4, 3])
    assert_equal(Q[1].tolist(), [-3, -4, -3, -3])
    assert_equal([Q[4, 3], Q[5, 3], Q[6, 3], Q[7, 3]], [2, 4, 4, 4])


@case
def random_divisions():
    a = rng.integers(-10_000, 10_000, 2000, dtype=np.int32)
    b = rng.integers(1, 50, 2000, dtype=np.int32) * rng.choice([-1, 1], 2000).astype(np.int32)
    Q = np.zeros(len(a) * 4, np.int32)
    R = np.zeros(len(a) * 4, np.int32)
    prog.run("divisions", a, b, Q, R)
    Q, R = Q.reshape(-1, 4).astype(np.int64), R.reshape(-1, 4).astype(np.int64)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    for k in range(4):
        assert_equal(Q[:, k] * b64 + R[:, k], a64, name=f"a = q*b + r for division {k}")
    assert_equal(Q[:, 1], a64 // b64)
    assert_equal(Q[:, 3], round_half_even_div(a64, b64)[0])


@case
def unsigned_divisions():
    a = rng.integers(0, 100_000, 500, dtype=np.uint32)
    b = rng.integers(1, 40, 500, dtype=np.uint32)
    Q = np.zeros(len(a) * 3, np.uint32)
    prog.run("udivisions", a, b, Q)
    Q = Q.reshape(-1, 3).astype(np.int64)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    assert_equal(Q[:, 0], a64 // b64)
    assert_equal(Q[:, 1], -((-a64) // b64))
    assert_equal(Q[:, 2], round_half_even_div(a64, b64)[0])


@case
def float_to_int_rounding():
    x = np.array([2.5, 3.5, -2.5, -0.5, 1.7, -1.7, 0.0, 1e6 + 0.5], np.float32)
    out = np.zeros(len(x) * 4, np.int32)
    prog.run("float_rounding", x, out)
    out = out.reshape(-1, 4)
    assert_equal(out[:, 0], np.trunc(x).astype(np.int32))
    assert_equal(out[:, 1], np.floor(x).astype(np.int32))
    assert_equal(out[:, 2], np.ceil(x).astype(np.int32))
    assert_equal(out[:, 3], np.round(x).astype(np.int32))  # numpy rounds half to even


@case
def int_operations():
    a = rng.integers(-1000, 1000, 300, dtype=np.int32)
    b = rng.integers(-1000, 1000, 300, dtype=np.int32)
    out = np.zeros(len(a) * 8, np.int32)
    prog.run("int_ops", a, b, out)
    out = out.reshape(-1, 8)
    assert_equal(out[:, 0], a & b)
    assert_equal(out[:, 1], a | b | 1)
    assert_equal(out[:, 2], a ^ b)
    assert_equal(out[:, 3], ~a)
    assert_equal(out[:, 4], a << 3)
    assert_equal(out[:, 5], a >> 2)
    assert_equal(out[:, 6], np.clip(np.minimum(a, b), -50, np.maximum(50, b)))
    assert_equal(out[:, 7], np.abs(a - b))


@case
def ash_by_a_negated_count():
    a = rng.integers(-100000, 100000, 300).astype(np.int32)
    out = np.zeros(len(a) * 4, np.int32)
    prog.run("ash_negated", a, out)
    out = out.reshape(-1, 4)
    i = np.arange(len(a))
    p = i & 3
    s = (i & 7) - 4
    assert_equal(out[:, 0], a >> (4 * p))
    assert_equal(out[:, 1], a >> p)
    assert_equal(out[:, 2], np.where(-s >= 0, a << np.maximum(-s, 0), a >> np.maximum(s, 0)))
    assert_equal(out[:, 3], a >> (p + 1))


@case
def float_operations():
    x = rng.uniform(-3, 3, 400).astype(np.float32)
    out = np.zeros(len(x) * 8, np.float32)
    prog.run("float_ops", x, out)
    out = out.reshape(-1, 8)
    assert_close(out[:, 0], x + 1 + 2.5)
    assert_close(out[:, 1], 2 * x - x / 4)
    assert_close(out[:, 2], np.sqrt(x * x + 1), rtol=1e-5)
    assert_close(out[:, 3], np.abs(x) ** 0.5, rtol=1e-5)
    assert_close(out[:, 4], np.sin(x) + np.cos(x), rtol=1e-5, atol=1e-6)
    assert_close(out[:, 5], np.exp(-x), rtol=1e-5)
    assert_close(out[:, 6], np.log2(np.abs(x) + 1), rtol=1e-5, atol=1e-6)
    assert_equal(out[:, 7], -x)


@case
def conversions():
    x = np.array([1.0, -2.5, 3.75, 100.5], np.float32)
    out = np.zeros(len(x) * 2, np.uint32)
    prog.run("conversions", x, out)
    out = out.reshape(-1, 2)
    assert_equal(out[:, 0], x.view(np.uint32))
    assert_equal(out[:, 1], (200 + np.round(x).astype(np.int64)).astype(np.uint32))
