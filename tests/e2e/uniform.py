"""tests/e2e/uniform.crisp: uniform declarations and the + / * variants on
PoCL.  Workgroups have 4 work-items; where a uniform capture decides, it is
work-item 0 of each group (local id 0) whose value every work-item uses."""
from crisptest import *

prog = compile("tests/e2e/uniform.crisp")
N = 16  # four workgroups of four


@case
def uniform_declaration():
    out = np.zeros(N, np.int32)
    s = np.zeros(N, np.int32)
    prog.run("uniform_decl", 7, out, s)
    assert_equal(out, np.full(N, 7 + 0, np.int32))          # base + local id 0, 10 * local id 0
    assert_equal(s, np.full(N, 0 + 1 + 2, np.int32))        # k + local id 0, k = 0 1 2


@case
def spec_uniform_loop():
    for some in (0, 1, 5, 9):
        out = np.zeros(N, np.int32)
        prog.run("uniform_loop", some, out)
        assert_equal(out, np.full(N, some, np.int32), name=f"someThing={some}")


def counting_ref(n, factor):
    def div_seq(start, f):
        k, i = 0, start
        while f > 1 and i >= 1:
            k, i = k + 1, i // f
        return k
    c = n                                   # dotimes+ (i n)
    c += 10 * 3                             # dotimes* (i (+ lid 3)): lid 0
    c += 100 * ((n + 1) // 2)               # dec-times+ (i n 2)
    c += 1000 * 0                           # dec-times* (i (* lid 5)): lid 0
    c += 10000 * div_seq(16, 2)             # dec-times-by-half+ 16
    c += 100000 * div_seq(8, 2)             # dec-times-by-half* (+ lid 8)
    c += 1000000 * div_seq(64, factor)      # dec-times-by-factor+ 64 factor
    c += 10000000 * div_seq(27, 3)          # dec-times-by-factor* (+ lid 27) (+ lid 3)
    return c


for n, factor in [(5, 4), (0, 2), (9, 8), (1, 64)]:
    @case(f"counting_n{n}_f{factor}")
    def _(n=n, factor=factor):
        out = np.zeros(N, np.int32)
        prog.run("counting", n, factor, out)
        assert_equal(out, np.full(N, counting_ref(n, factor), np.int32))


def branches_ref(n):
    c = 1 if n > 5 else 2                   # if+
    c += 10 * (n + 1) if n + 1 != 0 else 0  # when+ with it
    c += 100 if not n > 100 else 0          # unless+
    c += 1000 if n < 0 else 2000 if n < 10 else 3000   # cond+
    c += 20000                              # if*: local id 0 is even
    c += 100000 * 1                         # when*: it = local id 0 + 1
    c += 1000000                            # unless*: local id 0 is not > 0
    c += 10000000                           # cond*: local id 0 = 0
    return c


for n in (-1, 3, 50, 200):
    @case(f"branches_n{n}")
    def _(n=n):
        out = np.zeros(N, np.int32)
        prog.run("branches", n, out)
        assert_equal(out, np.full(N, branches_ref(n), np.int32))


@case
def barrier_under_uniform_branch():
    a = np.random.default_rng(3).integers(-100, 100, N, dtype=np.int32)
    out = np.zeros(N, np.int32)
    prog.run("group_sum", a, out)
    assert_equal(out, np.repeat(a.reshape(-1, 4).sum(axis=1), 4).astype(np.int32))


@case
def compile_time_conditions():
    rng = np.random.default_rng(5)
    a = rng.integers(-50, 50, 40, dtype=np.int32)
    b = rng.integers(-50, 50, 40, dtype=np.int32)
    out = np.zeros(40, np.int32)
    prog.run("combine_add", a, b, out)
    assert_equal(out, a + b)
    prog.run("combine_mul", a, b, out)
    assert_equal(out, a * b)


@case
def uniform_in_functions():
    out = np.zeros(N, np.int32)
    prog.run("uniform_in_function", out)
    assert_equal(out, np.full(N, (1 + 2) + 100 * (5 + 0), np.int32))
