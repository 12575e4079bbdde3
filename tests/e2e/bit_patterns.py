"""tests/e2e/bit_patterns.crisp: #x / #b literals in bit operations on
signed integers are bit patterns (docs/language.md), against numpy."""
from crisptest import *

prog = compile("tests/e2e/bit_patterns.crisp")
rng = np.random.default_rng(17)


@case
def int_patterns():
    a = rng.integers(-(1 << 31), 1 << 31, 1003, dtype=np.int64).astype(np.int32)
    a[:4] = [-(1 << 31), (1 << 31) - 1, 0, -1]
    r = np.zeros(4 * len(a), np.int32)
    prog.run("int_patterns", a, r)
    r = r.reshape(-1, 4)
    assert_equal(r[:, 0], a ^ np.int32(-(1 << 31)), name="logxor #x80000000")
    assert_equal(r[:, 1], a & np.int32(-65536), name="bit-and #xFFFF0000")
    assert_equal(r[:, 2], a | np.int32(-(1 << 31) + 1), name="bit-or #b1...1")
    assert_equal(r[:, 3], (a ^ np.int32(-1)) >> 4, name="ash of bit-xor #xFFFFFFFF (arithmetic)")


@case
def long_patterns():
    a = rng.integers(-(1 << 63), (1 << 63) - 1, 1001, dtype=np.int64)
    a[:4] = [-(1 << 63), (1 << 63) - 1, 0, -1]
    r = np.zeros(3 * len(a), np.int64)
    prog.run("long_patterns", a, r)
    r = r.reshape(-1, 3)
    assert_equal(r[:, 0], a ^ np.int64(-(1 << 63)), name="logxor #x8000000000000000")
    assert_equal(r[:, 1], a & np.int64(-(1 << 32)), name="logand #xFFFFFFFF00000000")
    assert_equal(r[:, 2], a ^ np.int64(0x80000000), name="logxor #x80000000 (a long number)")


@case
def short_and_char_patterns():
    s = rng.integers(-(1 << 15), 1 << 15, 777, dtype=np.int16)
    c = rng.integers(-128, 128, 777, dtype=np.int8)
    rs = np.zeros_like(s)
    rc = np.zeros_like(c)
    prog.run("short_char_patterns", s, c, rs, rc)
    assert_equal(rs, s ^ np.int16(-(1 << 15)), name="bit-xor #x8000 on short")
    assert_equal(rc, c & np.int8(-16), name="bit-and #xF0 on char")
